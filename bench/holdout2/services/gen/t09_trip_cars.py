"""09: travel booking + rental car: a family trip to Iceland hit by a cancelled flight."""

from lib import Traj, constraint, evidence, fact, next_call, pending, tool_state
from tools import pick

FILENAME = "09_iceland-family-trip.jsonl"
PNR = "K7RTQ2"
SAGA_M = "4410227891"
SAGA_C = "4410227905"
NORDUR = "NP-88120-4"
HOTEL_CONF = "RVK-330918"
PAX = ["DOYLE/MEGAN", "DOYLE/CHRIS", "DOYLE/LIAM", "DOYLE/NORA"]


def agency_trip(out_status="HK", out_flight="FI 630", out_dep="2025-06-12T20:40-04:00", out_arr="2025-06-13T06:10+00:00",
                seats_out=("22A", "22B", "22C", "22D"), synced="2025-05-30T09:12:00Z", ticket_note=None,
                seats_ret=("18A", "18B", "18C", "18D")):
    t = {"pnr": PNR, "agency": "Northwind Travel", "booking_status": "TICKETED", "last_synced_with_airline": synced,
         "travelers": [{"name": n, "type": "CHD" if n in ("DOYLE/LIAM", "DOYLE/NORA") else "ADT"} for n in PAX],
         "segments": [
             {"segment": 1, "flight": out_flight, "origin": "BOS", "destination": "KEF", "departure_time": out_dep,
              "arrival_time": out_arr, "cabin": "ECONOMY", "fare_class": "Economy Standard", "segment_status": out_status,
              "seats": dict(zip(PAX, seats_out)) if seats_out else None},
             {"segment": 2, "flight": "FI 631", "origin": "KEF", "destination": "BOS", "departure_time": "2025-06-20T16:50+00:00",
              "arrival_time": "2025-06-20T18:40-04:00", "cabin": "ECONOMY", "fare_class": "Economy Standard",
              "segment_status": "HK", "seats": dict(zip(PAX, seats_ret))}],
         "tickets": [{"passenger": n, "number": f"108241877{3310 + i}"} for i, n in enumerate(PAX)],
         "fare_total": "3270.40", "currency": "USD", "baggage": "1PC 23KG per passenger",
         "price_breakdown": [
             {"passenger": "DOYLE/MEGAN", "base_fare": "612.00", "taxes": {"US": "43.70", "XF": "4.50", "AY": "5.60",
                                                                          "IS": "48.30", "YQ": "180.00"}, "total": "894.10"},
             {"passenger": "DOYLE/CHRIS", "base_fare": "612.00", "taxes": {"US": "43.70", "XF": "4.50", "AY": "5.60",
                                                                          "IS": "48.30", "YQ": "180.00"}, "total": "894.10"},
             {"passenger": "DOYLE/LIAM", "base_fare": "459.00", "taxes": {"US": "43.70", "XF": "4.50", "AY": "5.60",
                                                                         "IS": "48.30", "YQ": "180.00"}, "total": "741.10"},
             {"passenger": "DOYLE/NORA", "base_fare": "459.00", "taxes": {"US": "43.70", "XF": "4.50", "AY": "5.60",
                                                                         "IS": "48.30", "YQ": "180.00"}, "total": "741.10"}],
         "form_of_payment": "VI ****4410", "agent": "Sara (Northwind, desk 3)",
         "fare_rules_summary": "Changes allowed with fee 150 USD plus fare difference; involuntary changes free; non-refundable."}
    if ticket_note:
        t["notes"] = ticket_note
    return t


def seat_map(rng, flight, rows=range(14, 33)):
    out = []
    for row in rows:
        free = [s for s in "ABCDEF" if rng.random() < 0.35]
        if row == 22 and flight == "FI630":
            free = ["A", "B", "C", "D"]
        if row == 27 and flight == "DL246":
            free = ["A", "B", "C"]
        if row == 28 and flight == "DL246":
            free = ["A", "B"]
        if row == 24 and flight == "FI631":
            free = ["A", "B", "C"]
        if row == 25 and flight == "FI631":
            free = ["A", "B", "E"]
        out.append({"row": row, "available": [f"{row}{s}" for s in free],
                    "zone": "Economy Comfort" if row < 17 else ("exit" if row in (18, 19) else "Economy"),
                    "seat_fee": "0.00" if row >= 20 else "45.00"})
    return {"flight_number": flight, "aircraft": "757-200" if flight.startswith("FI") else "A321neo",
            "layout": "3-3 (ABC DEF)", "rows": out, "note": "Children under 12 must be seated next to an adult on the same booking."}


CARS = [
    ("NCR-KEF-DUS4", "Dacia Duster 4x4 or similar", "SUV 4x4", "manual", 5, "612.40", "unlimited", "F-road allowed"),
    ("NCR-KEF-DUS4A", "Dacia Duster 4x4 automatic", "SUV 4x4", "automatic", 5, "688.10", "unlimited", "F-road allowed"),
    ("NCR-KEF-RAV4", "Toyota RAV4 Hybrid AWD", "SUV AWD", "automatic", 5, "904.75", "unlimited", "F-road not allowed"),
    ("NCR-KEF-LC", "Toyota Land Cruiser 150", "Large 4x4", "automatic", 7, "1488.00", "unlimited", "F-road allowed"),
    ("NCR-KEF-KOD", "Skoda Kodiaq 4x4 7-seat", "SUV 4x4", "automatic", 7, "1016.30", "unlimited", "F-road allowed"),
    ("NCR-KEF-YAR", "Toyota Yaris", "Compact", "manual", 5, "388.90", "unlimited", "F-road not allowed"),
    ("NCR-KEF-MG4", "MG4 Electric", "Compact EV", "automatic", 5, "455.00", "unlimited", "F-road not allowed"),
    ("NCR-KEF-TES", "Tesla Model Y AWD", "SUV EV", "automatic", 5, "962.20", "unlimited", "F-road not allowed"),
    ("NCR-KEF-JIM", "Suzuki Jimny 4x4", "Small 4x4", "manual", 4, "598.00", "unlimited", "F-road allowed"),
    ("NCR-KEF-VIT", "Suzuki Vitara 4x4 automatic", "SUV 4x4", "automatic", 5, "842.30", "unlimited", "F-road allowed"),
    ("NCR-KEF-SPR", "Ford Transit camper 4x4", "Camper", "manual", 4, "1930.00", "unlimited", "F-road not allowed"),
    ("NCR-KEF-ECL", "Mitsubishi Eclipse Cross PHEV 4x4", "SUV 4x4", "automatic", 5, "874.50", "unlimited", "F-road allowed"),
]


