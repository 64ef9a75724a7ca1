"""Server crashes (article 十八): SIGKILL the PostgreSQL server mid-operation, restart it, check.

tests/test_fault_injection.py kills the client; here the server dies, the postmaster and every
backend at once (EmbeddedPostgres.crash), while a client process (tests/crash_client.py) works
against it. The client prints every call it makes and every acknowledgement it gets, flushed, so
the test knows exactly what the database promised before it died. The server is restarted on the
same data directory (crash recovery replays the WAL), and then:

* every acknowledged append is there, with its seq and payload; a call that was not acknowledged
  is wholly there or wholly absent (a batch is never half-applied); no event comes from nowhere;
* seqs are gap-free and pgctx.verify finds every chain intact;
* no fold is committed twice, the committed folds continue each other, and a commit in flight
  left either all of its effects (the checkpoint COMMITTED, the fold head moved, every rival
  candidate retired) or none of them;
* pgctx.recover converges, and a second run changes nothing;
* the call in flight got psycopg.OperationalError (the connection was lost), not a pgctx error.

Kill points, each a parametrized test of PGCTX_CRASH_RUNS runs (default 20): (a) an
append_many batch of 1,000 events; (b) between prepare_fold and commit_fold; (c) commit_fold
(delays spread over its measured duration, so that both outcomes are seen: asserted); (d)
recover(full_check) over 10,000 events with a prepared candidate and an interrupted tool call;
(e) eight clients appending to one conversation. Each run draws its delays and sizes from
random.Random("<PGCTX_CRASH_SEED>:<point>:<run>"); a failure names the seed (set
PGCTX_CRASH_SEED to draw the same again; the kill's moment still depends on the scheduler).
Then pools, sync and async: a pool handed to pgctx carries on after a restart, with an append
in flight at the crash (held on the head row's lock) or with nothing in flight.

The server is this module's own (not the session's: other tests use that one), fsync off: a kill
loses nothing the OS was given, as a process crash on a running machine would. Every run works in
a fresh database cloned from a template (STRATEGY FILE_COPY: the default WAL_LOG strategy writes
the whole template into the WAL, which the restart then replays: measured on a 30,000-event
template, 0.3-0.5 s more to clone and as much to restart, per run). A matrix of what the runs saw
is printed at the end of the module.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import queue
import random
import secrets
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg_pool import AsyncConnectionPool, ConnectionPool

import pgctx
from pgctx.embedded import EmbeddedPostgres
from pgctx.errors import IllegalPhaseTransition
from pgctx.fold_procedures import fold_request
from tests.conftest import admin, drop_database, new_database
from tests.crash_client import batch_items, op_items
from tests.fold_worker import TOOL_CALL
from tests.test_fault_injection import CID, assert_chain_intact, assert_no_fold_twice, events, fold_history, seed
from tests.test_fold_recovery import assert_quiet_rerun, checkpoints, fold_head, history

RUNS = max(2, int(os.environ.get("PGCTX_CRASH_RUNS", "20")))  # two at least: (c) must see both outcomes
SEED = os.environ.get("PGCTX_CRASH_SEED") or secrets.token_hex(4)
ROOT = Path(__file__).resolve().parent.parent
CLIENT = ROOT / "tests" / "crash_client.py"
LINE_TIMEOUT = 60  # seconds for the client's next line: generous, the machine is shared
CANDIDATES = 1000  # prepared candidates a commit of (c) retires: its duration is theirs (~20 ms)
HISTORY = 10_000  # events recover() of (d) verifies from genesis (~0.05 s, a wide window to kill in)
POOL_SIZE = 2  # one call in flight, one idle connection; check= then waits ~1 s (see the pool tests)

# what the runs saw, by kill point: printed at the end of the module (see matrix below)
MATRIX: dict[str, Counter] = defaultdict(Counter)
_databases = itertools.count()


# --- the server, its databases and the client ------------------------------------------------------


@pytest.fixture(scope="module")
def server():
    server = EmbeddedPostgres()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def database(server: EmbeddedPostgres, template: str) -> Iterator[str]:
    """A fresh database cloned from ``template`` (FILE_COPY: see the module docstring); its DSN.
    A test that failed while the server was down leaves it restarted."""
    name = f"crash_{os.getpid()}_{next(_databases)}"
    with admin(server.superuser_dsn()) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {} STRATEGY FILE_COPY").format(
            sql.Identifier(name), sql.Identifier(template)))
    try:
        yield server.superuser_dsn(name)
    finally:
        if server.server_pid is None:
            server.restart()
        drop_database(server.superuser_dsn(), name)


@contextlib.contextmanager
def connected(dsn: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        yield conn


class Client:
    """tests/crash_client.py, serving this module's runs; ``transcript``: the current command's lines,
    each with ``t``, when the test read it."""

    def __init__(self, errors: Path):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        self.errors = errors
        with errors.open("w") as err:  # a file: a chatty client never blocks on a full pipe
            self.proc = subprocess.Popen([sys.executable, str(CLIENT)], cwd=ROOT, env=env, text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
        # a reader thread stamps each line as it arrives; a queue gives the test a timeout
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.transcript: list[dict[str, Any]] = []

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put((time.monotonic(), line))
        self.lines.put((time.monotonic(), ""))

    def start(self, work: str, dsn: str, **args: Any) -> None:
        self.transcript = []
        self.write(json.dumps({"work": work, "dsn": dsn, "cid": CID, **args}))

    def write(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def next(self) -> dict[str, Any]:
        try:
            t, line = self.lines.get(timeout=LINE_TIMEOUT)
        except queue.Empty:
            pytest.fail(f"the crash client said nothing for {LINE_TIMEOUT}s:\n{self.errors.read_text()}")
        if not line:
            pytest.fail(f"the crash client exited ({self.proc.wait()}):\n{self.errors.read_text()}")
        said = {**json.loads(line), "t": t}
        self.transcript.append(said)
        assert said["at"] != "failed", said  # it broke outside a call: a bug of the test, not a crash
        return said

    def until(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            said = self.next()
            if wanted(said):
                return said
            assert said["at"] != "done", f"the work ended before the kill point: {self.transcript}"

    def finish(self) -> list[dict[str, Any]]:
        """The rest of the command's lines, up to ``done``: the whole transcript."""
        while self.next()["at"] != "done":
            pass
        return self.transcript

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    started = Client(tmp_path_factory.mktemp("crash") / "client.stderr")
    yield started
    started.close()


