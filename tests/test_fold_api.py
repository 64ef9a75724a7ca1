"""pgctx.fold (article 三, 四, 八, 十六): when a fold is due, where it may end, what the summarizer
sees, what a failure leaves behind, how racing folders end, and the same API on every target.

Triggers and boundaries are derived in SQL (sql/160_fold_triggers.sql); each test reads them both
through SQL and through FoldResult. Failure tests snapshot every table a fold could touch and
require it unchanged.
"""

from __future__ import annotations

import asyncio
import threading

import psycopg
import pytest
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool, ConnectionPool

import pgctx
from pgctx import errors
from pgctx.fold_loop import Trigger, summary_tokens
from pgctx.summary import SCHEMA_VERSION
from pgctx.messages import event_message
from pgctx.summarizers import BuiltinSummarizer, FoldRequest
from pgctx.tokens import Budget
from pgctx.tokens import Budget, TokenCounter
from tests.events import EAGER, LOG, call, pasted, result

CID = "order-10086"
COUNTER = TokenCounter("o200k_base")  # the default model's encoding (gpt-4o-mini)
LOCK_KEY = "SELECT pg_try_advisory_xact_lock(hashtextextended('pgctx:fold:' || %s, 0))"


def budget(threshold: int) -> Budget:
    """A budget whose capacity threshold αB is exactly ``threshold`` (no raw tail: folds reach the head)."""
    return Budget(window=threshold, fixed_input=0, output=0, reasoning=0, margin=0, alpha=1, raw_tail=0)


def add(conn, *events, cid: str = CID) -> list[int]:
    return [pgctx.append(conn, cid, kind, payload) for kind, payload in events]


def head(conn, cid: str = CID) -> int:
    return conn.execute("SELECT head_seq FROM pgctx.conversations WHERE conversation_id = %s", (cid,)).fetchone()[0]


def sql_triggers(conn, cid: str = CID, capacity: int | None = None) -> set[tuple]:
    rows = conn.execute("SELECT trigger_class, reason, evidence FROM pgctx.fold_triggers(%s, %s)",
                        (cid, capacity)).fetchall()
    return {(c, r, tuple(e)) for c, r, e in rows}


def as_set(triggers) -> set[tuple]:
    return {(t.cls, t.reason, t.evidence) for t in triggers}


def checkpoints(conn, cid: str = CID) -> list[tuple]:
    return conn.execute("SELECT version, phase, base_version, base_cursor, cursor, discard_reason"
                        " FROM pgctx.checkpoints WHERE conversation_id = %s ORDER BY version", (cid,)).fetchall()


def snapshot(conn) -> dict[str, list[tuple]]:
    """Everything a fold could write."""
    return {
        "checkpoints": conn.execute("SELECT conversation_id, version, phase, base_version, base_cursor, cursor,"
                                    " summary::text, checksum, discard_reason, decided_at"
                                    " FROM pgctx.checkpoints ORDER BY 1, 2").fetchall(),
        "fold_heads": conn.execute("SELECT * FROM pgctx.fold_heads ORDER BY 1").fetchall(),
        "events": conn.execute("SELECT conversation_id, seq, kind, payload::text, hash, tokens"
                               " FROM pgctx.events ORDER BY 1, 2").fetchall(),
        "verified_points": conn.execute("SELECT * FROM pgctx.verified_points ORDER BY 1").fetchall(),
    }


class Recording:
    """A summarizer wrapping BuiltinSummarizer that records every request (and can misbehave)."""

    id = "recording/1"

    def __init__(self, change=None):
        self.requests: list[FoldRequest] = []
        self.change = change

    def summarize(self, request: FoldRequest):
        self.requests.append(request)
        candidate = BuiltinSummarizer().summarize(request)
        return self.change(candidate, request) if self.change else candidate


# --------------------------------------------------------------------------------------------
# due or not, and the capacity trigger


def test_not_due_writes_nothing_and_force_folds(conn):
    add(conn, ("user", pasted("what is the status of order 10086? here is what the carrier sent")),
        ("assistant", {"text": "let me look"}), ("user", {"text": "thanks"}))
    h = conn.execute("SELECT sum(tokens) FROM pgctx.events").fetchone()[0]
    before = snapshot(conn)

    idle = pgctx.fold(conn, CID)

    assert not idle.committed and "not due" in idle.reason
    assert (idle.version, idle.cursor, idle.triggers, idle.attempts) == (0, 0, (), 1)
    assert idle.tokens_before == idle.tokens_after == h
    assert snapshot(conn) == before and before["checkpoints"] == [] and before["fold_heads"] == []

    forced = pgctx.fold(conn, CID, force=True)
    assert forced.committed and forced.reason == "committed"
    assert (forced.version, forced.cursor, forced.previous_version, forced.previous_cursor) == (1, 3, 0, 0)
    assert (forced.attempts, forced.summarizer, forced.conflicts, forced.triggers) == (1, "pgctx-builtin/2", [], ())
    assert forced.policy == "forced" and idle.policy == idle.reason == (
        f"not due: summary, evidence and history ({h} tokens) are under the floor {Budget().floor} that structural "
        "and risk triggers wait for")
    assert checkpoints(conn) == [(1, "COMMITTED", 0, 0, 3, None)]
    # after the fold: the summary's task state and summary message, nothing unfolded (and, with
    # the rest of the budget to fill, the folded events raw beside it: not asked for here)
    ctx = pgctx.build_context(conn, CID, fill=0)
    assert forced.tokens_after == ctx.sections["task"] + ctx.sections["summary"] == ctx.total_tokens
    assert not pgctx.fold(conn, CID, force=True).committed  # nothing left to fold
    with pytest.raises(errors.ConversationNotFound):
        pgctx.fold(conn, "no-such-conversation")
    with pytest.raises(ValueError):
        pgctx.fold(conn, CID, attempts=0)


