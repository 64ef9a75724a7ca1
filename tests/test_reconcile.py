"""pgctx.reconcile (article 十二): unknown side effects are settled by asking the service, never guessed.

A call whose outcome is unknown (a timeout, or a call left running across a restart recovery)
is put to the application's resolver with its idempotency key; the answer is recorded as a
``status_query`` event with the service as its authority, and the SQL derivation settles the
call. Nothing here re-runs a tool.
"""

from __future__ import annotations

import pytest

import pgctx
from pgctx.messages import event_message
from pgctx.reconcile import UnknownCall
from pgctx.tokens import default_counter
from tests.events import EAGER, pasted

CID = "refund-77"


def add_call(conn, n: int, outcome: str | None = "succeeded", *, tool: str = "update_order",
             key: str | None = "auto", effect: str | None = None) -> int:
    payload = {"tool": tool, "call_id": f"call-{n}", "arguments": {"order_id": f"{n}0086"}}
    if key is not None:
        payload["idempotency_key"] = f"key-{n}" if key == "auto" else key
    if effect is not None:
        payload["effect"] = effect
    seq = pgctx.append(conn, CID, "tool_call", payload)
    if outcome is not None:
        result = {"call_id": f"call-{n}", "outcome": outcome}
        if outcome == "succeeded":
            result["request_id"] = f"req-{n}"
        pgctx.append(conn, CID, "tool_result", result)
    return seq


def head(conn) -> int:
    return conn.execute("SELECT head_seq FROM pgctx.conversations WHERE conversation_id = %s", (CID,)).fetchone()[0]


def count_kind(conn, kind: str) -> int:
    return conn.execute("SELECT count(*) FROM pgctx.events WHERE conversation_id = %s AND kind = %s",
                        (CID, kind)).fetchone()[0]


def side_effects(conn) -> dict[str, tuple]:
    rows = conn.execute("SELECT call_id, status, request_id, error FROM pgctx.side_effects"
                        " WHERE conversation_id = %s ORDER BY call_seq", (CID,)).fetchall()
    return {r[0]: r[1:] for r in rows}


def event(conn, seq: int) -> tuple:
    return conn.execute("SELECT kind, payload, tokens FROM pgctx.events WHERE conversation_id = %s AND seq = %s",
                        (CID, seq)).fetchone()


class Recorder:
    """A resolver answering from a table, recording what it was asked."""

    def __init__(self, answers):
        self.answers = answers
        self.asked: list[UnknownCall] = []

    def __call__(self, call: UnknownCall):
        self.asked.append(call)
        answer = self.answers(call) if callable(self.answers) else self.answers
        return dict(answer) if isinstance(answer, dict) else answer


def test_timeout_is_resolved_by_idempotency_key_and_recorded_with_authority(conn):
    pgctx.append(conn, CID, "user", pasted("refund order 10086"))
    call_seq = add_call(conn, 1, outcome="timeout", tool="refund", effect="irreversible")
    assert side_effects(conn)["call-1"][0] == "unknown"
    calls_before = count_kind(conn, "tool_call")
    resolver = Recorder({"outcome": "succeeded", "request_id": "req-late"})

    resolutions = pgctx.reconcile(conn, CID, resolver)

    assert resolver.asked == [UnknownCall(CID, "call-1", "refund", "irreversible", "key-1", call_seq)]
    assert resolutions == [pgctx.Resolution("call-1", "succeeded", head(conn), False)]
    kind, payload, tokens = event(conn, resolutions[0].seq)
    assert kind == "status_query"
    assert payload == {"call_id": "call-1", "idempotency_key": "key-1", "authority": "refund",
                       "outcome": "succeeded", "request_id": "req-late"}
    assert tokens == default_counter().message_tokens(event_message(kind, payload))  # counted at append
    assert side_effects(conn)["call-1"] == ("succeeded", "req-late", None)
    # nothing re-ran the tool: no new call, and the only new event is the answer
    assert count_kind(conn, "tool_call") == calls_before
    assert head(conn) == call_seq + 2
    assert pgctx.verify(conn, CID).ok