# --- templates: the state each kill point starts from ------------------------------------------------


@pytest.fixture(scope="module")
def schema_template(server):
    """The pgctx schema, installed by the migrations; nothing else."""
    name = new_database(server.superuser_dsn())
    pgctx.migrate(server.superuser_dsn(name))
    return name


def template(server: EmbeddedPostgres, schema: str, build: Callable[[psycopg.Connection], None]) -> str:
    """A template database: the schema plus what ``build`` adds (no connection left open on it)."""
    name = new_database(server.superuser_dsn(), schema)
    with connected(server.superuser_dsn(name)) as conn:
        build(conn)
    return name


@pytest.fixture(scope="module")
def commit_template(server, schema_template):
    """Version 1 committed over 1..4, events 5..8, and CANDIDATES prepared folds of 5..8 onto it:
    versions 2..CANDIDATES+1. Committing one retires all the others in the same transaction.

    prepare_fold validates version 2; the others are copies of it inserted in SQL (the checkpoints
    CANDIDATES racing folders of one summary would leave, without validating it CANDIDATES times:
    10-20 ms each on this machine)."""

    def build(conn):
        seed(conn, folded=True)
        summary = pgctx.BuiltinSummarizer().summarize(fold_request(conn, CID))
        assert pgctx.prepare_fold(conn, CID, expected_version=1, expected_cursor=4, new_cursor=8, summary=summary) == 2
        conn.execute("INSERT INTO pgctx.checkpoints (conversation_id, version, phase, base_version, base_cursor, cursor,"
                     " chain_hash, schema_version, summary, summarizer, tenant, tokens)"
                     " SELECT c.conversation_id, v, c.phase, c.base_version, c.base_cursor, c.cursor, c.chain_hash,"
                     " c.schema_version, c.summary, c.summarizer, c.tenant, c.tokens"
                     " FROM pgctx.checkpoints c, generate_series(3, %s) v WHERE c.conversation_id = %s AND c.version = 2",
                     (CANDIDATES + 1, CID))

    return template(server, schema_template, build)


