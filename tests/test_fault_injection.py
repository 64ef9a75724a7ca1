"""Fault injection with real processes (article 十八): SIGKILL a client inside pgctx.fold() or a tool call.

A real Python process (tests/fold_worker.py) connects to the test's database and runs the real
code: ``pgctx.fold()`` with a summarizer that blocks (the model call in flight), the very
operation ``pgctx.fold()`` runs (``pgctx.fold_loop._fold`` on ``pgctx.db.run``) paused right after
its prepare or its commit step, or an agent that has recorded a tool call and is about to make
it. When the worker reaches that point it prints one JSON line; the parent then kills it with
SIGKILL (no cleanup, no exception handler, no rollback by the client) and checks what
``pgctx.recover`` makes of the state left behind:

* no event is lost or added behind the application's back, and the chain verifies;
* no fold is committed twice: versions are consecutive, committed folds tile the history once;
* a PREPARED fold is resolved (committed when it is still valid, as sql/110_recover.sql says);
* an interrupted tool call is ``unknown`` with its idempotency key, never re-run, and a retry is
  allowed only once the service says it did not act;
* a second ``recover`` changes nothing.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import pgctx
from pgctx.fold_procedures import fold_request
from tests.events import LOG
from tests.fold_worker import TOOL_CALL
from tests.test_fold_recovery import assert_quiet_rerun

CID = "order-10086"
ROOT = Path(__file__).resolve().parent.parent
WORKER = ROOT / "tests" / "fold_worker.py"
SIGNAL_TIMEOUT = 30  # seconds for a worker to start (import pgctx, connect) and reach its stopping point
EXIT_TIMEOUT = 10


# --- the worker process -------------------------------------------------------------------------


class Worker:
    """A running tests/fold_worker.py; ``signal`` is the line it printed at its stopping point."""

    def __init__(self, scenario: str, dsn: str, errors: Path):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        self.errors = errors
        # stderr to a file: a chatty worker can never block on a full pipe nobody reads
        with errors.open("w") as err:
            self.proc = subprocess.Popen([sys.executable, str(WORKER), scenario, dsn, CID], cwd=ROOT, env=env,
                                         stdout=subprocess.PIPE, stderr=err, text=True)
        # readline() has no timeout: a reader thread hands lines over a queue, so a worker that
        # hangs or dies before its stopping point fails the test instead of hanging it
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.signal = self._wait_for_signal(scenario)

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put("")  # end of file: the worker exited (or was killed)

    def _wait_for_signal(self, scenario: str) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=SIGNAL_TIMEOUT)
        except queue.Empty:
            self.kill()
            pytest.fail(f"worker {scenario} did not reach its stopping point in {SIGNAL_TIMEOUT}s:\n"
                        f"{self.errors.read_text()}")
        if not line:
            self.proc.wait(timeout=EXIT_TIMEOUT)
            pytest.fail(f"worker {scenario} exited ({self.proc.returncode}) before its stopping point:\n"
                        f"{self.errors.read_text()}")
        signalled = json.loads(line)
        assert signalled["scenario"] == scenario and "error" not in signalled, signalled
        return signalled

    def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer would: the process gets no chance to clean up."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=EXIT_TIMEOUT)
        self.proc.stdout.close()

    def killed_at_stopping_point(self) -> None:
        self.kill()
        # -9: it died of the kill, not by finishing or failing on its own (which exits 3 or 4)
        assert self.proc.returncode == -signal.SIGKILL, (self.proc.returncode, self.errors.read_text())


@pytest.fixture
def spawn(dsn, tmp_path):
    """spawn(scenario) -> a Worker stopped at its point; every worker is killed at teardown."""
    started: list[Worker] = []

    def _spawn(scenario: str) -> Worker:
        worker = Worker(scenario, dsn, tmp_path / f"{scenario}-{len(started)}.stderr")
        started.append(worker)
        return worker

    yield _spawn
    for worker in started:
        worker.kill()


# --- the history, and what must hold after recovery ---------------------------------------------


def seed(conn, *, folded: bool) -> None:
    """Events 1-4 (a read call answered), optionally folded as version 1, then events 5-8 (a write
    call answered): with ``folded`` the worker's fold covers 5..8 as version 2."""
    pgctx.append(conn, CID, "user", {"text": "order 10086 arrived damaged, please refund it"})
    pgctx.append(conn, CID, "tool_call", {"tool": "lookup_order", "call_id": "call-1", "idempotency_key": "idem-1",
                                          "arguments": {"order_id": "10086"}, "effect": "read"}, event_key="call-1")
    pgctx.append(conn, CID, "tool_result", {"call_id": "call-1", "outcome": "succeeded", "request_id": "req-1",
                                            "log": LOG})
    pgctx.append(conn, CID, "assistant", {"text": "Order 10086: 25.00, delivered yesterday."})
    if not folded:
        return
    first = pgctx.fold(conn, CID, force=True)
    assert (first.committed, first.version, first.cursor) == (True, 1, 4), first
    pgctx.append(conn, CID, "user", {"text": "also note: deliver replacements to the office"})
    pgctx.append(conn, CID, "tool_call", {"tool": "update_order", "call_id": "call-2", "idempotency_key": "idem-2",
                                          "arguments": {"order_id": "10086", "address": "office"},
                                          "effect": "write"}, event_key="call-2")
    pgctx.append(conn, CID, "tool_result", {"call_id": "call-2", "outcome": "succeeded", "request_id": "req-2",
                                            "log": LOG})
    pgctx.append(conn, CID, "assistant", {"text": "Noted: replacements go to the office."})


