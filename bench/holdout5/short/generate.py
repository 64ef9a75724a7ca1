"""Held-out set 5, short part: 16 short trajectories, each played in its own small window.

    python bench/holdout5/short/generate.py            # write the .jsonl files
    python bench/holdout5/short/generate.py --check    # exit 1 if a file differs from what it would write
    python bench/holdout5/short/generate.py --stats    # the table of the README

The oracle and lint live in ../holdout_lib.py; any problem is printed and nothing is written (exit 2).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # keep bench/holdout5 free of __pycache__

from holdout_lib import C, EV, F, NC, PA, PC, TS, Traj, main  # noqa: E402

# every tool once: effect class and identifier arguments (what a call is about)
TOOLS: dict[str, dict] = {
    # generic
    "shell": {"effect": "write", "identifier_args": [], "description": "run one command in the agent's persistent shell session"},
    "send_email": {"effect": "write", "identifier_args": ["to"], "description": "send an email"},
    # customs
    "carrier_track": {"effect": "read", "identifier_args": ["tracking_number"], "description": "carrier tracking status"},
    "broker_status": {"effect": "read", "identifier_args": ["tracking_number"], "description": "customs broker's view of a shipment"},
    "customs_entry_lookup": {"effect": "read", "identifier_args": ["entry_id"], "description": "read a customs entry"},
    "customs_amend_entry": {"effect": "write", "identifier_args": ["entry_id"], "description": "amend a customs entry"},
    "customs_pay_duty": {"effect": "irreversible", "identifier_args": ["entry_id"], "description": "pay the duty of an entry"},
    # museum loan
    "collection_record": {"effect": "read", "identifier_args": ["object_number"], "description": "collection database record"},
    "condition_report": {"effect": "read", "identifier_args": ["object_number"], "description": "latest conservator condition report"},
    "loan_insurance_status": {"effect": "read", "identifier_args": ["loan_id"], "description": "nail-to-nail insurance certificate status"},
    "courier_book": {"effect": "write", "identifier_args": ["loan_id"], "description": "book the fine-art courier for a loan"},
    # clinical trial
    "ehr_summary": {"effect": "read", "identifier_args": ["mrn"], "description": "electronic health record summary"},
    "lab_panel": {"effect": "read", "identifier_args": ["mrn"], "description": "laboratory results panel"},
    "consent_lookup": {"effect": "read", "identifier_args": ["screening_id"], "description": "e-consent record"},
    "eligibility_check": {"effect": "read", "identifier_args": ["screening_id"], "description": "run the protocol's eligibility rules"},
    "ctms_update": {"effect": "write", "identifier_args": ["screening_id"], "description": "update the screening record in the CTMS"},
    # solar
    "site_survey_get": {"effect": "read", "identifier_args": ["job_id"], "description": "site survey of an installation job"},
    "permit_submit": {"effect": "write", "identifier_args": ["job_id"], "description": "submit a building permit application"},
    "permit_status": {"effect": "read", "identifier_args": ["job_id"], "description": "permit portal status"},
    "equipment_order": {"effect": "write", "identifier_args": ["job_id"], "description": "order panels and inverter"},
    # e-commerce inventory
    "inventory_count": {"effect": "read", "identifier_args": ["sku"], "description": "storefront inventory count"},
    "warehouse_scan": {"effect": "read", "identifier_args": ["sku"], "description": "warehouse cycle-count scan"},
    "purchase_order_create": {"effect": "write", "identifier_args": ["sku"], "description": "create a purchase order"},
    # school timetable
    "timetable_query": {"effect": "read", "identifier_args": ["class_code"], "description": "a class's timetable slots"},
    "room_availability": {"effect": "read", "identifier_args": ["room"], "description": "free periods of a room"},
    "timetable_move": {"effect": "write", "identifier_args": ["class_code"], "description": "move a class to another room/period"},
    # legal discovery
    "review_platform": {"effect": "write", "identifier_args": ["matter_id"], "description": "document review platform API"},
    # car accident claim
    "claim_lookup": {"effect": "read", "identifier_args": ["claim_number"], "description": "insurer's claim record"},
    "claim_upload_photos": {"effect": "write", "identifier_args": ["claim_number"], "description": "upload photos to a claim"},
    "repair_estimate": {"effect": "read", "identifier_args": ["claim_number"], "description": "body shop's repair estimate"},
    "claim_respond_offer": {"effect": "irreversible", "identifier_args": ["claim_number"], "description": "accept or reject a settlement offer"},
    # cloud cost
    "cloud_inventory": {"effect": "read", "identifier_args": ["resource_id"], "description": "cloud asset inventory"},
    "billing_report": {"effect": "read", "identifier_args": ["resource_id"], "description": "cost report line for a resource"},
    "cloud_delete": {"effect": "irreversible", "identifier_args": ["resource_id"], "description": "delete a cloud resource"},
    # rack move
    "dcim_rack_get": {"effect": "read", "identifier_args": ["rack_id"], "description": "DCIM record of a rack"},
    "power_circuit_status": {"effect": "read", "identifier_args": ["circuit_id"], "description": "PDU circuit status"},
    "work_order_create": {"effect": "write", "identifier_args": ["rack_id"], "description": "create a remote-hands work order"},
    "work_order_status": {"effect": "read", "identifier_args": ["work_order_id"], "description": "remote-hands work order status"},
    # bike share
    "station_status": {"effect": "read", "identifier_args": ["station_id"], "description": "dock counts reported by the station API"},
    "dock_sensor_feed": {"effect": "read", "identifier_args": ["station_id"], "description": "raw dock sensor feed"},
    "dispatch_truck": {"effect": "write", "identifier_args": ["truck_id"], "description": "dispatch a rebalancing truck run"},
    # print order
    "print_quote": {"effect": "read", "identifier_args": ["job_ref"], "description": "price a print job"},
    "print_order_submit": {"effect": "write", "identifier_args": ["job_ref"], "description": "submit a print job to the press"},
    "proof_status": {"effect": "read", "identifier_args": ["job_ref"], "description": "status of the press proof"},
    # firmware
    "flash_device": {"effect": "write", "identifier_args": ["serial"], "description": "flash a firmware image to a device partition"},
    "device_info": {"effect": "read", "identifier_args": ["serial"], "description": "read a device's firmware info over the debug probe"},
    # ticket refunds
    "ticket_order_lookup": {"effect": "read", "identifier_args": ["order_number"], "description": "ticketing system order"},
    "refund_issue": {"effect": "irreversible", "identifier_args": ["order_number"], "description": "issue a refund"},
    "refund_gateway_status": {"effect": "read", "identifier_args": ["order_number"], "description": "payment gateway's refund status"},
    # translation
    "tm_lookup": {"effect": "read", "identifier_args": ["segment_id"], "description": "translation memory lookup"},
    "glossary_get": {"effect": "read", "identifier_args": ["project_id"], "description": "project glossary"},
    "segment_update": {"effect": "write", "identifier_args": ["segment_id"], "description": "write a translated segment"},
    "delivery_create": {"effect": "write", "identifier_args": ["project_id"], "description": "deliver translated files to the client"},
    # observability
    "log_search": {"effect": "read", "identifier_args": ["service"], "description": "search a service's logs"},
    "metrics_query": {"effect": "read", "identifier_args": ["service"], "description": "query a service's metrics"},
    "alert_silence": {"effect": "write", "identifier_args": ["alert_id"], "description": "silence an alert for a duration"},
}


def lines(rng, n, fmt):
    return "\n".join(fmt(rng, i) for i in range(n))


# ------------------------------------------------------------------------------------------------ s01
def s01():
    t = Traj(TOOLS, "h5s-customs-hold", "Parcel held at customs: amended value, timed-out amendment, duty payment",
             ["a value typed once by the user is needed much later", "a user correction supersedes a tool's value",
              "a timed-out write later resolved by a status query", "a spending limit stated at the start",
              "two tools contradict each other about customs status"],
             "An import parcel is held at customs. The user gives a tracking number and an EORI number once and a "
             "duty limit; the declared value is corrected, the amendment times out and is resolved later; broker "
             "and carrier disagree about the hold.", window=512)
    u1 = t.user("My parcel from Milan (espresso machine parts for the café) is stuck somewhere in the Netherlands. "
                "Tracking 1Z84F0A20391665218, importer EORI NL812339014B01. Please sort out customs for me, but never "
                "pay more than 180.00 EUR in duty without asking me first.")
    t.asst("Understood: I'll find out where it's held and why, and I won't pay any duty above 180.00 EUR without "
           "checking with you. Starting with the carrier's tracking.")
    t.cr("carrier_track", "c1", {"tracking_number": "1Z84F0A20391665218"},
         {"status": "exception", "location": "Schiphol customs warehouse", "customs_status": "held",
          "customs_entry_id": "CE-55129-NL", "last_scan": "2026-11-28T06:12Z"},
         log="2026-11-25 18:02 Milan IT  origin scan\n2026-11-26 04:40 Bergamo IT  departed facility\n"
             "2026-11-27 11:15 Amsterdam NL  arrived at facility\n2026-11-28 06:12 Schiphol NL  held by customs: "
             "clearance information required from importer")
    t.asst("It's held at the Schiphol customs warehouse under customs entry CE-55129-NL since 28 November. I'll read "
           "the entry to see what customs is unhappy about.")
    t.cr("customs_entry_lookup", "c2", {"entry_id": "CE-55129-NL"},
         {"declared_value": "1450.00", "currency": "EUR", "hs_code": "8516.71.00", "duty_due": "290.00",
          "hold_reason": "value not supported by invoice"},
         log="line 1  grouphead assembly x2   declared 610.00\nline 2  steam wand kit x1      declared 240.00\n"
             "line 3  rotary pump 230V x1    declared 600.00\nbroker of record: Dutch Clearance BV\n"
             "inspection: documentary only, no physical exam\nstorage free until 2026-12-06, then 18.00/day")
    t.asst("The entry declares 1450.00 EUR of goods, so the duty and VAT due come to 290.00 EUR, which is above your "
           "180.00 limit. The hold reason is that the value isn't supported by an invoice: the value seems to come "
           "from the seller's pro-forma. Storage is free until 6 December, then 18.00 EUR a day.")
    t.user("How much time do we have before storage starts costing money, and is the HS code right for parts?")
    t.asst("Free storage runs out on 6 December. 8516.71 covers coffee and tea makers; spare parts for them are "
           "usually classified under the same heading, so the code looks right. The value is the real problem.")
    u2 = t.user("The value is wrong anyway: the real commercial invoice is 845.00 EUR, invoice number INV-2026-3381. "
                "The seller over-declared on the pro-forma.")
    t.corr("declared_value", "845.00", subject="entry_id=CE-55129-NL")
    t.asst("Thanks. I'll amend the entry to 845.00 EUR with that invoice as support and your EORI as importer.")
    t.call("customs_amend_entry", "c3", idem="amend-CE-55129-NL-1", entry_id="CE-55129-NL", declared_value="845.00",
           invoice_ref="INV-2026-3381", importer_eori="NL812339014B01")
    t.res("c3", outcome="timeout", request_id="rq-ams-7781", error="customs gateway did not answer within 30s")
    t.asst("The amendment timed out (request rq-ams-7781). It may or may not have been recorded, so I won't "
           "resubmit blindly; I'll check its status first.")
    t.user("OK. Meanwhile, what does the broker say?")
    t.decide("d1", TS("unknown", call_id="c3", request_id="rq-ams-7781", why="timed out, not failed"),
             PC("c3", why="the amendment's outcome is still open"))
    a, b1 = t.cr("broker_status", "c4", {"tracking_number": "1Z84F0A20391665218"},
                 {"customs_status": "on hold - amended invoice under review", "broker_ref": "DCB-20931",
                  "broker_contact": "clearance@dutchclearance.example"})
    t.asst("The broker, Dutch Clearance BV (ref DCB-20931), says the shipment is on hold while an amended invoice is "
           "reviewed, which suggests the amendment may have reached them.")
    t.user("Weird, the carrier app now shows it as released. Check again?")
    a, b2 = t.cr("carrier_track", "c5", {"tracking_number": "1Z84F0A20391665218"},
                 {"status": "in transit", "location": "Schiphol hub", "customs_status": "released",
                  "last_scan": "2026-11-29T09:40Z"})
    t.asst("The carrier now says released and in transit; the broker says on hold. They contradict each other. The "
           "customs entry itself should settle it once the amendment's status is known.")
    t.user("Fine, check the amendment now.")
    t.sq("c3", "succeeded", {"amendment_id": "AM-7781-2", "declared_value": "845.00", "duty_due": "112.40",
                             "customs_status": "awaiting duty payment"})
    t.asst("The amendment did go through (AM-7781-2): declared value 845.00 EUR, duty due is now 112.40 EUR and the "
           "entry is awaiting duty payment, so the carrier's 'released' was premature. 112.40 is under your limit.")
    t.user("Go ahead and pay it then.")
    t.decide("d2",
             NC("customs_pay_duty", entry_id="CE-55129-NL", amount="112.40", why="entry id from the first tracking, amount from the status query"),
             F("duty_due", "112.40", superseded=["290.00"], why="the amendment lowered the duty"),
             F("declared_value", "845.00", subject="entry_id=CE-55129-NL", superseded=["1450.00"], why="user correction"),
             F("customs_status", "awaiting duty payment", superseded=["released", "held"], why="newest statement wins over the carrier"),
             C(u1, "never pay more than 180.00 EUR", why="limit from the first message"),
             EV(b1, b2, why="broker and carrier contradicted each other"))
    t.call("customs_pay_duty", "c6", idem="duty-CE-55129-NL", entry_id="CE-55129-NL", amount="112.40", currency="EUR")
    t.res("c6", result={"receipt": "RCPT-NL-448120", "paid": "112.40"})
    t.asst("Paid 112.40 EUR, receipt RCPT-NL-448120.")
    t.user("Great. Send the broker the receipt so they release it, and copy the invoice number.")
    t.decide("d3", NC("send_email", to="clearance@dutchclearance.example", invoice="INV-2026-3381",
                      why="broker contact from the broker status, invoice typed once by the user"),
             C(u2, "INV-2026-3381", why="what the user said about the invoice"))
    return t


# ------------------------------------------------------------------------------------------------ s02
def s02():
    t = Traj(TOOLS, "h5s-museum-loan", "Outgoing painting loan: courier must wait for insurance",
             ["a rule stated early: don't book until a condition holds", "a user correction of a travel date",
              "two tools disagree about an object's condition", "an approval still pending"],
             "A registrar's agent prepares an outgoing loan; the courier may only be booked once the insurance "
             "certificate is confirmed; the travel date is corrected; conservator and database disagree.", window=256)
    u1 = t.user("Loan LN-2027-044: object 1987.214 goes to the Kunsthal. Don't book the courier until the insurance certificate is confirmed.")
    t.cr("collection_record", "m1", {"object_number": "1987.214"},
         {"title": "Harbour at Dusk", "condition": "stable", "location": "store B, rack 12"})
    t.fact("travel_date", "2027-03-14")
    t.asst("Harbour at Dusk, listed stable, in store B rack 12. Travel date noted as 14 March.")
    t.user("Who was the last conservator to see it?")
    t.asst("The record doesn't say; the condition report tool will.")
    t.user("Check the conservator's report then.")
    a, b1 = t.cr("condition_report", "m2", {"object_number": "1987.214"},
                 {"condition": "flaking at lower left edge", "report_id": "CR-3390", "by": "H. Okafor"})
    t.asst("H. Okafor's report CR-3390 finds flaking at the lower left edge; the record says stable.")
    ap = t.asst("It needs a travel frame. Requesting registrar approval AP-REG-118 for the crate build.")
    t.approval("AP-REG-118", "requested", ap)
    t.user("What does the Kunsthal's facility report say about climate?")
    t.asst("Their 2025 facility report gives 50% RH plus or minus 5 and 20 degrees in the galleries, with 24-hour guards.")
    t.user("Who do we use for transport, and how much notice?")
    t.asst("Our usual fine-art shipper needs 10 working days' notice for a climate-controlled truck with two drivers.")
    t.user("Does someone from us have to travel with it?")
    t.asst("Yes, for a panel painting of this value the loan policy requires a museum courier on the truck and at the installation.")
    t.user("Send H. Okafor, she knows the work best.")
    t.asst("Noted: H. Okafor as accompanying courier; she'll sign the condition report at both ends.")
    t.user("Travel date moved: it's 21 March, not the 14th.")
    t.corr("travel_date", "2027-03-21")
    t.asst("Noted, 21 March.")
    t.cr("loan_insurance_status", "m3", {"loan_id": "LN-2027-044"},
         {"certificate": "pending underwriter", "underwriter": "Hiscox Fine Art"})
    t.asst("Certificate still pending with Hiscox Fine Art.")
    t.user("Anything else we can do today?")
    t.decide("d1", C(u1, "Don't book the courier until", why="the rule blocks booking"))
    t.asst("I can draft the condition note for the borrower while we wait.")
    t.user("Do that. Does the crate need climate control?")
    t.asst("Yes: panel painting, keep 50% RH; the crate spec will say so.")
    t.user("Good. Then check the insurance once more.")
    t.cr("loan_insurance_status", "m4", {"loan_id": "LN-2027-044"},
         {"certificate": "confirmed", "certificate_no": "HFA-99120"})
    t.asst("Certificate HFA-99120 confirmed.")
    t.user("Book the courier now.")
    t.decide("d2", NC("courier_book", loan_id="LN-2027-044", date="21 March", why="loan id from the first message, corrected date"),
             F("travel_date", "2027-03-21", superseded=["2027-03-14"]),
             F("certificate", "confirmed", superseded=["pending underwriter"]),
             F("condition", "flaking at lower left edge", superseded=["stable"], why="newest report"),
             EV(b1, why="the conservator's report contradicts the record"),
             PA("AP-REG-118"),
             C(u1, "insurance certificate is confirmed"))
    return t


# ------------------------------------------------------------------------------------------------ s03
def s03():
    t = Traj(TOOLS, "h5s-trial-screening", "Clinical trial screening: buried lab value, consent rule, randomization",
             ["a value buried in a long lab listing decides eligibility", "two tools contradict each other (eGFR)",
              "a user correction of a mis-entered weight", "a rule: do not randomize until a condition",
              "a pending PI sign-off approval", "a screening id returned by one tool used by another much later"],
             "A study coordinator's agent screens a participant for a renal-safety trial.", window=1024)
    u1 = t.user("Screening visit today for STUDY-CT-4417. Patient MRN 00731862. Do not randomize anyone until consent "
                "version v4.2 is signed and the PI has signed off eligibility. eGFR must be at least 45 for inclusion, "
                "and HbA1c between 7 and 10 percent.")
    t.asst("Understood. I'll go through the EHR, today's labs, consent and the eligibility engine, and I won't "
           "randomize until v4.2 consent is signed and the PI has signed off. Pulling the EHR summary first.")
    a, b_ehr = t.cr("ehr_summary", "t1", {"mrn": "00731862"},
                    {"age": 63, "sex": "F", "weight_kg": "28", "egfr": "58", "egfr_date": "2026-09-02",
                     "diagnoses": "T2DM; hypertension", "screening_id": "SCR-4417-0093"},
                    log="Allergies: penicillin (rash). Smoking: former, quit 2009.")
    t.asst("The EHR lists eGFR 58 (from September) and a weight of 28 kg, which looks like a data-entry typo for a "
           "63-year-old. A screening record SCR-4417-0093 was created for her. Metformin at 1000 mg twice daily is "
           "relevant if renal function is borderline.")
    t.user("Pull her full medication history too, the protocol excludes SGLT2 inhibitors in the last 90 days.")
    meds = [("2014-03", "metformin 500 mg BID", "started"), ("2015-09", "metformin 1000 mg BID", "dose up"),
            ("2016-01", "lisinopril 10 mg daily", "started"), ("2018-06", "lisinopril 20 mg daily", "dose up"),
            ("2019-02", "atorvastatin 20 mg nightly", "started"), ("2021-11", "atorvastatin 40 mg nightly", "dose up"),
            ("2022-04", "empagliflozin 10 mg daily", "started"), ("2026-07-28", "empagliflozin 10 mg daily", "stopped (recurrent UTI)"),
            ("2023-05", "paracetamol 1 g prn", "started"), ("2024-10", "omeprazole 20 mg daily", "started"),
            ("2025-03", "omeprazole 20 mg daily", "stopped"), ("2025-08", "vitamin D 1000 IU daily", "started")]
    t.call("ehr_summary", "t1b", mrn="00731862", section="medications")
    t.res("t1b", result={"active_medications": 4, "reconciled": "2026-11-12"},
          log="\n".join(f"{d:<11} {m:<30} {s}" for d, m, s in meds)
          + "\nprescriber notes: empagliflozin stopped after two UTIs in 2026; patient prefers to avoid injectables; "
            "no insulin history; adherence self-reported good; pharmacy refill data consistent with adherence")
    t.asst("She took empagliflozin (an SGLT2 inhibitor) until 28 July 2026. Today is 30 November, which is 125 days "
           "later, so the 90-day SGLT2 washout is satisfied. No insulin history. Active: metformin, lisinopril, "
           "atorvastatin, vitamin D.")
    t.user("Her HbA1c was done last week I think. Anything in the notes about the knee, she mentioned surgery?")
    t.cr("ehr_summary", "t1c", {"mrn": "00731862", "section": "problems"},
         {"active_problems": 3},
         log="Problem list: type 2 diabetes mellitus (2014, on oral agents), essential hypertension (2011, controlled), "
             "osteoarthritis right knee (2019, physiotherapy 2020, intra-articular steroid injection 2026-10-02, "
             "orthopaedic referral pending). Last admission: none in 5 years. Alcohol: 4 units/week. Family "
             "history: father MI at 71, mother T2DM. Social: retired teacher, lives with spouse, drives. "
             "Vaccinations up to date (influenza 2026-10, COVID-19 booster 2026-10). Ophthalmology: background "
             "retinopathy, annual screening, last 2026-05 stable. Podiatry: low-risk foot, annual review.")
    t.asst("Only osteoarthritis of the right knee, no surgery recorded. Surgery within 3 months would matter for "
           "exclusion E-6, so it's worth asking her at the visit.")
    rng = t.rng
    analytes = ["sodium", "potassium", "urea", "glucose", "ALT", "AST", "bilirubin", "albumin", "CRP", "haemoglobin"]
    rows = [f"07:42 {a:<12} {rng.randint(10, 140)}.{rng.randint(0, 9)} ok" for a in analytes[:5]]
    rows.append("07:42 creatinine   121 umol/L H")
    rows.append("07:42 eGFR (CKD-EPI) 44 mL/min L")
    rows += [f"07:42 {a:<12} {rng.randint(10, 140)}.{rng.randint(0, 9)} ok" for a in analytes[5:]]
    t.call("lab_panel", "t2", mrn="00731862", panel="screening")
    b_lab = t.res("t2", result={"collected": "2026-11-30", "egfr": "44", "hba1c": "8.1%", "accession": "LAB-77S-20931"},
                  log="\n".join(rows))
    t.asst("Today's screening panel (accession LAB-77S-20931) has eGFR 44, just below the 45 threshold, while the "
           "EHR's September value is 58. The two sources disagree; today's is the protocol-relevant one. HbA1c is "
           "8.1%, within 7 to 10.")
    u2 = t.user("The weight in the EHR is a typo, she's 82 kg, I weighed her. Record that. And ask the lab whether the 44 is final.")
    t.corr("weight_kg", "82", subject="mrn=00731862")
    t.call("lab_panel", "t3", mrn="00731862", panel="screening", query="final")
    t.res("t3", outcome="failed", error="LIS query service unavailable (503)")
    t.asst("Weight recorded as 82 kg. The lab query failed with a 503, so I couldn't confirm whether 44 is final.")
    t.user("Try the consent record meanwhile.")
    t.cr("consent_lookup", "t4", {"screening_id": "SCR-4417-0093"},
         {"consent_version": "v4.1", "signed": "2026-11-12", "witness": "R. Lindqvist"},
         log="v4.1 approved by the ethics committee 2026-08-20; v4.2 approved 2026-11-20 (adds the genetic "
             "sub-study and the updated hypoglycaemia risk wording). Participants consented on v4.1 must re-consent "
             "on v4.2 before any study-specific procedure after 2026-11-20.")
    t.asst("She signed v4.1 on 12 November, witnessed by R. Lindqvist. v4.2 was approved on 20 November and she must "
           "re-consent before any further study procedure, so randomization is blocked on that too.")
    t.user("Right, I'll get her to sign v4.2 at the visit. What's the eligibility engine say?")
    t.decide("d1", F("egfr", "44", superseded=["58"], why="today's panel is newest"),
             TS("failed", call_id="t3"))
    t.call("eligibility_check", "t5", screening_id="SCR-4417-0093", protocol="STUDY-CT-4417", egfr="44", weight_kg="82")
    t.res("t5", result={"eligible": False, "failed_criteria": "I-4 renal function", "rule_version": "2.3"},
          log="I-1 age 18-80: pass\nI-2 T2DM diagnosis: pass\nI-3 HbA1c 7-10%: pass\nI-4 eGFR >= 45: FAIL (44)\n"
              "E-1 dialysis: pass\nE-2 pregnancy: n/a\nE-3 recent MI: pass\nE-4 BMI < 40: pass\n"
              "E-5 investigational drug 30d: pass\nE-6 major surgery 90d: not recorded\n"
              "note: protocol section 5.2 allows one repeat renal test within 14 days of screening")
    t.asst("Not eligible on I-4 (eGFR 44). Everything else passes except E-6, which is unrecorded. Section 5.2 of "
           "the protocol allows one repeat renal test within 14 days.")
    t.user("She had a steroid injection in the knee in October, is that major surgery for E-6?")
    t.asst("No. The protocol defines major surgery as a procedure under general or regional anaesthesia; an "
           "intra-articular injection is a minor procedure, so E-6 should pass once it's recorded as such. The "
           "injection was on 2 October, which is also outside the 30-day window for systemic steroids in E-7, "
           "though an intra-articular dose does not count as systemic anyway.")
    ap = t.asst("Requesting the PI's decision on accepting a repeat eGFR (approval PI-SO-5521).")
    t.approval("PI-SO-5521", "requested", ap)
    t.user("OK. The repeat came back this morning: 47, the lab called me. Accession LAB-77S-21077.")
    t.fact("egfr", "47", subject="mrn=00731862")
    t.call("ctms_update", "t6", screening_id="SCR-4417-0093", egfr="47", accession="LAB-77S-21077", weight_kg="82")
    t.res("t6", result={"record": "SCR-4417-0093", "version": 7})
    t.asst("CTMS updated with the repeat eGFR 47 (accession LAB-77S-21077) and the corrected weight of 82 kg; "
           "the record is now at version 7. A repeat within 14 days is allowed once by section 5.2, and 47 clears "
           "the 45 threshold, but the PI still has to accept the repeat and sign off eligibility.")
    t.user("Can we randomize her today?")
    t.decide("d2", C(u1, "Do not randomize anyone until consent version v4.2 is signed"),
             PA("PI-SO-5521", why="PI sign-off not given"),
             F("consent_version", "v4.1", why="v4.2 not yet signed"),
             F("weight_kg", "82", subject="mrn=00731862", superseded=["28"]),
             F("egfr", "47", subject="mrn=00731862", superseded=["44", "58"]),
             EV(b_ehr, b_lab, why="EHR and lab disagreed"),
             NC("eligibility_check", screening_id="SCR-4417-0093", protocol="STUDY-CT-4417",
                why="re-run eligibility with the screening id and protocol"))
    return t


# ------------------------------------------------------------------------------------------------ s04
def s04():
    t = Traj(TOOLS, "h5s-solar-permit", "Rooftop solar: panel count correction, permit timeout, size limit",
             ["a user correction supersedes the survey's panel count", "a limit stated early (at most 7.2 kW)",
              "a timed-out permit submission resolved as not performed, then retried",
              "a permit portal and the utility disagree"],
             "An installer's agent sizes a residential PV system, files the permit and orders equipment.", window=512)
    u1 = t.user("New job SJ-30417 at 12 Alder Lane. Keep the system at most 7.2 kW DC, the utility caps residential "
                "net metering there. Use the 400 W panels we have in stock and the SolarEdge inverter.")
    t.asst("Got it: at most 7.2 kW DC, 400 W modules, SolarEdge. I'll start from the site survey.")
    t.cr("site_survey_get", "p1", {"job_id": "SJ-30417"},
         {"roof_faces": "south, east", "panel_count": 18, "azimuth_south": 182, "tilt": 30,
          "main_panel": "200A", "surveyor": "D. Mbeki"},
         log="south face: 11.2 m x 4.1 m, no obstructions, vent stack at 2.1 m from ridge\n"
             "east face: 6.8 m x 4.1 m, chimney shade 07:00-10:30 in winter\n"
             "attic: 2x6 rafters at 24in o.c., no visible damage\nmeter: single-phase, bidirectional capable\n"
             "main service panel: 200A bus, 200A main breaker, 120% rule allows 40A backfeed")
    t.asst("D. Mbeki's survey proposes 18 panels: 14 on the south face and 4 on the east, 7.2 kW at 400 W each, "
           "exactly at the cap. The 200A panel allows up to 40A of backfeed, so the inverter size is fine.")
    t.user("What roof material is it, and how old? The survey should say.")
    t.asst("Asphalt shingle, re-roofed in 2019 according to the homeowner, and the surveyor saw no visible damage "
           "in the attic; standard flashed mounts will do.")
    t.user("Do we need a structural letter for 2x6 rafters at 24 inches?")
    t.asst("The city's checklist waives it for flush-mount arrays under 4.5 psf, which a 16 to 18 panel array on "
           "rails is; I'll confirm when the city reviews it.")
    t.user("What does the east face lose to the chimney?")
    t.asst("In winter the chimney shades the east face from 07:00 to 10:30, so the two panels nearest it would "
           "lose most of their morning output; with optimizers the rest of the string isn't dragged down.")
    u2 = t.user("Then drop the two east panels under the chimney shade: 16 panels.")
    t.corr("panel_count", 16, subject="job_id=SJ-30417")
    t.asst("16 x 400 W = 6.4 kW DC, within your 7.2 kW cap. The SE6000H inverter fits that size.")
    t.call("permit_submit", "p2", idem="permit-SJ-30417", job_id="SJ-30417", system_kw_dc="6.4", panel_count=16,
           inverter="SE6000H")
    t.res("p2", outcome="timeout", request_id="rq-prm-2219", error="portal upload timed out")
    t.asst("The permit upload timed out (rq-prm-2219); I can't tell whether the city received it.")
    t.user("Check the portal before trying again.")
    t.decide("d1", TS("unknown", call_id="p2", request_id="rq-prm-2219"))
    t.sq("p2", "not_performed", {"portal_note": "no application received"})
    t.asst("The portal never received it, so I'll resubmit with the same idempotency key.")
    t.call("permit_submit", "p3", idem="permit-SJ-30417", job_id="SJ-30417", system_kw_dc="6.4", panel_count=16,
           inverter="SE6000H")
    t.res("p3", result={"permit_number": "BP-2026-118734", "permit_state": "submitted"})
    t.asst("Submitted: permit BP-2026-118734.")
    t.user("What does the utility show for interconnection?")
    a, b1 = t.cr("permit_status", "p4", {"job_id": "SJ-30417", "source": "utility"},
                 {"permit_state": "approved", "interconnect_ref": "IX-55810"})
    t.asst("The utility's mirror shows approved (IX-55810), which is odd so soon after submission.")
    t.user("Check the city portal itself.")
    a, b2 = t.cr("permit_status", "p5", {"job_id": "SJ-30417", "source": "city"},
                 {"permit_state": "in plan review", "reviewer": "C. Alvarez"},
                 log="2026-12-01 09:12 application BP-2026-118734 received\n2026-12-01 09:13 fees paid (card)\n"
                     "2026-12-02 14:40 assigned to plan reviewer C. Alvarez\nestimated decision: 5-8 business days\n"
                     "structural letter: not required for flush-mount under 4.5 psf")
    t.asst("The city says it is in plan review with C. Alvarez, 5 to 8 business days. The utility's 'approved' is "
           "premature or refers to the pre-application.")
    t.user("Then order the equipment so it's here when the permit lands.")
    t.decide("d2", NC("equipment_order", job_id="SJ-30417", inverter="SE6000H", why="the inverter named in the permit call"),
             F("panel_count", 16, subject="job_id=SJ-30417", superseded=[18]),
             F("permit_state", "in plan review", superseded=["approved"]),
             C(u1, "at most 7.2 kW DC"),
             EV(b1, b2, why="utility and city disagreed"),
             TS("failed", call_id="p2", why="not performed = failed"),
             TS("succeeded", idem="permit-SJ-30417", why="the retry under the same key succeeded"))
    t.call("equipment_order", "p6", job_id="SJ-30417", panels=16, panel_model="400W mono", inverter="SE6000H")
    t.res("p6", result={"order_id": "EQ-77120", "eta": "2026-12-09"})
    t.user("And the permit number for the crew's job sheet?")
    t.decide("d3", NC("send_email", permit="BP-2026-118734", order="EQ-77120"), C(u2, "16 panels"))
    return t


# ------------------------------------------------------------------------------------------------ s05
def s05():
    t = Traj(TOOLS, "h5s-sku-restock", "Store restock: storefront and warehouse counts disagree",
             ["two tools contradict each other about stock on hand", "a supplier code typed once",
              "an order cap stated early", "a failed purchase order", "an order with unknown outcome"],
             "An e-commerce operator's agent restocks a SKU whose storefront count disagrees with the warehouse.",
             window=256)
    u1 = t.user("Restock SKU TRL-BOT-750 (trail bottle). Never order more than 200 units of one SKU at a time.")
    a, b1 = t.cr("inventory_count", "e1", {"sku": "TRL-BOT-750"}, {"on_hand": 140, "reserved": 12, "reorder_point": 80})
    t.asst("Storefront shows 140 on hand, above the reorder point of 80.")
    t.user("Customers are getting backorder emails though. Check the warehouse.")
    a, b2 = t.cr("warehouse_scan", "e2", {"sku": "TRL-BOT-750"}, {"on_hand": 9, "bin": "C-14-03"})
    t.asst("The warehouse cycle count found 9 in bin C-14-03. The storefront's 140 is stale.")
    t.user("How did it drift that much?")
    t.asst("Likely the returns import double-counted the November returns; I can look after the order.")
    t.user("Where else is it listed? Marketplaces too?")
    t.asst("The storefront and one marketplace feed; both read the storefront count, so both oversell.")
    t.user("Pause the marketplace listing until the count is fixed.")
    t.asst("I'll flag it for the marketplace team; I don't have a tool that pauses listings.")
    t.user("Later. How fast does it sell, and when is the next supplier cut-off?")
    t.asst("About 30 a week lately, so 9 lasts only two or three days. Hexa Outdoor's cut-off is 15:00 for dispatch the next day.")
    u2 = t.user("Use supplier code SUP-HX-2290, that's Hexa Outdoor. Order the cap.")
    t.call("purchase_order_create", "e3", sku="TRL-BOT-750", quantity=200, supplier="SUP-HX-2290")
    t.res("e3", outcome="failed", error="supplier requires case packs of 24")
    t.asst("Rejected: the supplier needs multiples of 24.")
    t.user("Can they split the order across two deliveries, so we don't fill the back room?")
    t.asst("Not on standard terms; one delivery per purchase order.")
    t.user("Hmm, what's the closest under the cap?")
    t.asst("192 units (8 cases of 24) stays under 200.")
    t.user("Do that.")
    t.decide("d1", NC("purchase_order_create", sku="TRL-BOT-750", supplier="SUP-HX-2290",
                      why="SKU from the first message, supplier code typed once"),
             F("on_hand", 9, subject="sku=TRL-BOT-750", superseded=[140], why="warehouse count is newest"),
             EV(b1, b2, why="storefront and warehouse disagreed"),
             C(u1, "Never order more than 200 units"),
             TS("failed", call_id="e3"))
    t.call("purchase_order_create", "e4", sku="TRL-BOT-750", quantity=192, supplier="SUP-HX-2290")
    t.res("e4", outcome="timeout", request_id="rq-po-88120")
    t.asst("The order timed out (rq-po-88120); I'll check before retrying.")
    t.user("OK, and fix the storefront count meanwhile?")
    t.decide("d2", TS("unknown", call_id="e4", request_id="rq-po-88120"), PC("e4"),
             C(u1, "at a time", why="the cap still applies to any retry"))
    return t


# ------------------------------------------------------------------------------------------------ s06
def s06():
    t = Traj(TOOLS, "h5s-timetable-clash", "School timetable: moving a lab class away from a clash",
             ["a rule stated early about a room", "a user correction of the period",
              "a room id from one tool used by another later", "an approval pending, then granted"],
             "A timetabler's agent moves a Year 9 chemistry class out of a room clash.", window=512)
    u1 = t.user("9C-CHEM has a clash on Tuesdays with 10A-BIO. Don't put any lab class in room B12, it has no gas "
                "taps. The deputy head has to approve timetable moves.")
    t.asst("Understood: B12 is off limits for labs, and any move needs the deputy head's approval. Reading the "
           "class's timetable.")
    t.cr("timetable_query", "k1", {"class_code": "9C-CHEM"},
         {"day": "Tue", "period": 4, "room": "S3", "teacher": "Ms Pereira", "clash_with": "10A-BIO"},
         log="Mon P2 S3 9C-CHEM Ms Pereira\nTue P4 S3 9C-CHEM Ms Pereira  CLASH 10A-BIO Mr Haddad\n"
             "Thu P1 S3 9C-CHEM Ms Pereira\nFri P5 S1 9C-CHEM Ms Pereira (theory)\nstudents: 27, practical sets: 14")
    t.asst("9C-CHEM is Tuesday period 4 in S3 with Ms Pereira, clashing with Mr Haddad's 10A-BIO.")
    u2 = t.user("Actually the clash is period 3, the timetable export is a period off this term.")
    t.corr("period", 3, subject="class_code=9C-CHEM")
    t.asst("Noted: the clash is Tuesday period 3. Looking for a lab free then.")
    t.cr("room_availability", "k2", {"room": "S5", "day": "Tue"},
         {"free_periods": "1, 3, 6", "room_type": "lab", "gas": "yes"},
         log="S5 Tue: P1 free, P2 8B-PHYS, P3 free, P4 11C-CHEM, P5 11C-CHEM, P6 free\n"
             "S5 Wed: P1 7A-SCI, P2 free, P3 free, P4 free, P5 12-CHEM, P6 12-CHEM\n"
             "fume cupboard serviced 2026-10-14; capacity 28")
    t.cr("room_availability", "k3", {"room": "B12", "day": "Tue"}, {"free_periods": "1, 2, 3, 4, 5", "room_type": "classroom"})
    t.cr("room_availability", "k3b", {"room": "S2", "day": "Tue"},
         {"free_periods": "5", "room_type": "lab", "gas": "yes"},
         log="S2 Tue: P1 9A-CHEM, P2 9A-CHEM, P3 13-CHEM, P4 10B-PHYS, P5 free, P6 7C-SCI\ncapacity 24")
    t.asst("S5 (a lab with gas, capacity 28) is free in period 3. S2 only frees up in period 5 and holds 24, too few "
           "for 27 students. B12 is free too, but it's excluded for labs.")
    ap = t.asst("Requesting the deputy head's approval DH-TT-0412 to move 9C-CHEM Tuesday P3 from S3 to S5.")
    t.approval("DH-TT-0412", "requested", ap)
    t.user("How many students need the practical sets on Tuesdays?")
    t.asst("All 27; the practical sets are shared in pairs, so 14 sets.")
    t.user("Can the technician get the sets to S5 in the break before?")
    t.asst("Break is 20 minutes before period 3, so yes, if they're set out at the end of period 2.")
    t.user("While we wait, who teaches in that lab before and after?")
    t.asst("8B-PHYS in period 2 and 11C-CHEM in periods 4 and 5, so setup time between lessons is tight; the "
           "technician will need the practical sets moved from S3 at break.")
    t.user("Does the move affect any other Year 9 group?")
    t.asst("No: 9A and 9B have chemistry on other days, and Ms Pereira is free in period 3 on Tuesdays apart from this class.")
    t.user("Fine. Has the approval come in? If not, draft the move but don't send it.")
    t.decide("d1", PA("DH-TT-0412"),
             NC("timetable_move", class_code="9C-CHEM", why="room found by room_availability"),
             F("period", 3, subject="class_code=9C-CHEM", superseded=[4]),
             C(u1, "Don't put any lab class in room B12"))
    t.asst("Not yet. Drafted, not sent: 9C-CHEM, Tuesday period 3, from S3 to the lab S5, effective next "
           "Tuesday, with a note to the technician about the practical sets.")
    t.approval("DH-TT-0412", "granted", ap)
    t.asst("Approval DH-TT-0412 has just been granted.")
    t.user("Go.")
    t.decide("d2", NC("timetable_move", class_code="9C-CHEM", teacher="Ms Pereira"),
             F("free_periods", "1, 3, 6", subject="room=S5"),
             C(u1, "The deputy head has to approve"))
    t.call("timetable_move", "k4", class_code="9C-CHEM", day="Tue", period=3, room="S5")
    t.res("k4", result={"moved": True, "notice_id": "TT-N-7731"})
    t.user("Let the teacher know, with the notice number.")
    t.decide("d3", NC("send_email", teacher="Ms Pereira", notice="TT-N-7731"), C(u2, "period 3"))
    return t


# ------------------------------------------------------------------------------------------------ s07
def s07():
    t = Traj(TOOLS, "h5s-discovery-volume", "Legal discovery production: shell session, privilege screen, Bates range",
             ["the working directory moves with cd; a failed cd leaves it unchanged",
              "a privileged document id buried in a long listing is needed later",
              "a production set id from the review platform is used much later",
              "rules stated early: never produce PRIV; don't upload before the user sees the range",
              "an upload timing out and resolved later", "the privilege log contradicts the tag report"],
             "A litigation-support agent assembles production volume 4 in a shell session and uploads it to the "
             "review platform.", window=1024)
    u1 = t.user("We're producing volume 4 for matter 2291 (Harlow v. Brennick). Work under /matters/2291-harlow/prod. "
                "Never produce any document tagged PRIV or PRIV-PARTIAL unless the privilege team clears it, and don't "
                "upload anything until I've seen the Bates range.")
    t.asst("Understood. I'll assemble VOL004 from the prepared natives, screen the vendor's privilege tags against "
           "the privilege log, show you the Bates range, and only then upload to the review platform. Anything "
           "tagged PRIV or PRIV-PARTIAL stays out unless the privilege team has cleared it.")
    t.cr("shell", "x1", {"command": "cd /matters/2291-harlow/prod && pwd"},
         {"cwd": "/matters/2291-harlow/prod", "exit_code": 0}, log="/matters/2291-harlow/prod")
    t.cr("shell", "x2", {"command": "ls -l"}, {"cwd": "/matters/2291-harlow/prod", "exit_code": 0},
         log="drwxr-x--- 5 lit lit 4096 Nov 03 VOL001\ndrwxr-x--- 5 lit lit 4096 Nov 10 VOL002\n"
             "drwxr-x--- 5 lit lit 4096 Nov 21 VOL003\ndrwxr-x--- 6 lit lit 4096 Dec 02 VOL004\n"
             "drwxr-x--- 2 lit lit 4096 Dec 02 privlog\ndrwxr-x--- 3 lit lit 4096 Sep 14 staging_old\n"
             "-rw-r----- 1 lit lit 2211 Nov 03 README.txt")
    t.user("Remind me what the production protocol says about endorsements and natives.")
    t.cr("shell", "x2b", {"command": "cat README.txt"}, {"cwd": "/matters/2291-harlow/prod", "exit_code": 0},
         log="PRODUCTION PROTOCOL - Harlow v. Brennick (No. 2291), per ESI stipulation of 2026-09-18\n"
             "1. Images: single-page TIFF, 300 dpi, group IV; colour JPG where colour is needed to understand the document.\n"
             "2. Natives: spreadsheets, audio and video produced natively with a Bates-stamped slip sheet.\n"
             "3. Endorsement: every page stamped with the Bates number (prefix HARL, 7 digits) and "
             "'CONFIDENTIAL - SUBJECT TO PROTECTIVE ORDER' where designated.\n"
             "4. Load files: Concordance .dat (UTF-8, standard delimiters) and Opticon .opt.\n"
             "5. Privilege: documents withheld in full are listed on the privilege log; redacted documents are "
             "produced with a REDACTED - PRIVILEGE label on each redaction box.\n"
             "6. Clawback: inadvertent production handled under FRE 502(d) order, paragraph 12.\n"
             "7. Volumes are numbered sequentially; a recalled volume keeps its number and gets a suffix on reissue.")
    t.asst("Images as single-page TIFFs, natives for spreadsheets and media with slip sheets, Bates prefix HARL with "
           "7 digits, the confidentiality legend where designated, Concordance/Opticon load files, and redaction "
           "boxes labelled REDACTED - PRIVILEGE. Fully withheld documents go on the privilege log.")
    t.cr("shell", "x3", {"command": "cd VOL004"}, {"cwd": "/matters/2291-harlow/prod/VOL004", "exit_code": 0})
    rng = t.rng
    rows = []
    bates = 41877
    for i in range(8):
        ext = rng.choice(["pdf", "msg", "xlsx", "docx", "pdf", "msg"])
        tag = "PRIV" if i == 5 else ("PRIV-PARTIAL" if i == 7 else rng.choice(["RESP", "RESP", "RESP-CONF"]))
        pages = rng.randint(1, 40)
        rows.append(f"HARL-{bates:07d}.{ext} {pages}pp {tag}")
        if i == 5:
            priv_doc = f"HARL-{bates:07d}"
        if i == 7:
            partial_doc = f"HARL-{bates:07d}"
        bates += pages
    last_bates = f"HARL-{bates - 1:07d}"
    t.call("shell", "x4", command="./tag-report.sh natives/ --with-pages")
    b_list = t.res("x4", result={"cwd": "/matters/2291-harlow/prod/VOL004", "exit_code": 0,
                                "first_bates": "HARL-0041877", "last_bates": last_bates},
                   log="\n".join(rows))
    t.asst(f"VOL004 has 8 documents, HARL-0041877 to {last_bates}. The tag report marks one document PRIV and "
           "one PRIV-PARTIAL.")
    t.user("Cross-check with the privilege log, the tags were done by the vendor.")
    plog = [f"{r.split('.')[0]},{'withheld,attorney-client' if r.split('.')[0] == priv_doc else 'produce'}"
            + (",redact p3-p4 work product" if r.split('.')[0] == partial_doc else "") for r in rows]
    t.call("shell", "x5", command="cat ../privlog/VOL004_privlog.csv")
    b_plog = t.res("x5", result={"cwd": "/matters/2291-harlow/prod/VOL004", "exit_code": 0},
                   log="bates,decision,basis\n" + "\n".join(plog))
    t.asst(f"The privilege log agrees that {priv_doc} is withheld (attorney-client), but it lists {partial_doc} as "
           "'produce' with redactions of pages 3 to 4, while the vendor's tag report says PRIV-PARTIAL. So the two "
           "disagree about whether it can go out; with redactions it can, per the log.")
    t.cr("review_platform", "x6", {"matter_id": "2291", "action": "create_production_set", "volume": "VOL004"},
         {"production_set_id": "PS-2291-0004-B", "state": "draft"},
         log="matter 2291 Harlow v. Brennick; existing sets: PS-2291-0001 (produced 2026-11-04), PS-2291-0002 "
             "(produced 2026-11-12), PS-2291-0003-A (recalled 2026-11-25, clawback letter sent), PS-2291-0003-B "
             "(produced 2026-11-26); new draft set created for VOL004 with default endorsement 'CONFIDENTIAL - "
             "SUBJECT TO PROTECTIVE ORDER' and Bates prefix HARL")
    t.asst("Created draft production set PS-2291-0004-B on the review platform. The numbering follows the "
           "protocol: 0003-A was recalled on 25 November and reissued as 0003-B, so this volume's set is 0004 and "
           "the platform added the -B suffix because a placeholder 0004-A was reserved during the recall. The "
           "default endorsement is the protective-order legend with the HARL prefix, which matches the protocol.")
    t.user("Show me the range first. Also stage the load file in the staging folder for volume 4.")
    t.decide("d1", C(u1, "don't upload anything until I've seen the Bates range"))
    t.asst(f"Range: HARL-0041877 through {last_bates} (8 documents, 7 to produce if {priv_doc} is withheld).")
    t.cr("shell", "x7", {"command": "cd ../staging/VOL004"}, {"cwd": "/matters/2291-harlow/prod/VOL004", "exit_code": 1},
         log="bash: cd: ../staging/VOL004: No such file or directory")
    t.asst("There's no staging folder for VOL004 (only staging_old from September, which belongs to the recalled "
           "0003-A set and shouldn't be reused), so the cd failed and the shell is still in VOL004. The load files "
           "VOL004.dat and VOL004.opt are already in VOL004/load, which is where the platform's uploader expects "
           "them, so staging isn't needed for this volume.")
    t.user("Forget staging. The range looks right. Upload, the privilege team cleared the partial one after "
           "redaction; only exclude the fully privileged one.")
    t.call("review_platform", "x9", matter_id="2291", action="upload_volume", production_set_id="PS-2291-0004-B",
           source="/matters/2291-harlow/prod/VOL004", exclude=priv_doc)
    t.res("x9", outcome="timeout", request_id="rq-rp-30771", error="upload still processing after 120s")
    t.asst("The upload is still processing (rq-rp-30771); its outcome is unknown for now.")
    t.user("Wait, hold on. Did you check the redaction was actually applied to the partial one?")
    t.decide("d2", F("cwd", "/matters/2291-harlow/prod/VOL004", superseded=["/matters/2291-harlow/prod"],
                     why="the failed cd left the shell in VOL004"),
             TS("unknown", call_id="x9", request_id="rq-rp-30771"),
             PC("x9"),
             EV(b_list, b_plog, why="tag report and privilege log disagree on the partial document"),
             NC("shell", document=partial_doc, why="the partial document id buried in the tag report"),
             C(u1, "Never produce any document tagged PRIV"))
    t.cr("shell", "x10", {"command": f"./redaction-check.sh {partial_doc}"},
         {"cwd": "/matters/2291-harlow/prod/VOL004", "exit_code": 0, "redactions_applied": 3},
         log=f"{partial_doc}: 3 redaction boxes burned in on p3, p4; text layer re-OCRed; hash updated")
    t.asst(f"Yes: {partial_doc} has 3 burned-in redactions and a fresh text layer.")
    t.user("Good. Now check how the upload went.")
    t.sq("x9", "succeeded", {"production_set_id": "PS-2291-0004-B", "state": "uploaded", "documents_loaded": 7})
    t.asst("The upload succeeded: 7 documents loaded, the privileged one excluded.")
    t.user("Finalize the set and then we'll write to opposing counsel.")
    t.decide("d3", NC("review_platform", production_set_id="PS-2291-0004-B", matter_id="2291",
                      why="the set id from the review platform"),
             TS("succeeded", call_id="x9"),
             F("documents_loaded", 7))
    return t


# ------------------------------------------------------------------------------------------------ s08
def s08():
    t = Traj(TOOLS, "h5s-accident-claim", "Car accident claim: date correction, photo upload, settlement floor",
             ["a claim number typed once", "a user correction of the accident date",
              "a settlement floor stated early", "a timed-out upload resolved later",
              "the claim record contradicts the upload status"],
             "An agent handles a rear-end collision claim with the insurer.", window=256)
    u1 = t.user("I was rear-ended. Claim number CLM-77-4410392. Don't accept any settlement below 3,400.00.")
    t.cr("claim_lookup", "a1", {"claim_number": "CLM-77-4410392"},
         {"adjuster": "P. Novak", "claim_state": "open", "accident_date": "2026-11-02", "photos_received": 0})
    t.asst("Claim open with adjuster P. Novak; accident date on file is 2 November.")
    t.user("The police report number is PR-2026-118834, they'll want it.")
    t.asst("Noted. I'll attach it when we respond to the insurer.")
    t.user("Do I get a rental while it's repaired?")
    t.asst("The claim notes don't say; most policies cover a rental when the other driver is at fault.")
    t.user("The other driver admitted fault at the scene, it should be in the report.")
    t.asst("Then liability should sit with their insurer; the adjuster can confirm the rental.")
    u2 = t.user("The date on the claim is wrong, it was the 3rd of November.")
    t.corr("accident_date", "2026-11-03")
    t.call("claim_upload_photos", "a2", claim_number="CLM-77-4410392", files="IMG_4410-4415", accident_date="2026-11-03")
    t.res("a2", outcome="timeout", request_id="rq-up-6120")
    t.asst("The photo upload timed out (rq-up-6120).")
    t.user("Check it went through?")
    t.sq("a2", "succeeded", {"photos_received": 6, "upload_ref": "UPL-55109"})
    t.asst("It did: 6 photos, upload UPL-55109.")
    t.user("Get the shop's estimate.")
    t.cr("repair_estimate", "a3", {"claim_number": "CLM-77-4410392"},
         {"estimate_total": "3,912.50", "shop": "Ridgeway Auto Body", "estimate_id": "EST-20931"})
    t.asst("Ridgeway Auto Body estimates 3,912.50 (EST-20931): rear bumper, boot lid and a tail lamp.")
    t.user("Any offer yet?")
    a, b1 = t.cr("claim_lookup", "a4", {"claim_number": "CLM-77-4410392"},
                 {"claim_state": "offer made", "offer_id": "OFR-5521", "offer_amount": "3,150.00", "photos_received": 0})
    t.asst("Offer OFR-5521 for 3,150.00, below your floor. Oddly the claim still shows 0 photos.")
    t.user("Reject it and counter with the shop's number.")
    t.decide("d1", C(u1, "Don't accept any settlement below 3,400.00"),
             NC("claim_respond_offer", claim_number="CLM-77-4410392", offer_id="OFR-5521", counter="3,912.50"),
             F("accident_date", "2026-11-03", superseded=["2026-11-02"]),
             TS("succeeded", call_id="a2"),
             EV(b1, why="claim says 0 photos after the upload succeeded"))
    t.call("claim_respond_offer", "a5", claim_number="CLM-77-4410392", offer_id="OFR-5521", response="reject",
           counter="3,912.50")
    t.res("a5", result={"response_id": "RSP-8802", "offer_state": "countered"})
    t.user("And tell the adjuster the photos are there, with the upload ref.")
    t.decide("d2", NC("send_email", to="P. Novak", upload_ref="UPL-55109", police_report="PR-2026-118834"),
             F("photos_received", 0, why="the newest statement is the claim record's 0; the contradiction stays"),
             C(u2, "3rd of November"))
    return t


# ------------------------------------------------------------------------------------------------ s09
def s09():
    t = Traj(TOOLS, "h5s-snapshot-cleanup", "Cloud cost cleanup: old snapshots, keep tags, approval before deleting",
             ["the working directory moves with cd between folders",
              "a protected snapshot buried in a long listing", "rules: never delete keep=true; don't delete until approved",
              "billing and inventory contradict each other about a volume", "a user correction excludes one snapshot",
              "a delete interrupted by a restart (recover) and resolved later"],
             "A platform engineer's agent cleans up old disk snapshots with the cloud CLI and the cost tools.",
             window=1024)
    u1 = t.user("Clean up old snapshots in project acme-analytics, the storage bill doubled this quarter. Never delete "
                "anything tagged keep=true, and don't delete anything until I've approved the list. Scripts live in "
                "~/infra/scripts.")
    t.asst("Understood: list first, protect keep=true, wait for your approval before any delete. Going to the scripts "
           "folder.")
    t.cr("shell", "y1", {"command": "cd ~/infra/scripts && pwd && ls"}, {"cwd": "/home/ops/infra/scripts", "exit_code": 0},
         log="/home/ops/infra/scripts\nlist-snapshots.sh  list-volumes.sh  tag-audit.py  cost-by-label.sh  README.md\n"
             "README.md (excerpt): list-snapshots.sh prints id, size, age and labels for one project; it never "
             "deletes. Deletion goes through the cloud_delete tool so that every delete is logged to the audit "
             "bucket gs://acme-ops-audit/deletes/ with the operator and the approval id. Labels: keep=true means a "
             "legal or finance hold and must never be removed; team=... is the cost owner; env=old marks resources "
             "from the 2024 migration. Snapshot schedules are created by Terraform in terraform/envs/<project>; "
             "the snapshots they produce are not in state and may be deleted once older than the retention.")
    rng = t.rng
    rows = []
    snaps = []
    for i in range(14):
        sid = "snap-" + "".join(rng.choice("0123456789abcdef") for _ in range(17))
        age = rng.randint(190, 720)
        size = rng.choice([20, 50, 100, 200, 500, 1000])
        tag = "keep=true" if i == 8 else rng.choice(["team=etl", "team=bi", "-", "env=old"])
        rows.append(f"{sid} {size}GiB {age}d {tag}")
        snaps.append((sid, tag))
    keep_snap = snaps[8][0]
    finance_snap = snaps[3][0]
    t.call("shell", "y2", command="./list-snapshots.sh --project acme-analytics --older-than 180d")
    t.res("y2", result={"cwd": "/home/ops/infra/scripts", "exit_code": 0, "snapshots": 14, "total_gib": 2610},
          log="\n".join(rows))
    t.asst(f"14 snapshots older than 180 days, 2,610 GiB in total. One, {keep_snap}, is tagged keep=true and stays "
           "whatever happens. The others are labelled team=etl, team=bi, env=old or not labelled at all; none is "
           "referenced by an image or a machine template, which the script would have flagged.")
    t.user("Are any of them managed by Terraform? I don't want drift.")
    t.cr("shell", "y3", {"command": "cd ../terraform/envs/analytics"},
         {"cwd": "/home/ops/infra/terraform/envs/analytics", "exit_code": 0})
    t.cr("shell", "y4", {"command": "terraform state list | grep -c snapshot"},
         {"cwd": "/home/ops/infra/terraform/envs/analytics", "exit_code": 0, "managed_snapshots": 0},
         log="0\n(terraform 1.9.8, backend gcs://acme-tfstate/analytics, workspace default, 214 resources in state; "
             "snapshot schedules are managed but snapshots themselves are not)\nrelated state entries:\n"
             "google_compute_resource_policy.daily_snap_bi (retention 30d)\n"
             "google_compute_resource_policy.weekly_snap_etl (retention 90d)\n"
             "google_compute_disk_resource_policy_attachment.bi_runner_data\n"
             "google_compute_disk.bi_runner_data (vol-0d2e77)\ngoogle_compute_instance.bi_report_runner (i-07c4e1a9)\n"
             "google_storage_bucket.bi_exports (lifecycle: none)")
    t.asst("None of the snapshots is in Terraform state (only the snapshot schedules are), so deleting them won't "
           "cause drift.")
    t.user("What about vol-0d2e77 that shows up on the bill?")
    a, b_bill = t.cr("billing_report", "y5", {"resource_id": "vol-0d2e77"},
                     {"monthly_cost": "96.00", "attachment": "unattached", "since": "2026-06-01"},
                     log="sku: pd-ssd 800 GiB europe-west4; labels: team=bi, env=old; usage 2026-09: 96.00; "
                         "2026-10: 96.00; 2026-11: 96.00; attachment inferred from usage export (no read/write ops)")
    a, b_inv = t.cr("cloud_inventory", "y6", {"resource_id": "vol-0d2e77"},
                    {"attachment": "attached to i-07c4e1a9", "instance_state": "stopped"},
                    log="resource vol-0d2e77 pd-ssd 800GiB created 2024-02-11 by terraform; users: "
                        "instances/i-07c4e1a9 (bi-report-runner, TERMINATED since 2026-05-30); snapshot schedule: none")
    t.asst("Billing says vol-0d2e77 is unattached (it infers that from zero I/O), but the inventory says it is "
           "attached to the stopped instance i-07c4e1a9 (bi-report-runner). They disagree; the inventory is the "
           "authoritative view of attachment, and the volume is Terraform-managed, so I'd leave it out of this pass.")
    ap = t.asst("Requesting your approval CLN-APR-31 for deleting the 13 snapshots not tagged keep=true. "
                "vol-0d2e77 itself is not on the list.")
    t.approval("CLN-APR-31", "requested", ap)
    t.user("What does that save?")
    t.cr("shell", "y6b", {"command": "./cost-by-label.sh --project acme-analytics --months 3"},
         {"cwd": "/home/ops/infra/terraform/envs/analytics", "exit_code": 127},
         log="bash: ./cost-by-label.sh: No such file or directory")
    t.asst("That script lives in ~/infra/scripts and the shell is still in terraform/envs/analytics, so it wasn't "
           "found. From the listing instead: snapshot storage is 0.05 per GiB-month here, and the 13 candidate "
           "snapshots hold about 2,400 of the 2,610 GiB, so roughly 100 a month, about a third of this quarter's "
           "increase. The rest of the increase is vol-0d2e77 (96 a month) and the BI exports bucket, which has no "
           "lifecycle rule.")
    u2 = t.user(f"Exclude {finance_snap} as well, finance needs it for the audit. Otherwise approved.")
    t.approval("CLN-APR-31", "granted", ap)
    t.asst("Approved minus that one: 12 snapshots to delete, one at a time, each through cloud_delete so the "
           "audit bucket records the approval CLN-APR-31. I'll go back to the scripts folder first so the "
           "follow-up listing runs from the right place.")
    t.cr("shell", "y7", {"command": "cd /home/ops/infra/scripts"}, {"cwd": "/home/ops/infra/scripts", "exit_code": 0})
    todo = [s for s, tag in snaps if tag != "keep=true" and s != finance_snap]
    t.call("cloud_delete", "y8", idem=f"del-{todo[0]}", resource_id=todo[0])
    t.res("y8", result={"deleted": True, "freed_gib": 200})
    t.call("cloud_delete", "y9", idem=f"del-{todo[1]}", resource_id=todo[1])
    t.recover()
    t.user("Sorry, my laptop went to sleep. Where were we?")
    t.decide("d1", TS("unknown", call_id="y9", why="the restart left the delete unknown"),
             PC("y9"),
             TS("succeeded", call_id="y8"),
             C(u1, "Never delete anything tagged keep=true"),
             F("cwd", "/home/ops/infra/scripts", superseded=["/home/ops/infra/terraform/envs/analytics"]),
             NC("cloud_delete", resource_id=todo[1], why="re-check this one before the next"))
    t.cr("cloud_inventory", "y10", {"resource_id": todo[1]}, {"exists": False})
    t.sq("y9", "succeeded", {"deleted": True})
    t.asst(f"{todo[1]} no longer exists in the inventory and the delete's status query confirms it, so the "
           "interrupted delete did succeed before the restart. Two of the twelve approved deletes are done; the "
           "remaining ten are untouched, and the keep=true snapshot and the finance one are excluded from the "
           "queue.")
    t.user("Good. And the volume, should we delete it?")
    t.decide("d2", EV(b_bill, b_inv, why="billing and inventory disagree"),
             F("attachment", "attached to i-07c4e1a9", superseded=["unattached"]),
             C(u2, "finance needs it for the audit"),
             NC("cloud_inventory", instance="i-07c4e1a9"))
    return t


# ------------------------------------------------------------------------------------------------ s10
def s10():
    t = Traj(TOOLS, "h5s-rack-move", "Data-center rack move: change freeze, target correction, work order",
             ["a change freeze stated early", "a user correction of the target position",
              "a work order id from one tool used by another later", "a pending CAB approval",
              "a timed-out work order resolved"],
             "An infrastructure agent plans moving a rack between cages with remote hands.", window=512)
    u1 = t.user("Move rack R14 from cage 2 to cage 3, position F05. No physical moves before 22:00 UTC, we're in "
                "change freeze until then.")
    t.asst("Understood: nothing physical before 22:00 UTC. Reading the rack's DCIM record first.")
    t.cr("dcim_rack_get", "r1", {"rack_id": "R14"},
         {"cage": "2", "position": "C11", "circuits": "PDU-2A-17 / PDU-2B-17", "weight_kg": 612, "power_state": "dual-fed"},
         log="U42-U39 empty\nU38 tor-sw-r14a (arista 7050)\nU37 tor-sw-r14b\nU36-U21 db-shard-07..22 (1U each)\n"
             "U20-U11 empty\nU10-U01 battery shelf + PDU\nserial console: cs-2-04 port 14\n"
             "uplinks: 4x 100G to spine-2a/2b via MPO trunk T-2-117")
    t.asst("R14 sits in cage 2 at C11, 612 kg, with 16 database shards and two top-of-rack switches. DCIM says it "
           "is dual-fed from PDU-2A-17 and PDU-2B-17.")
    t.user("What's running on it right now?")
    t.asst("16 database shards (db-shard-07 to 22) and the two switches; the shards are replicas, so they can be "
           "drained and rebalanced to other racks before the power-down.")
    t.user("Fine. Will the MPO trunk reach cage 3?")
    t.asst("No, T-2-117 stops at cage 2; cage 3 row F has its own trunk to the spines, so the uplinks get new patch "
           "cables, 4 of them.")
    t.user("Check both circuits are healthy before we plan the power-down.")
    t.cr("power_circuit_status", "r2", {"circuit_id": "PDU-2B-17"}, {"breaker": "tripped", "since": "2026-12-02T03:14Z"})
    t.cr("power_circuit_status", "r2b", {"circuit_id": "PDU-2A-17"}, {"breaker": "closed", "load_kw": "4.1"})
    t.asst("PDU-2A-17 is fine at 4.1 kW, but PDU-2B-17 tripped on 2 December, so R14 is running on one feed, "
           "contrary to DCIM.")
    ap = t.asst("Requesting change-board approval CAB-9921 for the move.")
    t.approval("CAB-9921", "requested", ap)
    u2 = t.user("Correction: F05 is reserved for the new storage array. Use F07.")
    t.corr("target_position", "F07", subject="rack_id=R14")
    t.call("work_order_create", "r3", idem="wo-R14-move", rack_id="R14", from_position="cage 2 C11",
           to_position="cage 3 F07", not_before="22:00 UTC")
    t.res("r3", outcome="timeout", request_id="rq-wo-5120")
    t.asst("The work-order request timed out (rq-wo-5120).")
    t.user("Check with remote hands whether it was created.")
    t.decide("d1", TS("unknown", call_id="r3", request_id="rq-wo-5120"))
    t.sq("r3", "succeeded", {"work_order_id": "WO-DC3-44871", "scheduled": "2026-12-04T22:30Z"})
    t.asst("It was created: WO-DC3-44871, scheduled for 22:30 UTC tonight, after the freeze ends.")
    t.user("Before anything else, is the tripped breaker going to be a problem?")
    t.asst("Not for the move: F07 in cage 3 has fresh A and B circuits. But the shards must be drained first, since "
           "a single feed means no redundancy while we unplug. The tripped B side stays behind in cage 2 for the "
           "electrician.")
    t.user("Who else is in cage 3 row F?")
    t.asst("F01 to F04 are the payments team's racks and F06 is empty; F08 holds the backup appliance. Nothing "
           "adjacent to F07 is scheduled for work tonight.")
    t.user("How long will the shards take to drain?")
    t.asst("About 40 minutes for 16 shards at the usual rebalance rate, so starting at 21:45 is fine: draining is "
           "not a physical move.")
    t.user("OK. What does remote hands say now about the order?")
    t.decide("d2", NC("work_order_status", work_order_id="WO-DC3-44871"),
             F("target_position", "F07", subject="rack_id=R14"),
             C(u1, "No physical moves before 22:00 UTC"),
             PA("CAB-9921"),
             TS("succeeded", call_id="r3"),
             F("breaker", "tripped", subject="circuit_id=PDU-2B-17", why="DCIM's dual-fed is wrong"))
    t.cr("work_order_status", "r4", {"work_order_id": "WO-DC3-44871"}, {"wo_state": "awaiting CAB", "tech": "J. Ruiz"})
    t.user("Tell J. Ruiz the serial console port so they can watch the shutdown.")
    t.decide("d3", NC("send_email", console="cs-2-04 port 14", order="WO-DC3-44871"),
             C(u2, "F05 is reserved"), PA("CAB-9921"))
    return t


# ------------------------------------------------------------------------------------------------ s11
def s11():
    t = Traj(TOOLS, "h5s-bike-rebalance", "Bike-share rebalancing: sensor feed contradicts the station API",
             ["two tools contradict each other about bike counts", "a per-run cap stated early",
              "a failed dispatch and a user correction of the truck", "a dispatch with unknown outcome"],
             "A fleet operator's agent moves bikes from a full station to an empty one before the rush.", window=256)
    u1 = t.user("Rebalance before the 8am rush. At most 12 bikes per truck run. Use truck T-07 today.")
    t.fact("truck_id", "T-07")
    a, b1 = t.cr("station_status", "b1", {"station_id": "ST-118"}, {"name": "Central Station", "bikes": 31, "docks_free": 1})
    t.cr("station_status", "b2", {"station_id": "ST-042"}, {"name": "Harbour Rd", "bikes": 2, "docks_free": 22})
    t.asst("Central Station (ST-118) is nearly full; Harbour Rd (ST-042) nearly empty.")
    t.user("How many bikes does T-07 carry?")
    t.asst("Its trailer takes 14, but your cap is 12 per run.")
    t.user("Right, keep it at 12, the ramp is dodgy with a full load.")
    t.asst("Will do, 12 per run.")
    t.user("Which one fills up first in the morning?")
    t.asst("Harbour Rd empties by 7:30 on weekdays; commuters ride from there into the centre.")
    t.user("The Central count looks too high. Check the sensors.")
    a, b2 = t.cr("dock_sensor_feed", "b3", {"station_id": "ST-118"}, {"bikes": 19, "faulty_docks": "D07, D21"})
    t.asst("Sensors show 19 bikes; docks D07 and D21 are faulty and reported as occupied.")
    t.user("Log the faulty docks for maintenance later. Now send the truck.")
    t.call("dispatch_truck", "b4", truck_id="T-07", from_station="ST-118", to_station="ST-042", bikes=12)
    t.res("b4", outcome="failed", error="truck T-07 is in maintenance")
    t.asst("T-07 is in maintenance, so the dispatch was refused.")
    u2 = t.user("Ugh. Use T-11 instead.")
    t.corr("truck_id", "T-11")
    t.asst("Switching to T-11; same route, Central Station to Harbour Rd.")
    t.user("Go.")
    t.decide("d1", NC("dispatch_truck", truck_id="T-11", from_station="ST-118", to_station="ST-042"),
             F("truck_id", "T-11", superseded=["T-07"]),
             F("bikes", 19, subject="station_id=ST-118", superseded=[31]),
             C(u1, "At most 12 bikes per truck run"),
             TS("failed", call_id="b4"),
             EV(b1, b2))
    t.call("dispatch_truck", "b5", truck_id="T-11", from_station="ST-118", to_station="ST-042", bikes=12)
    t.res("b5", outcome="timeout", request_id="rq-dsp-402")
    t.asst("The dispatch timed out (rq-dsp-402).")
    t.user("Did it go?")
    t.decide("d2", TS("unknown", call_id="b5", request_id="rq-dsp-402"), PC("b5"), C(u2, "Use T-11"))
    return t


# ------------------------------------------------------------------------------------------------ s12
def s12():
    t = Traj(TOOLS, "h5s-brochure-print", "Print order: paper correction, requote, proof approval before press",
             ["a rule: nothing to press until the proof is approved", "a user correction of the paper stock",
              "a quote id from one tool used by another later", "a proof approval pending, then granted",
              "a timed-out press submission"],
             "A marketing agent orders brochures from a print shop.", window=512)
    u1 = t.user("Quote 2,500 tri-fold brochures for the spring open day, job ref PR-66012, A4, 130gsm silk. Don't "
                "send anything to press until I've approved the proof.")
    t.asst("Will do: quote first, and nothing goes to press before you approve the proof.")
    t.cr("print_quote", "q1", {"job_ref": "PR-66012", "quantity": 2500, "paper": "130gsm silk"},
         {"quote_id": "Q-7741", "price": "612.00", "paper": "130gsm silk", "turnaround_days": 4},
         log="stock: Magno Silk 130gsm, 2 sheets/brochure, 5% spoilage\nfinishing: crease + roll fold\n"
             "press: Heidelberg XL 106, slot Thu 2026-12-10\ndelivery: pallet, 3 boxes of 850\n"
             "colour: CMYK 4/4, no spot; files: PDF/X-4 with 3 mm bleed")
    t.asst("Quote Q-7741: 612.00 for 2,500 on 130gsm silk, 4 working days, press slot Thursday 10 December.")
    t.user("Does the price include delivery? Half of them go to the west campus.")
    t.asst("It includes one pallet to a single address. A split delivery to the west campus would be an extra "
           "courier charge, usually around 35.00, or you could move one box of 850 yourselves.")
    t.user("Can they do a spot varnish on the cover?")
    t.asst("Not on this press run; spot UV is a separate pass at another shop and adds about 3 days.")
    t.user("Skip it then. Matte or gloss lamination?")
    t.asst("Neither needed on silk; lamination would slow the fold. Silk alone takes the crease well at 170gsm.")
    t.user("We'll move a box ourselves. What file spec do they need from the designer?")
    t.asst("PDF/X-4, CMYK only, 3 mm bleed on every side, fonts embedded, and the fold panels laid out at 100, 100 "
           "and 97 mm so the inside panel tucks in. Images at 300 dpi at final size.")
    u2 = t.user("Change the paper to 170gsm silk, the 130 feels flimsy for a fold-out.")
    t.corr("paper", "170gsm silk", subject="job_ref=PR-66012")
    t.cr("print_quote", "q2", {"job_ref": "PR-66012", "quantity": 2500, "paper": "170gsm silk"},
         {"quote_id": "Q-7745", "price": "744.50", "paper": "170gsm silk", "turnaround_days": 5},
         log="stock: Magno Silk 170gsm; crease required before folding at this weight; 5% spoilage\n"
             "press slot moves to Fri 2026-12-11")
    t.asst("Requote Q-7745: 744.50 on 170gsm silk, 5 days; at that weight it must be creased before folding, and "
           "the press slot moves to Friday.")
    t.user("Fine. Get the proof going.")
    t.cr("proof_status", "q3", {"job_ref": "PR-66012"},
         {"proof_state": "ready for review", "proof_url": "https://proofs.example/PR-66012/v2", "pages": 6},
         log="preflight v2: 6 panels, CMYK, 3 mm bleed ok, fonts embedded (Source Sans 3, Merriweather)\n"
             "warning: panel 3 fold mark at 97.5 mm (expected 97 mm)\nwarning: image hero_campus.jpg 240 dpi at final size\n"
             "rich black used on body text of panel 5 (converted to K only)")
    ap = t.asst("Proof v2 is ready at https://proofs.example/PR-66012/v2. Preflight flags the panel 3 fold mark half a "
                "millimetre out and one 240 dpi image. I've opened approval PRF-66012-v2 for you.")
    t.approval("PRF-66012-v2", "requested", ap)
    t.user("The fold marks look off on panel 3; I'll look tonight. What's the turnaround if we go Monday?")
    t.asst("Five working days from Monday puts delivery on Friday, still before the open day on the Saturday. "
           "If the proof slips past Monday, the press slot moves with it.")
    t.user("OK. Is everything queued so it can go to press?")
    t.decide("d1", PA("PRF-66012-v2"), C(u1, "Don't send anything to press until I've approved the proof"),
             F("price", "744.50", superseded=["612.00"]),
             F("paper", "170gsm silk", subject="job_ref=PR-66012", superseded=["130gsm silk"]))
    t.asst("Everything is ready except your proof approval.")
    t.approval("PRF-66012-v2", "granted", ap)
    t.user("Approved the proof. Send it.")
    t.decide("d2", NC("print_order_submit", job_ref="PR-66012", quote_id="Q-7745"),
             F("quote_id", "Q-7745", superseded=["Q-7741"]),
             C(u2, "170gsm silk"))
    t.call("print_order_submit", "q4", idem="press-PR-66012", job_ref="PR-66012", quote_id="Q-7745")
    t.res("q4", outcome="timeout", request_id="rq-prs-3302")
    t.user("Did the press get it?")
    t.decide("d3", TS("unknown", call_id="q4", request_id="rq-prs-3302"), PC("q4"))
    return t


# ------------------------------------------------------------------------------------------------ s13
def s13():
    t = Traj(TOOLS, "h5s-firmware-flash", "Firmware flashing: build directory, device serial, interrupted flash",
             ["the working directory moves with cd and a failed cd", "a device serial typed once by the user",
              "an image file name buried in a long build log", "a rule: never write the bootloader partition",
              "a flash interrupted by a restart (recover), a status query that stays unknown"],
             "An embedded developer's agent builds and flashes thermostat firmware over a debug probe.", window=1024)
    u1 = t.user("Flash the new firmware to the board on my bench, serial SN-4C7A-00912. Never write to the bootloader "
                "partition, only app_b. The source is in ~/work/fw-thermo, build it from the current main.")
    t.asst("Will do: build from main, flash app_b only, never the bootloader. Starting in the source tree.")
    t.cr("shell", "f1", {"command": "cd ~/work/fw-thermo && git status -sb && git log -3 --oneline"},
         {"cwd": "/home/lena/work/fw-thermo", "exit_code": 0, "commit": "9f3e2a1"},
         log="## main...origin/main\n9f3e2a1 ctrl: widen PID anti-windup clamp\n77b10c4 ble: bump adv interval to 1s\n"
             "c02e9aa ota: verify image signature before swap")
    t.asst("Clean main at 9f3e2a1.")
    t.cr("shell", "f2", {"command": "cd build"}, {"cwd": "/home/lena/work/fw-thermo", "exit_code": 1},
         log="bash: cd: build: No such file or directory")
    t.cr("shell", "f3", {"command": "cmake -B build -G Ninja -DBOARD=thermo_v3"},
         {"cwd": "/home/lena/work/fw-thermo", "exit_code": 0},
         log="-- The C compiler identification is GNU 13.2.1\n-- Board: thermo_v3 (nRF52840)\n"
             "-- Partition table: mbr 4K, bootloader 48K @0x00000, app_a 472K @0x0C000, app_b 472K @0x82000, "
             "nvs 32K @0xF8000\n-- Signing key: keys/dev-ec256.pem\n-- Configuring done\n-- Build files written to build")
    t.asst("No build folder yet, so I configured one. Note the layout: bootloader at 0x00000, app_b at 0x82000.")
    t.cr("shell", "f4", {"command": "cd build"}, {"cwd": "/home/lena/work/fw-thermo/build", "exit_code": 0})
    rng = t.rng
    mods = ["hal_gpio", "hal_i2c", "drv_sht4x", "drv_epaper", "ble_gatt", "ble_adv", "ctrl_pid", "ota_client",
            "storage_nvs", "main"]
    rows = [f"[{i + 1}/{len(mods) + 3}] CC src/{m}.c.obj" for i, m in enumerate(mods)]
    rows += [f"[{len(mods) + 1}/{len(mods) + 3}] LINK thermo-app.elf  FLASH 412/472 KB  RAM 118/256 KB",
             f"[{len(mods) + 2}/{len(mods) + 3}] SIGN keys/dev-ec256.pem",
             "image: thermo-app-2.4.1+9f3e2a1.signed.bin slot app_b sha256 5e1f0c77a2",
             f"[{len(mods) + 3}/{len(mods) + 3}] Done"]
    t.call("shell", "f5", command="ninja")
    b_build = t.res("f5", result={"cwd": "/home/lena/work/fw-thermo/build", "exit_code": 0}, log="\n".join(rows))
    t.asst("Build done in 14 steps: the app uses 412 of 472 KB of flash and 118 of 256 KB of RAM, and the image "
           "was signed with the development key for slot app_b.")
    t.user("Any warnings I should care about?")
    t.cr("shell", "f5b", {"command": "ninja -t query thermo-app.elf && grep -c warning build.log"},
         {"cwd": "/home/lena/work/fw-thermo/build", "exit_code": 0, "warnings": 3},
         log="src/drv_epaper.c:211: warning: 'refresh_full' may be used uninitialized\n"
             "src/ble_gatt.c:88: warning: unused variable 'tmp_handle'\n"
             "src/ctrl_pid.c:140: warning: comparison of integer expressions of different signedness\n"
             "(the ctrl_pid one is in the code changed by 9f3e2a1: the anti-windup clamp compares an int32 "
             "integral against a uint16 limit; harmless while the limit stays under 32767)")
    t.asst("Three warnings. The one in ctrl_pid.c is in today's anti-windup change: a signed/unsigned comparison "
           "that is harmless while the clamp limit stays under 32767 (it is 4000). The others are old.")
    t.user("Check the flashing doc first, I never remember the probe settings.")
    t.cr("shell", "f5c", {"command": "cat ../docs/FLASHING.md"},
         {"cwd": "/home/lena/work/fw-thermo/build", "exit_code": 0},
         log="# Flashing thermo_v3\n\nProbe: SEGGER J-Link over SWD, 4 MHz, target nRF52840_xxAA. Power the board "
             "from the bench supply (3.3 V), not from the probe.\n\n## Slots\n- bootloader (mcuboot) at 0x00000, 48K. "
             "Locked in production units. Only the hardware team reflashes it, with the recovery jig.\n- app_a at "
             "0x0C000 and app_b at 0x82000, 472K each. Flash the inactive slot, then mark it for test: mcuboot swaps "
             "on the next reset and reverts on the one after unless the app confirms itself.\n- nvs at 0xF8000: "
             "calibration data. Never erase the whole chip (it wipes nvs and the factory calibration).\n\n## Steps\n"
             "1. flash the signed image (*.signed.bin) to the inactive slot\n2. verify with device_info: the slot "
             "shows the new version as 'pending'\n3. reset; the device boots the new image in test mode\n4. after "
             "the smoke test, confirm the image from the shell menu (cfg > fw > confirm)\n\nIf the probe loses "
             "the target mid-write, power-cycle the board and read device_info before any retry: a half-written "
             "slot shows as 'invalid' and the old slot stays active.")
    t.asst("Key points: J-Link over SWD at 4 MHz, board powered from the bench supply. Flash only the inactive slot "
           "(app_b here) with the signed image, never the bootloader and never a full chip erase, since nvs holds "
           "the factory calibration. After flashing, device_info should show app_b as pending; a reset boots it in "
           "test mode and it must be confirmed from the menu. If the probe loses the target mid-write: power-cycle "
           "and read device_info before retrying.")
    t.cr("shell", "f5d", {"command": "ls -1 *.bin"}, {"cwd": "/home/lena/work/fw-thermo/build", "exit_code": 0},
         log="mcuboot-1.1.0.bin\nthermo-app.bin\nthermo-app-2.4.1+9f3e2a1.signed.bin")
    t.asst("Three images in build: mcuboot-1.1.0.bin is the bootloader and must not be flashed, thermo-app.bin is "
           "unsigned (mcuboot would reject it), and the signed one is the image for app_b.")
    t.cr("device_info", "f6", {"serial": "SN-4C7A-00912"},
         {"app_version": "2.3.7", "active_slot": "app_a", "bootloader": "1.1.0", "probe": "J-Link 5014"},
         log="slot app_a @0x0C000: thermo-app 2.3.7 (valid, confirmed)\nslot app_b @0x82000: empty\n"
             "bootloader @0x00000: mcuboot 1.1.0 (locked)\nnvs: 32K, 41% used\nreset reason: power-on")
    t.asst("The board runs 2.3.7 from app_a (valid and confirmed); app_b is empty, so it is the inactive slot to "
           "write, and the mcuboot 1.1.0 bootloader is locked. The J-Link (5014) sees the target, and the last "
           "reset was a clean power-on, so the board is in a good state for flashing.")
    t.user("Go ahead and flash it.")
    t.decide("d1", NC("flash_device", serial="SN-4C7A-00912", image="thermo-app-2.4.1+9f3e2a1.signed.bin", partition="app_b",
                      why="serial typed once; image name buried in the build log"),
             C(u1, "Never write to the bootloader"))
    t.call("flash_device", "f7", serial="SN-4C7A-00912", partition="app_b",
           image="/home/lena/work/fw-thermo/build/thermo-app-2.4.1+9f3e2a1.signed.bin")
    t.recover()
    t.user("My session crashed. Did the flash finish?")
    t.decide("d2", TS("unknown", call_id="f7"), PC("f7"),
             F("cwd", "/home/lena/work/fw-thermo/build", superseded=["/home/lena/work/fw-thermo"]),
             EV(b_build, why="the build log naming the image"))
    t.sq("f7", "unknown", {"probe_note": "target not responding on SWD"})
    t.asst("The probe can't reach the target right now, so the flash outcome is still unknown. Per the flashing "
           "doc, the safe path is to power-cycle the board and read device_info before any retry: a half-written "
           "app_b shows as invalid and app_a stays active, so the board should still boot 2.3.7 either way.")
    t.user("I power-cycled it. Check the device again, but don't reflash yet.")
    t.decide("d3", NC("device_info", serial="SN-4C7A-00912"),
             TS("unknown", call_id="f7", why="a status query answering unknown keeps it unknown"),
             F("app_version", "2.3.7"),
             C(u1, "only app_b"))
    return t


# ------------------------------------------------------------------------------------------------ s14
def s14():
    t = Traj(TOOLS, "h5s-ticket-refund", "Event ticket refund: timed-out refund not performed, partial amount",
             ["an order number typed once", "a rule: refund to the original card only",
              "a timed-out refund resolved as not performed", "a user correction to a partial refund",
              "the gateway contradicts the order system"],
             "A support agent refunds tickets for a cancelled concert date.", window=256)
    u1 = t.user("Refund order TX-5581-0263, the Oslo show was cancelled. Refund only to the original card, never as store credit.")
    t.cr("ticket_order_lookup", "t1", {"order_number": "TX-5581-0263"},
         {"tickets": 3, "total": "267.00", "card_last4": "4417", "order_state": "event cancelled"})
    t.asst("3 tickets, 267.00 in total, paid with the card ending 4417. The event is marked cancelled.")
    t.user("Were the tickets bought with a promo code?")
    t.asst("No promo code; full price, 89.00 each including fees.")
    t.user("And the booking fee, is it refundable?")
    t.asst("For a cancellation by the promoter, yes: the fee is inside the 89.00 each.")
    t.user("Is there a rescheduled date?")
    t.asst("The promoter lists 14 March; tickets can be kept for it or refunded until 31 January.")
    t.call("refund_issue", "t2", idem="rf-TX-5581-0263", order_number="TX-5581-0263", amount="267.00", method="original card")
    t.res("t2", outcome="timeout", request_id="rq-rf-77120")
    t.asst("The refund timed out (rq-rf-77120).")
    u2 = t.user("Wait, only 2 of the 3 tickets: my friend kept one for the rescheduled date. So 178.00.")
    t.fact("refund_amount", "178.00")
    t.user("Did the first one go through?")
    t.decide("d1", TS("unknown", call_id="t2", request_id="rq-rf-77120"), PC("t2"))
    a, b1 = t.cr("refund_gateway_status", "t3", {"order_number": "TX-5581-0263"}, {"refund_state": "none found"})
    t.sq("t2", "not_performed")
    t.asst("The gateway has no refund for this order and the refund service says it was not performed, so "
           "nothing went out. I'll issue 178.00 to the original card.")
    t.user("OK, do the 178 then.")
    t.decide("d2", NC("refund_issue", order_number="TX-5581-0263", method="original card"),
             TS("failed", call_id="t2"),
             C(u1, "never as store credit"),
             F("refund_amount", "178.00"))
    t.call("refund_issue", "t4", idem="rf-TX-5581-0263-b", order_number="TX-5581-0263", amount="178.00", method="original card")
    t.res("t4", result={"refund_id": "RF-90412", "refund_state": "submitted"})
    a, b2 = t.cr("ticket_order_lookup", "t5", {"order_number": "TX-5581-0263"}, {"order_state": "refunded", "refund_state": "completed"})
    t.user("Customer says nothing on the card yet. Check the gateway again.")
    t.decide("d3", NC("refund_gateway_status", order_number="TX-5581-0263", refund_id="RF-90412"),
             F("refund_state", "completed", superseded=["none found", "submitted"]),
             EV(b1, b2), C(u2, "only 2 of the 3 tickets"))
    return t


# ------------------------------------------------------------------------------------------------ s15
def s15():
    t = Traj(TOOLS, "h5s-translation-guide", "Translation project: do-not-translate terms, glossary, locked segment",
             ["do-not-translate rules stated early", "a deadline correction", "a glossary term buried in a long listing",
              "a failed write to a locked segment", "a pending reviewer approval"],
             "A localisation agent translates a user guide against a glossary and translation memory.", window=512)
    u1 = t.user("Project TRX-DE-5520: German to English, the Kestrel user guide. Never translate the product name "
                "'Kestrel' or the feature name 'FlowSync'. Deadline 12 December.")
    t.fact("deadline", "2026-12-12")
    t.asst("Understood: Kestrel and FlowSync stay as they are. Loading the project glossary.")
    rng = t.rng
    terms = [("Schnellkupplung", "quick coupling (NOT quick connector)"), ("Durchflussmenge", "flow rate"),
             ("Druckminderer", "pressure reducer"), ("Absperrhahn", "shut-off valve"), ("Dichtring", "sealing ring"),
             ("Rückschlagventil", "non-return valve"), ("Filtereinsatz", "filter cartridge"), ("Anschlussgewinde", "connection thread"),
             ("Wartungsintervall", "service interval"), ("Betriebsdruck", "operating pressure"), ("Gehäuse", "housing"),
             ("Steckverbindung", "push-fit connection")]
    rng.shuffle(terms)
    t.call("glossary_get", "g1", project_id="TRX-DE-5520")
    t.res("g1", result={"glossary_version": "g7", "term_count": 112},
          log="\n".join(f"{de} -> {en}" for de, en in terms))
    t.asst("Glossary g7 loaded (112 terms; the first dozen shown).")
    t.user("Who's the reviewer on this one?")
    t.asst("A. Brandt, the client's in-house reviewer; segments get locked while they review.")
    t.user("And the file format?")
    t.asst("XLIFF 2.0 exported from the client's CMS; delivery goes back as XLIFF.")
    t.user("How many segments are there, and how much is already in the TM? Any style rules from the client?")

    t.asst("40 segments; the client's TM covers about a third with fuzzy matches above 75%. Their style sheet asks "
           "for US spelling, sentence case in headings, imperative mood in procedures, and units with a space "
           "(6 bar, 20 mm). Safety notes use WARNING and CAUTION in capitals, as in the source.")
    t.cr("tm_lookup", "g2", {"segment_id": "SEG-017"},
         {"match": "92%", "source": "Die Schnellkupplung mit FlowSync verbinden.", "suggestion": "Connect the quick connector to FlowSync."})
    t.asst("SEG-017 has a 92% match, but the suggestion uses 'quick connector', which the glossary explicitly "
           "forbids for Schnellkupplung. FlowSync is kept as is in both source and target. I'll fix the term rather "
           "than accept the match as it stands.")
    u2 = t.user("Heads up, the client moved the deadline to 10 December.")
    t.corr("deadline", "2026-12-10")
    t.call("segment_update", "g3", segment_id="SEG-017", target="Connect the quick coupling to FlowSync.")
    t.res("g3", outcome="failed", error="segment locked by reviewer A. Brandt")
    ap = t.asst("SEG-017 is locked by reviewer A. Brandt. I've asked for unlock approval RV-UNL-204.")
    t.approval("RV-UNL-204", "requested", ap)
    t.user("OK. Do the next segment meanwhile: SEG-018.")
    t.cr("tm_lookup", "g4", {"segment_id": "SEG-018"},
         {"match": "0%", "source": "Der Kestrel-Filtereinsatz muss alle 6 Monate gewechselt werden."},
         log="context: SEG-016 'Wartung' (heading) -> 'Maintenance'; SEG-019 'Vor dem Wechsel den Absperrhahn "
             "schließen und den Druck ablassen.' (no match); SEG-020 'WARNUNG: Gehäuse steht unter Druck.' "
             "(78% match: 'WARNING: Housing is under pressure.')")
    t.asst("No TM match for SEG-018; translating from scratch with the glossary. 'Filtereinsatz' is in the "
           "glossary, and 'Kestrel' stays as it is, so the compound 'Kestrel-Filtereinsatz' becomes 'Kestrel "
           "filter cartridge'. '6 Monate' becomes '6 months' with the number as a numeral, per the style sheet.")
    t.user("Write it.")
    t.decide("d1", NC("segment_update", segment_id="SEG-018", term="filter cartridge", why="glossary term"),
             C(u1, "Never translate the product name 'Kestrel'"))
    t.cr("segment_update", "g5", {"segment_id": "SEG-018", "target": "The Kestrel filter cartridge must be replaced every 6 months."},
         {"saved": True, "segment_state": "translated"})
    t.user("And the locked one? If it's free fix it, else tell me what's blocking.")
    t.decide("d2", PA("RV-UNL-204"),
             F("deadline", "2026-12-10", superseded=["2026-12-12"]),
             NC("segment_update", segment_id="SEG-017", term="quick coupling"),
             C(u1, "'FlowSync'"), TS("succeeded", call_id="g5"))
    t.asst("SEG-017 is still locked; approval RV-UNL-204 hasn't been answered. The other 39 segments are done and "
           "pass the QA check for terminology and the do-not-translate list.")

    t.user("Then deliver everything except that one today, with a note.")
    t.decide("d3", NC("delivery_create", project_id="TRX-DE-5520"), C(u2, "10 December"), PA("RV-UNL-204"))
    return t


# ------------------------------------------------------------------------------------------------ s16
def s16():
    t = Traj(TOOLS, "h5s-checkout-500s", "Log search: buried trace id, contradictory error rates, silence limits",
             ["a trace id buried in a long log search output", "the dashboard metric contradicts the logs",
              "rules: silences at most 2 hours; never silence the paging alert", "a user correction of a silence duration",
              "a pending on-call lead approval"],
             "An SRE's agent investigates 500s on a checkout service with the log and metrics tools.", window=1024)
    u1 = t.user("checkout-api has been throwing 500s since about 14:10 UTC. Find the cause. Don't silence any alert for "
                "more than 2 hours, and never silence the paging alert ALRT-PG-001.")
    t.asst("On it. I'll compare the metrics with the logs, and any silence will be at most 2 hours and never on "
           "ALRT-PG-001.")
    a, b_m1 = t.cr("metrics_query", "o1", {"service": "checkout-api", "metric": "http_5xx_ratio", "window": "15m"},
                   {"error_rate": "0.2%", "source": "dashboard cache", "as_of": "14:05Z"})
    t.asst("The dashboard says 0.2% over 15 minutes, which doesn't look like a real incident; it's cached as of 14:05.")
    rng = t.rng
    rows = []
    for i in range(10):
        ts = f"14:{10 + i * 2:02d}:{rng.randint(0, 59):02d}Z"
        if i == 6:
            rows.append(f"{ts} ERROR trace=7f3a9c2e41b8 PaymentGatewayTimeout upstream=pay-gw-eu-2 3000ms")
        else:
            kind = rng.choice(["CartLockContention 120ms", "HTTP 502 inventory-svc retry",
                               "PaymentGatewayTimeout upstream=pay-gw-eu-1 3000ms", "TLS handshake slow 900ms",
                               "CartLockContention 340ms"])
            rows.append(f"{ts} ERROR trace={''.join(rng.choice('0123456789abcdef') for _ in range(12))} {kind}")
    t.call("log_search", "o2", service="checkout-api", level="error", since="14:00Z")
    b_logs = t.res("o2", result={"matches": 1843, "error_rate": "4.1%", "top_error": "PaymentGatewayTimeout"},
                   log="\n".join(rows))
    t.asst("The logs say 4.1%, dominated by PaymentGatewayTimeout, not 0.2%. One of the timeouts goes to "
           "pay-gw-eu-2, which shouldn't be in the EU rotation any more.")
    t.user("Any deploys around 14:10?")
    t.cr("log_search", "o2b", {"service": "checkout-api", "query": "deploy OR config reload", "since": "13:00Z"},
         {"matches": 3, "last_deploy": "checkout-api v3.18.2 at 13:52Z"},
         log="13:52:10Z INFO deploy checkout-api v3.18.2 (canary 10% -> 100% at 14:04Z)\n"
             "14:08:44Z INFO config reload routes.yaml@a41c2 from config-service (change by j.ito: 'restore EU "
             "gateway weights after maintenance')\n14:09:02Z INFO upstream pool payments-eu now: pay-gw-eu-1 w=90, "
             "pay-gw-eu-2 w=10, pay-gw-eu-3 w=0\n(no rollbacks since 2026-11-28)")
    t.asst("Two changes: v3.18.2 rolled out by 14:04, and at 14:08 a config reload of routes.yaml@a41c2 restored "
           "the EU gateway weights, giving pay-gw-eu-2 a weight of 10 again. The timing fits the config reload "
           "better than the deploy.")
    t.user("Show me latency per payment upstream.")
    ups = [("pay-gw-eu-1", "180", "240", "0.1%"), ("pay-gw-eu-2", "3000", "3000", "100%"), ("pay-gw-eu-3", "-", "-", "-"),
           ("pay-gw-us-1", "150", "210", "0.0%"), ("pay-gw-us-2", "160", "230", "0.1%"), ("pay-gw-ap-1", "220", "300", "0.2%")]
    t.call("metrics_query", "o2c", service="checkout-api", metric="upstream_latency_p50_p99", group_by="upstream")
    t.res("o2c", result={"upstreams": 6, "window": "30m"},
          log="upstream       p50_ms  p99_ms  error\n" + "\n".join(f"{u:<14} {a:>6}  {b:>6}  {c}" for u, a, b, c in ups)
          + "\nrequests/min by upstream: eu-1 1,620; eu-2 180; us-1 940; us-2 910; ap-1 330 (eu-3 has weight 0)\n"
            "checkout-api client timeout to payments: 3000 ms; retries: 0 (payments are not idempotent without a key)")
    t.asst("Every request to pay-gw-eu-2 hits the 3,000 ms client timeout: 100% errors, 180 requests a minute, "
           "while the other gateways are healthy at 150 to 220 ms p50. There are no retries on payments, so each "
           "of those becomes a 500 to the shopper. That matches the 4% error rate: 180 of about 4,000 requests a minute.")
    t.cr("metrics_query", "o3", {"service": "checkout-api", "metric": "alerts_firing"},
         {"alerts": "ALRT-CO-551 (5xx > 1%), ALRT-PG-001 (paging)"})
    ap = t.asst("Firing: ALRT-CO-551 and the paging alert ALRT-PG-001. I can silence ALRT-CO-551 for 2h while we "
                "dig; asking the on-call lead (approval OC-SIL-3302).")
    t.approval("OC-SIL-3302", "requested", ap)
    u2 = t.user("Make it 90 minutes, not 2h. And get fresh metrics, the dashboard is cached.")
    t.fact("silence_minutes", 90)
    a, b_m2 = t.cr("metrics_query", "o4", {"service": "checkout-api", "metric": "http_5xx_ratio", "window": "5m", "fresh": True},
                   {"error_rate": "4.3%", "source": "prometheus", "as_of": "14:41Z"})
    t.asst("Fresh from Prometheus as of 14:41: 4.3% over 5 minutes. The dashboard's 0.2% was a cached value from "
           "14:05, before the incident started, so it should not be trusted for this incident.")
    t.user("Dig into the upstream that shouldn't be there.")
    t.decide("d1", NC("log_search", service="pay-gw-eu-2", trace="7f3a9c2e41b8", why="both buried in the log output"),
             F("error_rate", "4.3%", superseded=["0.2%", "4.1%"]),
             EV(b_m1, b_m2, why="the cached and fresh metrics disagree"),
             PA("OC-SIL-3302"))
    t.cr("log_search", "o5", {"service": "pay-gw-eu-2", "trace": "7f3a9c2e41b8"},
         {"matches": 1, "gateway_state": "decommissioned 2026-11-30", "config_ref": "routes.yaml@a41c2"},
         log="14:31:07Z WARN trace=7f3a9c2e41b8 connection refused: host pay-gw-eu-2.internal drained; stale route "
             "from routes.yaml@a41c2 still lists it with weight 10")
    t.asst("pay-gw-eu-2 was decommissioned on 30 November but routes.yaml@a41c2 still sends it 10% of EU payment "
           "traffic; every request routed there times out after 3 seconds.")
    t.user("Who changed routes.yaml and why would they re-add it?")
    t.cr("log_search", "o5b", {"service": "config-service", "query": "routes.yaml", "since": "2026-11-29"},
         {"matches": 4, "latest_change": "a41c2 by j.ito"},
         log="2026-11-30 09:02Z commit 7be90 by m.santos: 'drain pay-gw-eu-2 for decommission' (eu-2 weight 10 -> 0)\n"
             "2026-11-30 16:40Z commit 3c1f4 by m.santos: 'remove pay-gw-eu-2 from payments-eu'\n"
             "2026-12-03 22:15Z commit 91d0e by j.ito: 'maintenance: eu-3 weight 0 during DB patching'\n"
             "2026-12-04 14:08Z commit a41c2 by j.ito: 'restore EU gateway weights after maintenance' (reverted "
             "file to the 2026-11-29 version: eu-1 90, eu-2 10, eu-3 0)\nreviewers: none (change made under the "
             "maintenance exemption)")
    t.asst("j.ito's a41c2 at 14:08 meant to undo their own maintenance change but restored the whole file from "
           "29 November, before m.santos removed pay-gw-eu-2. So it re-added the decommissioned gateway with weight "
           "10 and also left eu-3 at 0. The fix is to revert a41c2 and reapply only the eu-3 weight.")
    t.user("Nice. Is the silence approved? If yes set it up.")
    t.decide("d2", PA("OC-SIL-3302"), C(u1, "never silence the paging alert ALRT-PG-001"),
             C(u1, "more than 2 hours"), F("silence_minutes", 90),
             NC("alert_silence", alert_id="ALRT-CO-551"),
             EV(b_logs, why="the log listing with the buried trace"))
    return t


BUILDERS = [s01, s02, s03, s04, s05, s06, s07, s08, s09, s10, s11, s12, s13, s14, s15, s16]
LIMITS = {"events": (12, 40), "x": (2.0, 8.0), "windows": (256, 512, 1024), "probes": (6, 10), "late_share": 0.75,
          "max_event_share": 0.45, "min_per_class": 10}

if __name__ == "__main__":
    main(TOOLS, BUILDERS, HERE, LIMITS)
