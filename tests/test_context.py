"""pgctx.build_context (article 一.2, 八): the working context, inside a token budget.

Every check recomputes what it asserts from the returned messages: the section of each message
from its content, the tokens of each section with an independent TokenCounter, and the
call/output pairing of both the Chat Completions messages and the Responses input items.

The contexts here are the smallest (``fill=0``): summary, evidence and what the summary does not
cover. How the newest folded events fill the rest of the budget: tests/test_fold_fidelity.py.
"""

from __future__ import annotations

import re

import psycopg
import pytest
from psycopg.types.json import Jsonb

import pgctx
from pgctx.canonical import canonical_json
from pgctx.context import SECTIONS
from pgctx.errors import ContextOverBudget, ConversationNotFound
from pgctx.messages import note, summary_message
from pgctx.tokens import Budget, TokenCounter
from tests.events import EAGER, call, pasted, result

CID = "order-10086"
SYSTEM = "You are the order assistant. Never repeat a refund without its idempotency key."
CURRENT = "Did the refund go through, and when does 10086 arrive?"
COUNTER = TokenCounter("o200k_base")  # the default model's encoding (gpt-4o-mini)
EVIDENCE_NOTE = re.compile(r"^\[[a-z_]+ #\d+, kept raw: ")


def budget(limit: int) -> Budget:
    """A budget whose input_limit is exactly ``limit`` (evidence may take all of it: its share of B
    is tested in tests/test_fold_fidelity.py)."""
    return Budget(window=limit, fixed_input=0, output=0, reasoning=0, margin=0, evidence_share=1)


BIG = budget(1_000_000)


def add(conn, *events) -> list[int]:
    return [pgctx.append(conn, CID, kind, payload) for kind, payload in events]


def events_after(conn, cursor: int) -> list[tuple[int, str, dict]]:
    return conn.execute("SELECT seq, kind, payload FROM pgctx.events WHERE conversation_id = %s AND seq > %s"
                        " ORDER BY seq", (CID, cursor)).fetchall()


# --------------------------------------------------------------------------------------------
# independent checks of a working context


def section_of(message: dict) -> str:
    content = message.get("content") or ""
    if message["role"] == "system" and content == SYSTEM:
        return "system"
    if message["role"] == "system" and content.startswith("Task: "):
        return "task"
    if message["role"] == "system" and content.startswith("[summary v"):
        return "summary"
    if message["role"] == "system" and EVIDENCE_NOTE.match(content):
        return "evidence"
    if message["role"] == "system" and content.startswith("[memory] "):
        return "memories"
    if message["role"] == "user" and content == CURRENT:
        return "current"
    return "events"


def check_sections(ctx: pgctx.WorkingContext) -> dict[str, list[dict]]:
    """Sections in order, each section's tokens recounted, the total their sum; returns the messages by section."""
    by_section: dict[str, list[dict]] = {name: [] for name in SECTIONS}
    order = [SECTIONS.index(section_of(m)) for m in ctx.messages]
    assert order == sorted(order), [SECTIONS[i] for i in order]
    for m in ctx.messages:
        by_section[section_of(m)].append(m)
    recount = {name: sum(COUNTER.message_tokens(m) for m in msgs) for name, msgs in by_section.items()}
    assert ctx.sections == recount
    assert ctx.total_tokens == sum(recount.values())
    assert ctx.total_tokens <= ctx.limit
    return by_section


