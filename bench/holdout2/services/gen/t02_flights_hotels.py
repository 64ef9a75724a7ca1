"""02: travel booking: a conference trip to Tokyo (PNR, seat change, loyalty, hotel, retimed flight)."""

from lib import Traj, constraint, evidence, fact, next_call, pending, tool_state
from tools import pick

FILENAME = "02_tokyo-trip.jsonl"
PNR = "QX7K4M"
FF = "8841220765"
BONVOY = "112944718"


def trip(dep, arr, flight="PM 118", seat="41C", fare="1486.20", ticket="0167203381945", status="TICKETED",
         synced="2025-10-09T18:02:11Z"):
    return {
        "pnr": PNR, "agency": "Wayfarer Travel", "agency_locator": "WF-2231907", "status": status,
        "created": "2025-10-02T16:40:55Z", "last_synced_with_airline": synced,
        "travelers": [{"name": "RAMAN/PRIYA MS", "type": "ADT", "dob": "1989-**-**",
                       "email": "p.raman@ketterlabs.com", "phone": "+1 415 555 0188",
                       "loyalty": [], "known_traveler_number": "on file"}],
        "segments": [{"segment": 1, "carrier": "PM", "marketing_carrier": "Pacific Meridian", "flight": flight,
                      "origin": "SFO", "destination": "HND", "departure_time": dep, "arrival_time": arr,
                      "aircraft": "Boeing 787-9", "cabin": "ECONOMY", "booking_class": "M", "fare_basis": "MH14NUS",
                      "seat": seat, "meal": "VGML", "status": "HK", "baggage": "2PC 23KG",
                      "terminal": "SFO International A / HND Terminal 3"}],
        "ticket": {"number": ticket, "issued": "2025-10-02", "total": fare, "currency": "USD",
                   "form_of_payment": "CORPORATE CARD ****0931", "endorsements": "NONREF/CHG FEE APPLIES/VALID PM ONLY",
                   "change_fee": "0.00", "fare_rules": "Changes permitted before departure; fare difference applies. "
                                                   "No refund. No-show: ticket forfeited."},
        "remarks": ["COMPANY POLICY: ECONOMY FOR FLIGHTS UNDER 12H", "COST CENTER 4410-RND",
                    "TRAVEL APPROVAL TA-88102 (M. OKAFOR)"],
        "queue_notes": [],
    }


def seat_map(rng, taken_extra=()):
    rows = []
    letters = "ABCDEFGHJK"
    for row in range(20, 46):
        zone = "PREFERRED" if row <= 24 else ("EXIT" if row in (30, 31) else "STANDARD")
        seats = list("ABC") + list("DEFG") + list("HJK")
        free = [s for s in seats if rng.random() < (0.18 if zone == "STANDARD" else 0.3)]
        if row == 22:
            free = ["C", "H"]
        if row == 23:
            free = ["A", "K"]
        if row == 41:
            free = [s for s in free if s != "C"]
        rows.append({"row": row, "zone": zone, "available": [f"{row}{s}" for s in free],
                     "price": {"PREFERRED": "89.00", "EXIT": "119.00", "STANDARD": "0.00"}[zone],
                     "features": {"PREFERRED": ["extra legroom 34in"], "EXIT": ["exit row", "no recline limitations"],
                                  "STANDARD": []}[zone]})
    return {"flight_number": "PM118", "date": "2025-11-03", "aircraft": "789", "cabin": "ECONOMY",
            "layout": "3-4-3 (ABC DEFG HJK)", "currency": "USD", "rows": rows,
            "notes": "Preferred seats free for Gold and above. Exit rows require in-person eligibility check."}


HOTELS = [
    ("TYO-ARK-0192", "Hotel Sunroute Ariake", "Ariake 3-6-6, Koto-ku", "0.4", "21800", 4.1, "free cancellation until 2025-11-02 23:59 JST"),
    ("TYO-ARK-0417", "Tokyo Ariake Bay Tower Hotel", "Ariake 2-1-7, Koto-ku", "0.7", "26400", 4.4, "free cancellation until 2025-11-01 18:00 JST"),
    ("TYO-ODB-0088", "Hilton Tokyo Odaiba", "Daiba 1-9-1, Minato-ku", "1.9", "38900", 4.5, "free cancellation until 2025-11-03 23:59 JST"),
    ("TYO-ODB-0131", "Grand Nikko Tokyo Daiba", "Daiba 2-6-1, Minato-ku", "2.1", "33200", 4.3, "non-refundable rate; refundable rate 36,100"),
    ("TYO-TYS-0342", "Courtyard Tokyo Toyosu", "Toyosu 3-2-20, Koto-ku", "2.6", "27950", 4.4, "free cancellation until 2025-11-02 23:59 JST"),
    ("TYO-TYS-0350", "Mitsui Garden Hotel Toyosu Premier", "Toyosu 6-4-1, Koto-ku", "2.4", "29700", 4.6, "free cancellation until 2025-11-01 23:59 JST"),
    ("TYO-ARK-0522", "Daiwa Roynet Hotel Ariake", "Ariake 1-5-8, Koto-ku", "0.9", "18600", 3.9, "non-refundable"),
    ("TYO-SHN-1120", "The Prince Park Tower Tokyo", "Shibakoen 4-8-1, Minato-ku", "8.9", "41500", 4.5, "free cancellation until 2025-11-02 18:00 JST"),
    ("TYO-GIN-0710", "Hotel Gracery Ginza", "Ginza 7-10-1, Chuo-ku", "6.1", "23900", 4.0, "free cancellation until 2025-11-03 12:00 JST"),
    ("TYO-TKY-0233", "Hotel Ryumeikan Tokyo", "Yaesu 1-3-22, Chuo-ku", "7.4", "31800", 4.6, "free cancellation until 2025-11-02 23:59 JST"),
    ("TYO-ARK-0610", "Toyoko Inn Tokyo Ariake", "Ariake 3-7-2, Koto-ku", "0.6", "12900", 3.6, "free cancellation until 2025-11-03 16:00 JST"),
    ("TYO-SHB-0904", "Shiba Park Hotel", "Shibakoen 1-5-10, Minato-ku", "7.8", "24300", 4.2, "free cancellation until 2025-11-02 23:59 JST"),
]


