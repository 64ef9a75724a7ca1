"""07: domain of choice, insurance: an auto hail claim from first notice to settlement."""

from lib import Traj, constraint, evidence, fact, next_call, pending, tool_state
from tools import pick

FILENAME = "07_hail-claim.jsonl"
POL = "HX-4471-209-88"
CLM = "CLM-25-0931877"
VIN = "JTMB1RFV4ND087312"
ROUTING = "102001017"
ACCT = "7781204456"


def declarations():
    return {
        "policy_number": POL, "insurer": "Front Range Mutual", "product": "Personal Auto", "state": "CO",
        "term": {"effective": "2025-06-14", "expires": "2025-12-14"}, "status": "in_force",
        "named_insured": ["Carlos Mendez", "Ana Mendez"], "garaging_address": "15402 E Alameda Pl, Aurora, CO 80017",
        "vehicles": [
            {"unit": 1, "year": 2022, "make": "Toyota", "model": "RAV4 XLE", "vin": VIN, "use": "commute",
             "coverages": {"bodily_injury": "100000/300000", "property_damage": "100000", "uninsured_motorist": "100000/300000",
                           "med_pay": "5000", "comprehensive_deductible": "500.00", "collision_deductible": "1000.00",
                           "rental_reimbursement": {"per_day": "40.00", "max": "1200.00"},
                           "roadside": True, "full_glass": False},
             "lienholder": "Toyota Motor Credit Corp, PO Box 105386, Atlanta GA"},
            {"unit": 2, "year": 2016, "make": "Honda", "model": "Civic LX", "vin": "2HGFC2F59GH541190", "use": "pleasure",
             "coverages": {"bodily_injury": "100000/300000", "property_damage": "100000", "comprehensive_deductible": "1000.00",
                           "collision_deductible": None, "rental_reimbursement": None, "roadside": True}}],
        "drivers": [{"name": "Carlos Mendez", "license_state": "CO", "status": "rated"},
                    {"name": "Ana Mendez", "license_state": "CO", "status": "rated"},
                    {"name": "Luis Mendez", "license_state": "CO", "status": "rated (youthful)"}],
        "endorsements": ["FRM-115 Rental Reimbursement", "FRM-204 Roadside Assistance", "FRM-310 Rideshare Exclusion"],
        "term_changes": [{"date": "2025-06-14", "change": "Renewal. Unit 1 comprehensive deductible changed from 1000.00 to 500.00 at insured's request."}],
        "premium": {"term_total": "1488.20", "paid_through": "2025-11-14", "billing": "monthly EFT"},
        "discounts": ["multi-car", "homeowner", "paid-in-full (not applied: monthly)", "good student (Luis Mendez)",
                      "anti-theft", "paperless"],
        "billing_history": [{"date": f"2025-{m:02d}-14", "amount": "248.03", "status": "paid"} for m in range(6, 11)],
        "forms": ["FRM-PA-01 (06/23) Personal Auto Policy", "FRM-CO-AMD (01/24) Colorado Amendatory Endorsement",
                  "FRM-115 (06/23) Rental Reimbursement", "FRM-204 (06/23) Roadside Assistance",
                  "FRM-310 (01/24) Rideshare Exclusion", "FRM-DEC (06/25) Declarations"],
        "agent": {"name": "Sunita Rao Insurance", "phone": "+1 303 555 0140"},
    }


def shops(rng):
    rows = [
        ("SHOP-CO-2291", "Peak Auto Body – Aurora", "2.1", 4.8, "PDR + conventional", True, "3-4 days"),
        ("SHOP-CO-1870", "Colorado Hail Pros (mobile PDR tent)", "3.4", 4.6, "PDR only", True, "2 days, 3 weeks wait"),
        ("SHOP-CO-0455", "Caliber Collision – Aurora Havana", "4.0", 4.2, "conventional + PDR", True, "5-7 days"),
        ("SHOP-CO-3106", "Gerber Collision & Glass – Centennial", "7.8", 4.1, "conventional", True, "6-8 days"),
        ("SHOP-CO-2702", "Mile High Dent Works", "5.5", 4.9, "PDR only", False, "1-2 days"),
        ("SHOP-CO-0913", "Service King – Parker Rd", "6.2", 3.9, "conventional", True, "7-10 days"),
        ("SHOP-CO-3330", "Elite Autobody Aurora", "1.7", 4.4, "conventional + PDR", False, "4-6 days"),
    ]
    out = []
    for sid, name, mi, rating, kind, drp, turn in rows:
        out.append({"shop_id": sid, "name": name, "distance_mi": mi, "rating": rating, "repair_methods": kind,
                    "direct_repair_program": drp, "typical_turnaround": turn,
                    "lifetime_warranty": drp, "loaner_or_rental_desk": drp and sid != "SHOP-CO-1870",
                    "next_available_estimate": f"2025-10-0{rng.randint(1, 3)}"})
    return {"zip": "80017", "radius_mi": 10, "results": out,
            "note": "Direct Repair Program shops bill Front Range Mutual directly and guarantee repairs for as long as you own the car."}


