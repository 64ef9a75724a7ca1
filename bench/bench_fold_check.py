"""What a turn pays for asking whether a fold is due, when none is: pgctx.fold() with nothing due.

    .venv/bin/python bench/bench_fold_check.py [--quick] [--no-fsync]

One throwaway PostgreSQL (pgctx.embedded, fsync on unless --no-fsync). For each size of
unfolded history (40, 280 and 1,000 events of bench_fold.block(): messages, and every tenth pair
a read tool call with its result), one conversation in a budget whose floor it stays under
(a 128k-token window: B = 118k, floor 83k), so every fold() is "not due". Timed per call, in
rounds that alternate the measures so drift hits them alike:

  * commit: one durable single-row INSERT into a plain table (the floor a turn's write costs);
  * fold(): pgctx.fold(conn, cid, budget=...) with nothing due (the fast path of
    pgctx.fold_status: under the floor and the threshold it computes no trigger and no boundary);
  * full check: the same pgctx.fold_status with no floor (what every check cost before the fast
    path, and still what a forced fold asks: the triggers, the boundaries, the tail).

Reports the medians and p95, and each as a ratio to the commit in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pgctx  # noqa: E402
from bench_fold import block  # noqa: E402
from pgctx.embedded import EmbeddedPostgres  # noqa: E402
from pgctx.tokens import Budget  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "fold-check.md"
BUDGET = Budget(window=128_000)


def timed(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--no-fsync", action="store_true", help="fsync off: the CPU cost alone")
    args = parser.parse_args()
    rounds, per = (5, 20) if args.quick else (20, 25)
    server = EmbeddedPostgres(fsync=not args.no_fsync)
    try:
        dsn = server.superuser_dsn("test")
        pgctx.migrate(dsn)
        with psycopg.connect(dsn, autocommit=True) as conn:
            version = conn.execute("SHOW server_version").fetchone()[0]
            conn.execute("CREATE TABLE plain (id bigserial PRIMARY KEY, payload jsonb)")
            sizes = (40, 280, 1_000)
            for n in sizes:
                pgctx.append_many(conn, f"unfolded-{n}", block(0, n))
            conn.execute("VACUUM ANALYZE")
            full = ("SELECT * FROM pgctx.fold_status(%s, %s, NULL, %s)", BUDGET.threshold, BUDGET.tail)
            samples: dict[tuple[str, int], list[float]] = {}
            for n in sizes:
                cid = f"unfolded-{n}"
                assert not pgctx.fold(conn, cid, budget=BUDGET).committed  # and warm
                for _ in range(rounds):
                    samples.setdefault(("commit", n), []).extend(timed(
                        lambda: conn.execute("INSERT INTO plain (payload) VALUES ('{\"text\": \"turn\"}')"), per))
                    samples.setdefault(("fold()", n), []).extend(timed(
                        lambda: pgctx.fold(conn, cid, budget=BUDGET), per))
                    samples.setdefault(("full check", n), []).extend(timed(
                        lambda: conn.execute(full[0], (cid, full[1], full[2])).fetchall(), per))
    finally:
        server.stop()

    def p(xs: list[float], q: float) -> float:
        s = sorted(xs)
        return s[min(len(s) - 1, int(round(q * (len(s) - 1))))] * 1000

    lines = [f"PostgreSQL {version}, fsync {'on' if not args.no_fsync else 'off'}; {rounds} rounds of {per} calls "
             "per measure and size, the measures alternating; nothing due (a 128k-token window).", "",
             "| unfolded events | commit p50 ms | fold() p50 ms (p95) | x commit | full check p50 ms (p95) | x commit |",
             "|---:|---:|---:|---:|---:|---:|"]
    for n in sizes:
        c = statistics.median(samples[("commit", n)]) * 1000
        f, g = samples[("fold()", n)], samples[("full check", n)]
        lines.append(f"| {n:,} | {c:.2f} | {p(f, .5):.2f} ({p(f, .95):.2f}) | {p(f, .5) / c:.2f}x | "
                     f"{p(g, .5):.2f} ({p(g, .95):.2f}) | {p(g, .5) / c:.2f}x |")
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(exist_ok=True)
    (RESULTS if not args.no_fsync else RESULTS.with_name("fold-check-no-fsync.md")).write_text(text + "\n")


if __name__ == "__main__":
    main()