def hotels(checkin, checkout):
    out = []
    for hid, name, addr, km, rate, stars, canc in HOTELS:
        h = {"hotel_id": hid, "name": name, "address": addr, "km_to_venue": km, "nightly_rate": rate,
             "guest_rating": stars, "cancellation": canc,
             "breakfast_included": hid in ("TYO-ODB-0088", "TYO-TYS-0342")}
        if hid in ("TYO-TYS-0342", "TYO-ODB-0088"):
            h["loyalty_program"] = "Marriott Bonvoy" if hid == "TYO-TYS-0342" else "Hilton Honors"
        out.append(h)
    return {"city": "Tokyo", "near": "Tokyo Big Sight", "checkin": checkin, "checkout": checkout, "guests": 1,
            "currency": "JPY", "room": "Standard double, non-smoking, 1 adult",
            "results": out, "total_results": 37, "page": 1}


def reservation(dep, arr, seat, flight="PM 118", loyalty=True, sched_change=True):
    seg = {"flight": flight, "origin": "SFO", "destination": "HND", "departure_time": dep, "arrival_time": arr,
           "equipment": "789", "cabin": "Y", "class": "M", "status": "HK", "seat": seat,
           "operational_status": "SCHEDULED"}
    res = {"pnr": PNR, "passengers": [{"name": "RAMAN/PRIYA", "ff_number": f"PM{FF}" if loyalty else None,
                                       "ff_tier": "GOLD" if loyalty else None, "ssr": ["VGML", "DOCS"]}],
           "itinerary": [seg], "ticket_numbers": ["0167203381945"],
           "contact": {"email": "P.RAMAN@KETTERLABS.COM", "phone": "+14155550188"},
           "checkin_opens": "2025-11-02T10:40-08:00"}
    if sched_change:
        hist = [("2025-10-02T16:40", "WF/AG 1127", "PNR CREATED, SEG 1 PM118 M 03NOV SFOHND HK1"),
                ("2025-10-02T16:41", "WF/AG 1127", "SSR DOCS ADDED"), ("2025-10-02T16:41", "WF/AG 1127", "SSR VGML ADDED"),
                ("2025-10-02T16:44", "WF/AG 1127", "TKT 0167203381945 ISSUED FOP CC VI XXXX0931"),
                ("2025-10-02T16:44", "WF/AG 1127", "SEAT 41C ASSIGNED (SYSTEM)"),
                ("2025-10-02T16:45", "PM/SYS", "APIS DATA RECEIVED"),
                ("2025-10-03T08:12", "PM/SYS", "TTL REMOVED - TICKETED"),
                ("2025-10-09T18:02", "WF/SYNC", "AGENCY SYNC OK"),
                ("2025-10-11T03:15", "PM/SKD", "SCHEDULE CHANGE SC-PM-77310 SEG 1 DEP 1125 TO 1040 ARR 1550 TO 1505"),
                ("2025-10-11T03:15", "PM/SKD", "SEG 1 STATUS TK -> HK AFTER AUTO-REACCOMMODATION"),
                ("2025-10-11T03:16", "PM/SYS", "QUEUE PLACED WF 11C TIME CHANGE NOTIFY"),
                ("2025-10-14T17:20", "PM/WEB", "FQTV PM 8841220765 ADDED"),
                ("2025-10-14T17:22", "PM/DCS", "SEAT 41C RELEASED"), ("2025-10-14T17:22", "PM/DCS", "SEAT 22C ASSIGNED GOLD COMP")]
        res["history"] = [{"time": a, "by": b, "entry": c} for a, b, c in hist]
        res["schedule_changes"] = [{"change_id": "SC-PM-77310", "issued": "2025-10-11T03:15:00Z",
                                    "type": "TIME_CHANGE", "old_departure": "2025-11-03T11:25-08:00",
                                    "new_departure": "2025-11-03T10:40-08:00", "minutes": -45,
                                    "acknowledged_by_agency": False}]
    return res


def flights(rng):
    rows = [
        ("PM 118", "2025-11-03T10:40-08:00", "2025-11-04T15:05+09:00", "0", "789"),
        ("PM 120", "2025-11-03T16:05-08:00", "2025-11-04T20:30+09:00", "184.60", "77W"),
        ("NH 7", "2025-11-03T12:00-08:00", "2025-11-04T16:20+09:00", "611.00", "789"),
        ("JL 1", "2025-11-03T13:35-08:00", "2025-11-04T17:40+09:00", "702.40", "77W"),
        ("UA 837", "2025-11-03T11:10-08:00", "2025-11-04T15:20+09:00", "566.10", "789"),
        ("PM 122", "2025-11-03T23:55-08:00", "2025-11-05T05:10+09:00", "120.00", "789"),
        ("ZG 25", "2025-11-03T14:45-08:00", "2025-11-04T18:55+09:00", "389.00", "788"),
        ("NH 107", "2025-11-03T01:25-08:00", "2025-11-04T05:35+09:00", "655.00", "77W"),
        ("DL 39", "2025-11-03T11:55-08:00", "2025-11-04T16:15+09:00", "598.70", "359"),
        ("PM 118", "2025-11-04T10:40-08:00", "2025-11-05T15:05+09:00", "0", "789"),
    ]
    out = []
    for fl, d, a, diff, eq in rows:
        out.append({"flight": fl, "departure_time": d, "arrival_time": a, "stops": 0, "equipment": eq,
                    "cabin": "ECONOMY", "fare_difference": diff, "currency": "USD",
                    "seats_left": rng.randint(2, 9), "reissue_possible": fl.startswith("PM")})
    return {"origin": "SFO", "destination": "HND", "date": "2025-11-03", "for_pnr": PNR, "options": out,
            "note": "Fare difference computed against ticket 0167203381945; PM-only reissue per endorsement."}



