"""Event-log throughput: pgctx (triggers, hash chain) against a plain table with no triggers.

    python bench/bench_eventlog.py [--quick] [--diagnose] [--only single,batch,...]
                                   [--patch bench/experiments/NN_x.sql ...] [--as-app]
                                   [--baseline-keys-only] [--no-write] [--strict]

Starts its own throwaway PostgreSQL (pgctx.embedded, fsync=on: every commit is durable), creates
a UTF8 database, runs pgctx.migrate(dsn) and a baseline table ``bench_plain`` with the columns,
constraints and indexes of pgctx.events but no triggers and no RLS (the client supplies seq and
dummy hashes). Each measure runs its variants in alternating rounds (A B C, C B A, ...) so drift
on a noisy machine hits every variant alike; the table shows the median events/s of the rounds
and the median of the per-round ratios pgctx / baseline. Machines differ: read the ratios, not
the absolute numbers.

The benchmark connects as a superuser: row-level security is bypassed for the statements it
sends (the trigger's explicit pg_has_role tenant checks still run). --diagnose adds where the
time goes (inlining of the SQL helpers, CPU per event without the WAL flush, trigger times from
EXPLAIN ANALYZE, the trigger's pieces, verify_chain's plan). --patch runs SQL after the
migration, to measure a proposed change of the schema (bench/experiments/).

The table is printed and written to bench/results/eventlog.md (eventlog-patched.md with --patch,
eventlog-app.md with --as-app).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
import psycopg.conninfo  # noqa: E402
import psycopg.sql  # noqa: E402

import pgctx  # noqa: E402
from pgctx.embedded import EmbeddedPostgres  # noqa: E402

RESULTS = HERE / "results" / "eventlog.md"
DUMMY_HASH = bytes(range(32))

# The baseline: pgctx.events' columns, defaults, CHECK constraints and indexes (primary key
# (conversation_id, seq), unique (conversation_id, event_key), and whatever other indexes the
# schema has grown), but no triggers and no row-level security.
BASELINE_DDL = "CREATE TABLE bench_plain (LIKE pgctx.events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)"
# --baseline-keys-only: only the two keys, as in the original brief.
BASELINE_KEYS_ONLY_DDL = """
CREATE TABLE bench_plain (LIKE pgctx.events INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE bench_plain ADD PRIMARY KEY (conversation_id, seq), ADD UNIQUE (conversation_id, event_key);
"""


# ---- statements ---------------------------------------------------------------------------------

BASE_INSERT = (
    "INSERT INTO bench_plain (conversation_id, seq, kind, payload, prev_hash, hash)"
    " VALUES (%s, %s, %s, %s::jsonb, %s, %s)"
)
PGCTX_INSERT = "INSERT INTO pgctx.events (conversation_id, kind, payload) VALUES (%s, %s, %s::jsonb)"
PGCTX_APPEND = "SELECT pgctx.append_event(%s, %s, %s::jsonb)"

BASE_BATCH = (
    "INSERT INTO bench_plain (conversation_id, seq, kind, payload, prev_hash, hash)"
    " SELECT %s, %s + t.i, t.e->>'kind', t.e->'payload', %s, %s"
    "   FROM jsonb_array_elements(%s::jsonb) WITH ORDINALITY AS t(e, i)"
    " RETURNING seq"
)
PGCTX_BATCH = "SELECT ordinality, seq FROM pgctx.append_events(%s, %s::jsonb)"
PGCTX_BATCH_INSERT = (
    "INSERT INTO pgctx.events (conversation_id, kind, payload)"
    " SELECT %s, t.e->>'kind', t.e->'payload'"
    "   FROM jsonb_array_elements(%s::jsonb) WITH ORDINALITY AS t(e, i) ORDER BY t.i"
    " RETURNING seq"
)

VERIFY_BASE = "SELECT count(sha256(textsend(payload::text))) FROM pgctx.events WHERE conversation_id = %s"
VERIFY_PGCTX = "SELECT ok, checked FROM pgctx.verify_chain(%s)"


# ---- realistic small payloads -------------------------------------------------------------------

WORDS = (
    "the a to of and in is for on with that this it as be by are from at or an will can "
    "order refund invoice customer shipping address deploy branch build test failed passed "
    "query table index latency timeout retry cache user account password reset ticket "
    "summary please check status update schedule meeting tomorrow report draft review"
).split()
TOOLS = ["web_search", "sql_query", "send_email", "create_ticket", "read_file", "http_get"]


def _sentence(rng: random.Random, lo: int, hi: int) -> str:
    target = rng.randint(lo, hi)
    out: list[str] = []
    while sum(len(w) + 1 for w in out) < target:
        out.append(rng.choice(WORDS))
    text = " ".join(out)
    return text[0].upper() + text[1:] + "."


def make_payloads(count: int, seed: int = 7) -> list[tuple[str, str]]:
    """(kind, payload JSON text) pairs, ~150-300 bytes each, shaped like agent events."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        kind = ("user", "assistant", "tool_call", "tool_result")[i % 4]
        call_id = f"call_{rng.getrandbits(48):012x}"
        if kind == "user":
            p = {"text": _sentence(rng, 110, 220), "lang": "en", "turn": i // 4 + 1}
        elif kind == "assistant":
            p = {"text": _sentence(rng, 90, 180), "model": "gpt-4o-2024-08-06",
                 "tokens": {"in": rng.randint(200, 4000), "out": rng.randint(10, 400)}}
        elif kind == "tool_call":
            p = {"tool": rng.choice(TOOLS), "call_id": call_id,
                 "args": {"query": _sentence(rng, 30, 80), "top_k": rng.randint(1, 20)},
                 "effect": rng.choice(["read", "write"]), "idempotency_key": f"idem-{rng.getrandbits(64):016x}"}
        else:
            p = {"call_id": call_id, "outcome": rng.choice(["ok", "ok", "ok", "error"]),
                 "text": _sentence(rng, 60, 160), "elapsed_ms": rng.randint(3, 2500),
                 "score": round(rng.random(), 3) or 0.5}
        out.append((kind, json.dumps(p)))
    return out


def make_batches(payloads: list[tuple[str, str]], size: int, count: int) -> list[str]:
    """JSON arrays of {kind, payload} (the append_events input), as text."""
    batches = []
    for b in range(count):
        items = [payloads[(b * size + j) % len(payloads)] for j in range(size)]
        batches.append("[" + ", ".join(f'{{"kind": "{k}", "payload": {p}}}' for k, p in items) + "]")
    return batches


# ---- measurement --------------------------------------------------------------------------------

@dataclass
class Measure:
    name: str
    target: float | None
    base_rates: list[float] = field(default_factory=list)
    pgctx_rates: list[float] = field(default_factory=list)

    @property
    def ratios(self) -> list[float]:
        return [p / b for p, b in zip(self.pgctx_rates, self.base_rates)]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def ok(self) -> bool:
        return self.target is None or self.ratio >= self.target


Runner = Callable[[float], tuple[int, float]]   # run for ~duration s -> (events, seconds)


def run_rounds(variants: dict[str, Runner], rounds: int, duration: float, label: str) -> dict[str, list[float]]:
    """Alternating rounds (order reversed every other round) after one unrecorded warm-up."""
    names = list(variants)
    for name in names:                                  # warm-up: plans, caches, prepared stmts
        variants[name](min(duration, 0.5))
    rates: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            events, seconds = variants[name](duration)
            rates[name].append(events / seconds)
        print(f"  {label} round {r + 1}/{rounds}: "
              + ", ".join(f"{n} {rates[n][-1]:,.0f}/s" for n in names), flush=True)
    return rates


def timed_loop(step: Callable[[], int], duration: float) -> tuple[int, float]:
    n = 0
    t0 = time.perf_counter()
    deadline = t0 + duration
    while True:
        n += step()
        now = time.perf_counter()
        if now >= deadline:
            return n, now - t0


class Single:
    """One event per autocommit transaction on one connection, to its own conversation."""

    def __init__(self, dsn: str, mode: str, conv: str, payloads: list[tuple[str, str]]):
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.cur = self.conn.cursor()
        self.mode, self.conv, self.payloads = mode, conv, payloads
        self.seq = 0

    def step(self) -> int:
        kind, payload = self.payloads[self.seq % len(self.payloads)]
        self.seq += 1
        if self.mode == "base":
            self.cur.execute(BASE_INSERT, (self.conv, self.seq, kind, payload, DUMMY_HASH, DUMMY_HASH), prepare=True)
        elif self.mode == "insert":
            self.cur.execute(PGCTX_INSERT, (self.conv, kind, payload), prepare=True)
        else:
            self.cur.execute(PGCTX_APPEND, (self.conv, kind, payload), prepare=True)
            self.cur.fetchone()
        return 1

    def __call__(self, duration: float) -> tuple[int, float]:
        return timed_loop(self.step, duration)


class Batch:
    """One statement of `size` events per autocommit transaction."""

    def __init__(self, dsn: str, mode: str, conv: str, batches: list[str], size: int):
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.cur = self.conn.cursor()
        self.mode, self.conv, self.batches, self.size = mode, conv, batches, size
        self.i = 0
        self.seq = 0

    def step(self) -> int:
        body = self.batches[self.i % len(self.batches)]
        self.i += 1
        if self.mode == "base":
            self.cur.execute(BASE_BATCH, (self.conv, self.seq, DUMMY_HASH, DUMMY_HASH, body), prepare=True)
            self.seq += self.size
        elif self.mode == "insert":
            self.cur.execute(PGCTX_BATCH_INSERT, (self.conv, body), prepare=True)
        else:
            self.cur.execute(PGCTX_BATCH, (self.conv, body), prepare=True)
        rows = self.cur.fetchall()
        assert len(rows) == self.size, len(rows)
        return self.size

    def __call__(self, duration: float) -> tuple[int, float]:
        return timed_loop(self.step, duration)


class Concurrent:
    """`clients` threads, each its own connection and conversation, one event per transaction."""

    def __init__(self, dsn: str, mode: str, prefix: str, payloads, clients: int):
        self.workers = [Single(dsn, mode, f"{prefix}-{i}", payloads[i::clients]) for i in range(clients)]

    def __call__(self, duration: float) -> tuple[int, float]:
        counts = [0] * len(self.workers)
        barrier = threading.Barrier(len(self.workers) + 1)

        def work(i: int) -> None:
            barrier.wait()
            counts[i] = timed_loop(self.workers[i].step, duration)[0]

        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(self.workers))]
        for t in threads:
            t.start()
        barrier.wait()
        t0 = time.perf_counter()
        for t in threads:
            t.join()
        return sum(counts), time.perf_counter() - t0


