"""Folds under races, crashes and tampering, and recovery of unknown side effects (sql/090-110, 140).

Everything runs against the session's real PostgreSQL: racing folds use one connection per
thread, crashes are real (``pg_terminate_backend`` of a client's backend, or SIGKILL of a client
process), and tampering is a superuser editing ``pgctx.events`` with the guard triggers disabled
and then restored to ENABLE ALWAYS.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from datetime import datetime

import psycopg
import pytest

import pgctx
from pgctx.errors import ChainBroken, FoldConflict

CID = "conv-fold"
THREADS = 8
JOIN_TIMEOUT = 120
EVENT_TRIGGERS = ("events_chain", "events_refuse_change", "events_refuse_truncate")
SNAPSHOT_TABLES = {  # table -> ORDER BY: everything recover() may write
    "pgctx.checkpoints": "conversation_id, version",
    "pgctx.fold_heads": "conversation_id",
    "pgctx.events": "conversation_id, seq",
    "pgctx.verified_points": "conversation_id",
    "pgctx.chain_breaks": "conversation_id",
    "pgctx.conversations": "conversation_id",
}


# --- building histories and valid summaries -----------------------------------------------------


def add_user(conn, text: str, cid: str = CID) -> int:
    return pgctx.append(conn, cid, "user", {"text": text})


def add_call(conn, n: int, *, outcome: str | None = "succeeded", cid: str = CID) -> tuple[int, int | None]:
    """A tool call (call-n, key-n, on order-n) and, unless outcome is None, its result."""
    call_seq = pgctx.append(conn, cid, "tool_call", {
        "tool": "update_order", "call_id": f"call-{n}", "idempotency_key": f"key-{n}",
        "arguments": {"order_id": f"order-{n}"}, "effect": "write",
    })
    if outcome is None:
        return call_seq, None
    return call_seq, pgctx.append(conn, cid, "tool_result",
                                  {"call_id": f"call-{n}", "outcome": outcome, "request_id": f"req-{n}"})


def history(conn, layout: str, cid: str = CID) -> int:
    """Append events by layout: 'u' a user message, 'c' a call and its successful result. Returns the head."""
    calls = 0
    for step in layout:
        if step == "u":
            add_user(conn, f"message {calls}", cid)
        else:
            calls += 1
            add_call(conn, calls, cid=cid)
    return head_seq(conn, cid)


def summary_upto(conn, cursor: int, goal: str = "keep orders up to date", cid: str = CID) -> dict:
    """A valid version 1 summary of events 1..cursor, built from the raw events (succeeded calls only).
    (The state machine folds every registered version alike; tests/test_folds.py runs each rule for each.)"""
    rows = conn.execute(
        "SELECT seq, kind, payload FROM pgctx.events WHERE conversation_id = %s AND seq <= %s ORDER BY seq",
        (cid, cursor),
    ).fetchall()
    calls: dict[str, dict] = {}
    for seq, kind, payload in rows:
        if kind == "tool_call":
            calls[payload["call_id"]] = {"payload": payload, "state": {
                "tool": payload["tool"], "effect": payload["effect"], "status": "running",
                "idempotency_key": payload["idempotency_key"],
                "source_event_ids": [seq]}}
        elif kind == "tool_result":
            assert payload["outcome"] == "succeeded", "summary_upto only summarizes succeeded calls"
            state = calls[payload["call_id"]]["state"]
            state.update(status="succeeded", request_id=payload["request_id"])
            state["source_event_ids"].append(seq)
    assert all(c["state"]["status"] == "succeeded" for c in calls.values()), "a boundary splits a call"
    said = [{"decision": f"the user said: {payload['text']}", "status": "active", "source_event_ids": [seq]}
            for seq, kind, payload in rows if kind == "user"]  # the user's messages are cited (PC120)
    return {
        "schema_version": 1,
        "task": {"goal": goal, "status": "running"},
        "facts": [{"key": "customer", "value": "alice", "confidence": "confirmed", "authority": "user",
                   "source_event_ids": [1], "status": "active"}],
        "decisions": said,
        "tool_state": {call_id: c["state"] for call_id, c in calls.items()},
        "completed_actions": [{"action": f"update_order order_id={c['payload']['arguments']['order_id']}",
                               "status": "succeeded", "source_event_ids": c["state"]["source_event_ids"]}
                              for c in calls.values()],
        "pending": [], "constraints": [], "open_questions": [],
        "omitted_event_range": {"from": 1, "to": cursor},
        "last_event_id": cursor,
    }


def prepare(conn, cursor: int, goal: str = "keep orders up to date", cid: str = CID,
            base: pgctx.CommittedFold | None = None) -> int:
    """Prepare a valid fold on ``base`` (default: the committed fold, read now), covering up to
    cursor; its version. A racing caller passes the base it chose its cursor from: read again
    here, a commit in between would make the candidate's range empty (FoldNotContinuous), not a
    conflict."""
    head = pgctx.committed_fold(conn, cid) if base is None else base
    # weighed as 0 tokens: these histories are a few short events, smaller than any summary, and
    # what they test is not the rule that a fold makes the context smaller (PC121)
    return pgctx.prepare_fold(conn, cid, expected_version=head.version, expected_cursor=head.cursor,
                              new_cursor=cursor, summary=summary_upto(conn, cursor, goal, cid), schema_version=1,
                              tokens=0)


def fold(conn, cursor: int, cid: str = CID) -> int:
    version = prepare(conn, cursor, cid=cid)
    assert pgctx.commit_fold(conn, cid, version) == cursor
    return version


# --- inspecting state ---------------------------------------------------------------------------


def head_seq(conn, cid: str = CID) -> int:
    return conn.execute("SELECT head_seq FROM pgctx.conversations WHERE conversation_id = %s", (cid,)).fetchone()[0]


def fold_head(conn, cid: str = CID) -> tuple | None:
    return conn.execute("SELECT version, cursor, fallback_reason FROM pgctx.fold_heads WHERE conversation_id = %s",
                        (cid,)).fetchone()


def checkpoints(conn, cid: str = CID) -> list[tuple]:
    """(version, phase, base_version, base_cursor, cursor, discard_reason), by version."""
    return conn.execute(
        "SELECT version, phase, base_version, base_cursor, cursor, discard_reason FROM pgctx.checkpoints"
        " WHERE conversation_id = %s ORDER BY version", (cid,)).fetchall()


def view_row(conn, view: str, cid: str = CID) -> dict:
    cur = conn.execute(f"SELECT * FROM pgctx.{view} WHERE conversation_id = %s", (cid,))
    names = [d.name for d in cur.description]
    (row,) = cur.fetchall()
    return dict(zip(names, row))


def call_status(conn, call_id: str, cid: str = CID) -> str:
    (status,) = [r[1] for r in conn.execute("SELECT call_id, status FROM pgctx.tool_calls(%s, 0, NULL)", (cid,))
                 if r[0] == call_id]
    return status


def count_kind(conn, kind: str, cid: str = CID) -> int:
    return conn.execute("SELECT count(*) FROM pgctx.events WHERE conversation_id = %s AND kind = %s",
                        (cid, kind)).fetchone()[0]


def snapshot(conn) -> dict[str, list[tuple]]:
    return {table: conn.execute(f"SELECT * FROM {table} t ORDER BY {order}").fetchall()
            for table, order in SNAPSHOT_TABLES.items()}


def assert_quiet_rerun(conn, cid: str = CID, full_check: bool = False) -> dict:
    """recover() again: nothing to do (changed false, no actions) and not a row written anywhere."""
    before = snapshot(conn)
    report = pgctx.recover(conn, cid, full_check=full_check)
    assert (report["changed"], report["actions"], report["prepared"], report["recovery_event_seq"]) == \
        (False, [], [], None), report
    after = snapshot(conn)
    for table in SNAPSHOT_TABLES:
        assert after[table] == before[table], f"a second recover() changed {table}"
    return report


def assert_conflict(exc: BaseException) -> None:
    """A lost race is the typed PC100, raised from the database error."""
    assert isinstance(exc, FoldConflict), repr(exc)
    assert exc.sqlstate == "PC100" and exc.__cause__.sqlstate == "PC100", repr(exc)


# --- the superuser's tools: tampering and killing -----------------------------------------------


@contextlib.contextmanager
def guards_off(conn):
    """A transaction in which the superuser edits pgctx.events past its triggers, restored ALWAYS."""
    with conn.transaction():
        conn.execute("ALTER TABLE pgctx.events DISABLE TRIGGER USER")
        yield conn
        for name in EVENT_TRIGGERS:
            conn.execute(f"ALTER TABLE pgctx.events ENABLE ALWAYS TRIGGER {name}")
    states = dict(conn.execute("SELECT tgname, tgenabled FROM pg_trigger"
                               " WHERE tgrelid = 'pgctx.events'::regclass AND NOT tgisinternal").fetchall())
    assert {states[name] for name in EVENT_TRIGGERS} == {"A"}, states


# how recover() finds the point to verify from: the one prepare_fold recorded (as in production),
# or none, so it verifies from genesis (isolates what recovery does once a break is seen)
RESUME_MODES = ("verified_point_kept", "verified_point_dropped")


def tamper(conn, seq: int, resume: str, cid: str = CID) -> None:
    """Edit the payload of event seq without rehashing (a break verify_chain reports at seq)."""
    with guards_off(conn):
        conn.execute("UPDATE pgctx.events SET payload = payload || '{\"tampered\": true}'"
                     " WHERE conversation_id = %s AND seq = %s", (cid, seq))
    report = pgctx.verify(conn, cid)
    assert (report.ok, report.first_bad_seq) == (False, seq), report
    if resume == "verified_point_dropped":
        conn.execute("DELETE FROM pgctx.verified_points WHERE conversation_id = %s", (cid,))


def wait_gone(conn, pid: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()[0]:
        assert time.monotonic() < deadline, f"backend {pid} still alive"
        time.sleep(0.05)


def terminate(conn, pid: int) -> None:
    assert conn.execute("SELECT pg_terminate_backend(%s, 10000)", (pid,)).fetchone()[0]
    wait_gone(conn, pid)


def assert_dead(client: psycopg.Connection) -> None:
    with pytest.raises(psycopg.OperationalError):
        client.execute("SELECT 1")


# --- 1. racing folds ----------------------------------------------------------------------------


def run_threads(work, parties: int = THREADS) -> list:
    """Run work(i) in THREADS threads; results[i] is its return value or the exception it raised."""
    results: list = [None] * parties

    def target(i):
        try:
            results[i] = work(i)
        except BaseException as exc:  # handed to the main thread
            results[i] = exc

    threads = [threading.Thread(target=target, args=(i,)) for i in range(parties)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=JOIN_TIMEOUT)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return results


def test_eight_prepared_candidates_one_commit_wins(dsn, conn):
    cursor = history(conn, "ucucu")
    prepared, go = threading.Barrier(THREADS + 1, timeout=60), threading.Barrier(THREADS + 1, timeout=60)

    def work(i):
        released = False
        try:
            with psycopg.connect(dsn, autocommit=True) as own:
                version = prepare(own, cursor, goal=f"candidate {i}")  # its own, committed, transaction
                prepared.wait()
                go.wait()
                released = True
                return version, pgctx.commit_fold(own, CID, version)
        except BaseException:
            if not released:  # fail fast instead of waiting out the barrier; a commit that lost the
                prepared.abort()  # race (after go) must not break the barrier for slower threads
                go.abort()
            raise

    results: list = []
    runner = threading.Thread(target=lambda: results.extend(run_threads(work)))
    runner.start()
    try:
        prepared.wait()
        rows = checkpoints(conn)
        assert [(phase, base_version) for _, phase, base_version, *_ in rows] == [("PREPARED", 0)] * THREADS
        go.wait()
    except threading.BrokenBarrierError:
        runner.join(timeout=JOIN_TIMEOUT)
        pytest.fail(f"a thread failed before committing: {results}")
    runner.join(timeout=JOIN_TIMEOUT)

    wins = [r for r in results if not isinstance(r, BaseException)]
    assert len(wins) == 1, results
    for exc in (r for r in results if isinstance(r, BaseException)):
        assert_conflict(exc)
    ((winner, won_cursor),) = wins
    assert won_cursor == cursor
    rows = checkpoints(conn)
    assert [v for v, phase, *_ in rows if phase == "COMMITTED"] == [winner]
    losers = [(v, reason) for v, phase, *_, reason in rows if phase == "DISCARDED"]
    assert len(losers) == THREADS - 1
    assert all("superseded" in reason for _, reason in losers), losers
    assert fold_head(conn) == (winner, cursor, None)


def test_prepare_and_commit_at_once_never_overwrites(dsn, conn):
    history(conn, "uu" + "c" * THREADS)  # a valid boundary every second event
    start = threading.Barrier(THREADS, timeout=60)

    def work(i):
        with psycopg.connect(dsn, autocommit=True) as own:
            start.wait()
            stage = "prepare"
            try:
                base = pgctx.committed_fold(own, CID)
                version = prepare(own, base.cursor + 2, goal=f"candidate {i}", base=base)
                stage = "commit"
                return version, pgctx.commit_fold(own, CID, version)
            except FoldConflict as exc:
                return stage, exc

    results = run_threads(work)
    assert not any(isinstance(r, BaseException) for r in results), results
    wins = {version: (i, cursor) for i, (version, cursor) in enumerate(results) if isinstance(version, int)}
    conflicts = [(stage, exc) for stage, exc in results if isinstance(stage, str)]
    assert wins and len(wins) + len(conflicts) == THREADS
    for _, exc in conflicts:
        assert_conflict(exc)

    rows = checkpoints(conn)
    committed = [r for r in rows if r[1] == "COMMITTED"]
    assert sorted(v for v, *_ in committed) == sorted(wins)
    # one commit per committed version: each commit is based on the one before it
    previous = (0, 0)
    for version, _, base_version, base_cursor, cursor, _ in committed:
        assert (base_version, base_cursor) == previous
        assert wins[version][1] == cursor
        previous = (version, cursor)
    assert fold_head(conn) == (*previous, None)
    # every candidate that reached the table and lost was retired, none left PREPARED
    discarded = [r for r in rows if r[1] == "DISCARDED"]
    assert len(discarded) == sum(stage == "commit" for stage, _ in conflicts)
    assert all("superseded" in r[5] for r in discarded) and len(rows) == len(committed) + len(discarded)
    # what is committed is the winner's own summary, not another thread's
    goals = dict(conn.execute("SELECT version, summary->'task'->>'goal' FROM pgctx.checkpoints"
                              " WHERE conversation_id = %s AND phase = 'COMMITTED'", (CID,)).fetchall())
    assert goals == {version: f"candidate {i}" for version, (i, _) in wins.items()}


# --- 2. and 6. crashes between prepare and commit -----------------------------------------------


def crash_in_backend(dsn, conn, cursor: int, in_transaction: bool) -> int | None:
    """A client prepares, its backend is terminated before it commits the fold; the version it prepared."""
    client = psycopg.connect(dsn, autocommit=True)
    try:
        if not in_transaction:
            version = prepare(client, cursor)
            terminate(conn, client.info.backend_pid)
            assert_dead(client)
            return version
        with pytest.raises(psycopg.OperationalError):
            with client.transaction():
                prepare(client, cursor)
                assert checkpoints(conn) == [], "a PREPARED row visible before its transaction committed"
                terminate(conn, client.info.backend_pid)
                client.execute("SELECT 1")
        return None
    finally:
        client.close()


CLIENT_SCRIPT = """
import json, sys, time
import psycopg, pgctx
dsn, cid, cursor, summary, in_transaction = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4]), sys.argv[5] == "1"
conn = psycopg.connect(dsn, autocommit=True)
if in_transaction:
    conn.execute("BEGIN")
