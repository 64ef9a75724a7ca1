"""Risk evidence stays raw beside the summary for as long as its risk is live (article 三.3;
sql/165_fold_evidence.sql): carried from fold to fold, and released by the documented event for
each kind of risk, not by the next fold.

The users here paste long logs (tests.events.pasted): a fold of a risky call and a few short words
would not make the context smaller (the call stays raw beside the summary), and is not made.
"""

from __future__ import annotations

import pytest

import pgctx
from tests.events import LOG, call, pasted, result

CID = "evidence"


def add(conn, *events) -> list[int]:
    return pgctx.append_many(conn, CID, [{"kind": k, "payload": p} for k, p in events])


def fold(conn) -> int:
    done = pgctx.fold(conn, CID, force=True)
    assert done.committed
    return done.cursor


def pinned(conn) -> list[int]:
    """The seqs kept raw beside the summary (evidence, not unfolded events)."""
    return [seq for seq, _ in pgctx.build_context(conn, CID).evidence]


def filler(n: int = 2) -> list[tuple[str, dict]]:
    return [("user", pasted("anything else?")), ("assistant", {"text": "nothing new"})][:n]


def test_an_irreversible_call_stays_raw_until_its_work_is_closed(conn):
    add(conn, ("user", pasted("refund 10086")), ("tool_call", call(1, tool="refund", effect="irreversible")),
        ("tool_result", result(1)))
    for _ in range(3):  # fold after fold, the refund stays beside the summary
        fold(conn)
        assert pinned(conn) == [2, 3]
        add(conn, *filler())
    add(conn, ("subtask_end", {"text": "refund done"}))
    assert pinned(conn) == []  # closed at the head already, before any fold
    fold(conn)
    assert pinned(conn) == []
    entries = conn.execute("SELECT version, evidence FROM pgctx.checkpoints WHERE conversation_id = %s ORDER BY version",
                           (CID,)).fetchall()
    assert [len(e) for _, e in entries] == [1, 1, 1, 0]  # carried by each checkpoint while live, then not


@pytest.mark.parametrize("closer", [("topic_switch", {"topic": "invoices"}), ("subtask_end", {"text": "done"})])
def test_each_closing_event_releases_an_irreversible_call(conn, closer):
    add(conn, ("user", pasted("refund 10086")), ("tool_call", call(1, tool="refund", effect="irreversible")),
        ("tool_result", result(1)))
    fold(conn)
    add(conn, closer)
    assert pinned(conn) == []


def test_an_unknown_outcome_stays_raw_until_the_service_answers(conn):
    add(conn, ("user", pasted("charge the fee")), ("tool_call", call(1, tool="charge")),
        ("tool_result", result(1, "timeout")))
    fold(conn)
    add(conn, *filler())
    fold(conn)
    reasons = dict(pgctx.build_context(conn, CID).evidence)
    assert sorted(reasons) == [2, 3] and "risk: unknown outcome: charge (call call-1)" in reasons[2]
    (resolution,) = pgctx.reconcile(conn, CID, lambda c: {"outcome": "succeeded", "request_id": "req-late"})
    # no longer a risk; until the next fold, the summary still says unknown, so its events stay beside it
    assert dict(pgctx.build_context(conn, CID).evidence) == {
        2: f"call call-1 is unknown; call of the result at seq {resolution.seq}", 3: "call call-1 is unknown"}
    fold(conn)
    assert pinned(conn) == [] and resolution.seq == 6


def test_a_contradiction_within_a_call_stays_raw_until_a_later_answer(conn):
    add(conn, ("user", pasted("cancel it")), ("tool_call", call(1, tool="cancel")), ("tool_result", result(1)),
        ("status_query", {"call_id": "call-1", "outcome": "not_performed"}))
    fold(conn)
    add(conn, *filler())
    fold(conn)
    assert pinned(conn) == [3, 4]
    add(conn, ("status_query", {"call_id": "call-1", "outcome": "succeeded", "request_id": "req-1"}))
    assert 3 not in pinned(conn)


