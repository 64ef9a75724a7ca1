"""A turn on a Citus cluster against the same turn on one server, in one run.

    .venv/bin/python bench/bench_citus.py [--turns=N] [--conversations=N]

Needs Citus for PostgreSQL 15 (../shared/citus/install.sh) and PGCTX_PG_BINDIR at PostgreSQL 15's
binaries. Starts a cluster (tests/cluster.py: a coordinator and two workers, loopback, fsync off)
and one server like each node, migrates pgctx into both and distributes it on the cluster. A turn
is what an agent does per message: append the user's message and the agent's reply
(pgctx.append), fold() by policy with the built-in summarizer, build_context. Every conversation
takes its turns in rounds over the targets (one server, the coordinator, a worker), so drift hits
them alike; it prints each target's median and p95 turn time and its median ratio to one server.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import pgctx  # noqa: E402
from pgctx.embedded import EmbeddedPostgres  # noqa: E402
from tests.cluster import DATABASE, Cluster, unavailable  # noqa: E402
from tests.events import pasted  # noqa: E402


def option(name: str, default: int) -> int:
    return next((int(a.split("=", 1)[1]) for a in sys.argv[1:] if a.startswith(f"--{name}=")), default)


def turn(conn: psycopg.Connection, cid: str, i: int) -> float:
    started = time.perf_counter()
    pgctx.append(conn, cid, "user", pasted(f"turn {i}: where is order {10_000 + i}?") if i % 10 == 0
                 else {"text": f"turn {i}: and the invoice for order {10_000 + i}?"})
    pgctx.append(conn, cid, "assistant", {"text": f"Order {10_000 + i} has shipped; the invoice follows."})
    pgctx.fold(conn, cid)
    pgctx.build_context(conn, cid)
    return time.perf_counter() - started


def main() -> None:
    reason = unavailable()
    if reason:
        sys.exit(f"bench_citus: {reason}")
    turns, conversations = option("turns", 60), option("conversations", 4)
    cluster, single = Cluster.start(), EmbeddedPostgres()
    try:
        cluster.create_database(DATABASE)
        pgctx.migrate(Cluster.dsn(cluster.coordinator, DATABASE))
        with psycopg.connect(Cluster.dsn(cluster.coordinator, DATABASE), autocommit=True) as conn:
            pgctx.distribute(conn)
        with psycopg.connect(single.superuser_dsn("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {DATABASE}")
        pgctx.migrate(single.superuser_dsn(DATABASE))
        targets = {"one server": single.superuser_dsn(DATABASE),
                   "coordinator": Cluster.dsn(cluster.coordinator, DATABASE),
                   "worker": Cluster.dsn(cluster.workers[0], DATABASE)}
        conns = {name: psycopg.connect(dsn, autocommit=True) for name, dsn in targets.items()}
        times: dict[str, list[float]] = {name: [] for name in targets}
        for i in range(turns):
            order = list(targets) if i % 2 == 0 else list(reversed(targets))
            for name in order:
                for c in range(conversations):
                    times[name].append(turn(conns[name], f"bench-{c}", i))
        base = statistics.median(times["one server"])
        for name, ts in times.items():
            ts.sort()
            print(f"{name:<12} turn median {1000 * statistics.median(ts):7.2f} ms   p95 {1000 * ts[int(0.95 * len(ts))]:7.2f} ms"
                  f"   median / one server {statistics.median(ts) / base:5.2f}   ({len(ts)} turns)")
        for conn in conns.values():
            conn.close()
    finally:
        cluster.stop()
        single.stop()


if __name__ == "__main__":
    main()
