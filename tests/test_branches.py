"""Branches (article 十三): separate until a mainline is confirmed, never merged silently."""

from __future__ import annotations

import io

import psycopg
import pytest

import pgctx
from pgctx import errors
from pgctx.demo import STORY as DEMO_STORY
from pgctx.digest import anchors
from pgctx.fold_procedures import fold_request
from pgctx.summarizers import BuiltinSummarizer

SUMMARIZER = BuiltinSummarizer()


STORY = DEMO_STORY[:6]  # the order story up to the agent's reply

def fold(conn, cid: str) -> int:
    """Fold everything unfolded with the built-in summarizer; returns the new cursor. Its summaries
    are weighed as 0 tokens: the branches fold a few short events at a time, and the rule that a
    fold makes the context smaller (PC121, tests/test_fold_fidelity.py) is not what this tests."""
    request = fold_request(conn, cid)
    head = pgctx.committed_fold(conn, cid)
    version = pgctx.prepare_fold(conn, cid, expected_version=head.version, expected_cursor=head.cursor,
                                 new_cursor=request.to_seq, summary=SUMMARIZER.summarize(request), tokens=0)
    return pgctx.commit_fold(conn, cid, version)


@pytest.fixture
def source(conn) -> str:
    for kind, payload in STORY:
        pgctx.append(conn, "order", kind, payload)
    assert fold(conn, "order") == 6
    return "order"


def test_a_branch_chains_from_the_source_hash_at_the_fork_point(conn, source):
    assert pgctx.fork_conversation(conn, source, 6, "order-b") == "order-b"
    at_fork = conn.execute("SELECT hash FROM pgctx.events WHERE conversation_id = %s AND seq = 6", (source,)).fetchone()[0]
    assert pgctx.append(conn, "order-b", "user", {"text": "deliver on 09-05 instead"}) == 7
    assert pgctx.append(conn, source, "user", {"text": "keep 09-02"}) == 7
    first = conn.execute("SELECT prev_hash FROM pgctx.events WHERE conversation_id = 'order-b' AND seq = 7").fetchone()[0]
    assert first == at_fork
    assert pgctx.verify(conn, "order-b").ok and pgctx.verify(conn, source).ok
    # the branches stay separate: each log has its own seq 7
    texts = conn.execute("SELECT conversation_id, payload->>'text' FROM pgctx.events WHERE seq = 7 ORDER BY 1").fetchall()
    assert texts == [("order", "keep 09-02"), ("order-b", "deliver on 09-05 instead")]


def test_a_branch_folds_on_from_the_source_summary(conn, source):
    pgctx.fork_conversation(conn, source, 6, "order-b")
    assert pgctx.committed_fold(conn, "order-b").cursor == 6
    pgctx.append(conn, "order-b", "tool_call", {"tool": "refund", "call_id": "call-9", "idempotency_key": "k9",
                                                 "arguments": {"order_id": "10086"}})
    # (and the agent's words: a running call alone stays raw beside any summary, and folding only
    # it would not make the context smaller)
    pgctx.append(conn, "order-b", "assistant", {"text": "Refunding 10086 now; I will confirm when the service answers."})
    request = fold_request(conn, "order-b")
    assert request.previous_summary == pgctx.committed_fold(conn, source).summary
    assert fold(conn, "order-b") == 8
    summary = pgctx.committed_fold(conn, "order-b").summary
    assert summary["tool_state"]["call-1"]["request_id"] == "req-abc"  # carried over from the source
    assert summary["tool_state"]["call-9"]["status"] == "running"


def test_dropping_what_the_source_summary_kept_is_refused_on_the_branch(conn, source):
    pgctx.fork_conversation(conn, source, 6, "order-b")
    pgctx.append(conn, "order-b", "user", {"text": "and one more thing"})
    request = fold_request(conn, "order-b")
    candidate = SUMMARIZER.summarize(request)
    del candidate["tool_state"]["call-1"]
    with pytest.raises(errors.MustKeepMissing):
        pgctx.prepare_fold(conn, "order-b", expected_version=0, expected_cursor=6, new_cursor=7, summary=candidate)