class Verify:
    """Repeated full-chain passes over one conversation of `events` events."""

    def __init__(self, dsn: str, mode: str, conv: str, events: int):
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.conn.execute("SET max_parallel_workers_per_gather = 0")
        self.cur = self.conn.cursor()
        self.mode, self.conv, self.events = mode, conv, events

    def step(self) -> int:
        if self.mode == "base":
            self.cur.execute(VERIFY_BASE, (self.conv,), prepare=True)
            assert self.cur.fetchone()[0] == self.events
        else:
            self.cur.execute(VERIFY_PGCTX, (self.conv,), prepare=True)
            ok, checked = self.cur.fetchone()
            assert ok and checked == self.events, (ok, checked)
        return self.events

    def __call__(self, duration: float) -> tuple[int, float]:
        return timed_loop(self.step, duration)


# ---- diagnostics (--diagnose) ------------------------------------------------------------------

def backend_cpu_ns(conn: psycopg.Connection) -> Callable[[], int]:
    """A reader of the server process's own CPU time in ns (/proc/PID/schedstat: the server is
    local), so the client's Python and the machine's other work stay out of the figure."""
    path = Path(f"/proc/{conn.info.backend_pid}/schedstat")
    return lambda: int(path.read_text().split()[0])


def cpu_per_event(dsn: str, payloads, n: int, rounds: int) -> dict[str, float]:
    """Server CPU µs per single-event autocommit statement with synchronous_commit = off (the
    commit does not wait for the WAL flush): median over alternating rounds of n."""
    runners = {}
    for mode in ("base", "insert", "append"):
        r = Single(dsn, mode, f"cpu-{mode}", payloads)
        r.conn.execute("SET synchronous_commit = off")
        for _ in range(50):
            r.step()
        runners[mode] = (r, backend_cpu_ns(r.conn))
    per_event: dict[str, list[float]] = {mode: [] for mode in runners}
    for i in range(rounds):
        for mode, (r, cpu) in (list(runners.items()) if i % 2 == 0 else list(runners.items())[::-1]):
            before = cpu()
            _n_steps(r, n)
            per_event[mode].append((cpu() - before) / n / 1000)
    return {mode: statistics.median(v) for mode, v in per_event.items()}


