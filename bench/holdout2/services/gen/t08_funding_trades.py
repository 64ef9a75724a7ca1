"""08: stock trading + banking: raising a house down payment and funding a Roth IRA."""

from lib import Traj, constraint, evidence, fact, next_call, pending, tool_state
from tools import pick

FILENAME = "08_down-payment-and-roth.jsonl"
JNT = "JNT-44170-3"
ROTH = "ROTH-44170-9"
LB = "lb_8812"
BANK = "FHB-CHK-2287"


def m(x):
    return f"{x:.2f}"


POS = [("VOO", "VANGUARD S&P 500 ETF", 112, 301.40, 548.90), ("VXUS", "VANGUARD TOTAL INTL STOCK ETF", 240, 55.10, 70.12),
       ("BND", "VANGUARD TOTAL BOND MARKET ETF", 310, 76.80, 72.90), ("AAPL", "APPLE INC", 40, 121.30, 178.85),
       ("MSFT", "MICROSOFT CORP", 25, 240.10, 418.20), ("SCHD", "SCHWAB US DIVIDEND EQUITY ETF", 420, 23.90, 27.95),
       ("VNQ", "VANGUARD REAL ESTATE ETF", 95, 88.20, 92.35), ("SGOV", "ISHARES 0-3 MONTH TREASURY BOND ETF", 60, 100.21, 100.48),
       ("GOOGL", "ALPHABET INC CL A", 30, 104.20, 163.05), ("JPM", "JPMORGAN CHASE & CO", 18, 141.75, 236.10),
       ("KO", "COCA-COLA CO", 50, 58.10, 69.40), ("HD", "HOME DEPOT INC", 8, 311.00, 401.22)]


def portfolio(pos, cash, withdrawable, unsettled, as_of):
    total = cash + sum(q * p for _, _, q, _, p in pos)
    return {"account_id": JNT, "account_type": "JOINT_WROS", "owners": ["Priya Shah", "Daniel Shah"], "as_of": as_of,
            "total_value": m(total), "cash": m(cash), "cash_available_to_trade": m(cash),
            "withdrawable_cash": m(withdrawable), "unsettled_proceeds": m(unsettled),
            "positions": [{"symbol": s, "description": d, "quantity": q, "average_cost": m(a), "last_price": m(p),
                           "market_value": m(q * p), "unrealized_gain": m(q * (p - a)),
                           "term": "LONG"} for s, d, q, a, p in pos]}


