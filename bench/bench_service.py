"""A service under chaos: pgctx and LangGraph's PostgresSaver with the same workers, turns and chaos.

    python bench/bench_service.py [--turns N] [--seconds S] [--layout 10x1,4x10] [--conversations 500]
                                  [--no-chaos] [--dsn DSN] [--seed N] [--note TEXT] [--out PATH]

(the LangGraph side needs the bench extra: ``pip install -e '.[bench]'``.) The default is the short
run (5,000 turns per system, about 5 minutes on a 2-core machine); the long run is
``--turns 100000`` (200 turns per conversation: an hour or two, and several GB of disk for
PostgresSaver, whose storage grows with the square of the thread length).

The workload, the chaos and the checks are bench/service_workload.py's (its docstring says what a
turn is and what is checked); tests/test_chaos.py runs a short version of the same code. Here:
one throwaway PostgreSQL (pgctx.embedded, fsync on, synchronous_commit on) holds two databases,
one migrated for pgctx, one set up by ``PostgresSaver.setup()``. The same workers (by default 50:
10 processes of one thread and 4 of ten threads) take the same number of turns on 500
conversations, first with pgctx, then with PostgresSaver, under the same chaos (SIGKILL of worker
processes, pg_terminate_backend of their sessions, statement timeouts of 1-20 ms on some
sessions; ``--no-chaos`` runs both without). pgctx's workers log in as an application role
(``pgctx_app``: row-level security, the functions' privileges); PostgresSaver's as the owner of
its tables, as it is used. A pgctx turn appends 4 events (user, tool call, tool result,
assistant), builds the working context and calls ``fold``; a LangGraph turn reads the thread
(``get_tuple``) and ``put``s a checkpoint holding its message list plus the same 4 messages. After
each run the checks run on what it left; any violation is a bug in pgctx.

The report (bench/results/service.md by default) gives turns/s, p50/p99 per operation, errors by
type with their cause, the chaos, every check, and the CPU time the server and the clients used.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shlex
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _path in (str(ROOT), str(HERE)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import psycopg  # noqa: E402
from psycopg import sql  # noqa: E402
from psycopg.conninfo import make_conninfo  # noqa: E402

import pgctx  # noqa: E402
from pgctx.embedded import EmbeddedPostgres  # noqa: E402
from machine import code_state, cpu_model  # noqa: E402
from service_workload import EXPECTED, FACTS, Chaos, Checks, Plan, check_langgraph, check_pgctx, percentile, run  # noqa: E402

RESULTS = HERE / "results" / "service.md"
APP_ROLE, APP_PASSWORD = "pgctx_service_app", "pgctx-service"
OPS = {"pgctx": ("append user", "build_context", "append tool_call", "append tool_result", "append assistant",
                 "fold (nothing due)", "fold (committed, pgctx-builtin/2)", "fold (committed, bench/slow-builtin)",
                 "recover", "turn"),
       "langgraph": ("get_tuple", "put", "turn")}
NAMES = {"pgctx": "pgctx", "langgraph": "LangGraph PostgresSaver"}


def layout(text: str) -> list[int]:
    """'10x1,4x10' -> ten processes of one thread and four of ten."""
    out = []
    for part in text.split(","):
        count, threads = part.split("x")
        out += [int(threads)] * int(count)
    return out


def server_cpu(conn: psycopg.Connection) -> float | None:
    """CPU seconds the server has used: the postmaster, the backends it has reaped, the live ones
    (from /proc: None for a server on another machine)."""
    tick = os.sysconf("SC_CLK_TCK")
    try:
        pid_file = Path(conn.execute("SHOW data_directory").fetchone()[0], "postmaster.pid")
        postmaster = int(pid_file.read_text().split()[0])
    except OSError:
        return None
    total = 0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(proc.name) == postmaster:
            total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime (reaped backends)
        elif int(fields[1]) == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / tick


def clients_cpu() -> float:
    """CPU seconds of this process (the driver and its chaos thread) and of its reaped children:
    every worker process, once it has exited."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def machine_cpu() -> float:
    """CPU seconds every process of the machine has used (/proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")  # less idle and iowait


def phase(name: str, dsn: str, admin_dsn: str, args: argparse.Namespace, run_root: Path) -> dict:
    plan = Plan(name, dsn, admin_dsn, str(run_root / name), layout=layout(args.layout),
                conversations=args.conversations, turns=args.turns, seconds=args.seconds,
                chaos=None if args.no_chaos else Chaos(), seed=args.seed)
    with psycopg.connect(admin_dsn, autocommit=True) as monitor:
        before = server_cpu(monitor), clients_cpu(), machine_cpu()
        timing, chaos, seen = run(plan)
        after = server_cpu(monitor), clients_cpu(), machine_cpu()
        server = None if after[0] is None else after[0] - before[0]
        clients = after[1] - before[1]
        # what other processes used meanwhile, in CPUs: this machine is shared
        others = None if server is None else (after[2] - before[2] - server - clients) / timing.wall
        size = monitor.execute("SELECT pg_database_size(current_database())").fetchone()[0]
        # where pgctx's server time went (the workers' sessions ran with track_functions = 'pl')
        functions = monitor.execute(
            "SELECT funcname, calls, total_time, self_time FROM pg_stat_user_functions"
            " WHERE schemaname = 'pgctx' ORDER BY total_time DESC LIMIT 10").fetchall()
    print(f"{name}: {timing.window_turns} turns in {timing.window:.1f} s ({timing.turns_per_second:.1f}/s); "
          f"checking", flush=True)
    started = time.monotonic()
    checks = check_pgctx(admin_dsn, seen) if name == "pgctx" else check_langgraph(admin_dsn, seen)
    return dict(plan=plan, timing=timing, chaos=chaos, seen=seen, checks=checks, cpu=(server, clients),
                others=others, size=size, functions=functions, check_seconds=time.monotonic() - started)


def ms(value: float) -> str:
    return f"{value:,.2f}"


def report(args: argparse.Namespace, results: dict[str, dict], settings: dict, started: float, code: str) -> str:
    first = next(iter(results.values()))
    plan: Plan = first["plan"]
    chaos = "none (--no-chaos)" if args.no_chaos else (
        f"SIGKILL of a random worker process every {plan.chaos.kill_every:g} turns on average (restarted after "
        f"{plan.chaos.restart_delay[0]:g}-{plan.chaos.restart_delay[1]:g} s), pg_terminate_backend of 1-2 random "
        f"worker sessions every {plan.chaos.terminate_every:g} turns, a statement_timeout of "
        f"{'/'.join(map(str, plan.chaos.timeout_ms))} ms set on a random worker's session every "
        f"{plan.chaos.timeout_every:g} turns for {plan.chaos.timeout_for[0]:g}-{plan.chaos.timeout_for[1]:g} s")
    lines = [
        "# A service under chaos: pgctx and LangGraph's PostgresSaver",
        "",
        f"`python bench/bench_service.py {shlex.join(sys.argv[1:])}`".replace(" `", "`"),
        "",
        f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC; {cpu_model()}, {os.cpu_count()} CPUs, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}; {code}; "
        f"PostgreSQL {settings['server_version']}, fsync={settings['fsync']}, "
        f"synchronous_commit={settings['synchronous_commit']}, shared_buffers={settings['shared_buffers']}.",
        "",
    ]
    if args.note:
        lines += [args.note, ""]
    lines += [
        f"{plan.workers} workers ({args.layout}: processes x threads), {plan.conversations} conversations picked "
        f"at random per turn, {'%s turns' % f'{args.turns:,}' if args.turns else ''}"
        f"{' or ' if args.turns and args.seconds else ''}{'%g s' % args.seconds if args.seconds else ''} per system. "
        f"Chaos, the same for both: {chaos}.",
        "",
        "| system | turns | seconds | turns/s | turn p50 / p99 ms | server CPU ms per turn | clients CPU ms per "
        "turn | other processes, CPUs | database size | errors, expected / unexpected | abandoned turns | violations |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        seen, timing = r["seen"], r["timing"]
        turns = sum(seen.turns.values())
        unexpected = sum(seen.unexpected().values())
        turn = seen.latencies["turn"]
        server, clients = (("n/a" if cpu is None else f"{cpu * 1000 / turns:,.1f}") for cpu in r["cpu"])
        others = "n/a" if r["others"] is None else f"{r['others']:.2f}"
        violations = len(r["checks"].violations) if name == "pgctx" else "—"
        lines.append(
            f"| {NAMES[name]} | {timing.window_turns:,} | {timing.window:.1f} | {timing.turns_per_second:,.1f} | "
            f"{ms(percentile(turn, .5))} / {ms(percentile(turn, .99))} | {server} | {clients} | "
            f"{others} | {r['size'] / 2**20:,.0f} MB | {sum(seen.errors.values()) - unexpected:,} / {unexpected:,} | "
            f"{turns - seen.completed:,} | {violations} |")
    lines += ["", "Latency per operation (the attempt that succeeded; a turn includes its retries):", ""]
    for name, r in results.items():
        lat = r["seen"].latencies
        lines += [f"| {NAMES[name]} | calls | p50 ms | p99 ms |", "|---|---:|---:|---:|"]
        lines += [f"| {op} | {len(lat[op]):,} | {ms(percentile(lat[op], .5))} | {ms(percentile(lat[op], .99))} |"
                  for op in OPS[name] if lat.get(op)]
        lines.append("")
    for name, r in results.items():
        if not r["functions"]:
            continue
        turns = sum(r["seen"].turns.values())
        lines += [f"Where {NAMES[name]}'s server time went: its functions by total time (track_functions = pl; "
                  "a function's total includes the functions it calls):", "",
                  "| function | calls per turn | total ms per turn | self ms per turn |", "|---|---:|---:|---:|"]
        lines += [f"| pgctx.{f} | {calls / turns:,.2f} | {total / turns:,.2f} | {own / turns:,.2f} |"
                  for f, calls, total, own in r["functions"]]
        lines.append("")
    lines += ["Chaos and errors:", "",
              "| | " + " | ".join(NAMES[n] for n in results) + " |", "|---|" + "---:|" * len(results)]
    for label, key in (("worker processes killed (SIGKILL)", "kills"), ("workers (threads) they held", "workers_killed"),
                       ("restarts", "restarts"), ("sessions terminated", "terminations"),
                       ("statement timeouts set", "timeouts"), ("killed at stop (did not stop in time)", "stop_kills")):
        lines.append(f"| {label} | " + " | ".join(f"{getattr(r['chaos'], key):,}" for r in results.values()) + " |")
    lines.append("| worker processes that crashed | " + " | ".join(
        f"{len(r['chaos'].crashes)}" for r in results.values()) + " |")
    lines.append("| log lines torn by a kill | " + " | ".join(f"{r['seen'].torn}" for r in results.values()) + " |")
    lines += ["", "| system | step | error | count | cause |", "|---|---|---|---:|---|"]
    for name, r in results.items():
        for (op, error), count in sorted(r["seen"].errors.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"| {NAMES[name]} | {op} | {error} | {count:,} | "
                         f"{EXPECTED.get(error, '**unexpected**')} |")
    for name, r in results.items():
        lines += ["", f"Turns of {NAMES[name]} by outcome: " + ", ".join(
            f"{outcome} {n:,}" for outcome, n in r["seen"].turns.most_common()) + "."]
    lines += ["", "## Checks", ""]
    for name, r in results.items():
        checks: Checks = r["checks"]
        lines += [f"{NAMES[name]} ({r['check_seconds']:.0f} s):", "", "| check | checked | violations |",
                  "|---|---:|---:|"]
        lines += [f"| {c.name} | {c.checked:,} | {len(c.violations)} |" for c in checks.checks]
        lines += [""] + [f"- {FACTS[k]}: {v:,}" for k, v in checks.facts.items()]
        lines += [f"- VIOLATION {v}" for v in checks.violations]
        lines.append("")
    lines += ["## Method", "",
              "- bench/service_workload.py's docstring is the workload and the checks; this file's is the set-up.",
              "- turns/s: turns completed between the moment every worker had started and the stop signal, over "
              "that time (start-up and the last turns after the signal are not counted; they are in the turn "
              "counts by outcome). CPU: the server's processes (reaped backends included) and the worker "
              "processes, over the whole run, per turn started.",
              "- Both systems run in one run of this script, one after the other, on the same server, with the "
              "same workers, conversations, seeds and chaos rates: the chaos is the same for both so that "
              "neither pays for reconnects, restarts and retries the other does not. PostgresSaver has no seq, "
              "chain, fold or side-effect ledger to check; what it can be checked for is reported (its "
              "acknowledged checkpoints are stored; messages acknowledged to a turn that its thread's latest "
              "checkpoint does not hold, because two turns on one thread read the same parent).",
              f"- Total {time.monotonic() - started:.0f} s."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5_000, help="turns per system (default 5,000)")
    parser.add_argument("--seconds", type=float, help="stop each system after this long if --turns is not reached")
    parser.add_argument("--layout", default="10x1,4x10",
                        help="worker processes x threads each (default 10x1,4x10: 50 workers in 14 processes)")
    parser.add_argument("--conversations", type=int, default=500)
    parser.add_argument("--no-chaos", action="store_true", help="run both systems without chaos")
    parser.add_argument("--only", choices=("pgctx", "langgraph"), help="run one system only")
    parser.add_argument("--dsn", help="a superuser DSN of an existing server (default: a throwaway one, fsync on)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--note", help="a line added to the report (e.g. what else ran on the machine)")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"where to write the report (default {RESULTS})")
    args = parser.parse_args()

    started = time.monotonic()
    code = code_state()  # now, before the migration installs it: the tree may change during a long run
    server = None if args.dsn else EmbeddedPostgres(fsync=True)
    suffix = f"{os.getpid()}"
    databases = {"pgctx": f"svc_pgctx_{suffix}", "langgraph": f"svc_langgraph_{suffix}"}
    phases = [args.only] if args.only else ["pgctx", "langgraph"]
    try:
        admin = args.dsn or server.superuser_dsn("postgres")
        with psycopg.connect(admin, autocommit=True) as conn:
            settings = dict(conn.execute(
                "SELECT name, setting || coalesce(unit, '') FROM pg_settings WHERE name IN"
                " ('fsync', 'synchronous_commit', 'shared_buffers', 'server_version')").fetchall())
            for name in phases:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(databases[name])))
            if "pgctx" in phases:
                pgctx.migrate(make_conninfo(admin, dbname=databases["pgctx"]))  # creates the pgctx_app role
                conn.execute(sql.SQL("ALTER DATABASE {} SET track_functions = 'pl'").format(
                    sql.Identifier(databases["pgctx"])))
                if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (APP_ROLE,)).fetchone():
                    conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE pgctx_app").format(
                        sql.Identifier(APP_ROLE), sql.Literal(APP_PASSWORD)))
        results = {}
        with tempfile.TemporaryDirectory(prefix="bench-service-") as run_root:
            for name in phases:
                admin_dsn = make_conninfo(admin, dbname=databases[name])
                if name == "pgctx":
                    dsn = make_conninfo(admin_dsn, user=APP_ROLE, password=APP_PASSWORD)
                else:
                    from langgraph.checkpoint.postgres import PostgresSaver

                    with PostgresSaver.from_conn_string(admin_dsn) as saver:
                        saver.setup()
                    dsn = admin_dsn
                results[name] = phase(name, dsn, admin_dsn, args, Path(run_root))
        text = report(args, results, settings, started, code)
        args.out.write_text(text)
        print(text)
        if results.get("pgctx") and results["pgctx"]["checks"].violations:
            sys.exit("pgctx violations found: see the report")
    finally:
        if args.dsn:
            with psycopg.connect(args.dsn, autocommit=True) as conn:
                for name in phases:
                    conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                        sql.Identifier(databases[name])))
        elif server:
            server.stop()


if __name__ == "__main__":
    main()