def _n_steps(r: Single, n: int) -> None:
    for _ in range(n):
        r.step()


def trigger_times(dsn: str, payloads, batch: str, reps: int) -> dict[str, float]:
    """Mean trigger time in µs from EXPLAIN ANALYZE: single-row INSERTs (each its own
    transaction), and 100-row INSERT ... SELECT statements (per statement)."""
    import re
    sums: dict[str, list[float]] = {}
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SET synchronous_commit = off")
        for label, sql, params in (
            ("1 row", "EXPLAIN (ANALYZE, COSTS OFF) " + PGCTX_INSERT, lambda i: ("diag-one", *payloads[i % len(payloads)])),
            ("100 rows", "EXPLAIN (ANALYZE, COSTS OFF) " + PGCTX_BATCH_INSERT, lambda i: ("diag-many", batch)),
        ):
            for i in range(reps + 3):
                text = "\n".join(r[0] for r in conn.execute(sql, params(i)).fetchall())
                if i < 3:
                    continue                                    # warm-up
                for name, ms in re.findall(r"Trigger (\w+): time=([0-9.]+)", text):
                    sums.setdefault(f"{name} ({label})", []).append(float(ms) * 1000)
                ms = re.search(r"Execution Time: ([0-9.]+)", text)
                sums.setdefault(f"statement total ({label})", []).append(float(ms.group(1)) * 1000)
    return {k: statistics.median(v) for k, v in sums.items()}


