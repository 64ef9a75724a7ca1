"""The fold policy (article 三, 五; sql/160_fold_triggers.sql, fold_status): a raw tail stays
unfolded, structural and risk triggers wait for a floor, capacity counts the summary too, a fold
must make the context smaller (a risk's too), and a conversation that fits is never folded. Each case is read through SQL (fold_status) and through pgctx.fold."""

from __future__ import annotations

import pgctx
from pgctx.fold_procedures import fold_request
from pgctx.summarizers import BuiltinSummarizer
from pgctx.tokens import Budget
from tests.events import call, pasted, result

CID = "policy"


def budget(window: int, **shares) -> Budget:
    """B = window exactly (nothing reserved), with the given policy shares."""
    return Budget(window=window, fixed_input=0, output=0, reasoning=0, margin=0, **shares)


def add(conn, *events) -> list[int]:
    return [pgctx.append(conn, CID, kind, payload) for kind, payload in events]


DEPOT = "the parcel is still at the depot and the carrier has not scanned it again since this morning; " * 4


def chatter(n: int, start: int = 0) -> list[tuple[str, dict]]:
    """n messages of about 100 tokens: what a fold of a few of them shrinks (PC121)."""
    return [("user" if i % 2 == 0 else "assistant", {"text": f"message {start + i} about order 10086, nothing new: {DEPOT}"})
            for i in range(n)]


def tokens(conn, after: int = 0) -> int:
    return conn.execute("SELECT coalesce(sum(tokens), 0) FROM pgctx.events WHERE conversation_id = %s AND seq > %s",
                        (CID, after)).fetchone()[0]


def status(conn, b: Budget) -> dict:
    row = conn.execute("SELECT * FROM pgctx.fold_status(%s, %s, %s, %s)", (CID, b.threshold, b.floor, b.tail))
    return dict(zip([c.name for c in row.description], row.fetchone()))


def commit_summary(conn, upto: int, tokens: int) -> None:
    """Fold 1..upto by hand, the client's count of its summary being ``tokens``."""
    request = fold_request(conn, CID, upto)
    version = pgctx.prepare_fold(conn, CID, expected_version=request.base_version, expected_cursor=request.from_seq,
                                 new_cursor=upto, summary=BuiltinSummarizer().summarize(request), tokens=tokens)
    pgctx.commit_fold(conn, CID, version)


def test_a_conversation_under_the_floor_is_never_folded_whatever_fires(conn):
    add(conn, ("user", {"text": "refund order 10086 and move its delivery"}),
        ("tool_call", call(1)), ("tool_result", result(1)),                                     # structural
        ("tool_call", call(2, tool="refund", effect="irreversible")), ("tool_result", result(2, "timeout")))  # risk
    b = budget(2 * tokens(conn), structural_floor=0.6)
    fired = conn.execute("SELECT trigger_class FROM pgctx.fold_triggers(%s, %s)", (CID, b.threshold)).fetchall()
    assert {c for (c,) in fired} == {"structural", "risk"}
    s = status(conn, b)
    assert not s["due"] and s["reason"] == (f"not due: summary, evidence and history ({tokens(conn)} tokens) are under the floor "
                                            f"{b.floor} that structural and risk triggers wait for")
    # nothing can be due there, so the policy computes no trigger and no boundary (the cheap check
    # a turn pays): NULL, not an empty list
    assert [s[k] for k in ("triggers", "boundary", "full_boundary", "fold_tokens")] == [None] * 4
    assert s["unfolded_tokens"] == tokens(conn) and s["evidence_tokens"] == 0 and s["head_seq"] == 5
    done = pgctx.fold(conn, CID, budget=b)
    assert not done.committed and done.reason == s["reason"]
    ctx = pgctx.build_context(conn, CID, budget=b)
    assert (ctx.version, [seq for seq, _, _ in ctx.events]) == (0, [1, 2, 3, 4, 5])  # the raw history, all of it


def test_over_the_floor_a_structural_fold_leaves_the_raw_tail(conn):
    add(conn, *chatter(10), ("tool_call", call(1)), ("tool_result", result(1)), *chatter(6, 10))
    h = tokens(conn)
    b = budget(int(h / 0.65), structural_floor=0.6, raw_tail=0.15)  # H just over the floor
    s = status(conn, b)
    assert s["due"] and s["reason"] == "due: structural" and s["full_boundary"] == 18
    raw = tokens(conn, s["boundary"])
    assert 0 < raw <= b.tail < tokens(conn, s["boundary"] - 1)  # as many newest events as fit in the tail
    assert s["fold_tokens"] == h - raw
    done = pgctx.fold(conn, CID, budget=b)
    assert done.committed and done.cursor == s["boundary"] and done.policy == "due: structural"
    ctx = pgctx.build_context(conn, CID, budget=b, fill=0)
    assert [seq for seq, _, _ in ctx.events] == list(range(done.cursor + 1, 19))  # C_n = S_k + E_(k+1..n)


def test_the_tail_keeps_units_whole_and_at_least_the_newest_event(conn):
    log = "scan line " * 300
    add(conn, *chatter(8), ("tool_call", call(1, tool="lookup", effect="read")),
        ("tool_result", result(1, log=log)))                                                  # 9, 10: a long answer
    b = budget(tokens(conn), structural_floor=0.1, raw_tail=0.05)  # the answer alone is over the tail
    s = status(conn, b)
    # the newest event stays raw, and with it the call it answers: the fold ends before the call
    assert s["due"] and s["boundary"] == 8
    assert pgctx.fold(conn, CID, budget=b).cursor == 8
    assert [seq for seq, _, _ in pgctx.build_context(conn, CID, budget=b, fill=0).events] == [9, 10]


