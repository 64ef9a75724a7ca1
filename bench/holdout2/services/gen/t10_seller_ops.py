"""10: messaging + logistics: shipping a sold camera to a marketplace buyer, keeping her posted, and a return."""

from lib import Traj, constraint, evidence, fact, next_call, pending, tool_state
from tools import pick

FILENAME = "10_camera-sale-shipping.jsonl"
TH = "th_7731"
RMA = "PTG-RMA-558210"


def threads(rng):
    rows = [
        ("th_7731", "Jess Marlowe (Marketplace)", "Jess: Perfect, sent the $780 via PayPal goods & services!", 2),
        ("th_2210", "Jess K (climbing)", "Jess: gym thursday?", 0),
        ("th_1102", "Mom", "Mom: call me this weekend", 1),
        ("th_3319", "Amit", "Amit: did you sell the camera yet", 0),
        ("th_4050", "Marketplace: Derek (Fuji X-T3)", "Derek: would you take 600?", 0),
        ("th_4051", "Marketplace: Sam (Fuji X-T3)", "Sam: is this still available?", 0),
        ("th_0901", "Landlord - Greg", "Greg: Plumber comes Tuesday 10am", 0),
        ("th_5520", "Book club", "Lena: next pick is Tomorrow and Tomorrow...", 5),
        ("th_6004", "UPS My Choice", "UPS: Your package is scheduled for delivery", 0),
        ("th_6120", "Patagonia", "Patagonia: Your return authorization is ready", 1),
        ("th_7002", "Priya", "Priya: brunch sunday?", 0),
        ("th_7310", "Work - design crit", "Omar: moved to 3pm", 3),
    ]
    return {"threads": [{"thread_id": a, "title": b, "last_message_preview": c, "unread_count": d,
                         "service": "Marketplace" if "Marketplace" in b else "SMS/iMessage",
                         "last_activity": f"2025-11-0{3 if i < 4 else 2}T{20 - i:02d}:{rng.randint(10, 59)}:00-06:00"}
                        for i, (a, b, c, d) in enumerate(rows)], "has_more": True}


def jess_thread(rng, extra=()):
    msgs = [
        ("c_jess", "2025-11-01T14:02", "Hi! Is the X-T3 still available? Does it come with the 18-55?"),
        ("me", "2025-11-01T14:10", "Yes, body + XF 18-55 f/2.8-4, two batteries, charger, original box. Shutter count about 21k."),
        ("c_jess", "2025-11-01T14:15", "Would you do $750 shipped?"),
        ("me", "2025-11-01T14:31", "I can do $780 shipped with insurance, it's in great shape. Local pickup would be $750."),
        ("c_jess", "2025-11-01T15:02", "Deal at $780 shipped. I'm in Chicago."),
        ("c_jess", "2025-11-01T15:04", "Any issues with it? Sensor dust, dead pixels, anything weird with the dials?"),
        ("me", "2025-11-01T15:20", "No dead pixels, sensor cleaned in September. The rubber on the grip is a little "
                                   "shiny from use, and there's a tiny scuff on the bottom plate. Firmware 5.10. "
                                   "Happy to send a test shot at f/16 against the sky."),
        ("c_jess", "2025-11-01T15:31", "Yes please!"),
        ("me", "2025-11-01T16:02", "[photo: test_f16_sky.jpg] Straight out of camera, no edits."),
        ("c_jess", "2025-11-01T16:10", "Looks clean. Do you still have the strap and the body cap?"),
        ("me", "2025-11-01T16:12", "Strap yes (original Fuji one, barely used), body cap and both lens caps yes."),
        ("me", "2025-11-01T15:05", "Great. Please pay with PayPal goods & services (so we're both protected) and send me your address."),
        ("c_jess", "2025-11-03T19:40", "Address: Jess Marlowe, 4418 N Winchester Ave, Apt 2R, Chicago IL 60640. Phone 773-555-0129 if the courier needs it."),
        ("c_jess", "2025-11-03T19:41", "Perfect, sent the $780 via PayPal goods & services!"),
        ("c_jess", "2025-11-03T19:43", "Could you pack it well? And can it need a signature, packages get stolen in my building lobby."),
    ] + list(extra)
    return {"thread_id": TH, "title": "Jess Marlowe (Marketplace)", "participants": ["me", "c_jess"],
            "listing": {"title": "Fujifilm X-T3 + XF 18-55mm, excellent", "price": "780.00", "status": "pending sale"},
            "messages": [{"message_id": f"mk_{rng.randint(0x10000, 0xFFFFF):05x}", "sender": a, "sent_at": b + ":00-06:00",
                          "text": c} for a, b, c in msgs], "has_more": False}


def rates(rng):
    rows = [("UPS", "Ground", 3, "18.40"), ("UPS", "Ground (signature + declared value 780)", 3, "26.85"),
            ("UPS", "3 Day Select", 3, "31.20"), ("USPS", "Ground Advantage", 4, "11.95"),
            ("USPS", "Priority Mail", 2, "15.30"), ("USPS", "Priority Mail (signature + insurance 780)", 2, "28.45"),
            ("FedEx", "Ground Home", 3, "17.90"), ("FedEx", "Home (adult signature + declared 780)", 3, "30.10")]
    out = [{"rate_id": f"rate_{car.lower()}_{i}", "carrier": car, "service": svc, "est_days": d, "amount": amt,
            "signature": "signature" in svc, "coverage": "780.00" if "780" in svc else "100.00"}
           for i, (car, svc, d, amt) in enumerate(rows)]
    return {"from_zip": "80205", "to_zip": "60640", "weight_lb": 3.2, "dims_in": "12x10x8", "rates": out}


