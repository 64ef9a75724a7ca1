"""01: stock trading: rebalancing a concentrated account (quotes, order book, orders, cancels)."""

from lib import Traj, constraint, evidence, fact, next_call, pending, tool_state
from tools import pick

FILENAME = "01_rebalance-trades.jsonl"

ACCT = "5TR-88214-07"

HOLDINGS = [  # symbol, description, qty, avg cost, price, prev close
    ("NVDA", "NVIDIA CORP", 455, 48.12, 131.40, 129.88),
    ("AAPL", "APPLE INC", 120, 142.30, 178.85, 177.02),
    ("MSFT", "MICROSOFT CORP", 60, 289.10, 418.20, 420.61),
    ("AMZN", "AMAZON.COM INC", 90, 101.44, 186.70, 185.11),
    ("GOOGL", "ALPHABET INC CL A", 85, 98.20, 163.05, 164.40),
    ("VTI", "VANGUARD TOTAL STOCK MKT ETF", 40, 198.30, 282.15, 281.37),
    ("SCHD", "SCHWAB US DIVIDEND EQUITY ETF", 150, 24.10, 27.95, 27.88),
    ("JNJ", "JOHNSON & JOHNSON", 30, 160.40, 154.20, 153.75),
    ("COST", "COSTCO WHOLESALE CORP", 8, 512.00, 912.30, 905.44),
    ("XOM", "EXXON MOBIL CORP", 45, 88.15, 112.40, 113.02),
    ("BND", "VANGUARD TOTAL BOND MARKET ETF", 60, 74.20, 72.90, 72.95),
]
CASH = 6412.55


def m(x: float) -> str:
    return f"{x:.2f}"


def portfolio(h=HOLDINGS, cash=CASH, as_of="2025-10-14T09:41:07-04:00"):
    positions = []
    total = cash
    for sym, desc, q, avg, px, prev in h:
        total += q * px
    for sym, desc, q, avg, px, prev in h:
        mv = q * px
        positions.append({
            "symbol": sym, "description": desc, "quantity": q, "average_cost": m(avg),
            "last_price": m(px), "market_value": m(mv), "cost_basis": m(q * avg),
            "unrealized_gain": m(mv - q * avg), "unrealized_gain_pct": f"{(px / avg - 1) * 100:.2f}",
            "day_change": m(q * (px - prev)), "portfolio_pct": f"{mv / total * 100:.2f}",
        })
    return {
        "account_id": ACCT, "account_type": "INDIVIDUAL", "as_of": as_of, "currency": "USD",
        "total_value": m(total), "cash_available": m(cash), "buying_power": m(cash),
        "settled_cash": m(cash), "pending_settlement": "0.00", "margin_enabled": False,
        "positions": positions,
    }


def news(rng):
    items = [
        ("Reuters", "US weighs tighter licensing for advanced AI chip exports to Middle East",
         "The Commerce Department is reviewing a proposal that would require case-by-case licences for shipments "
         "of high-end accelerators to several Gulf states, people familiar with the matter said. NVIDIA, AMD and "
         "Intel would be affected; NVIDIA said it complies with all applicable export regulations and that the "
         "region is a small share of data-center revenue."),
        ("Bloomberg", "NVIDIA suppliers signal strong Q4 orders as TSMC lifts capex view",
         "TSMC raised the low end of its capital spending guidance, citing sustained demand for advanced packaging "
         "capacity used in AI accelerators. Analysts at Bernstein said CoWoS allocation for NVIDIA remains the "
         "largest single customer commitment for 2026."),
        ("Dow Jones", "Options traders brace for chip volatility ahead of earnings",
         "Implied volatility on NVIDIA's November options rose to 52%, its highest in six weeks, as traders "
         "positioned for the company's results on Nov. 19. Put-call skew steepened after the export headlines."),
        ("MarketWatch", "Semiconductor ETF slips as investors rotate into defensives",
         "The VanEck Semiconductor ETF fell 1.2% in early trade while utilities and consumer staples gained. "
         "Strategists pointed to stretched valuations in megacap tech after a 38% year-to-date run."),
        ("Barron's", "Why one analyst still sees 30% upside in NVIDIA",
         "Morgan Stanley reiterated its overweight rating with a $168 target, arguing that Blackwell ramp "
         "timing concerns are overdone and that gross margins should recover to the mid-70s by fiscal 2027."),
        ("Reuters", "Microsoft, Meta signal higher AI infrastructure spend in 2026",
         "Both companies told investors capital expenditures would rise again next year, a read-through that "
         "lifted shares of chip and networking suppliers in premarket trading before fading."),
        ("Seeking Alpha", "NVIDIA: concentration risk in a retail portfolio",
         "A contributor piece argues that investors whose NVIDIA position exceeds 25% of assets should consider "
         "trimming into strength and using long-term lots to limit the tax drag."),
        ("Benzinga", "NVIDIA shares active in premarket; volume 1.4x 10-day average",
         "Shares were indicated roughly 1.2% higher in premarket trading with elevated volume after the "
         "supplier commentary, before the export report pared gains."),
    ]
    out = []
    h, mnt = 9, 38
    for i, (src, title, summ) in enumerate(items):
        out.append({"id": f"nw-20251014-{rng.randint(100000, 999999)}", "source": src, "headline": title,
                    "published_at": f"2025-10-14T{h:02d}:{mnt:02d}:00-04:00", "summary": summ,
                    "symbols": ["NVDA"] + (["AMD", "INTC"] if i == 0 else []) + (["TSM"] if i == 1 else []) +
                    (["MSFT", "META"] if i == 5 else []), "sentiment": rng.choice(["neutral", "negative", "positive"])})
        mnt -= rng.randint(7, 40)
        while mnt < 0:
            mnt += 60
            h -= 1
    return {"symbol": "NVDA", "count": len(out), "articles": out}