def check_pairing(ctx: pgctx.WorkingContext) -> None:
    """Every call is followed at once by its output, and every output follows its call (chat and Responses)."""
    messages = ctx.messages
    for i, m in enumerate(messages):
        if m["role"] == "tool":
            before = messages[i - 1] if i else {}
            assert [c["id"] for c in before.get("tool_calls") or ()] == [m["tool_call_id"]], (i, m)
        for c in m.get("tool_calls") or ():
            after = messages[i + 1] if i + 1 < len(messages) else {}
            assert after.get("role") == "tool" and after.get("tool_call_id") == c["id"], (i, m)
    items = ctx.input_items
    assert len(items) == len(messages)
    for i, item in enumerate(items):
        if item.get("type") == "function_call_output":
            previous = items[i - 1] if i else {}
            assert previous.get("type") == "function_call" and previous["call_id"] == item["call_id"], (i, item)
            assert item["output"] == messages[i]["content"]
        if item.get("type") == "function_call":
            following = items[i + 1] if i + 1 < len(items) else {}
            assert following.get("type") == "function_call_output" and following["call_id"] == item["call_id"]
            assert item["name"] == messages[i]["tool_calls"][0]["function"]["name"]
        if "role" in item:
            assert item == {"role": messages[i]["role"], "content": messages[i]["content"]}


def check_unfolded_present(conn, ctx: pgctx.WorkingContext) -> None:
    """Every event after the committed cursor is in the events section, rendered as itself."""
    events = check_sections(ctx)["events"]
    for seq, kind, payload in events_after(conn, ctx.cursor):
        if kind in ("user", "assistant"):
            found = {"role": kind, "content": payload["text"]} in events
        elif kind == "tool_call":
            found = any(c["id"] == payload["call_id"] and json_args(c) == canonical_json(payload["arguments"])
                        for m in events for c in m.get("tool_calls") or ())
        elif kind in ("tool_result", "status_query"):
            body = canonical_json({k: v for k, v in payload.items() if k != "call_id"})
            as_output = {"role": "tool", "tool_call_id": payload["call_id"], "content": body}
            found = as_output in events or note(kind, payload, f" #{seq}") in events
        else:
            found = note(kind, payload) in events
        assert found, (seq, kind, payload)


def json_args(tool_call: dict) -> str:
    return tool_call["function"]["arguments"]


def check(conn, ctx: pgctx.WorkingContext) -> dict[str, list[dict]]:
    check_pairing(ctx)
    check_unfolded_present(conn, ctx)
    return check_sections(ctx)


# --------------------------------------------------------------------------------------------
# a conversation with every case


@pytest.fixture
def story(conn):
    """1-6 folded (risk: an irreversible refund that timed out), then 7-13 unfolded."""
    add(conn,
        ("user", pasted("move order 10086 to tomorrow and refund the delivery fee")),     # 1
        ("tool_call", call(1)),                                                        # 2
        ("tool_result", result(1, slot="morning")),                                    # 3
        ("assistant", {"text": "10086 now arrives tomorrow morning"}),                 # 4
        ("tool_call", call(2, tool="refund", effect="irreversible")),                  # 5
        ("tool_result", result(2, "timeout")))                                         # 6
    folded = pgctx.fold(conn, CID, budget=EAGER)
    assert folded.committed and folded.cursor == 6
    assert {t.cls for t in folded.triggers} >= {"risk"}
    add(conn,
        ("status_query", {"call_id": "call-2", "outcome": "not_performed", "authority": "refund"}),  # 7
        ("tool_call", call(3, tool="lookup", effect="read", key=False)),               # 8
        ("tool_result", result(3, eta="2026-09-02", log=None)),                        # 9
        ("tool_result", result(3, eta="2026-09-03", log=None)),                        # 10: a second answer
        ("tool_call", call(4, tool="send_invoice")),                                   # 11: no result yet
        ("user", {"text": "and please send the invoice"}),                             # 12
        ("fact", {"key": "invoice_email", "value": "a@example.com", "authority": "user"}))  # 13
    return conn