def build() -> Traj:
    t = Traj(id="svc-camera-sale-shipping", title="Selling a camera: buyer thread, insured label, address fix, weight audit",
             exercises=["the label service and the carrier disagree about the parcel's weight, settled by an adjustment",
                        "an address returned in a message thread and corrected by the buyer later",
                        "a message send that times out and is resolved by a status query",
                        "a delete that times out and stays unresolved",
                        "irreversible label purchases and messages behind approvals; conditions on shipping",
                        "topic switch to a clothing return and back to the sale"],
             description="A person who sold a camera on a marketplace uses his assistant to read the buyer's thread, "
                         "validate her address, buy an insured signature label, message her the tracking number, "
                         "handle her apartment correction, return a jacket to a store, and sort out a carrier weight "
                         "adjustment.",
             tools=pick("threads_list", "thread_get", "message_send", "message_delete", "message_get",
                        "contacts_search", "shipments_list",
                        "address_validate", "rates_get", "label_create", "label_void", "shipment_track",
                        "carrier_track", "return_get", "pickup_schedule"),
             seed=1010, window=2048)
    r = t.rng
    t.system("You are Ravi Menon's personal assistant with access to his messages (SMS, iMessage and Marketplace) and "
             "his ShipEasy account (labels, tracking, pickups). Sending messages and buying labels need his approval. "
             "Ravi's address: 2741 Larimer St, Denver, CO 80205.")
    t.user("I sold my Fuji X-T3 to someone called Jess on Marketplace. Can you find our thread and get her address?")
    t.do("threads_list", {"limit": 12}, threads(r), request_id="msg-l-0091")
    t.do("thread_get", {"thread_id": TH, "limit": 30}, jess_thread(r), request_id="msg-g-0092")
    t.asst("Found it: 'Jess Marlowe (Marketplace)' (th_7731). You agreed on $780 shipped with insurance. Her address: "
           "Jess Marlowe, 4418 N Winchester Ave, Apt 2R, Chicago IL 60640, phone 773-555-0129. She says she paid via "
           "PayPal goods & services, asks you to pack it well and to require a signature (lobby thefts). (There's "
           "another Jess, 'Jess K (climbing)', unrelated.)")
    cond = t.user("Good. Two rules: don't ship anything until I've confirmed the PayPal money is really there, not "
                  "just her message. And insure it for the full $780 with signature required.")
    t.asst("Understood: no label until you confirm the payment in PayPal yourself; full $780 coverage with signature.")
    t.user("Ok I checked PayPal, the $780 is there, completed. Go ahead and get a label. The box is 12x10x8, 3.2 lb "
           "with all the padding.")
    t.fact("payment_confirmed", "yes", subject={"thread_id": TH}, note="user checked PayPal: $780 completed")
    t.do("address_validate", {"street1": "4418 N Winchester Ave", "street2": "Apt 2R", "city": "Chicago",
                              "state": "IL", "zip": "60640"},
         {"valid": True, "standardized": {"street1": "4418 N WINCHESTER AVE", "street2": "APT 2R", "city": "CHICAGO",
                                          "state": "IL", "zip": "60640-5310"}, "residential": True, "dpv_match": "Y"},
         request_id="se-av-1001")
    t.do("rates_get", {"from_zip": "80205", "to_zip": "60640", "weight_lb": 3.2, "dims_in": "12x10x8",
                       "declared_value": "780.00"}, rates(r), request_id="se-r-1002")
    t.asst("Address validated (60640-5310). With full $780 coverage and signature: UPS Ground $26.85 (3 days), USPS "
           "Priority $28.45 (2 days), FedEx Home $30.10 (adult signature). UPS Ground is cheapest.")
    t.user("UPS Ground with signature.")
    t.decision("d1-label", [
        next_call("label_create", {"rate_id": "rate_ups_1"}, "the rate id from the quote"),
        constraint(cond, "insure it for the full $780", "coverage and signature rule"),
        constraint(cond, "don't ship anything until I've confirmed", "the payment condition, now met"),
    ], note="early")
    l1, l1c = t.call("label_create", {"order_id": "mkt-xt3-jess", "rate_id": "rate_ups_1", "declared_value": "780.00",
                                      "signature": "required",
                                      "ship_to": {"name": "Jess Marlowe", "street1": "4418 N WINCHESTER AVE",
                                                  "street2": "APT 2R", "city": "CHICAGO", "state": "IL",
                                                  "zip": "60640-5310", "phone": "773-555-0129"}},
                     idem="label-mkt-xt3-jess-01")
    t.approval("apr-label-1", "requested", l1c, action="Buy UPS Ground label with signature and $780 declared value, $26.85")
    t.asst("Buy UPS Ground, signature required, $780 declared value, to Jess Marlowe, Apt 2R, for $26.85?")
    t.user("Yes.")
    t.approval("apr-label-1", "granted", l1c)
    t.result(l1, "succeeded", {"label_id": "se_lbl_90121", "tracking_number": "1Z4W7E830312660148", "carrier": "UPS",
                               "service": "Ground", "cost": "26.85", "weight_lb": 3.2, "declared_value": "780.00"},
             request_id="se-lb-2001")
    t.asst("Label bought: tracking 1Z4W7E830312660148, $26.85.")
    t.user("Send Jess the tracking number, something friendly.")
    txt1 = ("Hi Jess! The camera is packed (double-boxed) and shipping UPS Ground with signature required and full "
            "insurance. Tracking: 1Z4W7E830312660148. It should arrive in about 3 business days. Enjoy it! — Ravi")
    m1, m1c = t.call("message_send", {"thread_id": TH, "text": txt1}, idem="send-th_7731-tracking-01")
    t.approval("apr-msg-1", "requested", m1c, action="Send tracking message to Jess")
    t.asst(f"To Jess (th_7731):\n\n{txt1}\n\nSend?")
    t.user("Send it.")
    t.approval("apr-msg-1", "granted", m1c)
    t.result(m1, "succeeded", {"message_id": "mk_a91f2", "thread_id": TH, "status": "sent"}, request_id="msg-s-0101")
    t.asst("Sent.")
    t.user("Also, totally separate, I need to return a jacket to Patagonia. The RMA is PTG-RMA-558210.")
    t.topic_switch("Patagonia return", previous="camera sale")
    t.do("return_get", {"rma_id": RMA},
         {"rma_id": RMA, "merchant": "Patagonia", "order_id": "PTG-88412091", "status": "authorized",
          "items": [{"sku": "84212-BLK-M", "title": "Nano Puff Jacket, Black, M", "qty": 1, "refund": "239.00",
                     "reason": "size exchange requested: L"}],
          "return_label": {"carrier": "UPS", "tracking_number": "1Z9R2A0F0391866044", "prepaid": True,
                           "label_url": "https://returns.patagonia.com/l/PTG-RMA-558210.pdf"},
          "drop_off": "any UPS location or scheduled pickup", "expires": "2025-11-30",
          "exchange": {"sku": "84212-BLK-L", "reserved_until": "2025-11-24"}}, request_id="se-rt-3001")
    t.asst("RMA PTG-RMA-558210 is authorized: Nano Puff, black, size M, exchanged for an L (reserved until Nov 24). "
           "It has a prepaid UPS label, tracking 1Z9R2A0F0391866044. You can drop it at any UPS location or include it "
           "in a pickup.")
    t.user("Schedule one UPS pickup tomorrow for both boxes.")
    pk, _, _ = t.do("pickup_schedule", {"carrier": "UPS", "date": "2025-11-04", "address": "2741 Larimer St, Denver, CO 80205",
                                        "tracking_numbers": ["1Z4W7E830312660148", "1Z9R2A0F0391866044"],
                                        "ready_time": "09:00", "close_time": "17:00"},
                    {"confirmation": "UPS-PRN-9TQ44812", "date": "2025-11-04", "window": "09:00-17:00", "packages": 2,
                     "fee": "6.50"}, idem="pickup-ups-20251104", request_id="ups-p-7001")
    t.asst("Pickup UPS-PRN-9TQ44812 tomorrow, 9-5, both boxes ($6.50 pickup fee).")
    t.topic_switch("camera sale", previous="Patagonia return")
    t.user("Jess replied something, what does she say?")
    t.do("thread_get", {"thread_id": TH, "limit": 5},
         {"thread_id": TH, "messages": [
             {"message_id": "mk_a91f2", "sender": "me", "sent_at": "2025-11-03T20:55:00-06:00", "text": txt1},
             {"message_id": "mk_a9233", "sender": "c_jess", "sent_at": "2025-11-03T21:12:00-06:00",
              "text": "Thank you!! Oh no, I just realized I typed my apartment wrong. It's 2F, not 2R. 4418 N Winchester "
                      "Ave Apt 2F. So sorry!!"}], "has_more": True}, request_id="msg-g-0110")
    t.fact("ship_to_street2", "APT 2F", subject={"thread_id": TH}, replaces="APT 2R")
    t.asst("She made a typo: her apartment is 2F, not 2R (4418 N Winchester Ave Apt 2F). The label says 2R. Since the "
           "parcel hasn't been picked up yet, the cleanest fix is to void the label and buy a new one to 2F, instead "
           "of a UPS address change after pickup (which costs about $20).")
    t.user("Do that. Void and rebuy, same service.")
    t.decision("d2-address-fix", [
        next_call("label_void", {"tracking_number": "1Z4W7E830312660148"}, "the first label's tracking number"),
        fact("ship_to_street2", "APT 2F", "the buyer corrected the apartment", subject=f"thread_id={TH}"),
        tool_state("succeeded", "the pickup is scheduled and includes the old label", call_id=pk),
    ])
    v1, _, _ = t.do("label_void", {"tracking_number": "1Z4W7E830312660148"},
                    {"tracking_number": "1Z4W7E830312660148", "status": "voided", "refund": "26.85",
                     "refund_eta": "immediate (ShipEasy credit)"}, idem="void-1Z4W7E830312660148",
                    request_id="se-v-2101")
    l2, l2c = t.call("label_create", {"order_id": "mkt-xt3-jess", "rate_id": "rate_ups_1", "declared_value": "780.00",
                                      "signature": "required",
                                      "ship_to": {"name": "Jess Marlowe", "street1": "4418 N WINCHESTER AVE",
                                                  "street2": "APT 2F", "city": "CHICAGO", "state": "IL",
                                                  "zip": "60640-5310", "phone": "773-555-0129"}},
                     idem="label-mkt-xt3-jess-02")
    t.approval("apr-label-2", "requested", l2c, action="Buy replacement UPS label to Apt 2F, $26.85")
    t.asst("Old label voided ($26.85 back as ShipEasy credit). New label, same UPS Ground + signature + $780, to Apt "
           "2F, $26.85 (paid from the credit). Buy it?")
    t.user("Yes.")
    t.approval("apr-label-2", "granted", l2c)
    t.result(l2, "succeeded", {"label_id": "se_lbl_90177", "tracking_number": "1Z4W7E830312661263", "carrier": "UPS",
                               "service": "Ground", "cost": "26.85", "weight_lb": 3.2, "declared_value": "780.00"},
             request_id="se-lb-2007")
    t.asst("New label: tracking 1Z4W7E830312661263 to Apt 2F. Print it and cover the old one completely. The pickup "
           "confirmation still lists the old tracking number; UPS will take the box anyway, but I can tell Jess the new "
           "number.")
    t.user("Yes, tell her the new tracking number and that it's fixed.")
    txt2 = ("No problem at all! I re-did the label for Apt 2F. New tracking number: 1Z4W7E830312661263 (the old one "
            "won't work). UPS picks it up tomorrow.")
    m2, m2c = t.call("message_send", {"thread_id": TH, "text": txt2}, idem="send-th_7731-tracking-02")
    t.approval("apr-msg-2", "requested", m2c, action="Send new tracking number to Jess")
    t.asst(f"To Jess:\n\n{txt2}\n\nSend?")
    t.user("Go.")
    t.approval("apr-msg-2", "granted", m2c)
    t.result(m2, "timeout", error={"code": "TIMEOUT", "message": "Marketplace messaging did not acknowledge in 20 s"})
    t.asst("The message to Jess timed out; I'm not sure it was delivered. I'll check the thread before resending, so "
           "she doesn't get it twice.")
    t.user("Ok. What's the status of the pickup tomorrow, anything I need to do?")
    t.decision("d3-open-send", [
        next_call("thread_get", {"thread_id": TH}, "checking whether the timed-out send landed"),
        tool_state("unknown", "the second message timed out", call_id=m2),
        pending("the message send is unresolved", call_id=m2),
        fact("confirmation", "UPS-PRN-9TQ44812", "the pickup confirmation"),
    ])
    t.asst("Nothing except having both boxes ready from 9am: the camera (new label 1Z4W7E830312661263) and the "
           "Patagonia return (1Z9R2A0F0391866044). Pickup UPS-PRN-9TQ44812.")
    t.user("Did the message to Jess go through in the end?")
    t.status_query(m2, "succeeded", request_id="msg-s-0114",
                   result={"message_id": "mk_a92c0", "thread_id": TH, "status": "delivered"},
                   checked_via="thread_get th_7731 (last 3)")
    t.asst("Yes: it's in the thread (mk_a92c0) and delivered.")
    t.system("Next day: 2025-11-04 18:30 MST.")
    t.user("UPS came. Is the camera moving? And when does it arrive?")
    _, _, w1 = t.do("shipment_track", {"tracking_number": "1Z4W7E830312661263"},
                    {"tracking_number": "1Z4W7E830312661263", "carrier": "UPS", "status": "in_transit",
                     "weight_lb": 3.2, "billed_amount": "26.85", "estimated_delivery": "2025-11-07",
                     "events": [{"at": "2025-11-04T14:12:00-07:00", "desc": "Picked up", "where": "Denver, CO"}],
                     "source": "ShipEasy"}, request_id="se-t-3101")
    t.asst("Picked up at 14:12 today in Denver, in transit, estimated delivery Friday Nov 7.")
    t.user("Tell Jess it arrives Friday.")
    txt3 = "It's on its way! UPS picked it up today; estimated delivery Friday Nov 7. Someone will need to sign."
    m3, m3c = t.call("message_send", {"thread_id": TH, "text": txt3}, idem="send-th_7731-eta-01")
    t.approval("apr-msg-3", "requested", m3c, action="Send ETA to Jess")
    t.asst(f"To Jess:\n\n{txt3}\n\nSend?")
    t.user("Yep.")
    t.approval("apr-msg-3", "granted", m3c)
    t.result(m3, "succeeded", {"message_id": "mk_a94e1", "thread_id": TH, "status": "sent"}, request_id="msg-s-0120")
    t.asst("Sent (mk_a94e1).")
    t.user("Amit wants to buy my XF 56mm for $450, he's a friend. Ship it to him too. His address should be in my "
           "contacts.")
    t.do("contacts_search", {"query": "Amit", "limit": 5},
         {"query": "Amit", "total": 2, "contacts": [
             {"contact_id": "c_0412", "display_name": "Amit Shah", "phones": [{"type": "mobile", "number": "+1 720 555 0183"}],
              "addresses": [{"type": "home", "street1": "1550 S Pearl St", "street2": "Unit 304", "city": "Denver",
                             "state": "CO", "zip": "80210"}], "updated_at": "2024-09-12"},
             {"contact_id": "c_0733", "display_name": "Amita Rao (dentist)", "phones": [{"type": "work", "number": "+1 303 555 0190"}]}]},
         request_id="ct-q-0210")
    t.asst("Amit Shah: 1550 S Pearl St, Unit 304, Denver CO 80210 (saved September 2024). He's in Denver too, so you "
           "could also just hand it over. Do you still want to ship it? And has he paid?")
    t.user("He moved in the summer, let me ask him. ... He says: 2290 Clarkson St, Apt 5, Denver 80205. He paid me on "
           "Venmo already. Yes ship it, he's away for two weeks and his neighbour takes packages.")
    t.fact("amit_address", "1550 S Pearl St, Unit 304, Denver, CO 80210", subject={"contact_id": "c_0412"},
           source="contacts (2024)")
    t.correction("amit_address", "2290 Clarkson St, Apt 5, Denver, CO 80205", subject={"contact_id": "c_0412"},
                 replaces="1550 S Pearl St, Unit 304, Denver, CO 80210")
    t.decision("d4-amit", [
        fact("amit_address", "2290 Clarkson St, Apt 5, Denver, CO 80205", "Amit's new address replaces the contact card's",
             subject="contact_id=c_0412", superseded=["1550 S Pearl St, Unit 304, Denver, CO 80210"]),
        next_call("rates_get", {"from_zip": "80205"}, "Ravi's own ZIP from the account description"),
        constraint(cond, "insure it", "insurance was the rule for the camera; the user's habit for a $450 lens"),
    ])
    t.do("address_validate", {"street1": "2290 Clarkson St", "street2": "Apt 5", "city": "Denver", "state": "CO",
                              "zip": "80205"},
         {"valid": True, "standardized": {"street1": "2290 CLARKSON ST", "street2": "APT 5", "city": "DENVER",
                                          "state": "CO", "zip": "80205-4617"}, "residential": True, "dpv_match": "Y"},
         request_id="se-av-1010")
    t.do("rates_get", {"from_zip": "80205", "to_zip": "80205", "weight_lb": 1.6, "dims_in": "8x6x6",
                       "declared_value": "450.00"},
         {"from_zip": "80205", "to_zip": "80205", "weight_lb": 1.6, "rates": [
             {"rate_id": "rate_usps_10", "carrier": "USPS", "service": "Ground Advantage", "est_days": 2, "amount": "7.85",
              "coverage": "100.00"},
             {"rate_id": "rate_usps_11", "carrier": "USPS", "service": "Ground Advantage + insurance 450", "est_days": 2,
              "amount": "14.10", "coverage": "450.00"},
             {"rate_id": "rate_ups_12", "carrier": "UPS", "service": "Ground + declared 450", "est_days": 1, "amount": "16.95",
              "coverage": "450.00"}]}, request_id="se-r-1011")
    t.asst("Validated: 2290 CLARKSON ST APT 5, DENVER 80205-4617. Rates: USPS Ground Advantage with $450 insurance "
           "$14.10 (2 days), UPS Ground with $450 declared $16.95 (next day). No signature, since his neighbour will "
           "take it.")
    t.user("USPS with insurance. No signature.")
    la, lac = t.call("label_create", {"order_id": "friend-xf56-amit", "rate_id": "rate_usps_11", "declared_value": "450.00",
                                      "signature": "none",
                                      "ship_to": {"name": "Amit Shah", "street1": "2290 CLARKSON ST", "street2": "APT 5",
                                                  "city": "DENVER", "state": "CO", "zip": "80205-4617"}},
                     idem="label-friend-xf56-amit-01")
    t.approval("apr-label-amit", "requested", lac, action="Buy USPS Ground Advantage label with $450 insurance, $14.10")
    t.asst("Buy USPS Ground Advantage with $450 insurance, no signature, to Amit at 2290 Clarkson St Apt 5, $14.10?")
    t.user("Yes.")
    t.approval("apr-label-amit", "granted", lac)
    t.result(la, "succeeded", {"label_id": "se_lbl_90240", "tracking_number": "9400111206213859014477", "carrier": "USPS",
                               "service": "Ground Advantage", "cost": "14.10", "weight_lb": 1.6, "declared_value": "450.00"},
             request_id="se-lb-2030")
    t.asst("Label bought: USPS 9400111206213859014477, $14.10. You can drop it at the Larimer St post office or I can "
           "add a USPS pickup.")
    t.user("I'll drop it off. Text Amit the tracking number, he's in thread Amit.")
    txt5 = "Lens is on its way! USPS tracking 9400111206213859014477, should be there in 2 days. Enjoy the 56!"
    m5, m5c = t.call("message_send", {"thread_id": "th_3319", "text": txt5}, idem="send-th_3319-tracking-01")
    t.approval("apr-msg-amit", "requested", m5c, action="Send tracking to Amit")
    t.asst(f"To Amit (th_3319):\n\n{txt5}\n\nSend?")
    t.user("Send.")
    t.approval("apr-msg-amit", "granted", m5c)
    t.result(m5, "succeeded", {"message_id": "im_33f20", "thread_id": "th_3319", "status": "delivered"},
             request_id="msg-s-0125")
    t.asst("Sent to Amit.")
    for q, a in [
        ("How should I pack the lens? I don't have the original box.",
         "Caps on both ends, then wrap it in a few layers of bubble wrap and put it in a small box with at least 2 "
         "inches of padding on every side (crumpled paper works). Shake test: nothing should move. If you have silica "
         "gel packets from the camera box, throw one in. Write nothing on the outside that says 'camera' or 'lens'."),
        ("And what if USPS loses it?",
         "The $450 insurance covers it: you'd file a claim on ShipEasy after 15 days without a delivery scan (or "
         "immediately if the box arrives damaged), with proof of value: the Venmo payment from Amit is enough. "
         "Claims usually take 1-3 weeks."),
    ]:
        t.user(q)
        t.asst(a)
    for q, a in [
        ("Should I mark the listing as sold?",
         "Yes, once it's delivered and she confirms, mark it sold; until then keep it 'pending' so other buyers don't "
         "message you. PayPal's seller protection relies on the tracking with signature, which you have."),
        ("Derek and Sam are still asking about it. Should I reply?",
         "A short reply avoids more messages: 'Sorry, it's sold.' I can send that to both threads (th_4050, th_4051) "
         "if you want."),
        ("Actually yes, reply to both that it's sold. Same text.",
         "Drafted for both: 'Sorry, the camera is sold. Thanks for your interest!' I'll send them one at a time."),
    ]:
        t.user(q)
        t.asst(a)
    for th in ("th_4050", "th_4051"):
        mx, mxc = t.call("message_send", {"thread_id": th, "text": "Sorry, the camera is sold. Thanks for your interest!"},
                         idem=f"send-{th}-sold-01")
        t.approval(f"apr-sold-{th}", "requested", mxc, action=f"Send 'sold' reply in {th}")
        t.user("Yes." if th == "th_4050" else "Yes, that one too.")
        t.approval(f"apr-sold-{th}", "granted", mxc)
        t.result(mx, "succeeded", {"message_id": f"mk_{th[-4:]}s", "thread_id": th, "status": "sent"},
                 request_id=f"msg-s-01{th[-2:]}")
    t.asst("Both sent: Derek (th_4050) and Sam (th_4051) know it's sold.")
    t.system("Two days later: 2025-11-06 10:05 MST.")
    t.user("ShipEasy emailed me about an 'adjustment' on the camera label? What's that?")
    _, _, w2 = t.do("carrier_track", {"tracking_number": "1Z4W7E830312661263"},
                    {"trackingNumber": "1Z4W7E830312661263", "service": "UPS Ground", "status": "in_transit",
                     "package": {"weight_lb": 5.1, "dimensional_weight_lb": 6.0, "dims_in": "12x10x8",
                                 "billed_weight_lb": 6.0},
                     "deliveryDate": "2025-11-08", "activity": [
                         {"date": "20251106", "time": "040212", "location": "Chicago, IL, US",
                          "status": {"type": "I", "description": "Arrived at Facility"}},
                         {"date": "20251105", "time": "221501", "location": "Hodgkins, IL, US",
                          "status": {"type": "I", "description": "Departed from Facility"}},
                         {"date": "20251105", "time": "031044", "location": "Commerce City, CO, US",
                          "status": {"type": "I", "description": "Weight and dimensions audited"}},
                         {"date": "20251104", "time": "141200", "location": "Denver, CO, US",
                          "status": {"type": "P", "description": "Pickup Scan"}}]}, request_id="ups-t-8101")
    t.asst("UPS weighed the box at 5.1 lb, not the 3.2 lb on the label, and bills by dimensional weight (6 lb for a "
           "12x10x8 box). ShipEasy still shows 3.2 lb, so the adjustment is the difference. UPS also now says "
           "delivery is Saturday Nov 8, not Friday.")
    t.user("5.1?? It's a camera. Whatever, I probably weighed it without the lens. How much is the adjustment? And "
           "it's Saturday now? I told her Friday.")
    t.decision("d5-weight", [
        evidence([w1, w2], "ShipEasy's 3.2 lb and UPS's audited 5.1 lb: the two readings"),
        fact("weight_lb", 5.1, "the carrier's audited weight is current", subject="tracking_number=1Z4W7E830312661263",
             superseded=[3.2]),
        next_call("message_delete", {"message_id": "mk_a94e1"}, "the wrong-ETA message id, if he wants it removed"),
    ])
    _, _, w3 = t.do("shipment_track", {"tracking_number": "1Z4W7E830312661263"},
                    {"tracking_number": "1Z4W7E830312661263", "carrier": "UPS", "status": "in_transit",
                     "weight_lb": 5.1, "billed_amount": "33.30", "adjustment": {"amount": "6.45", "reason": "weight/dims audit",
                                                                                 "billed_weight_lb": 6.0},
                     "estimated_delivery": "2025-11-08", "source": "ShipEasy"}, request_id="se-t-3140")
    t.asst("ShipEasy now agrees with UPS: 5.1 lb actual, billed at 6 lb, adjustment $6.45 (total $33.30). Delivery "
           "Saturday Nov 8.")
    t.user("Did UPS My Choice send me anything about it? I get those texts.")
    t.do("thread_get", {"thread_id": "th_6004", "limit": 8},
         {"thread_id": "th_6004", "title": "UPS My Choice", "participants": ["me", "UPS (short code 69877)"],
          "messages": [
              {"message_id": "sm_6004a", "sender": "UPS", "sent_at": "2025-11-06T09:48:00-07:00",
               "text": "UPS: Shipment 1Z4W7E830312661263 from RAVI MENON is scheduled for delivery on Sat 11/08 by "
                       "end of day. Delivery change: weather/volume delay at Hodgkins IL. Reply STOP to opt out."},
              {"message_id": "sm_6004b", "sender": "UPS", "sent_at": "2025-11-04T14:20:00-07:00",
               "text": "UPS: Your shipment 1Z4W7E830312661263 was picked up. Scheduled delivery Fri 11/07. Track: ups.com/t"},
              {"message_id": "sm_6004c", "sender": "UPS", "sent_at": "2025-11-04T14:21:00-07:00",
               "text": "UPS: Your shipment 1Z9R2A0F0391866044 was picked up. Scheduled delivery Mon 11/10."},
              {"message_id": "sm_6004d", "sender": "UPS", "sent_at": "2025-10-28T11:02:00-06:00",
               "text": "UPS: Your package 1Z0A91X70322118857 from B&H PHOTO was delivered. Left at: front door."},
              {"message_id": "sm_6004e", "sender": "UPS", "sent_at": "2025-10-27T07:40:00-06:00",
               "text": "UPS: Your package 1Z0A91X70322118857 from B&H PHOTO is out for delivery. Est. 12:00-4:00 PM."},
              {"message_id": "sm_6004f", "sender": "UPS", "sent_at": "2025-10-20T16:15:00-06:00",
               "text": "UPS My Choice: Confirm your delivery preferences. Vacation hold available in the app."}],
          "has_more": True}, request_id="msg-g-0141")
    t.asst("Yes: this morning UPS texted that the camera's delivery moved to Saturday Nov 8 (a weather/volume delay at "
           "the Hodgkins, IL hub), which matches what the carrier's tracking says. The Patagonia box is still due "
           "Monday.")
    t.user("Fine. Delete the Friday message and send her a correction: Saturday.")
    dl, _, _ = t.do("message_delete", {"message_id": "mk_a94e1", "scope": "everyone"}, None, "timeout",
                    idem="del-mk_a94e1", error={"code": "TIMEOUT", "message": "unsend not acknowledged in 20 s"})
    txt4 = "Small update: UPS now says Saturday Nov 8 instead of Friday. Sorry for the confusion!"
    m4, m4c = t.call("message_send", {"thread_id": TH, "text": txt4}, idem="send-th_7731-eta-02")
    t.approval("apr-msg-4", "requested", m4c, action="Send ETA correction to Jess")
    t.asst(f"The delete of the Friday message timed out; it may or may not be gone. Correction to send:\n\n{txt4}\n\n"
           "Send?")
    t.user("Send.")
    t.approval("apr-msg-4", "granted", m4c)
    t.result(m4, "succeeded", {"message_id": "mk_a97b3", "thread_id": TH, "status": "sent"}, request_id="msg-s-0131")
    t.asst("Sent (mk_a97b3).")
    t.user("What about the Patagonia box? Is it moving?")
    t.topic_switch("Patagonia return", previous="camera sale")
    t.do("carrier_track", {"tracking_number": "1Z9R2A0F0391866044"},
         {"trackingNumber": "1Z9R2A0F0391866044", "service": "UPS Ground (Returns)", "status": "in_transit",
          "package": {"weight_lb": 1.4}, "deliveryDate": "2025-11-10", "activity": [
              {"date": "20251105", "time": "031511", "location": "Commerce City, CO, US",
               "status": {"type": "I", "description": "Departed from Facility"}},
              {"date": "20251104", "time": "141205", "location": "Denver, CO, US",
               "status": {"type": "P", "description": "Pickup Scan"}}]}, request_id="ups-t-8102")
    t.asst("The return is on its way to Patagonia's returns centre, delivery expected Monday Nov 10. The exchange (L) "
           "is reserved until Nov 24, so that's fine.")
    t.topic_switch("camera sale", previous="Patagonia return")
    t.user("How much have I spent on ShipEasy this year? I'm selling a lot of old gear.")
    rows = [("2025-02-11", "Sony RX100 III", "USPS", "9400111206213851102233", "11.40", "delivered"),
            ("2025-03-02", "Manfrotto tripod", "UPS", "1Z4W7E830308812004", "24.90", "delivered"),
            ("2025-03-29", "Peak Design bag", "USPS", "9400111206213852209117", "13.65", "delivered"),
            ("2025-05-14", "GoPro Hero 9", "USPS", "9400111206213853301920", "9.80", "delivered"),
            ("2025-06-08", "DJI Mini 2", "UPS", "1Z4W7E830309915533", "21.75", "delivered"),
            ("2025-07-19", "Fuji XF 35mm f/2", "USPS", "9400111206213854412290", "12.30", "returned to sender"),
            ("2025-07-28", "Fuji XF 35mm f/2 (reship)", "USPS", "9400111206213854419921", "12.30", "delivered"),
            ("2025-09-03", "Godox flash", "USPS", "9400111206213855510042", "10.15", "delivered"),
            ("2025-11-03", "Fuji X-T3 (voided)", "UPS", "1Z4W7E830312660148", "0.00", "voided"),
            ("2025-11-03", "Fuji X-T3", "UPS", "1Z4W7E830312661263", "33.30", "in_transit"),
            ("2025-11-04", "Fuji XF 56mm", "USPS", "9400111206213859014477", "14.10", "in_transit")]
    t.do("shipments_list", {"from": "2025-01-01", "to": "2025-11-06", "account": "ravi.menon"},
         {"account": "ravi.menon", "shipments": [{"date": d, "description": de, "carrier": c, "tracking": tr,
                                                  "cost": co, "status": st} for d, de, c, tr, co, st in rows],
          "totals": {"labels": "163.65", "adjustments": "6.45", "pickups": "6.50", "refunds": "-26.85"}},
         request_id="se-l-4001")
    t.asst("This year on ShipEasy: 11 labels, $163.65 in total (including today's $6.45 camera adjustment), plus the "
           "$6.50 pickup; the voided X-T3 label was refunded. The XF 35mm went out twice in July (the first came back "
           "to sender). If you're selling regularly, weighing boxes with the lens and padding in avoids adjustments "
           "like this week's.")
    t.user("Noted. Did the Friday message actually get deleted?")
    t.decision("d6-delete", [
        next_call("message_get", {"message_id": "mk_a94e1"}, "checking the delete needs the Friday message id"),
        tool_state("unknown", "the delete timed out and was never confirmed", call_id=dl),
        pending("the delete call is unresolved", call_id=dl),
        tool_state("succeeded", "the correction was sent", call_id=m4, request_id="msg-s-0131"),
    ])
    t.asst("I can't confirm it: the delete request never got an answer and I haven't verified it. Either way she has "
           "the Saturday correction, which is what matters.")
    t.system("Saturday: 2025-11-08 15:20 MST.")
    t.user("Did Amit get his lens? He's away, the neighbour was supposed to take it.")
    t.do("shipment_track", {"tracking_number": "9400111206213859014477"},
         {"tracking_number": "9400111206213859014477", "carrier": "USPS", "status": "delivered",
          "delivered_at": "2025-11-06T13:41:00-07:00", "location": "Front door/porch", "weight_lb": 1.6,
          "billed_amount": "14.10", "events": [
              {"at": "2025-11-04T17:10:00-07:00", "desc": "Accepted at USPS origin facility", "where": "Denver, CO 80205"},
              {"at": "2025-11-05T06:02:00-07:00", "desc": "Arrived at USPS regional facility", "where": "Denver CO Distribution Center"},
              {"at": "2025-11-06T08:11:00-07:00", "desc": "Out for delivery", "where": "Denver, CO 80205"},
              {"at": "2025-11-06T13:41:00-07:00", "desc": "Delivered, front door/porch", "where": "Denver, CO 80205"}],
          "source": "ShipEasy"}, request_id="se-t-3150")
    t.asst("Delivered Thursday at 13:41 to the front door/porch at his Clarkson St address. Worth asking the neighbour "
           "to grab it if they haven't.")
    t.user("I'll text the neighbour myself. Jess just messaged. What does she say?")
    t.do("thread_get", {"thread_id": TH, "limit": 3},
         {"thread_id": TH, "messages": [
             {"message_id": "mk_a97b3", "sender": "me", "sent_at": "2025-11-06T10:12:00-07:00", "text": txt4},
             {"message_id": "mk_a9c02", "sender": "c_jess", "sent_at": "2025-11-08T14:55:00-06:00",
              "text": "Got it!! Signed for it at the door. Camera looks perfect, thank you so much for packing it so well."}],
          "has_more": True}, request_id="msg-g-0160")
    t.asst("She got it: signed at the door, camera looks perfect, and she thanks you for the packing.")
    t.user("Lovely. Anything else new in my messages about the gear sales?")
    tl = threads(r)
    for th_ in tl["threads"]:
        if th_["thread_id"] == TH:
            th_["last_message_preview"] = "Jess: Left you a 5-star review on Marketplace 🙂"
            th_["unread_count"] = 1
        if th_["thread_id"] == "th_4050":
            th_["last_message_preview"] = "Derek: no worries, let me know if you sell the 56mm"
            th_["unread_count"] = 1
        if th_["thread_id"] == "th_3319":
            th_["last_message_preview"] = "Amit: neighbour has it, lens is gorgeous, thanks man"
            th_["unread_count"] = 1
        if th_["thread_id"] == "th_6120":
            th_["last_message_preview"] = "Patagonia: Your exchange has shipped!"
            th_["unread_count"] = 1
    t.do("threads_list", {"limit": 12, "unread_only": False}, tl, request_id="msg-l-0180")
    t.asst("New: Jess left you a 5-star review; Amit says the neighbour has the lens and he loves it; Derek asks to "
           "hear about it if you ever sell the 56mm (too late); and Patagonia says your exchange has shipped.")
    t.user("Reply to Amit: 'Glad you like it! Enjoy the bokeh.'")
    t.decision("d7-reply-amit", [
        next_call("message_send", {"thread_id": "th_3319"}, "Amit's thread id from the threads list, 100+ events back"),
        tool_state("succeeded", "the earlier tracking message to Amit went out", call_id=m5),
        fact("status", "delivered", "the lens reached Amit", subject="tracking_number=9400111206213859014477"),
    ])
    m6, m6c = t.call("message_send", {"thread_id": "th_3319", "text": "Glad you like it! Enjoy the bokeh."},
                     idem="send-th_3319-thanks-01")
    t.approval("apr-msg-amit-2", "requested", m6c, action="Send reply to Amit")
    t.asst("To Amit: 'Glad you like it! Enjoy the bokeh.' Send?")
    t.user("Yes.")
    t.approval("apr-msg-amit-2", "granted", m6c)
    t.result(m6, "succeeded", {"message_id": "im_34012", "thread_id": "th_3319", "status": "delivered"},
             request_id="msg-s-0190")
    t.asst("Sent.")
    t.user("Ha, Derek. Any news from Patagonia on the exchange?")
    t.do("return_get", {"rma_id": RMA},
         {"rma_id": RMA, "merchant": "Patagonia", "order_id": "PTG-88412091", "status": "exchange_shipped",
          "received_at": "2025-11-10T11:02:00-05:00", "inspection": "passed",
          "items": [{"sku": "84212-BLK-M", "title": "Nano Puff Jacket, Black, M", "qty": 1, "refund": "0.00",
                     "reason": "exchanged"}],
          "exchange": {"sku": "84212-BLK-L", "title": "Nano Puff Jacket, Black, L", "shipped": "2025-11-10",
                       "carrier": "UPS", "tracking_number": "1Z9R2A0F0392011873", "eta": "2025-11-14"},
          "note": "No charge for the exchange. Return shipping was prepaid."}, request_id="se-rt-3020")
    t.asst("Patagonia received the M on Nov 10, it passed inspection, and the L shipped the same day: UPS "
           "1Z9R2A0F0392011873, due Friday Nov 14. No charge.")
    t.user("Great. Pull the whole Jess thread first, I want to screenshot it in case PayPal ever asks.")
    full_extra = [
        ("me", "2025-11-03T20:55", txt1),
        ("c_jess", "2025-11-03T21:12", "Thank you!! Oh no, I just realized I typed my apartment wrong. It's 2F, not 2R. "
                                      "4418 N Winchester Ave Apt 2F. So sorry!!"),
        ("me", "2025-11-03T21:40", txt2),
        ("me", "2025-11-04T18:41", txt3),
        ("c_jess", "2025-11-04T19:02", "Yay! I'll be home Friday."),
        ("me", "2025-11-06T10:12", txt4),
        ("c_jess", "2025-11-06T10:30", "No worries, I'm around Saturday too."),
        ("c_jess", "2025-11-08T14:55", "Got it!! Signed for it at the door. Camera looks perfect, thank you so much for "
                                      "packing it so well."),
        ("c_jess", "2025-11-08T15:01", "Left you a 5-star review on Marketplace 🙂"),
    ]
    full = jess_thread(__import__("random").Random(1011), full_extra)
    listing = {"title": "Fujifilm X-T3 + XF 18-55mm, excellent", "price": "780.00", "status": "pending sale",
               "buyer_review": {"stars": 5, "text": "Great seller, honest description, perfectly packed."}}
    t.do("thread_get", {"thread_id": TH, "limit": 12, "order": "oldest_first"},
         {**full, "listing": listing, "messages": full["messages"][:12], "has_more": True, "cursor": "cGFnZToy"},
         request_id="msg-g-0170")
    t.do("thread_get", {"thread_id": TH, "limit": 12, "order": "oldest_first", "cursor": "cGFnZToy"},
         {"thread_id": TH, "messages": full["messages"][12:], "has_more": False}, request_id="msg-g-0171")
    t.asst("Here's the full thread with Jess: the listing questions, the $780 deal, her address (and the 2R→2F fix), "
           "your tracking and ETA messages, the Saturday correction, her delivery confirmation and a 5-star review. "
           "Note the thread still shows your 'Friday' message (Nov 4, 18:41), so the delete didn't take effect on "
           "this copy, or hasn't yet.")
    for q, a in [
        ("Does PayPal need anything else from me to protect the sale?",
         "For seller protection on goods & services, PayPal wants the shipment to the address on the transaction "
         "with online tracking, and for items over $750, signature confirmation. You have both: UPS tracking with a "
         "signed delivery to Apt 2F. One catch: if Jess's PayPal address still says 2R, keep this thread as proof "
         "she asked for 2F."),
        ("Should I leave Jess a review too?",
         "Yes, it helps both of you: buyers with reviews get faster replies from sellers. Something short like 'Quick "
         "payment, clear communication, easy to deal with' is typical. I can't post Marketplace reviews for you, but "
         "it's under the listing's 'Rate buyer' button."),
        ("Good point. Should I mark the listing sold now?",
         "Yes: it's delivered, signed for and reviewed. Marking it sold also stops new inquiries."),
    ]:
        t.user(q)
        t.asst(a)
    t.user("Ok. Summary of the whole thing for my records?")
    t.decision("d8-summary", [
        next_call("return_get", {"rma_id": RMA}, "the RMA typed once at the start of the return topic"),
        fact("tracking_number", "1Z4W7E830312661263", "the live label replaced the voided one",
             subject="order_id=mkt-xt3-jess", superseded=["1Z4W7E830312660148"]),
        fact("weight_lb", 5.1, "the settled weight after the adjustment", subject="tracking_number=1Z4W7E830312661263",
             superseded=[3.2]),
        tool_state("unknown", "the delete is still unconfirmed at the end", call_id=dl),
        evidence([w2, w3], "the carrier's audit and the platform's adjustment that settled it"),
    ], note="late")
    t.asst("Camera sale: Fuji X-T3 + 18-55 to Jess Marlowe, $780 via PayPal G&S. UPS Ground with signature and $780 "
           "coverage, tracking 1Z4W7E830312661263 (the first label, 1Z4W7E830312660148 to the wrong apartment, was "
           "voided and refunded). Label $26.85 plus a $6.45 weight adjustment (5.1 lb actual, billed 6 lb). Delivered "
           "and signed Saturday Nov 8. The 'Friday' message delete was never confirmed.\nReturn: Patagonia "
           "PTG-RMA-558210, Nano Puff M for an L, tracking 1Z9R2A0F0391866044, due at Patagonia Nov 10. Pickup fee $6.50.")
    t.user("Perfect, thanks.")
    t.asst("Anytime. Mark the listing sold when you get a moment.")
    return t
