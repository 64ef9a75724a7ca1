"""03: messaging: organising a surprise party over group and direct threads."""

from lib import Traj, constraint, evidence, fact, next_call, pending, tool_state
from tools import pick

FILENAME = "03_surprise-party-messages.jsonl"

CONTACTS = [
    ("c_1001", "Rosa Bianchi", "Mom", "+1 917 555 0142", "rosa.bianchi@verizon.net"),
    ("c_1002", "Luigi Bianchi", "Dad", "+1 917 555 0143", "luigi.b@verizon.net"),
    ("c_1010", "Giulia Bianchi", "sister", "+1 646 555 0177", "giulia.bianchi@gmail.com"),
    ("c_1011", "Paolo Bianchi", "brother", "+1 718 555 0109", "pbianchi@fastmail.com"),
    ("c_1020", "Lucia Ferraro", "aunt (Mom's sister)", "+39 333 402 7781", "lucia.ferraro@libero.it"),
    ("c_1021", "Franco Bianchi", "uncle", "+1 201 555 0166", None),
    ("c_1030", "Sofia Ferraro", "cousin", "+39 340 991 2034", "sofia.ferraro@gmail.com"),
    ("c_1031", "Matteo Bianchi", "cousin", "+1 347 555 0191", "matteo.bianchi@outlook.com"),
    ("c_1040", "Nonna Teresa", "grandmother", "+1 917 555 0120", None),
    ("c_1050", "Anna Kowalski", "family friend", "+1 917 555 0188", "anna.k@gmail.com"),
    ("c_1051", "Father Dominic (St. Anthony's)", None, "+1 212 555 0135", "office@stanthonynyc.org"),
]


def contacts_result():
    out = []
    for cid, name, rel, phone, email in CONTACTS:
        c = {"contact_id": cid, "display_name": name, "phones": [{"type": "mobile", "number": phone}],
             "groups": ["Family"] + (["Favorites"] if cid in ("c_1001", "c_1010", "c_1011") else [])}
        if rel:
            c["relationship"] = rel
        if email:
            c["emails"] = [email]
        out.append(c)
    return {"query": "group:Family", "total": len(out), "contacts": out}


def threads_result(rng):
    rows = [
        ("th_0A11", "Famiglia Bianchi 🇮🇹", ["c_1001", "c_1002", "c_1010", "c_1011", "c_1040"], "Nonna: Chi viene domenica?", "2025-03-02T19:14:00-05:00", 0),
        ("th_0B52", "Siblings", ["c_1010", "c_1011"], "Paolo: ok so what are we doing for mom's 70th", "2025-03-03T08:41:00-05:00", 4),
        ("th_0C07", None, ["c_1010"], "Giulia: can you pick up the kids thursday?", "2025-03-02T21:03:00-05:00", 0),
        ("th_0C19", None, ["c_1001"], "Mom: Don't forget to call your aunt!", "2025-03-01T11:52:00-05:00", 1),
        ("th_0D33", "Work - Q2 launch", ["w_2201", "w_2202", "w_2203", "w_2207"], "Priyanka: deck is in the drive", "2025-03-03T08:02:00-05:00", 12),
        ("th_0D90", None, ["c_1050"], "Anna: Thanks for dinner!!", "2025-02-27T22:40:00-05:00", 0),
        ("th_0E15", "Cousins", ["c_1030", "c_1031", "c_1010", "c_1011"], "Sofia: foto dal matrimonio 📸", "2025-02-24T15:30:00-05:00", 0),
        ("th_0E48", None, ["c_1011"], "Paolo: you still have my drill", "2025-02-22T10:05:00-05:00", 0),
        ("th_0F02", "5-a-side Thursdays", ["f_301", "f_302", "f_303", "f_304", "f_305", "f_306"], "Dev: pitch 3 this week", "2025-03-03T07:11:00-05:00", 3),
        ("th_0F66", None, ["c_1020"], "Lucia: Auguri! 🎉", "2025-01-18T06:30:00-05:00", 0),
        ("th_0F71", None, ["b_0091"], "Chase: Your statement is ready", "2025-03-01T09:00:00-05:00", 0),
        ("th_1003", "Building 41 Carmine tenants", ["n_11", "n_12", "n_13", "n_14"], "Super: water off Tues 10-2", "2025-02-28T17:25:00-05:00", 0),
        ("th_1019", None, ["c_1002"], "Dad: call me when you can", "2025-03-02T12:16:00-05:00", 0),
        ("th_1020", None, ["c_1031"], "Matteo: game tonight?", "2025-02-20T18:44:00-05:00", 0),
    ]
    out = []
    for tid, name, parts, last, when, unread in rows:
        d = {"thread_id": tid, "type": "group" if name else "direct", "participants": parts,
             "last_message_preview": last, "last_activity": when, "unread_count": unread,
             "muted": tid in ("th_0F02", "th_1003")}
        if name:
            d["name"] = name
        out.append(d)
    return {"threads": out, "has_more": True, "cursor": "eyJvZmZzZXQiOjE0fQ=="}