def test_token_sum_is_stored_at_append_and_summed_in_sql(conn):
    events = [("user", {"text": "把订单 10086 改成明天送达"}), ("tool_call", call(1)), ("tool_result", result(1)),
              ("fact", {"key": "order_id", "value": "10086"}), ("assistant", {"text": "Done."})]
    add(conn, *events)
    stored = conn.execute("SELECT kind, payload, tokens FROM pgctx.events ORDER BY seq").fetchall()
    for (kind, payload), (stored_kind, stored_payload, tokens) in zip(events, stored):
        assert (stored_kind, stored_payload) == (kind, payload)
        assert tokens == COUNTER.message_tokens(event_message(kind, payload)), kind
    assert stored[0][2] == 4 + COUNTER.count("把订单 10086 改成明天送达") == 16
    assert stored[1][2] == 4 + COUNTER.count("update_order") + COUNTER.count('{"order_id": "10086"}')
    h = sum(t for *_, t in stored)
    assert conn.execute("SELECT unfolded_tokens FROM pgctx.fold_status(%s)", (CID,)).fetchone()[0] == h
    assert conn.execute("SELECT sum(tokens) FROM pgctx.events WHERE conversation_id = %s", (CID,)).fetchone()[0] == h
    assert pgctx.fold(conn, CID, force=True).tokens_before == h
    # an event appended through SQL has no count: the capacity reason says so instead of guessing;
    # the committed summary's stored count is part of the history's size
    conn.execute("SELECT pgctx.append_event(%s, 'user', %s)", (CID, Jsonb({"text": "from psql"})))
    s = conn.execute("SELECT tokens FROM pgctx.checkpoints WHERE conversation_id = %s", (CID,)).fetchone()[0]
    assert s > 0
    assert sql_triggers(conn, capacity=-1) == {
        ("capacity", f"summary and evidence plus unfolded history are {s} + 0 = {s} tokens, over the threshold -1"
                     " (1 events have no token count)", ())}


def test_capacity_trigger_fires_over_alpha_b(conn):
    add(conn, *[("user", pasted(f"message {i} about order 10086")) for i in range(6)])
    h = conn.execute("SELECT sum(tokens) FROM pgctx.events").fetchone()[0]
    before = snapshot(conn)

    at = pgctx.fold(conn, CID, budget=budget(h))  # H = αB: not over
    assert not at.committed and at.triggers == () and snapshot(conn) == before
    assert sql_triggers(conn, capacity=h) == set()

    capacity = ("capacity", f"unfolded history is {h} tokens, over the threshold {h - 1}", ())
    assert sql_triggers(conn, capacity=h - 1) == {capacity}
    half = Budget(window=2 * h - 1, fixed_input=0, output=0, reasoning=0, margin=0, alpha=0.5, raw_tail=0)
    assert half.threshold == h - 1
    over = pgctx.fold(conn, CID, budget=half)
    assert over.committed and over.cursor == 6
    assert over.triggers == (Trigger(*capacity),)
    assert over.tokens_before == h


# --------------------------------------------------------------------------------------------
# structural and risk triggers, with their evidence


STRUCTURAL = {
    "tool-chain": ([("tool_call", call(1)), ("tool_result", result(1))],
                   {("structural", "tool chain completed: 1 call(s) answered, none waiting", (3,))}),
    "subtask": ([("subtask_end", {"text": "address verified"})],
                {("structural", "subtask ended: address verified", (2,))}),
    "topic": ([("topic_switch", {"topic": "invoices"})], {("structural", "topic switched to invoices", (2,))}),
    "phase": ([("phase_change", {"from": "planning", "to": "execution"})],
              {("structural", "phase changed: planning -> execution", (2,))}),
    "fact": ([("fact", {"key": "order_id", "value": "10086"})], {("structural", "fact confirmed: order_id", (2,))}),
    "correction": ([("correction", {"key": "delivery_date", "value": "2026-09-05"})],
                   {("structural", "fact corrected: delivery_date", (2,))}),
    "granted": ([("approval", {"approval_id": "a1", "status": "requested"}),
                 ("approval", {"approval_id": "a1", "status": "granted"})],
                {("structural", "approval a1 granted", (3,))}),
    "denied": ([("approval", {"approval_id": "a2", "status": "denied"})], {("structural", "approval a2 denied", (2,))}),
    "merge": ([("branch_merge", {"mainline": "b"})], {("structural", "branches merged", (2,))}),
    # not triggers
    "requested": ([("approval", {"approval_id": "a3", "status": "requested"})], set()),
    "chat": ([("assistant", {"text": "ok"})], set()),
    "verified": ([("verification", {"ok": True, "what": "address"})], set()),
    "waiting": ([("tool_call", call(1))], set()),
}


def test_structural_triggers_with_reason_and_evidence(conn):
    for name, (events, expected) in STRUCTURAL.items():
        add(conn, ("user", pasted(f"case {name}")), *events, cid=name)
        assert sql_triggers(conn, name) == expected, name
        done = pgctx.fold(conn, name, budget=EAGER)
        assert as_set(done.triggers) == expected, name
        assert done.committed == bool(expected), name
        if expected:
            assert done.cursor == head(conn, name)


