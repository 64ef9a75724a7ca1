"""A/B of a turn's read statements one by one: ab.py's context set-up on two databases of one
server (a: each FILE as it was at REV applied on top, as ab.py does), ANALYZEd, then 300
alternating rounds of context_events, fold_status over the floor and fold_status's fast path;
per statement the medians and the ratio b / a (after 50 warm-up rounds).

    .venv/bin/python bench/ab_statements.py REV FILE [FILE ...]
"""

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
import psycopg, pgctx
from pgctx.embedded import EmbeddedPostgres
from ab import old_text, context_round
from bench_fold import block
rev, files = sys.argv[1], sys.argv[2:]
server = EmbeddedPostgres(fsync=True)
conns = {}
for name in ("a", "b"):
    with psycopg.connect(server.superuser_dsn("postgres"), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    pgctx.migrate(server.superuser_dsn(name))
    c = conns[name] = psycopg.connect(server.superuser_dsn(name), autocommit=True)
    if name == "a":
        for f in files: c.execute(old_text(rev, f))
    prep, _ = context_round(c)
    prep(); prep(); prep()
    c.execute("ANALYZE")
Q = {"context_events": "SELECT count(*) FROM pgctx.context_events('ab')",
     "fold_status": "SELECT due FROM pgctx.fold_status('ab', 100000, 10000, 2000)",
     "fold_status fast": "SELECT due FROM pgctx.fold_status('ab', 1000000, 900000, 2000)"}
t = {(n, q): [] for n in conns for q in Q}
for r in range(300):
    for n in (("a", "b") if r % 2 else ("b", "a")):
        cur = conns[n].cursor()
        for q, sql in Q.items():
            s = time.perf_counter(); cur.execute(sql, prepare=True).fetchone(); t[(n, q)].append(time.perf_counter() - s)
for q in Q:
    a = t[("a", q)][50:]; b = t[("b", q)][50:]
    print(f"{q}: a {statistics.median(a)*1e3:.3f} ms  b {statistics.median(b)*1e3:.3f} ms  ratio of medians {statistics.median(b)/statistics.median(a):.3f}  median of pair ratios {statistics.median(y/x for x, y in zip(a, b)):.3f}")
print(conns["b"].execute("SELECT * FROM pgctx.fold_status('ab', 100000, 10000, 2000)").fetchone())
server.stop()
