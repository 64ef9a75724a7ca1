"""A/B of a schema change on fold(): the same folds on two databases of one server, alternating.

    .venv/bin/python bench/ab_fold.py REV sql/100_fold.sql [FILE ...]

Database b has the schema of the working tree; database a the same, then each FILE as it was at
git revision REV applied on top (a FILE that is not under sql/ is applied as it is: a variant to
try). Both get the bench_fold.block() conversation, folded every 200 events up to 1,000, then
60 rounds of "append 100 events, time pgctx.fold(force=True)" alternating a b, b a, ... (fsync
on). Prints each median and the median of the per-round ratios b / a (after 10 warm-up rounds).

Why: per-function timings in a loop (and EXPLAIN) misled more than once here. A plpgsql rewrite
that halved a function's time in isolation made fold() 8% slower, because the plan it kept for
the session was worse than the one PostgreSQL made for each call's actual values. Only the whole
fold, in the same server and the same run, settles it; an A/A run (a FILE unchanged since REV)
gives ratios within 1% of 1.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import pgctx  # noqa: E402
from bench_fold import block  # noqa: E402
from pgctx.embedded import EmbeddedPostgres  # noqa: E402

ROUNDS, WARM_UP = 60, 10


def old_text(rev: str, name: str) -> str:
    path = Path(name)
    if path.parent.name == "sql":
        return subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:sql/{path.name}"],
                              capture_output=True, text=True, check=True).stdout
    return path.read_text(encoding="utf-8")


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rev, files = sys.argv[1], sys.argv[2:]
    server = EmbeddedPostgres(fsync=True)
    try:
        conns = {}
        for name in ("a", "b"):
            with psycopg.connect(server.superuser_dsn("postgres"), autocommit=True) as admin:
                admin.execute(f"CREATE DATABASE {name}")
            pgctx.migrate(server.superuser_dsn(name))
            conns[name] = psycopg.connect(server.superuser_dsn(name), autocommit=True)
        for f in files:
            conns["a"].execute(old_text(rev, f))
        heads = dict.fromkeys(conns, 0)
        for name, conn in conns.items():
            while heads[name] < 1000:
                pgctx.append_many(conn, "ab", block(heads[name], 200))
                heads[name] += 200
                pgctx.fold(conn, "ab", force=True)
        times: dict[str, list[float]] = {"a": [], "b": []}
        for r in range(ROUNDS):
            for name in ("a", "b") if r % 2 == 0 else ("b", "a"):
                conn = conns[name]
                pgctx.append_many(conn, "ab", block(heads[name], 100))
                heads[name] += 100
                started = time.perf_counter()
                pgctx.fold(conn, "ab", force=True)
                times[name].append(time.perf_counter() - started)
        a, b = (times[n][WARM_UP:] for n in ("a", "b"))
        ratio = statistics.median(y / x for x, y in zip(a, b))
        print(f"a ({', '.join(files)} at {rev}): {statistics.median(a) * 1000:.2f} ms   "
              f"b (working tree): {statistics.median(b) * 1000:.2f} ms   median ratio b/a: {ratio:.3f}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