def test_call_running_across_a_recovery_becomes_unknown_and_not_performed_allows_retry(conn):
    pgctx.append(conn, CID, "user", {"text": "cancel order 10086"})
    call_seq = add_call(conn, 1, outcome=None)
    assert side_effects(conn)["call-1"][0] == "running"
    assert pgctx.reconcile(conn, CID, Recorder({"outcome": "succeeded"})) == []  # running: not unknown yet
    report = pgctx.recover(conn, CID)
    assert report["recovery_event_seq"] == call_seq + 1
    assert side_effects(conn)["call-1"][0] == "unknown"

    resolver = Recorder({"outcome": "not_performed", "authority": "order-service"})
    (resolution,) = pgctx.reconcile(conn, CID, resolver)

    assert [c.idempotency_key for c in resolver.asked] == ["key-1"]
    assert resolution.outcome == "not_performed" and resolution.retry_allowed is True
    assert event(conn, resolution.seq)[1]["authority"] == "order-service"
    assert side_effects(conn)["call-1"][0] == "failed"  # the only state in which a retry is safe
    assert count_kind(conn, "tool_call") == 1
    assert pgctx.recover(conn, CID)["unknown_side_effects"] == []


@pytest.mark.parametrize("answer, status, retry", [
    ({"outcome": "succeeded", "request_id": "req-9"}, "succeeded", False),
    ({"outcome": "failed", "error": "card declined"}, "failed", False),
    ({"outcome": "not_performed"}, "failed", True),
    ({"outcome": "unknown"}, "unknown", False),
])
def test_answer_settles_the_call(conn, answer, status, retry):
    pgctx.append(conn, CID, "user", {"text": "charge order 10086"})
    add_call(conn, 1, outcome="timeout")
    assert conn.execute("SELECT retry_safe FROM pgctx.side_effects WHERE call_id = 'call-1'").fetchone() == (False,)
    (resolution,) = pgctx.reconcile(conn, CID, Recorder(answer))
    assert (resolution.outcome, resolution.retry_allowed) == (answer["outcome"], retry)
    assert side_effects(conn)["call-1"] == (status, answer.get("request_id"), answer.get("error"))
    # the same rule in SQL, for anyone reading the view
    assert conn.execute("SELECT retry_safe FROM pgctx.side_effects WHERE call_id = 'call-1'").fetchone() == (retry,)
    payload = event(conn, resolution.seq)[1]
    assert {k: payload[k] for k in answer} == answer
    # an unknown answer leaves the call unknown: the next reconcile asks again
    again = Recorder({"outcome": "unknown"})
    pgctx.reconcile(conn, CID, again)
    assert len(again.asked) == (1 if status == "unknown" else 0)


def test_every_unknown_call_is_asked_once_in_call_order(conn):
    pgctx.append(conn, CID, "user", {"text": "tidy up the orders"})
    add_call(conn, 1)                                  # succeeded: not asked
    add_call(conn, 2, outcome="timeout")               # unknown
    add_call(conn, 3, outcome="failed")                # failed: not asked
    add_call(conn, 4, outcome="timeout", key=None)     # unknown, without an idempotency key
    answers = {"call-2": {"outcome": "succeeded"}, "call-4": {"outcome": "failed", "error": "no such order"}}
    resolver = Recorder(lambda call: answers[call.call_id])

    resolutions = pgctx.reconcile(conn, CID, resolver)

    assert [(c.call_id, c.idempotency_key) for c in resolver.asked] == [("call-2", "key-2"), ("call-4", None)]
    assert [r.call_id for r in resolutions] == ["call-2", "call-4"]
    assert "idempotency_key" not in event(conn, resolutions[1].seq)[1]
    assert {k: v[0] for k, v in side_effects(conn).items()} == {
        "call-1": "succeeded", "call-2": "succeeded", "call-3": "failed", "call-4": "failed"}
    nobody = Recorder({"outcome": "succeeded"})
    assert pgctx.reconcile(conn, CID, nobody) == [] and nobody.asked == []


