"""05: banking and payments: card fraud, a dispute, rent to a new payee, balances that disagree."""

from lib import Traj, constraint, evidence, fact, next_call, pending, tool_state
from tools import pick

FILENAME = "05_card-fraud-and-rent.jsonl"
CHK = "CHK-00418832"
SAV = "SAV-00418851"
CARD = "card_7Hq2Lx"
ROUTING = "021000021"
LL_ACCT = "483922107765"


def card_txns(rng):
    rows = [
        ("2025-10-13", "TX-CC-99130412", "AMZN Mktp US*2K4LR0", "Seattle WA", "42.17", "posted", "Shopping"),
        ("2025-10-13", "TX-CC-99130588", "TRADER JOE'S #552", "Brooklyn NY", "67.40", "posted", "Groceries"),
        ("2025-10-12", "TX-CC-99127731", "MTA*NYCT PAYGO", "New York NY", "2.90", "posted", "Transit"),
        ("2025-10-12", "TX-CC-99127802", "SQ *BLUE BOTTLE COFFEE", "Brooklyn NY", "6.75", "posted", "Dining"),
        ("2025-10-12", "TX-CC-99128114", "VLT*ELECTROMART ONLINE", "Tallinn EE", "248.19", "posted", "Electronics"),
        ("2025-10-12", "TX-CC-99128115", "VLT*ELECTROMART ONLINE", "Tallinn EE", "1.00", "posted", "Electronics"),
        ("2025-10-11", "TX-CC-99124050", "NETFLIX.COM", "Los Gatos CA", "15.49", "posted", "Subscriptions"),
        ("2025-10-11", "TX-CC-99124399", "UBER *TRIP", "San Francisco CA", "23.18", "posted", "Transit"),
        ("2025-10-10", "TX-CC-99120871", "GOOGLE *CLOUD STORAGE", "Mountain View CA", "2.99", "posted", "Subscriptions"),
        ("2025-10-10", "TX-CC-99121002", "THE LOCAL BAR & GRILL", "Brooklyn NY", "58.60", "posted", "Dining"),
        ("2025-10-09", "TX-CC-99117745", "CVS/PHARMACY #10492", "Brooklyn NY", "18.23", "posted", "Health"),
        ("2025-10-09", "TX-CC-99118003", "STEAMGAMES.COM 4259522", "Bellevue WA", "89.99", "posted", "Entertainment"),
        ("2025-10-08", "TX-CC-99113320", "CON ED OF NY", "New York NY", "96.31", "posted", "Utilities"),
        ("2025-10-08", "TX-CC-99113514", "SPOTIFY USA", "New York NY", "11.99", "posted", "Subscriptions"),
        ("2025-10-07", "TX-CC-99110261", "WHOLE FOODS MKT #10233", "Brooklyn NY", "104.88", "posted", "Groceries"),
        ("2025-10-14", "TX-CC-99133907", "MARRIOTT BOSTON COPLEY", "Boston MA", "1200.00", "pending", "Travel"),
    ]
    out = [{"transaction_id": tid, "date": d, "description": desc, "merchant_location": loc, "amount": amt,
            "status": st, "category": cat}
           for d, tid, desc, loc, amt, st, cat in rows]
    return {"account_id": "CC-5521", "card_id": CARD, "card_last4": "5521", "currency": "USD",
            "period": {"from": "2025-10-07", "to": "2025-10-14"},
            "transactions": out, "current_balance": "1988.07", "pending_total": "1200.00", "credit_limit": "9000.00"}


def chk_txns(rng):
    rows = [
        ("2025-10-14", "DEBIT", "Zelle to MAYA CHEN", "-40.00", "posted"),
        ("2025-10-10", "CREDIT", "PAYROLL ACME ANALYTICS LLC DIR DEP", "3412.55", "posted"),
        ("2025-10-09", "DEBIT", "HARBOR FCU VISA PAYMENT THANK YOU", "-1650.00", "posted"),
        ("2025-10-06", "DEBIT", "CITY OF NEW YORK DOF PARKING", "-65.00", "posted"),
        ("2025-10-03", "DEBIT", "VERIZON WIRELESS AUTOPAY", "-88.40", "posted"),
        ("2025-10-02", "DEBIT", "ATM WITHDRAWAL 5TH AVE & 9TH ST", "-100.00", "posted"),
        ("2025-10-01", "DEBIT", "BRIGHTLINE PROPERTY MGMT CHECK #1044", "-2350.00", "posted"),
        ("2025-09-30", "CREDIT", "INTEREST PAYMENT", "0.42", "posted"),
        ("2025-09-26", "CREDIT", "PAYROLL ACME ANALYTICS LLC DIR DEP", "3412.55", "posted"),
        ("2025-09-25", "DEBIT", "GEICO AUTO INS", "-131.06", "posted"),
        ("2025-09-22", "DEBIT", "TRANSFER TO SAVINGS SAV-00418851", "-500.00", "posted"),
        ("2025-09-19", "DEBIT", "Zelle to BROOKLYN BOULDERS", "-145.00", "posted"),
    ]
    out = [{"transaction_id": f"TX-CK-{rng.randint(10**7, 10**8 - 1)}", "date": d, "type": ty, "description": desc,
            "amount": amt, "status": st} for d, ty, desc, amt, st in rows]
    return {"account_id": CHK, "transactions": out, "ledger_balance": "3480.12", "available_balance": "3480.12",
            "as_of": "2025-10-14T06:00:00-04:00", "feed": "nightly"}


