"""Server time of one whole agent turn, so an operator can size a shared PostgreSQL: turns/s per core.

    .venv/bin/python bench/bench_turn_cpu.py [--quick] [--out PATH]

Target (issue 25, item 7): at most 1 ms of server CPU per turn, so one core sustains at least
1,000 turns/s of this turn. Measured, never tuned for: the code is whatever the checkout holds.

A turn is README's agent loop: four events (user message, a read tool_call, its tool_result, the
assistant's reply; texts of 50-150 words, seeded by conversation and turn) appended one by one
with pgctx.append (variant "pgctx"; "pgctx batch": one pgctx.append_many of the four), then
pgctx.fold(conn, cid, budget=B) with the built-in summarizer, then pgctx.build_context(conn, cid,
budget=B). B is pgctx.Budget() (a 128k window), where fold() is almost never due; the variant
"pgctx 16k" uses README's loop budget (a 16,384-token window, B = 12,288), where a fold is due
every few turns, and reports the steady turn (fold not due) apart from the average of all turns,
folds included. The baseline ("floor") is the durable-commit floor: the same four payloads as
four plain autocommitted INSERTs into a plain table (bigserial key, text, text, jsonb),
synchronous_commit on, fsync on.

Server: one throwaway PostgreSQL 15 (pgctx.embedded, fsync on), with shared_preload_libraries =
pg_stat_statements, track_planning on; one client connection (autocommit, superuser, as the other
benches) runs every turn. History lengths: 100, 1,000 and 10,000 events in the conversation when
its blocks start (--quick: 100 and 1,000). Every conversation is pre-filled 20 turns per
append_many, each chunk followed by fold(budget=README_LOOP), whatever budget it is measured with:
the folds a loop would have made, at a cost a 10-minute bench can afford. (A 128k-budget loop grows
its summary to ~48k tokens, 0.4 B; in a first attempt each of its folds took seconds at ~7,000
events and every check over the floor ~240 ms, so the pre-fill alone would take far more than
10 minutes.) So the `pgctx` and `pgctx batch` conversations carry a summary of a few thousand
tokens, and their turns stay under the floor: the fast path. Then VACUUM ANALYZE and CHECKPOINT,
and 20 warm-up turns per variant. Under 1,000 events a fresh conversation per round; at 1,000 and
more, as few as keep each within 10% growth over its blocks; `pgctx` and `pgctx batch` take turns
on the same conversations.

Per turn, two measures of the server:
  * pg_stat_statements: sum of total_exec_time + total_plan_time over the top-level statements of
    the client's role, read before and after the turn from a second connection (another role, so
    its own reads are not counted). Top-level only: a function's execution time already holds its
    nested statements, so counting them too would count twice. Timed rounds run with
    pg_stat_statements.track = top; what the time is spent on is measured afterwards, apart, with
    track = all and track_functions = all (their instrumentation costs time of its own, shown).
    Not in it: parsing, the protocol, commit (WAL flush) -- what the CPU figure below adds. In it:
    any time the backend is off the CPU inside a statement (preempted on a busy machine, or blocked
    sending a large result to a client that reads it slowly: a 118k-token context is ~0.5 MB).
  * the backend's CPU: /proc/<pg_backend_pid()>/schedstat (on-CPU ns, per turn), and as a
    cross-check, /proc/<pid>/stat utime + stime (clock ticks) summed over all of a variant's turns
    at a size (ticks are 10 ms: only totals are meaningful).
Other server processes (WAL writer, checkpointer, autovacuum) are not in either figure.

Rounds: 2 cores, noisy. Each of 30 rounds (--quick: 3) runs, for each size, one block of 5 turns
of every variant, the variants' order rotating by round; per-round figures (the block's median
and mean per turn) are then summarized as medians over rounds, and the ratio to the floor is taken
per round, then the median. turns/s per core = 1000 / (ms per turn, either measure).

The report (command, machine, figures, top statements and functions) is printed and written to
bench/results/turn-cpu.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import re
import shlex
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

import psycopg  # noqa: E402
from psycopg.types.json import Jsonb  # noqa: E402

import pgctx  # noqa: E402
from pgctx.embedded import EmbeddedPostgres  # noqa: E402
from machine import code_state, cpu_model, met  # noqa: E402

RESULTS = HERE / "results" / "turn-cpu.md"
TARGET_MS = 1.0
DEFAULT = pgctx.Budget()
README_LOOP = pgctx.Budget(window=16_384, fixed_input=1_024, output=2_048, margin=1_024)  # B = 12,288
# variant -> (budget, append_many)
PGCTX = {"pgctx": (DEFAULT, False), "pgctx batch": (DEFAULT, True), "pgctx 16k": (README_LOOP, False)}
VARIANTS = ("floor", *PGCTX)
POOL = {"floor": "floor", "pgctx": "pgctx", "pgctx batch": "pgctx", "pgctx 16k": "pgctx 16k"}  # whose conversations
POOLS = tuple(dict.fromkeys(POOL.values()))
SIZES = (100, 1_000, 10_000)
QUICK_SIZES = (100, 1_000)
ROUNDS, QUICK_ROUNDS = 30, 3
GROWTH = 0.1  # a conversation of 1,000 events or more grows by at most this share during its blocks
TURNS = 5  # per block
WARMUP_TURNS = 20
DIAG_TURNS = 30
SERVER_ARGS = ("-h 127.0.0.1 -c logging_collector=off -c max_connections=200"
               " -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=top"
               " -c pg_stat_statements.track_planning=on -c pg_stat_statements.max=10000")

# ---- the turn's payloads ------------------------------------------------------------------------

USER = [
    "Hi, I ordered a pair of trail running shoes last week and the tracking page has not changed since Monday.",
    "Could you check whether the parcel left the warehouse, because I need the shoes for a race on Saturday?",
    "I also paid for express shipping, so if it will not arrive in time I would like that part refunded.",
    "Please do not cancel anything yet, I just want to know where it is and when it will really arrive.",
    "I moved flat recently and I am worried the old address might still be stored on my account.",
    "I am travelling from Thursday evening, so delivery after that would mean nobody is at home.",
]
ASSISTANT = [
    "Thanks for your patience, I have looked the order up and can see exactly where the parcel is now.",
    "The warehouse handed it to the courier on Tuesday afternoon, and the hub scanned it overnight.",
    "Express shipping is refunded automatically if the delivery misses the promised window.",
    "The delivery address on the order is the new one you mentioned, so it will not go to the old flat.",
    "I have not changed or cancelled anything on the order, and I will not without asking you first.",
    "If the tracking has not moved by tomorrow evening, reply here and I will open an investigation.",
]
NOTES = [
    "Parcel scanned at the regional sorting hub; next scan expected at the delivery depot.",
    "Express service level confirmed; the surcharge is refunded if the promised window is missed.",
    "Address validated against the postal database; the apartment number is present on the label.",
    "Stock check: the requested size and the half size up are both available in the central warehouse.",
]


def words(rng: random.Random, pool: list[str], lo: int, hi: int) -> str:
    target, out, n = rng.randint(lo, hi), [], 0
    while n < target:
        s = rng.choice(pool)
        if rng.random() < 0.3:
            s = s[:-1] + f" (ref {rng.randint(100000, 999999)})."
        out.append(s)
        n += len(s.split())
    return " ".join(out)


def turn_events(cid: str, turn: int) -> list[dict]:
    """One turn's four events: user, tool_call (a read), tool_result, assistant."""
    rng = random.Random(f"{cid}-{turn}")
    call_id = f"call-{turn}-{rng.getrandbits(32):08x}"
    order = f"A-{rng.randint(10000, 99999)}"
    return [
        {"kind": "user", "payload": {"text": f"Order {order}: " + words(rng, USER, 50, 150)}},
        {"kind": "tool_call", "payload": {"tool": "lookup_order", "effect": "read", "call_id": call_id,
                                          "idempotency_key": f"k-{call_id}",
                                          "arguments": {"order_id": order, "fields": ["status", "eta", "courier"]}}},
        {"kind": "tool_result", "payload": {"call_id": call_id, "outcome": "succeeded", "request_id": f"req-{call_id}",
                                            "result": {"status": rng.choice(["in_transit", "at_depot"]),
                                                       "eta": f"2026-09-{rng.randint(1, 28):02d}",
                                                       "notes": words(rng, NOTES, 20, 60)}}},
        {"kind": "assistant", "payload": {"text": words(rng, ASSISTANT, 50, 150)}},
    ]