def tax_lots():
    lots = [
        ("L-2019-0412", "2019-04-12", 120, 4.61), ("L-2020-0316", "2020-03-16", 80, 5.02),
        ("L-2021-1105", "2021-11-05", 60, 29.87), ("L-2022-0930", "2022-09-30", 95, 12.18),
        ("L-2023-0525", "2023-05-25", 40, 38.90), ("L-2024-0307", "2024-03-07", 30, 92.10),
        ("L-2025-0407", "2025-04-07", 20, 97.55), ("L-2025-0812", "2025-08-12", 10, 182.40),
    ]
    out = []
    for lid, date, q, cost in lots:
        term = "LONG" if date < "2024-10-14" else "SHORT"
        out.append({"lot_id": lid, "acquired": date, "quantity": q, "cost_per_share": m(cost),
                    "cost_basis": m(q * cost), "market_value": m(q * 131.40),
                    "unrealized_gain": m(q * (131.40 - cost)), "term": term,
                    "wash_sale_adjusted": False})
    return {"account_id": ACCT, "symbol": "NVDA", "quantity": 455, "lot_relief_default": "FIFO",
            "note": "Per-share costs reflect the 10-for-1 split of 2024-06-10 and the 4-for-1 split of 2021-07-20.",
            "lots": out}


def order_book(rng, mid_bid=131.22):
    bids, asks = [], []
    venues = ["NSDQ", "ARCA", "BATS", "EDGX", "IEX", "MEMX", "BYX", "EDGA", "NYSE"]
    for i in range(13):
        bids.append({"price": m(mid_bid - 0.01 * i - (0.01 if i > 8 else 0)), "size": rng.randint(2, 40) * 100,
                     "orders": rng.randint(1, 19), "venue": rng.choice(venues)})
        asks.append({"price": m(mid_bid + 0.04 + 0.01 * i + (0.01 if i > 8 else 0)), "size": rng.randint(2, 40) * 100,
                     "orders": rng.randint(1, 19), "venue": rng.choice(venues)})
    return {"symbol": "NVDA", "as_of": "2025-10-14T10:02:44.118-04:00", "feed": "SIP+direct",
            "bids": bids, "asks": asks, "imbalance": None, "halted": False}


def open_orders():
    rows = [
        ("ORD-7Q2M-55810", "AAPL", "BUY", 25, "LIMIT", "168.00", None, "GTC", "2025-10-06T15:12:40-04:00", "open"),
        ("ORD-7P9X-31204", "MSFT", "SELL", 60, "STOP", None, "380.00", "GTC", "2025-09-22T10:01:02-04:00", "open"),
        ("ORD-7R1A-60233", "COST", "SELL", 4, "LIMIT", "975.00", None, "GTC", "2025-10-09T12:44:19-04:00", "open"),
        ("ORD-7N3C-19877", "XOM", "SELL", 45, "STOP_LIMIT", "104.50", "105.00", "GTC", "2025-08-28T09:35:51-04:00", "open"),
        ("ORD-7S4D-77012", "JNJ", "BUY", 10, "LIMIT", "149.00", None, "GTC", "2025-10-10T14:20:05-04:00", "open"),
    ]
    out = []
    for oid, sym, side, q, typ, lim, stop, tif, created, st in rows:
        out.append({"order_id": oid, "symbol": sym, "side": side, "quantity": q, "filled_quantity": 0,
                    "order_type": typ, "limit_price": lim, "stop_price": stop, "time_in_force": tif,
                    "created_at": created, "status": st, "expires_at": None if tif != "GTC" else "2026-01-05T16:00:00-05:00",
                    "routing": "SMART", "extended_hours": False})
    return {"account_id": ACCT, "filter": {"status": "open"}, "count": len(out), "orders": out,
            "next_page_token": None}


def activity(rng):
    rows = [
        ("2025-10-10", "DIVIDEND", "COST", "Ordinary dividend", "9.28"),
        ("2025-10-08", "TRADE", "JNJ", "Bought 10 JNJ @ 152.10", "-1521.00"),
        ("2025-10-01", "DIVIDEND", "JNJ", "Qualified dividend", "37.20"),
        ("2025-09-30", "INTEREST", None, "Cash sweep interest, Sep", "11.07"),
        ("2025-09-29", "DIVIDEND", "SCHD", "Qualified dividend", "39.30"),
        ("2025-09-26", "DIVIDEND", "VTI", "Qualified dividend", "36.48"),
        ("2025-09-15", "TRANSFER_IN", None, "ACH deposit from CHK ****4471", "2500.00"),
        ("2025-09-10", "DIVIDEND", "XOM", "Qualified dividend", "44.55"),
        ("2025-09-02", "DIVIDEND", "BND", "Non-qualified dividend", "12.66"),
        ("2025-08-29", "INTEREST", None, "Cash sweep interest, Aug", "10.82"),
        ("2025-08-15", "DIVIDEND", "AAPL", "Qualified dividend", "31.20"),
        ("2025-08-14", "TRADE", "MSFT", "Sold 15 MSFT @ 421.77", "6326.55"),
        ("2025-08-12", "TRADE", "NVDA", "Bought 10 NVDA @ 182.40", "-1824.00"),
        ("2025-08-01", "DIVIDEND", "BND", "Non-qualified dividend", "12.40"),
        ("2025-07-31", "INTEREST", None, "Cash sweep interest, Jul", "9.61"),
        ("2025-07-15", "TRANSFER_IN", None, "ACH deposit from CHK ****4471", "2500.00"),
        ("2025-07-03", "DIVIDEND", "NVDA", "Qualified dividend", "4.45"),
    ]
    out = [{"date": d, "type": t, "symbol": s, "description": desc, "amount": a,
            "activity_id": f"ACT-{rng.randint(10**7, 10**8 - 1)}"} for d, t, s, desc, a in rows]
    return {"account_id": ACCT, "from": "2025-07-01", "to": "2025-10-14", "count": len(out),
            "activities": out, "totals": {"dividends": "227.52", "interest": "31.50", "net_trades": "2981.55",
                                          "transfers_in": "5000.00"}}