def test_risk_triggers_with_reason_and_evidence(conn):
    conn.execute("SELECT pgctx.declare_tool('close_account', 'irreversible')")  # effect from the registry
    cases = {
        "irreversible": ([("tool_call", call(1, tool="refund", effect="irreversible")), ("tool_result", result(1))],
                         {("risk", "irreversible side effect: refund (call call-1)", (2, 3))}),
        "declared": ([("tool_call", call(1, tool="close_account")), ("tool_result", result(1))],
                     {("risk", "irreversible side effect: close_account (call call-1)", (2, 3))}),
        "permission": ([("permission", {"text": "the caller is the account owner"})],
                       {("risk", "permission or identity conclusion: the caller is the account owner", (2,))}),
        "contradiction": ([("tool_call", call(1)), ("tool_result", result(1)), ("tool_result", result(1, "failed"))],
                          {("risk", "contradictory results for call call-1: failed vs succeeded", (3, 4))}),
        "cancel-vs-ok": ([("tool_call", call(1)), ("tool_result", result(1, "cancelled")),
                          ("status_query", {"call_id": "call-1", "outcome": "succeeded"})],
                         {("risk", "contradictory results for call call-1: cancelled vs succeeded", (3, 4))}),
        "timeout": ([("tool_call", call(1)), ("tool_result", result(1, "timeout"))],
                    {("risk", "unknown outcome: update_order (call call-1) - ask the service by idempotency key k-1",
                      (2, 3))}),
        "no-key": ([("tool_call", call(1, key=False)), ("tool_result", result(1, "timeout"))],
                   {("risk", "unknown outcome: update_order (call call-1) - ask the service by idempotency key (none)",
                     (2, 3))}),
        "verification": ([("verification", {"ok": False, "what": "address check"})],
                         {("risk", "verification failed: address check", (2,))}),
        # failed, then the service says it did not act: the same answer, no contradiction
        "consistent": ([("tool_call", call(1)), ("tool_result", result(1, "failed")),
                        ("status_query", {"call_id": "call-1", "outcome": "not_performed"})], set()),
    }
    for name, (events, expected) in cases.items():
        add(conn, ("user", pasted(f"case {name}")), *events, cid=name)
        risks = {t for t in sql_triggers(conn, name) if t[0] == "risk"}
        assert risks == expected, name
        done = pgctx.fold(conn, name, budget=EAGER)
        assert {t for t in as_set(done.triggers) if t[0] == "risk"} == expected, name
        if expected:
            assert done.committed, name

    # a call left running across a restart: recovery, and an unknown outcome without an answer
    add(conn, ("user", pasted("case recovery")), ("tool_call", call(1)), cid="recovery")
    assert pgctx.recover(conn, "recovery")["recovery_event_seq"] == 3
    expected = {("risk", "restart recovery", (3,)),
                ("risk", "unknown outcome: update_order (call call-1) - ask the service by idempotency key k-1", (2,))}
    assert {t for t in sql_triggers(conn, "recovery") if t[0] == "risk"} == expected
    done = pgctx.fold(conn, "recovery", budget=EAGER)
    assert done.committed and {t for t in as_set(done.triggers) if t[0] == "risk"} == expected


def test_trigger_evidence_is_always_event_seqs(conn):
    """Evidence names events: a call that became unknown at a recovery has no answer to cite."""
    add(conn, ("user", {"text": "case recovery"}), ("tool_call", call(1)))
    pgctx.recover(conn, CID)
    for trigger in pgctx.fold(conn, CID, budget=EAGER).triggers:
        assert trigger.evidence and all(isinstance(seq, int) and 1 <= seq <= 3 for seq in trigger.evidence), trigger


# --------------------------------------------------------------------------------------------
# where a fold may end


def test_a_waiting_call_is_folded_tracked_and_kept_raw_until_its_result_brings_it_back(conn):
    add(conn, ("user", pasted("move 10086 and 20086")),           # 1
        ("tool_call", call(1)),                                    # 2: waiting
        ("tool_call", call(2)), ("tool_result", result(2)),         # 3, 4
        ("assistant", {"text": "one done, one in flight"}))        # 5
    assert conn.execute("SELECT pgctx.fold_boundary(%s)", (CID,)).fetchone()[0] == 5
    first = pgctx.fold(conn, CID, force=True)
    assert first.committed and first.cursor == 5
    summary = pgctx.committed_fold(conn, CID).summary
    status = summary["tool_state"]["call-1"]["status"]
    assert status in ("planned", "running") and summary["tool_state"]["call-2"]["status"] == "succeeded"
    assert any("call-1" in p["action"] for p in summary["pending"])
    ctx = pgctx.build_context(conn, CID, fill=0)
    assert dict(ctx.evidence) == {2: f"call call-1 is {status}"}  # raw beside the summary while it waits
    assert [seq for seq, _, _ in ctx.events] == [2]

    add(conn, ("tool_result", result(1)))                          # 6
    ctx = pgctx.build_context(conn, CID, fill=0)
    # the answer brings its call: adjacent, in that order
    calls = [i for i, m in enumerate(ctx.messages) if m.get("tool_calls")]
    assert [ctx.messages[i]["tool_calls"][0]["id"] for i in calls] == ["call-1"]
    assert ctx.messages[calls[0] + 1]["tool_call_id"] == "call-1"
    recorder = Recording()
    second = pgctx.fold(conn, CID, summarizer=recorder, budget=EAGER)
    assert second.committed and (second.previous_cursor, second.cursor) == (5, 6)
    assert [e.seq for e in recorder.requests[0].events] == [6]
    state = pgctx.committed_fold(conn, CID).summary["tool_state"]
    assert {k: (v["status"], v["source_event_ids"]) for k, v in state.items()} == {
        "call-1": ("succeeded", [2, 6]), "call-2": ("succeeded", [3, 4])}
    assert pgctx.build_context(conn, CID, fill=0).evidence == []  # answered: nothing left raw