def two_tools_disagree(conn) -> None:
    """Two stock tools report in_stock 3 and 0 for sku A: a contradiction at seqs 3 and 5."""
    conn.execute("SELECT pgctx.declare_tool('app_stock', 'read', ARRAY['sku']),"
                 " pgctx.declare_tool('wh_stock', 'read', ARRAY['sku'])")
    add(conn, ("user", pasted("is A in stock?")),
        ("tool_call", {"tool": "app_stock", "call_id": "a", "arguments": {"sku": "A"}}),
        ("tool_result", {"call_id": "a", "outcome": "succeeded", "result": {"in_stock": 3}}),
        ("tool_call", {"tool": "wh_stock", "call_id": "w", "arguments": {"sku": "A"}}),
        ("tool_result", {"call_id": "w", "outcome": "succeeded", "result": {"in_stock": 0}}))


def test_a_contradiction_across_tools_stays_raw_until_a_later_reading(conn):
    two_tools_disagree(conn)
    triggers = conn.execute("SELECT reason, evidence, risk FROM pgctx.fold_triggers(%s) WHERE trigger_class = 'risk'",
                            (CID,)).fetchall()
    assert triggers == [("contradictory results about A: app_stock says in_stock = 3 (seq 3), wh_stock says 0 (seq 5)",
                         [3, 5], {"risk": "conflict", "identifiers": ["A"], "field": "in_stock"})]
    fold(conn)
    add(conn, *filler())
    fold(conn)
    assert pinned(conn) == [3, 5]
    add(conn, ("tool_call", {"tool": "app_stock", "call_id": "b", "arguments": {"sku": "A"}}),
        ("tool_result", {"call_id": "b", "outcome": "succeeded", "result": {"in_stock": 0}}))
    assert pinned(conn) == []


@pytest.mark.parametrize("correction, settles", [
    ({"key": "in_stock", "value": 0, "subject": "sku=A", "authority": "user"}, True),
    ({"key": "in_stock", "value": 0, "subject": "A", "authority": "user"}, True),
    ({"key": "in_stock", "value": 0, "authority": "user"}, True),
    ({"key": "in_stock", "value": 0, "subject": "sku=B", "authority": "user"}, False),  # another item
    ({"key": "price", "value": 5, "subject": "sku=A", "authority": "user"}, False),  # another field
])
def test_the_users_correction_of_the_field_settles_a_contradiction_across_tools(conn, correction, settles):
    two_tools_disagree(conn)
    fold(conn)
    add(conn, ("user", pasted("I counted the shelf myself")), ("correction", correction))
    assert pinned(conn) == ([] if settles else [3, 5])


def test_a_write_that_changes_what_a_read_said_is_no_contradiction(conn):
    conn.execute("SELECT pgctx.declare_tool('get_order', 'read', ARRAY['order_id'])")
    add(conn, ("user", pasted("move 10086")),
        ("tool_call", {"tool": "get_order", "call_id": "g", "arguments": {"order_id": "10086"}}),
        ("tool_result", {"call_id": "g", "outcome": "succeeded", "result": {"date": "2026-09-02"}}),
        ("tool_call", {"tool": "set_date", "call_id": "s", "effect": "write", "idempotency_key": "k",
                       "arguments": {"order_id": "10086", "date": "2026-09-05"}}),
        ("tool_result", {"call_id": "s", "outcome": "succeeded", "request_id": "r", "result": {"date": "2026-09-05"}}))
    risks = conn.execute("SELECT reason FROM pgctx.fold_triggers(%s) WHERE trigger_class = 'risk'", (CID,)).fetchall()
    assert risks == []


@pytest.mark.parametrize("risk, release", [
    (("permission", {"text": "the caller owns order 10086"}), ("permission", {"text": "ownership re-checked"})),
    (("verification", {"ok": False, "what": "address"}), ("verification", {"ok": True, "what": "address"})),
])
def test_permissions_and_failed_verifications_stay_raw_until_superseded(conn, risk, release):
    add(conn, ("user", pasted("go ahead")), risk)
    fold(conn)
    add(conn, *filler())
    fold(conn)
    assert pinned(conn) == [2]
    if risk[0] == "verification":  # another thing verified does not release it
        add(conn, ("verification", {"ok": True, "what": "phone"}))
        assert pinned(conn) == [2]
    add(conn, release)
    assert pinned(conn) == []


