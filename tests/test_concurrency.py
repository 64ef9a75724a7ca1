"""Concurrent appends (invariant 2): gap-free seqs, no fork, and no waiting across conversations."""

from __future__ import annotations

import threading

import psycopg
import pytest
from psycopg import errors as pg_errors

import pgctx

THREADS = 8
PER_THREAD = 25


def retrying(action):
    """The caller's retry loop: a transaction that lost a serialization race wrote nothing."""
    while True:
        try:
            return action()
        except (pg_errors.SerializationFailure, pg_errors.DeadlockDetected):
            continue


def hammer(dsn: str, isolation: psycopg.IsolationLevel, target, barrier: threading.Barrier, failures: list) -> None:
    """Append PER_THREAD events, one transaction each, retrying serialization failures."""
    try:
        with psycopg.connect(dsn) as conn:
            conn.isolation_level = isolation
            barrier.wait()
            for i in range(PER_THREAD):
                retrying(lambda: pgctx.append(conn, target(i), "user", {"thread": threading.get_ident(), "i": i}))
    except Exception as exc:  # reported to the main thread
        failures.append(exc)


def run_threads(dsn, isolation, target) -> None:
    barrier = threading.Barrier(THREADS)
    failures: list = []
    threads = [
        threading.Thread(target=hammer, args=(dsn, isolation, target(n), barrier, failures)) for n in range(THREADS)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not failures, failures


ISOLATIONS = [psycopg.IsolationLevel.READ_COMMITTED, psycopg.IsolationLevel.REPEATABLE_READ, psycopg.IsolationLevel.SERIALIZABLE]


@pytest.mark.parametrize("isolation", ISOLATIONS, ids=lambda i: i.name)
def test_eight_threads_on_one_conversation(dsn, conn, isolation):
    run_threads(dsn, isolation, lambda n: (lambda i: "shared"))
    seqs = [r[0] for r in conn.execute("SELECT seq FROM pgctx.events WHERE conversation_id = 'shared' ORDER BY seq")]
    assert seqs == list(range(1, THREADS * PER_THREAD + 1))
    # no fork: every prev_hash is used exactly once
    forks = conn.execute(
        "SELECT count(*) FROM (SELECT prev_hash FROM pgctx.events GROUP BY prev_hash HAVING count(*) > 1) f"
    ).fetchone()[0]
    assert forks == 0
    report = pgctx.verify(conn, "shared")
    assert report.ok and report.checked == THREADS * PER_THREAD


@pytest.mark.parametrize("isolation", ISOLATIONS, ids=lambda i: i.name)
def test_eight_threads_on_their_own_and_shared_conversations(dsn, conn, isolation):
    # each thread alternates between its own conversation and one of two shared ones
    run_threads(dsn, isolation, lambda n: (lambda i: f"own-{n}" if i % 2 else f"pair-{n % 2}"))
    for cid, length in conn.execute("SELECT conversation_id, head_seq FROM pgctx.conversations").fetchall():
        assert pgctx.verify(conn, cid).ok
        assert conn.execute(
            "SELECT count(*) = max(seq) FROM pgctx.events WHERE conversation_id = %s", (cid,)
        ).fetchone()[0]
    total = conn.execute("SELECT count(*) FROM pgctx.events").fetchone()[0]
    assert total == THREADS * PER_THREAD


def test_appends_to_other_conversations_do_not_wait(dsn, conn):
    pgctx.append(conn, "a", "user", {})
    pgctx.append(conn, "b", "user", {})
    with psycopg.connect(dsn) as holder, psycopg.connect(dsn, autocommit=True) as other:
        with holder.transaction():
            pgctx.append(holder, "a", "user", {"holding": "a's head lock"})
            other.execute("SET lock_timeout = '2s'")
            assert pgctx.append(other, "b", "user", {}) == 2  # a different conversation: no wait
            assert pgctx.append(other, "new", "user", {}) == 1  # a new one: no wait either
            other.execute("SET lock_timeout = '200ms'")
            with pytest.raises(pg_errors.LockNotAvailable):
                pgctx.append(other, "a", "user", {})  # the same conversation waits for the holder
    assert [pgctx.verify(conn, c).ok for c in ("a", "b", "new")] == [True] * 3
    assert conn.execute("SELECT head_seq FROM pgctx.conversations WHERE conversation_id = 'a'").fetchone()[0] == 2


def test_concurrent_first_appends_create_one_conversation(dsn, conn):
    run_threads(dsn, psycopg.IsolationLevel.READ_COMMITTED, lambda n: (lambda i: f"fresh-{i}"))
    rows = conn.execute(
        "SELECT count(*), min(head_seq), max(head_seq) FROM pgctx.conversations WHERE conversation_id LIKE 'fresh-%'"
    ).fetchone()
    assert rows == (PER_THREAD, THREADS, THREADS)


@pytest.mark.parametrize("isolation", ISOLATIONS, ids=lambda i: i.name)
def test_concurrent_appends_of_one_event_key_write_it_once(dsn, conn, isolation):
    """Eight threads append the same keyed events: the key is looked up under the head lock, so
    each is written once and every thread gets its seq (none sees a unique violation)."""
    barrier = threading.Barrier(THREADS)
    failures: list = []
    seqs: list[list[int]] = []

    def work() -> None:
        try:
            mine = []
            with psycopg.connect(dsn) as c:
                c.isolation_level = isolation
                barrier.wait()
                for i in range(PER_THREAD):
                    mine.append(retrying(lambda: pgctx.append(c, "keyed", "user", {"i": i}, event_key=f"k{i}")))
            seqs.append(mine)
        except Exception as exc:  # reported to the main thread
            failures.append(exc)

    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not failures, failures
    assert len(seqs) == THREADS and all(s == seqs[0] for s in seqs)
    assert sorted(seqs[0]) == list(range(1, PER_THREAD + 1))
    assert conn.execute("SELECT count(*) FROM pgctx.events WHERE conversation_id = 'keyed'").fetchone()[0] == PER_THREAD
    assert pgctx.verify(conn, "keyed").ok