SIBLING_MSGS = [
    ("Paolo", "ok so what are we doing for mom's 70th. it's the 23rd right? sunday"),
    ("Giulia", "her birthday is sunday the 23rd but Sunday lunch is always at Nonna's, so Saturday night is better"),
    ("Paolo", "agreed. restaurant or someone's place? my apartment is too small for 15 people"),
    ("Giulia", "Restaurant. Da Enzo has that back room, she loves it, it's where they had their 40th anniversary"),
    ("Marco", "I can call them. what budget are we thinking"),
    ("Paolo", "I'd say 60 each for the three of us for the cake + decorations + flowers, the dinner people pay themselves? or we cover dad"),
    ("Giulia", "we cover mom and dad obviously. guests pay their own dinner is fine, it's family"),
    ("Marco", "ok. cake from Rocco's? she likes the cassata"),
    ("Giulia", "YES cassata. not the one with the rum though, Nonna can't have alcohol with her meds"),
    ("Paolo", "who's inviting zia Lucia? she'll want to fly in, she needs time to book"),
    ("Marco", "I'll do it with the group chat, she's on WhatsApp and iMessage both I think"),
    ("Giulia", "also DO NOT put it in the big family chat. mom reads everything there 😂"),
    ("Paolo", "lol yes. and Nonna can't keep a secret, tell her on the day"),
    ("Giulia", "Dad knows, I told him yesterday, he'll get her there by saying they're going for a quiet dinner"),
    ("Paolo", "perfect. Marco you're on the restaurant and invites, I'll do cake, Giulia flowers + photo slideshow"),
    ("Giulia", "I need old photos, ask zia Lucia to send some from Italy!!"),
    ("Paolo", "also do we do speeches? dad will cry"),
    ("Giulia", "short ones. dad, you and me max 2 min each. Paolo you do the toast, you're the funny one"),
    ("Paolo", "🙄 fine"),
    ("Marco", "what about a present from all of us? she keeps talking about going back to Sorrento"),
    ("Giulia", "omg yes. a trip voucher or we actually book something for her and dad in May?"),
    ("Paolo", "book it, vouchers end up in a drawer. I can look at flights, JFK-NAP, dad has miles too"),
    ("Marco", "let's not spend more than 1500 total on that, split 3 ways"),
    ("Giulia", "ok 500 each max. I'll ask zia Lucia if they can stay with her the first nights"),
    ("Paolo", "careful, Lucia talks to mom every day"),
    ("Giulia", "she'll be fine she kept the secret about my engagement for 2 months"),
    ("Marco", "lol true. ok I'll set up the group today"),
    ("Paolo", "👍 night"),
]


def sibling_thread(rng, page):
    msgs = []
    h, mi = 18, 2
    for i, (who, text) in enumerate(SIBLING_MSGS):
        mi += rng.randint(1, 9)
        if mi >= 60:
            mi -= 60
            h += 1
        sender = {"Paolo": "c_1011", "Giulia": "c_1010", "Marco": "me"}[who]
        msgs.append({"message_id": f"msg_0B{rng.randint(4096, 65535):04X}", "sender": sender,
                     "sent_at": f"2025-03-02T{h:02d}:{mi:02d}:00-05:00", "text": text,
                     "reactions": (["❤️ c_1010"] if i in (8, 12) else [])})
    if page == 1:
        return {"thread_id": "th_0B52", "name": "Siblings", "participants": ["me", "c_1010", "c_1011"],
                "messages": msgs[:16], "has_more": True, "cursor": "c2liOjE2"}
    return {"thread_id": "th_0B52", "name": "Siblings", "participants": ["me", "c_1010", "c_1011"],
            "messages": msgs[16:], "has_more": False}


FAMILY_CHAT = [
    ("c_1040", "Chi viene domenica? Faccio le lasagne"),
    ("c_1001", "Io e papà ci siamo sempre 😊"),
    ("c_1010", "We're coming! Tom too"),
    ("c_1011", "me too, Leah has a shift"),
    ("c_1040", "Marco?"),
    ("me", "Yes Nonna, I'll bring the wine"),
    ("c_1001", "Not the cheap one this time 😂"),
    ("c_1002", "Rosa leave him alone"),
    ("c_1001", "Did anyone hear from Lucia? She didn't answer my call yesterday"),
    ("c_1010", "she probably has a new phone again lol"),
    ("c_1001", "Also what are you all doing Saturday the 22nd? Papà says he's taking me to dinner, just us two, "
               "so don't make plans to come over 😘"),
    ("c_1011", "nothing planned, have fun!"),
    ("c_1040", "Che bello Luigi, finalmente romantico"),
    ("c_1002", "😎"),
    ("c_1001", "Marco you're quiet, are you coming Sunday for my birthday lunch at Nonna's?"),
]