def test_conversation_without_unknown_calls_never_calls_the_resolver(conn):
    pgctx.append(conn, CID, "user", {"text": "look up order 10086"})
    add_call(conn, 1, effect="read")
    add_call(conn, 2, outcome="cancelled")
    before = head(conn)
    resolver = Recorder({"outcome": "succeeded"})
    assert pgctx.reconcile(conn, CID, resolver) == []
    assert resolver.asked == [] and head(conn) == before


BAD_ANSWERS = [None, "succeeded", {}, {"outcome": "maybe"}, {"outcome": "timeout"}, {"status": "succeeded"},
               ["succeeded"], {"outcome": None}]


def test_bad_resolver_answer_is_refused_and_nothing_appended(conn):
    pgctx.append(conn, CID, "user", pasted("refund order 10086"))
    add_call(conn, 1, outcome="timeout")
    before = head(conn)
    for bad in BAD_ANSWERS:
        with pytest.raises(ValueError, match="outcome must be one of"):
            pgctx.reconcile(conn, CID, Recorder(bad))
        assert head(conn) == before and count_kind(conn, "status_query") == 0, bad
        assert side_effects(conn)["call-1"][0] == "unknown"


def test_resolver_failure_propagates_and_nothing_appended(conn):
    pgctx.append(conn, CID, "user", pasted("refund order 10086"))
    add_call(conn, 1, outcome="timeout")
    before = head(conn)

    def broken(call):
        raise ConnectionError("order service unreachable")

    with pytest.raises(ConnectionError):
        pgctx.reconcile(conn, CID, broken)
    assert head(conn) == before and side_effects(conn)["call-1"][0] == "unknown"


def test_a_reconciled_call_folds_with_the_service_answer(conn):
    pgctx.append(conn, CID, "user", pasted("refund order 10086"))
    add_call(conn, 1, outcome="timeout", tool="refund", effect="irreversible")
    first = pgctx.fold(conn, CID, budget=EAGER)
    assert first.committed
    summary = pgctx.committed_fold(conn, CID).summary
    assert summary["tool_state"]["call-1"]["status"] == "unknown"
    (resolution,) = pgctx.reconcile(conn, CID, Recorder({"outcome": "not_performed"}))
    second = pgctx.fold(conn, CID, force=True)
    assert second.committed and second.cursor == resolution.seq
    state = pgctx.committed_fold(conn, CID).summary["tool_state"]["call-1"]
    assert state["status"] == "failed" and resolution.seq in state["source_event_ids"]
    assert not any("resolve unknown call call-1" in p["action"]
                   for p in pgctx.committed_fold(conn, CID).summary["pending"])


def test_unknown_call_inherited_by_a_branch_is_reconciled(conn):
    """A branch's summary (continued from its source) tracks a call as unknown: reconcile on the
    branch asks about it, and the branch's next fold settles it."""
    pgctx.append(conn, CID, "user", pasted("refund order 10086"))
    add_call(conn, 1, outcome="timeout", tool="refund", effect="irreversible")
    assert pgctx.fold(conn, CID, budget=EAGER).cursor == 3
    pgctx.fork_conversation(conn, CID, 3, "plan-b")
    summary = pgctx.committed_fold(conn, "plan-b").summary
    assert summary["tool_state"]["call-1"]["status"] == "unknown"  # inherited, and pending a status query

    resolver = Recorder({"outcome": "succeeded", "request_id": "req-late"})
    resolutions = pgctx.reconcile(conn, "plan-b", resolver)
    assert [c.idempotency_key for c in resolver.asked] == ["key-1"]
    assert [r.outcome for r in resolutions] == ["succeeded"]
    assert pgctx.fold(conn, "plan-b", force=True).committed
    state = pgctx.committed_fold(conn, "plan-b").summary["tool_state"]["call-1"]
    assert (state["status"], state.get("request_id")) == ("succeeded", "req-late")