@pytest.fixture(scope="module")
def recover_template(server, schema_template):
    """Version 1 committed over 1..4, a candidate for 5..8 prepared (version 2), then HISTORY
    events and a tool call still running: recover() verifies them all, commits the candidate and
    appends one recovery event that marks the call unknown."""

    def build(conn):
        seed(conn, folded=True)
        request = fold_request(conn, CID)
        pgctx.prepare_fold(conn, CID, expected_version=1, expected_cursor=4, new_cursor=8,
                           summary=pgctx.BuiltinSummarizer().summarize(request))
        # one statement of the batch function (as a DBA would load history): fast, and its chain
        # is the one pgctx.append_events computes for any client
        conn.execute("SELECT count(*) FROM pgctx.append_events(%s, (SELECT jsonb_agg(jsonb_build_object("
                     "'kind', 'user', 'payload', jsonb_build_object('text', 'message ' || i))) "
                     "FROM generate_series(1, %s) i))", (CID, HISTORY))
        pgctx.append(conn, CID, "tool_call", TOOL_CALL, event_key=TOOL_CALL["call_id"])

    return template(server, schema_template, build)


# --- runs: seeds, the kill, the matrix ---------------------------------------------------------------


class Run:
    """One run of a kill point: its random draws, and its name for a failure's message."""

    def __init__(self, point: str, index: int):
        self.point, self.index = point, index
        self.seed = f"{SEED}:{point}:{index}"
        self.rng = random.Random(self.seed)
        self.tally = MATRIX[point]
        self.tally["runs"] += 1

    def __str__(self) -> str:
        return f"kill point ({self.point}) run {self.index}, seed {self.seed!r} (replay: PGCTX_CRASH_SEED={SEED})"

    def spread(self, duration: float, over: float) -> float:
        """A delay in the index-th of RUNS equal slices of 0..over*duration: the runs cover the whole
        duration whatever the draws."""
        return over * duration * (self.index + self.rng.random()) / RUNS


@contextlib.contextmanager
def replayable(run: Run) -> Iterator[None]:
    """Every failure of the block (an assertion, or the client's silence) names the run and its seed."""
    try:
        yield
    except (AssertionError, pytest.fail.Exception) as exc:
        raise AssertionError(f"{run}: {exc}") from exc


def kill(server: EmbeddedPostgres, client: Client, at: Callable[[dict[str, Any]], bool], delay: float) -> None:
    """Once the client says ``at``, wait ``delay`` seconds and crash the server under it."""
    client.until(at)
    time.sleep(delay)
    server.crash()


def sent(transcript: list[dict[str, Any]], call: str | None = None) -> list[dict[str, Any]]:
    return [said for said in transcript if said["at"] == "sending" and call in (None, said["call"])]


def acked(transcript: list[dict[str, Any]], call: str | None = None) -> list[dict[str, Any]]:
    return [said for said in transcript if said["at"] == "acked" and call in (None, said.get("call"))]