SEPT_CARD = [
    ("2025-09-30", "TX-CC-99002210", "TRADER JOE'S #552", "Brooklyn NY", "71.02"),
    ("2025-09-29", "TX-CC-98998120", "AMZN Mktp US*9R1TT2", "Seattle WA", "23.99"),
    ("2025-09-28", "TX-CC-98990017", "VLT*EMRT TEST SVC", "Tallinn EE", "0.99"),
    ("2025-09-27", "TX-CC-98986604", "BROOKLYN BOULDERS", "Brooklyn NY", "32.00"),
    ("2025-09-26", "TX-CC-98981152", "SQ *BLUE BOTTLE COFFEE", "Brooklyn NY", "6.75"),
    ("2025-09-25", "TX-CC-98977431", "LYFT *RIDE SUN 8PM", "San Francisco CA", "19.44"),
    ("2025-09-23", "TX-CC-98969205", "DELTA AIR 0062183349201", "Atlanta GA", "318.40"),
    ("2025-09-22", "TX-CC-98964118", "UNIQLO 5TH AVE", "New York NY", "88.30"),
    ("2025-09-20", "TX-CC-98955720", "THE LOCAL BAR & GRILL", "Brooklyn NY", "44.10"),
    ("2025-09-18", "TX-CC-98947762", "CON ED OF NY", "New York NY", "88.77"),
    ("2025-09-16", "TX-CC-98939004", "APPLE.COM/BILL", "Cupertino CA", "2.99"),
    ("2025-09-14", "TX-CC-98930551", "WHOLE FOODS MKT #10233", "Brooklyn NY", "96.12"),
    ("2025-09-12", "TX-CC-98922983", "NETFLIX.COM", "Los Gatos CA", "15.49"),
    ("2025-09-11", "TX-CC-98918700", "MTA*NYCT PAYGO", "New York NY", "34.00"),
    ("2025-09-09", "TX-CC-98910268", "CVS/PHARMACY #10492", "Brooklyn NY", "12.58"),
    ("2025-09-08", "TX-CC-98905513", "SPOTIFY USA", "New York NY", "11.99"),
    ("2025-09-06", "TX-CC-98896342", "JOE'S PIZZA CARMINE", "New York NY", "9.50"),
    ("2025-09-04", "TX-CC-98888018", "TARGET 00032151", "Brooklyn NY", "57.21"),
    ("2025-09-02", "TX-CC-98879930", "STUBHUB INC", "San Francisco CA", "129.00"),
    ("2025-09-01", "TX-CC-98875004", "GOOGLE *CLOUD STORAGE", "Mountain View CA", "2.99"),
]


def chk_statement(rng):
    lines = [
        ("09-01", "CHECK #1043 BRIGHTLINE PROPERTY MGMT", "-2350.00"), ("09-02", "VERIZON WIRELESS AUTOPAY", "-88.40"),
        ("09-05", "ATM WITHDRAWAL 5TH AVE & 9TH ST", "-60.00"), ("09-08", "HARBOR FCU VISA PAYMENT THANK YOU", "-1210.44"),
        ("09-12", "PAYROLL ACME ANALYTICS LLC DIR DEP", "3412.55"), ("09-13", "Zelle from MAYA CHEN", "30.00"),
        ("09-15", "NYC WATER BOARD", "-41.20"), ("09-19", "Zelle to BROOKLYN BOULDERS", "-145.00"),
        ("09-22", "TRANSFER TO SAVINGS SAV-00418851", "-500.00"), ("09-25", "GEICO AUTO INS", "-131.06"),
        ("09-26", "PAYROLL ACME ANALYTICS LLC DIR DEP", "3412.55"), ("09-29", "VENMO CASHOUT", "75.00"),
        ("09-30", "INTEREST PAYMENT", "0.42"), ("09-30", "MONTHLY SERVICE FEE WAIVED (DIRECT DEPOSIT)", "0.00"),
    ]
    bal = 2214.77
    out = []
    for d, desc, amt in lines:
        bal += float(amt)
        out.append({"date": f"2025-{d}", "description": desc, "amount": amt, "balance": f"{bal:.2f}"})
    return {"account_id": CHK, "period": "2025-09", "opening_balance": "2214.77", "closing_balance": f"{bal:.2f}",
            "deposits": "6930.52", "withdrawals": "-4526.10", "lines": out,
            "checks_cleared": [{"number": 1043, "payee": "BRIGHTLINE PROPERTY MGMT", "amount": "2350.00",
                                "cleared": "2025-09-03", "image_id": "IMG-CHK-1043"}],
            "apy": "0.05%", "document_id": "STMT-CHK-2025-09"}