FARE_RULES = (
    "MH14NUS  PM  SFO-HND  ONE WAY  ECONOMY  RULE 2F14 TARIFF 0043\n"
    "CAT 01 ELIGIBILITY: NO ELIGIBILITY REQUIREMENTS. FARE VALID FOR CORPORATE ACCOUNT KETTERLABS ID 90021.\n"
    "CAT 03 SEASONALITY: VALID FOR TRAVEL COMMENCING 01OCT25 THROUGH 15DEC25.\n"
    "CAT 05 ADVANCE RES/TKT: RESERVATIONS FOR ALL SECTORS REQUIRED AT LEAST 7 DAYS BEFORE DEPARTURE. TICKETING "
    "MUST BE COMPLETED WITHIN 72 HOURS AFTER RESERVATIONS ARE MADE OR AT LEAST 7 DAYS BEFORE DEPARTURE WHICHEVER "
    "IS EARLIER.\n"
    "CAT 06 MINIMUM STAY: NONE. CAT 07 MAXIMUM STAY: NONE.\n"
    "CAT 08 STOPOVERS: NOT PERMITTED. CAT 09 TRANSFERS: NOT APPLICABLE ON NONSTOP SERVICE.\n"
    "CAT 10 COMBINATIONS: END-ON-END COMBINATIONS PERMITTED WITH PM FARES. OPEN JAWS NOT APPLICABLE.\n"
    "CAT 16 PENALTIES: CHANGES - ANY TIME. CHARGE USD 0.00 FOR REISSUE/REVALIDATION. NOTE - ALL CHANGES MUST BE "
    "MADE ON THE SAME CARRIER. WHEN CHANGES ARE MADE THE NEW FARE MUST BE EQUAL OR HIGHER THAN THE ORIGINAL FARE "
    "AND ANY FARE DIFFERENCE MUST BE COLLECTED. DOWNGRADE TO A LOWER FARE IS NOT PERMITTED. CHANGES TO THE "
    "ORIGIN OR DESTINATION ARE NOT PERMITTED. CANCELLATIONS - TICKET IS NON-REFUNDABLE. TAXES AND CARRIER-IMPOSED "
    "FEES MAY BE REFUNDED PER LOCAL REGULATIONS. NO-SHOW - IF THE PASSENGER FAILS TO CANCEL OR CHANGE BEFORE "
    "DEPARTURE OF THE FLIGHT THE TICKET HAS NO VALUE.\n"
    "CAT 18 ENDORSEMENTS: NONREF/CHG FEE APPLIES/VALID PM ONLY.\n"
    "CAT 19 CHILDREN DISCOUNTS: ACCOMPANIED CHILD 2-11 CHARGE 75 PERCENT OF THE FARE. INFANT UNDER 2 WITHOUT A "
    "SEAT CHARGE 10 PERCENT OF THE FARE.\n"
    "CAT 31 VOLUNTARY CHANGES: REISSUE PERMITTED BEFORE DEPARTURE OF THE FIRST FLIGHT COUPON. REPRICE USING "
    "FARES IN EFFECT ON THE DATE OF REISSUE. SEAT ASSIGNMENTS, SPECIAL SERVICE REQUESTS OTHER THAN MEALS AND "
    "PAID ANCILLARIES ARE NOT TRANSFERRED AUTOMATICALLY AND MUST BE REQUESTED AGAIN.\n"
    "CAT 33 VOLUNTARY REFUNDS: NOT PERMITTED EXCEPT UNUSED TAXES.\n"
    "INVOLUNTARY CHANGES: IN CASE OF SCHEDULE CHANGE OF MORE THAN 120 MINUTES PASSENGER MAY REBOOK ON PM SERVICES "
    "WITHIN 7 DAYS OF THE ORIGINAL DEPARTURE WITHOUT FARE DIFFERENCE OR REQUEST A FULL REFUND. SCHEDULE CHANGES OF "
    "120 MINUTES OR LESS DO NOT QUALIFY."
)


