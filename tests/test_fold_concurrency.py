"""Concurrent folders make progress (article 十三): under any number of folders per conversation,
pgctx.fold commits, or returns that a concurrent fold covered its range or that none is due, and
raises FoldConflict only when asked to (attempts=1). 16 folders per conversation, three
conversations, as threads on their own connections and as tasks on one async pool; each folder
appends a turn, folds and builds its context, as an agent service does."""

from __future__ import annotations

import asyncio
import threading

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

import pgctx
from pgctx import errors
from tests.events import call, result

FOLDERS = 16
CONVERSATIONS = ("shared-a", "shared-b", "shared-c")
TURNS = 3
DONE = ("committed", "covered: ", "not due", "nothing to fold", "no boundary")


def turn(cid: str, folder: int, n: int) -> list[dict]:
    key = f"{folder}-{n}"
    return [{"kind": "user", "payload": {"text": f"folder {folder}, turn {n}: move order 1008{folder % 10}"}},
            {"kind": "tool_call", "payload": call(folder * 100 + n) | {"idempotency_key": f"k-{key}"}},
            {"kind": "tool_result", "payload": result(folder * 100 + n)}]


def check(conn, outcomes: list, attempts: int = 3) -> None:
    """Every fold ended well, no range was folded twice, nothing was lost, every chain verifies."""
    failures = [o for o in outcomes if isinstance(o, BaseException)]
    assert not failures, failures[:3]
    assert all(o.reason.startswith(DONE) and o.attempts <= attempts for o in outcomes), \
        {o.reason for o in outcomes}
    assert sum(o.committed for o in outcomes) >= len(CONVERSATIONS)
    for cid in CONVERSATIONS:
        assert pgctx.verify(conn, cid).ok
        ranges = conn.execute("SELECT base_cursor, cursor FROM pgctx.checkpoints WHERE conversation_id = %s"
                              " AND phase = 'COMMITTED' ORDER BY version", (cid,)).fetchall()
        assert all(prev[1] == nxt[0] for prev, nxt in zip(ranges, ranges[1:])), ranges  # continuous, no overlap
        assert pgctx.fold(conn, cid, force=True).cursor == conn.execute(
            "SELECT head_seq FROM pgctx.conversations WHERE conversation_id = %s", (cid,)).fetchone()[0]
        ctx = pgctx.build_context(conn, cid)
        assert ctx.summary and len(ctx.summary["tool_state"]) <= 15  # bounded, with every call accounted for


def run_threads(dsn: str, attempts: int) -> list:
    barrier = threading.Barrier(FOLDERS * len(CONVERSATIONS), timeout=60)
    outcomes: list = []
    lock = threading.Lock()

    def folder(cid: str, n: int) -> None:
        try:
            with psycopg.connect(dsn, autocommit=True) as conn:
                barrier.wait()
                for t in range(TURNS):
                    pgctx.append_many(conn, cid, turn(cid, n, t))
                    try:
                        done = pgctx.fold(conn, cid, force=True, attempts=attempts)
                    except errors.FoldConflict as exc:
                        done = exc
                    pgctx.build_context(conn, cid)
                    with lock:
                        outcomes.append(done)
        except Exception as exc:  # reported by check()
            with lock:
                outcomes.append(exc)

    threads = [threading.Thread(target=folder, args=(cid, n)) for cid in CONVERSATIONS for n in range(FOLDERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not any(t.is_alive() for t in threads)
    return outcomes


def test_sixteen_threads_per_conversation_fold_without_a_conflict(dsn, conn):
    outcomes = run_threads(dsn, attempts=3)
    assert len(outcomes) == FOLDERS * len(CONVERSATIONS) * TURNS
    check(conn, outcomes)
    # they raced: some lost and re-read, and the serialized last attempt was used
    assert any(o.conflicts for o in outcomes) and any(o.attempts == 3 for o in outcomes)


def test_with_one_attempt_a_lost_race_is_a_conflict_and_loses_nothing(dsn, conn):
    outcomes = run_threads(dsn, attempts=1)
    conflicts = [o for o in outcomes if isinstance(o, errors.FoldConflict)]
    assert conflicts, "16 folders with one attempt each should lose races"
    check(conn, [o for o in outcomes if not isinstance(o, errors.FoldConflict)], attempts=1)


def test_sixteen_tasks_per_conversation_on_one_async_pool(dsn, conn):
    async def main() -> list:
        async with AsyncConnectionPool(dsn, min_size=4, max_size=16, kwargs={"autocommit": True}, open=False) as pool:
            async def folder(cid: str, n: int) -> list:
                done = []
                for t in range(TURNS):
                    await pgctx.append_many(pool, cid, turn(cid, n, t))
                    done.append(await pgctx.fold(pool, cid, force=True))
                    await pgctx.build_context(pool, cid)
                return done

            results = await asyncio.gather(*(folder(cid, n) for cid in CONVERSATIONS for n in range(FOLDERS)),
                                           return_exceptions=True)
        return [o for r in results for o in (r if isinstance(r, list) else [r])]

    outcomes = asyncio.run(main())
    assert len(outcomes) == FOLDERS * len(CONVERSATIONS) * TURNS
    check(conn, outcomes)
    assert any(o.conflicts for o in outcomes)


@pytest.fixture(autouse=True)
def _roomy_server(conn):
    """48 connections at once: the throwaway server allows 200."""
    assert int(conn.execute("SHOW max_connections").fetchone()[0]) >= 64