def build() -> Traj:
    t = Traj(id="svc-card-fraud-and-rent", title="Card fraud, a dispute, and rent to a new payee with disagreeing balances",
             exercises=["the nightly transaction feed and core banking disagree about the available balance",
                        "routing and account numbers typed once and used for a payee and a transfer later",
                        "a rent transfer that times out and is resolved by a status query",
                        "a card replacement that times out and stays unresolved at the end",
                        "the rent amount corrected before the transfer; a balance floor the user set",
                        "irreversible transfers behind approvals; topic switch from card fraud to rent and back"],
             description="A credit-union member spots unknown card charges, locks the card, disputes one charge, "
                         "orders a replacement, then pays October rent to a new payee (amount corrected to include "
                         "parking) after moving money from savings, because the two balance sources disagree.",
             tools=pick("bank_list_accounts", "bank_get_transactions", "bank_get_balance", "bank_get_statement",
                        "bank_list_payees", "bank_get_login_activity", "bank_add_payee", "bank_create_transfer", "bank_get_transfer", "card_get",
                        "card_lock", "card_replace", "dispute_create", "dispute_get", "merchant_lookup"),
             seed=505, window=8192)
    r = t.rng
    t.system("You are the digital assistant of Harbor Federal Credit Union, signed in as member Hannah Okoye "
             "(member #7730412). Outgoing money movements require the member's explicit approval. Never ask for full "
             "card numbers or the online banking password.")
    t.user("Hi, I just got an alert about a charge from somewhere in Estonia?? I've never been there. Can you show me my "
           "recent credit card transactions?")
    t.do("bank_list_accounts", {},
         {"member": "7730412", "accounts": [
             {"account_id": CHK, "type": "checking", "nickname": "Everyday Checking", "last4": "8832",
              "status": "open"},
             {"account_id": SAV, "type": "savings", "nickname": "Rainy Day", "last4": "8851", "status": "open"},
             {"account_id": "CC-5521", "type": "credit_card", "nickname": "Harbor Visa Signature", "last4": "5521",
              "card_id": CARD, "status": "open"}]}, request_id="hb-ac-1001")
    t.do("bank_get_transactions", {"account_id": "CC-5521", "from": "2025-10-07", "to": "2025-10-14"}, card_txns(r),
         request_id="hb-tx-1002")
    t.asst("On your Visa ending 5521 there are two charges from 'VLT*ELECTROMART ONLINE, Tallinn EE' on Oct 12: "
           "$248.19 (TX-CC-99128114) and $1.00 (TX-CC-99128115). A $1 charge right before a larger one is a typical "
           "card-testing pattern. Everything else looks like your usual merchants in Brooklyn. There's also a pending "
           "$1,200.00 hold from Marriott Boston Copley today.")
    t.user("The Marriott is mine, that's a deposit for my sister's wedding weekend. The Estonia ones are NOT mine. "
           "Lock the card right now.")
    t.decision("d1-lock", [
        next_call("card_lock", {"card_id": CARD}, "the card id came back from the account list"),
        fact("card_id", CARD, "the card to lock, from the account list"),
    ], note="early")
    lk, _, _ = t.do("card_lock", {"card_id": CARD, "locked": True, "reason": "suspected_fraud"},
                    {"card_id": CARD, "locked": True, "locked_at": "2025-10-14T09:12:40-04:00",
                     "effect": "New purchases and cash advances declined; recurring payments from existing merchants "
                               "continue unless the card is replaced."}, idem=f"lock-{CARD}-20251014", request_id="hb-cl-2201")
    t.asst("Locked at 9:12. New purchases will be declined. Recurring charges from merchants you already use (Netflix, "
           "Spotify, Con Ed) keep working while it's only locked.")
    t.user("Is Apple Pay blocked too? I don't want them using my phone wallet somehow.")
    t.do("card_get", {"card_id": CARD},
         {"card_id": CARD, "last4": "5521", "status": "locked", "product": "Visa Signature", "expires": "08/28",
          "controls": {"international": True, "ecommerce": True, "atm": True, "contactless": True},
          "spend_limits": None, "replacement": None,
          "digital_wallets": [{"wallet": "Apple Pay", "device": "iPhone 15", "token_last4": "3390", "status": "suspended"},
                              {"wallet": "Google Pay", "device": "Chrome on MacBook", "token_last4": "7812",
                               "status": "suspended", "added": "2024-02-11"}],
          "alerts": {"purchase_over": "100.00", "international": True, "card_not_present": True}},
         request_id="hb-cg-2205")
    t.asst("Yes, both wallet tokens are suspended while the card is locked: Apple Pay on your iPhone 15 and a Google "
           "Pay token on Chrome on a MacBook (added Feb 2024). If you don't recognise that Chrome one, tell me; "
           "otherwise they resume when you unlock or get moved to the new card.")
    t.user("The Chrome one is my laptop. Ok. What is this Electromart thing anyway?")
    _, _, ml = t.do("merchant_lookup", {"transaction_id": "TX-CC-99128114"},
                    {"transaction_id": "TX-CC-99128114", "merchant": {"name": "ElectroMart OÜ", "mcc": "5732",
                                                                      "mcc_description": "Electronics stores",
                                                                      "country": "EE", "website": "electromart-shop.ee",
                                                                      "acquirer": "Vaultline Payments"},
                     "amount": "284.19", "currency": "USD", "original_amount": "244.90", "original_currency": "EUR",
                     "authorization": {"code": "81K22Q", "entry_mode": "ecommerce", "3ds": "not_attempted",
                                       "avs_result": "N (no match)", "cvv_result": "M (match)"},
                     "risk_signals": ["first transaction with merchant", "foreign ecommerce", "card-testing $1 preceding",
                                      "AVS mismatch"],
                     "reports": {"fraud_reports_30d": 37}}, request_id="hb-ml-3304")
    t.asst("It's 'ElectroMart OÜ', an online electronics shop in Estonia, with 37 other fraud reports in the last 30 "
           "days. The charge was ecommerce, no 3-D Secure, the billing address didn't match but the CVV did, which "
           "means someone has your card number and security code. One oddity: the merchant data says the amount is "
           "$284.19, while your statement shows $248.19. The original was €244.90.")
    t.user("Weird. Dispute it. Both of them. And tell me which amount they'll actually refund.")
    t.decision("d2-dispute", [
        next_call("dispute_create", {"transaction_id": "TX-CC-99128114"}, "the transaction id from the card feed"),
        next_call("dispute_create", {"transaction_id": "TX-CC-99128115"}, "the $1 test charge is disputed too"),
        tool_state("succeeded", "the card lock went through", call_id=lk, request_id="hb-cl-2201"),
    ])
    d1, _, d1r = t.do("dispute_create", {"transaction_id": "TX-CC-99128114", "reason": "fraud_card_not_present",
                                         "cardholder_statement": "I did not make or authorize this purchase. I have "
                                                                 "never done business with this merchant."},
                      {"dispute_id": "DSP-2025-10-44718", "transaction_id": "TX-CC-99128114", "status": "open",
                       "amount": "248.19", "provisional_credit": {"amount": "248.19", "posted": "2025-10-14"},
                       "network": "Visa", "reason_code": "10.4", "expected_resolution_by": "2025-12-13"},
                      idem="dsp-TX-CC-99128114", request_id="hb-ds-4410")
    d2, _, _ = t.do("dispute_create", {"transaction_id": "TX-CC-99128115", "reason": "fraud_card_not_present",
                                       "cardholder_statement": "Card-testing charge; not authorized."},
                    {"dispute_id": "DSP-2025-10-44719", "transaction_id": "TX-CC-99128115", "status": "open",
                     "amount": "1.00", "provisional_credit": {"amount": "1.00", "posted": "2025-10-14"},
                     "network": "Visa", "reason_code": "10.4", "expected_resolution_by": "2025-12-13"},
                    idem="dsp-TX-CC-99128115", request_id="hb-ds-4411")
    t.asst("Both disputed under Visa reason 10.4 (card-not-present fraud): DSP-2025-10-44718 for $248.19 and "
           "DSP-2025-10-44719 for $1.00. The dispute system uses the posted amount, $248.19, and has already given you "
           "provisional credit for both. The $284.19 in the merchant data looks like a transposed figure on their side; "
           "what you were charged, and get back, is $248.19. Expected resolution by Dec 13.")
    t.user("Were there any other weird little charges before this? Check September too.")
    rows = [{"transaction_id": tid, "date": d, "description": desc, "merchant_location": loc, "amount": amt,
             "status": "posted"} for d, tid, desc, loc, amt in SEPT_CARD]
    t.do("bank_get_transactions", {"account_id": "CC-5521", "from": "2025-09-01", "to": "2025-09-30"},
         {"account_id": "CC-5521", "card_id": CARD, "currency": "USD", "period": {"from": "2025-09-01", "to": "2025-09-30"},
          "transactions": rows, "statement_balance": "1650.00"}, request_id="hb-tx-1004")
    t.asst("One: 'VLT*EMRT TEST SVC, Tallinn EE' for $0.99 on Sept 28 (TX-CC-98990017). Same payment processor "
           "(VLT = Vaultline) and same country as ElectroMart, two weeks earlier: almost certainly the first test of "
           "your card. Everything else in September matches your usual spending (the Delta and StubHub charges look "
           "like your trips and tickets; tell me if not).")
    t.user("Delta and StubHub are mine. Dispute the 99 cent one too.")
    d3, _, _ = t.do("dispute_create", {"transaction_id": "TX-CC-98990017", "reason": "fraud_card_not_present",
                                       "cardholder_statement": "Card-testing charge; same fraud as DSP-2025-10-44718."},
                    {"dispute_id": "DSP-2025-10-44725", "transaction_id": "TX-CC-98990017", "status": "open",
                     "amount": "0.99", "provisional_credit": {"amount": "0.99", "posted": "2025-10-14"},
                     "network": "Visa", "reason_code": "10.4", "linked_cases": ["DSP-2025-10-44718", "DSP-2025-10-44719"]},
                    idem="dsp-TX-CC-98990017", request_id="hb-ds-4416")
    t.asst("Disputed: DSP-2025-10-44725 for $0.99, linked to the other two cases.")
    t.user("Could someone have gotten into my online banking too? That's what scares me.")
    logins = []
    devs = [("iPhone 15 / Harbor app 6.12", "Brooklyn, NY", "72.229.x.x"), ("Chrome 129 / macOS", "Brooklyn, NY", "72.229.x.x"),
            ("iPhone 15 / Harbor app 6.12", "New York, NY", "172.56.x.x"), ("Chrome 129 / macOS", "Boston, MA", "66.31.x.x")]
    import datetime as _dt
    for i in range(15):
        dv, loc, ip = devs[0] if i % 3 else devs[1]
        if i in (5, 11):
            dv, loc, ip = devs[2]
        if i == 13:
            dv, loc, ip = devs[3]
        day = _dt.date(2025, 10, 14) - _dt.timedelta(days=2 * i)
        logins.append({"at": f"{day.isoformat()}T{r.randint(7, 23):02d}:{r.randint(0, 59):02d}:00-04:00",
                       "device": dv, "location": loc, "ip": ip, "method": "face_id" if "iPhone" in dv else "password+otp",
                       "result": "success"})
    logins.insert(1, {"at": "2025-10-12T03:14:09-04:00", "device": "Firefox 115 / Windows", "location": "Riga, LV",
                      "ip": "185.22.x.x", "method": "password", "result": "failed_otp", "attempts": 3})
    t.do("bank_get_login_activity", {"days": 30},
         {"member": "7730412", "sessions": logins, "failed_attempts_30d": 3,
          "password_last_changed": "2024-11-02", "two_factor": "sms_otp"}, request_id="hb-la-0091")
    t.asst("Every successful sign-in in the last 30 days is from your iPhone or your Mac (Brooklyn and Manhattan), "
           "plus one from Boston in mid-September. But on Oct 12 at 3:14am someone tried from Riga, Latvia, on "
           "Firefox/Windows: the password was accepted and the SMS code failed three times. So they know your online "
           "banking password. Change it now and switch two-factor from SMS to the app's passkey if you can.")
    t.user("Boston was me, my sister's. Riga was NOT. Changing the password right now. Wow.")
    t.asst("Good. Use a new password you don't use anywhere else: the same people who had your card may have it from "
           "another site's breach. After you change it, sign out other sessions under Security.")
    t.user("Done. Ok. Send me a new card, the number is compromised.")
    rp, _, _ = t.do("card_replace", {"card_id": CARD, "reason": "compromised", "shipping": "standard",
                                     "address": "on_file"}, None, "timeout", idem=f"replace-{CARD}-20251014",
                    error={"code": "UPSTREAM_TIMEOUT", "message": "card processor did not respond (45 s)"})
    t.asst("The replacement request timed out at the card processor, so I don't know whether a new card was ordered. "
           "I'll check before trying again; ordering twice would cancel the first new card.")
    t.user("Fine, later. Now the thing I actually logged in for: rent. My landlord switched to bank transfer. Brightline "
           f"Property Management, routing {ROUTING}, account {LL_ACCT}. $2,350 for October, memo 'Unit 4B October rent'.")
    t.topic_switch("rent payment", previous="card fraud")
    t.fact("payee_routing_number", ROUTING, subject={"payee": "Brightline Property Management"})
    t.fact("payee_account_number", LL_ACCT, subject={"payee": "Brightline Property Management"})
    t.fact("rent_amount", "2350.00")
    floor = t.user("Oh and only send it if I still have at least $1,000 left in checking afterwards. I have car "
                   "insurance coming out.")
    t.fact("min_checking_balance_after", "1000.00", subject={"account_id": CHK})
    t.do("bank_list_payees", {},
         {"payees": [{"payee_id": "py_1103", "name": "Con Edison", "type": "biller"},
                     {"payee_id": "py_1107", "name": "Maya Chen", "type": "zelle", "token": "maya.c***@gmail.com"},
                     {"payee_id": "py_1110", "name": "GEICO", "type": "biller"},
                     {"payee_id": "py_1121", "name": "Brooklyn Boulders", "type": "zelle"}]}, request_id="hb-py-5001")
    t.asst("Brightline isn't a saved payee yet, so I'll add it. For the $1,000 cushion, let me check checking first.")
    _, _, feed = t.do("bank_get_transactions", {"account_id": CHK, "from": "2025-09-15", "to": "2025-10-14"},
                      chk_txns(r), request_id="hb-tx-1009")
    t.asst("Checking (****8832) shows an available balance of $3,480.12 as of this morning's feed. After $2,350 you'd "
           "have $1,130.12, above your $1,000 floor. Adding the payee now.")
    t.user("Great, go ahead.")
    py, _, _ = t.do("bank_add_payee", {"name": "Brightline Property Management", "routing_number": ROUTING,
                                       "account_number": LL_ACCT, "account_type": "checking", "nickname": "Rent"},
                    {"payee_id": "py_1134", "name": "Brightline Property Management", "bank_name": "JPMORGAN CHASE BANK, NA",
                     "routing_number": ROUTING, "account_last4": "7765", "status": "active",
                     "verification": "name match: likely (BRIGHTLINE PROPERTY MGMT LLC)"},
                    idem=f"payee-{ROUTING}-{LL_ACCT}", request_id="hb-py-5012")
    t.asst("Added: payee py_1134, Brightline Property Management at JPMorgan Chase, account ending 7765; the name "
           "check says it likely matches 'BRIGHTLINE PROPERTY MGMT LLC'.")
    t.user("Wait, I just checked the landlord's email. They added the $45 parking fee this month. So it's $2,395.00, "
           "not $2,350.")
    t.correction("rent_amount", "2395.00", replaces="2350.00")
    t.asst("Got it, $2,395.00. That would leave $1,085.12 per the feed, still above $1,000. But the feed is from 6am; "
           "the Marriott hold might affect checking if your card payment autopay is set up. Let me get the real-time "
           "balance before sending.")
    _, _, bal1 = t.do("bank_get_balance", {"account_id": CHK},
                      {"account_id": CHK, "ledger_balance": "3480.12", "available_balance": "2280.12",
                       "holds": [{"hold_id": "HLD-88310", "amount": "1200.00", "type": "debit_card_authorization",
                                  "description": "MARRIOTT BOSTON COPLEY", "card_last4": "0917",
                                  "placed": "2025-10-14T08:51:02-04:00", "expires": "2025-10-21"}],
                       "as_of": "2025-10-14T09:31:18-04:00", "source": "core"}, request_id="hb-bl-6001")
    t.asst("Real-time core banking disagrees with the feed: available is $2,280.12, not $3,480.12, because of a "
           "$1,200 hold from Marriott Boston Copley on your debit card ending 0917 (placed 8:51 this morning). So "
           "after $2,395 you'd be at -$114.88, below your $1,000 floor and overdrawn. Did you pay the Marriott deposit "
           "with your debit card rather than the Visa? There's also a pending $1,200 from Marriott on the Visa.")
    t.user("Ugh, the hotel probably charged both cards, I gave them the Visa but they had my debit card from last "
           "year. Whatever. Move $1,500 from savings to checking first, then send the rent.")
    t.decision("d3-balances", [
        evidence([bal1], "the core banking reading with the hold"),
        evidence([feed], "the nightly feed's balance that disagrees"),
        constraint(floor, "at least $1,000 left in checking", "the floor decides whether rent can go out"),
        fact("rent_amount", "2395.00", "the amount includes the $45 parking fee", superseded=["2350.00"]),
        fact("available_balance", "2280.12", "core banking's real-time figure is current, not the feed's",
             subject=f"account_id={CHK}", superseded=["3480.12"]),
    ])
    x1, x1c = t.call("bank_create_transfer", {"from_account_id": SAV, "to_account_id": CHK, "amount": "1500.00",
                                              "type": "internal", "memo": "cover rent"},
                     idem="xfer-SAV-CHK-1500-20251014")
    t.approval("apr-internal-1500", "requested", x1c, action="Transfer $1,500.00 from Rainy Day savings to checking")
    t.asst("Step 1: move $1,500.00 from Rainy Day savings (****8851) to Everyday Checking (****8832), instant. "
           "Approve?")
    t.user("Yes.")
    t.approval("apr-internal-1500", "granted", x1c)
    t.result(x1, "succeeded", {"transfer_id": "TRF-INT-7730-2291", "status": "completed", "amount": "1500.00",
                               "completed_at": "2025-10-14T09:36:02-04:00",
                               "balances_after": {SAV: "6204.77", CHK: "3780.12"}}, request_id="hb-tr-7001")
    t.asst("Done: TRF-INT-7730-2291. Checking available is now $3,780.12; after rent of $2,395.00 it would be "
           "$1,385.12.")
    x2, x2c = t.call("bank_create_transfer", {"from_account_id": CHK, "payee_id": "py_1134", "amount": "2395.00",
                                              "type": "ach_same_day", "memo": "Unit 4B October rent"},
                     idem="xfer-CHK-py_1134-2395-202510")
    t.approval("apr-rent-2395", "requested", x2c,
               action="Send $2,395.00 to Brightline Property Management (****7765), same-day ACH")
    t.asst("Step 2: send $2,395.00 from checking to Brightline Property Management (Chase ****7765), same-day ACH, "
           "memo 'Unit 4B October rent'. Leaves $1,385.12. This can't be recalled once sent. Approve?")
    t.user("Before I approve — is same-day ACH free? Last time I paid a fee for something.")
    t.decision("d4-fee-question", [
        pending("the rent transfer approval is still open", approval_id="apr-rent-2395"),
        fact("payee_id", "py_1134", "the new payee id for the rent transfer"),
        constraint(floor, "only send it if I still have at least $1,000", "still satisfied after the savings move"),
    ])
    t.asst("Same-day ACH is free for Harbor members up to $5,000 per day; the fee you remember was probably the "
           "$25 outgoing wire fee. Standard ACH (1-2 days) is also free, but rent is due today so same-day makes sense.")
    t.user("OK approve it.")
    t.approval("apr-rent-2395", "granted", x2c)
    x2r = t.result(x2, "timeout", error={"code": "ACH_GATEWAY_TIMEOUT", "message": "no response from ACH origination service within 60 s"})
    t.asst("The rent transfer timed out at the ACH origination service. It may or may not have been submitted. I "
           "won't resend it, because a duplicate would send another $2,395.00. I'll check its status.")
    t.user("Oh no. Ok, check in a minute. Back to the card: did the replacement go through?")
    t.topic_switch("card fraud", previous="rent payment")
    t.decision("d5-two-unknowns", [
        tool_state("unknown", "the rent transfer timed out: not done, not failed", call_id=x2),
        tool_state("unknown", "the card replacement timed out and is unchecked", call_id=rp),
        pending("the rent transfer is unresolved", call_id=x2),
        next_call("card_get", {"card_id": CARD}, "checking the replacement needs the card id from the start"),
    ])
    t.do("card_get", {"card_id": CARD},
         {"card_id": CARD, "last4": "5521", "status": "locked", "product": "Visa Signature", "expires": "08/28",
          "controls": {"international": True, "ecommerce": True, "atm": True},
          "replacement": None, "digital_wallets": [{"wallet": "Apple Pay", "device": "iPhone 15", "status": "suspended"}],
          "recent_declines": [{"time": "2025-10-14T09:40:11-04:00", "merchant": "VLT*ELECTROMART ONLINE",
                               "amount": "612.00", "reason": "card_locked"}]}, request_id="hb-cg-2240")
    t.asst("The card record doesn't show a replacement yet, which may just mean the processor hasn't synced. Note "
           "that the lock already paid off: ElectroMart tried another $612.00 at 9:40 and it was declined. I'd rather "
           "not reorder until the processor answers. Let me check the rent transfer now.")
    t.do("bank_get_transfer", {"transfer_id": "xfer-CHK-py_1134-2395-202510"},
         {"lookup": "by_idempotency_key", "transfer_id": "TRF-ACH-7730-2298", "status": "submitted",
          "amount": "2395.00", "payee_id": "py_1134", "effective_date": "2025-10-14", "batch": "SD2-1430",
          "trace_number": "021000028831240"}, request_id="hb-tr-7020")
    sq = t.status_query(x2, "succeeded", request_id="hb-tr-7020",
                        result={"transfer_id": "TRF-ACH-7730-2298", "status": "submitted", "trace_number": "021000028831240"})
    t.asst("The rent did go out: TRF-ACH-7730-2298, $2,395.00, submitted in today's 2:30pm same-day batch, trace "
           "021000028831240. Brightline should see it this afternoon. No resend needed.")
    t.user("Phew. What's my checking balance now, for real?")
    _, _, bal2 = t.do("bank_get_balance", {"account_id": CHK},
                      {"account_id": CHK, "ledger_balance": "4980.12", "available_balance": "1385.12",
                       "holds": [{"hold_id": "HLD-88310", "amount": "1200.00", "type": "debit_card_authorization",
                                  "description": "MARRIOTT BOSTON COPLEY", "card_last4": "0917",
                                  "expires": "2025-10-21"},
                                 {"hold_id": "HLD-88327", "amount": "2395.00", "type": "ach_origination",
                                  "description": "ACH TO BRIGHTLINE PROPERTY MGMT", "expires": None}],
                       "as_of": "2025-10-14T09:52:40-04:00", "source": "core"}, request_id="hb-bl-6014")
    t.asst("Available is $1,385.12 right now: ledger $4,980.12 minus the $2,395 rent (pending) and the $1,200 "
           "Marriott hold on the debit card. So you're above your $1,000 cushion, and once the hotel releases the "
           "duplicate hold you'll be at $2,585.12. Your GEICO payment ($131.06 last month) usually comes around the 25th.")
    t.user("Ok. Did the old rent check actually clear in September? The landlord says they never got September rent.")
    t.do("bank_get_statement", {"account_id": CHK, "period": "2025-09"}, chk_statement(r), request_id="hb-st-8090")
    t.asst("It did: check #1043 to BRIGHTLINE PROPERTY MGMT for $2,350.00 cleared on Sept 3 (statement "
           "STMT-CHK-2025-09, check image IMG-CHK-1043), so you can send them that image as proof. Something else: "
           "the recent activity also shows check #1044 to Brightline for $2,350.00, debited on Oct 1.")
    t.user("Oh god. #1044 must be my October check, I mailed it before they switched to transfers. So did I just pay "
           "October twice?")
    t.asst("It looks like it: if #1044 was October rent, Brightline already has October, and today's $2,395 is a "
           "second payment (plus parking). We can't recall the ACH now that it's submitted, but Brightline can refund "
           "it or apply it to November. I'd call them today with both references: check #1044 debited Oct 1 and ACH "
           "trace 021000028831240.")
    t.user("Show me every payment to Brightline this year so I have it all in one place for the call.")
    pays = []
    for mth in range(1, 11):
        num = 1034 + mth
        if mth == 10:
            pays.append({"date": "2025-10-01", "type": "check", "check_number": 1044, "amount": "2350.00",
                         "status": "cleared", "image_id": "IMG-CHK-1044"})
            pays.append({"date": "2025-10-14", "type": "ach_same_day", "transfer_id": "TRF-ACH-7730-2298",
                         "amount": "2395.00", "status": "submitted", "memo": "Unit 4B October rent"})
        else:
            pays.append({"date": f"2025-{mth:02d}-0{r.randint(1, 4)}", "type": "check", "check_number": num,
                         "amount": "2350.00" if mth > 6 else "2275.00", "status": "cleared",
                         "image_id": f"IMG-CHK-{num}"})
    t.do("bank_get_transactions", {"account_id": CHK, "from": "2025-01-01", "to": "2025-10-14",
                                   "query": "BRIGHTLINE"},
         {"account_id": CHK, "query": "BRIGHTLINE", "matches": pays, "count": len(pays),
          "total": f"{sum(float(x['amount']) for x in pays):.2f}"}, request_id="hb-tx-1012")
    t.asst("Payments to Brightline in 2025: one check a month from January (checks #1035 to #1043; $2,275.00 until "
           "June, $2,350.00 from July), then in October both check #1044 ($2,350.00, debited Oct 1, image "
           "IMG-CHK-1044) and today's ACH TRF-ACH-7730-2298 ($2,395.00). So October is paid twice, unless #1044 was "
           "meant for something else.")
    t.user("I'll call them. Let's hope they apply it to November. Ok. But that Marriott hold is a duplicate. Can you "
           "get it released?")
    t.asst("Only the merchant can release an authorization hold early; otherwise it drops off on its own by Oct 21. "
           "Call Marriott Boston Copley and ask them to void the authorization on the debit card ending 0917, since "
           "the deposit is also on your Visa. If they do, it usually disappears within a day.")
    for q, a in [
        ("How do I freeze my credit? You mentioned it.",
         "It's free and done directly with each of the three bureaus: Equifax, Experian and TransUnion, on their "
         "websites or apps. Each gives you a PIN or account to lift the freeze later, for example when you apply for "
         "a loan. A freeze stops new accounts being opened in your name; it doesn't affect your existing cards or "
         "your score. Given the Riga sign-in attempt, I'd do it today."),
        ("And what about the debit card? The Marriott had that number too.",
         "The debit card ending 0917 shows no unusual activity: the only new item is the Marriott hold. The fraud "
         "pattern is on the Visa. If you want to be safe I can lock the debit card too, but then your ATM and "
         "Zelle-to-card features stop until you unlock it. Since Marriott has the number legitimately, I'd leave it "
         "and watch it."),
        ("Leave it. Will the dispute hurt my credit score?",
         "No. Disputes aren't reported to the credit bureaus, and the provisional credit means the fraudulent "
         "charges aren't part of your balance while the case is open."),
        ("What happens if Visa decides against me?",
         "For fraud with a locked card and a clear pattern like this, that's rare. If the merchant provides "
         "evidence, we'd notify you and you could respond within 10 days; the provisional credit is only reversed "
         "after a final decision."),
        ("Do I need to do anything else for the fraud?",
         "Update the card on any subscriptions once the new card arrives, check that your email and phone on file are "
         "current, and consider a credit freeze if you think more than the card was exposed. We'll never call you to "
         "ask for your card number."),
    ]:
        t.user(q)
        t.asst(a)
    maya = t.user("Maya just sent me a Zelle request for $64.50 for the concert tickets. Pay it, as long as I'm still "
                  "over my thousand.")
    z, zc = t.call("bank_create_transfer", {"from_account_id": CHK, "payee_id": "py_1107", "amount": "64.50",
                                            "type": "zelle", "memo": "concert tickets", "request_id": "ZR-55190"},
                   idem="zelle-py_1107-6450-ZR-55190")
    t.approval("apr-zelle-6450", "requested", zc, action="Zelle $64.50 to Maya Chen")
    t.asst("Checking is at $1,385.12 available, so paying $64.50 leaves $1,320.62, still over $1,000. Zelle $64.50 "
           "to Maya Chen for 'concert tickets' (her request ZR-55190). Zelle payments can't be cancelled. Approve?")
    t.user("Yes.")
    t.approval("apr-zelle-6450", "granted", zc)
    t.result(z, "succeeded", {"transfer_id": "TRF-ZEL-7730-2305", "status": "completed", "amount": "64.50",
                              "recipient": "Maya Chen", "completed_at": "2025-10-14T10:12:55-04:00"},
             request_id="hb-tr-7031")
    t.asst("Paid: TRF-ZEL-7730-2305, $64.50 to Maya.")
    t.user("How are the disputes looking, anything needed from me?")
    t.do("dispute_get", {"dispute_id": "DSP-2025-10-44718"},
         {"dispute_id": "DSP-2025-10-44718", "transaction_id": "TX-CC-99128114", "status": "open",
          "stage": "chargeback_filed", "amount": "248.19", "network_case": "VISA-CB-5520918833",
          "timeline": [{"at": "2025-10-14T09:19:02-04:00", "event": "Dispute opened by cardholder via digital assistant"},
                       {"at": "2025-10-14T09:19:03-04:00", "event": "Provisional credit of 248.19 posted"},
                       {"at": "2025-10-14T09:40:11-04:00", "event": "Related decline: 612.00 at same merchant (card locked)"},
                       {"at": "2025-10-14T09:55:30-04:00", "event": "Fraud analyst review: confirmed pattern, no cardholder documents needed"},
                       {"at": "2025-10-14T09:55:31-04:00", "event": "Chargeback filed with Visa, reason 10.4"}],
          "cardholder_action_required": False, "merchant_response_due": "2025-11-13",
          "notes": "Linked cases DSP-2025-10-44719, DSP-2025-10-44725. Card replacement recommended."},
         request_id="hb-ds-4430")
    t.asst("The main case is already a chargeback with Visa (VISA-CB-5520918833). A fraud analyst confirmed the pattern "
           "and no documents are needed from you. The merchant has until Nov 13 to respond. They note a card "
           "replacement is recommended, which is the one request we're still waiting on.")
    t.user("When the new card comes, what will I need to update? List everything that charges the Visa regularly.")
    subs = [("NETFLIX.COM", "15.49", "monthly", "2025-10-11"), ("SPOTIFY USA", "11.99", "monthly", "2025-10-08"),
            ("GOOGLE *CLOUD STORAGE", "2.99", "monthly", "2025-10-10"), ("APPLE.COM/BILL", "2.99", "monthly", "2025-09-16"),
            ("CON ED OF NY", "88.77-96.31", "monthly", "2025-10-08"), ("STEAMGAMES.COM", "89.99", "irregular", "2025-10-09"),
            ("AMZN Prime", "14.99", "monthly", "2025-09-19"), ("NYT DIGITAL", "4.00", "4 weeks", "2025-10-02"),
            ("PELOTON APP", "12.99", "monthly", "2025-09-30"), ("MTA OMNY AUTOFILL", "34.00", "irregular", "2025-09-11"),
            ("EZPASS NY REPLENISH", "25.00", "irregular", "2025-08-27"), ("AUDIBLE", "14.95", "monthly", "2025-09-21")]
    t.do("bank_get_transactions", {"account_id": "CC-5521", "from": "2025-04-01", "to": "2025-10-14",
                                   "recurring_only": True},
         {"account_id": "CC-5521", "recurring_merchants": [
             {"merchant": m, "typical_amount": a, "frequency": f, "last_charge": lc,
              "continues_after_replacement": m not in ("STEAMGAMES.COM",),
              "card_updater": m in ("NETFLIX.COM", "SPOTIFY USA", "APPLE.COM/BILL", "AMZN Prime", "AUDIBLE")}
             for m, a, f, lc in subs],
          "note": "Visa Account Updater sends the new card number to participating merchants automatically."},
         request_id="hb-tx-1020")
    t.asst("Twelve recurring merchants on the Visa. Netflix, Spotify, Apple, Amazon Prime and Audible get the new "
           "number automatically through Visa Account Updater. Update these yourself: Con Ed, Google Cloud Storage, "
           "NYT, Peloton, the OMNY autofill and E-ZPass replenishment. Steam charges only when you buy, so update it "
           "next time.")
    t.user("Did the card processor answer about the new card yet?")
    t.decision("d6-card-still-open", [
        tool_state("unknown", "the replacement is still unresolved; the card record showed no replacement yet",
                   call_id=rp),
        tool_state("succeeded", "the rent transfer's status query found it submitted", call_id=x2,
                   request_id="hb-tr-7020"),
        fact("dispute_id", "DSP-2025-10-44718", "the dispute of the $248.19 charge",
             subject="transaction_id=TX-CC-99128114"),
        constraint(maya, "as long as I'm still over my thousand", "the Zelle payment was conditional"),
    ])
    t.asst("Not yet: there's still no replacement on the card record, and the processor hasn't confirmed the "
           "request. I'd suggest we wait rather than reorder; I'll check the processor again shortly.")
    t.user("Show me the October statement so far for the Visa so I can see what's left to pay.")
    t.do("bank_get_statement", {"account_id": "CC-5521", "period": "2025-10", "to_date": "2025-10-14"},
         {"account_id": "CC-5521", "period": "2025-10-01..2025-10-14", "previous_balance": "1650.00",
          "payments": "-1650.00", "purchases": "1988.07", "credits": "-250.18", "fees": "0.00", "interest": "0.00",
          "current_balance": "1737.89", "pending": "1200.00", "minimum_due": "40.00", "due_date": "2025-11-05",
          "available_credit": "6062.11", "autopay": {"enabled": True, "from_account": CHK, "amount": "statement_balance"},
          "disputes_open": ["DSP-2025-10-44718", "DSP-2025-10-44719", "DSP-2025-10-44725"],
          "rewards": {"points_earned": 1988, "points_balance": 44120}}, request_id="hb-st-8101")
    t.asst("Visa so far in October: purchases $1,988.07, the $250.18 of provisional dispute credits, current balance "
           "$1,737.89 with $1,200.00 pending (Marriott). Minimum $40 due Nov 5. Autopay is on for the statement "
           "balance from checking, so make sure checking can cover it once the Marriott charge posts.")
    t.user("Good point. Ok, wrap up everything we did today, with reference numbers.")
    t.decision("d7-wrap-up", [
        evidence([x2c, x2r], "the irreversible rent transfer and its timeout, verbatim"),
        tool_state("unknown", "the replacement card is still unknown at the end", call_id=rp),
        fact("rent_amount", "2395.00", "the wrap-up reports the corrected amount", superseded=["2350.00"]),
        fact("trace_number", "021000028831240", "the ACH trace number for the landlord"),
        constraint(floor, "$1,000", "the wrap-up confirms the cushion held"),
    ], note="late: the payee and amounts are 60+ events old")
    t.asst("Today:\n- Visa ****5521 locked (9:12). Disputes DSP-2025-10-44718 ($248.19), DSP-2025-10-44719 ($1.00) "
           "and DSP-2025-10-44725 ($0.99, the September test charge): provisional credit given, chargeback filed; a "
           "further $612 attempt was declined. Replacement card: the request timed out and is still not confirmed, so "
           "don't assume it's ordered.\n- Payee py_1134 Brightline Property Management (Chase ****7765) added.\n- "
           "$1,500.00 savings to checking (TRF-INT-7730-2291).\n- Rent $2,395.00 (incl. $45 parking) sent same-day "
           "ACH: TRF-ACH-7730-2298, trace 021000028831240. Ask Brightline to apply it to November if check #1044 "
           "was October's rent.\n- Zelle $64.50 to Maya (TRF-ZEL-7730-2305).\n- Checking available $1,320.62, "
           "above your $1,000 cushion; $2,520.62 once the duplicate Marriott debit hold ($1,200, HLD-88310) is released.")
    t.user("Thanks. I'll call Marriott and Brightline now.")
    t.asst("Good luck. I'll keep an eye on the replacement card request.")
    t.user("Back. Marriott says they voided the debit card hold. And Brightline will apply today's payment to "
           "November, so that's sorted. Does the balance show it?")
    t.fact("brightline_ach_applied_to", "November 2025 rent", subject={"transfer_id": "TRF-ACH-7730-2298"})
    _, _, bal3 = t.do("bank_get_balance", {"account_id": CHK},
                      {"account_id": CHK, "ledger_balance": "4915.62", "available_balance": "2520.62",
                       "holds": [{"hold_id": "HLD-88327", "amount": "2395.00", "type": "ach_origination",
                                  "description": "ACH TO BRIGHTLINE PROPERTY MGMT", "expires": None}],
                       "released_holds": [{"hold_id": "HLD-88310", "amount": "1200.00",
                                           "released": "2025-10-14T11:02:19-04:00", "by": "merchant void"}],
                       "as_of": "2025-10-14T11:05:02-04:00", "source": "core"}, request_id="hb-bl-6031")
    t.asst("Yes: the Marriott hold HLD-88310 was released at 11:02 by the merchant. Available is now $2,520.62 "
           "(ledger $4,915.62 less the $2,395 rent in flight). And noted that Brightline applies TRF-ACH-7730-2298 to "
           "November.")
    t.user("Should I move the $1,500 back to savings then?")
    t.asst("You could: $2,520.62 minus $1,500 leaves $1,020.62, just over your $1,000 cushion, but the Visa autopay "
           "takes the full statement balance from checking on Nov 5 (currently $1,737.89, plus the $1,200 Marriott "
           "charge once it posts), and your paycheck lands around Oct 24. I'd wait until after payday.")
    t.user("Fair, I'll wait. What rate is savings earning, anyway?")
    t.asst("Rainy Day savings earns 0.05% APY, which is low. Harbor's 12-month certificate pays 4.10% APY and the "
           "Money Market account 3.25% on balances over $2,500; I can't open accounts from here, but you can in the app "
           "under Open an Account, or I can tell you what each requires.")
    t.user("Maybe next week. Last check on the new card?")
    t.decision("d8-end", [
        next_call("card_get", {"card_id": CARD}, "checking the replacement needs the card id from the start"),
        tool_state("unknown", "the replacement is still unresolved at the end of the session", call_id=rp),
        fact("available_balance", "2520.62", "a third reading after the hold release", subject=f"account_id={CHK}",
             superseded=["3480.12"]),
        evidence([bal1, bal3], "the hold and its release"),
    ], note="the replacement card outcome is never resolved")
    t.asst("Still nothing from the card processor: no replacement on the card record, and the request's outcome is "
           "unknown. Your card stays locked, so it's safe. If nothing shows by tomorrow morning, I'd call member "
           "services (not reorder here) so they can see whether the first request went through.")
    return t