# ---- the server's clocks --------------------------------------------------------------------------

def proc_cpu(pid: int) -> tuple[int, int]:
    """(on-CPU ns from schedstat, utime + stime clock ticks from stat) of a server process."""
    with open(f"/proc/{pid}/schedstat") as f:
        ns = int(f.read().split()[0])
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return ns, int(fields[11]) + int(fields[12])


TOTAL = ("SELECT coalesce(sum(total_exec_time + total_plan_time), 0)::float8, coalesce(sum(calls), 0)::bigint"
         " FROM pg_stat_statements(false) WHERE toplevel AND userid = %s::oid AND dbid = %s::oid")
BY_STATEMENT = ("SELECT queryid, toplevel, calls, total_plan_time, total_exec_time,"
                " jit_generation_time + jit_inlining_time + jit_optimization_time + jit_emission_time,"
                " query FROM pg_stat_statements(true) WHERE userid = %s::oid AND dbid = %s::oid")
FUNCTIONS = "SELECT schemaname || '.' || funcname, calls, total_time, self_time FROM pg_stat_user_functions"


class Server:
    """The client connection that runs the turns, and a monitor connection (another role) that
    reads pg_stat_statements around them."""

    def __init__(self, dsn: str, monitor_dsn: str):
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.mon = psycopg.connect(monitor_dsn, autocommit=True)
        self.pid = self.conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        self.user, self.db = self.conn.execute(
            "SELECT oid FROM pg_roles WHERE rolname = current_user").fetchone()[0], self.conn.execute(
            "SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]

    def total(self) -> tuple[float, int]:
        return self.mon.execute(TOTAL, (self.user, self.db)).fetchone()

    def measure(self, fn) -> dict:
        """fn() once: server ms (pg_stat_statements), backend CPU ms and ticks, wall ms, statements."""
        s0, n0 = self.total()
        c0, k0 = proc_cpu(self.pid)
        t0 = time.perf_counter()
        out = fn()
        wall = time.perf_counter() - t0
        c1, k1 = proc_cpu(self.pid)
        s1, n1 = self.total()
        return {"server": s1 - s0, "cpu": (c1 - c0) / 1e6, "ticks": k1 - k0, "wall": wall * 1000,
                "statements": n1 - n0, "folded": out == "fold", "kind": out}


def floor_turn(conn: psycopg.Connection, cid: str, events: list[dict]) -> str:
    for e in events:
        conn.execute("INSERT INTO plain (conversation_id, kind, payload) VALUES (%s, %s, %s)",
                     (cid, e["kind"], Jsonb(e["payload"])))
    return "-"


def pgctx_turn(conn: psycopg.Connection, cid: str, events: list[dict], budget: pgctx.Budget, batch: bool) -> str:
    """The turn; "fold" if its fold() committed, "fast" if it was not due under the floor (no
    trigger computed), "checked" if not due over the floor (triggers computed, none due)."""
    if batch:
        pgctx.append_many(conn, cid, events)
    else:
        for e in events:
            pgctx.append(conn, cid, e["kind"], e["payload"])
    result = pgctx.fold(conn, cid, budget=budget)
    pgctx.build_context(conn, cid, budget=budget)
    return "fold" if result.committed else "fast" if "under the floor" in result.reason else "checked"


class Conversation:
    def __init__(self, variant: str, size: int, index: int):
        self.variant, self.cid, self.turn = variant, f"{variant.replace(' ', '-')}-{size}-{index}", 0

    def next_events(self) -> list[dict]:
        events = turn_events(self.cid, self.turn)
        self.turn += 1
        return events

    def run(self, conn: psycopg.Connection, variant: str | None = None) -> str:
        """One turn (as variant, default the conversation's own); what its fold() did."""
        events, variant = self.next_events(), variant or self.variant
        if variant == "floor":
            return floor_turn(conn, self.cid, events)
        budget, batch = PGCTX[variant]
        return pgctx_turn(conn, self.cid, events, budget, batch)


def prefill(conn: psycopg.Connection, conv: Conversation, size: int) -> int:
    """size events, 20 turns per append_many, each chunk followed by fold(budget=README_LOOP), for
    every variant (see the module's docstring for why). Returns the folds committed."""
    folds = 0
    while conv.turn * 4 < size:
        chunk = []
        for _ in range(min(20, (size - conv.turn * 4) // 4)):
            chunk += conv.next_events()
        pgctx.append_many(conn, conv.cid, chunk)
        folds += pgctx.fold(conn, conv.cid, budget=README_LOOP).committed
    return folds


# ---- what the time goes to (track = all) -----------------------------------------------------------

def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"--[^\n]*", "", text)).strip()


def function_bodies(conn: psycopg.Connection) -> list[tuple[str, str]]:
    rows = conn.execute("SELECT p.proname, p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                        " WHERE n.nspname = 'pgctx' AND p.prolang IN (SELECT oid FROM pg_language"
                        " WHERE lanname IN ('sql', 'plpgsql'))").fetchall()
    # PL/pgSQL sends "SELECT ... INTO x FROM" without "INTO x": keep both spellings of a body
    return [(name, body) for name, src in rows for body in (
        _squash(src), _squash(re.sub(r"(?<!INSERT )\bINTO\s+(STRICT\s+)?[\w.]+(\s*,\s*[\w.]+)*", "", src)))]


def label(bodies: list[tuple[str, str]], toplevel: bool, query: str) -> str:
    q = _squash(query).replace("|", "\\|")
    if toplevel:
        called = re.findall(r"\bpgctx\.(\w+)\(", q)
        return (f"{called[0]}: " if called else "") + (q if len(q) <= 70 else q[:67] + "...")
    head = re.split(r"\$\d", q, maxsplit=1)[0]
    owners: list[str] = []
    for size in (60, 40, 25):  # PL/pgSQL passes expressions as "SELECT <expr>"
        for h in (head[:size], head.removeprefix("SELECT ")[:size]):
            owners = owners or [name for name, src in bodies if len(h) > 10 and h in src]
    return f"in {'/'.join(sorted(set(owners))) or '?'}: " + (q[:60] + "..." if len(q) > 60 else q)


def attribute(server: Server, conv: Conversation, turns: int) -> dict:
    """turns more turns of conv with track = all and track_functions = all: per statement and per
    function, ms per turn; the top-level total per turn under this instrumentation."""
    c, m = server.conn, server.mon
    c.execute("SET pg_stat_statements.track = 'all'")
    c.execute("SET track_functions = 'all'")
    c.execute("SELECT pg_stat_force_next_flush()")
    c.execute("SELECT 1")
    time.sleep(0.2)
    before = {(r[0], r[1]): r for r in m.execute(BY_STATEMENT, (server.user, server.db)).fetchall()}
    fbefore = {r[0]: r for r in m.execute(FUNCTIONS).fetchall()}
    samples, folds = [], 0
    for _ in range(turns):
        s = server.measure(lambda: conv.run(c))
        samples.append(s["server"])
        folds += s["folded"]
    c.execute("SELECT pg_stat_force_next_flush()")
    c.execute("SELECT 1")
    c.execute("SET pg_stat_statements.track = 'top'")
    c.execute("SET track_functions = 'none'")
    time.sleep(0.2)
    after = m.execute(BY_STATEMENT, (server.user, server.db)).fetchall()
    fafter = m.execute(FUNCTIONS).fetchall()
    bodies = function_bodies(m)
    statements = []
    for qid, top, calls, plan, execute, jit, query in after:
        b = before.get((qid, top))
        dc, dp, de, dj = (calls, plan, execute, jit) if b is None else (
            calls - b[2], plan - b[3], execute - b[4], jit - b[5])
        if dc and "pg_stat_force_next_flush" not in query and query.strip() not in ("SELECT $1", "SET"):
            statements.append((label(bodies, top, query), top, dc / turns, dp / turns, de / turns, dj / turns))
    functions = []
    for name, calls, total, self_ in fafter:
        b = fbefore.get(name, (name, 0, 0.0, 0.0))
        if calls - b[1]:
            functions.append((name, (calls - b[1]) / turns, (total - b[2]) / turns, (self_ - b[3]) / turns))
    return {"conv": conv.cid, "turns": turns, "folds": folds, "top_total": statistics.mean(samples),
            "top_p50": statistics.median(samples),
            "statements": sorted(statements, key=lambda r: -(r[3] + r[4])),
            "functions": sorted(functions, key=lambda r: -r[3])}


# ---- the run ----------------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a ~1-minute smoke run: 2 sizes, 4 rounds")
    parser.add_argument("--out", type=Path, default=None, help="report path (default bench/results/turn-cpu.md;"
                        " --quick: not written unless given)")
    args = parser.parse_args()
    sizes = QUICK_SIZES if args.quick else SIZES
    rounds = QUICK_ROUNDS if args.quick else ROUNDS
    out = args.out or (None if args.quick else RESULTS)
    started = time.monotonic()
    server = EmbeddedPostgres(fsync=True, postgres_args=SERVER_ARGS)
    try:
        dsn = server.superuser_dsn("test")
        pgctx.migrate(dsn)
        with psycopg.connect(dsn, autocommit=True) as setup:
            setup.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            setup.execute("CREATE ROLE bench_monitor LOGIN")
            setup.execute("GRANT pg_read_all_stats TO bench_monitor")
            setup.execute("CREATE TABLE plain (id bigserial PRIMARY KEY, conversation_id text, kind text,"
                          " payload jsonb)")
            version = setup.execute("SHOW server_version").fetchone()[0]
            settings = dict(setup.execute(
                "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'jit',"
                " 'shared_buffers', 'wal_level')").fetchall())
        s = Server(dsn, dsn.replace("user=postgres", "user=bench_monitor"))
        conn = s.conn

        # conversations per size and pool ("pgctx" and "pgctx batch" take turns on the same ones):
        # under 1,000 events a fresh one per round, else as few as keep each within GROWTH
        users = {p: sum(POOL[v] == p for v in VARIANTS) for p in POOLS}
        count = {(p, n): rounds if n < 1_000 else min(rounds, max(1, -(-rounds * users[p] * TURNS * 4
                                                                        // int(GROWTH * n))))
                 for p in POOLS for n in sizes}
        convs: dict[tuple[str, int], list[Conversation]] = {}
        prefill_folds: dict[tuple[str, int], int] = defaultdict(int)
        t = time.monotonic()
        for n in sizes:
            for p in POOLS:
                convs[(p, n)] = [Conversation(p, n, i) for i in range(count[(p, n)])]
                for c in convs[(p, n)]:
                    if p != "floor":
                        prefill_folds[(p, n)] += prefill(conn, c, n)
                        continue
                    rows = [e for _ in range(n // 4) for e in c.next_events()]  # the same length, plain
                    with conn.cursor() as cur:
                        cur.executemany("INSERT INTO plain (conversation_id, kind, payload) VALUES (%s, %s, %s)",
                                        [(c.cid, e["kind"], Jsonb(e["payload"])) for e in rows])
            print(f"pre-filled {n:,} events: {', '.join(f'{p} x {count[(p, n)]}' for p in POOLS)}"
                  f" ({time.monotonic() - t:.0f}s)", file=sys.stderr, flush=True)
        conn.execute("VACUUM ANALYZE")
        conn.execute("CHECKPOINT")
        for v in VARIANTS:  # connections' plans and caches, the token encoder
            w = Conversation(v, 0, 0)
            for _ in range(WARMUP_TURNS):
                w.run(conn, v)

        samples: dict[tuple[str, int], list[list[dict]]] = defaultdict(list)  # per round: the block's turns
        for r in range(rounds):
            order = VARIANTS[r % len(VARIANTS):] + VARIANTS[:r % len(VARIANTS)]
            for n in sizes:
                for v in order:
                    pool = convs[(POOL[v], n)]
                    c = pool[r * len(pool) // rounds]
                    samples[(v, n)].append([s.measure(lambda: c.run(conn, v)) for _ in range(TURNS)])
            print(f"round {r + 1}/{rounds} ({time.monotonic() - started:.0f}s)", file=sys.stderr, flush=True)

        # what the time goes to: the steady turn at the largest size, and the 16k loop with its folds
        big = sizes[-1]
        diag = [attribute(s, convs[("pgctx", big)][-1], DIAG_TURNS),
                attribute(s, convs[("pgctx 16k", big)][-1], DIAG_TURNS)]
        s.conn.close()
        s.mon.close()
    finally:
        server.stop()
    elapsed = time.monotonic() - started
    report = render(args, version, settings, sizes, rounds, count, prefill_folds, samples, diag, elapsed)
    print(report)
    if out:
        out.parent.mkdir(exist_ok=True)
        out.write_text(report)


def render(args, version, settings, sizes, rounds, count, prefill_folds, samples, diag, elapsed) -> str:
    def med(xs):
        return statistics.median(xs) if xs else float("nan")

    def per_round(v, n, key, agg, steady=True):
        """agg of each round's block (steady: fold-committing turns left out), then the median."""
        vals = []
        for block in samples[(v, n)]:
            xs = [t[key] for t in block if not (steady and t["folded"])]
            if xs:
                vals.append(agg(xs))
        return med(vals)

    def ratio(v, n, key="server"):
        vals = []
        for block, base in zip(samples[(v, n)], samples[("floor", n)]):
            xs = [t[key] for t in block if not t["folded"]]
            if xs:
                vals.append(statistics.median(xs) / statistics.median([t[key] for t in base]))
        return med(vals)

    def ticks(v, n):
        turns = [t for block in samples[(v, n)] for t in block]
        return sum(t["ticks"] for t in turns) * 1000 / os.sysconf("SC_CLK_TCK") / len(turns)

    def all_mean(v, n, key="server"):
        turns = [t for block in samples[(v, n)] for t in block]
        return statistics.mean(t[key] for t in turns)

    cmd = ".venv/bin/python bench/bench_turn_cpu.py" + (" " + shlex.join(sys.argv[1:]) if sys.argv[1:] else "")
    lines = [
        "# Server time of one agent turn", "",
        f"    {cmd}", "",
        f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC; {code_state()}; PostgreSQL {version} "
        f"(fsync {settings.get('fsync')}, synchronous_commit {settings.get('synchronous_commit')}, "
        f"jit {settings.get('jit')}, shared_buffers {settings.get('shared_buffers')} x 8kB), "
        f"{cpu_model()}, {os.cpu_count()} cores, shared and noisy; Python {platform.python_version()}; "
        f"{elapsed:.0f} s.", "",
        "A turn: 4 appends (user, tool_call, tool_result, assistant; 50-150-word texts), `pgctx.fold(conn, cid, "
        "budget=B)` (built-in summarizer), `pgctx.build_context(conn, cid, budget=B)`; B = `pgctx.Budget()` "
        "(128k window) for `pgctx` and `pgctx batch` (`append_many` of the 4), README's loop budget (16,384-token "
        "window, B = 12,288) for `pgctx 16k`. Floor: the same 4 payloads as 4 autocommitted INSERTs into a plain "
        f"table. {rounds} rounds x {TURNS} turns per variant and size, the variants' order rotating; figures are "
        "medians over rounds of each round's block median (p50) or mean. **server ms**: pg_stat_statements, "
        "top-level statements' total_exec_time + total_plan_time (track = top; parse, protocol and commit not in "
        "it); **CPU ms**: the backend's on-CPU time, /proc/<pid>/schedstat (everything the backend did); "
        "**ticks ms**: /proc/<pid>/stat utime + stime over all the variant's turns at that size, the cross-check "
        "(10 ms resolution). turns/s/core = 1000 / ms. Steady = turns whose fold() committed nothing. The floor's "
        "server ms leaves out its commits, which are most of its CPU: compare on CPU ms. Server ms above CPU ms "
        "is time a statement spent off the CPU (preempted, or sending a large context to the client).", "",
        "| events | variant | turns (folds) | server ms p50 | mean | turns/s/core | x floor | CPU ms p50 | mean |"
        " turns/s/core | x floor | ticks ms | stmts | wall ms p50 |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    verdict = []
    for n in sizes:
        for v in VARIANTS:
            turns = [t for block in samples[(v, n)] for t in block]
            folds = sum(t["folded"] for t in turns)
            sp, sm = per_round(v, n, "server", statistics.median), per_round(v, n, "server", statistics.mean)
            cp, cm = per_round(v, n, "cpu", statistics.median), per_round(v, n, "cpu", statistics.mean)
            rs = "1.00" if v == "floor" else f"{ratio(v, n):.2f}"
            rc = "1.00" if v == "floor" else f"{ratio(v, n, 'cpu'):.2f}"
            stm = med([t["statements"] for t in turns if not t["folded"]])
            lines.append(f"| {n:,} | {v} | {len(turns)} ({folds}) | {sp:.3f} | {sm:.3f} | {1000 / sp:,.0f} | {rs}x | "
                         f"{cp:.3f} | {cm:.3f} | {1000 / cp:,.0f} | {rc}x | {ticks(v, n):.2f} | {stm:.0f} | "
                         f"{per_round(v, n, 'wall', statistics.median):.2f} |")
            if v != "floor":
                verdict.append((v, n, sp, cp))
    lines += ["", "By what fold() did (means over every turn of the kind, not medians of rounds): **fast** = not due, "
              "under the floor (the fast path: no trigger computed); **checked** = not due, over the floor (triggers "
              "and boundary computed, none due); **fold** = a fold committed. Server ms / CPU ms:", "",
              "| events | variant | fast: turns | ms | checked: turns | ms | fold: turns | ms | all turns: ms |"
              " turns/s/core |",
              "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in sizes:
        for v in PGCTX:
            turns = [t for block in samples[(v, n)] for t in block]
            cells = []
            for kind in ("fast", "checked", "fold"):
                k = [t for t in turns if t["kind"] == kind]
                cells += [str(len(k)), (f"{statistics.mean(t['server'] for t in k):.2f} / "
                                        f"{statistics.mean(t['cpu'] for t in k):.2f}") if k else "-"]
            lines.append(f"| {n:,} | {v} | {' | '.join(cells)} | {all_mean(v, n):.2f} / {all_mean(v, n, 'cpu'):.2f} |"
                         f" {1000 / all_mean(v, n, 'cpu'):,.0f} |")
    lines += ["", "Folds committed while pre-filling (README's loop budget, every 20 turns): "
              + "; ".join(f"{n:,} events: " + ", ".join(f"{p} {prefill_folds[(p, n)]}" for p in POOLS[1:])
                          for n in sizes) + "."]
    lines += ["", f"**Target** (issue 25): <= {TARGET_MS:g} ms of server CPU per turn (>= 1,000 turns/s per core). "
              "Steady turn (no fold committed), p50, worst history length:"]
    for v in PGCTX:
        n, sp, cp = max(((n, sp, cp) for w, n, sp, cp in verdict if w == v), key=lambda x: x[2])
        best = min(cp for w, _, _, cp in verdict if w == v)
        lines.append(f"- `{v}`: {cp:.2f} ms of backend CPU at {n:,} events ({1000 / cp:,.0f} turns/s/core; "
                     f"{sp:.2f} ms by pg_stat_statements), best size {best:.2f} ms: {met(cp <= TARGET_MS)}.")
    worst_all = max(all_mean("pgctx 16k", n, "cpu") for n in sizes)
    lines.append(f"- `pgctx 16k`, every turn, folds included (mean): worst {worst_all:.2f} ms of backend CPU "
                 f"({1000 / worst_all:,.0f} turns/s/core): {met(worst_all <= TARGET_MS)}.")
    for d in diag:
        lines += ["", f"## Where the time goes: {d['conv']} ({d['turns']} more turns, {d['folds']} folds; "
                  "track = all, track_functions = all)", "",
                  f"Top-level total under this instrumentation: {d['top_p50']:.3f} ms p50, {d['top_total']:.3f} ms "
                  "mean per turn (the timed rounds ran with track = top). Per turn; a top-level statement's "
                  "exec time includes its nested ones, nested rows are named by the function whose body "
                  "holds them.", "",
                  "| statement | level | calls | plan ms | exec ms | JIT ms |", "|---|---|---:|---:|---:|---:|"]
        for name, top, calls, plan, execute, jit in d["statements"][:16]:
            lines.append(f"| `{name}` | {'top' if top else 'nested'} | {calls:.2f} | {plan:.3f} | {execute:.3f} | "
                         f"{jit:.2f} |")
        lines += ["", "| function | calls | total ms | self ms |", "|---|---:|---:|---:|"]
        for name, calls, total, self_ in d["functions"][:12]:
            lines.append(f"| `{name}` | {calls:.2f} | {total:.3f} | {self_:.3f} |")
    lines += ["", "Conversations per size (`pgctx` and `pgctx batch` take turns on the same ones): "
              + "; ".join(f"{n:,} events: " + ", ".join(f"{p} {count[(p, n)]}" for p in POOLS) for n in sizes)
              + f" (under 1,000 events a fresh one per round, else each growing by at most {GROWTH:.0%})."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