def test_an_approval_is_never_separated_from_the_goal_it_scopes(conn):
    add(conn, ("user", pasted("hello")),                                                   # 1
        ("user", {"text": "refund the delivery fee of 10086"}),                            # 2: the goal
        ("assistant", {"text": "I need approval"}),                                        # 3
        ("tool_call", call(1, tool="lookup", effect="read")),                             # 4: waiting
        ("approval", {"approval_id": "a1", "status": "requested", "scopes_event": 2}))     # 5
    # a fold of 1..3 would separate the approval (5) from its goal (2): to 3 is to 1 (to 5 keeps them)
    assert conn.execute("SELECT pgctx.fold_boundary(%s), pgctx.fold_boundary(%s, 3)", (CID, CID)).fetchone() == (5, 1)
    first = pgctx.fold(conn, CID, force=True)
    assert first.committed and first.cursor == 5
    add(conn, ("tool_result", result(1)),                                                  # 6
        ("approval", {"approval_id": "a1", "status": "granted"}))                          # 7
    second = pgctx.fold(conn, CID, budget=EAGER)
    assert second.committed and second.cursor == 7
    for version, *_, cursor, _ in checkpoints(conn):
        assert not 2 <= cursor < 5, f"fold {version} ends at {cursor}, between the goal and its approval"


def test_only_a_waiting_call_unfolded_is_not_committed(conn):
    # folded, it would stay raw beside the summary (tracked, pending): no smaller, so not folded
    add(conn, ("user", pasted("refund 10086")))
    assert pgctx.fold(conn, CID, force=True).cursor == 1
    add(conn, ("tool_call", call(1, tool="refund", effect="irreversible")))
    before = snapshot(conn)
    for forced, why in ((False, "not due"), (True, "would not make the context smaller")):
        waiting = pgctx.fold(conn, CID, force=forced)
        assert not waiting.committed and why in waiting.reason, waiting.reason
        assert (waiting.version, waiting.cursor) == (1, 1)
        assert snapshot(conn) == before
    assert waiting.triggers == (Trigger("risk", "irreversible side effect: refund (call call-1)", (2,)),)


# --------------------------------------------------------------------------------------------
# what the summarizer gets


def test_summarizer_gets_only_previous_summary_new_events_and_must_keep(conn):
    add(conn, ("user", pasted("move 10086 to tomorrow")), ("tool_call", call(1)),
        ("tool_result", result(1, "timeout")), ("assistant", {"text": "the carrier timed out"}))
    recorder = Recording()
    assert pgctx.fold(conn, CID, summarizer=recorder, budget=EAGER).cursor == 4
    first = recorder.requests[0]
    assert (first.from_seq, first.to_seq, first.base_version, first.previous_summary) == (0, 4, 0, None)
    assert [e.seq for e in first.events] == [1, 2, 3, 4]
    v1 = pgctx.committed_fold(conn, CID)

    add(conn, ("user", {"text": "try again please"}), ("status_query", {"call_id": "call-1", "outcome": "succeeded"}),
        ("tool_call", call(2)), ("tool_result", result(2)))
    second = pgctx.fold(conn, CID, summarizer=recorder, force=True)  # (4 events: not worth a fold by policy)
    assert second.committed and second.summarizer == "recording/1"
    request = recorder.requests[1]
    assert (request.from_seq, request.to_seq, request.base_version) == (4, 8, 1)
    assert request.previous_summary == v1.summary
    stored = conn.execute("SELECT seq, kind, payload FROM pgctx.events WHERE seq > 4 ORDER BY seq").fetchall()
    assert [(e.seq, e.kind, e.payload) for e in request.events] == stored  # only the new events
    assert request.must_keep == pgctx.must_keep(conn, CID, 4, 8, v1.summary)
    assert set(request.must_keep["tool_calls"]) == {"call-1", "call-2"}  # the carried unknown call too
    assert conn.execute("SELECT summarizer FROM pgctx.checkpoints WHERE version = 2").fetchone() == ("recording/1",)


def test_each_request_carries_the_registered_schema_as_its_own_copy(conn):
    registered = conn.execute("SELECT schema FROM pgctx.summary_schemas WHERE schema_version = %s",
                              (SCHEMA_VERSION,)).fetchone()[0]

    class Trimming(Recording):
        def summarize(self, request):
            assert request.schema == registered
            request.schema.pop("$defs")  # a summarizer adapting the schema to its API
            return super().summarize(request)

    summarizer = Trimming()
    for text in ("move 10086 to tomorrow", "and the other order too"):
        add(conn, ("user", pasted(text)))
        assert pgctx.fold(conn, CID, summarizer=summarizer, force=True).committed
    assert len(summarizer.requests) == 2


def test_a_summarizer_may_return_a_summary_model(conn):
    add(conn, ("user", {"text": "move 10086"}), ("tool_call", call(1)), ("tool_result", result(1)))

    class Typed:
        id = "typed/1"

        def summarize(self, request):
            return pgctx.Summary.model_validate(BuiltinSummarizer().summarize(request))

    done = pgctx.fold(conn, CID, summarizer=Typed(), budget=EAGER)
    assert done.committed and pgctx.committed_fold(conn, CID).summary["tool_state"]["call-1"]["request_id"] == "req-1"