def events(conn) -> list[tuple]:
    return conn.execute("SELECT seq, kind, payload, hash FROM pgctx.events WHERE conversation_id = %s ORDER BY seq",
                        (CID,)).fetchall()


def fold_history(conn) -> list[tuple]:
    """(version, phase, is_committed_fold, base_version, range_from, range_to, discard_reason), by version."""
    return conn.execute(
        "SELECT version, phase, is_committed_fold, base_version, range_from, range_to, discard_reason"
        " FROM pgctx.fold_history WHERE conversation_id = %s ORDER BY version", (CID,)).fetchall()


def committed(conn) -> tuple[int, int, dict | None]:
    head = pgctx.committed_fold(conn, CID)
    return head.version, head.cursor, head.summary


def assert_chain_intact(conn, expected_events: list[tuple]) -> None:
    """Every event is there, as it was appended, and the hash chain verifies from genesis."""
    assert events(conn) == expected_events
    report = pgctx.verify(conn, CID)
    assert (report.ok, report.checked, report.head_seq) == (True, len(expected_events), len(expected_events)), report


def assert_no_fold_twice(conn) -> None:
    """Versions 1..n without a gap; nothing left PREPARED; the COMMITTED folds tile the history once,
    each continuing the previous one; the committed fold is the last of them."""
    rows = fold_history(conn)
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1)), rows
    assert not [r for r in rows if r[1] == "PREPARED"], rows
    done = [r for r in rows if r[1] == "COMMITTED"]
    previous_version, previous_to = 0, 0
    for version, _, _, base_version, range_from, range_to, _ in done:
        assert (base_version, range_from) == (previous_version, previous_to + 1), rows
        assert range_to >= range_from, rows
        previous_version, previous_to = version, range_to
    assert [r[0] for r in rows if r[2]] == ([previous_version] if done else []), rows


def assert_folding_continues(conn, version: int, cursor: int) -> None:
    """A new pgctx.fold() does not fold the range again; with new events it folds only those (a call
    and its long result: a fold must make the context smaller)."""
    again = pgctx.fold(conn, CID, force=True)
    assert (again.committed, again.version, again.cursor) == (False, version, cursor), again
    assert again.reason.startswith("nothing to fold"), again
    before = fold_history(conn)
    pgctx.append(conn, CID, "tool_call", {"tool": "track_parcel", "call_id": "call-9", "effect": "read",
                                          "arguments": {"order_id": "10086"}})
    seq = pgctx.append(conn, CID, "tool_result", {"call_id": "call-9", "outcome": "succeeded", "log": LOG})
    after = pgctx.fold(conn, CID, force=True)
    assert (after.committed, after.version, after.cursor) == (True, version + 1, seq), after
    *kept, new = fold_history(conn)
    # the earlier folds are untouched (only which one is the committed fold moved on)
    assert [r[:2] + r[3:] for r in kept] == [r[:2] + r[3:] for r in before]
    assert new == (version + 1, "COMMITTED", True, version, cursor + 1, seq, None)
    assert_no_fold_twice(conn)