def test_sections_in_order_with_recounted_tokens(story):
    ctx = pgctx.build_context(story, CID, fill=0, budget=BIG, system=SYSTEM, current_message=CURRENT,
                              memories=["prefers morning deliveries", "lives on the 3rd floor"])
    by_section = check(story, ctx)
    assert list(ctx.sections) == list(SECTIONS)
    assert all(ctx.sections[name] > 0 for name in SECTIONS if name != "folded"), ctx.sections
    assert by_section["system"] == [{"role": "system", "content": SYSTEM}]
    assert by_section["current"] == [{"role": "user", "content": CURRENT}]
    assert [m["content"] for m in by_section["memories"]] == ["[memory] prefers morning deliveries",
                                                             "[memory] lives on the 3rd floor"]
    (summary,) = by_section["summary"]
    assert summary["content"].startswith("[summary v1 of events 1..6: what the omitted events established]\n")
    assert (ctx.version, ctx.cursor, ctx.limit, ctx.dropped_memories) == (1, 6, 1_000_000, 0)
    assert ctx.messages[0] == {"role": "system", "content": SYSTEM} and ctx.messages[-1]["content"] == CURRENT


def test_a_listings_rows_are_rendered_one_row_at_a_time_naming_the_row_once():
    def fact(key, value, seq=3, subject="calendar_id=primary"):
        return {"key": key, "value": value, "confidence": "confirmed", "authority": "cal_list", "status": "active",
                "source_event_ids": [seq], "subject": subject}
    summary = {"facts": [fact("date", "2024-10-17"), fact("items[0].id", "7hq2m1o0"), fact("items[1].id", "3k9av4p2"),
                         fact("items[0].start", "09:30"), fact("items[1].start", "14:00"), fact("status", "ok", seq=4)]}
    lines = summary_message(summary, 2, 4)["content"].splitlines()
    assert lines[1:] == ["Facts:",
                         "- [calendar_id=primary] cal_list #3: date = 2024-10-17; items[0].id = 7hq2m1o0, start = 09:30; "
                         "items[1].id = 3k9av4p2, start = 14:00",
                         "- [calendar_id=primary] cal_list #4: status = ok"]


def test_calls_and_outputs_are_paired(story):
    ctx = pgctx.build_context(story, CID, fill=0, budget=BIG)
    check(story, ctx)
    msgs = ctx.messages
    ids = [(m["tool_calls"][0]["id"] if m.get("tool_calls") else m.get("tool_call_id"), m["role"]) for m in msgs
           if m.get("tool_calls") or m["role"] == "tool"]
    # the folded refund's call comes back for its status answer; each call once, each with one output
    assert ids == [("call-2", "assistant"), ("call-2", "tool"), ("call-3", "assistant"), ("call-3", "tool"),
                   ("call-4", "assistant"), ("call-4", "tool")]
    outputs = {m["tool_call_id"]: m["content"] for m in msgs if m["role"] == "tool"}
    assert outputs["call-2"] == canonical_json({"outcome": "not_performed", "authority": "refund"})
    assert outputs["call-3"] == canonical_json({"outcome": "succeeded", "request_id": "req-3", "eta": "2026-09-02"})
    assert "no result is recorded" in outputs["call-4"]  # a call still waiting gets an output
    # the second answer to call-3 is a note, not a second output
    assert note("tool_result", result(3, eta="2026-09-03", log=None), " #10") in msgs
    assert [seq for seq, reason in ctx.evidence if "call of the result at seq 7" in reason] == [5]