def estimate(deductible="500.00"):
    lines = [
        ("Roof panel", "PDR", "R&I headliner, PDR 38 dents (large, aluminum)", "1240.00"),
        ("Hood", "PDR", "PDR 22 dents (medium)", "610.00"),
        ("Left roof rail", "Repair", "Refinish", "185.40"),
        ("Right roof rail", "Repair", "Refinish", "185.40"),
        ("Liftgate", "PDR", "PDR 9 dents", "260.00"),
        ("Left fender", "PDR", "PDR 6 dents", "145.00"),
        ("Right fender", "PDR", "PDR 5 dents", "125.00"),
        ("Windshield", "Replace", "OEM glass w/ acoustic layer, camera bracket", "1126.80"),
        ("ADAS calibration", "Sublet", "Forward camera static calibration (TSS 2.5)", "385.00"),
        ("Moldings", "Replace", "Windshield upper molding (OEM)", "62.35"),
        ("Roof rack crossbars", "R&I", "Remove and install", "48.00"),
        ("Headliner", "R&I", "Remove and install for roof access", "220.00"),
        ("Refinish materials", "Materials", "Paint and materials, 2.4 hrs", "118.80"),
        ("Hazardous waste", "Misc", "Disposal", "6.50"),
        ("Shop supplies", "Misc", "Per estimate", "42.00"),
    ]
    out = [{"line": i + 1, "panel": p, "operation": op, "description": d, "amount": a}
           for i, (p, op, d, a) in enumerate(lines)]
    return {"claim_number": CLM, "shop_id": "SHOP-CO-2291", "shop": "Peak Auto Body – Aurora",
            "estimate_id": "EST-PAB-55021", "version": 1, "written": "2025-10-02", "estimator": "R. Duran",
            "vehicle": {"vin": VIN, "description": "2022 Toyota RAV4 XLE", "odometer": 31877, "color": "Lunar Rock"},
            "lines": out, "labor_rate": {"body": "62.00", "refinish": "62.00", "pdr": "per dent matrix"},
            "subtotal": "4760.25", "tax": "101.92", "estimate_total": "4862.17",
            "insurance": {"carrier": "Front Range Mutual", "claim_number": CLM, "deductible": deductible,
                          "deductible_source": "customer declarations page"},
            "repair_days": 4, "parts_eta": "windshield 2025-10-06"}


def claim(deductible, offer, appraisal="4120.55", status="estimate_review", notes=None, rental=None):
    c = {"claim_number": CLM, "policy_number": POL, "status": status, "coverage": "comprehensive",
         "loss": {"date": "2025-09-27", "type": "hail", "location": "15402 E Alameda Pl, Aurora, CO (driveway)"},
         "vehicle": {"unit": 1, "vin": VIN, "description": "2022 Toyota RAV4 XLE"},
         "adjuster": {"name": "Brianna Holt", "id": "ADJ-4471", "phone": "+1 303 555 0199", "email": "bholt@frontrangemutual.com"},
         "deductible": deductible, "appraisal": {"type": "photo desk review", "total": appraisal, "date": "2025-10-02"},
         "shop": {"shop_id": "SHOP-CO-2291", "estimate_total": "4862.17", "supplement_status": "received"},
         "settlement_offer": offer, "lienholder_on_check": "Toyota Motor Credit Corp",
         "documents": 6, "activity": notes or []}
    if rental:
        c["rental"] = rental
    return c



LETTER = (
    "Front Range Mutual Insurance Company\nClaims Department, PO Box 17720, Denver, CO 80217\n\n"
    "October 3, 2025\n\nCarlos Mendez and Ana Mendez\n15402 E Alameda Pl\nAurora, CO 80017\n\n"
    "Re: Claim CLM-25-0931877 | Policy HX-4471-209-88 | Date of loss 09/27/2025 | 2022 Toyota RAV4 XLE\n\n"
    "Dear Mr. and Mrs. Mendez,\n\nThis letter confirms the settlement of the physical damage portion of the "
    "above claim under the Comprehensive coverage of your policy. Our payment is based on the repair estimate "
    "prepared by Peak Auto Body - Aurora (estimate EST-PAB-55021, version 1) in the amount of $4,862.17, less your "
    "Comprehensive deductible of $500.00, for a payment of $4,362.17 issued directly to the repair facility under our "
    "Direct Repair Program. You are responsible for paying the deductible to the repair facility when you pick up "
    "your vehicle.\n\nIf additional damage is found during repairs, the repair facility will submit a supplement, "
    "which we will review promptly. Approved supplements are paid to the repair facility and do not require a "
    "second deductible. Repairs performed by a Direct Repair Program facility are guaranteed for as long as you own "
    "the vehicle.\n\nRental reimbursement is available under endorsement FRM-115 at up to $40.00 per day, to a "
    "maximum of $1,200.00, for the period the vehicle is being repaired, plus reasonable time to complete the "
    "repair. Enterprise reservation ENT-CO-7729114 is billed directly to us.\n\nColorado law requires us to "
    "inform you that you may request a copy of the estimate and any photographs used to adjust your claim, and that "
    "if you disagree with the amount of the loss you may invoke the appraisal provision of your policy by written "
    "demand within 60 days. You may also contact the Colorado Division of Insurance, 1560 Broadway, Suite 850, "
    "Denver, CO 80202, telephone 303-894-7490.\n\nSincerely,\nBrianna Holt, Senior Property Damage Adjuster "
    "(ADJ-4471)\nDirect: 303-555-0199 | bholt@frontrangemutual.com"
)