def assert_lost_connection(transcript: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each call the crash broke raised psycopg.OperationalError: the connection was lost, the
    server said nothing (no SQLSTATE), and pgctx did not pass it off as one of its refusals."""
    errors = [said for said in transcript if said["at"] == "error"]
    for error in errors:
        assert (error["operational"], error["pgctx"], error["sqlstate"]) == (True, False, None), error
    return errors


def assert_recovered(conn) -> None:
    """Every conversation verifies from genesis; recover() converges, and a second run is quiet."""
    for (cid,) in conn.execute("SELECT conversation_id FROM pgctx.conversations").fetchall():
        report = pgctx.verify(conn, cid)
        assert report.ok, report
        first = pgctx.recover(conn, cid)
        assert first["chain"]["ok"] and first["needs_human"] == [], first
        assert_quiet_rerun(conn, cid)


def double_commits(conn) -> int:
    """Committed folds that cover an event an earlier committed fold covered."""
    done = [row for row in fold_history(conn) if row[1] == "COMMITTED"]
    return sum(1 for earlier, later in itertools.pairwise(done) if later[4] <= earlier[5])


@pytest.fixture(scope="module", autouse=True)
def matrix(request):
    """Print what the runs saw, per kill point, once the module is done."""
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None or not MATRIX:
        return
    with capture.global_and_fixture_disabled():  # to the terminal, not into a test's captured output
        reporter.ensure_newline()
        reporter.write_line(f"server crash matrix (PGCTX_CRASH_SEED={SEED}, PGCTX_CRASH_RUNS={RUNS}):")
        for point, tally in sorted(MATRIX.items()):
            reporter.write_line(f"  ({point}) " + ", ".join(f"{key} {value}" for key, value in sorted(tally.items())))


# --- appends: what the log must hold after the crash -------------------------------------------------


def check_appends(conn, calls: dict[Any, list[dict]], acks: dict[Any, list[int]], key_of: Callable[[dict], Any],
                  tally: Counter) -> None:
    """``calls``: what each call the client started sent, by key; ``acks``: the seqs of the calls
    that returned. The log is gap-free, every event belongs to a call, each call's events are all
    there in one run of seqs or none is, and each acknowledged call's are at its acknowledged seqs.
    What was found is added to ``tally`` before anything is asserted."""
    rows = events(conn)
    stored: dict[Any, list[tuple]] = defaultdict(list)
    for seq, kind, payload, _ in rows:
        stored[key_of(payload)].append((seq, kind, payload))
    seen = Counter({"acked events lost": 0, "half-applied calls": 0, "stray events": 0})
    for key, items in calls.items():
        there = stored.get(key, [])
        seqs = [seq for seq, *_ in there]
        whole = bool(there) and [(kind, payload) for _, kind, payload in there] == \
            [(item["kind"], item["payload"]) for item in items] and seqs == list(range(seqs[0], seqs[0] + len(items)))
        seen["half-applied calls"] += bool(there) and not whole
        if key in acks:
            seen["acked events"] += len(items)
            seen["acked events lost"] += 0 if whole and seqs == acks[key] else len(items)
        else:
            seen["in flight, applied" if there else "in flight, absent"] += 1
    seen["stray events"] += sum(len(stored[key]) for key in set(stored) - set(calls))
    tally.update(seen)
    assert [seq for seq, *_ in rows] == list(range(1, len(rows) + 1)), "a gap in the seqs"
    assert seen["acked events lost"] == 0, f"acknowledged events missing or changed: {seen}"
    assert seen["half-applied calls"] == 0, f"half-applied calls: {seen}"
    assert seen["stray events"] == 0, f"events no call sent: {set(stored) - set(calls)}"


# --- (a) a batch of 1,000 events -----------------------------------------------------------------------


@pytest.mark.parametrize("index", range(RUNS), ids=lambda i: f"run-{i}")
def test_kill_during_append_many(server, client, schema_template, index):
    run = Run("a append_many", index)
    kill_batch = run.rng.randrange(1, 3)  # batch 0 is acknowledged first: its duration spreads the delay
    with database(server, schema_template) as dsn, replayable(run):
        client.start("batches", dsn, seed=run.seed, batches=kill_batch + 4)
        first = client.until(lambda said: said["at"] == "acked")
        duration = first["t"] - sent(client.transcript)[0]["t"]
        kill(server, client, lambda said: said["at"] == "sending" and said["batch"] == kill_batch,
             run.spread(duration, over=1.2))
        transcript = client.finish()
        server.restart()

        (error,) = assert_lost_connection(transcript)
        assert error["call"] == "append_many", error
        calls = {s["batch"]: batch_items(run.seed, s["batch"]) for s in sent(transcript)}
        acks = {a["batch"]: a["seqs"] for a in acked(transcript)}
        with connected(dsn) as conn:
            check_appends(conn, calls, acks, lambda payload: payload["batch"], run.tally)
            assert_recovered(conn)


# --- (b) between prepare_fold and commit_fold ----------------------------------------------------------


@pytest.mark.parametrize("index", range(RUNS), ids=lambda i: f"run-{i}")
def test_kill_between_prepare_and_commit(server, client, schema_template, index):
    run = Run("b prepare|commit", index)
    layout = "u" + "".join(run.rng.choice("uc") for _ in range(run.rng.randrange(1, 12)))
    with database(server, schema_template) as dsn, replayable(run):
        with connected(dsn) as conn:
            history(conn, layout, CID)
            before = events(conn)
        client.start("prepare", dsn)
        kill(server, client, lambda said: said["at"] == "acked", run.rng.uniform(0, 0.02))
        client.write("go")  # the client's commit, now on a connection the crash broke
        transcript = client.finish()
        server.restart()

        (error,) = assert_lost_connection(transcript)
        assert error["call"] == "commit_fold", transcript
        (prepared,) = acked(transcript, "prepare_fold")
        version, cursor = prepared["version"], prepared["cursor"]
        with connected(dsn) as conn:
            # the acknowledged candidate survived the crash, PREPARED, and nothing moved the fold head
            assert checkpoints(conn, CID) == [(version, "PREPARED", 0, 0, cursor, None)]
            assert fold_head(conn, CID) == (0, 0, None)
            if run.rng.random() < 0.5:
                # the caller retries its commit after the restart: it commits, and recovery then
                # has no candidate left to finish
                assert pgctx.commit_fold(conn, CID, version) == cursor
                assert pgctx.recover(conn, CID)["prepared"] == []
                run.tally["commit retried by the caller"] += 1
            else:
                # recovery finishes the fold; the caller's late retry is refused, not a second commit
                report = pgctx.recover(conn, CID)
                assert report["prepared"] == [{"version": version, "cursor": cursor, "action": "committed"}], report
                with pytest.raises(IllegalPhaseTransition):
                    pgctx.commit_fold(conn, CID, version)
                run.tally["committed by recover"] += 1
            run.tally["double commits"] += double_commits(conn)
            assert fold_head(conn, CID) == (version, cursor, None)
            assert_no_fold_twice(conn)
            assert_chain_intact(conn, before)
            assert_recovered(conn)


# --- (c) while commit_fold runs -------------------------------------------------------------------------


def commit_duration(server: EmbeddedPostgres, client: Client, template_name: str) -> float:
    """How long a commit of the template's takes, seen from the test (the client's line before the
    call to its acknowledgement): the median of three, each on its own clone."""
    durations = []
    for version in (2, 3, 4):
        with database(server, template_name) as dsn:
            client.start("commit", dsn, version=version)
            client.finish()
            durations.append(acked(client.transcript)[0]["t"] - sent(client.transcript)[0]["t"])
    return sorted(durations)[1]


@pytest.fixture(scope="module")
def commit_window(server, client, commit_template):
    return commit_duration(server, client, commit_template)


@pytest.mark.parametrize("index", range(RUNS), ids=lambda i: f"run-{i}")
def test_kill_during_commit_fold(server, client, commit_template, commit_window, index):
    run = Run("c commit_fold", index)
    version = run.rng.randrange(2, CANDIDATES + 2)
    rivals = [v for v in range(2, CANDIDATES + 2) if v != version]
    with database(server, commit_template) as dsn, replayable(run):
        with connected(dsn) as conn:
            before = events(conn)
        client.start("commit", dsn, version=version)
        # up to twice the measured duration: a commit slower than the calibration's (the machine is
        # shared) is still killed after its commit record in some runs
        kill(server, client, lambda said: said["at"] == "sending", run.spread(commit_window, over=2))
        transcript = client.finish()
        server.restart()

        assert_lost_connection(transcript)
        with connected(dsn) as conn:
            rows = {row[0]: row for row in checkpoints(conn, CID)}
            committed = rows[version][1] == "COMMITTED"
            run.tally["committed" if committed else "not committed"] += 1
            run.tally["committed, answer lost"] += committed and not acked(transcript)
            if committed:  # all of the commit: the fold head moved, every rival retired
                expected_rivals = {(v, "DISCARDED", f"superseded: version {version} was committed first")
                                   for v in rivals}
                expected_head = (version, 8, None)
            else:  # none of it
                expected_rivals = {(v, "PREPARED", None) for v in rivals}
                expected_head = (1, 4, None)
            whole = {(v, rows[v][1], rows[v][5]) for v in rivals} == expected_rivals \
                and fold_head(conn, CID) == expected_head
            run.tally["half-applied commits"] += not whole
            assert whole, (committed, fold_head(conn, CID), Counter(row[1] for row in rows.values()))
            assert committed or not acked(transcript), "an acknowledged commit is gone"

            report = pgctx.recover(conn, CID)
            # recovery finishes what the crash left: the oldest valid candidate, when none committed
            assert report["committed"] == {"version": version if committed else 2, "cursor": 8,
                                           "fallback_reason": None}, report
            run.tally["double commits"] += double_commits(conn)
            assert_no_fold_twice(conn)
            assert_chain_intact(conn, before)
            assert_recovered(conn)


def test_commit_kills_hit_both_sides_of_the_commit_record():
    """The delays of (c) spread over the commit's measured duration: some runs killed the server
    before its commit record was written, some after (the runs above, in file order, counted)."""
    tally = MATRIX["c commit_fold"]
    assert tally["runs"] == RUNS, "run this with the test_kill_during_commit_fold runs: they count the outcomes"
    assert tally["committed"] > 0 and tally["not committed"] > 0, tally


# --- (d) during recover() ----------------------------------------------------------------------------


def recovery_state(conn) -> tuple:
    """What recover() changes, without its timestamps: the checkpoints, the fold head, the verified
    point (its seq, and whether its hash is that event's), and the newest event."""
    verified = conn.execute(
        "SELECT v.seq, v.hash = e.hash FROM pgctx.verified_points v LEFT JOIN pgctx.events e"
        " ON e.conversation_id = v.conversation_id AND e.seq = v.seq WHERE v.conversation_id = %s", (CID,)).fetchone()
    newest = conn.execute("SELECT seq, kind, payload FROM pgctx.events WHERE conversation_id = %s"
                          " ORDER BY seq DESC LIMIT 1", (CID,)).fetchone()
    return checkpoints(conn, CID), fold_head(conn, CID), verified, newest


@pytest.fixture(scope="module")
def recovery_reference(server, client, recover_template):
    """The state before recovery, the state after an uninterrupted recover() by the client, its
    report and its duration seen from the test."""
    with database(server, recover_template) as dsn:
        with connected(dsn) as conn:
            before = recovery_state(conn)
        client.start("recover", dsn)
        transcript = client.finish()
        with connected(dsn) as conn:
            after = recovery_state(conn)
    (done,) = acked(transcript)
    report = done["report"]
    # what the template is for: recovery commits the candidate and marks the running call unknown
    assert report["prepared"] == [{"version": 2, "cursor": 8, "action": "committed"}], report
    assert report["recovery_event_seq"] == HISTORY + 10, report
    return before, after, report, done["t"] - sent(transcript)[0]["t"]


@pytest.mark.parametrize("index", range(RUNS), ids=lambda i: f"run-{i}")
def test_kill_during_recover(server, client, recover_template, recovery_reference, index):
    run = Run("d recover", index)
    before, after, reference, duration = recovery_reference
    with database(server, recover_template) as dsn, replayable(run):
        client.start("recover", dsn)
        kill(server, client, lambda said: said["at"] == "sending", run.spread(duration, over=2))  # as (c)
        transcript = client.finish()
        server.restart()

        assert_lost_connection(transcript)
        with connected(dsn) as conn:
            state = recovery_state(conn)
            applied = state == after
            run.tally["recovery committed" if applied else "recovery not committed"] += 1
            run.tally["recovery committed, answer lost"] += applied and not acked(transcript)
            run.tally["half-applied recoveries"] += state not in (before, after)
            # recover() is one transaction: all of it (candidate committed, verified point moved,
            # recovery event appended) or nothing
            assert state in (before, after), state
            assert applied or not acked(transcript), "an acknowledged recovery is gone"
            report = pgctx.recover(conn, CID)
            assert recovery_state(conn) == after
            if not applied:  # the rerun did what the killed run would have
                assert {k: report[k] for k in ("prepared", "recovery_event_seq", "committed")} == \
                    {k: reference[k] for k in ("prepared", "recovery_event_seq", "committed")}, report
            run.tally["double commits"] += double_commits(conn)
            assert_no_fold_twice(conn)
            assert_recovered(conn)


# --- (e) eight clients, one conversation ---------------------------------------------------------------


def by_op(payload: dict) -> tuple[int, int]:
    return payload["client"], payload["op"]


@pytest.mark.parametrize("index", range(RUNS), ids=lambda i: f"run-{i}")
def test_kill_during_concurrent_appends(server, client, schema_template, index):
    run = Run("e 8 clients", index)
    acks_before_kill = run.rng.randrange(8, 200)
    with database(server, schema_template) as dsn, replayable(run):
        client.start("concurrent", dsn, seed=run.seed, clients=8, ops=1000)
        counted = itertools.count(1)
        kill(server, client, lambda said: said["at"] == "acked" and next(counted) == acks_before_kill,
             run.rng.uniform(0, 0.005))
        transcript = client.finish()
        server.restart()

        # the eight were appending when the server died: each one's call in flight failed
        assert sorted(error["client"] for error in assert_lost_connection(transcript)) == list(range(8))
        calls = {(s["client"], s["op"]): op_items(run.seed, s["client"], s["op"]) for s in sent(transcript)}
        acks = {(a["client"], a["op"]): a["seqs"] for a in acked(transcript)}
        with connected(dsn) as conn:
            check_appends(conn, calls, acks, by_op, run.tally)
            # each client's retry of the call whose answer the crash lost: the event keys make it
            # return the seqs it got, if it was applied, and append it otherwise: either way once
            retried = {}
            for key in set(calls) - set(acks):
                stored = [seq for seq, _, payload, _ in events(conn) if by_op(payload) == key]
                head = len(events(conn))
                retried[key] = pgctx.append_many(conn, CID, calls[key])
                assert retried[key] == (stored or list(range(head + 1, head + 1 + len(calls[key])))), key
            check_appends(conn, calls, {**acks, **retried}, by_op, Counter())
            assert_recovered(conn)


# --- pools: carrying on after a restart ----------------------------------------------------------------
#
# psycopg_pool learns that a connection is dead only by using it. pgctx checks the pool when a
# call's connection broke (pgctx.db._lent), so the connections that died with the server are
# replaced then; check=ConnectionPool.check_connection, if the caller configures it, tests each
# connection before lending it. Which calls fail, per case, is what docs/guarantees.md says.


@contextlib.contextmanager
def head_row_held(dsn: str) -> Iterator[None]:
    """The conversation's head row locked by another session: an append to it waits in the server,
    in flight for as long as the test wants, until the crash ends both."""
    holder = psycopg.connect(dsn)  # not autocommit: the lock lasts as long as its transaction
    try:
        holder.execute("SELECT 1 FROM pgctx.conversations WHERE conversation_id = %s FOR UPDATE", (CID,))
        yield
    finally:
        holder.close()


def wait_active(dsn: str, query: str) -> None:
    """Until a backend of the database runs ``query`` (what is in flight when the server dies)."""
    with connected(dsn) as conn:
        for _ in range(2000):
            if conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                            " AND state = 'active' AND query LIKE %s AND pid <> pg_backend_pid()",
                            (f"%{query}%",)).fetchone()[0]:
                return
            time.sleep(0.002)
    pytest.fail(f"no backend ran {query}")