# --------------------------------------------------------------------------------------------
# failures leave everything as it was


LEAK = "LEAK-MARKER: the model said something unusable"


def raising(candidate, request):
    raise RuntimeError(LEAK)


def refuses_as_timeout(candidate, request):
    raise errors.SummarizerFailed(LEAK, reason="timeout")


def claims_success(candidate, request):
    candidate["tool_state"]["call-2"]["status"] = "succeeded"  # call-2 timed out
    candidate["completed_actions"].append({"action": LEAK, "status": "succeeded", "source_event_ids": [6, 7]})
    return candidate


def forgets_call(candidate, request):
    del candidate["tool_state"]["call-2"]
    return candidate


FAILURES = {
    "raises": (raising, errors.SummarizerFailed, "error"),
    "own-failure": (refuses_as_timeout, errors.SummarizerFailed, "timeout"),
    "text": (lambda c, r: LEAK, errors.SummarizerFailed, "malformed"),
    "none": (lambda c, r: None, errors.SummarizerFailed, "malformed"),
    "list": (lambda c, r: [c], errors.SummarizerFailed, "malformed"),
    "timeout-claimed-succeeded": (claims_success, errors.ToolStateContradiction, None),
    "call-forgotten": (forgets_call, errors.MustKeepMissing, None),
    "schema": (lambda c, r: {"summary": LEAK}, errors.SummarySchemaViolation, None),
}


@pytest.mark.parametrize("name", list(FAILURES))
def test_failure_leaves_everything_as_it_was(conn, name):
    change, error, reason = FAILURES[name]
    add(conn, ("user", {"text": "move 10086, then refund the fee"}), ("tool_call", call(1)),
        ("tool_result", result(1)), ("assistant", {"text": "moved"}))
    assert pgctx.fold(conn, CID, budget=EAGER).committed
    add(conn, ("user", pasted("now the refund")),
        ("tool_call", call(2, tool="refund", effect="irreversible")), ("tool_result", result(2, "timeout")))
    before = snapshot(conn)
    committed = pgctx.committed_fold(conn, CID)

    with pytest.raises(error) as info:
        pgctx.fold(conn, CID, summarizer=Recording(change), budget=EAGER)

    if reason is not None:
        assert info.value.reason == reason
    if name == "raises":
        assert isinstance(info.value.__cause__, RuntimeError)
    assert snapshot(conn) == before
    assert pgctx.committed_fold(conn, CID) == committed
    assert [phase for _, phase, *_ in checkpoints(conn)] == ["COMMITTED"]  # nothing prepared, nothing discarded
    leaked = conn.execute(
        "SELECT (SELECT count(*) FROM pgctx.checkpoints WHERE summary::text LIKE '%%LEAK-MARKER%%')"
        " + (SELECT count(*) FROM pgctx.events WHERE payload::text LIKE '%%LEAK-MARKER%%')").fetchone()
    assert leaked == (0,)
    assert pgctx.fold(conn, CID, budget=EAGER).committed  # the built-in summarizer still folds the same range


# --------------------------------------------------------------------------------------------
# racing folders


class Interfering(Recording):
    """While summarizing, lets another connection fold the same conversation first (and append an
    event, so there is something left to fold), on the calls listed in ``on``: up to the head
    (forced), or to the cursor ``upto`` names for that call. Records whether the fold
    serialization lock was free at each call."""

    def __init__(self, dsn: str, cid: str = CID, on: tuple[int, ...] = (1,), login: dict | None = None,
                 upto: dict[int, int] | None = None):
        super().__init__()
        self.dsn, self.cid, self.on, self.login, self.upto = dsn, cid, on, login or {}, upto or {}
        self.lock_free: list[bool] = []
        self.other_versions: list[int] = []

    def summarize(self, request):
        n = len(self.requests) + 1
        with psycopg.connect(self.dsn, autocommit=True, **self.login) as other:
            self.lock_free.append(other.execute(LOCK_KEY, (self.cid,)).fetchone()[0])
            if n in self.on:
                self.other_versions.append(fold_to(other, self.cid, self.upto[n]) if n in self.upto
                                           else pgctx.fold(other, self.cid, force=True).version)
                pgctx.append(other, self.cid, "user", pasted(f"meanwhile {n}"))
        return super().summarize(request)


def counted(summary: dict, request: FoldRequest) -> int:
    """The summary's tokens as fold() counts them (what prepare_fold is given)."""
    return summary_tokens(COUNTER, summary, request.base_version + 1, request.to_seq)


def fold_to(conn, cid: str, cursor: int) -> int:
    """Fold the committed cursor+1..cursor by hand (prepare and commit); the new version."""
    request = pgctx.fold_procedures.fold_request(conn, cid, cursor)
    summary = BuiltinSummarizer().summarize(request)
    version = pgctx.prepare_fold(conn, cid, expected_version=request.base_version, expected_cursor=request.from_seq,
                                 new_cursor=cursor, summary=summary, tokens=counted(summary, request))
    pgctx.commit_fold(conn, cid, version)
    return version


def story(conn, cid: str = CID) -> None:
    add(conn, ("user", {"text": "move 10086"}), ("tool_call", call(1)), ("tool_result", result(1)),
        ("assistant", {"text": f"moved; what the carrier logged:\n{LOG}"}), cid=cid)