@pytest.mark.parametrize("at_seq", [0, 3, 7, None])
def test_forks_are_taken_only_at_the_committed_fold_boundary(conn, source, at_seq):
    pgctx.append(conn, source, "user", {"text": "unfolded"})
    with pytest.raises(errors.ForkNotAtFold):
        pgctx.fork_conversation(conn, source, at_seq, "order-b")
    assert conn.execute("SELECT count(*) FROM pgctx.conversations").fetchone()[0] == 1


def test_fork_refusals(conn, source):
    with pytest.raises(errors.ConversationNotFound):
        pgctx.fork_conversation(conn, "missing", 6, "x")
    with pytest.raises(errors.InvalidConversationId):
        pgctx.fork_conversation(conn, source, 6, " padded")
    pgctx.fork_conversation(conn, source, 6, "order-b")
    with pytest.raises(errors.ConversationExists):
        pgctx.fork_conversation(conn, source, 6, "order-b")
    pgctx.append(conn, "lonely", "user", {})
    with pytest.raises(errors.NotABranch):
        pgctx.confirm_mainline(conn, "lonely")


@pytest.mark.parametrize("own_events", [0, 2])
def test_a_fork_of_a_branch_at_its_fork_point_is_a_fork_of_its_source(conn, source, own_events):
    # before its first fold a branch's committed boundary is its fork point, a seq (and a fold) of
    # its source's; forking there failed with an untyped error (found by the stateful fuzz)
    pgctx.fork_conversation(conn, source, 6, "order-b")
    for i in range(own_events):
        pgctx.append(conn, "order-b", "user", {"text": f"on the branch {i}"})
    assert pgctx.fork_conversation(conn, "order-b", 6, "order-c") == "order-c"
    row = conn.execute("SELECT forked_from, fork_version, base_seq, family, branch_status FROM pgctx.conversations"
                       " WHERE conversation_id = 'order-c'").fetchone()
    assert row == (source, 1, 6, source, "open")
    assert pgctx.committed_fold(conn, "order-c") == pgctx.committed_fold(conn, "order-b")
    assert pgctx.committed_fold(conn, "order-c").summary == pgctx.committed_fold(conn, source).summary
    assert pgctx.append(conn, "order-c", "user", {"text": "plan c"}) == 7
    assert pgctx.verify(conn, "order-c").ok
    assert fold(conn, "order-c") == 7


def test_retention_keeps_the_checkpoint_a_branch_continues_from(conn, source):
    pgctx.fork_conversation(conn, source, 6, "order-b")  # continues from version 1 of the source
    pgctx.append(conn, source, "user", {"text": "keep 09-02"})
    assert fold(conn, source) == 7  # version 2: version 1 is no longer the source's committed fold
    kept = pgctx.committed_fold(conn, "order-b").summary
    assert conn.execute("SELECT pgctx.prune_checkpoints(%s, 1)", (source,)).fetchone()[0] == 0
    with pytest.raises(errors.CheckpointRetention, match="branch order-b continues from it"), errors.translated():
        conn.execute("DELETE FROM pgctx.checkpoints WHERE conversation_id = %s AND version = 1", (source,))
    # still after the branch folds: a fallback of the branch to its fork point continues from it again
    pgctx.append(conn, "order-b", "user", {"text": "deliver on 09-05 instead"})
    assert fold(conn, "order-b") == 7
    assert conn.execute("SELECT pgctx.prune_checkpoints(%s, 1)", (source,)).fetchone()[0] == 0
    assert conn.execute("SELECT version FROM pgctx.checkpoints WHERE conversation_id = %s ORDER BY 1",
                        (source,)).fetchall() == [(1,), (2,)]
    assert conn.execute("SELECT pgctx.base_summary('order-b', 0)").fetchone()[0] == kept


