"""LangGraph's checkpointer conformance suite against pgctx's savers and LangGraph's own.

    python bench/conformance.py [--verbose] [--out PATH]

(needs langgraph-checkpoint-conformance and langgraph-checkpoint-postgres in the environment.)

One throwaway PostgreSQL (pgctx.embedded) with one database per saver: AsyncPgctxSaver and
PgctxSaver each in a pgctx-migrated database of its own, LangGraph's AsyncPostgresSaver in one
set up by its ``setup()``. The suite (``langgraph.checkpoint.conformance.validate``) detects which
capabilities a saver implements (its async methods overriding BaseCheckpointSaver's) and runs
each capability's tests on a fresh saver from the factory; PgctxSaver, a sync saver, is driven
through its async methods (which run the sync ones on a worker thread), as a graph under
``ainvoke`` would drive it.

Prints a side-by-side table (tests passed / run per capability and saver) with the failures, and
writes it to bench/results/conformance.md. The exit status is 1 when a pgctx saver misses a base
capability or an extended one (not implemented counts as missed); AsyncPostgresSaver is the
reference and does not gate.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import platform
import shlex
import sys
import time
from importlib import metadata as importlib_metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

import pgctx  # noqa: E402
from machine import code_state, cpu_model  # noqa: E402
from pgctx.embedded import EmbeddedPostgres  # noqa: E402

try:
    from langgraph.checkpoint.conformance import checkpointer_test, validate
    from langgraph.checkpoint.conformance.capabilities import BASE_CAPABILITIES, EXTENDED_CAPABILITIES, Capability
    from langgraph.checkpoint.conformance.report import CapabilityReport, ProgressCallbacks
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    from pgctx.integrations.langgraph import AsyncPgctxSaver, PgctxSaver
except ImportError as exc:  # pragma: no cover - depends on the environment
    sys.exit(f"conformance needs langgraph-checkpoint-conformance and langgraph-checkpoint-postgres ({exc})")

RESULTS = HERE / "results" / "conformance.md"
DATABASES = {"AsyncPgctxSaver": "conf_async_pgctx", "PgctxSaver": "conf_pgctx",
             "AsyncPostgresSaver": "conf_async_postgres"}
GATED = ("AsyncPgctxSaver", "PgctxSaver")  # the savers this repository ships
# The suite's own order: base capabilities first, then the extended ones.
CAPABILITIES = [c for c in Capability if c in BASE_CAPABILITIES] + [c for c in Capability if c in EXTENDED_CAPABILITIES]


def registered(dsns: dict[str, str]) -> list:
    """One conformance factory per saver; each call opens a saver on its own connection."""

    @checkpointer_test(name="AsyncPgctxSaver")
    async def async_pgctx():
        async with AsyncPgctxSaver.from_conn_string(dsns["AsyncPgctxSaver"]) as saver:
            yield saver

    @checkpointer_test(name="PgctxSaver")
    async def sync_pgctx():
        with PgctxSaver.from_conn_string(dsns["PgctxSaver"]) as saver:
            yield saver

    @checkpointer_test(name="AsyncPostgresSaver")
    async def async_postgres():
        async with AsyncPostgresSaver.from_conn_string(dsns["AsyncPostgresSaver"]) as saver:
            yield saver

    return [async_pgctx, sync_pgctx, async_postgres]


def cell(report: CapabilityReport, cap: Capability) -> str:
    result = report.results.get(cap.value)
    if result is None or not result.detected:
        return "not implemented"
    run = result.tests_passed + result.tests_failed
    return f"{result.tests_passed}/{run}" + ("" if result.passed else " **FAILED**")


def gate(report: CapabilityReport) -> list[str]:
    """What a pgctx saver misses: base capabilities (passed_all_base) and each extended one."""
    missed = [] if report.passed_all_base() else ["base"]
    for cap in EXTENDED_CAPABILITIES:
        result = report.results.get(cap.value)
        if result is None or not result.detected or result.passed is not True:
            missed.append(cap.value)
    return missed


def versions() -> str:
    out = []
    for name in ("langgraph-checkpoint-conformance", "langgraph-checkpoint", "langgraph-checkpoint-postgres",
                 "langgraph", "psycopg"):
        try:
            out.append(f"{name} {importlib_metadata.version(name)}")
        except importlib_metadata.PackageNotFoundError:
            pass
    return ", ".join(out)


def render(reports: list[CapabilityReport], info: dict[str, str]) -> str:
    names = [r.checkpointer_name for r in reports]
    lines = [
        "# LangGraph checkpointer conformance: pgctx's savers and AsyncPostgresSaver",
        "",
        f"`{info['command']}`",
        "",
        f"{info['date']}; {info['machine']}; {info['server']}; {info['versions']}; {info['duration']}.",
        "",
        f"Code measured: {info['code']}.",
        "",
        "Tests passed / run per capability (`langgraph.checkpoint.conformance.validate`, a fresh saver per "
        "capability, each saver in a database of its own on one server):",
        "",
        "| capability | kind | " + " | ".join(names) + " |",
        "|---|---|" + "---:|" * len(names),
    ]
    for cap in CAPABILITIES:
        kind = "base" if cap in BASE_CAPABILITIES else "extended"
        lines.append(f"| {cap.value} | {kind} | " + " | ".join(cell(r, cap) for r in reports) + " |")
    lines.append("| **conformance level** | | " + " | ".join(r.conformance_level() for r in reports) + " |")
    lines += ["", "Gate (pgctx's savers: every base capability and every extended one passed):", ""]
    for r in reports:
        if r.checkpointer_name in GATED:
            missed = gate(r)
            lines.append(f"- {r.checkpointer_name}: " + ("met" if not missed else "**MISSED**: " + ", ".join(missed)))
    failures = [(r.checkpointer_name, cap, f) for r in reports for cap, res in r.results.items() for f in res.failures]
    lines += ["", "Failures:" if failures else "No test failed."]
    lines += [f"- {name}, {cap}: `{failure.splitlines()[0][:300]}`" for name, cap, failure in failures]
    lines += [
        "",
        "Method: AsyncPgctxSaver and AsyncPostgresSaver through `from_conn_string` (one autocommit connection "
        "each); PgctxSaver through `PgctxSaver.from_conn_string`, driven by the suite's async calls (its async "
        "methods run the sync ones in a worker thread). pgctx databases migrated with `pgctx.migrate`, "
        "LangGraph's with `AsyncPostgresSaver.setup()`; the benchmark connects as the postgres superuser.",
    ]
    return "\n".join(lines) + "\n"


async def run_all(dsns: dict[str, str], verbose: bool) -> list[CapabilityReport]:
    progress = ProgressCallbacks.verbose() if verbose else ProgressCallbacks.default()
    reports = []
    for factory in registered(dsns):
        print(f"{factory.name}:", flush=True)
        reports.append(await validate(factory, progress=progress))
    return reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="one line per test, with tracebacks of failures")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"where to write the table (default {RESULTS})")
    args = parser.parse_args()

    started = time.time()
    server = EmbeddedPostgres(fsync=True)
    try:
        with psycopg.connect(server.superuser_dsn("postgres"), autocommit=True) as admin:
            for db in DATABASES.values():
                admin.execute(f"CREATE DATABASE {db}")
            pg_version = admin.execute("SHOW server_version").fetchone()[0]
        dsns = {name: server.superuser_dsn(db) for name, db in DATABASES.items()}
        for name in GATED:
            pgctx.migrate(dsns[name])

        async def setup_postgres() -> None:
            async with AsyncPostgresSaver.from_conn_string(dsns["AsyncPostgresSaver"]) as saver:
                await saver.setup()

        asyncio.run(setup_postgres())
        reports = asyncio.run(run_all(dsns, args.verbose))
    finally:
        server.stop()

    info = {
        "command": shlex.join(["python", "bench/conformance.py", *sys.argv[1:]]),
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{cpu_model()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
                   f"Python {platform.python_version()}",
        "server": f"PostgreSQL {pg_version} (pgctx.embedded, fsync on)",
        "versions": versions(),
        "code": code_state(),
        "duration": f"{time.time() - started:.0f} s in all",
    }
    text = render(reports, info)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    if any(gate(r) for r in reports if r.checkpointer_name in GATED):
        sys.exit(1)


if __name__ == "__main__":
    main()