def assert_lost(exc: BaseException) -> None:
    assert isinstance(exc, psycopg.OperationalError) and not isinstance(exc, pgctx.PgctxError), repr(exc)
    assert exc.sqlstate is None, repr(exc)


POOL_CASES = [pytest.param(in_flight, check, id=f"{'in-flight' if in_flight else 'idle'}-{check or 'no-check'}")
              for in_flight in (True, False) for check in (None, "check_connection")]


def expected_failures(in_flight: bool, check: str | None) -> int:
    """Calls after the restart that fail: none, unless the crash came while nothing was in flight
    and the pool does not check connections: then the first call meets a dead connection."""
    return 0 if in_flight or check else 1


@pytest.mark.parametrize("in_flight, check", POOL_CASES)
def test_pool_carries_on_after_a_restart(server, schema_template, in_flight, check):
    with database(server, schema_template) as dsn, \
            ConnectionPool(dsn, min_size=POOL_SIZE, max_size=POOL_SIZE, timeout=20, kwargs={"autocommit": True},
                           check=ConnectionPool.check_connection if check else None, open=False) as pool:
        pool.wait()
        assert pgctx.append(pool, CID, "user", {"text": "before the crash"}) == 1
        if in_flight:
            # an append in flight on one connection (waiting for the head row) while the other is idle
            lost: list[BaseException] = []

            def append() -> None:
                try:
                    pgctx.append(pool, CID, "user", {"text": "in flight"})
                except Exception as exc:
                    lost.append(exc)

            with head_row_held(dsn):
                caller = threading.Thread(target=append)
                caller.start()
                wait_active(dsn, "append_event")
                server.crash()
            caller.join(timeout=LINE_TIMEOUT)
            (error,) = lost
            assert_lost(error)
        else:
            server.crash()
        server.restart()

        # the same pool object, nothing rebuilt: a few rounds of every connection it has
        outcomes = []
        for i in range(3 * POOL_SIZE):
            try:
                outcomes.append(pgctx.append(pool, "after-restart", "user", {"text": f"call {i}"}))
            except psycopg.OperationalError as exc:
                assert_lost(exc)
                outcomes.append(None)
        failures = expected_failures(in_flight, check)
        assert outcomes == [None] * failures + list(range(1, 3 * POOL_SIZE - failures + 1)), outcomes
        assert pgctx.verify(pool, "after-restart").ok
        # the append in flight was waiting for the lock when the server died: it left nothing
        assert (pgctx.verify(pool, CID).ok, pgctx.verify(pool, CID).head_seq) == (True, 1)