def build() -> Traj:
    t = Traj(id="svc-down-payment-and-roth", title="Selling ETFs for a house down payment, ACH out, and a Roth contribution",
             exercises=["the portfolio and the transfer service disagree about withdrawable cash until settlement",
                        "account numbers, a linked bank id and a closing deadline typed once and needed a day later",
                        "an outgoing ACH that times out and is resolved by a status query",
                        "a Roth contribution amount corrected after the prior contribution is found",
                        "irreversible trades and transfers behind approvals; a cancel that stays unresolved",
                        "topic switch to the Roth IRA and back to the down payment"],
             description="A couple raises $25,000 for a house closing on Friday from their joint brokerage account: "
                         "sells ETFs, learns that proceeds can't be withdrawn before settlement although the portfolio "
                         "view says they can, sends the money in two ACH transfers, and funds a Roth IRA contribution.",
             tools=pick("get_portfolio", "get_quote", "get_tax_lots", "preview_order", "place_order", "get_order", "cancel_order",
                        "list_orders", "get_account_activity", "list_linked_banks", "initiate_ach_transfer",
                        "get_transfer", "bank_get_balance", "bank_get_transactions"),
             seed=808)
    r = t.rng
    t.system("You are the assistant of Northfield Securities, with read access to the customer's linked bank through "
             "open banking. Trades and transfers need the customer's approval. Equity trades settle T+1.")
    t.user(f"Hi. We're closing on a house this Friday and need $25,000 in our bank by Thursday. The money's in our "
           f"joint account {JNT}. What do we have?")
    deadline = t.seq
    t.fact("funds_needed_by", "2025-10-16", subject={"purpose": "house closing"})
    t.fact("funds_needed_amount", "25000.00", subject={"purpose": "house closing"})
    _, _, pf1 = t.do("get_portfolio", {"account_id": JNT},
                     portfolio(POS, 2210.44, 2210.44, 0.0, "2025-10-13T10:02:11-04:00"), request_id="nf-pf-2201")
    t.asst("The joint account is worth about $163,100. Cash is only $2,210.44, so you'll need to sell about $23,000 "
           "of holdings. The least painful sources: SGOV (treasury bills, $6,029, almost no gain), BND (bonds, "
           "$22,599, at a small loss, which would offset gains), and VOO ($61,477, large gain).")
    t.user("What are the tax consequences? Show me the BND lots.")
    t.do("get_tax_lots", {"account_id": JNT, "symbol": "BND"},
         {"account_id": JNT, "symbol": "BND", "quantity": 310, "lot_relief_default": "HIFO", "lots": [
             {"lot_id": "B-2021-0203", "acquired": "2021-02-03", "quantity": 120, "cost_per_share": "85.40", "term": "LONG"},
             {"lot_id": "B-2022-0610", "acquired": "2022-06-10", "quantity": 80, "cost_per_share": "75.55", "term": "LONG"},
             {"lot_id": "B-2023-1020", "acquired": "2023-10-20", "quantity": 60, "cost_per_share": "68.02", "term": "LONG"},
             {"lot_id": "B-2024-0315", "acquired": "2024-03-15", "quantity": 30, "cost_per_share": "72.10", "term": "LONG"},
             {"lot_id": "B-2025-0801", "acquired": "2025-08-01", "quantity": 20, "cost_per_share": "72.60", "term": "SHORT"}],
          "note": "Average cost shown in positions (76.80) blends all lots; HIFO sells the highest-cost lots first."},
         request_id="nf-tl-0410")
    t.asst("BND lots: the account uses HIFO, so a sale takes the February 2021 lot first (120 shares at $85.40, a loss "
           "of about $12.50/share), then June 2022 ($75.55). Selling ~230 BND this way realises a long-term loss of "
           "roughly $1,700 rather than the ~$900 the average cost suggests, which offsets gains elsewhere. SGOV is "
           "nearly flat. Selling VOO instead would realise large gains (bought ~$301, now ~$549).")
    t.user("Sell all the SGOV and enough BND to get to 25k with the cash. No VOO, we're not touching the S&P fund.")
    nov = t.seq
    t.do("get_quote", {"symbol": "BND"},
         {"symbol": "BND", "bid": "72.88", "ask": "72.90", "last": "72.89", "quote_time": "2025-10-13T10:04:40-04:00",
          "market_status": "OPEN", "delayed": False}, request_id="nf-md-5501")
    t.do("get_quote", {"symbol": "SGOV"},
         {"symbol": "SGOV", "bid": "100.47", "ask": "100.48", "last": "100.48", "quote_time": "2025-10-13T10:04:41-04:00",
          "market_status": "OPEN", "delayed": False}, request_id="nf-md-5502")
    t.asst("SGOV: 60 shares at ~100.47 = $6,028. Cash $2,210 + $6,028 = $8,238, so BND needs to cover ~$16,762: 230 "
           "shares at 72.88 = $16,762.40. Total ≈ $25,001. Selling BND realises a loss of about $900 (you bought at "
           "76.80), which offsets other gains this year. Should I preview both as limit orders at the bid?")
    t.user("Yes, preview.")
    t.do("preview_order", {"account_id": JNT, "symbol": "SGOV", "side": "SELL", "quantity": 60, "order_type": "LIMIT",
                           "limit_price": "100.47", "time_in_force": "DAY"},
         {"preview_id": "PV-55A1", "estimated_proceeds": "6028.20", "estimated_fees": "0.03", "settlement_date": "2025-10-14",
          "warnings": []}, request_id="nf-os-7701")
    t.do("preview_order", {"account_id": JNT, "symbol": "BND", "side": "SELL", "quantity": 230, "order_type": "LIMIT",
                           "limit_price": "72.88", "time_in_force": "DAY"},
         {"preview_id": "PV-55A2", "estimated_proceeds": "16762.40", "estimated_fees": "0.11", "settlement_date": "2025-10-14",
          "estimated_realized_gain": "-901.60", "warnings": ["Proceeds available to withdraw after settlement on 2025-10-14."]},
         request_id="nf-os-7702")
    t.asst("Previews: SGOV 60 @ 100.47 → $6,028.20; BND 230 @ 72.88 → $16,762.40 (realised loss $901.60). Both settle "
           "tomorrow, Oct 14; the BND ticket warns the proceeds can only be withdrawn after settlement. Submit both?")
    t.user("Submit both.")
    t.decision("d1-sell", [
        next_call("place_order", {"account_id": JNT, "symbol": "BND"}, "the joint account number typed once"),
        constraint(nov, "No VOO", "the user excluded the S&P fund"),
        fact("funds_needed_amount", "25000.00", "the target amount", subject="purpose=house closing"),
    ], note="early")
    o1, o1c = t.call("place_order", {"account_id": JNT, "symbol": "SGOV", "side": "SELL", "quantity": 60,
                                     "order_type": "LIMIT", "limit_price": "100.47", "time_in_force": "DAY"},
                     idem="ord-JNT441703-sgov-sell-60")
    t.approval("apr-sgov-60", "requested", o1c, action="Sell 60 SGOV @ 100.47")
    o2, o2c = t.call("place_order", {"account_id": JNT, "symbol": "BND", "side": "SELL", "quantity": 230,
                                     "order_type": "LIMIT", "limit_price": "72.88", "time_in_force": "DAY"},
                     idem="ord-JNT441703-bnd-sell-230")
    t.approval("apr-bnd-230", "requested", o2c, action="Sell 230 BND @ 72.88")
    t.asst("Two orders ready: SELL 60 SGOV @ 100.47 and SELL 230 BND @ 72.88, both day orders. Approve both?")
    t.user("Approved.")
    t.approval("apr-sgov-60", "granted", o1c)
    t.result(o1, "succeeded", {"order_id": "ORD-3H1A-00412", "status": "filled", "filled_quantity": 60,
                               "average_fill_price": "100.47", "settlement_date": "2025-10-14"}, request_id="nf-os-7710")
    t.approval("apr-bnd-230", "granted", o2c)
    t.result(o2, "succeeded", {"order_id": "ORD-3H1A-00413", "status": "filled", "filled_quantity": 230,
                               "average_fill_price": "72.88", "settlement_date": "2025-10-14"}, request_id="nf-os-7711")
    t.asst("Both filled: ORD-3H1A-00412 (60 SGOV @ 100.47) and ORD-3H1A-00413 (230 BND @ 72.88). Proceeds $22,790.60, "
           "settling tomorrow.")
    t.user("Great. How does the account look now?")
    pos2 = [p for p in POS if p[0] != "SGOV"]
    pos2 = [(s_, d, q - 230 if s_ == "BND" else q, a, p) for s_, d, q, a, p in pos2]
    _, _, pf2 = t.do("get_portfolio", {"account_id": JNT},
                     portfolio(pos2, 25001.04, 25001.04, 22790.60, "2025-10-13T10:09:30-04:00"), request_id="nf-pf-2202")
    t.asst("Cash is now $25,001.04, and the portfolio view lists all of it as withdrawable cash, with $22,790.60 "
           "marked as unsettled proceeds. Remaining holdings are about $138,000, with VOO untouched.")
    t.user("How's VOO doing anyway? We're keeping it for the long run.")
    t.do("get_quote", {"symbol": "VOO"},
         {"symbol": "VOO", "bid": "548.84", "ask": "548.96", "last": "548.90", "change": "3.12", "change_pct": "0.57",
          "prev_close": "545.78", "52w_high": "552.10", "52w_low": "441.37", "ytd_return_pct": "14.92",
          "quote_time": "2025-10-13T10:10:02-04:00", "market_status": "OPEN", "delayed": False}, request_id="nf-md-5510")
    t.asst("VOO is at $548.90, up 0.57% today and about 14.9% this year, close to its 52-week high of $552.10. Your "
           "112 shares are worth about $61,500, against a cost of about $33,800.")
    for q, a in [
        ("Should we have sold VOO instead, since it's near the high?",
         "Selling near a high feels good, but you'd realise roughly $27,000 of long-term gains, likely $4,000+ in "
         "federal tax, to raise money you could raise from bonds at a loss. For a house deposit, selling the bonds and "
         "T-bills was the tax-efficient choice; VOO stays your long-term holding."),
        ("Do we need to rebalance now that the bonds are mostly gone?",
         "Your joint account is now about 97% stocks. That's fine if this is long-term money and your emergency fund "
         "sits elsewhere. If you want a bond cushion again, you could direct the monthly $1,500 deposits into BND "
         "for a while after the 30-day wash-sale window (from Nov 13)."),
    ]:
        t.user(q)
        t.asst(a)
    t.user("Later. Now send the $25,000 to our bank. The First Horizon checking ending 2287.")
    _, _, lb1 = t.do("list_linked_banks", {"account_id": JNT},
                     {"account_id": JNT, "linked_banks": [
                         {"linked_bank_id": LB, "institution": "First Horizon Bank", "account_type": "checking",
                          "last4": "2287", "owner_match": "joint", "status": "verified", "ach_limits": {"daily_out": "50000.00"},
                          "open_banking_account_id": BANK},
                         {"linked_bank_id": "lb_3301", "institution": "Ally Bank", "account_type": "savings",
                          "last4": "9014", "owner_match": "Priya Shah", "status": "verified",
                          "ach_limits": {"daily_out": "25000.00"}}],
                      "withdrawable_cash": "2210.44", "unsettled_proceeds": "22790.60",
                      "note": "Sale proceeds become withdrawable after settlement (T+1)."}, request_id="nf-tr-8801")
    t.asst("Here's a conflict: the portfolio view says $25,001.04 is withdrawable, but the transfer service says "
           "only $2,210.44 can be withdrawn today, because the $22,790.60 of sale proceeds settle tomorrow (Oct 14). "
           "The transfer service is the one that actually moves money, so I'd trust it. Options: send $2,210.44 now "
           "and the rest tomorrow after settlement (ACH out of Northfield takes 1-2 business days, so tomorrow's "
           "transfer arrives Wednesday or Thursday), or send everything tomorrow.")
    t.user("Ugh. Send the 2,200 now then, and the rest tomorrow first thing. It must arrive by Thursday.")
    t.decision("d2-first-ach", [
        evidence([pf2, lb1], "the portfolio's $25,001.04 and the transfer service's $2,210.44 disagree"),
        next_call("initiate_ach_transfer", {"account_id": JNT, "linked_bank_id": LB},
                  "the linked bank id came back from list_linked_banks; the account from the first message"),
        constraint(deadline, "by Thursday", "the deadline decides the transfer timing"),
    ])
    a1, a1c = t.call("initiate_ach_transfer", {"account_id": JNT, "linked_bank_id": LB, "direction": "out",
                                               "amount": "2210.44", "memo": "house closing part 1"},
                     idem="ach-JNT441703-lb8812-221044")
    t.approval("apr-ach-1", "requested", a1c, action="ACH $2,210.44 to First Horizon ****2287")
    t.asst("ACH out $2,210.44 from the joint account to First Horizon checking ****2287, arriving in 1-2 business days. "
           "Approve?")
    t.user("Yes.")
    t.approval("apr-ach-1", "granted", a1c)
    a1r = t.result(a1, "timeout", error={"code": "TIMEOUT", "message": "transfer service did not respond in 30 s"})
    t.asst("The transfer request timed out. I don't know whether it was created. I'll look it up before anything else; "
           "resending could send it twice.")
    t.user("Fine. While that's pending: we also want to do our Roth contributions. Mine is "
           f"{ROTH}. Put in the full $7,000 for 2025 from the First Horizon account.")
    t.topic_switch("Roth IRA contribution", previous="house down payment")
    t.fact("roth_contribution_amount", "7000.00", subject={"account_id": ROTH, "tax_year": "2025"})
    t.do("get_account_activity", {"account_id": ROTH, "from": "2025-01-01", "to": "2025-10-13", "type": "contributions"},
         {"account_id": ROTH, "owner": "Priya Shah", "contributions": [
             {"date": "2025-04-14", "tax_year": "2024", "amount": "7000.00", "method": "ACH lb_3301"},
             {"date": "2025-06-02", "tax_year": "2025", "amount": "500.00", "method": "ACH lb_3301"}],
          "limits": {"2025": {"limit": "7000.00", "contributed": "500.00", "remaining": "6500.00"}},
          "magi_check": "not performed"}, request_id="nf-ac-3301")
    t.asst("Before sending: your Roth already has a $500 contribution for 2025 (June 2, from the Ally account), so "
           "the remaining 2025 limit is $6,500.00, not $7,000. A $7,000 deposit would be an excess contribution "
           "with a 6% penalty each year until it's removed.")
    t.user("Oh right, I forgot that. Make it $6,500 then.")
    t.correction("roth_contribution_amount", "6500.00", subject={"account_id": ROTH, "tax_year": "2025"}, replaces="7000.00")
    rc, rcc = t.call("initiate_ach_transfer", {"account_id": ROTH, "linked_bank_id": LB, "direction": "in",
                                               "amount": "6500.00", "contribution_tax_year": "2025",
                                               "memo": "2025 Roth contribution"},
                     idem="ach-ROTH441709-lb8812-650000-2025")
    t.approval("apr-roth-6500", "requested", rcc, action="ACH $6,500.00 from First Horizon ****2287 into Roth IRA as a 2025 contribution")
    t.asst("ACH in $6,500.00 from First Horizon ****2287 to your Roth IRA, coded as a 2025 contribution. Careful: "
           "this pulls from the same checking account you're funding for the closing. Approve?")
    t.user("Hmm, good point. Does the bank have enough for both? Check the balance first.")
    t.decision("d3-roth-pending", [
        pending("the Roth contribution approval is waiting on a balance check", approval_id="apr-roth-6500"),
        fact("roth_contribution_amount", "6500.00", "corrected after the prior $500 was found",
             subject=f"account_id={ROTH},tax_year=2025", superseded=["7000.00"]),
        tool_state("unknown", "the first ACH out timed out and is not resolved", call_id=a1),
        next_call("bank_get_balance", {"account_id": BANK}, "the bank account at First Horizon"),
    ])
    t.do("bank_get_balance", {"account_id": BANK},
         {"account_id": BANK, "institution": "First Horizon Bank", "ledger_balance": "14882.10",
          "available_balance": "14882.10", "holds": [], "as_of": "2025-10-13T10:31:05-04:00"}, request_id="fh-bl-1001")
    t.asst("First Horizon checking has $14,882.10 available. The closing needs $25,000 there by Thursday, which the "
           "Northfield transfers cover on their own ($2,210.44 + $22,790.60), so the checking balance can fund the "
           "Roth: after $6,500 it would be $8,382.10, plus the $25,000 arriving. Does the $25,000 need to be on top of "
           "what's already in checking, or is the closing amount $25,000 in total?")
    keep = t.user("On top. The title company wants a wire of 25k from that account, and we keep our normal money "
                  "there too. Just never let checking drop below $2,000 for our bills, not counting the house money. "
                  "So yes, Roth is fine. Approve.")
    t.fact("min_checking_balance", "2000.00", subject={"account_id": BANK})
    t.approval("apr-roth-6500", "granted", rcc)
    t.result(rc, "succeeded", {"transfer_id": "TRF-IN-66120", "status": "pending", "amount": "6500.00",
                               "expected_settlement": "2025-10-15", "contribution_tax_year": "2025"},
             request_id="nf-tr-8830")
    t.asst("Roth contribution submitted: TRF-IN-66120, $6,500.00 for 2025, settles Oct 15.")
    t.user("What's in my Roth right now anyway? I haven't looked in months.")
    t.do("get_portfolio", {"account_id": ROTH},
         {"account_id": ROTH, "account_type": "ROTH_IRA", "owner": "Priya Shah", "as_of": "2025-10-13T10:40:12-04:00",
          "total_value": "61240.18", "cash": "512.07", "withdrawable_cash": "512.07",
          "positions": [
              {"symbol": "VTI", "quantity": 120, "average_cost": "196.40", "last_price": "282.15", "market_value": "33858.00"},
              {"symbol": "VXUS", "quantity": 180, "average_cost": "54.80", "last_price": "70.12", "market_value": "12621.60"},
              {"symbol": "AVUV", "quantity": 60, "average_cost": "78.10", "last_price": "96.44", "market_value": "5786.40"},
              {"symbol": "QQQM", "quantity": 30, "average_cost": "142.90", "last_price": "212.81", "market_value": "6384.30"},
              {"symbol": "VNQ", "quantity": 22, "average_cost": "81.50", "last_price": "92.35", "market_value": "2031.70"}],
          "contributions_ytd": {"2025": "500.00", "2024": "7000.00"},
          "first_contribution_year": 2017, "five_year_rule_met": True}, request_id="nf-pf-3301")
    t.asst("Your Roth is worth $61,240: mostly VTI ($33,858) and VXUS ($12,622), plus small-cap value (AVUV), QQQM and "
           "a little VNQ, with $512 in cash. Your first contribution was in 2017, so the five-year rule is met: "
           "contributions (not earnings) can always come out tax- and penalty-free, which is a useful backstop if the "
           "house costs more than planned.")
    t.user("Good to know. Daniel wants to do his too, but he'll do it himself later. Now back to the house money: "
           "did the first transfer go through?")
    t.topic_switch("house down payment", previous="Roth IRA contribution")
    t.do("get_transfer", {"transfer_id": "ach-JNT441703-lb8812-221044"},
         {"lookup": "client_reference", "transfer_id": "TRF-OUT-66117", "status": "pending", "amount": "2210.44",
          "linked_bank_id": LB, "created_at": "2025-10-13T10:18:02-04:00", "expected_arrival": "2025-10-15"},
         request_id="nf-tr-8833")
    t.status_query(a1, "succeeded", request_id="nf-tr-8833",
                   result={"transfer_id": "TRF-OUT-66117", "status": "pending", "expected_arrival": "2025-10-15"})
    t.asst("Yes: TRF-OUT-66117, $2,210.44, created at 10:18 and pending, expected at First Horizon on Wednesday Oct 15.")
    t.user("Good. I have an old limit order on AAPL sitting out there, cancel it so nothing weird happens with cash.")
    t.do("list_orders", {"account_id": JNT, "status": "open"},
         {"account_id": JNT, "orders": [
             {"order_id": "ORD-3G8Z-99120", "symbol": "AAPL", "side": "BUY", "quantity": 20, "order_type": "LIMIT",
              "limit_price": "165.00", "time_in_force": "GTC", "status": "open", "created_at": "2025-09-02T11:20:00-04:00"},
             {"order_id": "ORD-3G9B-10455", "symbol": "VNQ", "side": "SELL", "quantity": 95, "order_type": "STOP",
              "stop_price": "80.00", "time_in_force": "GTC", "status": "open", "created_at": "2025-08-18T09:40:00-04:00"}],
          "count": 2}, request_id="nf-os-7740")
    cx, _, _ = t.do("cancel_order", {"order_id": "ORD-3G8Z-99120"}, None, "timeout", idem="cxl-ORD-3G8Z-99120",
                    error={"code": "TIMEOUT", "message": "order router did not respond in 30 s"})
    t.asst("Found it: ORD-3G8Z-99120, buy 20 AAPL @ 165 GTC (it would use ~$3,300 if it filled). The cancel request "
           "timed out, so it's unconfirmed. AAPL is at ~178, well above 165, so it's unlikely to fill in the meantime. "
           "The VNQ stop (sell 95 @ stop 80) is still there; tell me if you want that gone too.")
    t.user("Leave VNQ. Check the AAPL cancel tomorrow. See you tomorrow morning.")
    t.asst("Will do. Tomorrow morning: check the AAPL cancel, then send the settled $22,790.60.")
    t.system("Next day: 2025-10-14 09:35 EDT.")
    t.user("Morning! Send the rest of the house money now.")
    t.decision("d4-second-ach", [
        next_call("initiate_ach_transfer", {"account_id": JNT, "linked_bank_id": LB},
                  "yesterday's account and linked bank, 30+ events back"),
        tool_state("unknown", "the AAPL cancel timed out yesterday and was never checked", call_id=cx),
        tool_state("succeeded", "the first ACH was confirmed by a status query", call_id=a1, request_id="nf-tr-8833"),
        constraint(deadline, "need $25,000 in our bank by Thursday", "the second transfer must arrive by Thursday"),
    ], note="next day")
    _, _, lb2 = t.do("list_linked_banks", {"account_id": JNT},
                     {"account_id": JNT, "linked_banks": [
                         {"linked_bank_id": LB, "institution": "First Horizon Bank", "account_type": "checking",
                          "last4": "2287", "owner_match": "joint", "status": "verified"},
                         {"linked_bank_id": "lb_3301", "institution": "Ally Bank", "account_type": "savings",
                          "last4": "9014", "owner_match": "Priya Shah", "status": "verified"}],
                      "withdrawable_cash": "22790.60", "unsettled_proceeds": "0.00"}, request_id="nf-tr-8850")
    t.asst("Settled: the transfer service now shows $22,790.60 withdrawable, matching the sale proceeds.")
    a2, a2c = t.call("initiate_ach_transfer", {"account_id": JNT, "linked_bank_id": LB, "direction": "out",
                                               "amount": "22790.60", "memo": "house closing part 2",
                                               "speed": "next_day"}, idem="ach-JNT441703-lb8812-2279060")
    t.approval("apr-ach-2", "requested", a2c, action="ACH $22,790.60 to First Horizon ****2287 (next-day)")
    t.asst("ACH out $22,790.60 to First Horizon ****2287, next-day delivery (arrives Wednesday Oct 15), together with "
           "yesterday's $2,210.44 that's $25,001.04. Approve?")
    t.user("Yes, go.")
    t.approval("apr-ach-2", "granted", a2c)
    a2r = t.result(a2, "succeeded", {"transfer_id": "TRF-OUT-66140", "status": "pending", "amount": "22790.60",
                                     "expected_arrival": "2025-10-15"}, request_id="nf-tr-8851")
    t.asst("Sent: TRF-OUT-66140, $22,790.60, expected Wednesday. Now the AAPL cancel.")
    t.user("Wait, first show me what the account looks like now, after all this.")
    pos3 = [(sy, d, q, a, p * (1 + r.randint(-8, 8) / 1000)) for sy, d, q, a, p in pos2]
    t.do("get_portfolio", {"account_id": JNT},
         portfolio(pos3, 0.44, 0.44, 0.0, "2025-10-14T09:41:55-04:00"), request_id="nf-pf-2210")
    t.asst("After the two transfers the joint account holds only $0.44 in cash, and about $139,900 in investments: "
           "VOO is still the biggest position (112 shares), then VXUS, SCHD, MSFT and VNQ. BND is down to 80 shares "
           "and SGOV is gone. Note: the AAPL buy order, if it somehow filled, would have no cash to settle against, "
           "another reason to get that cancel confirmed.")
    t.do("get_order", {"order_id": "ORD-3G8Z-99120"},
         {"order_id": "ORD-3G8Z-99120", "symbol": "AAPL", "status": "pending_cancel", "filled_quantity": 0,
          "cancel_requested_at": "2025-10-13T10:44:51-04:00", "note": "Cancel request queued at the exchange; not yet acknowledged."},
         request_id="nf-os-7760")
    t.asst("The AAPL order shows 'pending cancel' since yesterday 10:44, with nothing filled: the request reached the "
           "router but the exchange hasn't acknowledged it. It's not confirmed cancelled yet.")
    t.user("Show me everything we've realised this year in the joint account, our accountant will ask.")
    rg = [("2025-02-11", "MSFT", 10, "240.10", "409.88", "LONG"), ("2025-03-04", "KO", 20, "58.10", "66.02", "LONG"),
          ("2025-04-08", "VXUS", 60, "55.10", "57.31", "LONG"), ("2025-04-08", "VNQ", 30, "88.20", "81.10", "LONG"),
          ("2025-05-19", "AAPL", 15, "121.30", "208.44", "LONG"), ("2025-06-23", "HD", 4, "311.00", "362.50", "LONG"),
          ("2025-07-15", "SGOV", 40, "100.18", "100.41", "SHORT"), ("2025-08-27", "JPM", 6, "141.75", "288.30", "LONG"),
          ("2025-10-13", "SGOV", 60, "100.21", "100.47", "LONG"), ("2025-10-13", "BND", 120, "85.40", "72.88", "LONG"),
          ("2025-10-13", "BND", 80, "75.55", "72.88", "LONG"), ("2025-10-13", "BND", 20, "72.60", "72.88", "SHORT"),
          ("2025-10-13", "BND", 10, "72.10", "72.88", "LONG")]
    rows = []
    for d, sym, q, cost, px, term in rg:
        rows.append({"trade_date": d, "symbol": sym, "quantity": q, "cost_per_share": cost, "proceeds_per_share": px,
                     "gain": f"{q * (float(px) - float(cost)):.2f}", "term": term})
    lt = sum(float(x["gain"]) for x in rows if x["term"] == "LONG")
    stg = sum(float(x["gain"]) for x in rows if x["term"] == "SHORT")
    t.do("get_account_activity", {"account_id": JNT, "from": "2025-01-01", "to": "2025-10-14", "type": "realized_gains"},
         {"account_id": JNT, "realized": rows, "totals": {"long_term": f"{lt:.2f}", "short_term": f"{stg:.2f}",
                                                          "net": f"{lt + stg:.2f}"},
          "wash_sales": [], "note": "Figures are estimates until the 1099-B is issued in February."}, request_id="nf-ac-3330")
    t.asst(f"Realised in 2025 so far (joint account): long-term net ${lt:,.2f} and short-term ${stg:,.2f}, net "
           f"${lt + stg:,.2f}. The big gains were MSFT in February, AAPL in May and JPM in August; yesterday's BND "
           "sale contributed a loss of about $1,700 which offsets part of them. No wash sales. Final numbers come on "
           "the 1099-B in February.")
    for q, a in [
        ("Will the BND loss help our taxes?",
         "Yes: the BND loss (about $1,700 with the HIFO lots, more than the preview's $901.60 estimate based on "
         "average cost) offsets this year's capital gains first. Because the lots were held over a year it's a "
         "long-term loss. Just don't buy BND back within 30 days, or the wash-sale rule defers it."),
        ("What about the SGOV sale?",
         "SGOV was nearly flat (bought 100.21, sold 100.47), so a gain of about $15.60, short-term or long-term "
         "depending on the lot; negligible either way."),
        ("Do we owe anything on the ACH transfers?",
         "No: standard and next-day ACH withdrawals are free at Northfield. Only wires ($25) and instant transfers "
         "(1.5%) cost anything."),
    ]:
        t.user(q)
        t.asst(a)
    t.user("Let me check the bank side. Does First Horizon see anything coming?")
    t.do("bank_get_transactions", {"account_id": BANK, "from": "2025-09-20", "to": "2025-10-14", "include_pending": True},
         {"account_id": BANK, "transactions": [
             {"date": "2025-10-14", "description": "NORTHFIELD SEC ACH CREDIT (pending)", "amount": "2210.44", "status": "pending"},
             {"date": "2025-10-14", "description": "NORTHFIELD SEC ACH DEBIT ROTH IRA (pending)", "amount": "-6500.00", "status": "pending"},
             {"date": "2025-10-09", "description": "GEORGIA POWER BILL PAY", "amount": "-162.44", "status": "posted"},
             {"date": "2025-10-08", "description": "KROGER #0412", "amount": "-138.71", "status": "posted"},
             {"date": "2025-10-06", "description": "RENT - THE VUE APARTMENTS", "amount": "-2180.00", "status": "posted"},
             {"date": "2025-10-03", "description": "EARNEST MONEY WIRE - PEACHTREE TITLE", "amount": "-5000.00", "status": "posted"},
             {"date": "2025-10-03", "description": "WIRE FEE", "amount": "-30.00", "status": "posted"},
             {"date": "2025-10-01", "description": "VERIZON WIRELESS", "amount": "-141.20", "status": "posted"},
             {"date": "2025-09-30", "description": "INTEREST", "amount": "1.18", "status": "posted"},
             {"date": "2025-09-26", "description": "PAYROLL HARTWELL BIO", "amount": "4105.12", "status": "posted"},
             {"date": "2025-09-26", "description": "PAYROLL CITY OF ALPHARETTA", "amount": "2870.66", "status": "posted"},
             {"date": "2025-09-24", "description": "HOME INSPECTION - SOUTHERN HOME INSPECT", "amount": "-525.00", "status": "posted"},
             {"date": "2025-09-22", "description": "APPRAISAL FEE - ROSWELL APPRAISAL GROUP", "amount": "-650.00", "status": "posted"},
             {"date": "2025-10-13", "description": "COSTCO WHSE #1108", "amount": "-214.38", "status": "posted"},
             {"date": "2025-10-12", "description": "SHELL OIL 57443", "amount": "-51.20", "status": "posted"},
             {"date": "2025-10-10", "description": "PAYROLL HARTWELL BIO", "amount": "4105.12", "status": "posted"},
             {"date": "2025-10-10", "description": "PAYROLL CITY OF ALPHARETTA", "amount": "2870.66", "status": "posted"}],
          "available_balance": "8382.10"}, request_id="fh-tx-1004")
    t.asst("First Horizon shows yesterday's $2,210.44 as a pending credit and the Roth $6,500 as a pending debit. "
           "Today's $22,790.60 isn't visible yet; it typically appears as pending this evening. I also see the "
           "earnest money wire to Peachtree Title ($5,000 on Oct 3), the inspection and the appraisal, so the closing "
           "costs so far are in line with a Friday closing.")
    t.user("Is the earnest money counted toward the 25k or on top?")
    t.asst("I can't see your closing disclosure, but usually the earnest money is credited toward your cash to close, "
           "so the title company's final figure would already subtract the $5,000. If their wire request says $25,000, "
           "that's after the credit. Check page 3 of the closing disclosure, 'Cash to Close'.")
    t.user("OK. Summarise where the house money stands and anything still open.")
    t.decision("d5-summary", [
        next_call("get_transfer", {"transfer_id": "TRF-OUT-66140"}, "the second transfer id for a status check"),
        fact("withdrawable_cash", "0.44", "after both transfers almost nothing is left; the earlier readings are stale",
             subject=f"account_id={JNT}", superseded=["25001.04", "22790.60"]),
        evidence([a2c, a2r], "the second irreversible transfer and its result"),
        tool_state("unknown", "the AAPL cancel is still not confirmed", call_id=cx),
        fact("roth_contribution_amount", "6500.00", "the Roth amount stays corrected",
             subject=f"account_id={ROTH},tax_year=2025", superseded=["7000.00"]),
    ], note="late")
    t.asst("House money: $25,001.04 on its way to First Horizon ****2287: TRF-OUT-66117 ($2,210.44, pending, Wed) and "
           "TRF-OUT-66140 ($22,790.60, pending, Wed). Both should be available Wednesday, a day before your Thursday "
           "deadline. Roth: $6,500 for 2025 (TRF-IN-66120) pending. Open: the AAPL buy ORD-3G8Z-99120 is 'pending "
           "cancel', not confirmed; the VNQ stop stays as you asked.")
    t.user("Hi, it's Daniel now, on Priya's session. I want to do my Roth too: my account is ROTH-44170-2. Put in "
           "$7,000 for 2025 from the First Horizon checking.")
    t.fact("roth_contribution_amount", "7000.00", subject={"account_id": "ROTH-44170-2", "tax_year": "2025"})
    t.do("get_account_activity", {"account_id": "ROTH-44170-2", "from": "2025-01-01", "to": "2025-10-14",
                                  "type": "contributions"},
         {"account_id": "ROTH-44170-2", "owner": "Daniel Shah", "contributions": [
             {"date": "2025-03-31", "tax_year": "2024", "amount": "7000.00", "method": "ACH lb_8812"}],
          "limits": {"2025": {"limit": "7000.00", "contributed": "0.00", "remaining": "7000.00"}}},
         request_id="nf-ac-3342")
    t.asst("Hi Daniel. Your Roth (ROTH-44170-2) has nothing for 2025 yet, so $7,000 fits the limit. But the checking "
           "account: it has about $8,382 available after Priya's $6,500, not counting the house money. $7,000 more "
           "would leave about $1,382, below the $2,000 minimum you two set for bills. I could do $6,382 now, or $6,000 "
           "now and the rest after payday (Oct 24).")
    t.user("Do $6,000 now, I'll add the last $1,000 in November.")
    t.correction("roth_contribution_amount", "6000.00", subject={"account_id": "ROTH-44170-2", "tax_year": "2025"},
                 replaces="7000.00")
    dr, drc = t.call("initiate_ach_transfer", {"account_id": "ROTH-44170-2", "linked_bank_id": LB, "direction": "in",
                                               "amount": "6000.00", "contribution_tax_year": "2025",
                                               "memo": "2025 Roth contribution"},
                     idem="ach-ROTH441702-lb8812-600000-2025")
    t.approval("apr-droth-6000", "requested", drc, action="ACH $6,000.00 from First Horizon ****2287 into Daniel's Roth IRA (2025)")
    t.asst("ACH in $6,000.00 from First Horizon ****2287 to ROTH-44170-2 as a 2025 contribution, leaving about $2,382 "
           "in checking for bills. Approve?")
    t.user("Hold on, Priya wants to look at it first, she's the one who tracks the bills.")
    t.decision("d6-daniel-roth", [
        pending("Daniel's contribution waits for Priya's look", approval_id="apr-droth-6000"),
        constraint(keep, "never let checking drop below $2,000", "the bill cushion limits the contribution"),
        fact("roth_contribution_amount", "6000.00", "Daniel's amount corrected to fit the cushion",
             subject="account_id=ROTH-44170-2,tax_year=2025", superseded=["7000.00"]),
        fact("roth_contribution_amount", "6500.00", "Priya's amount is a different subject and stays 6,500",
             subject=f"account_id={ROTH},tax_year=2025", superseded=["7000.00"]),
    ], note="a second person on the session; two contributions with the same key")
    t.user("Priya here. $6,000 is fine, the Georgia Power bill is only about $160. Approve it.")
    t.approval("apr-droth-6000", "granted", drc)
    t.result(dr, "succeeded", {"transfer_id": "TRF-IN-66152", "status": "pending", "amount": "6000.00",
                               "expected_settlement": "2025-10-16", "contribution_tax_year": "2025"},
             request_id="nf-tr-8862")
    t.asst("Done: TRF-IN-66152, $6,000.00 into Daniel's Roth for 2025, settling Oct 16. Checking keeps about $2,382.")
    t.user("Daniel again. What's in my Roth? I want to know what to buy when the money lands.")
    t.do("get_portfolio", {"account_id": "ROTH-44170-2"},
         {"account_id": "ROTH-44170-2", "account_type": "ROTH_IRA", "owner": "Daniel Shah",
          "as_of": "2025-10-14T10:12:40-04:00", "total_value": "38904.55", "cash": "88.31",
          "positions": [
              {"symbol": "FXAIX", "quantity": 121.442, "average_cost": "142.10", "last_price": "214.33", "market_value": "26028.67"},
              {"symbol": "FTIHX", "quantity": 402.118, "average_cost": "13.20", "last_price": "16.12", "market_value": "6482.14"},
              {"symbol": "FXNAX", "quantity": 320.000, "average_cost": "10.71", "last_price": "10.44", "market_value": "3340.80"},
              {"symbol": "AVUV", "quantity": 31, "average_cost": "80.40", "last_price": "96.44", "market_value": "2989.64"}],
          "target_allocation": None, "contributions_ytd": {"2025": "0.00", "2024": "7000.00"}}, request_id="nf-pf-3350")
    t.asst("Your Roth is $38,905: about 67% FXAIX (S&P 500 index), 17% FTIHX (international), 9% FXNAX (US bonds) "
           "and 8% AVUV (small-cap value). To keep roughly that mix, the $6,000 would go about $4,000 to FXAIX, $1,000 "
           "to FTIHX and $1,000 split between bonds and AVUV. At 35 with a 30-year horizon, many people hold fewer "
           "bonds in a Roth and more international. I can place the orders once the money settles on Oct 16.")
    t.user("I'll think about the mix. Thanks.")
    for q, a in [
        ("Priya here. Unrelated: should we lock our mortgage rate now or wait?",
         "I don't have access to mortgage quotes, and your lender's lock terms matter most. Generally, with a "
         "Friday closing you'd already be locked or past the point of floating; if you aren't, ask the lender today "
         "whether the lock covers the closing date with a few days of buffer."),
        ("How much cash should we keep around after closing?",
         "A common rule is 3-6 months of expenses in an emergency fund. From your checking, bills run about $3,000 a "
         "month plus the new mortgage, so $12,000-20,000 across checking and the Ally savings would be comfortable. "
         "The joint brokerage account can also be sold within a day or two if needed, as today showed."),
    ]:
        t.user(q)
        t.asst(a)
    t.user("Show me all the money that went in and out of the joint account this year, transfers only.")
    trs = [("2025-01-15", "in", "lb_8812", "1500.00", "completed"), ("2025-02-14", "in", "lb_8812", "1500.00", "completed"),
           ("2025-03-14", "in", "lb_8812", "1500.00", "completed"), ("2025-03-28", "out", "lb_3301", "4000.00", "completed"),
           ("2025-04-15", "in", "lb_8812", "1500.00", "completed"), ("2025-05-15", "in", "lb_8812", "1500.00", "completed"),
           ("2025-06-13", "in", "lb_8812", "1500.00", "completed"), ("2025-07-15", "in", "lb_8812", "1500.00", "completed"),
           ("2025-08-15", "in", "lb_8812", "1500.00", "completed"), ("2025-08-29", "out", "lb_8812", "2500.00", "completed"),
           ("2025-09-15", "in", "lb_8812", "1500.00", "completed"), ("2025-10-13", "out", "lb_8812", "2210.44", "pending"),
           ("2025-10-14", "out", "lb_8812", "22790.60", "pending")]
    t.do("get_account_activity", {"account_id": JNT, "from": "2025-01-01", "to": "2025-10-14", "type": "transfers"},
         {"account_id": JNT, "transfers": [
             {"date": d, "direction": dr_, "linked_bank_id": lb, "amount": amt, "status": st,
              "transfer_id": f"TRF-{'IN' if dr_ == 'in' else 'OUT'}-{60000 + i * 417}", "method": "ACH",
              "recurring": dr_ == "in" and amt == "1500.00"} for i, (d, dr_, lb, amt, st) in enumerate(trs)],
          "totals": {"in": "15000.00", "out": "31501.04"}}, request_id="nf-ac-3361")
    t.asst("This year: a recurring $1,500 monthly deposit from First Horizon (10 of them, $15,000), and withdrawals of "
           "$4,000 to Ally in March, $2,500 to First Horizon in August, plus the two house transfers ($2,210.44 and "
           "$22,790.60, both pending). Out in total: $31,501.04. Note the recurring $1,500 deposit runs again on "
           "Oct 15 from checking; with the closing you might want to pause it.")
    t.user("Oh good catch, we definitely don't want 1,500 pulled from checking this week. We'll pause it in the app. "
           "And list our orders from the last three months, I want to see if there's anything else odd.")
    hist = [("ORD-3H1A-00413", "BND", "SELL", 230, "filled", "72.88", "2025-10-13"),
            ("ORD-3H1A-00412", "SGOV", "SELL", 60, "filled", "100.47", "2025-10-13"),
            ("ORD-3G8Z-99120", "AAPL", "BUY", 20, "pending_cancel", "165.00", "2025-09-02"),
            ("ORD-3G9B-10455", "VNQ", "SELL", 95, "open", None, "2025-08-18"),
            ("ORD-3G7Q-88012", "JPM", "SELL", 6, "filled", "288.30", "2025-08-27"),
            ("ORD-3G6M-70455", "SCHD", "BUY", 60, "filled", "27.12", "2025-08-15"),
            ("ORD-3G5K-61200", "VOO", "BUY", 3, "filled", "512.40", "2025-07-31"),
            ("ORD-3G5J-60981", "SGOV", "SELL", 40, "filled", "100.41", "2025-07-15"),
            ("ORD-3G4X-51007", "HD", "SELL", 4, "canceled", None, "2025-07-11"),
            ("ORD-3G4W-50877", "VXUS", "BUY", 40, "filled", "66.30", "2025-07-14")]
    t.do("list_orders", {"account_id": JNT, "from": "2025-07-14", "to": "2025-10-14"},
         {"account_id": JNT, "orders": [
             {"order_id": oid, "symbol": sy, "side": sd, "quantity": q, "status": st, "average_fill_price": px,
              "created_at": f"{d}T10:00:00-04:00", "order_type": "LIMIT" if sy != "VNQ" else "STOP"}
             for oid, sy, sd, q, st, px, d in hist], "count": len(hist)}, request_id="nf-os-7790")
    t.asst("Last three months: the two sales yesterday, JPM sold in August, SCHD, VOO and VXUS buys in the summer, an "
           "SGOV sale in July and a cancelled HD order. The only things still working are the VNQ stop and the AAPL "
           "buy that's stuck in 'pending cancel'. Nothing else odd.")
    t.user("Also, the title company's wire instructions came in. Can you send the wire from First Horizon?")
    t.asst("I can't: I only have read access to First Horizon. You'll need to send the wire from First Horizon's app "
           "or branch. Call the title company on a number you already know (not the one in the email) to confirm the "
           "instructions before wiring; wire fraud at closings is common.")
    t.user("Good advice. One last check on AAPL before I go.")
    t.do("get_order", {"order_id": "ORD-3G8Z-99120"},
         {"order_id": "ORD-3G8Z-99120", "symbol": "AAPL", "status": "pending_cancel", "filled_quantity": 0,
          "cancel_requested_at": "2025-10-13T10:44:51-04:00"}, request_id="nf-os-7771")
    t.user("Still pending? What should I do?")
    t.decision("d7-aapl", [
        next_call("get_order", {"order_id": "ORD-3G8Z-99120"}, "the stuck order's id, from yesterday's list"),
        tool_state("unknown", "the cancel's outcome is still unknown; a resend is not the fix", call_id=cx),
        pending("the cancel call is still open", call_id=cx),
        fact("status", "pending_cancel", "the order's own status is the latest word on it",
             subject="order_id=ORD-3G8Z-99120"),
    ], note="the cancel is never resolved in the session")
    t.asst("Still 'pending cancel' with nothing filled. Sending another cancel won't help; it's waiting on the "
           "exchange. I'd call the trade desk (800-555-0143) to have them force it. Since AAPL is ~8% above your limit, "
           "the risk of a fill before then is small, and it can't touch the money already sent to the bank.")
    t.user("I'll call them. Thanks!")
    t.asst("Good luck with the closing!")
    return t