PIECES = {
    # each body runs `n` times inside one DO block; the empty loop is subtracted
    "empty loop": "NULL;",
    "valid_conversation_id()": "b := pgctx.valid_conversation_id(conv);",
    "checked_payload() (type, key, canonical form, size)": "f := pgctx.checked_payload(p, NULL);",
    "checked_payload() of a payload holding 1.0 (trim_numbers)": "f := pgctx.checked_payload(p10, NULL);",
    "payload::text": "t2 := p::text;",
    "is_event_kind() (the kinds compiled to an array test)": "b := pgctx.is_event_kind('user');",
    "tenant_member(NULL)": "b := pgctx.tenant_member(NULL::text);",
    "pg_has_role(session_user, role, 'USAGE')": "b := pg_has_role(session_user, 'pgctx_app'::regrole::oid, 'USAGE');",
    "event_hash()": "h2 := pgctx.event_hash(conv, 12345, 'user', h, t);",
    "sha256(textsend(payload::text)) (reference)": "h2 := sha256(textsend(t));",
}


def trigger_pieces(dsn: str, conv: str, n: int) -> list[tuple[str, float]]:
    """µs per call of each step of pgctx.events_chain, in a PL/pgSQL loop (one transaction, so
    per-transaction costs, such as initialising each expression and statement of the trigger
    once per transaction, are NOT included: the server CPU table above has them). The head
    row's UPDATE is left out: repeated in one transaction it would walk its own row versions."""
    results = []
    payload = json.loads(make_payloads(1)[0][1])
    p10 = dict(payload, score=1.0)
    with psycopg.connect(dsn) as conn:
        for name, body in PIECES.items():
            best = float("inf")
            for _ in range(3):
                do = f"""
                DO $$
                DECLARE conv text := {psycopg.sql.quote(conv)};
                        p jsonb := {psycopg.sql.quote(json.dumps(payload))};
                        p10 jsonb := {psycopg.sql.quote(json.dumps(p10))};
                        t text := p::text; t2 text; h bytea := sha256('x'); h2 bytea; b boolean;
                        f pgctx.canonical_payload_forms;
                BEGIN FOR i IN 1..{n} LOOP {body} END LOOP; END $$"""
                t0 = time.perf_counter()
                conn.execute(do)
                best = min(best, time.perf_counter() - t0)
            results.append((name, best / n * 1e6))
            conn.rollback()
    empty = results[0][1]
    return [(name, max(0.0, us - empty)) for name, us in results[1:]]