def build() -> Traj:
    t = Traj(id="svc-hail-claim", title="Auto hail claim: a wrong deductible in the claim file, rental, settlement",
             exercises=["the claim file and the shop estimate disagree about the deductible, settled by a corrected claim",
                        "a policy number, a date and bank details typed once and needed for late calls",
                        "a rental request that times out and is resolved by a status query",
                        "a message to the adjuster that times out and stays unresolved",
                        "an irreversible settlement acceptance behind an approval, gated on the user's condition",
                        "a date-of-loss correction; topic switch to the second car and back"],
             description="A policyholder files a comprehensive claim for hail damage, uploads photos, picks a direct "
                         "repair shop, asks for a rental, finds the claim file applies last term's $1,000 deductible "
                         "instead of $500, gets it corrected, and accepts the settlement paid by direct deposit.",
             tools=pick("policy_get", "claim_get", "claim_file", "claim_upload_document", "shop_get_estimate",
                        "claim_accept_settlement", "claim_request_rental", "claim_message_adjuster", "shop_find",
                        "payment_get"),
             seed=707)
    r = t.rng
    t.system("You are the claims assistant of Front Range Mutual. You can read policies and claims, file claims, "
             "upload documents, message adjusters and accept settlements on the policyholder's behalf. Accepting a "
             "settlement is final and needs the policyholder's explicit approval.")
    t.user(f"Hi. Our RAV4 got destroyed by hail over the weekend. I need to file a claim. Policy number {POL}.")
    _, _, dec = t.do("policy_get", {"policy_number": POL}, declarations(), request_id="frm-p-00912")
    t.asst("I'm sorry about the car. Your policy is in force. The 2022 RAV4 (unit 1) has comprehensive coverage, "
           "which covers hail, with a $500 deductible since your June renewal (it was $1,000 before). You also have "
           "rental reimbursement ($40/day, up to $1,200) and no full-glass coverage, so a windshield would fall under "
           "the same comprehensive deductible. Tell me when and where it happened and what's damaged.")
    t.user("Sept 28 in our driveway at home in Aurora. Roof and hood are full of dents, and the windshield has a big "
           "crack across the passenger side. The car was parked outside because the garage is full of boxes.")
    t.fact("date_of_loss", "2025-09-28", subject={"policy_number": POL})
    t.user("Wait, actually it was Saturday night, so the 27th. The storm hit around 9pm.")
    t.correction("date_of_loss", "2025-09-27", subject={"policy_number": POL}, replaces="2025-09-28")
    t.decision("d1-file", [
        next_call("claim_file", {"policy_number": POL, "date_of_loss": "2025-09-27"},
                  "the policy number from the first message and the corrected date"),
        fact("date_of_loss", "2025-09-27", "the user corrected the date", subject=f"policy_number={POL}",
             superseded=["2025-09-28"]),
    ], note="early")
    fl, _, _ = t.do("claim_file", {"policy_number": POL, "vehicle_unit": 1, "date_of_loss": "2025-09-27",
                                   "time_of_loss": "21:00", "cause": "hail",
                                   "location": "15402 E Alameda Pl, Aurora, CO 80017",
                                   "description": "Vehicle parked in driveway during hail storm. Dents to roof and hood, "
                                                  "windshield cracked on passenger side.", "drivable": True},
                    {"claim_number": CLM, "status": "open", "coverage": "comprehensive",
                     "adjuster": {"name": "Brianna Holt", "id": "ADJ-4471"},
                     "cat_notice": ("Front Range Mutual has declared catastrophe CAT-CO-2509-HAIL for the severe hail "
                                    "storms of September 27-28, 2025 in Adams, Arapahoe, Denver and Douglas counties. "
                                    "Because of the volume of claims, photo-based desk reviews are being used for most "
                                    "vehicles; an in-person inspection can be requested. Mobile hail repair centers "
                                    "are open at Town Center at Aurora and Park Meadows. Please do not authorize "
                                    "repairs at a shop outside the Direct Repair Program without first contacting "
                                    "your adjuster, and beware of door-to-door 'hail chasers' offering to waive or "
                                    "pay your deductible, which is illegal in Colorado (C.R.S. 10-4-1101)."),
                     "next_steps": [
                         "Upload photos of all damaged panels and the odometer", "Choose a repair shop",
                         "Request a rental if needed"], "catastrophe_code": "CAT-CO-2509-HAIL"},
                    idem=f"fnol-{POL}-20250927-hail", request_id="frm-c-10031")
    t.asst(f"Filed: claim {CLM}, comprehensive, adjuster Brianna Holt. It's tagged to the Sept 27 Front Range hail "
           "catastrophe. Next: photos of each damaged panel and the odometer, a repair shop, and a rental if you "
           "need one.")
    t.user("Quick question first: why is it comprehensive and not collision? It's damage to the car either way.")
    t.asst("Collision covers damage from hitting something (another car, a pole, rolling over). Comprehensive covers "
           "almost everything else that damages the car when you're not colliding: hail, falling trees, flood, fire, "
           "theft, vandalism and animal strikes. It matters for you because the deductibles differ: $500 for "
           "comprehensive on the RAV4 versus $1,000 for collision, and comprehensive claims for weather generally "
           "aren't treated as at-fault.")
    t.user("Ok good. I'm sending you the photos now: roof, hood, windshield, odometer.")
    docs = []
    for i, (name, kb) in enumerate([("roof_wide.jpg", 4211), ("hood_closeup.jpg", 3880), ("windshield.jpg", 3102),
                                    ("odometer.jpg", 1450), ("liftgate.jpg", 2990), ("fenders.jpg", 3355)]):
        cid, _, _ = t.do("claim_upload_document", {"claim_number": CLM, "file_name": name, "category": "photo"},
                         {"document_id": f"DOC-{877100 + i}", "claim_number": CLM, "file_name": name, "size_kb": kb,
                          "status": "received", "ai_damage_tags": {"roof_wide.jpg": ["hail dents", "roof"],
                                                                   "hood_closeup.jpg": ["hail dents", "hood"],
                                                                   "windshield.jpg": ["glass crack"],
                                                                   "odometer.jpg": ["odometer 31,877"],
                                                                   "liftgate.jpg": ["hail dents", "liftgate"],
                                                                   "fenders.jpg": ["hail dents", "fender"]}[name]},
                         idem=f"doc-{CLM}-{name}", request_id=f"frm-d-2{i:04d}")
        docs.append(cid)
    t.asst("All six photos are on the claim (DOC-877100 to DOC-877105): roof, hood, windshield, odometer (31,877), "
           "and you added the liftgate and fenders too, good. Next is a shop: want me to find direct-repair shops "
           "near you?")
    t.user("What does the claim look like on your side now? And how long does this usually take?")
    c0 = claim("1000.00", None, appraisal=None, status="open",
               notes=[{"at": "2025-09-29T08:12:00-06:00", "by": "system", "text": "FNOL filed; CAT-CO-2509-HAIL"},
                      {"at": "2025-09-29T08:14:00-06:00", "by": "system", "text": "Assigned to ADJ-4471"},
                      {"at": "2025-09-29T08:20:00-06:00", "by": "system", "text": "6 photos received"}])
    c0["appraisal"] = {"type": "photo desk review", "status": "queued", "sla": "3 business days"}
    c0["shop"] = None
    c0["deductible_source"] = "policy term at date of loss"
    c0["sla"] = {"first_contact": "completed (automated)", "appraisal": "3 business days",
                 "payment_after_acceptance": "2 business days"}
    _, _, cl0 = t.do("claim_get", {"claim_number": CLM}, c0, request_id="frm-c-10035")
    t.asst("The claim is open and assigned to Brianna Holt, with your six photos. A photo desk review is queued "
           "(about 3 business days during this catastrophe). Once a shop estimate and the appraisal are in, you get "
           "an offer; payment follows within 2 business days of accepting. Typical hail claims with a DRP shop take "
           "2-3 weeks from filing to pickup, mostly waiting for the shop's slot and parts.")
    t.user("Ok. Yes, near 80017, find shops. I'd like a place that does paintless dent repair.")
    t.do("shop_find", {"zip": "80017", "radius_mi": 10, "specialty": "hail"}, shops(r), request_id="frm-s-30017")
    t.asst("Closest direct-repair shops with paintless dent repair: Peak Auto Body – Aurora (2.1 mi, 4.8★, PDR and "
           "conventional, 3-4 days, has a rental desk), Colorado Hail Pros (mobile PDR tent, 4.6★, but a 3-week wait) "
           "and Caliber Collision – Aurora Havana (4.0 mi, 4.2★). Mile High Dent Works is 4.9★ but not in the "
           "program, so you'd pay and be reimbursed. Direct-repair shops bill us and guarantee the repair.")
    t.user("Peak Auto Body. And I need a rental, my wife needs the car for work. Something mid-size.")
    rent, _, _ = t.do("claim_request_rental", {"claim_number": CLM, "class": "midsize", "start": "2025-10-06",
                                               "pickup": "Peak Auto Body – Aurora (rental desk)", "shop_id": "SHOP-CO-2291"},
                      None, "timeout", idem=f"rental-{CLM}-01",
                      error={"code": "PARTNER_TIMEOUT", "message": "rental partner did not respond within 30 s"})
    t.asst("Peak Auto Body it is. The rental request timed out at the rental partner; it may still have gone through. "
           "I'll check on it rather than file a second one.")
    t.user("OK. Unrelated: should I also claim the Civic? It got a few dings too but it's old.")
    t.topic_switch("second car", previous="RAV4 claim")
    t.asst("The 2016 Civic (unit 2) has comprehensive with a $1,000 deductible. If the dings cost less than about "
           "$1,000 to fix, a claim wouldn't pay anything. Hail is a no-fault comprehensive claim, which usually doesn't "
           "surcharge your premium, but a second claim on the same storm still goes on your history. Get a quick PDR "
           "quote first; if it's under $1,000, pay it yourself.")
    t.user("Makes sense. Who does PDR quotes near us that isn't a big chain? Just for the Civic.")
    t.do("shop_find", {"zip": "80017", "radius_mi": 15, "specialty": "PDR", "include_non_drp": True},
         {"zip": "80017", "radius_mi": 15, "results": [
             {"shop_id": "SHOP-CO-2702", "name": "Mile High Dent Works", "distance_mi": "5.5", "rating": 4.9,
              "repair_methods": "PDR only", "direct_repair_program": False, "free_quote": True,
              "quote_by_photo": True, "hours": "Mon-Sat 8-6"},
             {"shop_id": "SHOP-CO-1870", "name": "Colorado Hail Pros (mobile PDR tent)", "distance_mi": "3.4",
              "rating": 4.6, "repair_methods": "PDR only", "direct_repair_program": True, "free_quote": True,
              "quote_by_photo": False, "hours": "tent at Town Center at Aurora through Oct 31"},
             {"shop_id": "SHOP-CO-4411", "name": "Dent Doctor Denver East", "distance_mi": "8.9", "rating": 4.7,
              "repair_methods": "PDR only", "direct_repair_program": False, "free_quote": True,
              "quote_by_photo": True, "hours": "Mon-Fri 9-5", "note": "mobile service available"},
             {"shop_id": "SHOP-CO-4520", "name": "Aurora Paintless Dent", "distance_mi": "2.9", "rating": 4.3,
              "repair_methods": "PDR only", "direct_repair_program": False, "free_quote": True,
              "quote_by_photo": True, "hours": "by appointment"},
             {"shop_id": "SHOP-CO-4603", "name": "Rocky Mountain Dent Co.", "distance_mi": "12.6", "rating": 4.8,
              "repair_methods": "PDR + glass", "direct_repair_program": False, "free_quote": True,
              "quote_by_photo": False, "hours": "Mon-Sat 7-7"}]}, request_id="frm-s-30044")
    t.asst("Independent PDR specialists: Mile High Dent Works (5.5 mi, 4.9★, quotes from photos), Dent Doctor Denver "
           "East (8.9 mi, 4.7★, can come to you), Aurora Paintless Dent (2.9 mi, 4.3★, photo quotes) and Rocky "
           "Mountain Dent Co. (12.6 mi, 4.8★). For a few dings on a Civic, a photo quote from Mile High is the quickest.")
    t.user("I'll send them photos. Back to the RAV4: did the rental go through?")
    t.topic_switch("RAV4 claim", previous="second car")
    t.decision("d2-rental", [
        tool_state("unknown", "the rental request timed out and is unchecked", call_id=rent),
        next_call("claim_get", {"claim_number": CLM}, "the claim number came back from claim_file"),
        fact("claim_number", CLM, "the claim number returned by claim_file"),
    ])
    t.status_query(rent, "succeeded", request_id="frm-rr-40221",
                   result={"rental": {"partner": "Enterprise", "reservation": "ENT-CO-7729114", "class": "midsize",
                                      "start": "2025-10-06", "daily_rate_covered": "40.00", "max_days": 30}},
                   checked_via="GET /claims/CLM-25-0931877/rental")
    t.asst("It did go through: Enterprise reservation ENT-CO-7729114, mid-size, from Monday Oct 6 at the Peak Auto Body "
           "rental desk, covered at $40/day up to 30 days (the policy's $1,200 maximum).")
    t.user("What does my wife need at the rental pickup? And does my insurance cover the rental if she scratches it?")
    t.asst("She needs her driver's license and a credit card in her name for Enterprise's incidental deposit (usually "
           "$200, released at return); the daily rate up to $40 is billed to us. Your policy's liability and "
           "collision/comprehensive extend to a rental car used while yours is in the shop, with the same deductibles, "
           "so she can decline Enterprise's damage waiver. Upgrades or fuel are on you.")
    t.user("Peak sent me a repair authorization form to sign. I signed it, can you attach it to the claim?")
    t.do("claim_upload_document", {"claim_number": CLM, "file_name": "peak_repair_authorization_signed.pdf",
                                   "category": "authorization"},
         {"document_id": "DOC-877140", "claim_number": CLM, "file_name": "peak_repair_authorization_signed.pdf",
          "size_kb": 212, "status": "received", "pages": 2}, idem=f"doc-{CLM}-peak-auth", request_id="frm-d-20019")
    t.asst("Attached as DOC-877140 (2 pages).")
    for q, a in [
        ("Is it safe to drive with the cracked windshield until Monday?",
         "Short trips are usually fine if the crack isn't in the driver's line of sight and the glass isn't "
         "chipping, but Colorado law prohibits driving with a windshield that obstructs the driver's view, and a "
         "crack can spread quickly with temperature swings. Avoid the highway and car washes, and don't use the "
         "defroster on full heat against cold glass."),
        ("Will the camera-based lane keeping still work?",
         "It may behave oddly if the crack crosses the camera's field of view near the rear-view mirror. Don't rely "
         "on lane tracing or pre-collision braking until the glass is replaced and the camera is calibrated, which "
         "is why the calibration is part of the repair."),
    ]:
        t.user(q)
        t.asst(a)
    t.system("Three days later: 2025-10-03 10:14 MDT.")
    t.user("Hi again. Peak says they sent their estimate. Can you see it?")
    _, _, est = t.do("shop_get_estimate", {"claim_number": CLM}, estimate(), request_id="frm-e-50021")
    t.asst("Peak's estimate EST-PAB-55021: $4,862.17. The big items: roof PDR with the headliner out ($1,240 + $220), "
           "hood PDR ($610), OEM windshield with camera bracket ($1,126.80) and the forward-camera calibration ($385), "
           "plus smaller PDR on the liftgate and fenders and roof-rail refinish. Four days in the shop; the windshield "
           "arrives Oct 6. The estimate lists your deductible as $500.")
    t.user("So what will insurance pay?")
    notes = [{"at": "2025-10-02T16:05:00-06:00", "by": "ADJ-4471", "text": "Photo desk review complete; appraisal 4,120.55."},
             {"at": "2025-10-03T08:40:00-06:00", "by": "ADJ-4471", "text": "Shop supplement received (4,862.17). Windshield and ADAS agreed."},
             {"at": "2025-10-03T09:55:00-06:00", "by": "system", "text": "Settlement offer generated: 4,862.17 less deductible 1,000.00."}]
    _, _, cl1 = t.do("claim_get", {"claim_number": CLM},
                     claim("1000.00", {"gross": "4862.17", "deductible": "1000.00", "net": "3862.17",
                                       "payee": "shop (direct repair)", "status": "pending_acceptance",
                                       "offer_id": "OFR-0931877-1"}, notes=notes,
                           rental={"reservation": "ENT-CO-7729114", "start": "2025-10-06"}),
                     request_id="frm-c-10077")
    t.asst("The claim file accepts Peak's full $4,862.17, but it subtracts a $1,000 deductible, for a net offer of "
           "$3,862.17 (offer OFR-0931877-1). That disagrees with the shop's estimate and with your policy, which both "
           "say $500 for the RAV4 since June. It looks like the claim picked up last term's deductible. With $500 the "
           "net would be $4,362.17.")
    cond = t.user("That's $500 of my money. Don't accept anything with the $1,000 deductible. Message the adjuster and "
                  "get it fixed.")
    t.decision("d3-deductible", [
        evidence([cl0, est, cl1], "the claim file's $1,000 (first read 30+ events earlier, unnoticed then) and the "
                                  "shop's $500: the disagreeing readings"),
        next_call("claim_message_adjuster", {"claim_number": CLM}, "the claim number, many turns old"),
        constraint(cond, "Don't accept anything with the $1,000 deductible", "the acceptance is gated on the fix"),
        fact("estimate_total", "4862.17", "both the shop and the claim file agree on the repair amount",
             subject=f"claim_number={CLM}"),
    ])
    msg, _, _ = t.do("claim_message_adjuster", {"claim_number": CLM, "to": "ADJ-4471",
                                                "subject": "Deductible on CLM-25-0931877",
                                                "body": "Hi Brianna, the settlement offer applies a $1,000 deductible, "
                                                        "but the RAV4's comprehensive deductible has been $500 since "
                                                        "the June 14 renewal (see the term change on the policy). "
                                                        "Please correct the offer. Thank you, Carlos Mendez"},
                     None, "timeout", idem=f"msg-{CLM}-deductible-01",
                     error={"code": "TIMEOUT", "message": "messaging service did not acknowledge within 20 s"})
    t.asst("The message to Brianna timed out, so I can't confirm it was delivered. I won't send a duplicate right "
           "away. Her direct line is +1 303 555 0199 if you want to call as well.")
    t.user("I'll call her. Meanwhile: when I get paid, how? Does the money go to the shop or to me?")
    t.asst("Because Peak is a direct-repair shop, the repair amount is paid to the shop, and you pay your deductible "
           "to them at pickup. If you'd rather be paid yourself (for example to use a different shop), the check would "
           "also name your lienholder, Toyota Motor Credit, which slows things down. Direct deposit to you is possible "
           "only for amounts not going to the shop, such as rental overage refunds or a cash-out.")
    pay = t.user(f"Hmm, Peak said they'd waive part of the deductible if I paid them... no, forget it, that's not "
                 f"legit. Let's keep it simple: pay the shop. But if anything comes to me, use direct deposit: routing "
                 f"{ROUTING}, account {ACCT}, checking at Bellco.")
    t.fact("direct_deposit_routing", ROUTING)
    t.fact("direct_deposit_account", ACCT)
    t.asst("Right, a shop 'waiving' a deductible is insurance fraud in Colorado, good call. Noted: repair paid to the "
           "shop, anything payable to you by direct deposit to your Bellco checking.")
    for q, a in [
        ("Will the windshield be OEM? The camera thing worries me.",
         "Yes: Peak wrote OEM glass with the acoustic layer and the camera bracket, plus a static calibration of the "
         "forward camera (Toyota Safety Sense 2.5). Ask Peak for the calibration report at pickup; lane keeping and "
         "pre-collision braking depend on it."),
        ("How long will the whole thing take?",
         "Peak estimates 4 repair days once the windshield arrives Oct 6, so pickup around Oct 10 if nothing hidden "
         "turns up under the headliner. Hail repairs often find a few more dents once the headliner is out; the shop "
         "sends a supplement and we approve it, usually within a day."),
        ("Does this raise my premium?",
         "Comprehensive claims from weather are generally not chargeable, so no surcharge is applied for this claim. "
         "Area-wide rates in Colorado do rise after big hail years, but that's not tied to your claim."),
    ]:
        t.user(q)
        t.asst(a)
    t.user("I called Brianna. She says she fixed the deductible. Can you check?")
    t.decision("d4-after-call", [
        tool_state("unknown", "the adjuster message timed out and was never confirmed", call_id=msg),
        pending("the message call is still open", call_id=msg),
        next_call("claim_get", {"claim_number": CLM}, "re-reading the claim needs its number"),
    ])
    notes2 = notes + [{"at": "2025-10-03T13:20:00-06:00", "by": "ADJ-4471",
                       "text": "Insured called. Deductible corrected to 500.00 per 06/14 renewal term change. Offer reissued."}]
    _, _, cl2 = t.do("claim_get", {"claim_number": CLM},
                     claim("500.00", {"gross": "4862.17", "deductible": "500.00", "net": "4362.17",
                                      "payee": "shop (direct repair)", "status": "pending_acceptance",
                                      "offer_id": "OFR-0931877-2", "supersedes": "OFR-0931877-1"},
                           status="settlement_offered", notes=notes2,
                           rental={"reservation": "ENT-CO-7729114", "start": "2025-10-06"}),
                     request_id="frm-c-10102")
    t.asst("Fixed: the claim now shows a $500 deductible and a new offer OFR-0931877-2: $4,862.17 less $500, "
           "$4,362.17 paid to Peak Auto Body. The old $1,000 offer is superseded. My earlier message to her still "
           "shows no delivery confirmation, but it doesn't matter now.")
    t.user("Great. Accept it.")
    t.decision("d5-accept", [
        fact("deductible", "500.00", "the corrected claim matches the policy and the shop",
             subject=f"claim_number={CLM}", superseded=["1000.00"]),
        constraint(cond, "$1,000 deductible", "the new offer satisfies the user's condition"),
        next_call("claim_accept_settlement", {"claim_number": CLM, "offer_id": "OFR-0931877-2"},
                  "the new offer id, not the superseded one"),
    ])
    ac, acc = t.call("claim_accept_settlement", {"claim_number": CLM, "offer_id": "OFR-0931877-2",
                                                 "payee": "shop", "shop_id": "SHOP-CO-2291",
                                                 "insured_payment_method": {"type": "direct_deposit",
                                                                            "routing": ROUTING, "account": ACCT}},
                     idem=f"accept-{CLM}-OFR-0931877-2")
    t.approval("apr-accept-ofr2", "requested", acc,
               action="Accept OFR-0931877-2: $4,362.17 to Peak Auto Body; deductible $500 payable by insured")
    t.asst("To confirm: accept offer OFR-0931877-2, $4,362.17 paid to Peak Auto Body – Aurora, you pay the $500 "
           "deductible at pickup, and any amount due to you goes by direct deposit to Bellco (routing 102001017). "
           "Accepting is final, though supplements for hidden damage can still be added. Accept?")
    t.user("Yes, accept.")
    t.approval("apr-accept-ofr2", "granted", acc)
    acr = t.result(ac, "succeeded", {"claim_number": CLM, "offer_id": "OFR-0931877-2", "status": "accepted",
                                     "payment": {"payment_id": "PAY-0931877-01", "payee": "Peak Auto Body – Aurora",
                                                 "amount": "4362.17", "method": "EFT to shop",
                                                 "scheduled": "2025-10-06"},
                                     "accepted_at": "2025-10-03T13:31:08-06:00"}, request_id="frm-a-60011")
    t.asst("Accepted. Payment PAY-0931877-01, $4,362.17 to Peak by EFT, scheduled for Monday Oct 6.")
    t.system("Five days later: 2025-10-08 16:40 MDT.")
    t.user("Peak called: they found more damage under the headliner, a few more roof dents and a bent roof bow. "
           "They sent a supplement. What now?")
    _, _, est2 = t.do("shop_get_estimate", {"claim_number": CLM},
                      {**estimate(), "version": 2, "written": "2025-10-08",
                       "supplement": [{"line": 16, "panel": "Roof bow #2", "operation": "Repair", "description": "Straighten, 1.5 hrs", "amount": "93.00"},
                                      {"line": 17, "panel": "Roof panel", "operation": "PDR", "description": "Additional 11 dents found after headliner removal", "amount": "330.00"},
                                      {"line": 18, "panel": "Headliner clips", "operation": "Replace", "description": "Clips (8)", "amount": "24.40"}],
                       "supplement_total": "447.40", "estimate_total": "5309.57"}, request_id="frm-e-50088")
    t.asst("Supplement 1 on EST-PAB-55021: $447.40 (roof bow straightening, 11 more roof dents, headliner clips), "
           "bringing the repair to $5,309.57. Supplements on an accepted claim go to the adjuster for approval; your "
           "deductible doesn't change, it's applied once. Peak submits it, I'll check the payment once it's approved.")
    t.user("Will the supplement delay the car? My wife's rental is only covered so long.")
    act = [
        ("2025-09-29T08:12", "FNOL filed by insured via digital assistant; CAT-CO-2509-HAIL"),
        ("2025-09-29T08:14", "Assigned to ADJ-4471 (B. Holt)"),
        ("2025-09-29T08:20", "6 photos received (DOC-877100..877105)"),
        ("2025-09-29T08:31", "DRP shop selected: SHOP-CO-2291 Peak Auto Body - Aurora"),
        ("2025-09-29T08:33", "Rental requested (midsize), Enterprise ENT-CO-7729114 from 2025-10-06"),
        ("2025-10-02T16:05", "Photo desk review complete; appraisal 4,120.55"),
        ("2025-10-03T08:40", "Shop estimate EST-PAB-55021 v1 received: 4,862.17"),
        ("2025-10-03T09:55", "Offer OFR-0931877-1 generated (deductible 1,000.00)"),
        ("2025-10-03T13:20", "Deductible corrected to 500.00 per 06/14 renewal; offer OFR-0931877-2 issued"),
        ("2025-10-03T13:31", "OFR-0931877-2 accepted by insured"),
        ("2025-10-06T07:30", "Vehicle dropped at shop; rental started"),
        ("2025-10-06T10:02", "Payment PAY-0931877-01 4,362.17 EFT to shop"),
        ("2025-10-08T15:10", "Supplement 1 received: 447.40 (roof bow, additional dents, clips)"),
        ("2025-10-08T16:02", "Supplement 1 approved by ADJ-4471"),
        ("2025-10-08T16:03", "Repair completion estimate moved to 2025-10-14 (parts: headliner clips backorder)"),
    ]
    _, _, cl3 = t.do("claim_get", {"claim_number": CLM, "include": ["activity", "rental"]},
                     claim("500.00", {"gross": "4862.17", "deductible": "500.00", "net": "4362.17",
                                      "payee": "shop (direct repair)", "status": "accepted", "offer_id": "OFR-0931877-2"},
                           status="repair_in_progress",
                           notes=[{"at": a + ":00-06:00", "by": "system", "text": x} for a, x in act],
                           rental={"reservation": "ENT-CO-7729114", "start": "2025-10-06", "authorized_through": "2025-10-11",
                                   "daily_rate_covered": "40.00", "max_total": "1200.00", "used_days": 3}),
                     request_id="frm-c-10140")
    t.asst("The adjuster approved the $447.40 supplement this afternoon, but completion moved to Oct 14 because the "
           "headliner clips are backordered. The rental is only authorized through Oct 11, so it needs extending by "
           "three days. At $40/day from Oct 6 to Oct 14 that's $320, well under the $1,200 maximum.")
    t.user("Extend it to the 15th to be safe.")
    ext, _, _ = t.do("claim_request_rental", {"claim_number": CLM, "action": "extend", "reservation": "ENT-CO-7729114",
                                              "through": "2025-10-15", "reason": "supplement / parts backorder"},
                     {"reservation": "ENT-CO-7729114", "authorized_through": "2025-10-15", "status": "extended",
                      "covered_days": 10, "covered_total": "400.00"}, idem=f"rental-extend-{CLM}-20251015",
                     request_id="frm-rr-40290")
    t.asst("Extended: ENT-CO-7729114 is authorized through Oct 15, 10 days, $400 covered.")
    t.user("Can I get the settlement letter for my records?")
    t.do("claim_get", {"claim_number": CLM, "document": "settlement_letter"},
         {"claim_number": CLM, "document_id": "DOC-877190", "type": "settlement_letter", "format": "text",
          "text": LETTER}, request_id="frm-c-10144")
    t.asst("Here's the gist of the settlement letter (DOC-877190, dated Oct 3): payment based on Peak's $4,862.17 "
           "estimate, less the $500 deductible, $4,362.17 to the shop; supplements paid to the shop with no second "
           "deductible; rental under FRM-115 at $40/day up to $1,200, billed directly; and your right to invoke "
           "appraisal within 60 days if you disagree. I can email you the full PDF from the claim documents.")
    for q, a in [
        ("What about diminished value? The car is worth less now with a hail history.",
         "Colorado allows diminished value claims mainly against an at-fault driver's insurer; under your own "
         "comprehensive coverage, Front Range Mutual's policy doesn't pay for diminished value. Hail repaired with "
         "PDR usually doesn't appear on vehicle history reports unless the insurer reports a total loss, which this "
         "isn't."),
        ("The letter mentions an 'appraisal provision'. What's that?",
         "It's a dispute process in the policy for disagreements about the amount of a loss (not about coverage). "
         "You and the insurer each hire an independent appraiser; if they can't agree, they pick an umpire, and an "
         "award agreed by any two of the three is binding on the amount. Each side pays its own appraiser and half "
         "the umpire. You'd only use it if you thought the repair amount was too low; here the full shop estimate "
         "plus the supplement is being paid, so it doesn't apply."),
        ("Ok. The Civic quote came back: $780 for PDR.",
         "Then don't claim it: with the Civic's $1,000 deductible a claim would pay nothing. Paying the $780 yourself "
         "keeps it off your claims history."),
        ("Should I keep any receipts from this?",
         "Keep the final invoice, the calibration report and the Enterprise return receipt. If you rented anything "
         "else because of the loss (say, a ride on the day of the storm), keep those receipts too: reasonable "
         "transportation costs before the rental started can sometimes be reimbursed under the rental endorsement. "
         "You can upload them to the claim and I'll attach them."),
        ("And do I pay Peak the $500 when I pick up?",
         "Yes, the $500 deductible goes to Peak at pickup, by card or check. Ask them for the final invoice, the "
         "ADAS calibration printout and the lifetime warranty paperwork."),
    ]:
        t.user(q)
        t.asst(a)
    t.user("Fine. And did the first payment reach Peak? They said they didn't see it.")
    t.do("payment_get", {"payment_id": "PAY-0931877-01"},
         {"payment_id": "PAY-0931877-01", "claim_number": CLM, "payee": "Peak Auto Body – Aurora", "amount": "4362.17",
          "method": "EFT", "status": "sent", "sent": "2025-10-06", "trace": "FRM-EFT-881044120",
          "bank_confirmation": "2025-10-07"}, request_id="frm-py-70021")
    t.asst("It was sent Oct 6 and the bank confirmed on Oct 7: EFT trace FRM-EFT-881044120 for $4,362.17. Peak's "
           "accounting can search that trace number.")
    t.user("Thanks. One more thing: will anything come to me at all? And remind me, what were my bank details on file?")
    t.decision("d6-late", [
        fact("direct_deposit_account", ACCT, "the account the user typed once, 40+ events ago"),
        tool_state("succeeded", "the settlement was accepted", call_id=ac, request_id="frm-a-60011"),
        evidence([acc, acr], "the irreversible acceptance and its result"),
        fact("deductible", "500.00", "still the corrected deductible", subject=f"claim_number={CLM}",
             superseded=["1000.00"]),
        tool_state("unknown", "the adjuster message never got an answer", call_id=msg),
    ], note="late")
    t.asst(f"Probably nothing: the repair and the supplement are paid to Peak, and Enterprise bills the rental to us "
           f"directly. Money would only come to you if an adjustment is payable to the insured, and that would go by "
           f"direct deposit to your Bellco checking, routing {ROUTING}, account ending {ACCT[-4:]}.")
    t.user("And the supplement money, has that gone to Peak too?")
    t.do("payment_get", {"payment_id": "PAY-0931877-02"},
         {"payment_id": "PAY-0931877-02", "claim_number": CLM, "payee": "Peak Auto Body – Aurora", "amount": "447.40",
          "method": "EFT", "status": "scheduled", "scheduled": "2025-10-09", "reason": "Supplement 1"},
         request_id="frm-py-70030")
    t.asst("It's scheduled: PAY-0931877-02, $447.40 by EFT on Oct 9.")
    t.user("Good. Last thing: is my rental really covered to the 15th, and is there anything still pending on my side?")
    t.decision("d7-wrap", [
        tool_state("succeeded", "the rental extension went through", call_id=ext, request_id="frm-rr-40290"),
        fact("authorized_through", "2025-10-15", "the extended rental date", superseded=["2025-10-11"]),
        tool_state("unknown", "the adjuster message is still unconfirmed", call_id=msg),
        constraint(pay, "pay the shop", "the user's payment choice"),
    ], note="late")
    t.asst("Yes: ENT-CO-7729114 is authorized through Oct 15 (10 days, $400 covered). On your side: pay Peak the $500 "
           "deductible at pickup (expected Oct 14), and return the rental by the 15th. The only loose end is my Oct 3 "
           "message to Brianna, which never showed as delivered; it's moot since she fixed the deductible by phone.")
    t.user("Great, I'll let you know when it's ready.")
    t.asst("Sounds good.")
    t.system("Six days later: 2025-10-14 11:05 MDT.")
    t.user("Peak says the car is ready. What's the final bill and what do I owe?")
    fin = estimate()
    fin.update({"version": 3, "written": "2025-10-14", "document": "final_invoice", "invoice_number": "INV-PAB-88130",
                "supplement_total": "447.40", "estimate_total": "5309.57",
                "payments": [{"from": "Front Range Mutual", "ref": "PAY-0931877-01", "amount": "4362.17"},
                             {"from": "Front Range Mutual", "ref": "PAY-0931877-02", "amount": "447.40"}],
                "balance_due_from_customer": "500.00", "balance_reason": "comprehensive deductible",
                "warranty": "Lifetime (DRP), workmanship and refinish", "adas_calibration_report": "DOC-PAB-CAL-22910",
                "repair_days": 6})
    _, _, inv = t.do("shop_get_estimate", {"claim_number": CLM, "document": "final_invoice"}, fin,
                     request_id="frm-e-50140")
    t.asst("Final invoice INV-PAB-88130: $5,309.57 in total (the original $4,862.17 plus the $447.40 supplement). "
           "Front Range Mutual paid $4,362.17 and $447.40, so you owe Peak exactly your $500 deductible. The ADAS "
           "calibration report is DOC-PAB-CAL-22910, and the repair carries the lifetime DRP warranty.")
    t.user("Paid. Can the claim be closed now? And I returned the rental today.")
    t.decision("d8-close", [
        next_call("claim_get", {"claim_number": CLM}, "closing status needs the claim number from the first day"),
        fact("balance_due_from_customer", "500.00", "the user owes only the corrected deductible"),
        fact("deductible", "500.00", "the final invoice still shows the $500 deductible",
             subject=f"claim_number={CLM}", superseded=["1000.00"]),
        tool_state("unknown", "the Oct 3 adjuster message is never confirmed", call_id=msg),
    ], note="end of the claim: the adjuster message stays unresolved")
    t.asst("Yes. With the repair paid, your deductible paid to the shop and the rental returned (6 days, within the "
           "authorization), the adjuster will close the claim after Enterprise's final bill comes in, typically within "
           "a week. You'll get a closing letter. If anything goes wrong with the repair later, Peak's lifetime warranty "
           "covers it without a new claim.")
    t.user("Got it. Thanks for all the help.")
    t.asst("You're welcome. Enjoy the repaired RAV4, and get that garage cleared before the next storm.")
    return t