def test_a_lost_race_that_the_winner_covered_returns_covered(conn, dsn):
    story(conn)
    loser = Interfering(dsn)  # the other folder commits 1..4, what this one meant to fold, and appends 5
    done = pgctx.fold(conn, CID, summarizer=loser, force=True)  # the retry mechanics, not the trigger
    assert loser.other_versions == [1] and len(loser.requests) == 1  # no second summarizer call
    assert not done.committed and done.attempts == 2
    assert len(done.conflicts) == 1 and "fold conflict" in done.conflicts[0]
    assert done.reason == "covered: a concurrent fold committed version 1 up to event 4"
    assert (done.version, done.cursor) == (1, 4)
    assert checkpoints(conn) == [(1, "COMMITTED", 0, 0, 4, None)]


def test_a_lost_race_rereads_and_commits_the_rest_on_the_new_base(conn, dsn):
    story(conn)
    loser = Interfering(dsn, upto={1: 3})  # the other folder commits only 1..3, and appends 5
    done = pgctx.fold(conn, CID, summarizer=loser, force=True)
    assert done.committed and done.attempts == 2
    assert len(done.conflicts) == 1 and "fold conflict" in done.conflicts[0]
    assert (done.version, done.cursor) == (2, 5)
    # the committed fold continues the one that won, from its cursor
    assert checkpoints(conn) == [(1, "COMMITTED", 0, 0, 3, None), (2, "COMMITTED", 1, 3, 5, None)]
    assert [r.from_seq for r in loser.requests] == [0, 3]
    assert loser.requests[1].previous_summary == conn.execute(
        "SELECT summary FROM pgctx.checkpoints WHERE version = 1").fetchone()[0]
    assert pgctx.verify(conn, CID).ok