# --- (a) killed while the model call is in flight -----------------------------------------------


def test_kill_during_model_call_prepares_and_commits_nothing(conn, spawn):
    seed(conn, folded=True)
    before_events, before_fold, before_history = events(conn), committed(conn), fold_history(conn)

    worker = spawn("model_call")
    # the summarizer got the incremental request (5..8 on version 1) and is blocked in it with no
    # transaction open: the model call holds no lock and no snapshot in the database
    assert {k: worker.signal[k] for k in ("from_seq", "to_seq", "base_version", "tx")} == \
        {"from_seq": 4, "to_seq": 8, "base_version": 1, "tx": "IDLE"}
    worker.killed_at_stopping_point()

    report = pgctx.recover(conn, CID)
    assert report["prepared"] == [] and report["recovery_event_seq"] is None, report
    assert report["committed"] == {"version": 1, "cursor": 4, "fallback_reason": None}
    # nothing prepared, nothing committed: the history of folds and the committed summary are as before
    assert fold_history(conn) == before_history
    assert committed(conn) == before_fold
    assert_chain_intact(conn, before_events)
    assert_no_fold_twice(conn)
    assert_quiet_rerun(conn, CID)
    # the killed fold left nothing behind: the next fold is version 2 over the same events
    retry = pgctx.fold(conn, CID, force=True)
    assert (retry.committed, retry.version, retry.cursor, retry.previous_version) == (True, 2, 8, 1), retry
    assert_no_fold_twice(conn)


# --- (b) killed after prepare, before commit ----------------------------------------------------


def test_kill_after_prepare_recover_commits_the_valid_candidate(conn, spawn):
    seed(conn, folded=True)
    before_events = events(conn)
    # what fold() would commit: the built-in summarizer is deterministic, so this is its candidate
    expected_summary = pgctx.BuiltinSummarizer().summarize(fold_request(conn, CID))

    worker = spawn("after_prepare")
    assert (worker.signal["version"], worker.signal["tx"]) == (2, "IDLE"), worker.signal
    # prepare_fold committed its own transaction: the candidate is PREPARED, version 1 still rules
    assert [r[:2] for r in fold_history(conn)] == [(1, "COMMITTED"), (2, "PREPARED")]
    assert committed(conn)[:2] == (1, 4)
    worker.killed_at_stopping_point()

    report = pgctx.recover(conn, CID)
    # the candidate still continues the committed fold and passes every rule again: recovery
    # finishes the fold the client could not (sql/110_recover.sql), it does not throw it away
    assert report["prepared"] == [{"version": 2, "cursor": 8, "action": "committed"}], report
    assert report["committed"] == {"version": 2, "cursor": 8, "fallback_reason": None}
    assert report["changed"] and report["needs_human"] == [] and report["recovery_event_seq"] is None, report
    assert fold_history(conn) == [(1, "COMMITTED", False, 0, 1, 4, None), (2, "COMMITTED", True, 1, 5, 8, None)]
    assert committed(conn) == (2, 8, expected_summary)
    assert_chain_intact(conn, before_events)
    assert_no_fold_twice(conn)
    assert_quiet_rerun(conn, CID)
    assert_folding_continues(conn, 2, 8)


# --- (c) killed after commit, before fold() returned --------------------------------------------