def inlining(dsn: str) -> list[tuple[str, str]]:
    """Whether the planner inlines pgctx's SQL helper functions (EXPLAIN VERBOSE shows the call
    when it does not), and the volatility of textsend."""
    probes = {
        "event_hash": "pgctx.event_hash(c, 1::bigint, 'user', '\\x00'::bytea, c)",
        "genesis_hash": "pgctx.genesis_hash(c)",
        "canonical_payload": "pgctx.canonical_payload(j)",
        "valid_conversation_id": "pgctx.valid_conversation_id(c)",
    }
    out = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        for name, expr in probes.items():
            # columns of a real table, so that the call cannot be constant-folded away
            plan = "\n".join(r[0] for r in conn.execute(
                f"EXPLAIN VERBOSE SELECT {expr} FROM pgctx.events e(c, s, k, j)").fetchall())
            out.append((name, "no (called through fmgr_sql)" if f"pgctx.{name}(" in plan else "yes"))
        vol = conn.execute("SELECT provolatile FROM pg_proc WHERE oid = 'textsend(text)'::regprocedure").fetchone()[0]
        out.append(("textsend(text) volatility", {"i": "immutable", "s": "stable", "v": "volatile"}[vol]))
        same = conn.execute("SELECT pgctx.genesis_hash(convert_from('\\xc3a9', 'UTF8'))").fetchone()[0]
        conn.execute("SET client_encoding = 'LATIN1'")
        latin = conn.execute("SELECT pgctx.genesis_hash(convert_from('\\xc3a9', 'UTF8'))").fetchone()[0]
        conn.execute("RESET client_encoding")
        out.append(("genesis_hash('é') same under client_encoding UTF8 and LATIN1",
                    "yes" if same == latin else "**no** (the hash depends on the session's client_encoding)"))
    return out


def batch_scaling(dsn: str, payloads, sizes=(10, 100, 1000)) -> list[tuple[int, float, float]]:
    """µs per element of one append_events() call and of one plain INSERT ... SELECT of the same
    array, by array length (best of 3, synchronous_commit = off)."""
    out = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SET synchronous_commit = off")
        for label, sql in (("append", PGCTX_BATCH), ("insert", PGCTX_BATCH_INSERT)):
            for _ in range(6):                          # past the plan cache's custom plans
                conn.execute(sql, (f"scale-{label}-warm", make_batches(payloads, 10, 1)[0])).fetchall()
        for n in sizes:
            body = make_batches(payloads, n, 1)[0]
            best = {}
            for label, sql in (("append", PGCTX_BATCH), ("insert", PGCTX_BATCH_INSERT)):
                best[label] = float("inf")
                for _ in range(3):
                    t0 = time.perf_counter()
                    conn.execute(sql, (f"scale-{label}-{n}", body)).fetchall()
                    best[label] = min(best[label], time.perf_counter() - t0)
            out.append((n, best["append"] / n * 1e6, best["insert"] / n * 1e6))
    return out


VERIFY_PARTS = {
    # what verify_chain has to do at the least, next to the baseline; µs per event
    "baseline: count(sha256(textsend(payload::text)))": VERIFY_BASE,
    "rehash only: count(*) FILTER (WHERE hash = event_hash(...)), no order, no linkage":
        "SELECT count(*) FILTER (WHERE e.hash = pgctx.event_hash(e.conversation_id, e.seq, e.kind,"
        " e.prev_hash, e.payload::text)) FROM pgctx.events e WHERE e.conversation_id = %s",
    "read in seq order only: count(payload::text) ... ORDER BY seq":
        "SELECT count(t) FROM (SELECT e.payload::text AS t FROM pgctx.events e"
        " WHERE e.conversation_id = %s ORDER BY e.seq) s",
    "pgctx.verify_chain()": VERIFY_PGCTX,
}


def verify_parts(dsn: str, conv: str, events: int) -> list[tuple[str, float]]:
    """Best of 5, µs per event, each query over the whole conversation."""
    out = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SET max_parallel_workers_per_gather = 0")
        for name, sql in VERIFY_PARTS.items():
            best = float("inf")
            for _ in range(6):
                t0 = time.perf_counter()
                conn.execute(sql, (conv,)).fetchall()
                best = min(best, time.perf_counter() - t0)
            out.append((name, best / events * 1e6))
    return out