def test_pinned_evidence_beside_the_summary_after_a_risk_fold(conn):
    add(conn,
        ("user", pasted("refund the delivery fee of 10086")),             # 1
        ("tool_call", call(1, tool="refund", effect="irreversible")),     # 2
        ("tool_result", result(1)),                                       # 3: succeeded, irreversible
        ("tool_call", call(2, tool="charge", effect="irreversible")),     # 4
        ("tool_result", result(2, "timeout")))                            # 5: unknown
    folded = pgctx.fold(conn, CID, budget=EAGER)
    assert folded.committed and folded.cursor == 5
    ctx = pgctx.build_context(conn, CID, fill=0, budget=BIG, system=SYSTEM)
    by_section = check(conn, ctx)
    reasons = dict(ctx.evidence)
    assert sorted(reasons) == [2, 3, 4, 5]
    assert "risk: irreversible side effect: refund (call call-1)" in reasons[2]
    assert "risk: irreversible side effect: refund (call call-1)" in reasons[3]
    assert "risk: unknown outcome: charge (call call-2)" in reasons[4] and "call call-2 is unknown" in reasons[4]
    assert by_section["summary"] and by_section["task"]  # beside the summary, never instead of it
    # each labelled with its seq and reason, less the name of its own call, which the event shows
    assert [m["content"].split("]")[0] for m in by_section["evidence"]] == [
        f"[{kind} #{seq}, kept raw: {reasons[seq].removesuffix(f' (call {call_id})')}" for seq, kind, call_id in
        ((2, "tool_call", "call-1"), (3, "tool_result", "call-1"), (4, "tool_call", "call-2"),
         (5, "tool_result", "call-2"))]
    assert by_section["evidence"][0]["content"].startswith(
        "[tool_call #2, kept raw: risk: irreversible side effect: refund] ")
    assert by_section["events"] == []


def test_unknown_calls_tracked_in_the_summary_stay_pinned(conn):
    add(conn,
        ("user", pasted("refund 10086")),                                  # 1
        ("tool_call", call(1, tool="refund", effect="write")),            # 2
        ("tool_result", result(1, "timeout")))                            # 3: unknown
    assert pgctx.fold(conn, CID, budget=EAGER).cursor == 3
    add(conn, ("user", pasted("any news?")), ("assistant", {"text": "still checking"}))     # 4, 5
    second = pgctx.fold(conn, CID, force=True)
    assert second.committed and second.cursor == 5
    summary = pgctx.committed_fold(conn, CID).summary
    assert summary["tool_state"]["call-1"]["status"] == "unknown"
    ctx = pgctx.build_context(conn, CID, fill=0, budget=BIG)
    check(conn, ctx)
    # the second fold had no risk trigger of its own: the first fold's unknown outcome is still live
    # (carried into the second fold's evidence), and the summary still tracks call-1 as unknown
    risk = "risk: unknown outcome: refund (call call-1) - ask the service by idempotency key k-1"
    assert dict(ctx.evidence) == {2: f"call call-1 is unknown; {risk}", 3: f"call call-1 is unknown; {risk}"}


def test_unknown_call_inherited_by_a_branch_stays_pinned(conn):
    """A branch continues its source's summary; a call that summary tracks as unknown is pinned
    in the branch's context as in the source's (its events live in the source's log)."""
    add(conn,
        ("user", pasted("refund 10086")),                                  # 1
        ("tool_call", call(1, tool="refund", effect="irreversible")),     # 2
        ("tool_result", result(1, "timeout")))                            # 3: unknown
    assert pgctx.fold(conn, CID, budget=EAGER).cursor == 3
    source = pgctx.build_context(conn, CID, fill=0, budget=BIG)
    assert [seq for seq, _ in source.evidence] == [2, 3]
    pgctx.fork_conversation(conn, CID, 3, "plan-b")
    branch = pgctx.build_context(conn, "plan-b", fill=0, budget=BIG)
    assert branch.cursor == 3 and "refund [order_id=10086] irreversible: unknown" in branch.messages[1]["content"]
    assert [seq for seq, _ in branch.evidence] == [2, 3], branch.evidence
    assert all("call call-1 is unknown" in reason for _, reason in branch.evidence)