def test_a_restart_stays_raw_while_the_call_it_interrupted_is_unresolved(conn):
    add(conn, ("user", pasted("refund 10086")), ("tool_call", call(1, tool="refund")))
    assert pgctx.recover(conn, CID)["recovery_event_seq"] == 3
    fold(conn)
    add(conn, *filler())
    fold(conn)
    assert pinned(conn) == [2, 3]
    pgctx.reconcile(conn, CID, lambda c: {"outcome": "not_performed"})
    assert 3 not in pinned(conn)


def test_risk_live_by_sql(conn):
    add(conn, ("user", pasted("x")), ("tool_call", call(1, tool="refund", effect="irreversible")),
        ("tool_result", result(1)), ("subtask_end", {"text": "done"}))
    live = "SELECT pgctx.risk_live(%s, %s::jsonb, %s, %s)"
    irreversible = '{"risk": "irreversible", "call_id": "call-1"}'
    assert conn.execute(live, (CID, irreversible, [2, 3], 3)).fetchone() == (True,)
    assert conn.execute(live, (CID, irreversible, [2, 3], 4)).fetchone() == (False,)
    assert conn.execute(live, (CID, '{"risk": "something else"}', [2], 4)).fetchone() == (False,)


def test_the_fold_policy_counts_the_evidence_kept_raw(conn):
    """The working context holds summary + evidence + unfolded events: fold_status counts all three
    (the evidence as context_events defines it), so a long piece of live evidence makes a capacity
    fold due that the summary and the history alone would not, and fold() reports it."""
    log = "\n".join(f"scan {i}: parcel {i % 9} seen at hub {i % 7}" for i in range(250))
    add(conn, ("user", {"text": "refund 10086"}), ("tool_call", call(1, tool="refund", effect="irreversible")),
        ("tool_result", result(1, log=log)), ("assistant", {"text": f"Refund sent. The service's trace:\n{LOG}"}))
    fold(conn)
    n = 0
    while True:  # history after the fold, until it outweighs the summary (so a fold makes the context smaller)
        n += 1
        add(conn, ("user", {"text": f"question {n}: is parcel {n} of order 10086 at the hub?"}),
            ("assistant", {"text": f"answer {n}: parcel {n} was scanned at the hub this morning"}))
        (s, h) = conn.execute("SELECT summary_tokens, unfolded_tokens FROM pgctx.fold_status(%s)", (CID,)).fetchone()
        if h > s:
            break
    ctx = pgctx.build_context(conn, CID)
    stored = conn.execute("SELECT sum(tokens) FROM pgctx.events WHERE conversation_id = %s AND seq IN (2, 3)",
                          (CID,)).fetchone()[0]
    (e,) = conn.execute("SELECT evidence_tokens FROM pgctx.fold_status(%s)", (CID,)).fetchone()
    assert [seq for seq, _ in ctx.evidence] == [2, 3] and e == stored > s + h
    between = s + h + e // 2  # over the summary and the history, under all three
    due, reason = conn.execute("SELECT due, reason FROM pgctx.fold_status(%s, capacity => %s, floor => %s)",
                               (CID, between, between)).fetchone()
    assert due and reason == f"due: capacity ({s + e + h} tokens over the threshold {between})"
    (why,) = conn.execute("SELECT reason FROM pgctx.fold_triggers(%s, %s, summary_tokens => %s)"
                          " WHERE trigger_class = 'capacity'", (CID, between, s + e)).fetchone()
    assert why == f"summary and evidence plus unfolded history are {s + e} + {h} = {s + e + h} tokens, over the threshold {between}"
    done = pgctx.fold(conn, CID, force=True)
    after = pgctx.build_context(conn, CID)
    assert [seq for seq, _ in after.evidence] == [2, 3]  # still live: nothing closed the refund's work
    (e_after,) = conn.execute("SELECT evidence_tokens FROM pgctx.fold_status(%s)", (CID,)).fetchone()
    # the context labels each evidence event (why it is kept), unless the run of folded events that
    # fills the budget reaches it: there it is shown in place, as it was
    assert e_after == e and pgctx.build_context(conn, CID, fill=0).sections["evidence"] > e
    assert {2, 3} <= set(after.folded) and after.sections["evidence"] == 0
    assert done.tokens_after == after.sections["task"] + after.sections["summary"] + e + after.sections["events"]
    assert done.tokens_before == s + e + h