def test_confirming_a_mainline_abandons_the_others_without_merging(conn, source):
    pgctx.fork_conversation(conn, source, 6, "order-b")
    pgctx.fork_conversation(conn, source, 6, "order-c")
    pgctx.append(conn, "order-b", "user", {"text": "plan b"})
    before = conn.execute("SELECT conversation_id, seq, hash FROM pgctx.events ORDER BY 1, 2").fetchall()

    decision = pgctx.confirm_mainline(conn, "order-b")
    assert decision == {"mainline": "order-b", "abandoned": ["order", "order-c"], "changed": True}
    rows = dict(conn.execute("SELECT conversation_id, branch_status FROM pgctx.branches").fetchall())
    assert rows == {"order": "abandoned", "order-b": "mainline", "order-c": "abandoned"}
    # nothing merged: the old events are untouched; the decision is one event on the mainline
    after = conn.execute("SELECT conversation_id, seq, hash FROM pgctx.events ORDER BY 1, 2").fetchall()
    assert set(before) <= set(after)
    merge = conn.execute(
        "SELECT seq, payload FROM pgctx.events WHERE kind = 'branch_merge'"
    ).fetchall()
    assert merge == [(8, {"mainline": "order-b", "abandoned": ["order", "order-c"], "family": "order"})]
    assert len(after) == len(before) + 1

    # abandoned branches refuse appends, forks and confirmation; a repeat confirmation is a no-op
    for call in (lambda: pgctx.append(conn, "order-c", "user", {}),
                 lambda: pgctx.confirm_mainline(conn, "order"),
                 lambda: pgctx.fork_conversation(conn, "order-c", 6, "order-d")):
        with pytest.raises(errors.BranchAbandoned):
            call()
    assert pgctx.confirm_mainline(conn, "order-b")["changed"] is False
    assert conn.execute("SELECT count(*) FROM pgctx.events").fetchone()[0] == len(after)


def test_recover_records_the_calls_interrupted_on_an_abandoned_branch(conn, source):
    # an abandoned branch refuses appends, but recover must still make its running calls unknown
    # (it raised BranchAbandoned: found by the stateful fuzz)
    pgctx.fork_conversation(conn, source, 6, "order-b")
    pgctx.append(conn, "order-b", "tool_call", {"tool": "refund", "call_id": "call-9", "idempotency_key": "k9",
                                                 "effect": "irreversible", "arguments": {"order_id": "10086"}})
    pgctx.confirm_mainline(conn, source)
    report = pgctx.recover(conn, "order-b", full_check=True)
    assert report["recovery_event_seq"] == 8 and report["needs_human"] == []
    assert [(u["call_id"], u["idempotency_key"]) for u in report["unknown_side_effects"]] == [("call-9", "k9")]
    assert pgctx.verify(conn, "order-b").ok
    again = pgctx.recover(conn, "order-b", full_check=True)
    assert (again["changed"], again["recovery_event_seq"]) == (False, None)
    with pytest.raises(errors.BranchAbandoned):
        pgctx.append(conn, "order-b", "recovery", {"interrupted_calls": []})


def test_branch_status_and_fork_point_cannot_be_rewritten_through_sql(conn, source):
    pgctx.fork_conversation(conn, source, 6, "order-b")
    pgctx.confirm_mainline(conn, "order-b")
    for statement in (
        "UPDATE pgctx.conversations SET branch_status = 'open' WHERE conversation_id = 'order'",
        "UPDATE pgctx.conversations SET base_seq = 2 WHERE conversation_id = 'order-b'",
        "UPDATE pgctx.conversations SET forked_from = NULL, base_seq = 0 WHERE conversation_id = 'order-b'",
        "UPDATE pgctx.conversations SET family = 'other' WHERE conversation_id = 'order-b'",
    ):
        with pytest.raises(psycopg.Error) as info:
            conn.execute(statement)
        assert info.value.sqlstate == "PC011", statement


