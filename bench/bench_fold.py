"""Fold overhead without a model: prepare + validate + commit of a 100-event fold.

Measures the median (and p95) wall time of pgctx.prepare_fold + pgctx.commit_fold (two
transactions, as a client runs them, durable commits: fsync on) for a fold of 100 new events,
on conversations whose history is 1k, 10k and 100k events, all but the last 100 already folded.
Validation reads the folded range and the previous summary, never the whole history, so the
figure should not grow with history: the report gives each median as a ratio to the 1k one.

    .venv/bin/python bench/bench_fold.py [--quick] [--no-fsync]

The candidate is built by the built-in summarizer before the clock starts (no model call).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import psycopg

import pgctx
from pgctx.embedded import EmbeddedPostgres
from pgctx.fold_procedures import fold_request
from pgctx.summarizers import BuiltinSummarizer

RESULTS = Path(__file__).resolve().parent / "results" / "fold.md"
SUMMARIZER = BuiltinSummarizer()


def block(start: int, n: int) -> list[dict]:
    """n events: messages, and every tenth pair a read tool call with its result."""
    events = []
    i = start
    while len(events) < n:
        if i % 10 == 0 and len(events) + 2 <= n:
            call_id = f"call-{i}"
            events.append({"kind": "tool_call", "payload": {
                "tool": "lookup_order", "effect": "read", "call_id": call_id, "idempotency_key": f"k-{i}",
                "arguments": {"order_id": str(10000 + i % 500), "fields": ["status", "eta"]}}})
            events.append({"kind": "tool_result", "payload": {
                "call_id": call_id, "outcome": "succeeded", "request_id": f"req-{i}",
                "result": {"status": "shipped", "eta": "2026-09-02"}}})
            i += 2
        else:
            kind = "user" if i % 2 else "assistant"
            events.append({"kind": kind, "payload": {"text": f"message {i}: where is my order, and can it come tomorrow?"}})
            i += 1
    return events


def fold_once(conn, cid: str) -> float:
    request = fold_request(conn, cid)
    candidate = SUMMARIZER.summarize(request)
    head = pgctx.committed_fold(conn, cid)
    started = time.perf_counter()
    version = pgctx.prepare_fold(conn, cid, expected_version=head.version, expected_cursor=head.cursor,
                                 new_cursor=request.to_seq, summary=candidate, summarizer=SUMMARIZER.id)
    pgctx.commit_fold(conn, cid, version)
    return time.perf_counter() - started


def measure(conn, history: int, rounds: int) -> list[float]:
    cid = f"history-{history}"
    for start in range(0, history - 100, 1000):
        pgctx.append_many(conn, cid, block(start, min(1000, history - 100 - start)))
    fold_once(conn, cid)  # everything but the last 100 is folded before timing
    pgctx.append_many(conn, cid, block(history - 100, 100))
    times = []
    for r in range(rounds):
        times.append(fold_once(conn, cid))
        pgctx.append_many(conn, cid, block(history + r * 100, 100))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, 1k and 10k only")
    parser.add_argument("--no-fsync", action="store_true", help="fsync off: the CPU cost alone")
    args = parser.parse_args()
    histories = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    rounds = 10 if args.quick else 30
    fsync = not args.no_fsync
    server = EmbeddedPostgres(fsync=fsync)
    try:
        dsn = server.superuser_dsn("test")
        pgctx.migrate(dsn)
        with psycopg.connect(dsn, autocommit=True) as conn:
            pgctx.append(conn, "warm-up", "user", {"text": "warm up"})
            version = conn.execute("SHOW server_version").fetchone()[0]
            rows = []
            for history in histories:
                times = sorted(measure(conn, history, rounds))
                rows.append((history, statistics.median(times) * 1000, times[int(0.95 * (len(times) - 1))] * 1000))
    finally:
        server.stop()
    base = rows[0][1]
    lines = [
        f"PostgreSQL {version}, fsync {'on' if fsync else 'off'}; {rounds} folds of 100 events per history size; "
        "prepare_fold + commit_fold, two transactions, no model call.",
        "",
        "| history (events) | median ms | p95 ms | median vs 1k |",
        "|---:|---:|---:|---:|",
        *[f"| {h:,} | {m:.2f} | {p:.2f} | {m / base:.2f}x |" for h, m, p in rows],
    ]
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(exist_ok=True)
    (RESULTS if fsync else RESULTS.with_name("fold-no-fsync.md")).write_text(text + "\n")


if __name__ == "__main__":
    main()
