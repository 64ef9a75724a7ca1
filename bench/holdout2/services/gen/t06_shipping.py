"""06: logistics/shipping: a small store's shipping morning (labels, tracking, redirects, returns, refunds)."""

from lib import Traj, constraint, evidence, fact, next_call, pending, tool_state
from tools import pick

FILENAME = "06_store-shipping-desk.jsonl"
TRK_77 = "1Z8V41X20393318856"
FROM = {"name": "Fernwood Ceramics", "street1": "2130 SE Division St", "city": "Portland", "state": "OR",
        "zip": "97202", "country": "US", "phone": "+1 503 555 0147"}

ORDERS = [
    ("FW-10482", "Elena Ruiz", "1408 Cedar Bend Dr", "Austin", "TX", "78758", "Speckled dinner set (4)", 6.2, "12x12x10", "standard", "128.00"),
    ("FW-10483", "Dev Patel", "55 Water St Apt 12C", "Brooklyn", "NY", "11201", "Moss glaze mug x2", 2.1, "8x8x6", "standard", "64.00"),
    ("FW-10484", "Grace Liu", "3920 Fremont Ave N", "Seattle", "WA", "98103", "Serving bowl, large", 4.4, "14x14x8", "standard", "96.00"),
    ("FW-10485", "Tom Becker", "77 Old Mill Rd", "Stowe", "VT", "05672", "Planter set (3)", 9.8, "16x12x12", "standard", "142.00"),
    ("FW-10486", "Amara Okafor", "2201 N Halsted St Apt 48", "Chicago", "IL", "60614", "Bud vases (5)", 1.9, "10x8x6", "standard", "75.00"),
    ("FW-10487", "Sam Whitaker", "9 Harbor View Ln", "Camden", "ME", "04843", "Espresso cups (6)", 1.6, "8x8x6", "expedited", "88.00"),
    ("FW-10488", "Noor Haddad", "610 W 46th St Apt 3F", "New York", "NY", "10036", "Pasta bowls (4)", 5.3, "12x12x8", "standard", "112.00"),
    ("FW-10489", "Lily Chen", "1702 Mission St Unit 5", "San Francisco", "CA", "94103", "Teapot", 2.7, "10x10x10", "standard", "84.00"),
    ("FW-10490", "Kai Nakamura", "45-120 Kaneohe Bay Dr", "Kaneohe", "HI", "96744", "Dinner set (6) + platter", 11.4, "18x14x12", "standard", "236.00"),
]


def awaiting():
    out = []
    for oid, name, street, city, st, z, item, lb, dims, svc, total in ORDERS:
        out.append({"order_id": oid, "order_date": "2025-10-13" if oid < "FW-10486" else "2025-10-14",
                    "ship_to": {"name": name, "street1": street, "city": city, "state": st, "zip": z, "country": "US"},
                    "items": [{"title": item, "qty": 1}], "package": {"weight_lb": lb, "dims_in": dims},
                    "requested_service": svc, "order_total": total, "status": "awaiting_shipment",
                    "tags": ["fragile"] + (["gift"] if oid in ("FW-10487", "FW-10489") else [])})
    return {"store": "fernwood-ceramics", "filter": "awaiting_shipment", "count": len(out), "orders": out}


def rates(oid, lb, z, base):
    rows = [("UPS", "Ground", 4, 1.00), ("UPS", "3 Day Select", 3, 1.55), ("UPS", "2nd Day Air", 2, 2.30),
            ("USPS", "Ground Advantage", 5, 0.92), ("USPS", "Priority Mail", 3, 1.18), ("USPS", "Priority Mail Express", 2, 2.85),
            ("FedEx", "Home Delivery", 4, 1.04), ("FedEx", "Express Saver", 3, 1.70), ("FedEx", "2Day", 2, 2.42)]
    out = []
    for car, svc, days, mult in rows:
        out.append({"rate_id": f"rt_{oid[-5:]}_{car[:2].lower()}{svc[:3].lower().replace(' ', '')}", "carrier": car,
                    "service": svc, "est_days": days, "amount": f"{base * mult:.2f}", "currency": "USD",
                    "insurance_included_to": "100.00" if car != "USPS" or "Priority" in svc else "0.00",
                    "surcharges": ({"residential": "5.65"} if car in ("UPS", "FedEx") else {})})
    return {"order_id": oid, "from_zip": "97202", "to_zip": z, "weight_lb": lb, "rates": out,
            "cheapest": min(out, key=lambda x: float(x["amount"]))["rate_id"]}