def test_unfolded_events_all_present_at_every_fold_point(conn):
    """Append a conversation event by event, folding from time to time: at every step the
    context holds every unfolded event, pairs every call, and recounts to its sections."""
    script = [
        ("user", {"text": "check 10086, then move it"}),
        ("tool_call", call(1, tool="lookup", effect="read")),
        ("tool_call", call(2, tool="lookup_carrier", effect="read")),
        ("tool_result", result(2)),
        ("assistant", {"text": "the carrier is DHL"}),
        ("tool_result", result(1)),
        ("approval", {"approval_id": "a1", "status": "requested", "scopes_event": 1}),
        ("tool_call", call(3)),
        ("approval", {"approval_id": "a1", "status": "granted"}),
        ("tool_result", result(3, "timeout")),
        ("status_query", {"call_id": "call-3", "outcome": "succeeded", "request_id": "req-3b"}),
        ("tool_call", call(4, tool="notify")),
        ("phase_change", {"from": "planning", "to": "execution"}),
        ("tool_result", result(4, "failed", error="no phone number")),
        ("tool_result", result(4)),
        ("user", {"text": "thanks"}),
    ]
    folds = 0
    for n, (kind, payload) in enumerate(script, start=1):
        pgctx.append(conn, CID, kind, payload)
        if n % 3 == 0:
            folds += pgctx.fold(conn, CID, force=True).committed
        ctx = pgctx.build_context(conn, CID, fill=0, budget=BIG, system=SYSTEM, current_message=CURRENT)
        check(conn, ctx)
    assert folds >= 3


def test_a_conversation_without_a_fold_is_its_events(conn):
    add(conn, ("user", {"text": "hello"}), ("tool_call", call(1)))
    # an event appended through SQL has no stored token count: the context counts it itself
    conn.execute("SELECT pgctx.append_event(%s, 'assistant', %s)", (CID, Jsonb({"text": "appended by psql"})))
    assert conn.execute("SELECT tokens FROM pgctx.events WHERE seq = 3").fetchone() == (None,)
    ctx = pgctx.build_context(conn, CID, fill=0, budget=BIG)
    by_section = check(conn, ctx)
    assert (ctx.version, ctx.cursor, ctx.evidence) == (0, 0, [])
    assert [name for name in SECTIONS if by_section[name]] == ["events"]
    assert len(ctx.messages) == 4  # the user message, the call, its "no result" output, the psql event
    with pytest.raises(ConversationNotFound):
        pgctx.build_context(conn, "no-such-conversation")


# --------------------------------------------------------------------------------------------
# the budget


def test_mandatory_parts_over_the_limit_raise_with_the_exact_excess(story):
    # where it would not fit otherwise, evidence is shortened to notes before anything is refused,
    # and the notes keep less of their events' content: the mandatory minimum is smaller than every
    # piece of evidence as a note of its share (evidence_share 0), itself smaller than all raw
    def tight(limit: int) -> Budget:
        return Budget(window=limit, fixed_input=0, output=0, reasoning=0, margin=0, evidence_share=0)

    noted = pgctx.build_context(story, CID, fill=0, budget=tight(1_000_000), system=SYSTEM, current_message=CURRENT)
    assert noted.noted and noted.total_tokens < pgctx.build_context(story, CID, fill=0, budget=BIG, system=SYSTEM,
                                                                    current_message=CURRENT).total_tokens
    with pytest.raises(ContextOverBudget) as smallest:
        pgctx.build_context(story, CID, fill=0, budget=budget(1), system=SYSTEM, current_message=CURRENT)
    mandatory = smallest.value.over_by + 1
    assert mandatory < noted.total_tokens
    fits = pgctx.build_context(story, CID, fill=0, budget=budget(mandatory), system=SYSTEM, current_message=CURRENT)
    assert fits.total_tokens == fits.limit == mandatory  # (the share of B is all of it: shortened to fit)
    head = story.execute("SELECT head_seq FROM pgctx.conversations").fetchone()[0]
    for over in (1, 7, mandatory - 1):
        with pytest.raises(ContextOverBudget) as info:
            pgctx.build_context(story, CID, fill=0, budget=budget(mandatory - over), system=SYSTEM,
                                current_message=CURRENT, memories=["optional"])
        assert info.value.over_by == over
        assert f"{mandatory} tokens" in str(info.value)
    assert story.execute("SELECT head_seq FROM pgctx.conversations").fetchone()[0] == head  # nothing written
    # the default budget has room for it
    assert pgctx.build_context(story, CID).limit == Budget().input_limit


