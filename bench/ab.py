"""A/B of a schema change: the same work on two databases of one server, alternating.

    .venv/bin/python bench/ab.py WORKLOAD REV sql/030_events.sql [FILE ...] [--cpu] [--rounds=N] [--analyze]

WORKLOAD is one of
    fold    append 100 events, time pgctx.fold(force=True) (after folds up to 1,000 events)
    context the same set-up; append 100 events (a fold every 400), time 20 x (context_events +
            fold_status): what every turn of an agent reads
    insert  300 single-event transactions, INSERT INTO pgctx.events
    append  300 single-event transactions, SELECT pgctx.append_event(...)
    batch   20 transactions of pgctx.append_events(100 events)
    verify  SELECT * FROM pgctx.verify_chain(...) of a 5,000-event conversation (appended once,
            through the database's own append_events), alone in the log
    verify-log
            the same among 25,000 events of another conversation, pgctx.events analyzed (as
            autovacuum leaves a log: its plans, JIT compilation included, follow the statistics)

Database b has the schema of the working tree; database a the same, then each FILE as it was at
git revision REV applied on top (a FILE that is not under sql/ is applied as it is: a variant to
try). Rounds alternate a b, b a, ... (fsync on; --cpu sets synchronous_commit = off, so a round
measures CPU rather than the WAL flush). Prints each median time per round and the median of the
per-round ratios b / a (after the warm-up rounds), and how many events of each database are in
chain format v1 (no payload digest) and v2. --rounds=N runs N rounds instead of the workload's
default (fold 60, the others 30; the warm-up rounds stay as they are). --analyze runs ANALYZE
pgctx.events before every round (untimed): without it, what a session planned while the log was
empty stays planned until autovacuum analyzes it (a minute at the least), and on the batch
workload the head row guard's lookup of the head event then scans the whole conversation
(the (conversation_id, event_key) index, not the primary key): a batch round grows from ~50 ms
to ~550 ms over 60 rounds and that scan, not append_events, is what the rounds measure.

Why: per-function timings in a loop (and EXPLAIN) misled more than once here. A plpgsql rewrite
that halved a function's time in isolation made fold() 8% slower, because the plan it kept for
the session was worse than the one PostgreSQL made for each call's actual values. Only the whole
operation, in the same server and the same run, settles it; an A/A run (a FILE unchanged since
REV) gives ratios within 1% of 1.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import pgctx  # noqa: E402
from bench_eventlog import make_batches, make_payloads  # noqa: E402
from bench_fold import block  # noqa: E402
from pgctx.embedded import EmbeddedPostgres  # noqa: E402

Round = tuple[Callable[[], None] | None, Callable[[], None]]  # (untimed preparation, timed work)


def old_text(rev: str, name: str) -> str:
    path = Path(name)
    if path.parent.name == "sql":
        return subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:sql/{path.name}"],
                              capture_output=True, text=True, check=True).stdout
    return path.read_text(encoding="utf-8")


def fold_round(conn: psycopg.Connection) -> Round:
    """Folds every 200 events up to 1,000 first; a round appends 100 (untimed) and folds."""
    head = 0
    while head < 1000:
        pgctx.append_many(conn, "ab", block(head, 200))
        head += 200
        pgctx.fold(conn, "ab", force=True)

    def prepare() -> None:
        nonlocal head
        pgctx.append_many(conn, "ab", block(head, 100))
        head += 100

    def timed() -> None:
        pgctx.fold(conn, "ab", force=True)

    return prepare, timed


def context_round(conn: psycopg.Connection) -> Round:
    """As fold's set-up; a round appends 100 events (untimed, folding every fourth round) and
    reads what a turn reads: the working context's events and the fold policy, 20 times."""
    head = 0
    while head < 1000:
        pgctx.append_many(conn, "ab", block(head, 200))
        head += 200
        pgctx.fold(conn, "ab", force=True)
    cur = conn.cursor()

    def prepare() -> None:
        nonlocal head
        pgctx.append_many(conn, "ab", block(head, 100))
        head += 100
        if head % 400 == 0:
            pgctx.fold(conn, "ab", force=True)

    def timed() -> None:
        for _ in range(20):
            cur.execute("SELECT count(*) FROM pgctx.context_events('ab')", prepare=True).fetchone()
            cur.execute("SELECT due FROM pgctx.fold_status('ab', 100000, 10000, 2000)", prepare=True).fetchone()

    return prepare, timed