def car_results(pickup, ret):
    out = []
    for cid, name, cls, trans, seats, total, km, froad in CARS:
        out.append({"car_id": cid, "vehicle": name, "class": cls, "transmission": trans, "seats": seats,
                    "total_price": total, "currency": "USD", "mileage": km, "f_roads": froad,
                    "included": ["CDW", "TP", "SCDW"] if "Land" in name or "Kodiaq" in name else ["CDW", "TP"],
                    "gravel_protection": "included" if "4x4" in cls else "optional 11.00/day"})
    return {"pickup_location": "KEF", "pickup": pickup, "return": ret, "driver_age": 41,
            "supplier": "Nordur Car Rental", "desk": "KEF terminal, arrivals hall", "results": out,
            "note": "Prices for 7 days, taxes included. Sand and ash protection sold separately (9.00/day)."}


def airline_res(out_flight="FI 630", status="UN", reacc=True, seats_out=None):
    r = {"pnr": PNR, "carrier": "Icelandair", "passengers": [{"name": n, "saga_club": None} for n in PAX],
         "itinerary": [
             {"flight": out_flight, "origin": "BOS", "destination": "KEF", "date": "2025-06-12",
              "segment_status": status, "departure_time": "2025-06-12T20:40-04:00",
              "seats": seats_out},
             {"flight": "FI 631", "origin": "KEF", "destination": "BOS", "date": "2025-06-20", "segment_status": "HK",
              "departure_time": "2025-06-20T16:50+00:00", "seats": dict(zip(PAX, ("24B", "25A", "24C", "24A")))}],
         "contact": {"email": "megan.doyle@gmail.com", "phone": "+1 617 555 0134"}}
    if reacc:
        r["disruption"] = {"type": "FLIGHT_CANCELLED", "notice_sent": "2025-06-02T14:05:00Z",
                           "reason": "aircraft reassignment", "reaccommodation_flight": "FI 632",
                           "reaccommodation_departure": "2025-06-13T20:40-04:00", "options": [
                               "accept reaccommodation", "rebook on another date free of charge within 14 days",
                               "rebook on partner or interline flight via agency", "refund unused segments"]}
    return r



CAR_TERMS = (
    "Nordur Car Rental - Rental terms (summary of sections relevant to 4x4 rentals). 1. Driver: minimum age 20 for "
    "compact cars and 23 for 4x4 vehicles; a valid licence held for at least one year; an international driving "
    "permit is not required for licences printed in Latin characters. 2. F-roads: 4x4 vehicles marked 'F-road "
    "allowed' may be driven on mountain roads designated with an F number when those roads are officially open "
    "(see road.is); most F-roads open between mid-June and early July depending on snow. Driving on closed roads or "
    "off-road is prohibited by Icelandic law and voids all insurance. 3. River crossings: damage caused by crossing "
    "rivers or streams, including water damage to the engine, is NOT covered by CDW, SCDW or any other protection "
    "and is fully chargeable. 4. Included protection: CDW with a self-risk of ISK 350,000; theft protection; gravel "
    "protection on 4x4 vehicles covering windscreen and paint damage from gravel. Sand and ash protection (optional) "
    "covers paint, glass and lights damaged by sand or volcanic ash storms. 5. Wind: damage to doors caused by wind "
    "is not covered; open doors facing into the wind and hold them. 6. Fuel: the vehicle is supplied full and must "
    "be returned full; otherwise refuelling is charged at ISK 450 per litre plus a service fee. 7. Late arrival: for "
    "bookings with flight tracking, the vehicle is held for 2 hours after the tracked flight's scheduled arrival; if "
    "the tracked flight is cancelled, the vehicle is held until 09:00 on the day of pickup unless the booking is "
    "modified. 8. Additional drivers: free for one additional driver registered at pickup. 9. Tolls: the "
    "Vadlaheidargong tunnel in the north is tolled online within 24 hours of passage; unpaid tolls are charged with "
    "a fee. 10. Speed cameras and parking fines are charged to the renter's card with an administration fee."
)