def test_kill_after_commit_keeps_the_fold_exactly_once(conn, spawn):
    seed(conn, folded=True)
    before_events = events(conn)

    worker = spawn("after_commit")
    assert (worker.signal["cursor"], worker.signal["tx"]) == (8, "IDLE"), worker.signal
    worker.killed_at_stopping_point()

    report = pgctx.recover(conn, CID)
    # the commit was durable before the kill: recovery has nothing to finish or undo
    assert report["prepared"] == [] and report["recovery_event_seq"] is None, report
    assert report["committed"] == {"version": 2, "cursor": 8, "fallback_reason": None}
    # the fold of 5..8 is there exactly once
    assert fold_history(conn) == [(1, "COMMITTED", False, 0, 1, 4, None), (2, "COMMITTED", True, 1, 5, 8, None)]
    assert_chain_intact(conn, before_events)
    assert_no_fold_twice(conn)
    assert_quiet_rerun(conn, CID)
    # the client never learnt it committed; folding again must not commit 5..8 a second time
    assert_folding_continues(conn, 2, 8)


# --- (d) killed after recording a tool call, before its result ----------------------------------


@pytest.mark.parametrize("answer, retry_allowed, settled", [("not_performed", True, "failed"),
                                                             ("succeeded", False, "succeeded")])
def test_kill_between_tool_call_and_result_leaves_it_unknown_never_retried(conn, spawn, answer, retry_allowed,
                                                                          settled):
    seed(conn, folded=False)
    before_events = events(conn)
    call_id, key = TOOL_CALL["call_id"], TOOL_CALL["idempotency_key"]

    worker = spawn("tool_call")
    call_seq = worker.signal["seq"]
    assert call_seq == len(before_events) + 1
    assert side_effect(conn, call_id) == ("running", key, call_seq)
    worker.killed_at_stopping_point()  # ... the refund may or may not have happened

    report = pgctx.recover(conn, CID)
    # one recovery event marks the interrupted call unknown (not failed), listed with its key
    recovery_seq = call_seq + 1
    assert report["recovery_event_seq"] == recovery_seq, report
    assert report["unknown_side_effects"] == [{"call_id": call_id, "tool": TOOL_CALL["tool"], "effect": "irreversible",
                                               "idempotency_key": key, "seq": call_seq}], report
    assert side_effect(conn, call_id) == ("unknown", key, call_seq)
    # the call the worker recorded is there exactly as appended, followed by the recovery event
    after = events(conn)
    assert after[:call_seq - 1] == before_events
    assert after[call_seq - 1][:3] == (call_seq, "tool_call", TOOL_CALL)
    assert after[recovery_seq - 1][:3] == (recovery_seq, "recovery",
                                           {"interrupted_calls": [{"call_id": call_id, "seq": call_seq}]})
    assert_chain_intact(conn, after)
    assert_quiet_rerun(conn, CID)
    assert calls_recorded(conn, call_id) == 1  # recovery did not re-run it

    asked: list[pgctx.UnknownCall] = []

    def resolver(call: pgctx.UnknownCall) -> dict:
        asked.append(call)
        return {"outcome": answer, "request_id": "svc-lookup-1"}

    (resolution,) = pgctx.reconcile(conn, CID, resolver)
    # the service is asked by idempotency key, once; only "did not act" allows a retry
    assert [(c.call_id, c.idempotency_key, c.effect, c.call_seq) for c in asked] == \
        [(call_id, key, "irreversible", call_seq)]
    assert (resolution.call_id, resolution.outcome, resolution.seq, resolution.retry_allowed) == \
        (call_id, answer, recovery_seq + 1, retry_allowed)
    assert side_effect(conn, call_id) == (settled, key, call_seq)
    assert calls_recorded(conn, call_id) == 1  # reconcile records the answer; it never re-runs the tool
    assert pgctx.verify(conn, CID).ok


def side_effect(conn, call_id: str) -> tuple[str, str, int]:
    return conn.execute("SELECT status, idempotency_key, call_seq FROM pgctx.side_effects"
                        " WHERE conversation_id = %s AND call_id = %s", (CID, call_id)).fetchone()


def calls_recorded(conn, call_id: str) -> int:
    return conn.execute("SELECT count(*) FROM pgctx.events WHERE conversation_id = %s AND kind = 'tool_call'"
                        " AND payload->>'call_id' = %s", (CID, call_id)).fetchone()[0]