def single_round(conn: psycopg.Connection, statement: str) -> Round:
    payloads = make_payloads(300)
    cur = conn.cursor()

    def timed() -> None:
        for kind, payload in payloads:
            cur.execute(statement, ("ab", kind, payload), prepare=True)

    return None, timed


def batch_round(conn: psycopg.Connection) -> Round:
    batches = make_batches(make_payloads(1024), 100, 20)
    cur = conn.cursor()

    def timed() -> None:
        for body in batches:
            cur.execute("SELECT count(*) FROM pgctx.append_events('ab', %s::jsonb)", (body,), prepare=True)

    return None, timed


def verify_round(conn: psycopg.Connection, others: int) -> Round:
    body = make_batches(make_payloads(1000), 1000, 1)[0]
    for conversation in ["ab"] * 5 + ["other"] * (others // 1000):
        conn.execute("SELECT count(*) FROM pgctx.append_events(%s, %s::jsonb)", (conversation, body))
    if others:
        conn.execute("ANALYZE pgctx.events")
    cur = conn.cursor()

    def timed() -> None:
        ok, checked = cur.execute("SELECT ok, checked FROM pgctx.verify_chain('ab')", prepare=True).fetchone()
        assert ok and checked == 5000, (ok, checked)

    return None, timed


WORKLOADS = {
    "fold": (fold_round, 60, 10),
    "context": (context_round, 30, 5),
    "insert": (lambda c: single_round(c, "INSERT INTO pgctx.events (conversation_id, kind, payload)"
                                         " VALUES (%s, %s, %s::jsonb)"), 30, 5),
    "append": (lambda c: single_round(c, "SELECT pgctx.append_event(%s, %s, %s::jsonb)"), 30, 5),
    "batch": (batch_round, 30, 5),
    "verify": (lambda c: verify_round(c, 0), 30, 5),
    "verify-log": (lambda c: verify_round(c, 25000), 30, 5),
}


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) < 3 or args[0] not in WORKLOADS:
        sys.exit(__doc__)
    workload, rev, files = args[0], args[1], args[2:]
    make, rounds, warm_up = WORKLOADS[workload]
    rounds = next((int(a[len("--rounds="):]) for a in sys.argv[1:] if a.startswith("--rounds=")), rounds)
    server = EmbeddedPostgres(fsync=True)
    try:
        runs, conns = {}, {}
        for name in ("a", "b"):
            with psycopg.connect(server.superuser_dsn("postgres"), autocommit=True) as admin:
                admin.execute(f"CREATE DATABASE {name}")
            pgctx.migrate(server.superuser_dsn(name))
            conn = conns[name] = psycopg.connect(server.superuser_dsn(name), autocommit=True)
            if "--cpu" in sys.argv:
                conn.execute("SET synchronous_commit = off")
            if name == "a":
                for f in files:
                    conn.execute(old_text(rev, f))
            runs[name] = make(conn)
        times: dict[str, list[float]] = {"a": [], "b": []}
        for r in range(rounds):
            for name in ("a", "b") if r % 2 == 0 else ("b", "a"):
                prepare, timed = runs[name]
                if "--analyze" in sys.argv:
                    conns[name].execute("ANALYZE pgctx.events")
                if prepare:
                    prepare()
                started = time.perf_counter()
                timed()
                times[name].append(time.perf_counter() - started)
        a, b = (times[n][warm_up:] for n in ("a", "b"))
        ratio = statistics.median(y / x for x, y in zip(a, b))
        print(f"{workload}: a ({', '.join(files)} at {rev}): {statistics.median(a) * 1000:.2f} ms   "
              f"b (working tree): {statistics.median(b) * 1000:.2f} ms   median ratio b/a: {ratio:.3f}")
        for name, conn in conns.items():
            v1, v2 = conn.execute("SELECT count(*) FILTER (WHERE payload_digest IS NULL AND salt IS NULL),"
                                  " count(*) FILTER (WHERE payload_digest IS NOT NULL AND salt IS NOT NULL)"
                                  " FROM pgctx.events").fetchone()
            print(f"  {name}: {v1} events in chain format v1, {v2} in v2")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
