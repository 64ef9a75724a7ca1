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

from psycopg.conninfo import make_conninfo

from bench.service_workload import Chaos, Plan, check_pgctx, run


def test_acknowledged_work_survives_kills_terminations_and_timeouts(dsn, roles, tmp_path):
    plan = Plan("pgctx", make_conninfo(dsn, user=roles.app, password=roles.password), dsn, str(tmp_path),
                layout=[1] * 6 + [4] * 2, conversations=50, seconds=35, window=3_000,
                chaos=Chaos(kill_every=3, terminate_every=0.7, timeout_every=1.5))
    timing, chaos, seen = run(plan)
    checks = check_pgctx(dsn, seen)

    assert checks.violations == []
    # every error a worker met is one the chaos causes (a terminated session, a statement timeout,
    # the failing summarizer); no worker process died but by the chaos's SIGKILL
    assert seen.unexpected() == {}, seen.errors
    assert (chaos.crashes, chaos.stop_kills) == ([], 0)
    # the chaos happened, and reached what the checks are about
    assert chaos.kills > 0 and chaos.restarts > 0 and seen.recoveries, chaos
    assert chaos.terminations > 0 and any(error == "AdminShutdown" for _, error in seen.errors), seen.errors
    assert chaos.timeouts > 0 and any(error == "QueryCanceled" for _, error in seen.errors), seen.errors
    assert checks.facts.get("committed", 0) > 0 and seen.folds, checks.facts
    assert checks.facts["unanswered"] > 0, checks.facts  # interrupted calls that recovery had to list
    assert seen.completed > 0 and timing.window_turns > 0