def build() -> Traj:
    t = Traj(id="svc-tokyo-trip", title="Tokyo conference trip: retimed flight, seat change, hotel swap, reissue",
             exercises=["the agency and the airline disagree about the departure time, settled when the agency syncs",
                        "a booking reference and a frequent-flyer number typed once and used much later",
                        "a seat change and a hotel cancellation that time out; one resolved, one left open",
                        "an irreversible ticket reissue behind an approval with a fare-difference cap",
                        "a user correction of the hotel check-in date",
                        "topic switch to hotels and back to flights"],
             description="A traveller checks a corporate trip booked through an agency, adds a loyalty number, changes "
                         "seats, books and re-books a hotel, discovers a schedule change the agency has not picked up, "
                         "and finally moves to a later flight, which loses the seat.",
             tools=pick("agency_get_trip", "airline_get_reservation", "airline_seat_map", "airline_change_seat",
                        "airline_add_loyalty", "agency_change_flight", "flight_search", "hotel_search", "hotel_book",
                        "hotel_cancel", "hotel_get_booking", "loyalty_get_account"),
             seed=202)
    r = t.rng
    t.system("You are the travel assistant of Ketter Labs (corporate travel via Wayfarer Travel). You can read and "
             "change agency trips and airline reservations and book hotels. Ticket changes are irreversible and need "
             "the traveller's approval. Company policy: economy on flights under 12 hours; hotels up to JPY 30,000 per night.")
    t.user(f"Hi! I'm flying to Tokyo for the SemiCon expo on Nov 3. The agency booking ref is {PNR}, last name Raman. "
           "Can you check everything's in order?")
    t.asst(f"Sure. Looking up Wayfarer trip {PNR}.")
    _, _, a1 = t.do("agency_get_trip", {"pnr": PNR}, trip("2025-11-03T11:25-08:00", "2025-11-04T15:50+09:00"),
                    request_id="wf-req-10021")
    t.asst("Your trip is ticketed: Pacific Meridian PM 118, SFO to Tokyo Haneda, departing Monday Nov 3 at 11:25 and "
           "arriving Tuesday Nov 4 at 15:50 local. Economy (M class), seat 41C, vegetarian meal, 2 bags of 23 kg. "
           "Ticket 0167203381945, $1,486.20 on the corporate card. Changes are allowed (fare difference applies), "
           "no refunds. I don't see a frequent-flyer number on the booking.")
    t.user("41C is so far back. Can I get something better? Ideally an aisle further forward, or a window.")
    t.do("airline_seat_map", {"flight_number": "PM118", "date": "2025-11-03"}, seat_map(r), request_id="pm-sm-55012")
    t.asst("Forward options: the preferred zone (rows 20-24, 34-inch pitch, $89 or free for Gold members) has aisles "
           "22C and 22H free and windows 23A and 23K. Exit rows 30-31 cost $119 and need an airport check. "
           "Standard rows are free but mostly further back.")
    t.user(f"Add my frequent flyer number first, it might make the preferred seat free. It's PM Miles {FF}.")
    t.fact("frequent_flyer_number", FF, subject={"program": "PM Miles"})
    t.do("airline_add_loyalty", {"pnr": PNR, "passenger": "RAMAN/PRIYA", "program": "PM", "member_id": FF},
         {"pnr": PNR, "passenger": "RAMAN/PRIYA", "member_id": FF, "tier": "GOLD",
          "benefits": ["free preferred seats", "priority boarding group 2", "one extra bag"]},
         idem=f"ff-{PNR}-{FF}", request_id="pm-ff-2291")
    t.asst("Added: you're PM Gold, so preferred seats are free for you, plus priority boarding and an extra bag.")
    t.user("Take 22C then.")
    seat1, _, _ = t.do("airline_change_seat", {"pnr": PNR, "flight_number": "PM118", "date": "2025-11-03",
                                               "passenger": "RAMAN/PRIYA", "seat": "22C"}, None, "timeout",
                       idem=f"seat-{PNR}-PM118-22C",
                       error={"code": "UPSTREAM_TIMEOUT", "message": "Departure control system did not answer within 20 s"})
    t.asst("The seat request timed out at the airline's departure control system, so I can't tell yet whether 22C "
           "is yours. I'll verify before trying again so you don't lose the seat you have.")
    t.user("Ugh, ok. Meanwhile I need a hotel near Tokyo Big Sight. Check-in Nov 3, check-out Nov 8. Keep it under "
           "the 30k yen policy and it has to have free cancellation, my plans might change.")
    hotel_rule = t.seq
    t.fact("hotel_checkin", "2025-11-03")
    t.fact("hotel_checkout", "2025-11-08")
    t.topic_switch("hotel", previous="flight seat")
    t.do("hotel_search", {"city": "Tokyo", "near": "Tokyo Big Sight", "checkin": "2025-11-03",
                          "checkout": "2025-11-08", "guests": 1}, hotels("2025-11-03", "2025-11-08"),
         request_id="ht-srch-7710")
    t.asst("Within JPY 30,000 and with free cancellation: Hotel Sunroute Ariake (0.4 km, ¥21,800, 4.1), Tokyo Ariake "
           "Bay Tower (0.7 km, ¥26,400, 4.4), Courtyard Tokyo Toyosu (2.6 km, ¥27,950, 4.4, breakfast, Marriott "
           "Bonvoy) and Mitsui Garden Toyosu Premier (2.4 km, ¥29,700, 4.6). Hilton Odaiba is over policy and the "
           "Daiwa Roynet is non-refundable. One thing: PM 118 lands on Nov 4 local time, so a Nov 3 check-in would pay "
           "for a night you can't use.")
    ci = t.user(f"Oh right, the date line. Make check-in Nov 4 then, out Nov 8. Courtyard Toyosu please, and put my "
                f"Bonvoy number on it: {BONVOY}.")
    t.correction("hotel_checkin", "2025-11-04", replaces="2025-11-03")
    t.fact("bonvoy_number", BONVOY)
    t.decision("d1-book-hotel", [
        next_call("hotel_book", {"hotel_id": "TYO-TYS-0342", "checkin": "2025-11-04", "checkout": "2025-11-08"},
                  "the hotel id came from the search results; dates from the corrected request"),
        fact("hotel_checkin", "2025-11-04", "the user corrected the check-in date", superseded=["2025-11-03"]),
        constraint(hotel_rule, "free cancellation", "the user required a refundable rate"),
    ], note="early")
    t.asst("Booking Courtyard Tokyo Toyosu, Nov 4 to Nov 8 (4 nights), refundable rate, Bonvoy attached.")
    h1, _, h1r = t.do("hotel_book", {"hotel_id": "TYO-TYS-0342", "checkin": "2025-11-04", "checkout": "2025-11-08",
                                    "guests": 1, "rate_plan": "FLEX", "loyalty_number": BONVOY,
                                    "guest_name": "Priya Raman"},
                      {"confirmation_number": "HX-5530912", "hotel_id": "TYO-TYS-0342", "status": "CONFIRMED",
                       "checkin": "2025-11-04", "checkout": "2025-11-08", "nights": 4, "nightly_rate": "27950",
                       "total": "111800", "taxes": "12300", "currency": "JPY",
                       "cancellation_deadline": "2025-11-02T23:59+09:00"},
                      idem="htl-TYO-TYS-0342-20251104-01", request_id="ht-bk-3391")
    t.asst("Booked: Courtyard Tokyo Toyosu, confirmation HX-5530912, Nov 4-8, ¥27,950 per night (¥111,800 plus "
           "¥12,300 tax), breakfast included, free cancellation until Nov 2 23:59 JST.")
    t.subtask_end("hotel booked HX-5530912")
    t.user("Great. Now what about my seat?")
    t.decision("d2-seat", [
        tool_state("unknown", "the seat change timed out and has not been checked", call_id=seat1),
        next_call("airline_get_reservation", {"pnr": PNR}, "the booking reference from the first message"),
        fact("frequent_flyer_number", FF, "the loyalty number typed once", subject="program=PM Miles"),
    ])
    t.topic_switch("flight seat", previous="hotel")
    _, _, a2 = t.do("airline_get_reservation", {"pnr": PNR, "last_name": "RAMAN"},
                    reservation("2025-11-03T10:40-08:00", "2025-11-04T15:05+09:00", "22C"),
                    request_id="pm-res-88120")
    t.status_query(seat1, "succeeded", request_id="pm-seat-41877",
                   result={"seat": "22C", "flight_number": "PM118", "assigned_at": "2025-10-14T17:22:51Z"},
                   checked_via="airline reservation display")
    t.asst("Good news: 22C is yours; the airline's record shows it assigned. But there's a discrepancy: the airline "
           "has PM 118 departing at 10:40 (arriving 15:05), not 11:25 as the agency's itinerary says. The airline "
           "record carries a schedule change SC-PM-77310 from Oct 11 (45 minutes earlier) that the agency hasn't "
           "acknowledged yet.")
    t.user("Which one is right?? I was going to take a Caltrain around 8:15.")
    t.asst("The operating airline is normally authoritative: it issued the time change, and the agency record was "
           "last synced on Oct 9, before the change. I'd plan on 10:40. With an 8:15 train from Mountain View you "
           "reach SFO around 9:15, which is tight for an international departure at 10:40 (bag drop closes 60 "
           "minutes before). I'd take the 7:15 instead. I can ask Wayfarer to process the change so both records "
           "agree.")
    t.user("Please do. And check my PM Miles balance while you're at it, I might upgrade with miles.")
    t.do("loyalty_get_account", {"member_id": FF, "program": "PM"},
         {"member_id": FF, "program": "PM Miles", "name": "PRIYA RAMAN", "tier": "GOLD",
          "tier_valid_through": "2026-01-31", "miles_balance": 64210, "tier_credits_ytd": 3870,
          "next_tier": {"name": "PLATINUM", "credits_needed": 1130},
          "upgrade_awards": {"SFO-HND economy->premium economy": 25000, "SFO-HND premium economy->business": 45000},
          "recent_activity": [{"date": "2025-09-18", "desc": "PM 401 SFO-SEA", "miles": 1250, "credits": 120},
                              {"date": "2025-09-14", "desc": "PM 402 SEA-SFO", "miles": 1250, "credits": 120},
                              {"date": "2025-08-02", "desc": "Partner hotel stay, Hyatt Regency Seattle", "miles": 3000, "credits": 0},
                              {"date": "2025-07-22", "desc": "PM Visa Signature card spend, June", "miles": 4388, "credits": 0},
                              {"date": "2025-07-19", "desc": "PM 213 LHR-SFO", "miles": 11020, "credits": 960},
                              {"date": "2025-07-11", "desc": "PM 212 SFO-LHR", "miles": 11020, "credits": 960},
                              {"date": "2025-06-30", "desc": "Award redemption SFO-HNL economy", "miles": -22500, "credits": 0},
                              {"date": "2025-06-21", "desc": "PM Visa Signature card spend, May", "miles": 3912, "credits": 0},
                              {"date": "2025-05-09", "desc": "PM 88 SFO-ORD", "miles": 3700, "credits": 410},
                              {"date": "2025-05-06", "desc": "PM 87 ORD-SFO", "miles": 3700, "credits": 410},
                              {"date": "2025-04-02", "desc": "Shopping portal, Apple", "miles": 780, "credits": 0},
                              {"date": "2025-03-15", "desc": "PM 1502 SFO-LAX", "miles": 500, "credits": 45}],
          "expiring": None}, request_id="pm-loy-0072")
    t.asst("You have 64,210 PM miles (Gold until Jan 2026). An economy to premium economy upgrade on SFO-HND costs "
           "25,000 miles. Note your company policy says economy under 12 hours; the flight is 10h25, so a miles "
           "upgrade would be on your own miles, not the company's money, which most policies allow, but check yours.")
    t.user("Before I decide anything else: does the 45-minute schedule change mean I can change flights for free? "
           "Show me the fare rules.")
    t.do("agency_get_trip", {"pnr": PNR, "section": "fare_rules"},
         {"pnr": PNR, "fare_basis": "MH14NUS", "rule": "2F14", "rules_text": FARE_RULES}, request_id="wf-req-10088")
    t.asst("Unfortunately not: the involuntary-change clause only kicks in for schedule changes of more than 120 "
           "minutes, and yours is 45. Voluntary changes are free of fee on PM (same origin and destination), but the "
           "fare difference applies and seats aren't transferred on reissue. The ticket is non-refundable.")
    t.user("Good to know. How often is PM 118 actually on time? If it's always late the 45 minutes don't matter.")
    t.asst("I don't have a tool for on-time history, so I can't give you real numbers. Either way, check-in and bag "
           "drop close relative to the scheduled time, not the actual one, so you have to plan on the scheduled "
           "departure even if the flight often leaves late.")
    t.user("Fine. Did the agency fix the time yet?")
    _, _, a3 = t.do("agency_get_trip", {"pnr": PNR},
                    trip("2025-11-03T10:40-08:00", "2025-11-04T15:05+09:00", seat="22C", synced="2025-10-14T17:40:03Z"),
                    request_id="wf-req-10107")
    t.asst("Yes: Wayfarer has now synced with the airline and shows PM 118 departing 10:40 and arriving 15:05, seat "
           "22C. Both records agree now.")
    t.user("Ok good. Random question: is Haneda Terminal 3 far from Toyosu? How would I get there in the afternoon?")
    t.asst("Not far: about 30-40 minutes by taxi (roughly ¥6,000-8,000 via the Bayshore route) or about 50 minutes by "
           "train and Yurikamome, with a change or two; the airport limousine bus to Toyosu is a simpler "
           "middle ground. In the afternoon, a taxi is usually the least hassle with bags.")
    t.user("Thanks. Oh, I just got a calendar invite: there's a team dinner in SF on Nov 2 and a 9am meeting on Nov 3 "
           "I can't skip. Is there a later flight on the 3rd? I'd need to still land on the 4th.")
    t.do("flight_search", {"origin": "SFO", "destination": "HND", "date": "2025-11-03",
                           "exchange_ticket": "0167203381945"}, flights(r),
         request_id="wf-fs-2281")
    t.asst("Options on Nov 3 that still land on the 4th: PM 120 at 16:05, arriving 20:30, $184.60 fare difference, "
           "same airline so Wayfarer can reissue your ticket. Other airlines (NH 7 at 12:00, JL 1 at 13:35, ZG 25 at "
           "14:45) would mean a new ticket, since yours is PM-only. PM 122 at 23:55 lands on the 5th.")
    cap = t.user("PM 120 works. Go ahead, but only if the fare difference stays under $250. Ask me before it's final.")
    t.decision("d3-reissue", [
        next_call("agency_change_flight", {"pnr": PNR, "new_flight": "PM 120"},
                  "the PNR from the first message and the flight from the search"),
        constraint(cap, "under $250", "the fare-difference cap bounds the reissue"),
        fact("departure_time", "2025-11-03T10:40-08:00",
             "after the agency synced, both tools agree on 10:40; the stale 11:25 is superseded",
             subject=f"pnr={PNR}", superseded=["2025-11-03T11:25-08:00"]),
        evidence([a1, a2], "the agency's and the airline's readings disagreed; both stay visible to explain the change"),
    ])
    ch, ch_call = t.call("agency_change_flight", {"pnr": PNR, "segment": 1, "new_flight": "PM 120",
                                                  "date": "2025-11-03", "max_fare_difference": "250.00"},
                         idem=f"reissue-{PNR}-PM120-20251103")
    t.approval("apr-reissue-pm120", "requested", ch_call,
               action="Reissue ticket 0167203381945 onto PM 120 (fare difference USD 184.60)")
    t.asst("Ready to reissue ticket 0167203381945 from PM 118 to PM 120 (Nov 3, 16:05 SFO, arriving 20:30 HND). Fare "
           "difference $184.60 on the corporate card, under your $250 cap. This can't be undone. Approve?")
    t.user("Hang on, let me check with my manager that the extra $185 is ok. Meanwhile, since I now land at 20:30, "
           "is the hotel fine?")
    t.decision("d4-while-waiting", [
        next_call("hotel_get_booking", {"confirmation_number": "HX-5530912"}, "checking the hotel needs the confirmation returned by the booking"),
        pending("the reissue approval is still waiting for the traveller's manager", approval_id="apr-reissue-pm120"),
        fact("confirmation_number", "HX-5530912", "the hotel booking made earlier"),
        fact("hotel_checkin", "2025-11-04", "landing at 20:30 on Nov 4 still fits the corrected check-in",
             superseded=["2025-11-03"]),
    ])
    t.do("hotel_get_booking", {"confirmation_number": "HX-5530912"},
         {"confirmation_number": "HX-5530912", "hotel": "Courtyard Tokyo Toyosu", "status": "CONFIRMED",
          "checkin": "2025-11-04", "checkout": "2025-11-08", "guest": "Priya Raman", "loyalty_number": BONVOY,
          "late_arrival_guaranteed": True, "front_desk": "24 hours", "special_requests": [],
          "cancellation_deadline": "2025-11-02T23:59+09:00"}, request_id="ht-get-3402")
    t.asst("Yes: HX-5530912 is guaranteed for late arrival and the desk is 24 hours. I'll add a note that you arrive "
           "around 22:00.")
    t.user("Actually, while I wait on my manager: a colleague says the Mitsui Garden Toyosu is much nicer and only "
           "slightly more. Switch me there if it still has the same dates with free cancellation. Keep Bonvoy off "
           "that one, it's not Marriott.")
    t.do("hotel_search", {"city": "Tokyo", "near": "Tokyo Big Sight", "checkin": "2025-11-04",
                          "checkout": "2025-11-08", "guests": 1}, hotels("2025-11-04", "2025-11-08"),
         request_id="ht-srch-7788")
    t.asst("Mitsui Garden Hotel Toyosu Premier still has Nov 4-8 at ¥29,700, free cancellation until Nov 1, within "
           "policy. I'll book it first and cancel the Courtyard only once the new one is confirmed.")
    h2, _, _ = t.do("hotel_book", {"hotel_id": "TYO-TYS-0350", "checkin": "2025-11-04", "checkout": "2025-11-08",
                                   "guests": 1, "rate_plan": "FLEX", "guest_name": "Priya Raman",
                                   "special_requests": ["late arrival ~22:00"]},
                    {"confirmation_number": "MG-20251104-7716", "hotel_id": "TYO-TYS-0350", "status": "CONFIRMED",
                     "checkin": "2025-11-04", "checkout": "2025-11-08", "nights": 4, "nightly_rate": "29700",
                     "total": "118800", "taxes": "13070", "currency": "JPY",
                     "cancellation_deadline": "2025-11-01T23:59+09:00"},
                    idem="htl-TYO-TYS-0350-20251104-01", request_id="ht-bk-3457")
    hc, _, _ = t.do("hotel_cancel", {"confirmation_number": "HX-5530912", "reason": "traveller changed hotel"},
                    None, "timeout", idem="htl-cancel-HX-5530912",
                    error={"code": "TIMEOUT", "message": "channel manager did not confirm within 25 s"})
    t.do("hotel_get_booking", {"confirmation_number": "MG-20251104-7716"},
         {"confirmation_number": "MG-20251104-7716", "hotel": "Mitsui Garden Hotel Toyosu Premier",
          "address": "Toyosu 6-4-1, Koto-ku, Tokyo 135-0061", "phone": "+81 3 5859 xxxx", "status": "CONFIRMED",
          "checkin": "2025-11-04", "checkout": "2025-11-08", "guest": "Priya Raman", "room": "Moderate Double, 17F+, bay view request",
          "policies": ("Check-in from 15:00, check-out by 11:00. Guarantee: the reservation is guaranteed to the card on "
                       "file for late arrival. Cancellation: free until 1 November 2025 23:59 JST; after that, and for "
                       "no-shows, the first night (JPY 29,700 plus tax) is charged. Accommodation tax of JPY 200 per "
                       "night is payable at the hotel. Children under 6 stay free using existing bedding. The hotel "
                       "is entirely non-smoking. Public bath on the 36th floor open 15:00-01:00 and 06:00-10:00; "
                       "tattoos must be covered. Breakfast buffet JPY 3,800, not included in this rate. Parking not "
                       "available; nearest public car park Toyosu Center Building. The Yurikamome Shin-Toyosu station "
                       "is 2 minutes on foot; Tokyo Big Sight is 4 stops (about 9 minutes)."),
          "special_requests": ["late arrival ~22:00"], "payment": "pay at hotel",
          "cancellation_deadline": "2025-11-01T23:59+09:00"}, request_id="ht-get-3460")
    t.asst("New booking confirmed: Mitsui Garden Hotel Toyosu Premier, MG-20251104-7716, Nov 4-8, ¥29,700/night. "
           "The cancellation of the Courtyard (HX-5530912) timed out, so for the moment you may hold two rooms. "
           "It's free to cancel until Nov 2, so there's no cost yet, but I'll confirm it.")
    t.user("Ok. My manager said yes to the flight change. Go.")
    t.approval("apr-reissue-pm120", "granted", ch_call, approved_by="traveller (manager M. Okafor consulted)")
    ch_res = t.result(ch, "succeeded",
                      {"pnr": PNR, "new_ticket_number": "0167203402217", "exchanged_ticket": "0167203381945",
                       "flight": "PM 120", "departure_time_new": "2025-11-03T16:05-08:00", "fare_difference": "184.60",
                       "seat": None, "status": "TICKETED",
                       "note": "Seat assignments do not transfer on reissue; reselect seats."},
                      request_id="wf-rx-5561")
    t.asst("Reissued: you're on PM 120, Nov 3 at 16:05, arriving HND 20:30. New ticket 0167203402217, $184.60 "
           "charged. Seats don't carry over on a reissue, so you currently have no seat on PM 120.")
    t.user("Argh. Get me the same kind of seat then, aisle in the preferred section.")
    sm120 = {**seat_map(r), "flight_number": "PM120", "aircraft": "77W", "layout": "3-4-3 (ABC DEFG HJK)"}
    for row in sm120["rows"]:
        if row["row"] == 21:
            row["available"] = ["21C", "21E", "21F"]
        elif row["row"] == 24:
            row["available"] = ["24H", "24E"]
        elif row["zone"] == "PREFERRED":
            row["available"] = [x for x in row["available"] if x[-1] not in "CDGH"]
    t.do("airline_seat_map", {"flight_number": "PM120", "date": "2025-11-03"}, sm120, request_id="pm-sm-55090")
    t.asst("On PM 120 the preferred zone has aisles 21C and 24H and a few middles. 21C is closest to what you had.")
    t.user("21C.")
    t.decision("d5-reseat", [
        next_call("airline_change_seat", {"pnr": PNR, "seat": "21C"},
                  "the booking reference, many turns old, and the seat just chosen"),
        tool_state("unknown", "the Courtyard cancellation timed out and is not resolved", call_id=hc),
        tool_state("succeeded", "the reissue went through", call_id=ch, request_id="wf-rx-5561"),
        fact("new_ticket_number", "0167203402217", "the reissued ticket replaces 0167203381945"),
    ])
    s2, _, _ = t.do("airline_change_seat", {"pnr": PNR, "flight_number": "PM120", "date": "2025-11-03",
                                            "passenger": "RAMAN/PRIYA", "seat": "21C"},
                    {"pnr": PNR, "flight_number": "PM120", "seat": "21C", "status": "ASSIGNED", "price": "0.00",
                     "reason": "GOLD complimentary"}, idem=f"seat-{PNR}-PM120-21C", request_id="pm-seat-42010")
    t.asst("Done: 21C on PM 120, free with Gold.")
    t.user("What's left to sort out? I want to close this out today.")
    t.asst("Two things: the Courtyard cancellation (HX-5530912) is still unconfirmed, and you might want the PM Gold "
           "number on the new ticket checked (it should carry over). Shall I check both?")
    t.user("Yes check both, and if the Courtyard is still active cancel it again.")
    t.do("airline_get_reservation", {"pnr": PNR, "last_name": "RAMAN"},
         {**reservation("2025-11-03T16:05-08:00", "2025-11-04T20:30+09:00", "21C", flight="PM 120",
                        sched_change=False), "ticket_numbers": ["0167203402217"]}, request_id="pm-res-88201")
    t.asst("The airline record shows PM 120, seat 21C, ticket 0167203402217, and your PM Gold number is still on it.")
    qa = [("Also, is there wifi on PM 120?",
           "Yes, the 777-300ER has paid wifi (about $21 for the whole flight, or $8 for two hours); text messaging "
           "over apps is free for PM Miles members once you log in with your number."),
          ("What's the baggage allowance again with Gold?",
           "Two checked bags of 23 kg each from the ticket, plus one more from Gold, so three checked bags, and two "
           "carry-on items (one bag up to 10 kg and a personal item)."),
          ("Can I pre-order the vegetarian meal still?",
           "Your VGML request is on the reservation and meals carry over on a reissue, so it's still there. Special "
           "meals can be changed up to 24 hours before departure."),
          ("When does online check-in open?",
           "24 hours before departure, so from Nov 2 at 16:05 Pacific time. Because it's international you'll need "
           "to scan your passport in the app; bag drop closes 60 minutes before departure."),
          ("Do I need a visa for Japan on a US passport for a conference?",
           "No visa for a short business visit of up to 90 days with a US passport, as long as you aren't paid by a "
           "Japanese entity. You'll want to fill in Visit Japan Web before the flight to get QR codes for immigration "
           "and customs, which speeds things up at Haneda."),
          ("Does Gold get me into a lounge at SFO?",
           "On an international PM itinerary, yes: Gold includes the PM Meridian Lounge in SFO International "
           "Terminal A (near gate A3) for you plus one guest, opening 3 hours before departure. With a 16:05 "
           "departure you can use it from 13:05. Showers are available on a first-come basis."),
          ("Now that I'm on the 16:05, what train should I take from Mountain View?",
           "Aim to be at SFO by about 13:30. Caltrain from Mountain View to Millbrae takes roughly 35-40 minutes, then "
           "BART to the airport is 10 minutes and the AirTrain to International Terminal A another 5. A northbound "
           "train leaving Mountain View around 12:15 gets you there with margin; check the weekday timetable, as "
           "midday trains run about every 30 minutes."),
          ("Should I get yen before I go?",
           "Not necessary: airport ATMs at Haneda Terminal 3 (7-Eleven and Japan Post) accept US cards, and cards "
           "work almost everywhere in Tokyo. Having ¥10,000-20,000 in cash for small shops and the bus is handy, and a "
           "Suica or PASMO on your phone covers trains and convenience stores.")]
    for q, a in qa:
        t.user(q)
        t.asst(a)
    t.user("Perfect. So is the old hotel cancelled or not? I don't want to be charged twice.")
    t.decision("d6-old-hotel", [
        tool_state("unknown", "the cancellation outcome is still unknown: it must not read as done", call_id=hc),
        next_call("hotel_get_booking", {"confirmation_number": "HX-5530912"},
                  "the old confirmation number came back from the first booking"),
        fact("confirmation_number", "MG-20251104-7716", "the current hotel is the Mitsui Garden booking",
             superseded=["HX-5530912"]),
        constraint(hotel_rule, "under the 30k yen policy", "any rebooking still has to respect the policy"),
    ], note="late: the hotel ids are 40-70 events old")
    t.status_query(hc, "succeeded", request_id="ht-cx-3460",
                   result={"confirmation_number": "HX-5530912", "status": "CANCELLED",
                           "cancelled_at": "2025-10-14T18:05:44+09:00", "penalty": "0"},
                   checked_via="GET /bookings/HX-5530912")
    t.asst("Confirmed: HX-5530912 at the Courtyard was cancelled at no charge; the timeout was only on the "
           "confirmation. You're holding only the Mitsui Garden (MG-20251104-7716).")
    t.user("Finally, send me a summary I can paste into my expense report.")
    t.decision("d7-summary", [
        next_call("hotel_get_booking", {"confirmation_number": "MG-20251104-7716"}, "the current hotel confirmation for the expense report"),
        fact("seat", "21C", "the current seat after the reissue", subject=f"pnr={PNR}", superseded=["22C", "41C"]),
        evidence([ch_call, ch_res], "the irreversible reissue and its result, verbatim"),
        fact("new_ticket_number", "0167203402217", "the expense report needs the reissued ticket"),
        tool_state("succeeded", "the old hotel's cancellation is now confirmed", call_id=hc, request_id="ht-cx-3460"),
    ])
    t.asst(f"Trip summary (Ketter Labs, cost center 4410-RND, approval TA-88102):\n- Air: Wayfarer {PNR}, Pacific "
           "Meridian PM 120 SFO-HND, Nov 3 16:05 to Nov 4 20:30, economy, seat 21C. Original ticket 0167203381945 "
           "($1,486.20) exchanged for 0167203402217, fare difference $184.60.\n- Hotel: Mitsui Garden Hotel Toyosu "
           "Premier, MG-20251104-7716, Nov 4-8, ¥29,700/night (¥118,800 + ¥13,070 tax). Courtyard HX-5530912 "
           "cancelled free.\n- Loyalty: PM Miles 8841220765 (Gold).")
    t.user("Thank you! Anything I should do before I fly?")
    t.asst("Three small things: check in online from Nov 2 at 16:05 Pacific, fill in Visit Japan Web for the "
           "immigration and customs QR codes, and keep an eye on the PM app in case of another schedule change. "
           "Your hotel is guaranteed for late arrival, so arriving around 22:00 is fine. Have a great expo.")
    return t