def build() -> Traj:
    t = Traj(id="svc-rebalance-trades", title="Trimming a concentrated NVDA position with a stale order-ticket quote",
             exercises=["a quote service and the order ticket disagree about the bid, settled by a fresh quote",
                        "an account number typed once and needed for late orders",
                        "a cancel that times out, resolved much later by a status query",
                        "an irreversible trade behind an approval, corrected before it was granted",
                        "a price alert write that times out and is never resolved",
                        "topic switch to an old open order and back"],
             description="A retail investor rebalances an individual brokerage account over a morning session: "
                         "portfolio, quotes, depth of book, tax lots, an order preview whose embedded quote is stale, "
                         "a sell order corrected from 140 to 120 shares before approval, a replace, a cancel that "
                         "times out, an ETF purchase with a cash floor, and a price alert.",
             tools=pick("get_portfolio", "get_quote", "get_order_book", "get_news", "get_tax_lots", "preview_order",
                        "place_order", "replace_order", "cancel_order", "get_order", "list_orders",
                        "set_price_alert", "get_account_activity"),
             seed=101)
    r = t.rng
    t.system("You are Ledger, the trading assistant of Northfield Securities. You can read accounts, quotes and "
             "orders and place orders on the customer's behalf. Every order submission requires the customer's "
             "explicit approval. Never resubmit a write whose outcome is unknown; check its status first.")
    t.user(f"Morning. Can you pull up my individual account? It's {ACCT}. I want to rebalance before earnings season kicks off.")
    t.asst(f"Good morning. Pulling positions and balances for account {ACCT}.")
    t.do("get_portfolio", {"account_id": ACCT}, portfolio(), request_id="rq-pf-0001")
    t.asst("Here's the picture as of 9:41 ET: total value about $180,250, with $6,412.55 in settled cash. NVIDIA is "
           "by far the largest position: 455 shares, about 33% of the account, with a very large unrealized gain. "
           "Next are MSFT (~14%), AAPL (~12%) and AMZN (~9%). Bonds (BND) are only about 2.4%.")
    t.user("Yeah NVDA is way too big. I'm thinking of trimming it to around 20 percent. What's it trading at right now?")
    _, _, q1 = t.do("get_quote", {"symbol": "NVDA"},
                    {"symbol": "NVDA", "bid": "131.38", "bid_size": 400, "ask": "131.42", "ask_size": 300,
                     "last": "131.40", "last_size": 100, "change": "1.52", "change_pct": "1.17",
                     "open": "130.95", "high": "131.88", "low": "130.41", "prev_close": "129.88",
                     "volume": 18422310, "exchange": "NASDAQ", "quote_time": "2025-10-14T09:44:12.402-04:00",
                     "market_status": "OPEN", "delayed": False}, request_id="rq-md-3318")
    t.asst("NVDA is 131.38 bid / 131.42 ask, last 131.40 (+1.17% on the day). At that price, getting NVDA from ~33% "
           "down to 20% of the account means selling roughly 180 shares (about $23,700).")
    t.user("Hmm, before I sell anything, what's the news? I saw a headline about export rules.")
    t.do("get_news", {"symbol": "NVDA", "limit": 8}, news(r), request_id="rq-nw-0412")
    t.asst("The headline you saw is a Reuters report that Commerce is weighing case-by-case licences for high-end AI "
           "chip exports to several Gulf states; nothing is final and NVIDIA calls the region a small share of "
           "data-center revenue. Otherwise: supplier commentary from TSMC is positive, implied volatility into the "
           "Nov. 19 earnings is elevated (~52%), and Morgan Stanley reiterated overweight with a $168 target.")
    t.user("OK. Which lots would I be selling? I really want to avoid short-term gains this year.")
    t.do("get_tax_lots", {"account_id": ACCT, "symbol": "NVDA"}, tax_lots(), request_id="rq-tl-0077")
    t.asst("You have 8 lots. Six are long-term (2019 through the March 2024 lot: 425 shares in total) and two are "
           "short-term (20 shares from April 2025 and 10 from August 2025). The account default is FIFO, which would "
           "sell the 2019 lot first; that's long-term but has the lowest basis ($4.61), so the largest gain per share. "
           "If you'd rather realise less gain, we can pick the higher-basis long-term lots instead: the March 2024 "
           "lot ($92.10) and May 2023 lot ($38.90) come first.")
    floor_seq = t.user("Use specific lot ID and only long-term lots, highest cost first. And whatever happens, "
                       "don't sell NVDA below 130 today. If it drops under that I'd rather wait.")
    t.fact("nvda_min_sell_price", "130.00", subject={"symbol": "NVDA"}, note="user floor for today's NVDA sales")
    t.fact("lot_method", "specific_id_long_term_highest_cost_first", subject={"symbol": "NVDA"})
    t.asst("Understood: specific-lot relief using long-term lots only, highest cost first (L-2024-0307, then "
           "L-2023-0525, then L-2021-1105 ...), and no NVDA sale below $130.00 today.")
    t.user("Let's not overdo it. 140 shares, limit 131.50, day order. Preview it first please.")
    t.fact("nvda_sell_quantity", "140", subject={"symbol": "NVDA"})
    t.decision("d1-preview", [
        next_call("preview_order", {"account_id": ACCT, "symbol": "NVDA"},
                  "the account number was typed once at the start; the preview needs it"),
        constraint(floor_seq, "don't sell NVDA below 130",
                   "the user's price floor governs every NVDA sale today"),
        fact("nvda_min_sell_price", "130.00", "the floor is a user-stated fact", subject="symbol=NVDA"),
    ], note="early: everything still fits")
    lots = [{"lot_id": "L-2024-0307", "quantity": 30}, {"lot_id": "L-2023-0525", "quantity": 40},
            {"lot_id": "L-2021-1105", "quantity": 60}, {"lot_id": "L-2022-0930", "quantity": 10}]
    t.asst("Previewing: sell 140 NVDA, limit 131.50, day, specific lots L-2024-0307 (30), L-2023-0525 (40), "
           "L-2021-1105 (60), L-2022-0930 (10).")
    _, _, q2 = t.do("preview_order", {"account_id": ACCT, "symbol": "NVDA", "side": "SELL", "quantity": 140,
                                      "order_type": "LIMIT", "limit_price": "131.50", "time_in_force": "DAY",
                                      "lot_relief": "SPECIFIC", "lots": lots},
                    {"preview_id": "PV-3C81-0092", "symbol": "NVDA", "side": "SELL", "quantity": 140,
                     "order_type": "LIMIT", "limit_price": "131.50", "time_in_force": "DAY",
                     "quote": {"bid": "128.95", "ask": "129.02", "last": "128.97",
                               "quote_time": "2025-10-14T09:47:30.000-04:00", "source": "order-service-cache"},
                     "estimated_proceeds": "18410.00", "estimated_commission": "0.00",
                     "estimated_regulatory_fees": {"sec_fee": "0.51", "taf_fee": "0.02"},
                     "estimated_realized_gain": "12177.00", "estimated_term": "LONG",
                     "warnings": ["Limit price is above the current bid; order may not execute immediately.",
                                  "Sale will realize a long-term gain of approximately $12,177.00."],
                     "expires_at": "2025-10-14T10:07:30-04:00"}, request_id="rq-os-9012")
    t.asst("The preview came back, but its embedded quote says NVDA is 128.95 bid / 129.02 ask — that's $2.43 below "
           "the 131.38 bid the market-data service gave me a few minutes ago, and it would put the stock under your "
           "$130 floor. One of the two is stale (the ticket's quote is tagged 'order-service-cache'). I'd like to "
           "re-check before anything is submitted. Estimated proceeds at your limit: $18,410, long-term gain about "
           "$12,177.")
    t.user("That's weird. Hold that thought for a sec. I also have an old AAPL buy order sitting out there from last "
           "week I think. Can you find it?")
    t.topic_switch("open AAPL buy order", previous="NVDA trim (preview done, not submitted)")
    t.do("list_orders", {"account_id": ACCT, "status": "open"}, open_orders(), request_id="rq-os-9020")
    t.asst("Found five open GTC orders. The AAPL one is ORD-7Q2M-55810: buy 25 AAPL, limit $168.00, GTC, placed Oct 6. "
           "The others are a MSFT stop (sell 60 @ stop 380), a COST sell limit (4 @ 975), a XOM stop-limit (45, stop "
           "105 / limit 104.50) and a JNJ buy limit (10 @ 149).")
    t.user("Cancel the AAPL one. Leave the MSFT stop and everything else alone.")
    cxl, cxl_call, cxl_res = t.do("cancel_order", {"order_id": "ORD-7Q2M-55810"}, None, "timeout",
                                  idem="cxl-ORD-7Q2M-55810-01",
                                  error={"code": "GATEWAY_TIMEOUT", "message": "Upstream order router did not respond within 30000 ms"})
    t.asst("The cancel request for ORD-7Q2M-55810 timed out at the order router, so I don't know yet whether the "
           "order was cancelled. I won't send it again blindly; I'll check its status shortly. The MSFT stop and the "
           "other orders are untouched.")
    t.user("Fine, check on it in a bit. Back to NVDA: what's the real price? If it's above my floor, I want to go "
           "ahead with the sale.")
    t.decision("d2-which-price", [
        tool_state("unknown", "the cancel timed out: its outcome is unknown, neither done nor failed", call_id=cxl),
        pending("the timed-out cancel is still an open question", call_id=cxl),
        evidence([q1, q2], "the two disagreeing readings of the NVDA bid must both be visible to decide which is stale"),
        constraint(floor_seq, "below 130", "the sale is conditional on the floor"),
    ])
    t.topic_switch("NVDA trim", previous="open AAPL buy order")
    _, _, q3 = t.do("get_quote", {"symbol": "NVDA"},
                    {"symbol": "NVDA", "bid": "131.22", "bid_size": 500, "ask": "131.26", "ask_size": 200,
                     "last": "131.24", "last_size": 300, "change": "1.36", "change_pct": "1.05",
                     "open": "130.95", "high": "131.88", "low": "130.41", "prev_close": "129.88",
                     "volume": 21077941, "exchange": "NASDAQ", "quote_time": "2025-10-14T09:58:51.077-04:00",
                     "market_status": "OPEN", "delayed": False}, request_id="rq-md-3344")
    t.do("get_order_book", {"symbol": "NVDA", "depth": 13}, order_book(r), request_id="rq-md-3345")
    t.asst("A fresh consolidated quote says 131.22 bid / 131.26 ask (last 131.24), and the depth of book agrees: "
           "there are bids at 131.22 on NSDQ and ARCA with several thousand shares behind them. So the order "
           "ticket's 128.95 was a stale cached quote; the market is well above your $130 floor. Your 131.50 limit is "
           "24 cents above the bid, so it may take a while to fill.")
    t.user("Good. Place it then: 140 shares at 131.50, day, those long-term lots.")
    p1, p1_call = t.call("place_order", {"account_id": ACCT, "symbol": "NVDA", "side": "SELL", "quantity": 140,
                                         "order_type": "LIMIT", "limit_price": "131.50", "time_in_force": "DAY",
                                         "lot_relief": "SPECIFIC", "lots": lots},
                         idem="ord-5TR8821407-nvda-sell-a")
    t.approval("apr-nvda-sell-140", "requested", p1_call, action="Sell 140 NVDA @ 131.50 LMT DAY")
    t.asst("Ready to submit: SELL 140 NVDA, limit $131.50, day order, specific lots (30 + 40 + 60 + 10). Estimated "
           "proceeds $18,410. Reply 'yes' to submit.")
    corr = t.user("Wait, actually make it 120 shares, not 140. I want to keep a bit more. Drop the 10 from the 2022 lot "
                  "and take 50 instead of 60 from the 2021 one.")
    t.approval("apr-nvda-sell-140", "denied", p1_call, reason="user changed quantity to 120")
    t.result(p1, "cancelled", error={"code": "NOT_SUBMITTED", "message": "withdrawn before approval"})
    t.correction("nvda_sell_quantity", "120", subject={"symbol": "NVDA"}, replaces="140")
    lots2 = [{"lot_id": "L-2024-0307", "quantity": 30}, {"lot_id": "L-2023-0525", "quantity": 40},
             {"lot_id": "L-2021-1105", "quantity": 50}]
    p2, p2_call = t.call("place_order", {"account_id": ACCT, "symbol": "NVDA", "side": "SELL", "quantity": 120,
                                         "order_type": "LIMIT", "limit_price": "131.50", "time_in_force": "DAY",
                                         "lot_relief": "SPECIFIC", "lots": lots2},
                         idem="ord-5TR8821407-nvda-sell-b")
    t.approval("apr-nvda-sell-120", "requested", p2_call, action="Sell 120 NVDA @ 131.50 LMT DAY")
    t.asst("Withdrawn the 140-share ticket (it was never submitted). New ticket: SELL 120 NVDA, limit $131.50, day, "
           "lots L-2024-0307 (30), L-2023-0525 (40), L-2021-1105 (50). Estimated proceeds about $15,780. Submit?")
    t.user("Yes, submit.")
    t.approval("apr-nvda-sell-120", "granted", p2_call)
    p2_res = t.result(p2, "succeeded",
                      {"order_id": "ORD-9K4T-20377", "client_order_id": "ord-5TR8821407-nvda-sell-b",
                       "status": "accepted", "symbol": "NVDA", "side": "SELL", "quantity": 120,
                       "limit_price": "131.50", "time_in_force": "DAY",
                       "submitted_at": "2025-10-14T10:04:18.552-04:00", "route": "SMART"},
                      request_id="rq-os-9101")
    t.asst("Submitted. Order ORD-9K4T-20377 (sell 120 NVDA @ 131.50, day) was accepted at 10:04:18.")
    t.user("Great. Did the AAPL cancel ever go through?")
    sq1 = t.status_query(cxl, "succeeded", request_id="rq-os-9020-sq",
                         result={"order_id": "ORD-7Q2M-55810", "status": "canceled",
                                 "canceled_at": "2025-10-14T09:52:03.871-04:00", "filled_quantity": 0},
                         checked_via="GET /v3/orders/ORD-7Q2M-55810")
    t.asst("Yes. Checking the order directly: ORD-7Q2M-55810 was cancelled at 9:52:03, nothing filled. The timeout "
           "was only on the confirmation coming back.")
    t.user("While we wait on the NVDA fill, what dividends have I gotten over the summer? I need it for my estimated "
           "tax payment.")
    t.do("get_account_activity", {"account_id": ACCT, "from": "2025-07-01", "to": "2025-10-14"}, activity(r),
         request_id="rq-ac-2201")
    t.asst("From July 1 to today: $227.52 in dividends (qualified: JNJ 37.20, SCHD 39.30, VTI 36.48, XOM 44.55, "
           "AAPL 31.20, NVDA 4.45, COST 9.28 ordinary; BND 25.06 non-qualified) plus $31.50 in sweep interest. You "
           "also realised a gain on the Aug 14 MSFT sale (15 shares @ 421.77).")
    t.user("Thanks. Is the COST sell order close to filling? It's at 975 I think.")
    t.do("get_quote", {"symbol": "COST"},
         {"symbol": "COST", "bid": "912.10", "bid_size": 100, "ask": "912.55", "ask_size": 100, "last": "912.30",
          "change": "6.86", "change_pct": "0.76", "prev_close": "905.44", "volume": 611204, "exchange": "NASDAQ",
          "quote_time": "2025-10-14T10:11:37.915-04:00", "market_status": "OPEN", "delayed": False},
         request_id="rq-md-3361")
    t.asst("Not close: COST is around 912.30, so your 975 limit (ORD-7R1A-60233) is about 6.9% above the market.")
    t.user("Leave it. How's my NVDA order doing? If it hasn't fully filled, bring the limit down to 131.30.")
    t.decision("d3-nvda-status", [
        next_call("get_order", {"order_id": "ORD-9K4T-20377"}, "the order id came back from place_order several turns ago"),
        fact("nvda_sell_quantity", "120", "the user corrected the quantity from 140 to 120 before approving",
             subject="symbol=NVDA", superseded=["140"]),
        fact("bid", "131.22", "the settled NVDA bid is the fresh quote's, not the ticket's stale one",
             subject="symbol=NVDA", superseded=["128.95"]),
        tool_state("succeeded", "the status query settled the AAPL cancel", call_id=cxl, request_id="rq-os-9020-sq"),
        constraint(floor_seq, "130", "the new limit 131.30 must still respect the floor"),
    ])
    _, _, go1 = t.do("get_order", {"order_id": "ORD-9K4T-20377"},
                     {"order_id": "ORD-9K4T-20377", "symbol": "NVDA", "side": "SELL", "quantity": 120,
                      "filled_quantity": 70, "remaining_quantity": 50, "average_fill_price": "131.50",
                      "status": "partially_filled", "limit_price": "131.50", "time_in_force": "DAY",
                      "fills": [{"fill_id": "F-88120", "quantity": 40, "price": "131.50", "venue": "NSDQ",
                                 "time": "2025-10-14T10:06:55.101-04:00"},
                                {"fill_id": "F-88144", "quantity": 30, "price": "131.50", "venue": "ARCA",
                                 "time": "2025-10-14T10:09:12.630-04:00"}]}, request_id="rq-os-9133")
    t.asst("ORD-9K4T-20377 is partially filled: 70 of 120 at $131.50 (40 on NSDQ, 30 on ARCA); 50 remain. Lowering "
           "the remaining 50 to a 131.30 limit, which is above your 130 floor.")
    rp, rp_call, rp_res = t.do("replace_order", {"order_id": "ORD-9K4T-20377", "limit_price": "131.30"},
                               {"order_id": "ORD-9K4T-20391", "replaces": "ORD-9K4T-20377", "status": "accepted",
                                "symbol": "NVDA", "quantity": 50, "limit_price": "131.30",
                                "replaced_at": "2025-10-14T10:15:02.220-04:00"},
                               idem="rpl-ORD-9K4T-20377-13130", request_id="rq-os-9140")
    t.asst("Replaced: the remaining 50 shares now work as ORD-9K4T-20391 at $131.30.")
    t.user("Perfect.")
    _, _, go2 = t.do("get_order", {"order_id": "ORD-9K4T-20391"},
                     {"order_id": "ORD-9K4T-20391", "symbol": "NVDA", "side": "SELL", "quantity": 50,
                      "filled_quantity": 50, "remaining_quantity": 0, "average_fill_price": "131.30",
                      "status": "filled", "limit_price": "131.30",
                      "fills": [{"fill_id": "F-88301", "quantity": 50, "price": "131.30", "venue": "BATS",
                                 "time": "2025-10-14T10:15:40.009-04:00"}]}, request_id="rq-os-9152")
    t.asst("And it's done: the 50 filled at $131.30 on BATS at 10:15:40. In total you sold 120 NVDA: 70 @ 131.50 and "
           "50 @ 131.30, about $15,770 gross. Those proceeds settle T+1 (tomorrow) but are available to trade now.")
    t.subtask_end("NVDA trim done: 120 sold (70 @ 131.50 via ORD-9K4T-20377, 50 @ 131.30 via ORD-9K4T-20391)")
    cash_seq = t.user("Now put some of that to work. Buy VTI with it, but always keep at least $5,000 cash in this "
                      "account. Use a limit a few cents over the ask.")
    t.fact("min_cash_balance", "5000.00", subject={"account_id": ACCT})
    t.do("get_portfolio", {"account_id": ACCT}, portfolio(
        [("NVDA", "NVIDIA CORP", 335, 48.12, 131.18, 129.88)] + HOLDINGS[1:], CASH + 15770.00 - 0.45,
        as_of="2025-10-14T10:18:30-04:00"), request_id="rq-pf-0002")
    _, _, vq = t.do("get_quote", {"symbol": "VTI"},
                    {"symbol": "VTI", "bid": "282.04", "bid_size": 900, "ask": "282.09", "ask_size": 1200,
                     "last": "282.07", "change": "0.70", "change_pct": "0.25", "prev_close": "281.37",
                     "volume": 1104320, "exchange": "NYSE ARCA", "quote_time": "2025-10-14T10:18:44.301-04:00",
                     "market_status": "OPEN", "delayed": False}, request_id="rq-md-3370")
    t.asst("Cash is now $22,182.10 (including the unsettled NVDA proceeds). Keeping $5,000 leaves $17,182.10. VTI is "
           "282.04 / 282.09, so with a 282.15 limit you can buy 60 shares ($16,929), leaving about $5,253 cash.")
    t.user("Do 60 at 282.15.")
    t.decision("d4-buy-vti", [
        next_call("place_order", {"account_id": ACCT, "symbol": "VTI", "limit_price": "282.15"},
                  "the account number from the first message is needed again for the buy"),
        constraint(cash_seq, "at least $5,000 cash", "the cash floor bounds the purchase"),
        fact("status", "filled", "the replacement order filled completely", subject="order_id=ORD-9K4T-20391"),
    ])
    v1, v1_call = t.call("place_order", {"account_id": ACCT, "symbol": "VTI", "side": "BUY", "quantity": 60,
                                         "order_type": "LIMIT", "limit_price": "282.15", "time_in_force": "DAY"},
                         idem="ord-5TR8821407-vti-buy-a")
    t.approval("apr-vti-buy-60", "requested", v1_call, action="Buy 60 VTI @ 282.15 LMT DAY")
    t.asst("Ready: BUY 60 VTI, limit $282.15, day. Estimated cost $16,929.00, leaving about $5,253 cash. Submit?")
    t.user("Go.")
    t.approval("apr-vti-buy-60", "granted", v1_call)
    t.result(v1, "succeeded", {"order_id": "ORD-9K4T-20455", "client_order_id": "ord-5TR8821407-vti-buy-a",
                               "status": "accepted", "symbol": "VTI", "side": "BUY", "quantity": 60,
                               "limit_price": "282.15", "submitted_at": "2025-10-14T10:20:09.330-04:00"},
             request_id="rq-os-9170")
    t.asst("Submitted: ORD-9K4T-20455, buy 60 VTI @ 282.15, accepted.")
    t.user("Also set me an alert if NVDA drops below 125. I might buy some back if it does.")
    al, al_call, al_res = t.do("set_price_alert", {"symbol": "NVDA", "condition": "below", "price": "125.00",
                                                   "channel": "push", "expires": "2025-12-31"}, None, "timeout",
                               idem="alert-nvda-below-12500",
                               error={"code": "TIMEOUT", "message": "alerts service did not respond in 10s"})
    t.asst("The alerts service timed out, so I can't confirm the NVDA < $125.00 alert exists. I'll check rather "
           "than create a duplicate.")
    t.user("Ok whatever, not urgent. Totally different question: how much of my account is international? Feels like zero.")
    t.topic_switch("international exposure", previous="alerts / orders")
    t.asst("Almost zero directly: every holding is a US-listed US company or a US-only fund. VTI is US total market "
           "and BND is US investment-grade bonds. Indirectly, the big tech names earn roughly half their revenue "
           "abroad, but if you want actual non-US equity exposure a fund like VXUS or IXUS would be the usual "
           "complement; a common split is 20-40% of equities.")
    t.user("Interesting. Let me think about it. What did VXUS return last year, roughly?")
    t.do("get_quote", {"symbol": "VXUS"},
         {"symbol": "VXUS", "bid": "70.11", "ask": "70.13", "last": "70.12", "change": "-0.09", "change_pct": "-0.13",
          "prev_close": "70.21", "52w_high": "71.40", "52w_low": "57.98", "ytd_return_pct": "24.61",
          "one_year_return_pct": "19.87", "expense_ratio": "0.05", "exchange": "NASDAQ",
          "quote_time": "2025-10-14T10:24:51.660-04:00", "market_status": "OPEN", "delayed": False},
         request_id="rq-md-3391")
    t.asst("VXUS is at 70.12; trailing one-year total return about 19.9% and about 24.6% year to date (a strong year "
           "for non-US stocks, helped by a weaker dollar). Expense ratio 0.05%.")
    t.user("Not today. Back to the account: is the VTI order filled?")
    t.topic_switch("orders", previous="international exposure")
    _, _, vo = t.do("get_order", {"order_id": "ORD-9K4T-20455"},
                    {"order_id": "ORD-9K4T-20455", "symbol": "VTI", "side": "BUY", "quantity": 60,
                     "filled_quantity": 0, "remaining_quantity": 60, "status": "open", "limit_price": "282.15",
                     "time_in_force": "DAY", "fills": []}, request_id="rq-os-9201")
    t.asst("Not yet: ORD-9K4T-20455 is open with nothing filled; VTI has ticked up a little since.")
    t.user("Hmm. Actually, cancel the VTI order. I'll decide on international first and do both together tomorrow.")
    t.decision("d5-cancel-vti", [
        next_call("cancel_order", {"order_id": "ORD-9K4T-20455"}, "the VTI order id came back from place_order"),
        tool_state("unknown", "the alert write timed out and nobody checked it yet", call_id=al),
        tool_state("succeeded", "the VTI order was accepted", call_id=v1, request_id="rq-os-9170"),
    ])
    vc, _, _ = t.do("cancel_order", {"order_id": "ORD-9K4T-20455"},
                    {"order_id": "ORD-9K4T-20455", "status": "canceled", "canceled_at": "2025-10-14T10:31:47.804-04:00",
                     "filled_quantity": 0}, idem="cxl-ORD-9K4T-20455-01", request_id="rq-os-9210")
    t.asst("Cancelled: ORD-9K4T-20455 is cancelled with nothing filled. Your cash stays at about $22,182 "
           "(NVDA proceeds settle tomorrow).")
    t.user("Let me see all my orders from today so I can screenshot it for my records.")
    today = [
        {"order_id": "ORD-9K4T-20377", "symbol": "NVDA", "side": "SELL", "quantity": 120, "filled_quantity": 70,
         "status": "replaced", "limit_price": "131.50", "average_fill_price": "131.50", "replaced_by": "ORD-9K4T-20391"},
        {"order_id": "ORD-9K4T-20391", "symbol": "NVDA", "side": "SELL", "quantity": 50, "filled_quantity": 50,
         "status": "filled", "limit_price": "131.30", "average_fill_price": "131.30"},
        {"order_id": "ORD-9K4T-20455", "symbol": "VTI", "side": "BUY", "quantity": 60, "filled_quantity": 0,
         "status": "canceled", "limit_price": "282.15"},
        {"order_id": "ORD-7Q2M-55810", "symbol": "AAPL", "side": "BUY", "quantity": 25, "filled_quantity": 0,
         "status": "canceled", "limit_price": "168.00", "created_at": "2025-10-06T15:12:40-04:00"},
    ]
    for o in today:
        o.update({"time_in_force": "DAY" if o["symbol"] != "AAPL" else "GTC", "order_type": "LIMIT",
                  "commission": "0.00"})
    t.do("list_orders", {"account_id": ACCT, "updated_since": "2025-10-14T00:00:00-04:00"},
         {"account_id": ACCT, "count": 4, "orders": today, "next_page_token": None}, request_id="rq-os-9222")
    t.asst("Today's orders: NVDA sell ORD-9K4T-20377 (70 filled @ 131.50, rest replaced), NVDA sell ORD-9K4T-20391 "
           "(50 filled @ 131.30), VTI buy ORD-9K4T-20455 (cancelled, none filled), and the old AAPL buy "
           "ORD-7Q2M-55810 (cancelled this morning).")
    for i in range(6):
        qsym = ["AMZN", "GOOGL", "MSFT", "XOM", "JNJ", "SCHD"][i]
        base = {"AMZN": 186.70, "GOOGL": 163.05, "MSFT": 418.20, "XOM": 112.40, "JNJ": 154.20, "SCHD": 27.95}[qsym]
        px = base + r.choice([-1, 1]) * r.randint(5, 120) / 100
        if i == 0:
            t.user("Quick check on a few others before I go. AMZN?")
        else:
            t.user(["And GOOGL?", "MSFT — is my stop anywhere near?", "XOM?", "JNJ, am I close to my 149 buy?",
                    "Last one, SCHD."][i - 1])
        t.do("get_quote", {"symbol": qsym},
             {"symbol": qsym, "bid": m(px - 0.02), "ask": m(px + 0.02), "last": m(px),
              "change": m(px - base), "volume": r.randint(800000, 40000000),
              "quote_time": f"2025-10-14T10:{34 + i * 2}:{r.randint(10, 59)}.000-04:00", "market_status": "OPEN",
              "delayed": False}, request_id=f"rq-md-34{i:02d}")
        extra = {"MSFT": " Your stop at 380 is about 9% below.", "JNJ": " Your 149 buy limit is ~3.5% below.",
                 "XOM": " Your stop at 105 is about 7% below."}.get(qsym, "")
        t.asst(f"{qsym} last {m(px)} ({'+' if px >= base else ''}{m(px - base)} vs this morning).{extra}")
    t.user("Alright. Did that NVDA alert ever get created? Set it if not: below 125, push notification.")
    t.decision("d6-alert", [
        tool_state("unknown", "the alert call timed out and no status check has happened", call_id=al),
        pending("the alert write is still unresolved", call_id=al),
        next_call("set_price_alert", {"symbol": "NVDA", "price": "125.00"},
                  "if it must be re-created the same price applies (idempotency key reused)"),
    ], note="the unresolved write is only answerable by a status check, not by resending blindly")
    t.status_query(al, "not_performed", checked_via="GET /v1/alerts?symbol=NVDA",
                   result={"alerts": [], "count": 0})
    t.asst("The alerts service has no NVDA alert, so the timed-out request never took effect. Creating it now with "
           "a fresh request.")
    al2, _, _ = t.do("set_price_alert", {"symbol": "NVDA", "condition": "below", "price": "125.00", "channel": "push",
                                         "expires": "2025-12-31"},
                     {"alert_id": "ALR-55102", "symbol": "NVDA", "condition": "below", "price": "125.00",
                      "status": "active", "created_at": "2025-10-14T10:49:20-04:00"},
                     idem="alert-nvda-below-12500-r2", request_id="rq-al-0019")
    t.asst("Done: alert ALR-55102 is active and will push when NVDA trades below $125.00 (until Dec 31).")
    t.user("Thanks. Last thing: give me a one-paragraph wrap-up of today with the exact fill prices and order numbers, "
           "and anything that's still open that I should know about.")
    t.decision("d7-wrap-up", [
        next_call("get_order", {"order_id": "ORD-9K4T-20377"}, "the exact fills of the first sell order, 90 events back"),
        fact("nvda_sell_quantity", "120", "the wrap-up must report 120 shares, not the withdrawn 140",
             subject="symbol=NVDA", superseded=["140"]),
        fact("average_fill_price", "131.30", "the replacement order's fill price", subject="order_id=ORD-9K4T-20391"),
        evidence([p2_call, p2_res], "the irreversible sale and its acceptance, verbatim, for the record"),
        tool_state("succeeded", "the VTI cancel went through", call_id=vc, request_id="rq-os-9210"),
        constraint(floor_seq, "below 130", "no sale below the floor happened; the wrap-up can say so"),
    ], note="late: the values are 60-110 events old")
    t.asst("Today in account 5TR-88214-07: you sold 120 NVDA from long-term lots — 70 @ $131.50 on ORD-9K4T-20377 and "
           "50 @ $131.30 on ORD-9K4T-20391 — all above your $130 floor. The old AAPL buy (ORD-7Q2M-55810) and today's "
           "VTI buy (ORD-9K4T-20455) are both cancelled with nothing filled. Alert ALR-55102 watches NVDA < $125. Still "
           "open: the MSFT stop, the COST and JNJ limits and the XOM stop-limit, all GTC. Cash about $22,182, with the "
           "NVDA proceeds settling tomorrow.")
    t.user("Perfect, thanks Ledger.")
    t.asst("You're welcome. Good luck with earnings season.")
    return t