def test_memories_kept_while_they_fit_and_total_never_exceeds_the_limit(story):
    memories = ["prefers morning deliveries", "lives on the 3rd floor; the lift is often broken",
                "ok", "speaks Chinese and English; 把发票寄到公司地址", "VIP"]
    everything = pgctx.build_context(story, CID, fill=0, budget=BIG, system=SYSTEM, current_message=CURRENT,
                                     memories=memories)
    memory_messages = check(story, everything)["memories"]
    assert [m["content"] for m in memory_messages] == [f"[memory] {m}" for m in memories]
    cost = [COUNTER.message_tokens(m) for m in memory_messages]
    mandatory = everything.total_tokens - sum(cost)

    for limit in range(mandatory, mandatory + sum(cost) + 3):
        ctx = pgctx.build_context(story, CID, fill=0, budget=budget(limit), system=SYSTEM, current_message=CURRENT,
                                  memories=memories)
        room, expected = limit - mandatory, []
        for text, tokens in zip(memories, cost):  # in the given order, each while it fits
            if tokens <= room:
                expected.append(f"[memory] {text}")
                room -= tokens
        kept = check_sections(ctx)["memories"]
        assert [m["content"] for m in kept] == expected, limit
        assert ctx.dropped_memories == len(memories) - len(expected)
        assert ctx.total_tokens <= limit == ctx.limit
    full = pgctx.build_context(story, CID, fill=0, budget=budget(mandatory + sum(cost)), system=SYSTEM,
                               current_message=CURRENT, memories=memories)
    assert full.dropped_memories == 0 and full.total_tokens == full.limit


def test_fold_evidence_is_derived_at_insert_and_never_changes(conn):
    add(conn,
        ("user", pasted("refund 10086")),                                  # 1
        ("tool_call", call(1, tool="refund", effect="irreversible")),     # 2
        ("tool_result", result(1)))                                       # 3
    assert pgctx.fold(conn, CID, budget=EAGER).committed
    evidence = conn.execute("SELECT evidence FROM pgctx.checkpoints WHERE version = 1").fetchone()[0]
    refund = {"risk": {"risk": "irreversible", "call_id": "call-1"}, "seqs": [2, 3],
              "reason": "risk: irreversible side effect: refund (call call-1)"}
    assert evidence == [refund]
    # not even a superuser who bypasses nothing else can rewrite it
    with pytest.raises(psycopg.Error) as caught:
        conn.execute("UPDATE pgctx.checkpoints SET evidence = '[]' WHERE version = 1")
    assert caught.value.sqlstate == "PC112"
    # a value supplied at insert is replaced by the derived one (the fold of 4..5 has no risk of its
    # own, and carries the refund's: no subtask end or topic switch has closed it)
    add(conn, ("user", {"text": "thanks"}), ("assistant", {"text": "you are welcome"}))
    request = pgctx.fold_procedures.fold_request(conn, CID)
    summary = pgctx.BuiltinSummarizer().summarize(request)
    row = conn.execute(
        "INSERT INTO pgctx.checkpoints (conversation_id, version, phase, base_version, base_cursor, cursor, chain_hash,"
        " schema_version, summary, checksum, evidence)"
        " SELECT %s, 2, 'PREPARED', 1, 3, 5, e.hash, 2, %s, pgctx.checkpoint_checksum(2, 5, e.hash, %s), %s"
        " FROM pgctx.events e WHERE e.conversation_id = %s AND e.seq = 5 RETURNING evidence",
        (CID, Jsonb(summary), Jsonb(summary), Jsonb([{"seq": 1, "reason": "forged"}]), CID)).fetchone()
    assert row[0] == [refund]
