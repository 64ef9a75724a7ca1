"""Working-context build time on a 1k- and a 1M-event conversation, and fold overhead without a model.

    /tmp/v/bin/python bench/bench_context.py [--quick] [--no-fsync] [--background 2000] [--max-load 1.5]
                                             [--label TEXT] [--out PATH]

Targets (issue item 9): build_context p95 <= 2 ms for conversations of 1k and of 1M events, with
p95(1M) / p95(1k) <= 1.2; a fold without the model <= 10 ms median.

Set-up. One throwaway PostgreSQL (pgctx.embedded; fsync on unless --no-fsync) holds both
conversations in one database. Each is grown as an agent grows it: bench_fold.block() events
(messages, and every tenth pair a read tool call with its result) appended 200 at a time with
pgctx.append_many (token counts computed at append), each batch folded at once with
pgctx.fold(force=True) and the built-in summarizer, so the committed summary is what regular folds
leave (bounded: resolved reads age out of tool_state, identifier facts saturate). The last fold
ends 40 events before the head: both conversations then have the same unfolded tail (40 events,
4 tool call/result pairs), the same last fold range (200 events) and summaries of the same shape.
First, --background (default 2,000) small conversations of 20 events, each folded once, as
in a shared database: the planner's per-conversation estimates then resemble a service's (with
only two huge conversations in the table, plans of pgctx's SQL functions can be costed so high
that PostgreSQL JIT-compiles them on every call -- seen with earlier code: ~0.7 s per
build_context; --background 0 checks it; the report's pg_stat_statements tables show any JIT
time). After loading,
VACUUM ANALYZE of pgctx's tables (what autovacuum would eventually do), so plans are not built on
stale statistics mid-run. --quick uses 100k events instead of 1M.

build_context. pgctx.build_context(conn, cid, budget=Budget(), system=..., current_message=...)
on one autocommit connection, timed around the call. After 50 warm-up calls each, every round
runs, for each measure, a block of 50 calls per conversation (conversation order ABBA over
rounds), so drift hits all measures and both conversations alike. The measures:
  * build: build_context itself (>= 600 calls per conversation);
  * sql, as sent: build_context's database steps (recorded from pgctx.context._build: its queries,
    and BEGIN/COMMIT if it opens a transaction) replayed through pgctx.db.run, which runs each
    query in its own transaction, or in a savepoint inside an open one;
  * sql, plain: the same queries bare (in one plain BEGIN ... COMMIT if _build opens one);
  * sql alone: SELECT ... FROM pgctx.context_events(cid), autocommit;
  * server: SELECT count(*) FROM pgctx.context_events(cid) -- the server's work, nothing sent back;
  * python: the assembly alone -- pgctx.context._build driven with the recorded answers (no
    I/O): messages, call/result pairing, the token counts of the text built there.
Server side, per statement: pg_stat_statements (preloaded, but off -- compute_query_id = off,
track = none -- except on a second connection used for this diagnostic pass only, with track =
all and track_planning) gives each statement's planning and execution time, nested statements
(the bodies of SQL functions) included; pg_stat_xact_user_functions (track_functions = all) gives each
function's own time.

Fold overhead. After the build_context measurement, one untimed fold folds the tail; then 30
rounds alternate the conversations: append 100 events (block()), then
  * fold_request + BuiltinSummarizer().summarize on the request the fold will make (timed apart:
    the summarizer's share), then
  * pgctx.fold(conn, cid, force=True), timed around the whole call (fold_status, fold_request,
    summarizer, prepare_fold, commit_fold, fold_status again).
10 more rounds run the same fold through an instrumented copy of pgctx.db.run's driver that
times each step (which query, or the summarizer call), and 10 more under pg_stat_statements.

The report is printed and written to bench/results/context.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import shlex
import signal
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

import psycopg  # noqa: E402

import pgctx  # noqa: E402
from bench_fold import block  # noqa: E402
from pgctx import db  # noqa: E402
from pgctx.context import _build  # noqa: E402
from pgctx.embedded import EmbeddedPostgres, find_bindir  # noqa: E402
from pgctx.errors import translated  # noqa: E402
from pgctx.fold_loop import ATTEMPTS, _fold  # noqa: E402
from pgctx.fold_procedures import fold_request  # noqa: E402
from pgctx.summarizers import BuiltinSummarizer  # noqa: E402
from pgctx.tokens import Budget  # noqa: E402
from machine import code_state, cpu_model, met

RESULTS = HERE / "results" / "context.md"
TAIL = 40  # unfolded events at measurement time, both conversations
FOLD_EVERY = 200  # events per fold while growing a conversation
FOLD_EVENTS = 100  # events appended before each timed fold
BLOCK = 50  # calls per conversation per block
WARMUP = 50
TARGET_P95_MS = 2.0
TARGET_RATIO = 1.2
TARGET_FOLD_MS = 10.0
SYSTEM = ("You are the order-support agent of an online shop. Answer in the customer's language, be brief, "
          "never promise a delivery date the tools did not confirm, and ask before changing an order.")
CURRENT = "And can you tell me once more when it will arrive?"
BUDGET = Budget()
SUMMARIZER = BuiltinSummarizer()
SERVER_QUERY = "SELECT count(*) FROM pgctx.context_events(%s)"


# ---- noise -------------------------------------------------------------------------------------

def loadavg() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def wait_for_quiet(max_load: float, budget_s: float = 900, pause: float = 60) -> list[str]:
    """Wait (at most budget_s) for the 1-min load to drop to max_load; the loads seen."""
    seen = [loadavg()]
    deadline = time.monotonic() + budget_s
    while max_load > 0 and os.getloadavg()[0] > max_load and time.monotonic() < deadline:
        print(f"load {seen[-1]} > {max_load}: waiting {pause:.0f}s", file=sys.stderr, flush=True)
        time.sleep(pause)
        seen.append(loadavg())
    return seen


class CpuMeter:
    """CPU used by the whole machine and by this benchmark (client + its server backend)."""

    def __init__(self, backend_pid: int):
        self.backend_pid = backend_pid
        self.tick = os.sysconf("SC_CLK_TCK")

    def _snap(self) -> tuple[float, float, float]:
        fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        busy_all = (sum(fields[:8]) - fields[3] - fields[4]) / self.tick
        stat = Path(f"/proc/{self.backend_pid}/stat").read_text().rsplit(")", 1)[1].split()
        backend = (int(stat[11]) + int(stat[12])) / self.tick
        t = os.times()
        return time.monotonic(), busy_all, backend + t.user + t.system

    def start(self) -> None:
        self.t0 = self._snap()

    def others(self) -> float:
        """CPUs kept busy by other processes since start() (0 = quiet; this machine has os.cpu_count())."""
        t1 = self._snap()
        return max(0.0, ((t1[1] - self.t0[1]) - (t1[2] - self.t0[2])) / (t1[0] - self.t0[0]))


# ---- data --------------------------------------------------------------------------------------

def grow(conn: psycopg.Connection, cid: str, events: int) -> dict[str, float]:
    """Grow cid to `events` events, folding every FOLD_EVERY, the last fold TAIL events before the head."""
    started = time.perf_counter()
    t_append = t_fold = 0.0
    folds = pos = 0
    folded = events - TAIL
    next_report = started + 30
    fold_times = []
    while pos < folded:
        n = min(FOLD_EVERY, folded - pos)
        a = time.perf_counter()
        pgctx.append_many(conn, cid, block(pos, n))
        b = time.perf_counter()
        result = pgctx.fold(conn, cid, force=True)
        c = time.perf_counter()
        assert result.committed and result.cursor == pos + n, result
        t_append += b - a
        t_fold += c - b
        fold_times.append(c - b)
        folds += 1
        pos += n
        if c > next_report:
            print(f"  {cid}: {pos:,} / {events:,} events, {folds} folds, {c - started:.0f}s, last 100 folds "
                  f"median {statistics.median(fold_times[-100:]) * 1000:.0f} ms", file=sys.stderr, flush=True)
            next_report = c + 30
    pgctx.append_many(conn, cid, block(folded, TAIL))
    tenth = max(1, len(fold_times) // 10)
    return {"seconds": time.perf_counter() - started, "append": t_append, "fold": t_fold, "folds": folds,
            "first": statistics.median(fold_times[:tenth]), "last": statistics.median(fold_times[-tenth:])}


def background(conn: psycopg.Connection, count: int) -> float:
    """`count` conversations of 20 events, each folded once."""
    started = time.perf_counter()
    for i in range(count):
        cid = f"bg-{i:05d}"
        pgctx.append_many(conn, cid, block(0, 20))
        assert pgctx.fold(conn, cid, force=True).committed
    return time.perf_counter() - started


# ---- measures ----------------------------------------------------------------------------------

def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def ms(x: float) -> str:
    return f"{x * 1000:.2f}"


def build(conn, cid):
    return pgctx.build_context(conn, cid, budget=BUDGET, system=SYSTEM, current_message=CURRENT)


QUERY_NAMES = {v: k for k, v in vars(db).items() if k.isupper() and isinstance(v, str)}


def record(conn, cid: str) -> list[tuple[Any, Any]]:
    """The steps build_context's _build yields (Begin, Query, End) with the database's answers,
    driven as pgctx.db.run drives them."""
    steps: list[tuple[Any, Any]] = []
    op = _build(cid, BUDGET, SYSTEM, CURRENT, [])
    open_tx: list = []
    value: Any = None
    while True:
        try:
            step = op.send(value)
        except StopIteration:
            assert not open_tx
            return steps
        value = None
        if isinstance(step, db.Query):
            with conn.transaction():
                value = conn.execute(step.sql, step.params).fetchall()
        elif step is db.Begin:
            open_tx.append(conn.transaction())
            open_tx[-1].__enter__()
        elif step is db.End:
            open_tx.pop().__exit__(None, None, None)
        else:
            raise TypeError(f"bench_context does not replay {step!r}")
        steps.append((step, value))


def describe(steps: list[tuple[Any, Any]]) -> str:
    return ", ".join("BEGIN" if s is db.Begin else "COMMIT" if s is db.End else QUERY_NAMES.get(s.sql, s.sql[:30])
                     for s, _ in steps)


def _replay_db(steps: list[tuple[Any, Any]]):
    for step, _ in steps:
        yield step


def sql_as_sent(conn, steps):
    """_build's database steps through pgctx.db.run (its transactions and savepoints), no Python assembly."""
    db.run(conn, _replay_db(steps))