def test_two_threads_racing_one_wins_the_other_is_covered(conn, dsn):
    story(conn)
    barrier = threading.Barrier(2, timeout=30)
    results: dict[str, object] = {}

    class Racer(Recording):
        def summarize(self, request):
            if not self.requests:  # first attempt: wait until both have read base version 0 and 1..4
                barrier.wait()  # (appending first let the slower thread read the other's event: flaky)
                with psycopg.connect(dsn, autocommit=True) as own:
                    pgctx.append(own, CID, "user", {"text": f"from {threading.current_thread().name}"})
            return super().summarize(request)

    def run(name):
        try:
            with psycopg.connect(dsn, autocommit=True) as own:
                results[name] = pgctx.fold(own, CID, summarizer=Racer(), force=True)
        except Exception as exc:  # reported below
            results[name] = exc

    threads = [threading.Thread(target=run, args=(n,), name=n) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    winner, loser = sorted(results.values(), key=lambda r: getattr(r, "attempts", 0))
    assert isinstance(winner, pgctx.FoldResult) and isinstance(loser, pgctx.FoldResult), results
    assert (winner.committed, winner.attempts, winner.conflicts, winner.cursor) == (True, 1, [], 4)
    # both meant to fold 1..4 (what they read): the loser's range was covered, nothing is lost
    assert not loser.committed and loser.attempts == 2 and len(loser.conflicts) == 1
    assert loser.reason.startswith("covered") and loser.cursor == 4
    rows = checkpoints(conn)
    assert [r for r in rows if r[1] == "COMMITTED"] == [(winner.version, "COMMITTED", 0, 0, 4, None)]
    assert all(r[1] == "DISCARDED" for r in rows if r[1] != "COMMITTED")
    assert pgctx.build_context(conn, CID).cursor == 4 and head(conn) == 6


class _InterposingCursor(psycopg.Cursor):
    def execute(self, query, params=None, **kwargs):
        conn = self.connection
        if conn.before_commit and isinstance(query, str) and query.startswith("SELECT pgctx.commit_fold"):
            hook, conn.before_commit = conn.before_commit, None
            hook()
        return super().execute(query, params, **kwargs)


class CommitInterposer(psycopg.Connection):
    """A real connection that runs ``before_commit`` once, right before the next commit_fold: the
    moment another folder can still win the compare-and-swap (every statement pgctx sends goes
    through a cursor of the connection's cursor factory)."""

    before_commit = None

    @classmethod
    def connect(cls, *args, **kwargs):
        return super().connect(*args, cursor_factory=_InterposingCursor, **kwargs)


def test_conflict_with_one_attempt_raises_and_discards_the_candidate(conn, dsn):
    story(conn)
    with CommitInterposer.connect(dsn, autocommit=True) as folder, psycopg.connect(dsn, autocommit=True) as other:
        folder.before_commit = lambda: pgctx.fold(other, CID, force=True)
        with pytest.raises(errors.FoldConflict):
            pgctx.fold(folder, CID, attempts=1, budget=EAGER)
        assert folder.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    (mine, theirs) = checkpoints(conn)
    assert mine[:5] == (1, "DISCARDED", 0, 0, 4) and mine[5]  # with its reason
    assert theirs == (2, "COMMITTED", 0, 0, 4, None)
    assert pgctx.committed_fold(conn, CID).version == 2

    # a conflict at prepare (the other folder committed while the model was thinking) prepares nothing
    add(conn, ("user", pasted("and the invoice")))
    before = len(checkpoints(conn))
    with pytest.raises(errors.FoldConflict):
        pgctx.fold(conn, CID, summarizer=Interfering(dsn), force=True, attempts=1)
    assert len(checkpoints(conn)) == before + 1  # only the other folder's commit
    assert checkpoints(conn)[-1][1] == "COMMITTED"


def test_conflict_between_prepare_and_commit_is_retried(conn, dsn):
    story(conn)
    with CommitInterposer.connect(dsn, autocommit=True) as folder, psycopg.connect(dsn, autocommit=True) as other:
        def other_folds_part_and_appends():
            fold_to(other, CID, 3)
            pgctx.append(other, CID, "user", pasted("meanwhile"))

        folder.before_commit = other_folds_part_and_appends
        done = pgctx.fold(folder, CID, force=True)
    assert done.committed and done.attempts == 2 and "discarded" in done.conflicts[0]
    assert checkpoints(conn) == [(1, "DISCARDED", 0, 0, 4, checkpoints(conn)[0][5]),
                                 (2, "COMMITTED", 0, 0, 3, None), (3, "COMMITTED", 2, 3, 5, None)]


def test_last_attempt_serializes_with_the_advisory_lock(conn, dsn):
    story(conn)
    # attempts 1 and 2 lose to folds that cover less than they meant (1..3, then 4), attempt 3 wins
    three = Interfering(dsn, on=(1, 2), upto={1: 3, 2: 4})
    done = pgctx.fold(conn, CID, summarizer=three, attempts=3, force=True)
    assert done.committed and done.attempts == 3 and len(done.conflicts) == 2
    # the lock is free during the first two attempts and held by the third, serialized one
    assert three.lock_free == [True, True, False]
    assert conn.execute(LOCK_KEY, (CID,)).fetchone()[0]  # released when it committed
    assert conn.execute("SELECT pgctx.serialize_folds(%s)", (CID,)).fetchone() == (None,)
    assert checkpoints(conn)[-1] == (done.version, "COMMITTED", done.version - 1, 4, 6, None)

    # a single attempt never takes the lock
    add(conn, ("tool_call", call(2)), ("tool_result", result(2)))
    one = Interfering(dsn, on=())
    assert pgctx.fold(conn, CID, summarizer=one, attempts=1, force=True).committed and one.lock_free == [True]


def test_the_serialized_attempt_cannot_be_overtaken(conn, dsn):
    """While the last attempt holds the fold lock, every other prepare and recover of the
    conversation waits for it (here: gives up at its lock timeout), so the attempt commits."""
    story(conn)
    waited: list[tuple[str, str]] = []

    class Contender(Recording):
        def summarize(self, request):
            with psycopg.connect(dsn, autocommit=True) as other:
                if not self.requests:  # the first attempt loses to a fold of 1..3
                    fold_to(other, CID, 3)
                    pgctx.append(other, CID, "user", pasted("meanwhile"))
                else:  # the serialized attempt: the others wait
                    other.execute("SET lock_timeout = '200ms'")
                    for name, attempt in (("prepare", lambda: fold_to(other, CID, 4)),
                                          ("recover", lambda: pgctx.recover(other, CID))):
                        try:
                            attempt()
                        except psycopg.Error as exc:
                            waited.append((name, exc.sqlstate))
            return super().summarize(request)

    done = pgctx.fold(conn, CID, summarizer=Contender(), attempts=2, force=True)
    assert waited == [("prepare", "55P03"), ("recover", "55P03")]  # lock_not_available
    assert done.committed and done.attempts == 2 and (done.previous_cursor, done.cursor) == (3, 5)


def test_only_a_plain_update_by_the_owner_can_overtake_the_serialized_attempt(conn, dsn):
    """The stated limit: a checkpoint committed by a plain UPDATE (the owner, no function) takes no
    fold lock, so even the serialized attempt can lose; it raises FoldConflict and releases the lock."""
    story(conn)
    fold_to(conn, CID, 3)  # version 1 committed: 1..3
    request = pgctx.fold_procedures.fold_request(conn, CID, 4)
    summary = BuiltinSummarizer().summarize(request)
    second = pgctx.prepare_fold(conn, CID, expected_version=1, expected_cursor=3, new_cursor=4, summary=summary,
                                tokens=counted(summary, request))
    add(conn, ("user", pasted("one more")))  # 5
    third: list[int] = []

    class OwnerCommits(Recording):
        def summarize(self, request):
            with psycopg.connect(dsn, autocommit=True) as owner:
                commit = "UPDATE pgctx.checkpoints SET phase = 'COMMITTED' WHERE conversation_id = %s AND version = %s"
                if not self.requests:  # first attempt: commit 4 by hand, and prepare 5 on it
                    owner.execute(commit, (CID, second))
                    later = pgctx.fold_procedures.fold_request(owner, CID, 5)
                    summary = BuiltinSummarizer().summarize(later)
                    third.append(pgctx.prepare_fold(owner, CID, expected_version=second, expected_cursor=4,
                                                    new_cursor=5, summary=summary, tokens=counted(summary, later)))
                else:  # the serialized attempt: a plain UPDATE needs no lock
                    owner.execute(commit, (CID, third[0]))
            return super().summarize(request)

    with pytest.raises(errors.FoldConflict):
        pgctx.fold(conn, CID, summarizer=OwnerCommits(), attempts=2, force=True)
    assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    assert conn.execute(LOCK_KEY, (CID,)).fetchone()[0]  # released
    assert pgctx.committed_fold(conn, CID).version == third[0]


# --------------------------------------------------------------------------------------------
# every target: async connection and pool, sync pool, least-privileged role


SCRIPT = [("user", pasted("refund the fee of 10086")),
          ("tool_call", call(1, tool="refund", effect="irreversible")),
          ("tool_result", result(1, "timeout"))]


class AsyncRecording:
    id = "async-recording/1"

    def __init__(self):
        self.requests = []

    async def summarize(self, request):
        self.requests.append(request)
        await asyncio.sleep(0)
        return BuiltinSummarizer().summarize(request)


async def async_story(target, cid: str) -> dict:
    for kind, payload in SCRIPT:
        await pgctx.append(target, cid, kind, payload)
    summarizer = AsyncRecording()
    folded = await pgctx.fold(target, cid, summarizer=summarizer, budget=EAGER)
    ctx = await pgctx.build_context(target, cid)
    report = await pgctx.verify(target, cid)
    recovered = await pgctx.recover(target, cid)
    asked = []

    async def resolver(call):
        asked.append(call.idempotency_key)
        await asyncio.sleep(0)
        return {"outcome": "not_performed"}

    resolutions = await pgctx.reconcile(target, cid, resolver)
    refolded = await pgctx.fold(target, cid, force=True)
    return dict(folded=folded, ctx=ctx, report=report, recovered=recovered, asked=asked,
                resolutions=resolutions, refolded=refolded, requests=len(summarizer.requests))


def sync_story(target, cid: str) -> dict:
    add(target, *SCRIPT, cid=cid)
    folded = pgctx.fold(target, cid, budget=EAGER)
    ctx = pgctx.build_context(target, cid)
    report = pgctx.verify(target, cid)
    recovered = pgctx.recover(target, cid)
    asked = []
    resolutions = pgctx.reconcile(target, cid, lambda call: asked.append(call.idempotency_key) or
                                  {"outcome": "not_performed"})
    return dict(folded=folded, ctx=ctx, report=report, recovered=recovered, asked=asked, resolutions=resolutions,
                refolded=pgctx.fold(target, cid, force=True))


def check_story(conn, cid: str, out: dict, reference: dict) -> None:
    assert out["folded"].committed and (out["folded"].version, out["folded"].cursor) == (1, 3)
    assert {t.cls for t in out["folded"].triggers} == {"structural", "risk"}
    assert out["ctx"].version == 1 and [seq for seq, _ in out["ctx"].evidence] == [2, 3]
    assert out["ctx"].sections == reference["ctx"].sections
    assert out["report"].ok and out["report"].checked == 3
    assert out["recovered"]["unknown_side_effects"][0]["idempotency_key"] == "k-1"
    assert out["asked"] == ["k-1"]
    assert [(r.call_id, r.outcome, r.seq, r.retry_allowed) for r in out["resolutions"]] == [
        ("call-1", "not_performed", 4, True)]
    assert out["refolded"].committed and out["refolded"].cursor == 4
    summary = conn.execute("SELECT summary FROM pgctx.checkpoints WHERE conversation_id = %s AND version = 2",
                           (cid,)).fetchone()[0]
    assert summary["tool_state"]["call-1"]["status"] == "failed"
    assert summary == conn.execute("SELECT summary FROM pgctx.checkpoints WHERE conversation_id = 'sync'"
                                   " AND version = 2").fetchone()[0]


def test_async_connection_and_pools_give_the_same_results(conn, dsn):
    reference = sync_story(conn, "sync")
    check_story(conn, "sync", reference, reference)

    async def main():
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as aconn:
            on_connection = await async_story(aconn, "async-conn")
        async with AsyncConnectionPool(dsn, min_size=1, max_size=2, open=False) as pool:
            on_pool = await async_story(pool, "async-pool")
        return on_connection, on_pool

    on_connection, on_pool = asyncio.run(main())
    for cid, out in (("async-conn", on_connection), ("async-pool", on_pool)):
        assert out["requests"] == 1
        check_story(conn, cid, out, reference)

    with ConnectionPool(dsn, min_size=1, max_size=2, open=True) as pool:
        on_sync_pool = sync_story(pool, "sync-pool")
    check_story(conn, "sync-pool", on_sync_pool, reference)


def test_least_privileged_app_role_folds_and_builds_context(conn, dsn, connect_as, roles):
    app = connect_as(roles.app)
    add(app, *SCRIPT)
    done = pgctx.fold(app, CID, budget=EAGER)
    assert done.committed and done.cursor == 3
    ctx = pgctx.build_context(app, CID, system="be careful", current_message="did it work?")
    assert ctx.version == 1 and [seq for seq, _ in ctx.evidence] == [2, 3]
    assert [r.outcome for r in pgctx.reconcile(app, CID, lambda c: {"outcome": "succeeded"})] == ["succeeded"]
    # the retry path and its serialization lock work for the app role too
    add(app, ("user", pasted("thanks, and this came too")), ("assistant", {"text": "you are welcome"}))
    racer = Interfering(dsn, on=(1,), login={"user": roles.app, "password": roles.password}, upto={1: 4})
    again = pgctx.fold(app, CID, summarizer=racer, force=True, attempts=2)
    assert again.committed and again.attempts == 2 and racer.lock_free == [True, False]
    assert conn.execute("SELECT DISTINCT prepared_by::text FROM pgctx.checkpoints").fetchall() == [(roles.app,)]


def test_after_a_lost_race_with_nothing_left_due_the_fold_is_not_repeated(conn, dsn):
    story(conn)
    loser = Interfering(dsn)  # another folder commits 1..4 while this one summarizes
    done = pgctx.fold(conn, CID, summarizer=loser, budget=EAGER)
    assert loser.other_versions == [1]
    # the other fold covered the range: no second model call, no second fold
    assert not done.committed and done.attempts == 2 and len(loser.requests) == 1
    assert done.reason == "covered: a concurrent fold committed version 1 up to event 4"
    assert (done.previous_version, done.previous_cursor, done.version, done.cursor) == (1, 4, 1, 4)
    assert checkpoints(conn)[-1][:2] == (1, "COMMITTED")
