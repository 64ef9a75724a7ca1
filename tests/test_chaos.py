"""Chaos load (issue 15): a short run of the service benchmark's workload (bench/service_workload.py).

Fourteen workers (six single-threaded processes and two of four threads, as the application role)
take agent turns on 50 conversations — user message, working context, a tool call
with its idempotency key and its result, the reply, a fold when due with the built-in, a slow or a
failing summarizer — for 35 seconds once all are up, while a chaos thread SIGKILLs worker
processes (and restarts them), terminates their sessions and sets millisecond statement timeouts
on them; a 3,000-token window, so that conversations fold every few turns. Every acknowledged
append, fold and recovery is logged by the worker as it gets it. Afterwards the same checks as the
benchmark's: the chains verify, no seq gap, every acknowledged append is there as acknowledged,
no fold committed twice, every interrupted call running or unknown and, after pgctx.recover on
every conversation, unknown and listed with its idempotency key, nothing PREPARED, a second
recover changes nothing. The test also asserts that the chaos did hit: without kills,
terminations, folds and interrupted calls the checks above would hold trivially.
"""

from __future__ import annotations

import psycopg
from psycopg.conninfo import make_conninfo

import pgctx
from bench.service_workload import Chaos, Plan, check_pgctx, run
from pgctx import db
from pgctx.fold_loop import ATTEMPTS, _fold
from tests.events import call, result
from tests.fold_worker import pause_after


def test_acknowledged_work_survives_kills_terminations_and_timeouts(dsn, roles, tmp_path):
    plan = Plan("pgctx", make_conninfo(dsn, user=roles.app, password=roles.password), dsn, str(tmp_path),
                layout=[1] * 6 + [4] * 2, conversations=50, seconds=35, window=3_000,
                chaos=Chaos(kill_every=70, terminate_every=10, timeout_every=20))
    timing, chaos, seen = run(plan)
    checks = check_pgctx(dsn, seen)

    assert checks.violations == []
    # every error a worker met is one the chaos causes (a terminated session, a statement timeout,
    # the failing summarizer); no worker process died but by the chaos's SIGKILL
    assert seen.unexpected() == {}, seen.errors
    assert (chaos.crashes, chaos.stop_kills) == ([], 0), "\n\n".join(chaos.crashes)  # each whole: a crash's stderr
    # the chaos happened, and reached what the checks are about
    assert chaos.kills > 0 and chaos.restarts > 0 and seen.recoveries, chaos
    assert chaos.terminations > 0 and any(error == "AdminShutdown" for _, error in seen.errors), seen.errors
    assert chaos.timeouts > 0 and any(error == "QueryCanceled" for _, error in seen.errors), seen.errors
    assert checks.facts.get("committed", 0) > 0 and seen.folds, checks.facts
    assert checks.facts["unanswered"] > 0, checks.facts  # interrupted calls that recovery had to list
    assert seen.completed > 0 and timing.window_turns > 0


def test_fold_whose_candidate_recovery_committed_meanwhile_does_not_fail(conn, dsn):
    """Found by the chaos run: a restarted worker recovers a conversation while another worker's
    fold() is between its prepare and its commit. Recovery finds the PREPARED candidate valid and
    commits it (sql/110_recover.sql); fold()'s own commit_fold then meets a committed checkpoint.
    The fold fold() meant to make is committed, once: fold() must say so, as it does for a
    concurrent fold that covered its range, not raise."""
    cid = "order-10086"
    for kind, payload in [("user", {"text": "where is order 10086?"}),
                          ("tool_call", call(1, tool="lookup_order", effect="read")),
                          ("tool_result", result(1)),
                          ("assistant", {"text": "Order 10086 is on its way."})]:
        pgctx.append(conn, cid, kind, payload)
    reports = []
    with psycopg.connect(dsn, autocommit=True) as restarted_worker:
        op = _fold(cid, pgctx.BuiltinSummarizer(), pgctx.Budget(), True, None, ATTEMPTS)
        folded = db.run(conn, pause_after(op, db.PREPARE_FOLD,
                                          lambda rows: reports.append(pgctx.recover(restarted_worker, cid))))
    assert reports[0]["prepared"] == [{"version": 1, "cursor": 4, "action": "committed"}], reports
    assert (folded.version, folded.cursor) == (1, 4), folded
    assert conn.execute("SELECT version, phase FROM pgctx.checkpoints WHERE conversation_id = %s",
                        (cid,)).fetchall() == [(1, "COMMITTED")]


def test_fold_whose_running_call_got_its_result_meanwhile_folds_again(conn, dsn):
    """Found by the chaos run: two workers on one conversation. One folds while the other's call
    is waiting (a waiting call may be folded, sql/160 fold_boundary); the call's result is appended
    while the summarizer runs, so the candidate's boundary now splits the call from its result
    (PC103). That is a lost race, not a bad candidate: fold() re-reads and folds what is due now,
    the call and its result together."""
    cid = "order-10087"
    for kind, payload in [("user", {"text": "update order 10087"}),
                          ("tool_call", call(1, effect="read")), ("tool_result", result(1)),
                          ("tool_call", call(2, effect="read"))]:
        pgctx.append(conn, cid, kind, payload)

    class OtherWorker:  # the probe runs between the summarizer and the prepare
        requests: list = []

        def check(self, request, candidate):
            if not self.requests:
                with psycopg.connect(dsn, autocommit=True) as other:
                    pgctx.append(other, cid, "tool_result", result(2))
            self.requests.append(request)

    probe = OtherWorker()
    folded = pgctx.fold(conn, cid, force=True, probe=probe)
    assert [r.to_seq for r in probe.requests] == [4, 5], probe.requests  # the call alone, then with its result
    assert (folded.committed, folded.cursor, folded.attempts) == (True, 5, 2), folded
    assert "splits tool call call-2" in folded.conflicts[0], folded.conflicts