def sql_plain(conn, steps):
    """The same queries, bare: in one plain BEGIN ... COMMIT if _build opens a transaction."""
    queries = [s for s, _ in steps if isinstance(s, db.Query)]
    if any(s is db.Begin for s, _ in steps):
        with conn.transaction():
            for q in queries:
                conn.execute(q.sql, q.params).fetchall()
    else:
        for q in queries:
            conn.execute(q.sql, q.params).fetchall()


def sql_alone(conn, cid):
    conn.execute(db.CONTEXT_EVENTS, (cid,)).fetchall()


def server(conn, cid):
    conn.execute(SERVER_QUERY, (cid,)).fetchone()


def assemble(cid: str, steps: list[tuple[Any, Any]]):
    """build_context's Python part alone: _build driven with the recorded answers (no I/O)."""
    op = _build(cid, BUDGET, SYSTEM, CURRENT, [])
    value = None
    for step, answer in steps:
        got = op.send(value)
        assert got is step if not isinstance(step, db.Query) else got == step, (got, step)
        value = answer
    try:
        op.send(value)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("_build did not finish")


MEASURES = ("build", "sql, as sent", "sql, plain", "sql alone", "server", "python")


def timed_rounds(conn, cids: list[str], rounds: int) -> dict[tuple[str, str], list[float]]:
    rec = {cid: record(conn, cid) for cid in cids}
    fns: dict[str, Callable] = {
        "build": build,
        "sql, as sent": lambda conn, cid: sql_as_sent(conn, rec[cid]),
        "sql, plain": lambda conn, cid: sql_plain(conn, rec[cid]),
        "sql alone": sql_alone, "server": server,
        "python": lambda conn, cid: assemble(cid, rec[cid]),
    }
    for cid in cids:  # warm-up: plans, caches, the token encoder
        for fn in fns.values():
            for _ in range(WARMUP):
                fn(conn, cid)
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in range(rounds):
        order = cids if r % 2 == 0 else cids[::-1]
        for name in MEASURES:
            fn = fns[name]
            for cid in order:
                out = times[(name, cid)]
                for _ in range(BLOCK):
                    started = time.perf_counter()
                    fn(conn, cid)
                    out.append(time.perf_counter() - started)
    return times