version = pgctx.prepare_fold(conn, cid, expected_version=0, expected_cursor=0, new_cursor=cursor, summary=summary,
                             schema_version=1, tokens=0)
print(version, conn.info.backend_pid, conn.info.transaction_status.name, flush=True)
time.sleep(600)
"""


def crash_client_process(dsn, conn, cursor: int, in_transaction: bool) -> int | None:
    """A client process prepares and is SIGKILLed before it commits the fold; the version it prepared."""
    args = [dsn, CID, str(cursor), json.dumps(summary_upto(conn, cursor)), "1" if in_transaction else "0"]
    proc = subprocess.Popen([sys.executable, "-c", CLIENT_SCRIPT, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line, proc.communicate(timeout=30)[1]
        version, pid, tx_status = line.split()
        assert tx_status == ("INTRANS" if in_transaction else "IDLE")
        assert len(checkpoints(conn)) == (0 if in_transaction else 1)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -9
    wait_gone(conn, int(pid))  # the server saw the client vanish and ended its backend
    return None if in_transaction else int(version)


CRASHES = {"pg_terminate_backend": crash_in_backend, "sigkill_client": crash_client_process}


@pytest.mark.parametrize("in_transaction", [False, True], ids=["after_prepare_committed", "inside_transaction"])
@pytest.mark.parametrize("crash", sorted(CRASHES))
def test_crash_between_prepare_and_commit(dsn, conn, crash, in_transaction):
    cursor = history(conn, "uccu")
    version = CRASHES[crash](dsn, conn, cursor, in_transaction)
    if in_transaction:
        assert checkpoints(conn) == [], "a killed transaction left a checkpoint"
    else:
        assert [(v, phase) for v, phase, *_ in checkpoints(conn)] == [(version, "PREPARED")]

    report = pgctx.recover(conn, CID)
    if in_transaction:
        assert report["prepared"] == []
        assert checkpoints(conn) == [] and fold_head(conn) == (0, 0, None)
    else:
        assert report["prepared"] == [{"version": version, "cursor": cursor, "action": "committed"}]
        assert [(v, phase) for v, phase, *_ in checkpoints(conn)] == [(version, "COMMITTED")]
        assert fold_head(conn) == (version, cursor, None)
    assert report["changed"] and report["needs_human"] == []
    assert_quiet_rerun(conn)
    if in_transaction:  # the dead transaction left no lock, no row, no gap in versions
        assert fold(conn, cursor) == 1


@pytest.mark.parametrize("resume", RESUME_MODES)
def test_recover_discards_a_prepared_fold_over_a_broken_chain(conn, resume):
    history(conn, "uccu")
    version = prepare(conn, 5)
    tamper(conn, 2, resume)

    report = pgctx.recover(conn, CID)
    assert report["chain"]["ok"] is False and report["chain"]["first_bad_seq"] == 2, report
    (entry,) = report["prepared"]
    assert (entry["version"], entry["cursor"], entry["action"]) == (version, 5, "discarded"), report
    assert "chain" in entry["reason"]
    ((_, phase, *_, reason),) = checkpoints(conn)
    assert phase == "DISCARDED" and reason.startswith("recovery: ") and "chain" in reason
    assert fold_head(conn)[:2] == (0, 0)
    assert report["needs_human"] and "seq 2" in report["needs_human"][0]
    assert_quiet_rerun(conn)


# --- 3. tampering below committed checkpoints ---------------------------------------------------


@pytest.mark.parametrize("resume", RESUME_MODES)
@pytest.mark.parametrize("bad_seq, fallback", [(6, (1, 4)), (2, (0, 0))], ids=["between_folds", "before_all"])
def test_tamper_below_committed_folds_falls_back(conn, resume, bad_seq, fallback):
    assert history(conn, "uucuucuu") == 10  # calls at 3-4 and 7-8
    assert fold(conn, 4) == 1 and fold(conn, 8) == 2
    tamper(conn, bad_seq, resume)

    report = pgctx.recover(conn, CID)
    assert (report["chain"]["ok"], report["chain"]["first_bad_seq"]) == (False, bad_seq), report
    version, cursor, reason = fold_head(conn)
    assert (version, cursor) == fallback
    assert reason and f"seq {bad_seq}" in reason
    assert report["committed"] == {"version": version, "cursor": cursor, "fallback_reason": reason}
    assert report["changed"] and any(f"seq {bad_seq}" in note for note in report["needs_human"]), report
    # the history keeps both commits; the committed fold is the fallback
    assert [(v, phase) for v, phase, *_ in checkpoints(conn)] == [(1, "COMMITTED"), (2, "COMMITTED")]
    status, health = view_row(conn, "conversation_status"), view_row(conn, "chain_health")
    assert (status["committed_version"], status["committed_cursor"], status["fallback_reason"]) == \
        (version, cursor, reason)
    assert status["unfolded_events"] == 10 - cursor
    assert (health["fell_back"], health["fallback_reason"]) == (True, reason)

    assert_quiet_rerun(conn)
    with pytest.raises(ChainBroken) as caught:
        pgctx.prepare_fold(conn, CID, expected_version=version, expected_cursor=cursor, new_cursor=8,
                           summary=summary_upto(conn, 8), schema_version=1)
    assert caught.value.__cause__.sqlstate == "PC110"
    assert fold_head(conn)[:2] == fallback


def test_recover_reports_the_range_it_checked_and_the_age_of_the_rest(conn):
    history(conn, "uucu")
    first = pgctx.recover(conn, CID)["chain"]
    assert (first["from_genesis"], first["checked_seqs"], first["verified_before"]) == (True, [1, 5], None), first
    add_user(conn, "more")
    add_user(conn, "and more")

    later = pgctx.recover(conn, CID)["chain"]
    assert (later["ok"], later["from_genesis"], later["checked"], later["checked_seqs"]) == (True, False, 2, [6, 7])
    before = later["verified_before"]
    health = view_row(conn, "chain_health")
    assert (before["up_to_seq"], before["from_genesis_up_to_seq"]) == (5, 5), later
    assert datetime.fromisoformat(before["from_genesis_at"]) == health["verified_from_genesis_at"]
    nothing_new = assert_quiet_rerun(conn)["chain"]
    assert (nothing_new["checked"], nothing_new["checked_seqs"], nothing_new["verified_before"]["up_to_seq"]) == \
        (0, None, 7)

    full = pgctx.recover(conn, CID, full_check=True)
    assert (full["changed"], full["chain"]["from_genesis"], full["chain"]["checked_seqs"]) == (False, True, [1, 7])
    reached = view_row(conn, "chain_health")
    assert reached["verified_from_genesis_seq"] == 7
    before = snapshot(conn)  # a second full run writes nothing: the first to reach seq 7 is recorded
    assert pgctx.recover(conn, CID, full_check=True)["changed"] is False and snapshot(conn) == before


@pytest.mark.parametrize("found_by", ["full_check", "incremental"])
def test_a_chain_break_stands_until_the_chain_verifies_again(conn, found_by):
    history(conn, "uucuu")
    pgctx.recover(conn, CID)  # verified up to seq 6
    if found_by == "incremental":
        add_user(conn, "after the verified point")
        bad_seq = 7
    else:
        bad_seq = 4
    original = conn.execute("SELECT payload FROM pgctx.events WHERE conversation_id = %s AND seq = %s",
                            (CID, bad_seq)).fetchone()[0]
    tamper(conn, bad_seq, "verified_point_kept")
    if found_by == "full_check":  # below the verified point: a resumed run cannot see it, and says so
        unaware = pgctx.recover(conn, CID)
        assert (unaware["chain"]["ok"], unaware["chain"]["from_genesis"], unaware["needs_human"]) == (True, False, [])
        found = pgctx.recover(conn, CID, full_check=True)
    else:
        found = pgctx.recover(conn, CID)
    assert (found["chain"]["ok"], found["chain"]["first_bad_seq"]) == (False, bad_seq), found
    assert f"chain break at seq {bad_seq} recorded" in found["actions"]
    health = view_row(conn, "chain_health")
    assert (health["break_seq"], "does not match" in health["break_reason"]) == (bad_seq, True)
    assert health["state"] == "broken"  # current, whatever verified_seq (above the break) says

    # every later run, incremental or full, verifies from genesis and reports it, writing nothing
    for full_check in (False, True, False):
        again = assert_quiet_rerun(conn) if not full_check else pgctx.recover(conn, CID, full_check=True)
        assert (again["chain"]["ok"], again["chain"]["from_genesis"], again["chain"]["first_bad_seq"]) == \
            (False, True, bad_seq), again
        (note,) = again["needs_human"]
        assert f"broken at seq {bad_seq}" in note and "restore the original rows" in note

    with guards_off(conn):  # a human restores the row
        conn.execute("UPDATE pgctx.events SET payload = %s WHERE conversation_id = %s AND seq = %s",
                     (psycopg.types.json.Jsonb(original), CID, bad_seq))
    resolved = pgctx.recover(conn, CID)
    assert (resolved["chain"]["ok"], resolved["needs_human"]) == (True, []), resolved
    assert any(f"break at seq {bad_seq}" in a and "resolved" in a for a in resolved["actions"]), resolved
    assert (view_row(conn, "chain_health")["break_seq"], view_row(conn, "chain_health")["state"]) == (None, "verified")
    assert_quiet_rerun(conn)


def test_a_standing_break_is_the_tenants_alone(dsn, roles, connect_as, conn):
    for tenant in (roles.tenant_a, roles.tenant_b):
        conn.execute("SELECT pgctx.register_tenant(%s)", (tenant,))
    a, b = connect_as(roles.app_a), connect_as(roles.app_b)
    history(a, "uu")
    tamper(conn, 2, "verified_point_kept")
    assert pgctx.recover(a, CID)["needs_human"]
    assert conn.execute("SELECT tenant FROM pgctx.chain_breaks").fetchall() == [(roles.tenant_a,)]
    assert a.execute("SELECT seq FROM pgctx.chain_breaks").fetchall() == [(2,)]
    assert b.execute("SELECT count(*) FROM pgctx.chain_breaks").fetchone() == (0,)
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        a.execute("DELETE FROM pgctx.chain_breaks")  # only recovery clears a break


# --- 4. and 5. side effects of unknown outcome --------------------------------------------------


def unknown_entry(report: dict, call_id: str) -> dict:
    (entry,) = [u for u in report["unknown_side_effects"] if u["call_id"] == call_id]
    return entry


# full_check: the recovery event moves how far the run from genesis reached too, so a second full
# run writes nothing (it rewrote the time of the run from genesis: found by the stateful fuzz)
@pytest.mark.parametrize("full_check", [False, True])
def test_interrupted_call_becomes_unknown_once(conn, full_check):
    add_user(conn, "send the invoice")
    call_seq, _ = add_call(conn, 1, outcome=None)
    assert call_status(conn, "call-1") == "running"

    report = pgctx.recover(conn, CID, full_check=full_check)
    assert count_kind(conn, "recovery") == 1
    assert report["recovery_event_seq"] == head_seq(conn) == call_seq + 1
    assert call_status(conn, "call-1") == "unknown"
    assert unknown_entry(report, "call-1") == {"call_id": "call-1", "tool": "update_order", "effect": "write",
                                               "idempotency_key": "key-1", "seq": call_seq}
    rerun = assert_quiet_rerun(conn, full_check=full_check)
    assert count_kind(conn, "recovery") == 1
    assert unknown_entry(rerun, "call-1")["idempotency_key"] == "key-1"
    assert view_row(conn, "chain_health")["verified_from_genesis_seq"] == call_seq + 1


def test_recovery_acts_only_on_what_it_verified(conn):
    # a call answered, verified by a recovery run; then a superuser edits the answer (its call id),
    # below the verified point, so that the call looks still running. The incremental run used to
    # verify only what came after the point and marked the call unknown on the strength of the edit
    add_user(conn, "send the invoice")
    call_seq, result_seq = add_call(conn, 1)
    add_user(conn, "thanks")
    assert pgctx.recover(conn, CID)["chain"]["ok"]
    with guards_off(conn):
        conn.execute("UPDATE pgctx.events SET payload = payload || '{\"call_id\": \"call-9\"}'"
                     " WHERE conversation_id = %s AND seq = %s", (CID, result_seq))
    assert call_status(conn, "call-1") == "running"

    report = pgctx.recover(conn, CID)
    assert (report["chain"]["ok"], report["chain"]["first_bad_seq"]) == (False, result_seq), report
    assert count_kind(conn, "recovery") == 0 and report["recovery_event_seq"] is None
    assert any(f"first at seq {call_seq}) were not marked unknown" in note for note in report["needs_human"]), report
    assert call_status(conn, "call-1") == "running"  # as the log says; no action taken on it


def test_an_incremental_run_verifies_from_the_first_call_it_acts_on(conn):
    # a call left running below the verified point (recorded before a run that verified past it):
    # the run that marks it checks the chain from just before the call, not from the point
    add_user(conn, "send the invoice")
    call_seq, _ = add_call(conn, 1, outcome=None)
    with guards_off(conn):  # a verified point past the call, as a run before the call existed left none
        conn.execute("INSERT INTO pgctx.verified_points (conversation_id, seq, hash)"
                     " SELECT conversation_id, seq, hash FROM pgctx.events WHERE conversation_id = %s AND seq = %s",
                     (CID, call_seq))
    report = pgctx.recover(conn, CID)
    assert (report["chain"]["ok"], report["chain"]["from_genesis"]) == (True, False), report
    assert report["chain"]["checked_seqs"] == [call_seq, call_seq], report
    assert report["recovery_event_seq"] == call_seq + 1


def test_timeout_is_unknown_not_failed(conn):
    add_user(conn, "send the invoice")
    add_call(conn, 1, outcome="timeout")
    assert call_status(conn, "call-1") == "unknown"
    report = pgctx.recover(conn, CID)
    assert unknown_entry(report, "call-1")["idempotency_key"] == "key-1"
    assert report["recovery_event_seq"] is None and count_kind(conn, "recovery") == 0
    assert_quiet_rerun(conn)


@pytest.mark.parametrize("answer, status", [("not_performed", "failed"), ("succeeded", "succeeded"),
                                            ("failed", "failed"), ("unknown", "unknown")])
def test_status_query_resolves_unknown(conn, answer, status):
    add_user(conn, "send the invoice")
    add_call(conn, 1, outcome=None)
    assert unknown_entry(pgctx.recover(conn, CID), "call-1")
    pgctx.append(conn, CID, "status_query", {"call_id": "call-1", "outcome": answer, "request_id": "sq-1"})
    assert call_status(conn, "call-1") == status
    report = pgctx.recover(conn, CID)
    assert [u["call_id"] for u in report["unknown_side_effects"]] == (["call-1"] if status == "unknown" else [])
    assert count_kind(conn, "recovery") == 1
    assert_quiet_rerun(conn)


def test_side_effects_and_status_views(conn):
    add_user(conn, "tidy up the orders")
    add_call(conn, 1)                       # 2-3 succeeded
    add_call(conn, 2, outcome="timeout")    # 4-5 unknown
    add_call(conn, 3, outcome=None)         # 6 running
    version = prepare(conn, 3)

    def side_effects():
        return conn.execute("SELECT call_id, status, idempotency_key, effect FROM pgctx.side_effects"
                            " WHERE conversation_id = %s ORDER BY call_seq", (CID,)).fetchall()

    def status():
        row = view_row(conn, "conversation_status")
        return {k: row[k] for k in ("head_seq", "committed_version", "committed_cursor", "unfolded_events",
                                    "prepared_folds", "unknown_side_effects")}

    assert side_effects() == [("call-1", "succeeded", "key-1", "write"), ("call-2", "unknown", "key-2", "write"),
                              ("call-3", "running", "key-3", "write")]
    assert status() == {"head_seq": 6, "committed_version": 0, "committed_cursor": 0, "unfolded_events": 6,
                        "prepared_folds": 1, "unknown_side_effects": 1}
    pgctx.commit_fold(conn, CID, version)
    assert status() == {"head_seq": 6, "committed_version": version, "committed_cursor": 3, "unfolded_events": 3,
                        "prepared_folds": 0, "unknown_side_effects": 1}
    pgctx.recover(conn, CID)                # call-3 was interrupted
    assert [s for _, s, *_ in side_effects()] == ["succeeded", "unknown", "unknown"]
    assert status() == {"head_seq": 7, "committed_version": version, "committed_cursor": 3, "unfolded_events": 4,
                        "prepared_folds": 0, "unknown_side_effects": 2}