@pytest.mark.parametrize("in_flight, check", POOL_CASES)
def test_async_pool_carries_on_after_a_restart(server, schema_template, in_flight, check):
    async def main(dsn: str) -> list[int | None]:
        async with AsyncConnectionPool(dsn, min_size=POOL_SIZE, max_size=POOL_SIZE, timeout=20,
                                       kwargs={"autocommit": True},
                                       check=AsyncConnectionPool.check_connection if check else None,
                                       open=False) as pool:
            await pool.wait()
            assert await pgctx.append(pool, CID, "user", {"text": "before the crash"}) == 1
            if in_flight:
                with head_row_held(dsn):
                    call = asyncio.ensure_future(pgctx.append(pool, CID, "user", {"text": "in flight"}))
                    await asyncio.to_thread(wait_active, dsn, "append_event")
                    server.crash()
                with pytest.raises(psycopg.OperationalError) as error:
                    await call
                assert_lost(error.value)
            else:
                server.crash()
            await asyncio.to_thread(server.restart)  # the pool's tasks run meanwhile
            outcomes: list[int | None] = []
            for i in range(3 * POOL_SIZE):
                try:
                    outcomes.append(await pgctx.append(pool, "after-restart", "user", {"text": f"call {i}"}))
                except psycopg.OperationalError as exc:
                    assert_lost(exc)
                    outcomes.append(None)
            assert (await pgctx.verify(pool, "after-restart")).ok
            assert (await pgctx.verify(pool, CID)).head_seq == 1  # the append in flight left nothing
            return outcomes

    with database(server, schema_template) as dsn:
        outcomes = asyncio.run(main(dsn))
    failures = expected_failures(in_flight, check)
    assert outcomes == [None] * failures + list(range(1, 3 * POOL_SIZE - failures + 1)), outcomes