def test_a_branch_with_a_forged_genesis_fails_verification(conn, source):
    pgctx.fork_conversation(conn, source, 6, "order-b")
    pgctx.append(conn, "order-b", "user", {"text": "plan b"})
    conn.execute("ALTER TABLE pgctx.conversations DISABLE TRIGGER conversations_guard_row")
    conn.execute("UPDATE pgctx.conversations SET genesis_hash = '\\x00' WHERE conversation_id = 'order-b'")
    conn.execute("ALTER TABLE pgctx.conversations ENABLE ALWAYS TRIGGER conversations_guard_row")
    report = pgctx.verify(conn, "order-b")
    assert (report.ok, report.first_bad_seq) == (False, 7)
    assert "fork point" in report.reason


def test_a_branch_bundle_verifies_offline_from_its_fork_point(conn, source):
    pgctx.fork_conversation(conn, source, 6, "order-b")
    pgctx.append_many(conn, "order-b", [{"kind": "user", "payload": {"n": i}} for i in range(3)])
    out = io.StringIO()
    assert pgctx.export_bundle(conn, "order-b", out) == 3
    report = pgctx.verify_bundle(out.getvalue().encode().split(b"\n"))
    assert (report.ok, report.checked, report.head_seq) == (True, 3, 9)


def test_a_digest_of_a_branch_taken_at_its_fork_point_anchors_it(conn, source):
    # before its first event a branch's head is its fork point, a seq of its source's: verifying
    # against that digest said "history rewritten" (found by the stateful fuzz)
    pgctx.fork_conversation(conn, source, 6, "order-b")
    at_fork = anchors(pgctx.take_digest(conn))["order-b"]
    assert at_fork[0] == 6
    pgctx.append_many(conn, "order-b", [{"kind": "user", "payload": {"n": i}} for i in range(2)])
    report = pgctx.verify(conn, "order-b", anchor_seq=at_fork[0], anchor_hash=at_fork[1])
    assert (report.ok, report.anchored) == (True, True), report.reason
    out = io.StringIO()
    pgctx.export_bundle(conn, "order-b", out)
    offline = pgctx.verify_bundle(out.getvalue().encode().split(b"\n"), anchor_seq=at_fork[0], anchor_hash=at_fork[1])
    assert (offline.ok, offline.anchored) == (True, True), offline.reason
    forged = pgctx.verify(conn, "order-b", anchor_seq=6, anchor_hash="00" * 32)
    assert (forged.ok, forged.first_bad_seq, forged.anchored) == (False, 6, False)
    # an anchor before the fork point is the source's to verify
    with pytest.raises(errors.InvalidVerifyRange) as refused:
        pgctx.verify(conn, "order-b", anchor_seq=5, anchor_hash=at_fork[1])
    assert "belong to the source order:" in refused.value.hint


def test_recover_on_a_branch_is_quiet_and_falls_back_to_the_fork_point(conn, source):
    pgctx.fork_conversation(conn, source, 6, "order-b")
    pgctx.append_many(conn, "order-b", [{"kind": "user", "payload": {"n": i}} for i in range(3)])
    assert fold(conn, "order-b") == 9
    assert pgctx.recover(conn, "order-b")["changed"] is True  # records the verified point
    assert pgctx.recover(conn, "order-b")["changed"] is False
    conn.execute("ALTER TABLE pgctx.events DISABLE TRIGGER events_refuse_change")
    conn.execute("UPDATE pgctx.events SET payload = '{\"n\": 99}' WHERE conversation_id = 'order-b' AND seq = 8")
    conn.execute("ALTER TABLE pgctx.events ENABLE ALWAYS TRIGGER events_refuse_change")
    report = pgctx.recover(conn, "order-b", full_check=True)
    assert report["chain"]["first_bad_seq"] == 8
    assert report["committed"]["version"] == 0 and report["committed"]["cursor"] == 6