def build() -> Traj:
    t = Traj(id="svc-iceland-family-trip", title="Family trip to Iceland: a cancellation the agency hasn't seen, car and seats",
             exercises=["the agency shows the outbound flight confirmed while the airline shows it cancelled",
                        "loyalty numbers, a hotel confirmation and a rental-club number typed once, used much later",
                        "a seat change that times out and is resolved by a status query",
                        "a car pickup change that times out and stays unresolved",
                        "an irreversible reissue behind an approval; rules about non-refundable bookings and seating the kids",
                        "topic switch to the rental car and back to flights"],
             description="A parent checks a family trip to Iceland booked through an agency: adds loyalty numbers, "
                         "seats the family together, books a 4x4, then learns from the airline that the outbound flight "
                         "was cancelled, moves the family to another carrier the same night, re-seats them and moves "
                         "the car pickup.",
             tools=pick("agency_get_trip", "airline_get_reservation", "airline_seat_map", "airline_change_seat",
                        "airline_add_loyalty", "agency_change_flight", "flight_search", "car_search", "car_book",
                        "car_get_reservation", "car_modify", "hotel_get_booking", "hotel_search", "loyalty_get_account"),
             seed=909)
    r = t.rng
    t.system("You are the trip assistant of Northwind Travel. You can read and change the agency trip, the airline "
             "reservation, rental cars and hotels. Ticket changes need the traveller's approval.")
    t.user(f"Hi! We fly to Iceland on June 12, the four of us. Booking is {PNR}. Can you check it and sort out seats "
           "and our Saga Club numbers?")
    _, _, ag1 = t.do("agency_get_trip", {"pnr": PNR}, agency_trip(seats_out=None), request_id="nw-t-40011")
    t.asst("Your trip: Icelandair FI 630 Boston to Keflavík on Thursday June 12 at 20:40, landing 06:10 on the 13th; "
           "back on FI 631 on June 20 at 16:50. Four passengers (Megan, Chris, Liam and Nora), tickets issued, one "
           "23 kg bag each. Seats for the return are 18A-D together; the outbound has no seats yet.")
    kids = t.user(f"Our Saga Club numbers: mine is {SAGA_M}, Chris is {SAGA_C}. The kids don't have any. And the kids "
                  "must sit next to one of us, always, Nora gets anxious.")
    t.fact("saga_club_number", SAGA_M, subject={"passenger": "DOYLE/MEGAN"})
    t.fact("saga_club_number", SAGA_C, subject={"passenger": "DOYLE/CHRIS"})
    t.decision("d1-loyalty", [
        next_call("airline_add_loyalty", {"pnr": PNR, "member_id": SAGA_M}, "booking reference and Megan's number"),
        constraint(kids, "kids must sit next to one of us", "the seating rule for every seat assignment"),
    ], note="early")
    for pax, num, rid in (("DOYLE/MEGAN", SAGA_M, "fi-ff-2201"), ("DOYLE/CHRIS", SAGA_C, "fi-ff-2202")):
        t.do("airline_add_loyalty", {"pnr": PNR, "passenger": pax, "program": "FI", "member_id": num},
             {"pnr": PNR, "passenger": pax, "member_id": num, "tier": "Saga Silver" if pax == "DOYLE/MEGAN" else "Saga Blue",
              "status": "added"}, idem=f"ff-{PNR}-{num}", request_id=rid)
    t.asst("Added: Megan is Saga Silver, Chris Saga Blue.")
    t.user("How many points do I have, by the way? Could we upgrade with them?")
    t.do("loyalty_get_account", {"member_id": SAGA_M, "program": "FI"},
         {"member_id": SAGA_M, "program": "Saga Club", "name": "MEGAN DOYLE", "tier": "Saga Silver",
          "tier_valid_through": "2026-02-28", "points_balance": 48200, "tier_points_ytd": 62,
          "upgrade_offers": {"BOS-KEF Economy -> Saga Premium": {"points": 52000, "per_person": True},
                             "KEF-BOS Economy -> Economy Comfort": {"points": 18000, "per_person": True}},
          "recent_activity": [{"date": "2024-08-17", "desc": "FI 631 KEF-BOS", "points": 4120},
                              {"date": "2024-08-09", "desc": "FI 630 BOS-KEF", "points": 4120},
                              {"date": "2024-06-30", "desc": "Icelandair Visa spend", "points": 2310},
                              {"date": "2023-12-22", "desc": "Saga Club partner: Hotel Reykjavik Grand", "points": 1500}],
          "expiring": {"points": 6200, "date": "2025-12-31"}}, request_id="fi-loy-0310")
    t.asst("You have 48,200 Saga points (Silver until Feb 2026), with 6,200 expiring at the end of the year. Saga "
           "Premium on BOS-KEF costs 52,000 per person, so not enough for even one; Economy Comfort on the return is "
           "18,000 per person, enough for two of you. Economy Comfort isn't a different seat on the 757, just an "
           "empty middle seat and lounge access.")
    t.user("Not worth it. Do the outbound seats.")
    t.do("airline_seat_map", {"flight_number": "FI630", "date": "2025-06-12"}, seat_map(r, "FI630"),
         request_id="fi-sm-3301")
    t.asst("Row 22 has A, B, C and D free together on the 757 (3-3 layout: A-B-C window to aisle, D-E-F aisle to "
           "window). With 22A-B-C plus 22D across the aisle, each child sits next to a parent: for example Nora 22A, "
           "Megan 22B, Liam 22C, Chris 22D.")
    t.user("Perfect, do that.")
    s1, _, _ = t.do("airline_change_seat", {"pnr": PNR, "flight_number": "FI630", "date": "2025-06-12",
                                            "assignments": {"DOYLE/NORA": "22A", "DOYLE/MEGAN": "22B",
                                                            "DOYLE/LIAM": "22C", "DOYLE/CHRIS": "22D"}},
                    {"pnr": PNR, "flight_number": "FI630", "assigned": {"DOYLE/NORA": "22A", "DOYLE/MEGAN": "22B",
                                                                        "DOYLE/LIAM": "22C", "DOYLE/CHRIS": "22D"},
                     "fees": "0.00"}, idem=f"seats-{PNR}-FI630-row22", request_id="fi-st-4401")
    t.asst("Seats assigned on FI 630: Nora 22A, Megan 22B, Liam 22C, Chris 22D. No fee.")
    t.user("Now the car. We land at 6:10 and want a 4x4 for the week, we're doing some F-roads. Automatic, Chris won't "
           "drive stick. Keep it under $800.")
    carrule = t.seq
    t.topic_switch("rental car", previous="flights")
    t.do("car_search", {"pickup_location": "KEF", "pickup": "2025-06-13T07:00", "return": "2025-06-20T13:00",
                        "driver_age": 41}, car_results("2025-06-13T07:00", "2025-06-20T13:00"), request_id="nc-s-5501")
    t.asst("Automatic 4x4s allowed on F-roads, under $800: the Dacia Duster 4x4 automatic at $688.10 for 7 days "
           "(CDW, theft protection and gravel protection included). The Kodiaq 4x4 (7 seats, $1,016.30) and Land "
           "Cruiser ($1,488) are over budget; the RAV4 and the EVs aren't allowed on F-roads. I'd add sand and ash "
           "protection ($9/day) if you're going to the south coast.")
    t.user(f"The automatic Duster, with sand and ash. Put my Nordur Plus number on it: {NORDUR}.")
    t.fact("nordur_plus_number", NORDUR)
    t.decision("d2-car", [
        next_call("car_book", {"pickup_location": "KEF", "car_id": "NCR-KEF-DUS4A"},
                  "the car id from the search results"),
        constraint(carrule, "under $800", "the car budget"),
        tool_state("succeeded", "the seats were assigned", call_id=s1, request_id="fi-st-4401"),
    ])
    cb, _, _ = t.do("car_book", {"pickup_location": "KEF", "car_id": "NCR-KEF-DUS4A", "pickup": "2025-06-13T07:00",
                                 "return": "2025-06-20T13:00", "extras": ["sand_ash_protection"],
                                 "driver": "Megan Doyle", "loyalty_number": NORDUR, "flight": "FI 630"},
                    {"confirmation_number": "NCR-55210983", "vehicle": "Dacia Duster 4x4 automatic", "status": "confirmed",
                     "pickup": "2025-06-13T07:00", "return": "2025-06-20T13:00", "total_price": "751.10",
                     "extras": [{"name": "sand and ash protection", "price": "63.00"}], "loyalty_number": NORDUR,
                     "flight_tracking": "FI 630", "free_cancellation_until": "2025-06-11T07:00+00:00",
                     "desk": "KEF arrivals hall"}, idem=f"car-KEF-{NORDUR}-20250613", request_id="nc-b-6601")
    t.asst("Booked: NCR-55210983, Dacia Duster 4x4 automatic, pickup June 13 at 07:00 at the KEF arrivals desk, "
           "return June 20 at 13:00, $751.10 with sand and ash protection. Free cancellation until June 11.")
    t.user("What does the insurance cover exactly? We might cross a river or two on the F-roads.")
    t.do("car_get_reservation", {"confirmation_number": "NCR-55210983", "include": "terms"},
         {"confirmation_number": "NCR-55210983", "terms_version": "2025-04", "terms_text": CAR_TERMS,
          "protections": ["CDW (self-risk ISK 350,000)", "TP", "gravel protection", "sand and ash protection"]},
         request_id="nc-g-6605")
    t.asst("Important: river crossings are NOT covered at all, not by CDW or any add-on, including water damage to "
           "the engine, and F-roads must be officially open (most open mid-June to early July, so check road.is; on "
           "June 13-20 many highland routes may still be closed). The CDW self-risk is ISK 350,000 (about $2,500). "
           "Gravel and sand/ash are covered. Wind damage to doors isn't, so hold the doors in strong wind. Chris can "
           "be added as a second driver for free at pickup.")
    t.user("Ok, no rivers then. Good to know about the wind. Our first hotel is booked already, confirmation "
           f"{HOTEL_CONF}. Can you check it matches?")
    t.do("hotel_get_booking", {"confirmation_number": HOTEL_CONF},
         {"confirmation_number": HOTEL_CONF, "hotel": "Hotel Kria Reykjavík", "checkin": "2025-06-13",
          "checkout": "2025-06-15", "room": "Family room (2 queen beds)", "guests": 4, "rate": "Non-refundable saver",
          "total": "84600", "currency": "ISK", "paid": True, "early_checkin": "not guaranteed (from 15:00)",
          "cancellation": "non-refundable"}, request_id="hk-g-0091")
    nonref = t.user("Yes, two nights from the 13th. It's non-refundable, so whatever happens, don't cancel or change "
                    "anything non-refundable without asking me.")
    t.fact("hotel_checkin", "2025-06-13", subject={"confirmation_number": HOTEL_CONF})
    t.asst("Understood: no cancellations or changes to anything non-refundable (like Hotel Kria, 2 nights from June "
           "13, ISK 84,600 prepaid) without your OK.")
    t.user("The other two hotels are Vík, confirmation HV-2231-08, and Akureyri, AK-77190. Check those too.")
    t.do("hotel_get_booking", {"confirmation_number": "HV-2231-08"},
         {"confirmation_number": "HV-2231-08", "hotel": "Hotel Vík í Mýrdal", "checkin": "2025-06-15",
          "checkout": "2025-06-17", "room": "Family room with sea view", "guests": 4, "rate": "Flexible",
          "total": "112400", "currency": "ISK", "paid": False, "cancellation": "free until 2025-06-13 18:00",
          "breakfast_included": True, "parking": "free"}, request_id="hk-g-0095")
    t.do("hotel_get_booking", {"confirmation_number": "AK-77190"},
         {"confirmation_number": "AK-77190", "hotel": "Akureyri Guesthouse Brekka", "checkin": "2025-06-17",
          "checkout": "2025-06-19", "room": "Apartment, 2 bedrooms", "guests": 4, "rate": "Non-refundable",
          "total": "68000", "currency": "ISK", "paid": True, "cancellation": "non-refundable",
          "notes": "Key box code sent 24h before arrival"}, request_id="hk-g-0096")
    t.asst("Vík (HV-2231-08): Hotel Vík í Mýrdal, June 15-17, family sea-view room, flexible rate, free cancellation "
           "until June 13, pay at the hotel, breakfast included. Akureyri (AK-77190): Guesthouse Brekka, June 17-19, "
           "2-bedroom apartment, non-refundable and paid. That leaves the night of June 19 before your June 20 "
           "flight: is that booked? Akureyri to Keflavík is about 5 hours, so a last night near Reykjavík or the "
           "airport would be sensible.")
    t.user("Oh no, we forgot the 19th! We'll book something near the airport ourselves, I have points at a chain. "
           "What's there, so I know what to look for?")
    t.do("hotel_search", {"city": "Keflavik", "near": "KEF airport", "checkin": "2025-06-19", "checkout": "2025-06-20",
                          "guests": 4, "rooms": 1},
         {"city": "Keflavik", "checkin": "2025-06-19", "checkout": "2025-06-20", "guests": 4, "currency": "ISK",
          "results": [
              {"hotel_id": "KEF-0012", "name": "Aurora Hotel Keflavik Airport", "km_to_airport": "0.8",
               "room": "Family room (4)", "nightly_rate": "38900", "cancellation": "free until 2025-06-18",
               "loyalty_program": None, "shuttle": "free airport shuttle 04:00-22:00"},
              {"hotel_id": "KEF-0031", "name": "Courtyard by Marriott Reykjavik Keflavik Airport", "km_to_airport": "2.4",
               "room": "Two queen beds", "nightly_rate": "41200", "cancellation": "free until 2025-06-18 16:00",
               "loyalty_program": "Marriott Bonvoy", "points_price": 30000},
              {"hotel_id": "KEF-0044", "name": "Hotel Keflavik", "km_to_airport": "4.1", "room": "Family suite",
               "nightly_rate": "46500", "cancellation": "free until 2025-06-17", "loyalty_program": None,
               "breakfast_included": True},
              {"hotel_id": "KEF-0058", "name": "B14 Guesthouse Keflavik", "km_to_airport": "4.6", "room": "Quad room",
               "nightly_rate": "24800", "cancellation": "non-refundable", "loyalty_program": None},
              {"hotel_id": "KEF-0072", "name": "Blue Lagoon Silica Hotel", "km_to_airport": "21.0",
               "room": "Superior (max 3)", "nightly_rate": "142000", "cancellation": "free until 2025-06-12",
               "loyalty_program": None, "note": "max 3 guests per room: 2 rooms needed"},
              {"hotel_id": "KEF-0085", "name": "Hotel Berg by Keflavik Marina", "km_to_airport": "4.9",
               "room": "Family room", "nightly_rate": "35700", "cancellation": "free until 2025-06-18",
               "loyalty_program": "Best Western Rewards", "points_price": 36000}]},
         request_id="hk-s-0120")
    t.asst("Near the airport for June 19: the Courtyard by Marriott (2.4 km, ISK 41,200 or 30,000 Bonvoy points, free "
           "cancellation until June 18), Hotel Berg (Best Western Rewards, 36,000 points or ISK 35,700), Aurora Hotel "
           "(0.8 km, free shuttle, ISK 38,900) and Hotel Keflavik (breakfast included). The Blue Lagoon Silica Hotel "
           "would need two rooms at ISK 142,000 each. With a 16:50 flight, any of them works.")
    t.user("I have Bonvoy points, I'll book the Courtyard myself. Thanks.")
    t.topic_switch("flights", previous="rental car")
    for q, a in [
        ("Do the kids need anything special for Iceland? Passports are fine.",
         "US passports valid for at least 3 months after your return are enough for Schengen. From late 2025 the "
         "EU/Schengen ETIAS pre-registration may apply, but not yet in June 2025. Bring layers: June highs are around "
         "12°C, with wind and rain."),
        ("Can the kids do the Blue Lagoon?",
         "Yes: children aged 2 to 13 enter free with a paying adult, and kids under 9 must wear the armbands provided. "
         "Nora is 9 and Liam 12, so both are fine, and free. Book a time slot in advance; the early slots from 8:00 "
         "sell out in June."),
        ("Anything we should know about driving there?",
         "Speed limits are 90 km/h on paved roads, 80 on gravel and 50 in towns, and speed cameras are common (fines "
         "are steep and go to the rental company, which adds a fee). Headlights must be on at all times. Sheep wander "
         "onto roads in summer, single-lane bridges are marked 'Einbreið brú' (the first car to arrive goes first), "
         "and fuel stations can be 100+ km apart in the east and the highlands, so fill up at half a tank."),
        ("Any tips for the drive from the airport? We land so early.",
         "It's about 45 minutes to Reykjavík on route 41. Your hotel's check-in is from 15:00, so many families go "
         "straight to the Blue Lagoon (20 minutes from KEF, book the 8:00 entry) or have breakfast in Keflavík "
         "first. Fuel up near the airport; cards need a PIN at most unmanned pumps."),
    ]:
        t.user(q)
        t.asst(a)
    t.user("Oh, and the return seats: 18A to D. Is that OK for the kids?")
    t.do("airline_seat_map", {"flight_number": "FI631", "date": "2025-06-20"}, seat_map(r, "FI631"),
         request_id="fi-sm-3310")
    t.asst("Not quite: on the 757, row 18's A-B-C are on one side and D is across the aisle, so Nora in 18D would "
           "sit alone across the aisle. Row 24 has A-B-C free with 25A right behind: Nora 24A + Megan 24B + Liam 24C "
           "puts both kids next to you, and Chris takes 25A.")
    t.user("Do Nora, me and Liam in 24A-C and Chris right behind.")
    s0, _, _ = t.do("airline_change_seat", {"pnr": PNR, "flight_number": "FI631", "date": "2025-06-20",
                                            "assignments": {"DOYLE/NORA": "24A", "DOYLE/MEGAN": "24B",
                                                            "DOYLE/LIAM": "24C", "DOYLE/CHRIS": "25A"}},
                    {"pnr": PNR, "flight_number": "FI631", "assigned": {"DOYLE/NORA": "24A", "DOYLE/MEGAN": "24B",
                                                                        "DOYLE/LIAM": "24C", "DOYLE/CHRIS": "25A"},
                     "released": ["18A", "18B", "18C", "18D"], "fees": "0.00"},
                    idem=f"seats-{PNR}-FI631-row24", request_id="fi-st-4420")
    t.asst("Return seats now: Nora 24A, Megan 24B, Liam 24C, Chris 25A behind. Both kids sit next to Megan.")
    t.system("Two weeks later: 2025-06-02 15:40 EDT.")
    t.user("Hi, I got a weird email from Icelandair. Here it is: 'Dear Megan Doyle, We regret to inform you that "
           "due to operational reasons your flight FI630 from Boston (BOS) to Keflavik (KEF) on 12 June 2025 has been "
           "cancelled. We have rebooked you on the next available flight. Please review your new itinerary in Manage "
           "Booking. If the new itinerary does not suit you, you may change your booking free of charge to another "
           "date within 14 days of the original departure or request a refund for the unused portion of your ticket. "
           "If you booked through a travel agency, please contact your agency. We apologise for the inconvenience. "
           "Booking reference: K7RTQ2. Icelandair Customer Service.' Can you check our flight?")
    _, _, al1 = t.do("airline_get_reservation", {"pnr": PNR, "last_name": "DOYLE"},
                     airline_res(seats_out=None), request_id="fi-r-7701")
    t.asst("The airline shows FI 630 on June 12 as cancelled (status UN, notice sent today at 14:05 UTC, aircraft "
           "reassignment). They've put you on FI 632 on Friday June 13, same time, landing the morning of the 14th. "
           "Your seats from FI 630 are gone. Options they offer: accept FI 632, move to another date within 14 days "
           "for free, or rebook via the agency on another airline, or a refund of the unused flight.")
    t.user("What?! The agency app still says we're confirmed on the 12th. Which is it?")
    t.do("agency_get_trip", {"pnr": PNR}, agency_trip(seats_out=("22B", "22D", "22C", "22A")), request_id="nw-t-40090")
    t.asst("The agency record still shows FI 630 as confirmed (HK) with your row 22 seats, but it was last synced with "
           "the airline on May 30, before the cancellation. The airline is the operating carrier and its record is the "
           "current one: FI 630 on the 12th is cancelled. If you take FI 632, you'd lose a day: the car pickup and "
           "your first hotel night (non-refundable) would both be affected.")
    t.user("Are we owed anything for this? The email didn't say.")
    t.asst("Probably yes. Icelandair is an EEA airline, so EU Regulation 261/2004 applies to its flights from the US. "
           "A cancellation announced less than 14 days before departure (today is June 2, the flight was June 12) "
           "entitles each passenger to compensation of €600 for a flight over 3,500 km, unless the airline proves "
           "extraordinary circumstances, and 'aircraft reassignment' usually isn't one. If they reroute you to arrive "
           "within 4 hours of the original time it can be halved. You'd claim it from Icelandair's website after the "
           "trip; keep the email.")
    t.user("Good to know, $2,400 would pay for the car. We can't lose a day and that hotel night though. Is there "
           "anything else on the evening of the 12th?")
    t.decision("d3-cancelled", [
        evidence([ag1, al1], "the agency's confirmed segment and the airline's cancellation, both verbatim"),
        next_call("flight_search", {"origin": "BOS", "destination": "KEF", "date": "2025-06-12"},
                  "a same-night alternative from the same airports"),
        constraint(nonref, "don't cancel or change anything non-refundable", "the hotel night must not be given up silently"),
        fact("hotel_checkin", "2025-06-13", "the first hotel night is the 13th", subject=f"confirmation_number={HOTEL_CONF}"),
    ])
    t.do("flight_search", {"origin": "BOS", "destination": "KEF", "date": "2025-06-12", "passengers": 4,
                           "reason": "involuntary", "exchange_pnr": PNR},
         {"origin": "BOS", "destination": "KEF", "date": "2025-06-12", "options": [
             {"flight": "DL 246", "carrier": "Delta", "departure_time": "2025-06-12T21:55-04:00",
              "arrival_time": "2025-06-13T07:20+00:00", "stops": 0, "seats_left": 7, "fare_difference": "0.00",
              "interline_reissue": True},
             {"flight": "PLAY OG 112", "carrier": "PLAY", "departure_time": "2025-06-12T22:30-04:00",
              "arrival_time": "2025-06-13T08:05+00:00", "stops": 0, "seats_left": 12, "fare_difference": "n/a",
              "interline_reissue": False, "note": "new ticket required, bags extra"},
             {"flight": "FI 614 via JFK", "carrier": "Icelandair", "departure_time": "2025-06-12T16:05-04:00",
              "arrival_time": "2025-06-13T09:35+00:00", "stops": 1, "seats_left": 4, "fare_difference": "0.00",
              "interline_reissue": True, "connection": "JFK 2h35m"},
             {"flight": "UA 144 via EWR", "carrier": "United", "departure_time": "2025-06-12T17:10-04:00",
              "arrival_time": "2025-06-13T10:15+00:00", "stops": 1, "seats_left": 2, "fare_difference": "0.00",
              "interline_reissue": True}],
          "policy": "Involuntary change: reissue on listed interline carriers without fare difference or fee."},
         request_id="nw-fs-8801")
    t.asst("Same night, nonstop: Delta DL 246 at 21:55, landing 07:20 on the 13th, 7 seats left, no cost because it's "
           "an involuntary change. Alternatives: Icelandair via JFK (lands 09:35) or United via Newark (10:15), or PLAY, "
           "which needs new tickets. DL 246 keeps your car and hotel plans nearly intact (pickup would move from 07:00 "
           "to about 08:00).")
    t.user("Delta. Do it.")
    ch, chc = t.call("agency_change_flight", {"pnr": PNR, "segment": 1, "new_flight": "DL 246", "date": "2025-06-12",
                                              "reason": "involuntary", "passengers": PAX},
                     idem=f"reissue-{PNR}-DL246-20250612")
    t.approval("apr-reissue-dl246", "requested", chc,
               action="Reissue 4 tickets: segment 1 FI 630 (cancelled) -> DL 246 BOS-KEF 12 Jun 21:55, no charge")
    t.asst("To confirm: reissue all four tickets, replacing cancelled FI 630 with Delta DL 246 (June 12, 21:55 → 07:20), "
           "no charge. The return on FI 631 stays as it is. Seats will need to be picked again on Delta. Approve?")
    t.user("Wait, will our bags go through fine on the way back with Icelandair? And do we keep our Saga Club miles?")
    t.decision("d4-approval-open", [
        pending("the reissue waits for the traveller's approval", approval_id="apr-reissue-dl246"),
        fact("saga_club_number", SAGA_M, "Megan's number, typed once", subject="passenger=DOYLE/MEGAN"),
    ])
    t.asst("Bags: the return is a separate Icelandair flight, so nothing to transfer; your one 23 kg bag each stays. "
           "Miles: the Delta flight earns Saga Club points only if Delta credits partners, and Icelandair and Delta "
           "aren't partners, so you'd earn nothing on the outbound (SkyMiles instead, if you have it). The return "
           "still earns Saga points.")
    t.user("Fine, approve.")
    t.approval("apr-reissue-dl246", "granted", chc)
    chr_ = t.result(ch, "succeeded", {"pnr": PNR, "status": "REISSUED", "new_tickets": [
        {"passenger": n, "number": f"108241892{7720 + i}"} for i, n in enumerate(PAX)],
        "segment_1": {"flight": "DL 246", "departure_time": "2025-06-12T21:55-04:00",
                      "arrival_time": "2025-06-13T07:20+00:00", "delta_record_locator": "HJ4W9P"},
        "fare_difference": "0.00", "seats": None}, request_id="nw-rx-9101")
    t.asst("Reissued: you're on Delta DL 246 on June 12 at 21:55, landing 07:20. New tickets issued; Delta record "
           "locator HJ4W9P. Now seats.")
    t.do("airline_get_reservation", {"pnr": "HJ4W9P", "last_name": "DOYLE", "carrier": "DL"},
         {"pnr": "HJ4W9P", "carrier": "Delta", "passengers": [{"name": n, "skymiles": None} for n in PAX],
          "itinerary": [{"flight": "DL 246", "origin": "BOS", "destination": "KEF", "date": "2025-06-12",
                         "segment_status": "HK", "departure_time": "2025-06-12T21:55-04:00", "seats": None,
                         "equipment": "A321neo", "terminal": "BOS Terminal A"}],
          "linked_record": {"carrier": "FI", "pnr": PNR}, "baggage": "1PC 23KG (interline from FI ticket)",
          "ssr": ["CHLD DOYLE/LIAM 12", "CHLD DOYLE/NORA 09"], "checkin_opens": "2025-06-11T21:55-04:00"},
         request_id="dl-r-1001")
    t.asst("Delta has you in HJ4W9P: DL 246 from Boston Terminal A, A321neo, one 23 kg bag each carried over from the "
           "Icelandair ticket, and the kids flagged as children (12 and 9). No seats yet.")
    t.do("airline_seat_map", {"flight_number": "DL246", "date": "2025-06-12"}, seat_map(r, "DL246", range(20, 36)),
         request_id="dl-sm-1101")
    t.asst("The A321neo is nearly full and there are no four seats together. The best is 27A-B-C plus 28A-B right "
           "behind. To keep each child next to a parent: Nora 27A with Megan 27B, and Liam 28A with Chris 28B.")
    t.user("Yes, exactly that.")
    s2, _, _ = t.do("airline_change_seat", {"pnr": "HJ4W9P", "flight_number": "DL246", "date": "2025-06-12",
                                            "assignments": {"DOYLE/NORA": "27A", "DOYLE/MEGAN": "27B",
                                                            "DOYLE/LIAM": "28A", "DOYLE/CHRIS": "28B"}},
                    None, "timeout", idem="seats-HJ4W9P-DL246-27-28",
                    error={"code": "TIMEOUT", "message": "Delta seat service did not respond within 30 s"})
    t.asst("The Delta seat request timed out. I'll verify before retrying so we don't lose those seats to a "
           "conflicting request.")
    t.user("Please check. And the car, move the pickup.")
    t.decision("d5-seats-and-car", [
        tool_state("unknown", "the Delta seat request timed out", call_id=s2),
        next_call("car_modify", {"confirmation_number": "NCR-55210983"}, "the car confirmation from weeks earlier"),
        tool_state("succeeded", "the reissue went through", call_id=ch, request_id="nw-rx-9101"),
    ])
    t.status_query(s2, "succeeded", request_id="dl-st-2207",
                   result={"assigned": {"DOYLE/NORA": "27A", "DOYLE/MEGAN": "27B", "DOYLE/LIAM": "28A", "DOYLE/CHRIS": "28B"}},
                   checked_via="Delta reservation HJ4W9P seat display")
    t.asst("Seats confirmed on DL 246: Nora 27A, Megan 27B, Liam 28A, Chris 28B.")
    t.topic_switch("rental car", previous="flights")
    t.do("car_get_reservation", {"confirmation_number": "NCR-55210983"},
         {"confirmation_number": "NCR-55210983", "status": "confirmed", "vehicle": "Dacia Duster 4x4 automatic",
          "pickup": "2025-06-13T07:00", "return": "2025-06-20T13:00", "flight_tracking": "FI 630",
          "flight_tracking_status": "flight cancelled: reservation held until 09:00, then released",
          "total_price": "751.10", "loyalty_number": NORDUR}, request_id="nc-g-6620")
    mod, _, _ = t.do("car_modify", {"confirmation_number": "NCR-55210983", "pickup": "2025-06-13T08:15",
                                    "flight_tracking": "DL 246"}, None, "timeout",
                     idem="carmod-NCR-55210983-0815-DL246",
                     error={"code": "TIMEOUT", "message": "supplier system did not confirm within 30 s"})
    t.asst("The car reservation still tracks FI 630, and because that flight is cancelled Nordur would hold the car "
           "only until 09:00. I asked to move pickup to 08:15 and track DL 246, but the change timed out at the "
           "supplier, so it's not confirmed. Even unchanged, 07:20 landing plus customs gets you to the desk before "
           "09:00.")
    for q, a in [
        ("If the car isn't there at 8, what do we do?",
         "Go to the Nordur desk in the arrivals hall with the confirmation NCR-55210983; the terms hold a car booked "
         "on a cancelled tracked flight until 09:00. With a 07:20 landing and carry-on only you'd be there by about "
         "08:00; with checked bags, maybe 08:20. Even if they released the exact car, a desk can usually reassign "
         "one of the same class."),
        ("Chris should be able to drive too. Can he be added now?",
         "Additional drivers are free for one extra driver, but Nordur registers them at pickup: Chris needs to be at "
         "the desk with his licence. Nothing to do in advance."),
    ]:
        t.user(q)
        t.asst(a)
    t.user("Ugh. Ok. What else do we need to fix?")
    t.asst("Nothing else: the hotel (Kria, from June 13) and the return flight are unchanged. The open item is the car "
           "change. Your Saga numbers stay on the Icelandair return.")
    for q, a in [
        ("Will Delta let the kids sit with us for sure now?",
         "Yes, the seats are assigned in Delta's record HJ4W9P. Check them in the Fly Delta app 24 hours before; if a "
         "schedule change or aircraft swap happens, seats can move, and Delta's policy is to keep children under 13 "
         "next to an accompanying adult free of charge."),
        ("Do we check in with Delta or Icelandair?",
         "Delta for the outbound (record HJ4W9P), Icelandair for the return (K7RTQ2). Both open online check-in "
         "24 hours before departure."),
    ]:
        t.user(q)
        t.asst(a)
    t.user("Did the agency app update in the end? I want to make sure it shows the Delta flight.")
    _, _, ag3 = t.do("agency_get_trip", {"pnr": PNR},
                     agency_trip(out_status="HK", out_flight="DL 246", out_dep="2025-06-12T21:55-04:00",
                                 out_arr="2025-06-13T07:20+00:00", seats_out=("27B", "28B", "28A", "27A"),
                                 synced="2025-06-02T16:02:00Z", seats_ret=("24B", "25A", "24C", "24A"),
                                 ticket_note=["Segment 1 reissued onto DL 246 (involuntary, FI 630 cancelled)"]),
                     request_id="nw-t-40102")
    t.asst("Yes: the agency now shows Delta DL 246 on June 12 at 21:55 with your Delta seats, and a note that FI 630 "
           "was cancelled. The agency and the airline agree again.")
    t.user("And the car, did it go through?")
    t.decision("d6-car-open", [
        next_call("car_get_reservation", {"confirmation_number": "NCR-55210983"}, "re-checking the car needs its confirmation"),
        tool_state("unknown", "the car change timed out and nobody confirmed it", call_id=mod),
        pending("the car modification is unresolved", call_id=mod),
        fact("nordur_plus_number", NORDUR, "the club number typed once"),
        fact("pickup", "2025-06-13T07:00", "the modification is unconfirmed: the reservation still says 07:00",
             subject="confirmation_number=NCR-55210983"),
        constraint(nonref, "without asking me", "still true: nothing non-refundable is changed"),
    ])
    t.asst("Not confirmed yet: the supplier never answered the change request, and I haven't been able to verify it. "
           "The reservation is still there (NCR-55210983). Shall I call Nordur's desk or try checking again in an hour?")
    t.user("Check again in an hour. Give me a summary of the trip as it stands now.")
    t.decision("d7-summary", [
        evidence([chc, chr_], "the irreversible reissue and its result"),
        fact("delta_record_locator", "HJ4W9P", "the Delta locator for check-in"),
        tool_state("succeeded", "the Delta seats were confirmed by the status query", call_id=s2, request_id="dl-st-2207"),
        tool_state("unknown", "the car change is still open at the end", call_id=mod),
        constraint(kids, "next to one of us", "the summary should show each child beside a parent"),
    ], note="late: loyalty numbers, car and hotel ids are 60-100 events old")
    t.asst(f"Trip {PNR}:\n- Out: Delta DL 246, Thu June 12, BOS 21:55 → KEF 07:20 (Delta locator HJ4W9P). Seats: Nora "
           "27A + Megan 27B, Liam 28A + Chris 28B.\n- Back: Icelandair FI 631, Fri June 20, KEF 16:50 → BOS 18:40, seats "
           "Nora 24A, Megan 24B, Liam 24C, Chris 25A; Saga Club numbers on Megan and Chris.\n- Car: Nordur NCR-55210983, Dacia Duster 4x4 automatic with "
           "sand and ash, $751.10. Pickup change to 08:15 / DL 246 requested but NOT confirmed; the car is held until "
           "09:00 either way.\n- Hotels: Kria Reykjavík RVK-330918 (June 13-15, non-refundable, unchanged), Vík "
           "HV-2231-08 (June 15-17), Akureyri AK-77190 (June 17-19, non-refundable). The night of June 19 is still "
           "open.\n- Compensation: claim EU261 (€600 per person likely) from Icelandair after the trip.")
    t.user("Thanks, that's a relief.")
    t.asst("Glad it worked out. I'll check the car change in an hour.")
    return t