def diagnose(dsn: str, admin_dsn: str, payloads, batches, verify_n: int, quick: bool) -> str:
    """Appends and verification run as the benchmark's role (dsn); the catalog probes and the
    PL/pgSQL piece timings as the superuser (admin_dsn)."""
    print("diagnostics ...", flush=True)
    out = ["Inlining of pgctx's SQL helpers (EXPLAIN VERBOSE):\n", "| function | inlined |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in inlining(admin_dsn)]

    cpu = cpu_per_event(dsn, payloads, 300, 8 if quick else 20)
    out.append("\nServer CPU per single-event transaction (the backend's own CPU time, "
               "synchronous_commit = off: no wait for the WAL flush), median of alternating rounds:\n")
    out.append("| path | µs/event | overhead |\n|---|---:|---:|")
    for mode, label in (("base", "bench_plain INSERT"), ("insert", "INSERT INTO pgctx.events"),
                        ("append", "SELECT pgctx.append_event()")):
        out.append(f"| {label} | {cpu[mode]:.0f} | +{cpu[mode] - cpu['base']:.0f} µs |")

    times = trigger_times(dsn, payloads, batches[0], 10 if quick else 30)
    out.append("\nTrigger time per statement from EXPLAIN ANALYZE (median; synchronous_commit = off):\n")
    out.append("| trigger (statement) | µs |\n|---|---:|")
    out += [f"| {k} | {v:.0f} |" for k, v in sorted(times.items())]

    out.append("\nBatch size scaling, µs per element (best of 3, synchronous_commit = off):\n")
    out.append("| elements | append_events() | INSERT ... SELECT | append_events overhead |\n|---:|---:|---:|---:|")
    for n, ae, ins in batch_scaling(dsn, payloads):
        out.append(f"| {n} | {ae:.0f} | {ins:.0f} | {ae / ins:.2f}x |")

    out.append("\nevents_chain pieces, µs per call in a PL/pgSQL loop inside one transaction (empty loop "
               f"subtracted; conversation of {verify_n:,} events):\n")
    out.append("| piece | µs |\n|---|---:|")
    for name, us in trigger_pieces(admin_dsn, "v-chain", 2000 if quick else 5000):
        out.append(f"| {name} | {us:.1f} |")

    out.append(f"\nverify_chain and its parts over the {verify_n:,}-event conversation, µs per event (best of 6, "
               "one core):\n")
    out.append("| query | µs/event |\n|---|---:|")
    out += [f"| {name} | {us:.2f} |" for name, us in verify_parts(dsn, "v-chain", verify_n)]
    return "\n".join(out) + "\n"


# ---- main ---------------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short run (< 40 s)")
    ap.add_argument("--diagnose", action="store_true", help="also time the trigger's pieces and EXPLAIN ANALYZE")
    ap.add_argument("--no-write", action="store_true", help=f"do not write {RESULTS.relative_to(ROOT)}")
    ap.add_argument("--only", default="single,batch,concurrent,verify",
                    help="comma-separated subset of: single, batch, concurrent, verify")
    ap.add_argument("--patch", action="append", default=[], metavar="SQL_FILE",
                    help="SQL run after pgctx.migrate (to measure a proposed change, e.g. "
                         "bench/experiments/*.sql); results then go to bench/results/eventlog-patched.md")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a ratio misses its target")
    ap.add_argument("--as-app", action="store_true",
                    help="connect as a login role in pgctx_app and in a registered tenant role, so "
                         "row-level security and the tenant checks run as in production (default: superuser)")
    ap.add_argument("--baseline-keys-only", action="store_true",
                    help="baseline table with only the primary key and the event-key unique constraint, "
                         "not every index of pgctx.events")
    args = ap.parse_args()
    only = set(args.only.split(","))
    unknown = only - {"single", "batch", "concurrent", "verify"}
    if unknown:
        ap.error(f"unknown measure(s) in --only: {', '.join(sorted(unknown))}")
    results = RESULTS.with_name("eventlog" + ("-patched" if args.patch else "") + ("-app" if args.as_app else "") + ".md")

    if args.quick:
        rounds, dur, cdur, verify_n, vdur = 3, 0.8, 1.0, 5000, 0.6
    else:
        rounds, dur, cdur, verify_n, vdur = 7, 2.0, 2.5, 20000, 1.5
    clients = 4
    started = time.perf_counter()

    payloads = make_payloads(1024)
    sizes = [len(p.encode()) for _, p in payloads]
    batches = make_batches(payloads, 100, 32)

    # SIGTERM as well as Ctrl-C unwinds through `finally`, so the throwaway server is stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print("starting a throwaway PostgreSQL (fsync=on) ...", flush=True)
    server = EmbeddedPostgres(fsync=True)
    try:
        with psycopg.connect(server.superuser_dsn("postgres"), autocommit=True) as c:
            c.execute("CREATE DATABASE bench ENCODING 'UTF8' TEMPLATE template0")
        dsn = server.superuser_dsn("bench")
        pgctx.migrate(dsn)
        with psycopg.connect(dsn, autocommit=True) as c:
            for patch in args.patch:
                print(f"applying {patch}", flush=True)
                c.execute(Path(patch).read_text(encoding="utf-8"))
            c.execute(BASELINE_KEYS_ONLY_DDL if args.baseline_keys_only else BASELINE_DDL)
            baseline_indexes = [r[0] for r in c.execute(
                "SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'bench_plain'::regclass"
                " ORDER BY indexrelid").fetchall()]
            version = c.execute("SHOW server_version").fetchone()[0]
            settings = dict(c.execute(
                "SELECT name, setting FROM pg_settings WHERE name IN "
                "('fsync', 'synchronous_commit', 'wal_sync_method', 'shared_buffers', 'full_page_writes')"
            ).fetchall())
            admin_dsn = dsn
            if args.as_app:
                # a tenant, and an application login in it: conversations get that tenant, and RLS
                # (FORCEd on pgctx's tables) runs pg_has_role for its rows
                c.execute("CREATE ROLE pgctx_bench_tenant NOLOGIN")
                c.execute("CREATE ROLE pgctx_bench_app LOGIN IN ROLE pgctx_app, pgctx_bench_tenant")
                c.execute("SELECT pgctx.register_tenant('pgctx_bench_tenant')")
                c.execute("GRANT SELECT, INSERT ON bench_plain TO pgctx_bench_app")
                dsn = psycopg.conninfo.make_conninfo(dsn, user="pgctx_bench_app")
        with psycopg.connect(dsn, autocommit=True) as c:
            superuser = c.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()[0]
            login = c.execute("SELECT current_user").fetchone()[0]
        print(f"PostgreSQL {version}; fsync={settings['fsync']}, synchronous_commit={settings['synchronous_commit']}, "
              f"wal_sync_method={settings['wal_sync_method']}", flush=True)

        measures: list[Measure] = []

        if "single" in only:                            # 1. one event per transaction
            print("1. one event per transaction", flush=True)
            rates = run_rounds({
                "base": Single(dsn, "base", "s-base", payloads),
                "insert": Single(dsn, "insert", "s-insert", payloads),
                "append_event": Single(dsn, "append", "s-append", payloads),
            }, rounds, dur, "single")
            for key, label in (("insert", "1 event/txn, INSERT INTO pgctx.events"),
                               ("append_event", "1 event/txn, SELECT pgctx.append_event()")):
                measures.append(Measure(label, 0.85, rates["base"], rates[key]))

        if "batch" in only:                             # 2. 100 events per transaction, one statement
            print("2. 100 events per transaction", flush=True)
            rates = run_rounds({
                "base": Batch(dsn, "base", "b-base", batches, 100),
                "append_events": Batch(dsn, "append", "b-append", batches, 100),
                "insert_select": Batch(dsn, "insert", "b-insert", batches, 100),
            }, rounds, dur, "batch")
            measures.append(Measure("100 events/txn, pgctx.append_events()", 0.80,
                                    rates["base"], rates["append_events"]))
            measures.append(Measure("100 events/txn, INSERT INTO pgctx.events ... SELECT (info)", None,
                                    rates["base"], rates["insert_select"]))

        if "concurrent" in only:                        # 3. concurrent clients
            print(f"3. {clients} concurrent clients, 1 event/txn each", flush=True)
            rates = run_rounds({
                "base": Concurrent(dsn, "base", "c-base", payloads, clients),
                "append_event": Concurrent(dsn, "append", "c-append", payloads, clients),
            }, rounds, cdur, "concurrent")
            measures.append(Measure(f"{clients} clients x 1 event/txn, append_event(), total", 0.80,
                                    rates["base"], rates["append_event"]))

        # 4. verify_chain vs the raw hash of every payload (the chain is also used by --diagnose)
        if "verify" in only or args.diagnose:
            print(f"4. verify_chain over {verify_n:,} events", flush=True)
            with psycopg.connect(dsn, autocommit=True) as c:
                for start in range(0, verify_n, 1000):
                    body = make_batches(payloads[start % 1024:] + payloads, min(1000, verify_n - start), 1)[0]
                    c.execute(PGCTX_BATCH, ("v-chain", body))
            with psycopg.connect(admin_dsn, autocommit=True) as c:
                c.execute("VACUUM (ANALYZE) pgctx.events")
        if "verify" in only:
            rates = run_rounds({
                "base": Verify(dsn, "base", "v-chain", verify_n),
                "verify_chain": Verify(dsn, "pgctx", "v-chain", verify_n),
            }, rounds, vdur, "verify")
            measures.append(Measure(f"verify_chain, {verify_n:,} events, 1 core", 0.80,
                                    rates["base"], rates["verify_chain"]))

        diag = ""
        if args.diagnose:
            diag = diagnose(dsn, admin_dsn, payloads, batches, verify_n, args.quick)

        elapsed = time.perf_counter() - started
    finally:
        server.stop()

    lines = [
        "| measure | baseline | pgctx | ratio | target |",
        "|---|---:|---:|---:|---|",
    ]
    for m in measures:
        target = "—" if m.target is None else f">= {m.target:.2f} {'met' if m.ok else '**MISSED**'}"
        lines.append(f"| {m.name} | {statistics.median(m.base_rates):,.0f} ev/s | "
                     f"{statistics.median(m.pgctx_rates):,.0f} ev/s | {m.ratio:.2f} | {target} |")
    spread = "; ".join(f"{m.name.split(',')[0]}: {min(m.ratios):.2f}-{max(m.ratios):.2f}" for m in measures)
    notes = [
        f"PostgreSQL {version}, fsync={settings['fsync']}, synchronous_commit={settings['synchronous_commit']}, "
        f"wal_sync_method={settings['wal_sync_method']}, shared_buffers={int(settings['shared_buffers']) * 8 // 1024}MB, "
        f"full_page_writes={settings['full_page_writes']}; {os.cpu_count()} CPUs; "
        f"{'--quick, ' if args.quick else ''}{rounds} alternating rounds of {dur}s ({cdur}s concurrent, "
        f"{vdur}s verify); total {elapsed:.0f}s."
        + (f" Patched with: {', '.join(args.patch)} (NOT the shipped schema)." if args.patch else ""),
        f"Payloads: {len(payloads)} JSON objects shaped like agent events (user/assistant/tool_call/tool_result), "
        f"{min(sizes)}-{max(sizes)} bytes, mean {statistics.mean(sizes):.0f}.",
        "baseline/pgctx = median events/s over the rounds; ratio = median of the per-round ratios "
        f"pgctx/baseline (range over rounds: {spread}).",
        "Baseline: bench_plain, CREATE TABLE ... (LIKE pgctx.events INCLUDING DEFAULTS, CONSTRAINTS"
        f"{'' if args.baseline_keys_only else ', INDEXES'}) -- same columns, "
        f"{len(baseline_indexes)} indexes ("
        + "; ".join(i.split(" USING ")[1] for i in baseline_indexes)
        + "), no triggers, no RLS; client-supplied seq and dummy hashes; batch baseline = one INSERT ... SELECT FROM jsonb_array_elements(...) RETURNING seq; verify "
        "baseline = SELECT count(sha256(textsend(payload::text))) over the same rows; "
        "max_parallel_workers_per_gather = 0 for both.",
        (f"Connected as {login}, a superuser: row-level security is BYPASSED for the benchmark's statements "
         "(the trigger's explicit tenant checks still run, but conversations have no tenant, so pg_has_role "
         "is not reached); an application role pays the policy checks on top (measure with --as-app)."
         if superuser else
         f"Connected as {login}, a member of pgctx_app and of the registered tenant pgctx_bench_tenant: "
         "row-level security and the tenant checks (pg_has_role) run for pgctx's statements; the baseline "
         "table has no RLS."),
    ]
    report = "\n".join(lines) + "\n\n" + "\n".join(f"- {n}" for n in notes) + "\n"
    print()
    print(report)
    if diag:
        print(diag)
    if not args.no_write:
        results.parent.mkdir(parents=True, exist_ok=True)
        text = (f"# pgctx event log benchmark\n\n`python {' '.join(sys.argv)}`\n\n"
                + report + (f"\n## Diagnostics\n\n{diag}" if diag else ""))
        tmp = results.with_suffix(".md.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(results)
        print(f"written to {results.relative_to(ROOT)}")
    return 1 if args.strict and not all(m.ok for m in measures) else 0


if __name__ == "__main__":
    sys.exit(main())