def build() -> Traj:
    t = Traj(id="svc-store-shipping-desk", title="A ceramics shop's shipping desk: labels, a rescinded delivery scan, redirect, return",
             exercises=["the shipping platform and the carrier disagree about a parcel's status, settled by a later scan",
                        "a label purchase that times out and is resolved by a status query instead of a second purchase",
                        "a redirect that times out and is never resolved during the session",
                        "a corrected apartment number typed once and needed for the redirect",
                        "a refund amount corrected before the irreversible refund; a label-spend rule set by the owner",
                        "topic switch from label buying to a customer complaint and back"],
             description="The owner of a small ceramics store works through the morning's shipments with the store's "
                         "operations assistant: rates and labels under a spending rule, a customer whose parcel shows "
                         "delivered on the platform but not at the carrier, an address correction in transit, a "
                         "return with a partial refund, and a carrier pickup.",
             tools=pick("shipments_list", "shipment_track", "carrier_track", "order_get", "address_validate",
                        "shipment_redirect", "rates_get", "label_create", "label_void", "return_create", "return_get",
                        "pickup_schedule", "refund_issue"),
             seed=606)
    r = t.rng
    t.system("You are the operations assistant of Fernwood Ceramics (Portland, OR), connected to the store, the "
             "shipping platform (ShipDesk) and the carriers' APIs. Buying labels and issuing refunds spend money and "
             "cannot be undone.")
    t.user("Morning! Let's get today's orders out. What's waiting?")
    t.do("shipments_list", {"status": "awaiting_shipment"}, awaiting(), request_id="sd-l-10021")
    t.asst("Nine orders are waiting: FW-10482 to FW-10490. Seven are standard within the lower 48; FW-10487 (Camden, "
           "ME) asked for expedited, and FW-10490 to Kaneohe, Hawaii is the heavy one (11.4 lb dinner set + platter). "
           "Two are gifts (FW-10487, FW-10489).")
    rule = t.user("Rule for today: buy labels for anything under $20 without asking me, cheapest option that gets "
                  "there within 5 days. Anything $20 or more, ask me first. And always insure the dinner sets.")
    t.fact("label_auto_approve_under", "20.00")
    t.asst("Got it: under $20, cheapest within 5 days, no need to ask; $20 and up I'll ask first; dinner sets always "
           "insured.")
    t.do("rates_get", {"order_id": "FW-10482", "weight_lb": 6.2, "dims_in": "12x12x10", "to_zip": "78758"},
         rates("FW-10482", 6.2, "78758", 13.10), request_id="sd-r-20011")
    t.asst("FW-10482 (Austin, 6.2 lb): cheapest within 5 days is USPS Ground Advantage at $12.05, but it includes no "
           "insurance, and this is a dinner set. UPS Ground is $13.10 with $100 included; the order is $128, so I'd add "
           "$28 of extra coverage (about $1.15) for $14.25 in total, under $20. Buying that.")
    l1, _, _ = t.do("label_create", {"order_id": "FW-10482", "rate_id": "rt_10482_upgro", "insurance_value": "128.00"},
                    {"label_id": "lbl_7Fh21", "order_id": "FW-10482", "carrier": "UPS", "service": "Ground",
                     "tracking_number": "1Z8V41X20394418813", "cost": "14.25", "label_url": "https://shipdesk.io/l/lbl_7Fh21.pdf"},
                    idem="label-FW-10482-01", request_id="sd-lb-30001")
    t.asst("Label lbl_7Fh21: UPS Ground, tracking 1Z8V41X20394418813, $14.25 including insurance for $128.")
    t.do("rates_get", {"order_id": "FW-10484", "weight_lb": 4.4, "dims_in": "14x14x8", "to_zip": "98103"},
         rates("FW-10484", 4.4, "98103", 10.40), request_id="sd-r-20013")
    t.asst("FW-10484 (Seattle, 4.4 lb serving bowl, $96): USPS Ground Advantage $9.57 has no insurance; USPS Priority "
           "Mail at $12.27 includes $100 and arrives in 3 days. Buying Priority.")
    l3, _, _ = t.do("label_create", {"order_id": "FW-10484", "rate_id": "rt_10484_uspri"}, None, "timeout",
                    idem="label-FW-10484-01",
                    error={"code": "CARRIER_TIMEOUT", "message": "USPS label service did not respond in 30 s"})
    t.asst("The USPS label request for FW-10484 timed out. A label may or may not have been bought; buying again "
           "could pay twice. I'll check it before doing anything else with that order.")
    t.user("Ok. Oh, before I forget: I got an email from the customer on last week's order FW-10477 in Brooklyn. She "
           "says the tracking says delivered yesterday but there's nothing at her door. Can you look?")
    t.topic_switch("customer complaint FW-10477", previous="buying labels")
    t.do("order_get", {"order_id": "FW-10477"},
         {"order_id": "FW-10477", "customer": {"name": "Maya Rosen", "email": "maya.rosen@fastmail.com"},
          "ship_to": {"name": "Maya Rosen", "street1": "318 Sackett St Apt 2", "city": "Brooklyn", "state": "NY",
                      "zip": "11231"},
          "items": [{"title": "Ash glaze platter", "qty": 1, "price": "118.00"}, {"title": "Gift wrap", "qty": 1, "price": "6.00"}],
          "total": "124.00", "paid": "2025-10-07", "fulfillment": {"shipped": "2025-10-08", "carrier": "UPS",
                                                                  "tracking_number": TRK_77, "insured": "124.00"}},
         request_id="sd-o-40077")
    _, _, pf1 = t.do("shipment_track", {"tracking_number": TRK_77},
                     {"tracking_number": TRK_77, "carrier": "UPS", "status": "delivered",
                      "delivered_at": "2025-10-13T14:02:00-04:00", "signed_by": None, "location": "Front door",
                      "events": [{"at": "2025-10-08T17:40:00-07:00", "desc": "Label created / picked up", "where": "Portland, OR"},
                                 {"at": "2025-10-09T03:12:00-07:00", "desc": "Departed facility", "where": "Portland, OR"},
                                 {"at": "2025-10-11T22:05:00-05:00", "desc": "Arrived at facility", "where": "Chicago, IL"},
                                 {"at": "2025-10-13T05:48:00-04:00", "desc": "Out for delivery", "where": "Maspeth, NY"},
                                 {"at": "2025-10-13T14:02:00-04:00", "desc": "Delivered", "where": "Brooklyn, NY"}],
                      "last_synced": "2025-10-13T14:20:11Z", "source": "ShipDesk"}, request_id="sd-t-50077")
    t.asst("ShipDesk shows FW-10477 (UPS 1Z8V41X20393318856) as delivered yesterday, Oct 13 at 14:02, left at the front "
           "door, no signature. It's insured for the full $124. It's common for a 'delivered' parcel to turn up at a "
           "neighbour's or in the building lobby within a day. I'd suggest replying that we're checking with UPS, and "
           "asking her to check with neighbours.")
    t.user("Ok, I'll tell her that. Let's get back to the labels. What happened with the Seattle one?")
    t.topic_switch("buying labels", previous="customer complaint FW-10477")
    t.decision("d1-label-timeout", [
        tool_state("unknown", "the label purchase timed out; a second purchase could pay twice", call_id=l3),
        pending("the FW-10484 label call is unresolved", call_id=l3),
        constraint(rule, "under $20 without asking", "the owner's label rule"),
    ], note="early")
    t.status_query(l3, "succeeded", request_id="sd-lb-30003",
                   result={"label_id": "lbl_7Fh24", "order_id": "FW-10484", "carrier": "USPS", "service": "Priority Mail",
                           "tracking_number": "9405536206471159221037", "cost": "12.27"},
                   checked_via="GET /labels?order_id=FW-10484")
    t.asst("It went through: USPS Priority label lbl_7Fh24, tracking 9405536206471159221037, $12.27. Only one was "
           "bought.")
    auto = [("FW-10483", 2.1, "11201", 8.40, "rt_10483_usgro", "9400136206471159221102", "7.73", "lbl_7Fh25"),
            ("FW-10485", 9.8, "05672", 17.20, "rt_10485_upgro", "1Z8V41X20394418821", "17.20", "lbl_7Fh26"),
            ("FW-10486", 1.9, "60614", 7.90, "rt_10486_usgro", "9400136206471159221119", "7.27", "lbl_7Fh27"),
            ("FW-10488", 5.3, "10036", 12.60, "rt_10488_upgro", "1Z8V41X20394418839", "12.60", "lbl_7Fh28"),
            ("FW-10489", 2.7, "94103", 8.10, "rt_10489_usgro", "9400136206471159221126", "7.45", "lbl_7Fh29")]
    labels = {}
    for oid, lb, z, base, rid, trk, cost, lid in auto:
        t.do("rates_get", {"order_id": oid, "weight_lb": lb, "to_zip": z}, rates(oid, lb, z, base),
             request_id=f"sd-r-2{oid[-4:]}")
        lc, _, _ = t.do("label_create", {"order_id": oid, "rate_id": rid},
                        {"label_id": lid, "order_id": oid, "carrier": "UPS" if trk.startswith("1Z") else "USPS",
                         "service": "Ground" if trk.startswith("1Z") else "Ground Advantage", "tracking_number": trk,
                         "cost": cost}, idem=f"label-{oid}-01", request_id=f"sd-lb-3{oid[-4:]}")
        labels[oid] = (lc, trk)
    t.asst("Bought the other standard labels, all under $20: FW-10483 USPS $7.73, FW-10485 UPS Ground $17.20 (9.8 lb "
           "to Vermont), FW-10486 USPS $7.27, FW-10488 UPS Ground $12.60, FW-10489 USPS $7.45. That leaves FW-10487 "
           "(expedited) and FW-10490 (Hawaii).")
    t.do("rates_get", {"order_id": "FW-10490", "weight_lb": 11.4, "dims_in": "18x14x12", "to_zip": "96744"},
         rates("FW-10490", 11.4, "96744", 41.90), request_id="sd-r-20090")
    t.do("rates_get", {"order_id": "FW-10487", "weight_lb": 1.6, "to_zip": "04843", "service_level": "expedited"},
         rates("FW-10487", 1.6, "04843", 9.80), request_id="sd-r-20087")
    t.asst("Two need your OK:\n- FW-10490 to Hawaii, 11.4 lb dinner set ($236, must be insured): cheapest within 5 "
           "days is USPS Priority Mail at $49.44 with $100 included, plus about $5.10 to insure the rest: $54.54. UPS "
           "Ground is $41.90 but takes 6+ days to Hawaii.\n- FW-10487 expedited to Maine: USPS Priority Mail Express "
           "$27.93 (2 days) or UPS 2nd Day Air $22.54.")
    t.user("Do the UPS 2nd Day for Maine. For Hawaii, hmm, wait. Let me think about whether to split it into two "
           "boxes. Hold off on that one.")
    l87, l87c = t.call("label_create", {"order_id": "FW-10487", "rate_id": "rt_10487_up2nd"}, idem="label-FW-10487-01")
    t.approval("apr-label-10487", "requested", l87c, action="Buy UPS 2nd Day Air label for FW-10487, $22.54")
    t.asst("To confirm, since it's over $20: UPS 2nd Day Air for FW-10487, $22.54. OK? And I'm holding FW-10490.")
    t.user("Yes, go.")
    t.approval("apr-label-10487", "granted", l87c)
    t.result(l87, "succeeded", {"label_id": "lbl_7Fh31", "order_id": "FW-10487", "carrier": "UPS", "service": "2nd Day Air",
                                "tracking_number": "1Z8V41X20294418847", "cost": "22.54"}, request_id="sd-lb-31087")
    t.asst("Bought: lbl_7Fh31, UPS 2nd Day Air, 1Z8V41X20294418847.")
    addr = t.user("Oh no. Amara Okafor (FW-10486) just emailed: her apartment is 4B, not 48. 2201 N Halsted St Apt 4B, "
                  "Chicago 60614. Can we fix it before it goes?")
    t.fact("ship_to_street1", "2201 N Halsted St Apt 4B", subject={"order_id": "FW-10486"})
    t.decision("d2-address-fix", [
        next_call("address_validate", {"street1": "2201 N Halsted St Apt 4B", "zip": "60614"},
                  "the corrected address comes from the user's message"),
        tool_state("succeeded", "the FW-10484 label is settled by its status query", call_id=l3, request_id="sd-lb-30003"),
        fact("tracking_number", "9400136206471159221119", "the FW-10486 label already exists with the wrong apartment",
             subject="order_id=FW-10486"),
    ])
    t.do("address_validate", {"street1": "2201 N Halsted St Apt 4B", "city": "Chicago", "state": "IL", "zip": "60614"},
         {"valid": True, "standardized": {"street1": "2201 N HALSTED ST APT 4B", "city": "CHICAGO", "state": "IL",
                                          "zip": "60614-3709"}, "dpv_match": "Y", "residential": True,
          "notes": ["Apt 48 does not exist at this address (units 1A-6D)"]}, request_id="sd-av-60011")
    t.asst("Validated: 2201 N HALSTED ST APT 4B, CHICAGO IL 60614-3709 (and 'Apt 48' doesn't exist there). The USPS label "
           "lbl_7Fh27 was bought with the wrong unit but hasn't been scanned yet, so the simplest fix is to void it and "
           "buy a new one; I'll do that since the new label is under $20.")
    vd, _, _ = t.do("label_void", {"tracking_number": "9400136206471159221119"},
                    {"tracking_number": "9400136206471159221119", "label_id": "lbl_7Fh27", "status": "void_requested",
                     "refund_amount": "7.27", "refund_eta": "USPS refunds in 14-21 days"},
                    idem="void-9400136206471159221119", request_id="sd-v-70027")
    l86b, _, _ = t.do("label_create", {"order_id": "FW-10486", "rate_id": "rt_10486_usgro",
                                       "ship_to": {"name": "Amara Okafor", "street1": "2201 N HALSTED ST APT 4B",
                                                   "city": "CHICAGO", "state": "IL", "zip": "60614-3709"}},
                      {"label_id": "lbl_7Fh33", "order_id": "FW-10486", "carrier": "USPS", "service": "Ground Advantage",
                       "tracking_number": "9400136206471159221188", "cost": "7.27"},
                      idem="label-FW-10486-02", request_id="sd-lb-31086")
    t.asst("Done: old label voided ($7.27 refund in 2-3 weeks) and a new one bought, lbl_7Fh33, tracking "
           "9400136206471159221188, to Apt 4B. Print the new one and bin the old one.")
    t.user("Thanks. What about the Brooklyn one, FW-10477? Maya emailed again, still nothing.")
    t.topic_switch("customer complaint FW-10477", previous="address fix")
    _, _, cr1 = t.do("carrier_track", {"tracking_number": TRK_77},
                     {"trackingNumber": TRK_77, "service": "UPS Ground", "status": "in_transit",
                      "statusDetail": "Delivery exception: package misdelivered and retrieved; rescheduled",
                      "scheduledDelivery": "2025-10-14", "activity": [
                          {"date": "20251014", "time": "083012", "location": "Maspeth, NY, US", "status": {"type": "I", "description": "Out For Delivery Today"}},
                          {"date": "20251014", "time": "061544", "location": "Maspeth, NY, US", "status": {"type": "I", "description": "Package transferred to destination facility"}},
                          {"date": "20251013", "time": "191030", "location": "Brooklyn, NY, US", "status": {"type": "X", "description": "Correction: the package was delivered to an incorrect address and has been retrieved by the driver"}},
                          {"date": "20251013", "time": "140200", "location": "Brooklyn, NY, US", "status": {"type": "D", "description": "DELIVERED (rescinded)"}},
                          {"date": "20251013", "time": "054812", "location": "Maspeth, NY, US", "status": {"type": "I", "description": "Out For Delivery Today"}},
                          {"date": "20251011", "time": "220533", "location": "Chicago, IL, US", "status": {"type": "I", "description": "Arrived at Facility"}},
                          {"date": "20251009", "time": "031208", "location": "Portland, OR, US", "status": {"type": "I", "description": "Departed from Facility"}},
                          {"date": "20251008", "time": "174001", "location": "Portland, OR, US", "status": {"type": "P", "description": "Pickup Scan"}}],
                      "deliveryAttempts": 1}, request_id="ups-t-11077")
    t.asst("UPS itself tells a different story from ShipDesk: the 'delivered' scan of Oct 13 14:02 was rescinded. "
           "That evening the driver logged that it went to the wrong address and was retrieved; today it's back out "
           "for delivery from Maspeth, status 'in transit'. ShipDesk still shows 'delivered' because it never "
           "picked up the correction. So Maya should get it today.")
    t.user("Phew. Tell me the exact status line from UPS so I can paste it to her.")
    t.decision("d3-contradiction", [
        evidence([pf1, cr1], "ShipDesk's 'delivered' and UPS's rescinded scan: both readings, verbatim"),
        fact("status", "in_transit", "the carrier's reading is current, the platform's is stale",
             subject=f"tracking_number={TRK_77}", superseded=["delivered"]),
    ])
    t.asst("UPS, today 08:30 Maspeth NY: 'Out For Delivery Today'. Yesterday 19:10 Brooklyn: 'Correction: the package "
           "was delivered to an incorrect address and has been retrieved by the driver'.")
    t.user("Thanks. Now returns: the customer on FW-10459 says one of the two mugs arrived cracked. She wants to send "
           "it back. Can you set up a return?")
    t.do("order_get", {"order_id": "FW-10459"},
         {"order_id": "FW-10459", "customer": {"name": "Ines Carvalho", "email": "ines.c@proton.me"},
          "ship_to": {"name": "Ines Carvalho", "street1": "88 Beacon St Apt 3", "city": "Somerville", "state": "MA",
                      "zip": "02143"},
          "items": [{"sku": "MUG-MOSS-12", "title": "Moss glaze mug", "qty": 2, "price": "32.00"}],
          "shipping_paid": "9.50", "total": "73.50", "paid": "2025-10-01", "payment": {"id": "pi_3QzR81", "method": "card"},
          "fulfillment": {"shipped": "2025-10-02", "carrier": "USPS", "tracking_number": "9400136206471159220044",
                          "delivered": "2025-10-07"},
          "notes": [{"at": "2025-10-13", "by": "customer", "text": "One mug arrived with a crack along the handle. Photos attached."}]},
         request_id="sd-o-40059")
    rt, _, _ = t.do("return_create", {"order_id": "FW-10459", "items": [{"sku": "MUG-MOSS-12", "qty": 1}],
                                      "reason": "damaged_in_transit", "label": "prepaid"},
                    {"rma_id": "RMA-2291", "order_id": "FW-10459", "status": "label_sent",
                     "return_label": {"carrier": "USPS", "tracking_number": "9202136206471159229917", "cost": "6.85"},
                     "emailed_to": "ines.c@proton.me"}, idem="rma-FW-10459-MUG-1", request_id="sd-rt-80022")
    t.asst("Return RMA-2291 created for one Moss glaze mug; a prepaid USPS label (9202136206471159229917, $6.85) was "
           "emailed to Ines. Do you want to refund now or when it arrives? Since it's damage in transit, many shops "
           "refund right away.")
    t.user("Refund her now, the full order, $73.50. She's a regular.")
    t.fact("refund_amount", "73.50", subject={"order_id": "FW-10459"})
    ref, refc = t.call("refund_issue", {"order_id": "FW-10459", "amount": "73.50", "reason": "damaged item"},
                       idem="refund-FW-10459-01")
    t.approval("apr-refund-10459", "requested", refc, action="Refund $73.50 on FW-10459 to card (pi_3QzR81)")
    t.asst("Refund $73.50 (both mugs plus shipping) to her card on FW-10459? She'd keep the undamaged mug.")
    t.user("Hmm, no, actually, that's too generous, she keeps a good mug. Just refund the cracked one plus the "
           "shipping: $41.50.")
    t.approval("apr-refund-10459", "denied", refc, reason="owner changed the amount")
    t.result(ref, "cancelled", error={"code": "NOT_SUBMITTED", "message": "withdrawn before approval"})
    t.correction("refund_amount", "41.50", subject={"order_id": "FW-10459"}, replaces="73.50")
    t.decision("d4-refund", [
        fact("refund_amount", "41.50", "the owner corrected the refund", subject="order_id=FW-10459",
             superseded=["73.50"]),
        next_call("refund_issue", {"order_id": "FW-10459", "amount": "41.50"}, "the order id and corrected amount"),
        tool_state("cancelled", "the first refund was withdrawn before approval", call_id=ref),
    ])
    ref2, ref2c = t.call("refund_issue", {"order_id": "FW-10459", "amount": "41.50", "reason": "damaged item"},
                         idem="refund-FW-10459-02")
    t.approval("apr-refund-10459-b", "requested", ref2c, action="Refund $41.50 on FW-10459")
    t.asst("Refund $41.50 (one mug $32.00 + shipping $9.50) on FW-10459 to her card. Refunds can't be reversed. OK?")
    t.user("Yes.")
    t.approval("apr-refund-10459-b", "granted", ref2c)
    t.result(ref2, "succeeded", {"refund_id": "re_8KtQ02", "order_id": "FW-10459", "amount": "41.50",
                                 "status": "succeeded", "arrives": "5-10 business days"}, request_id="sd-rf-90059")
    t.asst("Refunded: re_8KtQ02, $41.50, 5-10 business days to her card.")
    t.user("Also Dev Patel (FW-10483) just emailed that he's moving and wants it sent to his office instead: "
           "1 Pierrepont Plaza, Floor 9, Brooklyn NY 11201. But you already bought that label, right?")
    t.fact("ship_to_street1", "1 Pierrepont Plaza, Floor 9", subject={"order_id": "FW-10483"})
    t.asst("Yes, lbl_7Fh25 (USPS 9400136206471159221102). It hasn't been dropped off yet, so I can void it and rebuy to "
           "the office, same as Amara's. Or, if it's already in the pickup bin, ask USPS to redirect.")
    t.user("It's already packed and in the bin with the label on, don't want to redo it. Redirect it.")
    rd, _, _ = t.do("shipment_redirect", {"tracking_number": "9400136206471159221102",
                                          "new_address": {"name": "Dev Patel", "street1": "1 Pierrepont Plaza",
                                                          "street2": "Floor 9", "city": "Brooklyn", "state": "NY",
                                                          "zip": "11201"}}, None, "timeout",
                    idem="redirect-9400136206471159221102-01",
                    error={"code": "TIMEOUT", "message": "USPS Package Intercept did not confirm within 30 s"})
    t.asst("The USPS redirect timed out; I can't confirm yet whether it was accepted. USPS intercepts sometimes only "
           "confirm after the first scan. I won't request it twice (each request is charged).")
    t.user("Ok. Let's schedule the pickup for everything that has a label.")
    t.decision("d5-pickup", [
        next_call("pickup_schedule", {"carrier": "USPS", "tracking_number": "9405536206471159221037"}, "the USPS labels include the Seattle one settled by the status query"),
        tool_state("unknown", "the redirect for FW-10483 timed out and is unresolved", call_id=rd),
        next_call("pickup_schedule", {"carrier": "UPS"}, "the UPS labels bought this morning"),
        constraint(rule, "ask me first", "FW-10490 (over $20) still needs the owner's OK"),
    ])
    pk1, _, _ = t.do("pickup_schedule", {"carrier": "UPS", "date": "2025-10-14", "ready_time": "14:00",
                                         "close_time": "17:30", "address": FROM,
                                         "tracking_numbers": ["1Z8V41X20394418813", "1Z8V41X20394418821",
                                                              "1Z8V41X20394418839", "1Z8V41X20294418847"]},
                     {"confirmation": "UPS-PRN-2JX88410", "carrier": "UPS", "window": "14:00-17:30", "packages": 4,
                      "fee": "0.00"}, idem="pickup-ups-20251014", request_id="ups-p-31001")
    pk2, _, _ = t.do("pickup_schedule", {"carrier": "USPS", "date": "2025-10-14", "address": FROM,
                                         "package_location": "front door",
                                         "tracking_numbers": ["9405536206471159221037", "9400136206471159221188",
                                                              "9400136206471159221102", "9400136206471159221126"]},
                     {"confirmation": "WTC178203441", "carrier": "USPS", "date": "2025-10-14", "packages": 4,
                      "fee": "0.00"}, idem="pickup-usps-20251014", request_id="usps-p-51770")
    t.asst("Pickups scheduled: UPS PRN UPS-PRN-2JX88410 (4 parcels, 14:00-17:30) and USPS WTC178203441 (4 parcels, "
           "front door). Not included: FW-10490 (on hold) and the voided old label for Amara.")
    t.user("OK for Hawaii I've decided: one box. Use Priority Mail with insurance for the full $236.")
    t.decision("d6-hawaii", [
        next_call("label_create", {"order_id": "FW-10490"}, "the held order"),
        constraint(rule, "always insure the dinner sets", "the Hawaii dinner set must be insured"),
        fact("tracking_number", "9400136206471159221188", "Amara's current label is the re-bought one",
             subject="order_id=FW-10486", superseded=["9400136206471159221119"]),
    ])
    l90, l90c = t.call("label_create", {"order_id": "FW-10490", "rate_id": "rt_10490_uspri", "insurance_value": "236.00"},
                       idem="label-FW-10490-01")
    t.approval("apr-label-10490", "requested", l90c, action="Buy USPS Priority label for FW-10490 with $236 insurance, $54.54")
    t.asst("USPS Priority Mail to Kaneohe, 11.4 lb, insured for $236: $54.54 in total. Confirm?")
    t.user("Confirmed.")
    t.approval("apr-label-10490", "granted", l90c)
    t.result(l90, "succeeded", {"label_id": "lbl_7Fh35", "order_id": "FW-10490", "carrier": "USPS",
                                "service": "Priority Mail", "tracking_number": "9405536206471159221290",
                                "cost": "54.54", "insured_value": "236.00"}, request_id="sd-lb-31090")
    t.asst("Bought: lbl_7Fh35, tracking 9405536206471159221290, $54.54. USPS picks up today, so it can go in the bin "
           "with the others (I'll add it to the pickup if you like).")
    for q, a in [
        ("Yes add it. Also, what did we spend on labels today in total?",
         "Today's labels: $14.25 + $12.27 + $7.73 + $17.20 + $7.27 (Amara, new) + $12.60 + $7.45 + $22.54 + $54.54 = "
         "$155.85, plus the $6.85 return label for Ines. The voided $7.27 label will be refunded by USPS in 2-3 weeks. "
         "I'll add the Hawaii parcel to the USPS pickup note."),
        ("How many orders does that leave unshipped?",
         "None of today's nine: all have labels. The only open shipping items are the FW-10483 redirect (unconfirmed) "
         "and the Brooklyn parcel for Maya, which UPS has out for delivery."),
    ]:
        t.user(q)
        t.asst(a)
    t.user("Check Maya's parcel one more time please, I want to close her ticket.")
    _, _, cr2 = t.do("carrier_track", {"tracking_number": TRK_77},
                     {"trackingNumber": TRK_77, "service": "UPS Ground", "status": "delivered",
                      "statusDetail": "Delivered: Front Door", "deliveredAt": "2025-10-14T13:37:00-04:00",
                      "proofOfDelivery": {"photo": True, "location": "Front door, 318 Sackett St"}, "activity": [
                          {"date": "20251014", "time": "133700", "location": "Brooklyn, NY, US", "status": {"type": "D", "description": "DELIVERED"}},
                          {"date": "20251014", "time": "083012", "location": "Maspeth, NY, US", "status": {"type": "I", "description": "Out For Delivery Today"}}],
                      "deliveryAttempts": 2}, request_id="ups-t-11102")
    t.asst("Delivered for real this time: today 13:37 at the front door of 318 Sackett St, with a photo. You can close "
           "her ticket.")
    t.user("And did Dev's redirect go through?")
    t.decision("d7-end", [
        next_call("shipment_track", {"tracking_number": "9400136206471159221102"}, "checking the redirect needs Dev's tracking number"),
        tool_state("unknown", "the redirect is still unconfirmed at the end", call_id=rd),
        fact("ship_to_street1", "1 Pierrepont Plaza, Floor 9", "the new destination the owner typed",
             subject="order_id=FW-10483"),
        tool_state("succeeded", "the refund went through", call_id=ref2, request_id="sd-rf-90059"),
        evidence([cr1, cr2], "the rescinded scan and the final delivery, for Maya's ticket"),
    ], note="late")
    t.asst("Still no confirmation from USPS Package Intercept; it often only confirms after the first scan at the "
           "post office, which will be after today's pickup. I'd tell Dev it's requested but not yet confirmed, and "
           "I'll check tomorrow morning. If it fails, the parcel goes to 55 Water St Apt 12C as before.")
    t.user("Fine. Thanks, good morning's work.")
    t.asst("It was. Nine orders out, one return, one refund and one happy customer in Brooklyn.")
    return t