def function_split(conn, cid: str, calls: int) -> list[tuple[str, float, float, float]]:
    """(function, calls, total ms, self ms) per context_events call (a SQL function's own time
    includes planning its body)."""
    query = ("SELECT funcname, calls, total_time, self_time FROM pg_stat_xact_user_functions"
             " WHERE schemaname = 'pgctx'")
    with conn.transaction():
        conn.execute("SET LOCAL track_functions = 'all'")
        # counts not yet flushed to the shared statistics carry over from earlier transactions
        before = {f: (c, t, s) for f, c, t, s in conn.execute(query).fetchall()}
        for _ in range(calls):
            conn.execute(SERVER_QUERY, (cid,)).fetchone()
        after = conn.execute(query).fetchall()
    rows = [(f, c - before.get(f, (0, 0, 0))[0], t - before.get(f, (0, 0, 0))[1], s - before.get(f, (0, 0, 0))[2])
            for f, c, t, s in after]
    return sorted(((f, c / calls, t / calls, s / calls) for f, c, t, s in rows if c), key=lambda r: -r[2])


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"--[^\n]*", "", text)).strip()


class Statements:
    """pg_stat_statements on a connection of its own: planning and execution per statement, nested
    statements (SQL function bodies) named by the function whose body holds them. Query ids are
    computed on this connection only (compute_query_id = on from its start, so the statements
    psycopg prepares carry one too); the timed connection runs with them off."""

    def __init__(self, dsn: str):
        self.conn = conn = psycopg.connect(dsn, autocommit=True, options=(
            "-c compute_query_id=on -c pg_stat_statements.track=none -c pg_stat_statements.track_planning=on"))
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        # PL/pgSQL sends "SELECT ... INTO x FROM" without "INTO x": keep both spellings of a body
        self.bodies = [(name, body) for name, src in conn.execute(
            "SELECT p.proname, p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            " WHERE n.nspname = 'pgctx' AND p.prolang IN (SELECT oid FROM pg_language WHERE lanname IN"
            " ('sql', 'plpgsql'))").fetchall()
            for body in (_squash(src), _squash(re.sub(r"(?<!INSERT )\bINTO\s+(STRICT\s+)?[\w.]+(\s*,\s*[\w.]+)*", "",
                                                      src)))]

    def label(self, toplevel: bool, query: str) -> str:
        q = _squash(query)
        if toplevel:
            return q if len(q) <= 70 else q[:67] + "..."
        head = re.split(r"\$\d", q, maxsplit=1)[0]
        owners: list[str] = []
        for size in (60, 40, 25):  # PL/pgSQL passes expressions as "SELECT <expr>"
            for h in (head[:size], head.removeprefix("SELECT ")[:size]):
                owners = owners or [name for name, src in self.bodies if len(h) > 10 and h in src]
        return f"{'/'.join(sorted(set(owners))) or '?'}: " + (q[:50] + "..." if len(q) > 50 else q)

    def measure(self, n: int, fn: Callable[[], Any]) -> list[tuple[str, float, float, float]]:
        """(statement, calls, plan ms, exec ms, JIT ms) per fn() call (exec includes nested statements)."""
        c = self.conn
        c.execute("SELECT pg_stat_statements_reset()")
        c.execute("SET pg_stat_statements.track = 'all'")
        try:
            for _ in range(n):
                fn()
        finally:
            c.execute("SET pg_stat_statements.track = 'none'")
            rows = c.execute(
                "SELECT toplevel, calls, total_plan_time, total_exec_time, query, jit_generation_time"
                " + jit_inlining_time + jit_optimization_time + jit_emission_time FROM pg_stat_statements"
                " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
                " AND query !~* 'pg_stat_statements'").fetchall()
        merged: dict[tuple[bool, str], list[float]] = {}
        for top, calls, plan, exe, query, jit in rows:
            acc = merged.setdefault((top, self.label(top, query)), [0, 0.0, 0.0, 0.0])
            acc[0] += calls
            acc[1] += plan
            acc[2] += exe
            acc[3] += jit
        return sorted(((("" if top else "  nested ") + label, k / n, p / n, e / n, j / n)
                       for (top, label), (k, p, e, j) in merged.items()), key=lambda r: -(r[2] + r[3]))


def instrumented(conn: psycopg.Connection, op, steps: dict[str, list[float]]) -> Any:
    """pgctx.db.run's sync driver, timing each step (named by its query, or the callable)."""
    names = {v: k for k, v in vars(db).items() if k.isupper() and isinstance(v, str)}
    open_tx: list = []
    value: Any = None
    seen: dict[str, float] = defaultdict(float)
    while True:
        try:
            step = op.send(value)
        except StopIteration as stop:
            for k, v in seen.items():
                steps[k].append(v)
            return stop.value
        value = None
        started = time.perf_counter()
        if isinstance(step, db.Query):
            with translated(), conn.transaction():
                value = conn.execute(step.sql, step.params).fetchall()
            name = names.get(step.sql, step.sql[:40])
        elif isinstance(step, db.Call):
            value = step.fn(*step.args)
            name = "summarizer (" + getattr(step.fn, "__qualname__", "call") + ")"
        elif step is db.Begin:
            tx = conn.transaction()
            tx.__enter__()
            open_tx.append(tx)
            name = "BEGIN / COMMIT of fold_request"
        elif step is db.End:
            open_tx.pop().__exit__(None, None, None)
            name = "BEGIN / COMMIT of fold_request"
        else:
            raise TypeError(step)
        seen[name] += time.perf_counter() - started


def fold_rounds(conn, cids, heads, rounds: int, how: str, stats: Statements | None = None) -> dict:
    """`rounds` folds of FOLD_EVENTS new events per conversation, alternating."""
    out: dict[str, Any] = {cid: defaultdict(list) for cid in cids}
    for r in range(rounds):
        for cid in (cids if r % 2 == 0 else cids[::-1]):
            pgctx.append_many(conn, cid, block(heads[cid], FOLD_EVENTS))
            heads[cid] += FOLD_EVENTS
            if how == "timed":
                a = time.perf_counter()
                request = fold_request(conn, cid)
                b = time.perf_counter()
                SUMMARIZER.summarize(request)
                c = time.perf_counter()
                result = pgctx.fold(conn, cid, force=True)
                d = time.perf_counter()
                out[cid]["fold_request"].append(b - a)
                out[cid]["summarize"].append(c - b)
                out[cid]["fold"].append(d - c)
            elif how == "steps":
                started = time.perf_counter()
                result = instrumented(conn, _fold(cid, SUMMARIZER, BUDGET, True, None, ATTEMPTS), out[cid])
                out[cid]["total"].append(time.perf_counter() - started)
            else:  # statements: one fold per measure() call, summed per conversation
                box = []
                out[cid].setdefault("rows", []).append(
                    stats.measure(1, lambda: box.append(pgctx.fold(stats.conn, cid, force=True))))
                result = box[0]
            assert result.committed and result.cursor == heads[cid], result
    return out


def sum_statements(runs: list[list[tuple]]) -> list[tuple]:
    acc: dict[str, list[float]] = {}
    for rows in runs:
        for label, *values in rows:
            a = acc.setdefault(label, [0.0] * len(values))
            for i, v in enumerate(values):
                a[i] += v / len(runs)
    return sorted(((label, *v) for label, v in acc.items()), key=lambda r: -(r[2] + r[3]))


# ---- report ------------------------------------------------------------------------------------

def has_pg_stat_statements(bindir: Path) -> bool:
    lib = bindir.parent / "lib" / "pg_stat_statements.so"
    share = Path("/usr/share/postgresql") / bindir.parent.name / "extension" / "pg_stat_statements.control"
    return lib.exists() and share.exists()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100k events instead of 1M, fewer rounds")
    parser.add_argument("--no-fsync", action="store_true", help="fsync off (the folds' commits are not durable)")
    parser.add_argument("--background", type=int, default=2000,
                        help="small conversations (20 events, one fold) beside the two measured ones")
    parser.add_argument("--max-load", type=float, default=1.5,
                        help="before loading and before timing, wait (at most 15 min) for the 1-min load to "
                             "drop to this; 0: don't wait")
    parser.add_argument("--label", default="", help="a note on the code measured, for the report")
    parser.add_argument("--out", type=Path, default=None, help=f"report path (default {RESULTS.relative_to(ROOT)})")
    args = parser.parse_args()
    big = 100_000 if args.quick else 1_000_000
    sizes = {"1k": 1_000, ("100k" if args.quick else "1M"): big}
    cids = [f"ctx-{label}" for label in sizes]
    rounds = 6 if args.quick else 12
    n_folds = 30
    fsync = not args.no_fsync
    command = "/tmp/v/bin/python bench/bench_context.py" + "".join(" " + shlex.quote(a) for a in sys.argv[1:])
    began = time.perf_counter()
    info: dict[str, Any] = {"loads_start": wait_for_quiet(args.max_load)}
    info["code"] = code_state() + (f"; {args.label}" if args.label else "")
    pgss = has_pg_stat_statements(find_bindir())
    pg_args = "-h 127.0.0.1 -c logging_collector=off -c max_connections=200" + ("" if fsync else " -F")
    if pgss:
        pg_args += (" -c shared_preload_libraries=pg_stat_statements -c compute_query_id=off"
                    " -c pg_stat_statements.track=none")  # off but for Statements' own connection
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the server on kill, too
    server_ = EmbeddedPostgres(fsync=fsync, postgres_args=pg_args)
    try:
        dsn = server_.superuser_dsn("test")
        pgctx.migrate(dsn)
        with psycopg.connect(dsn, autocommit=True) as conn:
            settings = dict(conn.execute(
                "SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'fsync', "
                "'synchronous_commit', 'shared_buffers', 'jit')").fetchall())
            # the small conversations first: autovacuum's ANALYZE runs while the big ones grow, and
            # statistics of a table holding only two huge conversations make the generic plans of
            # pgctx's SQL functions look so costly that every fold gets JIT-compiled
            print(f"{args.background:,} background conversations", file=sys.stderr, flush=True)
            info["background"] = (args.background, background(conn, args.background))
            loading = {}
            for (label, n), cid in zip(sizes.items(), cids):
                print(f"growing {cid} to {n:,} events (a fold every {FOLD_EVERY})", file=sys.stderr, flush=True)
                loading[cid] = grow(conn, cid, n)
            for table in ("events", "checkpoints", "conversations", "fold_heads"):
                conn.execute(f"VACUUM ANALYZE pgctx.{table}")
            shape = {}
            for cid in cids:
                rows = conn.execute(db.CONTEXT_EVENTS, (cid,)).fetchall()
                summary = pgctx.committed_fold(conn, cid).summary
                w = build(conn, cid)
                info["steps"] = describe(record(conn, cid))
                shape[cid] = {
                    "head": conn.execute("SELECT head_seq FROM pgctx.conversations WHERE conversation_id = %s", (cid,)).fetchone()[0], "version": w.version, "cursor": w.cursor,
                    "summary_bytes": len(pgctx.canonical_json(summary).encode()), "facts": len(summary["facts"]),
                    "tool_state": len(summary["tool_state"]), "rows": len(rows),
                    "evidence": sum(1 for r in rows if r[0] == "evidence"), "messages": len(w.messages),
                    "tokens": w.total_tokens, "sections": w.sections,
                }
            # the 1-min load still carries this benchmark's own loading: check again every 20 s
            info["loads_wait"] = wait_for_quiet(args.max_load, pause=20)
            meter = CpuMeter(conn.info.backend_pid)
            meter.start()
            info["load_build"] = loadavg()
            times = timed_rounds(conn, cids, rounds)
            info["others_build"] = meter.others()
            funcs = {cid: function_split(conn, cid, 200) for cid in cids}
            stats = Statements(dsn) if pgss else None
            stmts = {}
            for cid in cids if stats else ():
                for _ in range(WARMUP):
                    build(stats.conn, cid)
                stmts[cid] = stats.measure(200, lambda cid=cid: build(stats.conn, cid))
            info["load_fold"] = loadavg()
            meter.start()
            heads = {}
            for cid in cids:
                assert pgctx.fold(conn, cid, force=True).committed  # fold the tail: each timed fold is 100 events
                heads[cid] = shape[cid]["head"]
            folds = fold_rounds(conn, cids, heads, n_folds, "timed")
            info["others_fold"] = meter.others()
            steps = fold_rounds(conn, cids, heads, 10, "steps")
            fold_stmts = ({cid: sum_statements(v["rows"]) for cid, v in
                           fold_rounds(conn, cids, heads, 10, "statements", stats).items()} if stats else {})
            info["load_end"] = loadavg()
            if stats:
                stats.conn.close()
    finally:
        server_.stop()

    info["duration"] = f"{time.perf_counter() - began:.0f}s in all"
    text = report(sizes, cids, settings, loading, shape, times, funcs, stmts, folds, steps, fold_stmts, info,
                  command, rounds, n_folds)
    print(text)
    out = args.out or RESULTS
    out.parent.mkdir(exist_ok=True)
    out.write_text(text)


def statement_table(cids: list[str], per: dict[str, list[tuple]], limit: int) -> list[str]:
    labels = list(dict.fromkeys(r[0] for cid in cids for r in per[cid]))
    lines = ["| statement | " + " | ".join(f"{cid}: calls, plan ms, exec ms" for cid in cids) + " |",
             "|---|" + "---:|" * len(cids)]
    shown = 0
    for label in labels:
        rows = [next((r for r in per[cid] if r[0] == label), None) for cid in cids]
        if all(r is None or r[2] + r[3] < 0.05 for r in rows):
            continue
        shown += 1
        if shown > limit:
            break
        cells = [f"{r[1]:.1f}, {r[2]:.3f}, {r[3]:.3f}" if r else "-" for r in rows]
        lines.append(f"| `{label.replace('|', chr(92) + '|')}` | " + " | ".join(cells) + " |")
    nested = [sum(r[2] for r in per[cid] if r[0].startswith("  nested")) for cid in cids]
    top = [sum(r[3] for r in per[cid] if not r[0].startswith("  nested")) for cid in cids]
    lines.append("| **planning of nested statements (SQL function bodies), all** | "
                 + " | ".join(f"{x:.3f} ms" for x in nested) + " |")
    lines.append("| **execution of the top-level statements, all** | " + " | ".join(f"{x:.3f} ms" for x in top) + " |")
    jit = [sum(r[4] for r in per[cid]) for cid in cids]
    lines.append("| **JIT compilation, all** | " + " | ".join(f"{x:.3f} ms" for x in jit) + " |")
    return lines


def report(sizes, cids, settings, loading, shape, times, funcs, stmts, folds, steps, fold_stmts, info, command,
           rounds, n_folds) -> str:
    labels = dict(zip(cids, sizes))
    small, big = cids
    med = {k: statistics.median(v) for k, v in times.items()}
    p95 = {cid: pct(times[("build", cid)], 0.95) for cid in cids}
    ratio = p95[big] / p95[small]
    fold_med = {cid: statistics.median(folds[cid]["fold"]) for cid in cids}
    L = [
        "# Working context build time and fold overhead",
        "",
        f"`{command}`",
        "",
        f"{dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; {cpu_model()}, {os.cpu_count()} CPUs, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}, psycopg "
        f"{psycopg.__version__} ({psycopg.pq.__impl__}); PostgreSQL {settings['server_version']} (embedded, "
        f"fsync={settings['fsync']}, synchronous_commit={settings['synchronous_commit']}, "
        f"shared_buffers={int(settings['shared_buffers']) // 128}MB, jit={settings['jit']}), one autocommit "
        f"connection over TCP to 127.0.0.1; {info['duration']}.",
        "",
        f"Code measured: {info['code']}.",
        "",
        "## Targets (issue item 9)",
        "",
        "| target | measured | |",
        "|---|---:|---|",
    ]
    for cid in cids:
        L.append(f"| build_context p95 <= {TARGET_P95_MS:g} ms, {labels[cid]} events | {ms(p95[cid])} ms "
                 f"| {met(p95[cid] * 1000 <= TARGET_P95_MS)} |")
    L.append(f"| p95 {labels[big]} / p95 1k <= {TARGET_RATIO} | {ratio:.2f} | {met(ratio <= TARGET_RATIO)} |")
    for cid in cids:
        L.append(f"| fold without the model, median <= {TARGET_FOLD_MS:g} ms, {labels[cid]} events "
                 f"| {ms(fold_med[cid])} ms | {met(fold_med[cid] * 1000 <= TARGET_FOLD_MS)} |")
    n_build = len(times[("build", small)])
    L += [
        "",
        f"## build_context ({n_build} calls per conversation after {WARMUP} warm-up calls; blocks of {BLOCK}, "
        "conversations alternating ABBA)",
        "",
        "| conversation | events | folds | unfolded | evidence rows | messages | context tokens | committed summary "
        "| p50 ms | p95 ms | p99 ms | p95 vs 1k |",
        "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for cid in cids:
        t = times[("build", cid)]
        s = shape[cid]
        L.append(f"| {cid} | {s['head']:,} | {s['version']:,} | {s['head'] - s['cursor']} | {s['evidence']} "
                 f"| {s['messages']} | {s['tokens']:,} | {s['summary_bytes']:,} B: {s['facts']} facts, "
                 f"{s['tool_state']} tool states; {s['sections']['summary']:,} tokens | {ms(pct(t, .5))} "
                 f"| {ms(pct(t, .95))} | {ms(pct(t, .99))} | {pct(t, .95) / p95[small]:.2f} |")
    L += [
        "",
        "### Where the time goes",
        "",
        f"Medians (p95 in brackets), ms per call; every measure ran {rounds} rounds x {BLOCK} calls per conversation, "
        "interleaved with the build_context blocks.",
        "",
        "| conversation | build_context | sql, as sent (through db.run) | sql, plain "
        "| sql alone: context_events | server: count(*) of context_events | python assembly (no I/O) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for cid in cids:
        L.append(f"| {cid} | " + " | ".join(
            f"{ms(med[(m, cid)])} ({ms(pct(times[(m, cid)], .95))})" for m in MEASURES) + " |")
    L += [
        "",
        f"build_context's steps: {info['steps']}. sql, as sent: those steps through pgctx.db.run, which runs each "
        "query in its own BEGIN ... COMMIT, or in a savepoint inside a BEGIN step's transaction; sql, plain: the "
        "same queries bare (in one plain BEGIN ... COMMIT if there is a BEGIN step).",
        "",
        "build_context = sql as sent + python: " + "; ".join(
            f"{cid} {ms(med[('sql, as sent', cid)] + med[('python', cid)])} vs {ms(med[('build', cid)])} measured"
            for cid in cids) + ". Round trips of db.run's transactions and savepoints, and queries besides "
        "context_events: sql as sent - sql alone = "
        + ", ".join(f"{ms(med[('sql, as sent', cid)] - med[('sql alone', cid)])} ms" for cid in cids) + ".",
        "",
    ]
    if stmts:
        L += [
            "Server, per build_context call (pg_stat_statements, 200 calls, track = all, track_planning = on; a "
            "statement's exec time includes the statements nested in it; top-level statements are prepared by "
            "psycopg, so their plans are cached, but PostgreSQL 15 plans the body of a SQL function anew on "
            "every call):",
            "",
            *statement_table(cids, stmts, 12),
            "",
        ]
    L += [
        "Server, per context_events call, by function (pg_stat_xact_user_functions, 200 calls; self = the "
        "function's own time, planning its body included):",
        "",
        "| function | " + " | ".join(f"{cid}: calls, total ms, self ms" for cid in cids) + " |",
        "|---|" + "---:|" * len(cids),
    ]
    for name in dict.fromkeys(f for cid in cids for f, *_ in funcs[cid]):
        cells = []
        for cid in cids:
            row = next((r for r in funcs[cid] if r[0] == name), None)
            cells.append(f"{row[1]:.0f}, {row[2]:.3f}, {row[3]:.3f}" if row else "-")
        L.append(f"| {name} | " + " | ".join(cells) + " |")
    L += [
        "",
        f"## Fold overhead without the model ({n_folds} folds of {FOLD_EVENTS} events per conversation, "
        "alternating)",
        "",
        "`pgctx.fold(conn, cid, force=True)` with the built-in summarizer, timed around the whole call; the "
        "summarizer's share is `BuiltinSummarizer().summarize` on the same request (from "
        "`pgctx.fold_procedures.fold_request`), timed apart just before.",
        "",
        "| conversation | history at the folds | fold median ms | fold p95 ms | summarize median ms "
        "| summarize p95 ms | summarizer share (medians) | fold_request median ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for cid in cids:
        f = folds[cid]
        lo = shape[cid]["head"]
        L.append(f"| {cid} | {lo:,} - {lo + n_folds * FOLD_EVENTS:,} | {ms(statistics.median(f['fold']))} "
                 f"| {ms(pct(f['fold'], .95))} | {ms(statistics.median(f['summarize']))} "
                 f"| {ms(pct(f['summarize'], .95))} "
                 f"| {statistics.median(f['summarize']) / statistics.median(f['fold']):.1%} "
                 f"| {ms(statistics.median(f['fold_request']))} |")
    step_names = sorted((k for k in steps[small] if k != "total"), key=lambda k: -statistics.median(steps[small][k]))
    L += [
        "",
        "Steps of a fold, client side (10 more folds per conversation through an instrumented copy of "
        "pgctx.db.run's driver; medians in ms, a query run twice per fold is summed; each query is its own "
        "BEGIN ... COMMIT, or a savepoint inside fold_request's transaction):",
        "",
        "| step | " + " | ".join(cids) + " |",
        "|---|" + "---:|" * len(cids),
        *[f"| {k} | " + " | ".join(ms(statistics.median(steps[cid][k])) for cid in cids) + " |"
          for k in step_names],
        "| total | " + " | ".join(ms(statistics.median(steps[cid]["total"])) for cid in cids) + " |",
        "",
    ]
    if fold_stmts:
        L += [
            "Server, per fold (pg_stat_statements as above, 10 more folds per conversation, mean):",
            "",
            *statement_table(cids, fold_stmts, 14),
            "",
        ]
    L += [
        "## Method and conditions",
        "",
        f"- Data: bench_fold.block() events (user/assistant messages, every tenth pair a read `lookup_order` call "
        f"and its result), appended {FOLD_EVERY} at a time with `pgctx.append_many` and folded after each batch "
        f"(`pgctx.fold(force=True)`, built-in summarizer); the last fold ends {TAIL} events before the head. "
        "Loading: " + "; ".join(
            f"{cid} {v['seconds']:.0f}s ({v['folds']:,} folds: append {v['append']:.0f}s, fold {v['fold']:.0f}s; "
            f"median fold of {FOLD_EVERY} events {v['first'] * 1000:.0f} ms over the first tenth of the history, "
            f"{v['last'] * 1000:.0f} ms over the last)" for cid, v in loading.items())
        + f". Before them, {info['background'][0]:,} conversations of 20 events (2 read tool call/result pairs), "
        f"each folded once ({info['background'][1]:.0f}s). Then VACUUM ANALYZE of pgctx's tables.",
        f"- build_context: Budget() defaults (model gpt-4o-mini, o200k_base), a {len(SYSTEM)}-character system "
        "message and a one-line current message, no memories.",
        f"- Load average (1/5/15 min): before loading {' -> '.join(info['loads_start'])}; before timing "
        f"{' -> '.join(info['loads_wait'])} (this benchmark's own loading included); at the end {info['load_end']}. "
        f"CPUs kept busy by other processes (all CPU time less this client's and its backend's): "
        f"{info['others_build']:.2f} during the build_context rounds, {info['others_fold']:.2f} during the timed "
        f"folds (of {os.cpu_count()}).",
    ]
    if max(info["others_build"], info["others_fold"]) > 0.5:
        L.append("- **Other processes kept more than half a CPU busy during the timed rounds**: percentiles are "
                 "inflated; compare ratios, or rerun on a quiet machine.")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    main()