def test_capacity_counts_the_committed_summary(conn):
    add(conn, *chatter(12))
    commit_summary(conn, 4, tokens=300)
    h = tokens(conn, 4)
    b = budget(int((300 + h) / 0.8) - 1, alpha=0.8, structural_floor=0.8, raw_tail=0.05)
    assert h < b.threshold < 300 + h  # over αB only with the summary counted
    s = status(conn, b)
    assert s["summary_tokens"] == 300 and s["unfolded_tokens"] == h
    capacity = [t for t in s["triggers"] if t["class"] == "capacity"]
    assert capacity == [{"class": "capacity", "evidence": [],
                         "reason": f"summary and evidence plus unfolded history are 300 + {h} = {300 + h} tokens, over the threshold {b.threshold}"}]


def test_a_fold_that_would_not_make_the_context_smaller_is_not_due_even_for_a_risk(conn):
    add(conn, ("user", pasted("one")), ("user", pasted("two")),  # 1, 2: ~960 tokens
        *chatter(6), ("tool_call", call(1)), ("tool_result", result(1, log=None)))
    commit_summary(conn, 2, tokens=900)  # a summary larger than what is left to fold
    b = budget(2400, structural_floor=0.5, raw_tail=0.01)
    s = status(conn, b)
    assert b.floor < s["summary_tokens"] + s["unfolded_tokens"] < b.threshold and s["fold_tokens"] <= 900
    assert not s["due"] and s["reason"] == (f"not due: folding {s['fold_tokens']} tokens into a summary of 900 "
                                            "would not make the context smaller")
    assert not pgctx.fold(conn, CID, budget=b).committed
    # a risk too: its events would stay raw beside a summary that grew (PC121 has no exception
    # for it), so the fold is not worth a summarizer call
    add(conn, ("tool_call", call(2, tool="refund", effect="irreversible")), ("tool_result", result(2, "timeout", log=None)),
        ("user", {"text": "did the refund go through?"}))
    risky = status(conn, b)
    assert "risk" in {t["class"] for t in risky["triggers"]}
    assert not risky["due"] and risky["reason"].endswith("would not make the context smaller")
    assert not pgctx.fold(conn, CID, budget=b).committed


def test_force_folds_to_the_newest_boundary_whatever_the_policy(conn):
    add(conn, *chatter(4), ("tool_call", call(1)))  # 5: waiting for its result (a fold may take it)
    b = budget(100_000)
    s = status(conn, b)
    assert not s["due"] and s["full_boundary"] is None  # under the floor: no boundary computed
    forced = conn.execute("SELECT full_boundary, boundary FROM pgctx.fold_status(%s, %s, NULL, %s)",
                          (CID, b.threshold, b.tail)).fetchone()  # what fold(force=True) asks: no floor
    assert forced[0] == 5 and forced[1] <= 5
    done = pgctx.fold(conn, CID, budget=b, force=True)
    assert done.committed and done.cursor == 5 and done.policy == "forced"


def test_without_floor_and_tail_sql_callers_get_any_trigger_to_the_newest_boundary(conn):
    add(conn, *chatter(4), ("tool_call", call(1)), ("tool_result", result(1)))
    row = conn.execute("SELECT due, reason, boundary, full_boundary FROM pgctx.fold_status(%s)", (CID,)).fetchone()
    assert row == (True, "due: structural", 6, 6)
    quiet = conn.execute("SELECT due, reason FROM pgctx.fold_status(%s)", ("nobody",)).fetchone()
    assert quiet == (None, None)  # no such conversation: every column NULL


def test_budget_shares_are_checked():
    for bad in ({"raw_tail": 0.9}, {"structural_floor": 1.5}, {"summary_share": -0.1}):
        try:
            Budget(**bad)
        except ValueError as exc:
            assert next(iter(bad)) in str(exc)
        else:
            raise AssertionError(f"{bad} accepted")
    b = Budget(window=10_000, fixed_input=0, output=0, reasoning=0, margin=0, raw_tail=0)
    assert (b.tail, b.floor, b.summary_limit, b.evidence_limit) == (None, 7_000, 4_000, 3_500)


def test_a_call_with_no_fold_due_computes_no_fold_input(dsn):
    """fold() after every turn must be cheap when nothing is due: must_keep runs only for a fold."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SET track_functions = 'all'")

        def must_keep_calls() -> int:
            # a backend flushes its statistics when it goes idle, at most once a second unless
            # told otherwise: forced, the flush happens as this statement ends, under any load
            # (a sleep of 1.2 s assumed the once-a-second timer had fired by then)
            conn.execute("SELECT pg_stat_force_next_flush()")
            conn.execute("SELECT pg_stat_clear_snapshot()")
            return conn.execute("SELECT coalesce(sum(calls), 0) FROM pg_stat_user_functions"
                                " WHERE funcname = 'must_keep'").fetchone()[0]

        add(conn, *chatter(4))
        start = must_keep_calls()
        for _ in range(5):
            assert not pgctx.fold(conn, CID, budget=budget(100_000)).committed
        assert must_keep_calls() == start
        assert pgctx.fold(conn, CID, budget=budget(100_000), force=True).committed
        assert must_keep_calls() > start  # (the counter does count)