def build() -> Traj:
    t = Traj(id="svc-surprise-party-messages", title="Surprise party invites: group thread, failed delivery, time change",
             exercises=["the message store and the carrier receipts disagree about delivery, settled by a re-read",
                        "a thread id and message ids returned by one tool and used many turns later",
                        "a phone number typed once and needed later",
                        "a send that times out, resolved by a status query; a delete that times out and stays unknown",
                        "a standing prohibition (never message Mom) that must survive the whole session",
                        "the party time corrected from 7pm to 6:30pm",
                        "topic switch to a restaurant question and back"],
             description="A user organises his mother's surprise 70th birthday: finds family contacts, creates a group "
                         "thread without her, sends invitations behind approvals, learns that one relative's number no "
                         "longer works, updates the contact, changes the time, schedules a reminder and deletes the "
                         "outdated invitation.",
             tools=pick("contacts_search", "contacts_get", "contacts_update", "threads_list", "thread_get",
                        "thread_create", "message_send", "message_get", "message_delivery_receipts",
                        "message_delete", "message_schedule"),
             seed=303)
    r = t.rng
    t.system("You are the messaging assistant on Marco Bianchi's phone. You can search contacts, read threads and "
             "send, schedule or delete messages. Every send needs Marco's approval; show him the exact text first.")
    t.user("Hey, I need help organising my mom's surprise 70th. First, who's in my Family contacts group?")
    t.do("contacts_search", {"query": "group:Family", "limit": 50}, contacts_result(), request_id="ct-q-0091")
    t.asst("Your Family group has 11 contacts: Rosa (Mom), Luigi (Dad), Giulia and Paolo, Aunt Lucia Ferraro (Italy, "
           "+39 333 402 7781), Uncle Franco, cousins Sofia (Italy) and Matteo, Nonna Teresa, Anna Kowalski and Father "
           "Dominic from St. Anthony's.")
    mom = t.user("Rule number one: Mom can't find out. Don't message her, don't add her to any group, don't send "
                 "anything to a thread she's in. Not even by accident.")
    t.fact("never_message", "c_1001", note="Rosa Bianchi (Mom): surprise party, no messages, no threads with her")
    t.asst("Got it: nothing to Rosa (c_1001), and no thread she's a member of, for the whole planning.")
    t.user("Is there already a thread with my siblings? I think we talked about this last night.")
    t.do("threads_list", {"limit": 14}, threads_result(r), request_id="th-l-2210")
    t.asst("Yes, 'Siblings' (th_0B52) with Giulia and Paolo, 4 unread. Note that 'Famiglia Bianchi 🇮🇹' (th_0A11) "
           "includes your mom, so I'll stay away from it.")
    t.user("Summarise what they said in Siblings.")
    sib_rng = __import__("random").Random(3031)
    t.do("thread_get", {"thread_id": "th_0B52", "limit": 16}, sibling_thread(sib_rng, 1), request_id="th-g-2231")
    t.do("thread_get", {"thread_id": "th_0B52", "limit": 16, "cursor": "c2liOjE2"},
         sibling_thread(__import__("random").Random(3031), 2), request_id="th-g-2232")
    t.asst("Last night's plan: Saturday evening (her birthday is Sunday the 23rd, and Sunday lunch is at Nonna's), at "
           "Da Enzo's back room. You're on the restaurant and invitations, Paolo on the cake (cassata from Rocco's, "
           "no rum because of Nonna's meds), Giulia on flowers and a photo slideshow (she wants old photos from "
           "Aunt Lucia). Budget about $60 each for cake, decorations and flowers; you three cover Mom and Dad, guests "
           "pay their own dinner. Dad knows and will bring her. Nonna is told on the day. And not a word in the big "
           "family chat. You also talked about a joint present: a May trip to Sorrento for your parents, at most "
           "$1,500 in total ($500 each); Paolo will look at JFK-Naples flights. Speeches: you, Giulia and Dad, two "
           "minutes each; Paolo does the toast.")
    t.user("Before the invites: Giulia says Mom asked something in the big family chat. What did she ask?")
    fam = []
    for i, (who, txt) in enumerate(FAMILY_CHAT):
        fam.append({"message_id": f"msg_0A{r.randint(4096, 65535):04X}", "sender": who,
                    "sent_at": f"2025-03-0{2 if i < 10 else 3}T{10 + i % 10:02d}:{r.randint(0, 59):02d}:00-05:00",
                    "text": txt})
    t.do("thread_get", {"thread_id": "th_0A11", "limit": 15},
         {"thread_id": "th_0A11", "name": "Famiglia Bianchi 🇮🇹", "participants": ["me", "c_1001", "c_1002", "c_1010",
                                                                                  "c_1011", "c_1040"],
          "messages": fam, "has_more": True}, request_id="th-g-2228")
    t.asst("Reading only, nothing sent there. Your mom asked what everyone's doing on Saturday the 22nd (Dad told her "
           "he's taking her to dinner, just the two of them), and she asked you directly whether you're coming to "
           "Sunday's birthday lunch at Nonna's. Paolo already answered 'nothing planned, have fun!'. She also "
           "mentioned Aunt Lucia didn't answer her call yesterday.")
    t.user("Ha, Dad's cover story is working. Reply to her for me: 'Yes Mamma, I'll be there Sunday! ❤️'")
    t.decision("d0-family-chat", [
        constraint(mom, "don't send anything to a thread she's in",
                   "the user asks for a send to Mom's thread: the standing rule says no, so the agent must ask"),
        fact("never_message", "c_1001", "Mom's contact id is on the do-not-message list"),
    ], note="the user's own request collides with his rule")
    t.asst("You asked me earlier not to send anything to a thread your mom is in, not even by accident, and "
           "Famiglia Bianchi is one. This reply is harmless, but do you want me to make an exception, or will you "
           "answer her yourself?")
    t.user("Good catch, keep the rule. I'll answer her myself. Now make a new group for the party: Giulia, Paolo, Dad, "
           "Aunt Lucia, Uncle Franco, Sofia and Matteo. Call it "
           "'Rosa 70 🤫'.")
    parts = ["c_1010", "c_1011", "c_1002", "c_1020", "c_1021", "c_1030", "c_1031"]
    tc, _, _ = t.do("thread_create", {"name": "Rosa 70 🤫", "participants": parts},
                    {"thread_id": "th_5F2Q9", "name": "Rosa 70 🤫", "participants": ["me"] + parts,
                     "created_at": "2025-03-03T09:12:44-05:00", "service": "iMessage/SMS mixed",
                     "sms_fallback_participants": ["c_1020", "c_1030", "c_1021"]},
                    idem="thread-rosa70-create", request_id="th-c-0032")
    t.asst("Created 'Rosa 70 🤫' (th_5F2Q9) with the seven of them. Aunt Lucia, Sofia and Uncle Franco will get it as "
           "SMS/RCS rather than iMessage.")
    inv = t.user("Send this: 'Hi all! Surprise party for Mum's 70th — Saturday 22 March, 7pm, in the back room at "
                 "Trattoria Da Enzo, 41 Carmine St. Please don't mention it to her! RSVP here by the 15th. Zia, Giulia "
                 "would love old photos for a slideshow ❤️'")
    t.fact("party_time", "19:00", subject={"event": "rosa70"})
    t.fact("party_venue", "Trattoria Da Enzo, 41 Carmine St", subject={"event": "rosa70"})
    t.decision("d1-send-invite", [
        next_call("message_send", {"thread_id": "th_5F2Q9"}, "the new thread's id came back from thread_create"),
        constraint(mom, "Don't message her", "the invite must not reach Mom's threads"),
        fact("never_message", "c_1001", "Mom's contact id is on the do-not-message list"),
    ], note="early")
    text1 = ("Hi all! Surprise party for Mum's 70th — Saturday 22 March, 7pm, in the back room at Trattoria Da Enzo, "
             "41 Carmine St. Please don't mention it to her! RSVP here by the 15th. Zia, Giulia would love old photos "
             "for a slideshow ❤️")
    s1, s1c = t.call("message_send", {"thread_id": "th_5F2Q9", "text": text1}, idem="send-th_5F2Q9-invite-01")
    t.approval("apr-send-invite", "requested", s1c, action="send invitation to Rosa 70 🤫 (7 people)")
    t.asst(f"To 'Rosa 70 🤫' (7 people, not including Mom):\n\n{text1}\n\nSend it?")
    t.user("Send.")
    t.approval("apr-send-invite", "granted", s1c)
    t.result(s1, "succeeded", {"message_id": "msg_A17F", "thread_id": "th_5F2Q9", "sent_at": "2025-03-03T09:14:02-05:00",
                               "status": "sent"}, request_id="ms-s-8812")
    t.asst("Sent (msg_A17F).")
    t.user("Did everybody get it?")
    _, _, rd1 = t.do("message_get", {"message_id": "msg_A17F"},
                     {"message_id": "msg_A17F", "thread_id": "th_5F2Q9", "status": "delivered", "recipients_total": 7,
                      "delivered_count": 7, "read_count": 3, "read_by": ["c_1010", "c_1011", "c_1002"],
                      "updated_at": "2025-03-03T09:16:40-05:00"}, request_id="ms-g-8820")
    t.asst("The message store shows it delivered to all 7, and Giulia, Paolo and Dad have read it.")
    t.user("Great. Totally different thing: does Da Enzo's back room hold 20? And do they do a set menu? I need to "
           "call them.")
    t.topic_switch("restaurant", previous="invitations")
    t.asst("I can't reach the restaurant's booking system from here, but from their site: the back room (Sala "
           "Grande) seats up to 24, and they offer set menus for groups of 12 or more (about $55 and $70 per person, "
           "with a cake fee waived if you bring a cake from a bakery). The phone number listed is (212) 555-0117. "
           "Ask whether they can open the room from 6:30, since the 7pm start leaves no setup time for decorations.")
    t.user("Ok I called. They only have the room 6:30 to 10:30, and they need final numbers by the 18th. Let me check "
           "who's replied.")
    t.topic_switch("invitations", previous="restaurant")
    replies = [
        ("c_1010", "09:20", "Obviously coming 😂 flowers sorted"), ("c_1011", "09:22", "👍 cake ordered at Rocco's, 20 people size"),
        ("c_1002", "09:31", "Sì. I will tell her we go for a quiet dinner. Not a word!"),
        ("c_1031", "10:05", "We'll be there! +1 (Hannah)"), ("c_1021", "10:42", "Franco + Maria, 2. Can we bring the kids? they're 9 and 12"),
        ("c_1030", "12:18", "Vengo!! I'm in NYC for work that week anyway 😍"),
    ]
    msgs = [{"message_id": "msg_A17F", "sender": "me", "sent_at": "2025-03-03T09:14:02-05:00", "text": text1}]
    for who, hm, txt in replies:
        msgs.append({"message_id": f"msg_{r.randint(0xA180, 0xAFFF):04X}", "sender": who,
                     "sent_at": f"2025-03-03T{hm}:00-05:00", "text": txt, "delivery": "received"})
    t.do("thread_get", {"thread_id": "th_5F2Q9", "limit": 30},
         {"thread_id": "th_5F2Q9", "name": "Rosa 70 🤫", "messages": msgs, "has_more": False}, request_id="th-g-2240")
    t.asst("Replies so far: Giulia yes, Paolo yes (cake for 20 ordered), Dad yes, Matteo + Hannah, Franco + Maria "
           "(asking about their kids, 9 and 12), Sofia yes. Nothing from Aunt Lucia yet.")
    t.user("That's weird, Lucia always answers in like a minute. Did she actually get it?")
    _, _, rd2 = t.do("message_delivery_receipts", {"message_id": "msg_A17F"},
                     {"message_id": "msg_A17F", "gateway": "carrier-sms-eu", "recipients_total": 7, "delivered_count": 6,
                      "receipts": [
                          {"contact_id": "c_1010", "channel": "imessage", "status": "read", "at": "2025-03-03T09:15:10-05:00"},
                          {"contact_id": "c_1011", "channel": "imessage", "status": "read", "at": "2025-03-03T09:15:48-05:00"},
                          {"contact_id": "c_1002", "channel": "imessage", "status": "read", "at": "2025-03-03T09:16:31-05:00"},
                          {"contact_id": "c_1031", "channel": "imessage", "status": "delivered", "at": "2025-03-03T09:14:05-05:00"},
                          {"contact_id": "c_1021", "channel": "rcs", "status": "delivered", "at": "2025-03-03T09:14:09-05:00"},
                          {"contact_id": "c_1030", "channel": "rcs", "status": "delivered", "at": "2025-03-03T09:14:21-05:00"},
                          {"contact_id": "c_1020", "channel": "sms", "status": "failed", "at": "2025-03-03T09:14:33-05:00",
                           "error": {"code": "30003", "description": "Unreachable destination handset: number not in service"}}]},
                     request_id="gw-r-5512")
    t.asst("No. The carrier gateway says a different thing from the message store: it counts 6 deliveries, not 7. "
           "The SMS to Aunt Lucia's +39 333 402 7781 failed with 'number not in service'. The message store "
           "apparently marked it delivered when it handed it to the gateway.")
    t.user("Ahh she changed her number in January! The new one is +39 347 118 2290. Update her contact and send her "
           "the invite directly.")
    t.fact("phone", "+39 347 118 2290", subject={"contact_id": "c_1020"})
    t.do("contacts_get", {"contact_id": "c_1020"},
         {"contact_id": "c_1020", "display_name": "Lucia Ferraro", "relationship": "aunt (Mom's sister)",
          "phones": [{"type": "mobile", "number": "+39 333 402 7781", "label": "cell"},
                     {"type": "home", "number": "+39 081 552 1190"}],
          "emails": ["lucia.ferraro@libero.it"], "address": "Via Toledo 212, 80134 Napoli, Italy",
          "birthday": "1958-06-02", "notes": "WhatsApp same number", "updated_at": "2023-11-05T10:02:00-05:00"},
         request_id="ct-g-0140")
    t.do("contacts_update", {"contact_id": "c_1020", "phones": [{"type": "mobile", "number": "+39 347 118 2290"},
                                                               {"type": "home", "number": "+39 081 552 1190"}]},
         {"contact_id": "c_1020", "phones": [{"type": "mobile", "number": "+39 347 118 2290"},
                                             {"type": "home", "number": "+39 081 552 1190"}],
          "updated_at": "2025-03-03T12:40:17-05:00"}, idem="ct-upd-c_1020-phone-01", request_id="ct-u-0141")
    dm, _, _ = t.do("thread_create", {"participants": ["c_1020"]},
                    {"thread_id": "th_5F3A0", "type": "direct", "participants": ["me", "c_1020"],
                     "service": "SMS", "created_at": "2025-03-03T12:40:40-05:00"},
                    idem="thread-dm-c_1020-01", request_id="th-c-0035")
    t.asst("Updated Lucia's mobile to +39 347 118 2290 (kept her home line) and opened a direct thread with her "
           "(th_5F3A0). Shall I send her the same invitation text?")
    t.user("Yes, same text, and add 'Ti chiamo stasera!' at the end. She's not in the group with the new number, "
           "so this is her copy.")
    text2 = text1 + " Ti chiamo stasera! — Marco"
    s2, s2c = t.call("message_send", {"thread_id": "th_5F3A0", "text": text2}, idem="send-th_5F3A0-invite-01")
    t.approval("apr-send-lucia", "requested", s2c, action="send invitation to Lucia Ferraro (+39 347 118 2290)")
    t.asst(f"To Aunt Lucia (+39 347 118 2290):\n\n{text2}\n\nSend?")
    t.user("Yes.")
    t.approval("apr-send-lucia", "granted", s2c)
    t.result(s2, "succeeded", {"message_id": "msg_B204", "thread_id": "th_5F3A0", "status": "sent",
                               "sent_at": "2025-03-03T12:42:05-05:00"}, request_id="ms-s-8850")
    t.asst("Sent to Lucia (msg_B204).")
    t.user("Now the time. The room is only from 6:30, so let's just start at 6:30 instead of 7. Tell the group, "
           "and tell Lucia too.")
    t.correction("party_time", "18:30", subject={"event": "rosa70"}, replaces="19:00")
    t.decision("d2-time-change", [
        next_call("message_send", {"thread_id": "th_5F2Q9"}, "the group thread id, returned many turns ago"),
        fact("party_time", "18:30", "the start time is corrected to 6:30", subject="event=rosa70",
             superseded=["19:00"]),
        fact("phone", "+39 347 118 2290", "Lucia's new number, typed once", subject="contact_id=c_1020"),
        evidence([rd1, rd2], "the store said 7 delivered, the gateway 6: both readings explain why Lucia is messaged "
                             "directly"),
    ])
    text3 = ("Small change: we're starting at 6:30pm, not 7 — the room is ours from 6:30, so come early and help "
             "decorate! Same place, Da Enzo, 41 Carmine St. Dad will bring Mum at 7:15.")
    s3, s3c = t.call("message_send", {"thread_id": "th_5F2Q9", "text": text3}, idem="send-th_5F2Q9-time-01")
    t.approval("apr-send-time", "requested", s3c, action="send time change to Rosa 70 🤫")
    t.asst(f"To 'Rosa 70 🤫':\n\n{text3}\n\nAnd I'll send Lucia a short version after. OK?")
    t.user("Perfect, send.")
    t.approval("apr-send-time", "granted", s3c)
    t.result(s3, "timeout", error={"code": "DEADLINE_EXCEEDED", "message": "send not acknowledged within 15 s"})
    t.asst("The send to the group timed out: I can't tell yet whether it went out. I won't resend until I've checked, "
           "or people get it twice.")
    t.user("Ok. Send Lucia hers meanwhile: 'Zia, cambio orario: 18:30 invece delle 19. Baci!'")
    s4, s4c = t.call("message_send", {"thread_id": "th_5F3A0", "text": "Zia, cambio orario: 18:30 invece delle 19. Baci!"},
                     idem="send-th_5F3A0-time-01")
    t.approval("apr-send-lucia-time", "requested", s4c, action="send time change to Lucia")
    t.asst("To Aunt Lucia: 'Zia, cambio orario: 18:30 invece delle 19. Baci!' Send?")
    t.user("Yep.")
    t.approval("apr-send-lucia-time", "granted", s4c)
    t.result(s4, "succeeded", {"message_id": "msg_B219", "thread_id": "th_5F3A0", "status": "sent",
                               "sent_at": "2025-03-03T12:51:30-05:00"}, request_id="ms-s-8861")
    t.asst("Sent to Lucia (msg_B219).")
    t.user("Did the group one go out in the end?")
    t.decision("d3-timed-out-send", [
        next_call("thread_get", {"thread_id": "th_5F2Q9"}, "looking for the message in the group thread"),
        tool_state("unknown", "the group time-change send timed out and was not checked yet", call_id=s3),
        pending("the group send is unresolved", call_id=s3),
        constraint(mom, "Not even by accident", "any resend still goes only to the party thread"),
    ])
    t.status_query(s3, "succeeded", request_id="ms-s-8859",
                   result={"message_id": "msg_B211", "thread_id": "th_5F2Q9", "status": "delivered",
                           "sent_at": "2025-03-03T12:47:12-05:00"}, checked_via="thread_get th_5F2Q9 (last 5)")
    t.asst("Yes: it's in the thread as msg_B211, sent at 12:47 and delivered. No resend needed.")
    t.user("Did all of them actually get it this time? Check the carrier side, not just the app.")
    t.do("message_delivery_receipts", {"message_id": "msg_B211"},
         {"message_id": "msg_B211", "gateway": "carrier-sms-eu", "recipients_total": 7, "delivered_count": 6,
          "receipts": [
              {"contact_id": "c_1010", "channel": "imessage", "status": "read", "at": "2025-03-03T12:47:40-05:00"},
              {"contact_id": "c_1011", "channel": "imessage", "status": "delivered", "at": "2025-03-03T12:47:13-05:00"},
              {"contact_id": "c_1002", "channel": "imessage", "status": "read", "at": "2025-03-03T12:49:02-05:00"},
              {"contact_id": "c_1031", "channel": "imessage", "status": "delivered", "at": "2025-03-03T12:47:14-05:00"},
              {"contact_id": "c_1021", "channel": "rcs", "status": "delivered", "at": "2025-03-03T12:47:19-05:00"},
              {"contact_id": "c_1030", "channel": "rcs", "status": "read", "at": "2025-03-03T12:58:51-05:00"},
              {"contact_id": "c_1020", "channel": "sms", "status": "failed", "at": "2025-03-03T12:47:25-05:00",
               "error": {"code": "30003", "description": "Unreachable destination handset: number not in service"}}]},
         request_id="gw-r-5540")
    t.asst("Six of seven again: the group still sends to Lucia's old number, so it fails for her. She has the change "
           "from your direct message (msg_B219), so she's covered; everyone else has it, and Giulia, Dad and Sofia have "
           "read it.")
    t.user("Lucia replied?")
    t.do("thread_get", {"thread_id": "th_5F3A0", "limit": 10},
         {"thread_id": "th_5F3A0", "participants": ["me", "c_1020"], "messages": [
             {"message_id": "msg_B204", "sender": "me", "text": text2, "sent_at": "2025-03-03T12:42:05-05:00",
              "delivery": "delivered"},
             {"message_id": "msg_B219", "sender": "me", "text": "Zia, cambio orario: 18:30 invece delle 19. Baci!",
              "sent_at": "2025-03-03T12:51:30-05:00", "delivery": "delivered"},
             {"message_id": "msg_B230", "sender": "c_1020", "sent_at": "2025-03-03T13:02:44-05:00",
              "text": "Marco!!! Che bella sorpresa. Sì vengo, prenoto il volo stasera con Sofia. Ho tante foto di "
                      "mamma da giovane, le mando a Giulia. Non dico niente a nessuno 🤐 Chiamami dopo le 21 ora "
                      "italiana."}], "has_more": False}, request_id="th-g-2260")
    t.asst("She's coming! She'll book a flight tonight (with Sofia), she has lots of old photos of your mom and will "
           "send them to Giulia, and she asks you to call after 9pm Italian time (3pm New York).")
    t.user("Aww. OK, the old 7pm invite in the group is now confusing. Delete it for everyone.")
    t.decision("d4-delete-old-invite", [
        next_call("message_delete", {"message_id": "msg_A17F"}, "the original invitation's id came back from the first send"),
        tool_state("succeeded", "the status query settled the group send", call_id=s3, request_id="ms-s-8859"),
    ])
    dl, _, _ = t.do("message_delete", {"message_id": "msg_A17F", "scope": "everyone"}, None, "timeout",
                    idem="del-msg_A17F-everyone",
                    error={"code": "TIMEOUT", "message": "unsend request pending with 3 of 7 recipients' devices"})
    t.asst("The delete-for-everyone request timed out: it can take a while for every device to acknowledge an "
           "unsend, especially the SMS/RCS recipients (SMS can't actually be recalled once delivered). I'll check it "
           "later.")
    t.user("Fine. Now, who's coming in total? I need to give Da Enzo numbers by the 18th.")
    t.asst("Confirmed: you, Giulia, Paolo, Dad, Mom (guest of honour), Matteo + Hannah, Franco + Maria (+ possibly 2 "
           "kids), Sofia and Aunt Lucia. That's 12 adults, 14 with Franco's kids. Plus partners: is Giulia's husband "
           "coming, and Paolo's girlfriend? Nonna makes 13/15 if she's told on the day and comes.")
    t.user("Yes Giulia's husband Tom and Paolo's girlfriend Leah, and Nonna. So 17 with the kids. Also Anna, Mom's best "
           "friend. Add Anna to the party group.")
    t.asst("I can't add people to an existing group with my tools; I can create a new group or message Anna directly "
           "with the details. Which do you prefer?")
    t.user("Just message her directly. Anna's thread exists already I think.")
    text5 = ("Hi Anna! We're throwing Mum a surprise 70th: Saturday 22 March, 6:30pm, back room at Trattoria Da Enzo, "
             "41 Carmine St. She'd love you there. Shh 🤫 — Marco")
    s5, s5c = t.call("message_send", {"thread_id": "th_0D90", "text": text5}, idem="send-th_0D90-invite-01")
    t.approval("apr-send-anna", "requested", s5c, action="send invitation to Anna Kowalski")
    t.asst(f"To Anna (th_0D90, your existing direct thread):\n\n{text5}\n\nSend?")
    t.user("Hold on, let me check with Giulia first whether Anna should come, she might tell Mom. Don't send yet.")
    t.asst("Holding: nothing sent to Anna until you say so.")
    t.user("While we wait: what's the status of the cake? Paolo said something in the group.")
    t.asst("Paolo wrote at 9:22 that the cake is ordered at Rocco's, 20-person size. From the Siblings chat: cassata, "
           "without rum because of Nonna's medication.")
    t.user("Can you find Rocco's number? I want to check the cake size with the new count.")
    t.do("contacts_search", {"query": "Rocco", "limit": 10},
         {"query": "Rocco", "total": 3, "contacts": [
             {"contact_id": "c_2210", "display_name": "Rocco's Pastry Shop", "phones": [{"type": "work", "number": "+1 212 555 0166"}],
              "address": "243 Bleecker St, New York, NY 10014", "notes": "cassata 48h notice; ask for Anthony"},
             {"contact_id": "c_2211", "display_name": "Rocco DiMaggio (plumber)", "phones": [{"type": "mobile", "number": "+1 917 555 0107"}]},
             {"contact_id": "c_3090", "display_name": "Rocco Santoro", "phones": [{"type": "mobile", "number": "+1 646 555 0150"}],
              "groups": ["5-a-side"]}]}, request_id="ct-q-0150")
    t.asst("Rocco's Pastry Shop, 243 Bleecker St: +1 212 555 0166 (your note says cassata needs 48h notice, ask for "
           "Anthony). Paolo ordered the 20-person size, which covers 17 people comfortably.")
    t.user("Let me see the party group again, I think more people answered.")
    later = [
        ("c_1010", "13:15", "Tom is coming too obviously. And the slideshow is at 40 photos already 📸"),
        ("c_1011", "13:20", "Leah is in 🎉 also who's doing balloons"),
        ("c_1021", "13:44", "Maria says the kids will behave 😂 we'll bring a card from everyone in New Jersey"),
        ("c_1031", "14:02", "Hannah asks if there's a dress code"),
        ("c_1010", "14:05", "no dress code but mom will be dressed up because dad said 'nice dinner' so don't come in gym clothes"),
        ("c_1002", "14:11", "I reserved a table for two at 7:15 as a cover, the restaurant knows. Rosa thinks it's only us."),
        ("c_1030", "14:30", "Zia Lucia and I land JFK on Thursday 20th, staying at the Washington Square Hotel"),
        ("c_1011", "14:31", "amazing. Marco did you tell Da Enzo about the cake?"),
        ("c_1021", "15:02", "Do we need to bring anything? Maria can make her sfogliatelle"),
        ("c_1010", "15:05", "yes please Maria!!! mom loves them"),
        ("c_1031", "15:40", "can someone send the address again? I lost the first message"),
        ("c_1011", "15:41", "41 Carmine St, 6:30, it's in the second message"),
        ("c_1002", "16:10", "I have told Nonna nothing. She asked why I am smiling"),
        ("c_1030", "16:22", "Marco can you add Nonna's caregiver Elena so she can bring her? she has a car"),
    ]
    lm = []
    for who, hm, txt in later:
        lm.append({"message_id": f"msg_{r.randint(0xB240, 0xBFFF):04X}", "sender": who,
                   "sent_at": f"2025-03-03T{hm}:00-05:00", "text": txt, "delivery": "received"})
    t.do("thread_get", {"thread_id": "th_5F2Q9", "limit": 20, "after": "2025-03-03T13:00:00-05:00"},
         {"thread_id": "th_5F2Q9", "name": "Rosa 70 🤫", "messages": lm, "has_more": False}, request_id="th-g-2270")
    t.asst("New in the group: Tom and Leah are coming, Giulia has 40 photos for the slideshow, Franco and Maria will "
           "bring sfogliatelle and a card, Dad booked a decoy table for two at 7:15 and the restaurant is in on it, "
           "Sofia and Aunt Lucia land at JFK on Thursday the 20th (Washington Square Hotel), Hannah asked about dress "
           "code (none, but not gym clothes), and Sofia suggests asking Elena, Nonna's caregiver, to drive Nonna. "
           "Someone also asked who's doing balloons.")
    t.user("Sofia's idea is good. Find Elena, Nonna's caregiver, and send her the details. She should bring Nonna "
           "for 7pm, and tell her not to say anything to Nonna until that morning.")
    t.do("contacts_search", {"query": "Elena", "limit": 10},
         {"query": "Elena", "total": 2, "contacts": [
             {"contact_id": "c_1041", "display_name": "Elena Marchetti (Nonna's aide)", "phones": [{"type": "mobile", "number": "+1 917 555 0161"}],
              "notes": "Mon-Sat, agency HomeCare Plus"},
             {"contact_id": "w_2240", "display_name": "Elena Park", "phones": [{"type": "work", "number": "+1 212 555 0199"}],
              "groups": ["Work"]}]}, request_id="ct-q-0152")
    ed, _, _ = t.do("thread_create", {"participants": ["c_1041"]},
                    {"thread_id": "th_5F3C4", "type": "direct", "participants": ["me", "c_1041"], "service": "iMessage",
                     "created_at": "2025-03-03T16:31:02-05:00"}, idem="thread-dm-c_1041-01", request_id="th-c-0039")
    text6 = ("Hi Elena, it's Marco, Teresa's grandson. We're having a surprise 70th for my mom Rosa on Saturday 22 "
             "March at Trattoria Da Enzo, 41 Carmine St. Could you bring Nonna for 7pm? Please don't tell her until "
             "that morning, she can't keep secrets 😊 We'll of course pay for your time and dinner.")
    s6, s6c = t.call("message_send", {"thread_id": "th_5F3C4", "text": text6}, idem="send-th_5F3C4-elena-01")
    t.approval("apr-send-elena", "requested", s6c, action="send party details to Elena Marchetti")
    t.asst(f"Found Elena Marchetti (Nonna's aide, c_1041) and opened a thread with her (th_5F3C4). Draft:\n\n{text6}\n\nSend?")
    t.user("Perfect, send.")
    t.approval("apr-send-elena", "granted", s6c)
    t.result(s6, "succeeded", {"message_id": "msg_C011", "thread_id": "th_5F3C4", "status": "sent",
                               "sent_at": "2025-03-03T16:32:40-05:00"}, request_id="ms-s-8930")
    t.asst("Sent to Elena (msg_C011).")
    t.user("Good. And remind me, what's the budget split we agreed?")
    t.asst("About $60 each from you, Giulia and Paolo for cake, decorations and flowers; the three of you cover Mom and "
           "Dad's dinner; guests pay their own. Separately, for a joint present (a May trip to Sorrento for your "
           "parents) you said at most $1,500 in total, $500 each.")
    t.user("Is the Anna message still waiting? And did the delete go through?")
    t.decision("d5-open-items", [
        next_call("message_get", {"message_id": "msg_A17F"}, "checking the delete needs the original invite id"),
        pending("the Anna invitation awaits approval (the user is asking Giulia)", approval_id="apr-send-anna"),
        tool_state("unknown", "the delete-for-everyone timed out and was not checked", call_id=dl),
        fact("party_time", "18:30", "any message to Anna uses the corrected time", subject="event=rosa70",
             superseded=["19:00"]),
    ])
    _, _, rd3 = t.do("message_get", {"message_id": "msg_A17F"},
                     {"message_id": "msg_A17F", "thread_id": "th_5F2Q9", "status": "delivered", "recipients_total": 7,
                      "delivered_count": 6, "read_count": 6, "failed": ["c_1020"],
                      "unsend": {"requested_at": "2025-03-03T13:10:04-05:00", "state": "in_progress",
                                 "acknowledged": 4, "pending": 2, "not_possible": 1}},
                     request_id="ms-g-8890")
    t.asst("Anna's message is still waiting for your go-ahead. The delete is still in progress: 4 devices have "
           "removed the old invitation, 2 haven't acknowledged yet, and 1 (Lucia's old SMS number) can't be recalled "
           "— it never arrived anyway. The store now also agrees with the gateway: 6 of 7 delivered, Lucia's failed.")
    t.user("Giulia says Anna is fine, she's the one keeping Mom busy that afternoon. Send it.")
    t.approval("apr-send-anna", "granted", s5c)
    t.result(s5, "succeeded", {"message_id": "msg_0DA4", "thread_id": "th_0D90", "status": "sent",
                               "sent_at": "2025-03-03T14:30:19-05:00"}, request_id="ms-s-8902")
    t.asst("Sent to Anna (msg_0DA4).")
    for q, a in [
        ("What time is it in Naples right now? I need to call Lucia after 9 her time.",
         "It's 8:31pm in Naples. Today Italy is 6 hours ahead of New York (from March 9, when the US moves to "
         "daylight time, until Italy follows on March 30, the gap is 5 hours). So call her after 3pm New York time "
         "today."),
        ("Ok. Also what should the slideshow song be, she loves Mina",
         "'Grande, grande, grande' or 'Parole parole' are the obvious Mina picks; 'Se telefonando' if you want "
         "something that builds. For a 70th, 'Grande, grande, grande' under the old photos is hard to beat."),
        ("Haha perfect. Giulia asks if Franco's kids count for the restaurant numbers",
         "Da Enzo's group menu is per person; most places charge a children's menu for under-12s. Franco's are 9 and "
         "12, so likely one kid's menu and one adult. I'd tell them 16 adults + 1 child and confirm the kids' price "
         "when you call."),
    ]:
        t.user(q)
        t.asst(a)
    t.user("Schedule a reminder in the group for Friday the 21st at 10am: 'Tomorrow! 6:30pm at Da Enzo, don't be late, "
           "Dad brings Mum at 7:15 🎉'")
    t.decision("d6-schedule-reminder", [
        next_call("message_schedule", {"thread_id": "th_5F2Q9"}, "the group id is 60+ events old"),
        constraint(mom, "don't add her to any group", "the reminder goes to the thread without Mom"),
        fact("delivered_count", 6, "the store's re-read now matches the gateway: 6 of 7",
             subject="message_id=msg_A17F", superseded=[7]),
    ])
    sc, _, _ = t.do("message_schedule", {"thread_id": "th_5F2Q9", "send_at": "2025-03-21T10:00:00-04:00",
                                         "text": "Tomorrow! 6:30pm at Da Enzo, don't be late, Dad brings Mum at 7:15 🎉"},
                    {"scheduled_id": "sch_77C1", "thread_id": "th_5F2Q9", "send_at": "2025-03-21T10:00:00-04:00",
                     "status": "scheduled"}, idem="sched-th_5F2Q9-20250321-1000", request_id="ms-sc-0071")
    t.asst("Scheduled (sch_77C1) for Friday March 21 at 10:00 in 'Rosa 70 🤫'. Note that's after the clocks change, "
           "so 10:00 EDT.")
    t.user("Last thing: give me a checklist of where everything stands.")
    t.decision("d7-checklist", [
        tool_state("unknown", "the delete is still in progress, not done", call_id=dl),
        fact("party_venue", "Trattoria Da Enzo, 41 Carmine St", "the venue typed once", subject="event=rosa70"),
        evidence([rd2, rd3], "the gateway's failure and the store's later agreement, both visible"),
        constraint(mom, "Mom can't find out", "the checklist's last item: keep it from Mom"),
    ], note="late: the ids and the rule are 90+ events old")
    t.asst("Checklist:\n- Party: Sat 22 March, 6:30pm (Mum arrives 7:15 with Dad), back room at Trattoria Da Enzo, 41 "
           "Carmine St; numbers due to the restaurant by the 18th (about 16 adults + 1 child).\n- Group 'Rosa 70 🤫' "
           "(th_5F2Q9): invite sent, time change sent (msg_B211), reminder scheduled Fri 21 at 10:00 (sch_77C1). The "
           "old 7pm invite's delete is still in progress.\n- Aunt Lucia: new number saved, invited directly, coming "
           "with Sofia; call her after 3pm NY time.\n- Anna invited directly.\n- Cake: Paolo (Rocco's cassata, no "
           "rum). Flowers + slideshow: Giulia.\n- Nothing has gone to Mom or to the Famiglia Bianchi chat.")
    t.user("You're a lifesaver.")
    t.asst("Happy to help. Buon compleanno to your mom!")
    return t
