"""Per-turn cost of pgctx as the OpenAI Agents SDK's session store, against the SDK's own stores.

    .venv/bin/python bench/bench_agents_session.py [--quick] [--no-analyze] [--max-load 0] [--label TEXT]
                                                   [--out PATH]

Target (issue): add_items of one turn (user message, a function call and its output, the reply)
and get_items() together add at most 3 ms p50 to a turn on this machine (against SQLiteSession and
SQLAlchemySession on PostgreSQL in the same run; p50 and p95 reported), flat from 10 to 10,000
items in the session; the items returned per turn stay within the budget however long the session
grows (shown at 10,000 items).

Backends, all in one process, one asyncio event loop, one throwaway PostgreSQL (pgctx.embedded,
fsync on, synchronous_commit on) holding two databases:
  * sqlite: agents.SQLiteSession(sid, <file in a temp dir on the same disk>) (WAL, the SDK's
    settings), all sessions in one file;
  * sqlalchemy: agents.extensions.memory.SQLAlchemySession(sid, engine=..., create_tables=True) on
    database `sqla`, one create_async_engine("postgresql+asyncpg://...") shared by all sessions
    (what SQLAlchemySession.from_url does, once per application rather than once per session);
  * pgctx: pgctx.integrations.openai_agents.PgctxSession(sid, pool, budget=pgctx.Budget()) on
    database `pgctx` (pgctx.migrate), one AsyncConnectionPool shared by its sessions, opened as
    PgctxSession.from_dsn opens its own (min 1, max 4, autocommit), built-in summarizer, inline
    folds;
  * pgctx-small: the same with SMALL (an 8k window: B = 6,000 tokens), so folds happen every few
    turns;
  * pgctx-bg: pgctx with background_folds=True (fold() -- the policy check and any fold -- runs in a
    task; after each timed turn the bench waits for it, untimed, as the model's next call would).
The tools the agent calls are declared read-only (pgctx.declare_tool), as an application would.

A turn is what the runner does for one run with one tool call: add_items([user message,
function_call, function_call_output]), add_items([assistant message]), get_items(), timed together
(time.perf_counter, wall clock) and apart. Texts are 50-150 words, varying, the same for every
backend (seeded by size, session and turn).

Sizes. At each size N (10, 100, 1,000, 10,000 items) every backend gets fresh sessions pre-filled
to exactly N items through add_items, turn by turn as the runner adds them (two batches a turn; a
PgctxSession, which checks the fold when read, is also read once a turn, so it folds during the
pre-fill exactly as in use), then VACUUM ANALYZE of both
databases' tables (what autovacuum does in time: pgctx's plpgsql functions keep one generic plan per
connection, and the pool's connections made theirs during the warm-up on nearly empty tables;
--no-analyze leaves them to autovacuum) and a CHECKPOINT. Then rounds
alternate the backends (order reversed every other round); each round runs a block of turns per
backend on one of its sessions, so every measured turn starts within a few percent of N items:
  10: 50 sessions x 1 block of 2 turns; 100: 20 x 1 x 5; 1,000: 5 x 2 x 10; 10,000: 1 x 5 x 20
(100 turns per backend and size). Before the first size, a warm-up session of 20 turns per
backend (connections, statement caches, plans, the token encoder). Python's GC is collected
before each block, left on during it.

Tokens returned by get_items (last turn of each block) are counted with pgctx's own counter
(pgctx.Budget().counter(): o200k_base), item by item as a chat message (TokenCounter.message_tokens:
4 framing tokens plus the text: a message's text, a call's name and arguments, a result's output),
and, as a cross-check, as the item's JSON (message_tokens({"role": "system", "content":
json.dumps(item)})).

Where the time goes (after the timed rounds of each size, on the last session; not in the timed
figures): 20 more turns per inline pgctx variant with psycopg.AsyncConnection.execute, the pool's
getconn/putconn and BuiltinSummarizer.summarize wrapped in timers (each statement named by its
pgctx.db constant), and 20 SQLAlchemy turns with SQLAlchemy's cursor-execute events timing its
statements. Then FOLD_STATUS by function (pg_stat_xact_user_functions) and the scans of
pgctx.events in pgctx.tool_calls' plan (auto_explain), on the pool's connection and on a fresh one,
and the size of the committed summary and the time to render it. At the largest size, a cProfile of
20 more turns per inline pgctx variant.

The report is printed and written to bench/results/agents-session.md.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import datetime as dt
import gc
import io
import json
import os
import platform
import pstats
import random
import re
import shlex
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

import psycopg  # noqa: E402
import sqlalchemy  # noqa: E402
from agents import SQLiteSession  # noqa: E402
from agents.extensions.memory import SQLAlchemySession  # noqa: E402
from psycopg_pool import AsyncConnectionPool  # noqa: E402
from sqlalchemy import event as sa_event  # noqa: E402
from sqlalchemy.ext.asyncio import create_async_engine  # noqa: E402

import pgctx  # noqa: E402
from pgctx import db  # noqa: E402
from pgctx.embedded import EmbeddedPostgres  # noqa: E402
from pgctx.integrations.openai_agents import PgctxSession  # noqa: E402
from pgctx.summarizers import BuiltinSummarizer  # noqa: E402
from pgctx.summary import SCHEMA_VERSION  # noqa: E402
from pgctx.fold_loop import summary_tokens  # noqa: E402
from pgctx.messages import summary_message, task_message  # noqa: E402
from machine import code_state, cpu_model, met  # noqa: E402

RESULTS = HERE / "results" / "agents-session.md"
TARGET_MS = 3.0
FLAT_RATIO = 1.2  # "flat": pgctx's p50 at the largest size within 1.2x its p50 at 10 items
DEFAULT = pgctx.Budget()
SMALL = pgctx.Budget(window=8192, fixed_input=1000, output=1000, margin=192)
COUNTER = DEFAULT.counter()
BACKENDS = ("sqlite", "sqlalchemy", "pgctx", "pgctx-small", "pgctx-bg")
BASELINES = ("sqlite", "sqlalchemy")
# name -> (budget, background_folds)
PGCTX = {"pgctx": (DEFAULT, False), "pgctx-small": (SMALL, False), "pgctx-bg": (DEFAULT, True)}
INLINE = ("pgctx", "pgctx-small")  # diagnosed and profiled (pgctx-bg is pgctx with the fold check off the turn)
TOOLS = ("lookup_order", "get_shipping_status", "search_help_center")
# size -> (sessions, blocks per session, turns per block)
PLAN = {10: (50, 1, 2), 100: (20, 1, 5), 1_000: (5, 2, 10), 10_000: (1, 5, 20)}
QUICK_PLAN = {10: (4, 1, 2), 100: (2, 2, 3), 400: (1, 2, 3)}
WARMUP_TURNS = 20
DIAG_TURNS = 20
PROFILE_TURNS = 20


# ---- conversation text ---------------------------------------------------------------------------

USER = [
    "Hi, I ordered a pair of trail running shoes last week and the tracking page has not changed since Monday.",
    "Could you check whether the parcel actually left the warehouse, because I need the shoes for a race on Saturday?",
    "The confirmation email said two to three working days, and it has now been five, which is a bit frustrating.",
    "I also paid for express shipping, so if it is not going to arrive in time I would like that part refunded.",
    "My neighbour sometimes takes in parcels for me, so it is possible it was delivered there without a note.",
    "If the size is the problem I am happy to switch to the half size up rather than wait for the exact one.",
    "Please do not cancel anything yet, I just want to know where it is and when it is realistically going to arrive.",
    "I moved flat recently and I am worried the old address might still be stored somewhere on my account.",
    "Last time I ordered from you the courier left the box in the rain, so I would prefer a pickup point this time.",
    "Is there a phone number for the courier, or can you contact them directly and ask them to call me?",
    "The order number should be in this message, but tell me if you need the email address I used as well.",
    "I am travelling from Thursday evening, so delivery after that would mean nobody is at home to receive it.",
]
ASSISTANT = [
    "Thanks for your patience, I have looked the order up and can see exactly where the parcel is right now.",
    "The warehouse handed it to the courier on Tuesday afternoon, and the first scan at the regional hub came in overnight.",
    "Express shipping is charged per parcel, so if the delivery misses the promised window the fee is refunded automatically.",
    "The delivery address on the order is the new one you mentioned, so there is no risk of it going to the old flat.",
    "According to the courier the parcel is scheduled for delivery tomorrow between nine in the morning and one in the afternoon.",
    "If you would rather collect it, I can ask the courier to redirect it to the pickup point closest to your address.",
    "I have not changed or cancelled anything on the order, and I will not do so without asking you first.",
    "The half size up is in stock in the same colour, so an exchange would be possible if the first pair does not fit.",
    "The courier does not publish a direct number, but the tracking page lets you leave a delivery instruction for the driver.",
    "I have added a note to the order so that the next agent who picks up your message can see what we discussed today.",
    "If the tracking has not moved again by tomorrow evening, reply here and I will open an investigation with the courier.",
    "Your race is on Saturday, so even a one-day delay would still leave a comfortable margin before you need the shoes.",
]
NOTES = [
    "Parcel scanned at the regional sorting hub; next scan expected at the delivery depot.",
    "Customer requested no substitution; hold for signature is not required on this service level.",
    "Express service level confirmed; refund of the express surcharge applies if the promised window is missed.",
    "Address validated against the postal database; the apartment number is present on the label.",
    "Courier capacity in the region is normal; no weather or strike disruption reported for this week.",
    "A delivery instruction can be added by the recipient on the tracking page until 22:00 the day before.",
    "Stock check: the requested size and the half size up are both available in the central warehouse.",
    "Previous order from this account was delivered to a safe place; the customer later reported water damage.",
]


def words(rng: random.Random, pool: list[str], lo: int = 50, hi: int = 150) -> str:
    """Sentences from pool (with an order number or a time here and there) until lo..hi words."""
    target = rng.randint(lo, hi)
    out: list[str] = []
    n = 0
    while n < target:
        s = rng.choice(pool)
        if rng.random() < 0.3:
            s = s[:-1] + f" (ref {rng.randint(100000, 999999)})."
        out.append(s)
        n += len(s.split())
    return " ".join(out)


def turn_items(size: int, session: int, turn: int) -> tuple[list[dict], list[dict]]:
    """One turn's two add_items batches: [user, function_call, function_call_output], [assistant]."""
    rng = random.Random(f"{size}-{session}-{turn}")
    call_id = f"call_{size}_{session}_{turn}_{rng.getrandbits(32):08x}"
    order = f"A-{rng.randint(10000, 99999)}"
    tool = rng.choice(TOOLS)
    user = {"role": "user", "content": f"Order {order}: " + words(rng, USER)}
    call = {"type": "function_call", "id": f"fc_{rng.getrandbits(64):016x}", "call_id": call_id, "name": tool,
            "arguments": json.dumps({"order_id": order, "fields": rng.sample(["status", "eta", "address", "items",
                                                                              "courier", "refunds"], 3)}),
            "status": "completed"}
    result = {"order_id": order, "status": rng.choice(["in_transit", "at_depot", "out_for_delivery"]),
              "eta": f"2026-09-{rng.randint(1, 28):02d}", "courier": rng.choice(["DPD", "UPS", "GLS"]),
              "tracking": f"TRK{rng.randint(10**9, 10**10 - 1)}", "notes": words(rng, NOTES, 40, 120)}
    output = {"type": "function_call_output", "call_id": call_id, "output": json.dumps(result)}
    reply = {"id": f"msg_{rng.getrandbits(64):016x}", "type": "message", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": words(rng, ASSISTANT), "annotations": [], "logprobs": []}]}
    return [user, call, output], [reply]


async def prefill(session: Any, size: int, sid: int, items: int) -> int:
    """Add `items` items to a fresh session, turn by turn (two batches a turn, as the runner does;
    an inline PgctxSession is also read once a turn, where it folds). Returns the turn number to
    continue from."""
    turns, rest = divmod(items, 4)
    started = next_report = time.perf_counter()
    for t in range(turns):
        a, b = turn_items(size, sid, t)
        await session.add_items(a)
        await session.add_items(b)
        if getattr(session, "background_folds", False):
            await session.wait_for_folds()
        elif isinstance(session, PgctxSession):
            await session.get_items()  # where it checks the fold: the runner reads once a turn
        if time.perf_counter() > next_report + 30:
            next_report = time.perf_counter()
            print(f"    pre-fill {type(session).__name__} {sid}: {4 * (t + 1):,} / {items:,} items, "
                  f"{next_report - started:.0f}s", file=sys.stderr, flush=True)
    if rest:
        a, b = turn_items(size, sid, turns)
        whole = a + b
        if rest == 2:  # a turn without a tool: the user message, then the reply
            await session.add_items([whole[0]])
            await session.add_items([whole[3]])
        else:
            await session.add_items(whole[:rest])
        turns += 1
    return turns


# ---- tokens ----------------------------------------------------------------------------------------

def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or () if isinstance(p, dict))


def item_tokens(item: dict) -> int:
    """pgctx's counter, the item as a chat message: a message's text, a call's name and arguments, an
    output's text (4 framing tokens each)."""
    kind = item.get("type", "message")
    if kind == "function_call":
        return COUNTER.message_tokens({"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": item.get("name", ""), "arguments": item.get("arguments", "")}}]})
    if kind == "function_call_output":
        out = item.get("output")
        return COUNTER.message_tokens({"role": "tool", "content": out if isinstance(out, str) else json.dumps(out)})
    return COUNTER.message_tokens({"role": "system", "content": _content_text(item.get("content"))})


def json_tokens(item: dict) -> int:
    return COUNTER.message_tokens({"role": "system", "content": json.dumps(item)})


# ---- backends --------------------------------------------------------------------------------------

class Stores:
    """The four session factories, on one PostgreSQL server and one SQLite file."""

    def __init__(self, server: EmbeddedPostgres, tmp: Path):
        params = server.dsn()
        self.host, self.port, self.user = params["host"], params["port"], params["user"]
        self.pg_dsn = server.superuser_dsn("pgctx")
        self.sqla_dsn = server.superuser_dsn("sqla")
        self.sqla_url = f"postgresql+asyncpg://{self.user}@{self.host}:{self.port}/sqla"
        self.sqlite_path = tmp / "agents.sqlite"
        self.open: dict[str, list[Any]] = defaultdict(list)

    async def start(self) -> None:
        self.engine = create_async_engine(self.sqla_url)
        self.pools = {}
        for name in PGCTX:
            pool = AsyncConnectionPool(self.pg_dsn, min_size=1, max_size=4, open=False, kwargs={"autocommit": True})
            await pool.open()
            self.pools[name] = pool

    def make(self, backend: str, sid: str) -> Any:
        if backend == "sqlite":
            s = SQLiteSession(sid, self.sqlite_path)
        elif backend == "sqlalchemy":
            s = SQLAlchemySession(sid, engine=self.engine, create_tables=True)
        else:
            budget, background = PGCTX[backend]
            s = PgctxSession(f"{backend}:{sid}", self.pools[backend], budget=budget, background_folds=background)
        self.open[backend].append(s)
        return s

    def close_sqlite(self) -> None:
        for s in self.open.pop("sqlite", []):
            s.close()

    async def stop(self) -> None:
        self.close_sqlite()
        for name in PGCTX:
            for s in self.open.pop(name, []):
                await s.close()
            await self.pools[name].close()
        await self.engine.dispose()


def pg_backend_pids(postmaster: int) -> list[int]:
    pids = [postmaster]
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                    pids.append(int(d.name))
            except (OSError, IndexError, ValueError):
                pass
    return pids


class CpuMeter:
    """CPUs kept busy by other processes: all busy CPU time less this process's and its server's."""

    def __init__(self, postmaster: int):
        self.postmaster = postmaster
        self.tick = os.sysconf("SC_CLK_TCK")

    def _snap(self) -> tuple[float, float, float]:
        fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        busy = (sum(fields[:8]) - fields[3] - fields[4]) / self.tick
        mine = 0.0
        for pid in pg_backend_pids(self.postmaster):
            try:
                st = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                mine += (int(st[11]) + int(st[12])) / self.tick
            except (OSError, IndexError):
                pass
        t = os.times()
        return time.monotonic(), busy, mine + t.user + t.system

    def start(self) -> None:
        self.t0 = self._snap()

    def others(self) -> float:
        t1 = self._snap()
        return max(0.0, ((t1[1] - self.t0[1]) - (t1[2] - self.t0[2])) / (t1[0] - self.t0[0]))


# ---- a turn ----------------------------------------------------------------------------------------

def folded(session: Any) -> bool:
    """Whether the session's last fold check committed a fold (pgctx sessions)."""
    return (isinstance(session, PgctxSession) and session.fold_error is None and session.last_fold is not None
            and session.last_fold.committed)


async def turn(session: Any, size: int, sid: int, t: int) -> dict[str, Any]:
    """One timed turn. A session with background folds is then given the time to finish them
    (untimed: in use, the model's next call comes first)."""
    a, b = turn_items(size, sid, t)
    bg = getattr(session, "background_folds", False)
    before = getattr(session, "last_fold", None)
    t0 = time.perf_counter()
    await session.add_items(a)
    t1 = time.perf_counter()
    await session.add_items(b)
    t2 = time.perf_counter()
    items = await session.get_items()  # an inline PgctxSession checks the fold here, once a turn
    t3 = time.perf_counter()
    if bg:
        await session.wait_for_folds()
    folds = int(folded(session) and session.last_fold is not before)
    errors = int(isinstance(session, PgctxSession) and session.fold_error is not None)
    return {"total": t3 - t0, "add1": t1 - t0, "add2": t2 - t1, "get": t3 - t2, "folds": folds, "errors": errors,
            "items": items}


class Live:
    """A session being measured: its backend, its index in the size's plan, the next turn number,
    and its current item count."""

    def __init__(self, backend: str, session: Any, sid: int, next_turn: int, n: int):
        self.backend, self.session, self.sid, self.next_turn, self.n = backend, session, sid, next_turn, n


async def run_size(stores: Stores, size: int, plan: tuple[int, int, int], rec: dict, info: dict,
                   meter: CpuMeter, analyze: bool) -> dict[str, Live]:
    n_sessions, blocks, per_block = plan
    live: dict[str, list[Live]] = {}
    started = time.perf_counter()
    for backend in BACKENDS:
        live[backend] = []
        for i in range(n_sessions):
            s = stores.make(backend, f"s{size}-{i}")
            nxt = await prefill(s, size, i, size)
            live[backend].append(Live(backend, s, i, nxt, size))
    prefill_s = time.perf_counter() - started
    if analyze:  # what autovacuum does in time; plans made on an almost empty table are then replanned
        for dsn, tables in ((stores.pg_dsn, ("pgctx.events", "pgctx.checkpoints", "pgctx.conversations",
                                             "pgctx.fold_heads")),
                            (stores.sqla_dsn, ("agent_messages", "agent_sessions"))):
            with psycopg.connect(dsn, autocommit=True) as c:
                for table in tables:
                    c.execute(f"VACUUM ANALYZE {table}")
    with psycopg.connect(stores.pg_dsn, autocommit=True) as c:
        c.execute("CHECKPOINT")
    await asyncio.sleep(1)
    print(f"  size {size:,}: pre-filled {n_sessions} sessions per backend in {prefill_s:.0f}s; timing",
          file=sys.stderr, flush=True)
    rounds = [(i, b) for i in range(n_sessions) for b in range(blocks)]
    meter.start()
    load0 = os.getloadavg()[0]
    for r, (i, _b) in enumerate(rounds):
        order = BACKENDS if r % 2 == 0 else BACKENDS[::-1]
        for backend in order:
            lv = live[backend][i]
            gc.collect()
            last = None
            for _ in range(per_block):
                out = await turn(lv.session, size, lv.sid, lv.next_turn)
                lv.next_turn += 1
                key = (backend, size)
                for k in ("total", "add1", "add2", "get"):
                    rec[key][k].append(out[k])
                rec[key]["folds"].append(out["folds"])
                rec[key]["errors"].append(out["errors"])
                rec[key]["start"].append(lv.n)
                lv.n += 4
                last = out["items"]
            rec[key]["returned"].append(len(last))
            rec[key]["tokens"].append(sum(item_tokens(x) for x in last))
            rec[key]["json_tokens"].append(sum(json_tokens(x) for x in last))
            head = 0
            for x in last:  # the leading system items: pgctx's summary and the evidence kept raw
                if x.get("role") != "system" or x.get("type", "message") != "message":
                    break
                head += item_tokens(x)
            rec[key]["head_tokens"].append(head)
    info.setdefault("others", {})[size] = meter.others()
    info.setdefault("load", {})[size] = (load0, os.getloadavg()[0])
    info.setdefault("prefill", {})[size] = prefill_s
    return {backend: live[backend][-1] for backend in BACKENDS}


# ---- where the time goes ---------------------------------------------------------------------------

QUERY_NAMES = {v: k for k, v in vars(db).items() if k.isupper() and isinstance(v, str)}


class Probe:
    """Timers around psycopg's AsyncConnection.execute, the pool's getconn/putconn and the built-in
    summarizer (installed only while diagnosing)."""

    def __init__(self) -> None:
        self.acc: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def name(self, query: Any) -> str:
        text = query if isinstance(query, str) else str(query)
        if text in QUERY_NAMES:
            return QUERY_NAMES[text]
        if "event_key = ANY" in text:
            return "event_key lookup (add_items, turns with a call)"
        return text[:50]

    def install(self) -> None:
        probe = self
        # the cursor's execute: pgctx's own statements go through cursors (pgctx.db), and
        # AsyncConnection.execute calls it too, so each statement is timed once
        self.saved = (psycopg.AsyncCursor.execute, AsyncConnectionPool.getconn, AsyncConnectionPool.putconn,
                      BuiltinSummarizer.summarize)
        execute, getconn, putconn, summarize = self.saved

        async def timed_execute(cur, query, params=None, **kw):
            t = time.perf_counter()
            try:
                return await execute(cur, query, params, **kw)
            finally:
                n = probe.name(query)
                probe.acc["sql: " + n] += time.perf_counter() - t
                probe.calls["sql: " + n] += 1

        async def timed_getconn(pool, *a, **kw):
            t = time.perf_counter()
            try:
                return await getconn(pool, *a, **kw)
            finally:
                probe.acc["pool getconn + putconn"] += time.perf_counter() - t

        async def timed_putconn(pool, *a, **kw):
            t = time.perf_counter()
            try:
                return await putconn(pool, *a, **kw)
            finally:
                probe.acc["pool getconn + putconn"] += time.perf_counter() - t

        def timed_summarize(self_, *a, **kw):
            t = time.perf_counter()
            try:
                return summarize(self_, *a, **kw)
            finally:
                probe.acc["summarizer (in a thread)"] += time.perf_counter() - t
                probe.calls["summarizer (in a thread)"] += 1

        psycopg.AsyncCursor.execute = timed_execute
        AsyncConnectionPool.getconn = timed_getconn
        AsyncConnectionPool.putconn = timed_putconn
        BuiltinSummarizer.summarize = timed_summarize

    def remove(self) -> None:
        (psycopg.AsyncCursor.execute, AsyncConnectionPool.getconn, AsyncConnectionPool.putconn,
         BuiltinSummarizer.summarize) = self.saved

    def take(self) -> tuple[dict[str, float], dict[str, int]]:
        acc, calls = dict(self.acc), dict(self.calls)
        self.acc.clear()
        self.calls.clear()
        return acc, calls


class SqlaProbe:
    """SQLAlchemy's cursor-execute events on the shared engine (driver round trips of its statements)."""

    def __init__(self, engine: Any) -> None:
        self.sync = engine.sync_engine
        self.acc: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.begin_t: list[float] = []

    def _before(self, conn, cursor, statement, parameters, context, executemany):
        conn.info.setdefault("t", []).append(time.perf_counter())

    def _after(self, conn, cursor, statement, parameters, context, executemany):
        t = conn.info["t"].pop()
        words_ = statement.split()
        name = "sql: " + " ".join(words_[:3])[:50]
        self.acc[name] += time.perf_counter() - t
        self.calls[name] += 1

    def install(self) -> None:
        sa_event.listen(self.sync, "before_cursor_execute", self._before)
        sa_event.listen(self.sync, "after_cursor_execute", self._after)

    def remove(self) -> None:
        sa_event.remove(self.sync, "before_cursor_execute", self._before)
        sa_event.remove(self.sync, "after_cursor_execute", self._after)

    def take(self) -> tuple[dict[str, float], dict[str, int]]:
        acc, calls = dict(self.acc), dict(self.calls)
        self.acc.clear()
        self.calls.clear()
        return acc, calls


async def diagnose(stores: Stores, size: int, last: dict[str, Live], turns: int, diag: dict) -> None:
    """`turns` instrumented turns per pgctx variant and for sqlalchemy, on the size's last sessions."""
    for backend in ("sqlalchemy", *INLINE):
        probe = SqlaProbe(stores.engine) if backend == "sqlalchemy" else Probe()
        lv = last[backend]
        probe.install()
        rows = []
        try:
            for _ in range(turns):
                out = await turn(lv.session, size, lv.sid, lv.next_turn)
                lv.next_turn += 1
                lv.n += 4
                acc, calls = probe.take()
                rows.append((out, acc, calls))
        finally:
            probe.remove()
        diag[(backend, size)] = rows


FUNCS = ("SELECT funcname, calls, total_time, self_time FROM pg_stat_xact_user_functions"
         " WHERE schemaname = 'pgctx'")
SCAN = re.compile(r"(Index Scan|Index Only Scan|Seq Scan|Bitmap Heap Scan)(?: using (\S+))? on events (\S+) .*?"
                  r"\(actual time=[\d.]+\.\.([\d.]+) rows=(\d+) loops=(\d+)\)")


def fold_status_params(backend: str, cid: str) -> dict[str, Any]:
    budget = PGCTX[backend][0]
    return dict(c=cid, capacity=budget.threshold, floor=budget.floor, tail=budget.tail, force=False, sv=SCHEMA_VERSION,
                hz=budget.horizon)


async def function_split(conn: psycopg.AsyncConnection, cid: str, params: dict, calls: int) -> dict[str, Any]:
    """FOLD_STATUS (what fold() sends first, once a turn from get_items) `calls` times in one transaction with
    track_functions = all: ms per call, client side, and (function, calls, total ms, self ms) per call."""
    async with conn.transaction():
        await conn.execute("SET LOCAL track_functions = 'all'")
        before = {f: (c, t, s_) for f, c, t, s_ in await (await conn.execute(FUNCS)).fetchall()}
        t0 = time.perf_counter()
        for _ in range(calls):
            await (await conn.execute(db.FOLD_STATUS, params)).fetchall()
        wall = (time.perf_counter() - t0) / calls
        after = await (await conn.execute(FUNCS)).fetchall()
    rows = []
    for f, c, t, s_ in after:
        b = before.get(f, (0, 0.0, 0.0))
        if c - b[0]:
            rows.append((f, (c - b[0]) / calls, (t - b[1]) / calls, (s_ - b[2]) / calls))
    return {"wall": wall, "funcs": sorted(rows, key=lambda r: -r[2])}


async def tool_calls_scans(conn: psycopg.AsyncConnection, cid: str) -> list[tuple] | None:
    """The scans of pgctx.events in the plan pgctx.tool_calls runs on this connection (auto_explain,
    nested statements, sent to the client): (index, alias, ms per loop, rows, loops, rows removed
    by filter per loop). None if auto_explain is not available."""
    notes: list[str] = []
    handler = lambda d: notes.append(d.message_primary or "")  # noqa: E731
    conn.add_notice_handler(handler)
    try:
        await conn.execute("LOAD 'auto_explain'")
        for setting in ("auto_explain.log_analyze = on", "auto_explain.log_nested_statements = on",
                        "auto_explain.log_level = notice", "client_min_messages = notice",
                        "auto_explain.log_min_duration = 0"):
            await conn.execute("SET " + setting)
        await (await conn.execute("SELECT count(*) FROM pgctx.tool_calls(%s, (SELECT cursor FROM "
                                  "pgctx.committed_fold(%s)))", (cid, cid))).fetchall()
    except psycopg.Error:
        return None
    finally:
        for setting in ("auto_explain.log_min_duration = -1", "client_min_messages = notice"):
            try:
                await conn.execute("SET " + setting)
            except psycopg.Error:
                pass
        await conn.execute("RESET client_min_messages")
        conn.remove_notice_handler(handler)
    plan = next((n for n in notes if "stored AS MATERIALIZED" in n and "WITH bounds" in n), None)
    if plan is None:
        return None
    lines = plan.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = SCAN.search(line)
        if not m:
            continue
        removed = 0
        for nxt in lines[i + 1:i + 4]:
            if "Rows Removed by Filter" in nxt:
                removed = int(nxt.rsplit(":", 1)[1])
        out.append((m.group(2) or m.group(1), m.group(3), float(m.group(4)), int(m.group(5)), int(m.group(6)), removed))
    return out


async def server_side(stores: Stores, size: int, last: dict[str, Live], calls: int, split: dict) -> None:
    """For each pgctx variant's last session: FOLD_STATUS by function, and tool_calls' scans of the
    events, on the pool's own (long-lived) connection and on a fresh connection (plans made now);
    and the committed summary: its size, and the Python time to render it, as get_items does for its
    leading system item."""
    for backend in INLINE:
        cid = last[backend].session.session_id
        params = fold_status_params(backend, cid)
        fresh = await psycopg.AsyncConnection.connect(stores.pg_dsn, autocommit=True)
        try:
            for _ in range(3):  # its plans, as a pool connection has them
                await (await fresh.execute(db.FOLD_STATUS, params)).fetchall()
            async with stores.pools[backend].connection() as pooled:
                split[(backend, size, "pool connection")] = {
                    **await function_split(pooled, cid, params, calls), "scans": await tool_calls_scans(pooled, cid)}
            split[(backend, size, "fresh connection")] = {
                **await function_split(fresh, cid, params, calls), "scans": await tool_calls_scans(fresh, cid)}
            committed = await pgctx.committed_fold(fresh, cid)
            if committed.summary:
                times = []
                for _ in range(20):
                    t0 = time.perf_counter()
                    task_message(committed.summary)
                    summary_message(committed.summary, committed.version, committed.cursor)
                    times.append(time.perf_counter() - t0)
                split[(backend, size, "summary")] = {
                    "version": committed.version, "bytes": len(pgctx.canonical_json(committed.summary).encode()),
                    "facts": len(committed.summary.get("facts") or ()),
                    "tokens": summary_tokens(COUNTER, committed.summary, committed.version, committed.cursor),
                    "render": statistics.median(times)}
        finally:
            await fresh.close()


async def profile(last: dict[str, Live], size: int, turns: int) -> dict[str, list[tuple]]:
    """cProfile of `turns` turns per pgctx variant: the top functions by own time, per turn."""
    out = {}
    for backend in INLINE:
        lv = last[backend]
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        for _ in range(turns):
            await turn(lv.session, size, lv.sid, lv.next_turn)
            lv.next_turn += 1
            lv.n += 4
        prof.disable()
        wall = time.perf_counter() - t0
        st = pstats.Stats(prof, stream=io.StringIO())
        rows = []
        for (file, line, fn), (cc, nc, tt, ct, _callers) in st.stats.items():  # type: ignore[attr-defined]
            short = file.replace(str(ROOT) + "/", "").split("site-packages/")[-1]
            rows.append((f"{short}:{line} {fn}", nc / turns, tt / turns, ct / turns))
        rows.sort(key=lambda r: -r[2])
        out[backend] = [("(wall clock per turn, profiled)", 1, wall / turns, wall / turns)] + rows[:14]
    return out


# ---- report ----------------------------------------------------------------------------------------

def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def ms(x: float) -> str:
    return f"{x * 1000:.2f}"


def report(sizes: list[int], plan: dict, rec: dict, diag: dict, split: dict, prof: dict, info: dict,
           command: str) -> str:
    p50 = {k: statistics.median(v["total"]) for k, v in rec.items()}
    p95 = {k: pct(v["total"], 0.95) for k, v in rec.items()}
    big, small = sizes[-1], sizes[0]
    L = [
        "# pgctx as the Agents SDK session store: cost per turn",
        "",
        f"`{command}`",
        "",
        f"{dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; {cpu_model()}, {os.cpu_count()} CPUs, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}; openai-agents "
        f"{info['agents']}, SQLAlchemy {sqlalchemy.__version__} + asyncpg {info['asyncpg']}, psycopg "
        f"{psycopg.__version__} ({psycopg.pq.__impl__}), SQLite {info['sqlite']}; PostgreSQL "
        f"{info['settings']['server_version']} (embedded, fsync={info['settings']['fsync']}, synchronous_commit="
        f"{info['settings']['synchronous_commit']}, shared_buffers={int(info['settings']['shared_buffers']) // 128}MB) "
        f"over TCP to 127.0.0.1; SQLite file on the same disk (WAL, the SDK's settings); {info['duration']}.",
        "",
        f"Code measured: {info['code']}.",
        "",
        "Backends: **sqlite** = `agents.SQLiteSession(sid, file)`; **sqlalchemy** = "
        "`agents.extensions.memory.SQLAlchemySession(sid, engine=create_async_engine('postgresql+asyncpg://...'), "
        "create_tables=True)` (one engine for all its sessions) on the same PostgreSQL server, own database; "
        "**pgctx** = `PgctxSession(sid, pool, budget=pgctx.Budget())` (128k window: B = "
        f"{DEFAULT.history_budget:,}, fold threshold aB = {DEFAULT.threshold:,} tokens); **pgctx-small** = the same "
        f"with `Budget(window=8192, fixed_input=1000, output=1000, margin=192)` (B = {SMALL.history_budget:,}, "
        f"aB = {SMALL.threshold:,}); **pgctx-bg** = pgctx with `background_folds=True` (the fold check and any fold "
        "run in a task; the bench waits for it after each timed turn, untimed, as the model's next call would). "
        "pgctx variants: one AsyncConnectionPool each (min 1, max 4, autocommit, as `PgctxSession.from_dsn` opens), "
        "built-in summarizer; the agent's three tools declared read-only (`pgctx.declare_tool`).",
        "",
        "A turn = `add_items([user, function_call, function_call_output])` + `add_items([assistant])` + "
        "`get_items()`, wall clock. Messages and outputs 50-150 words, the same for every backend.",
        "",
        "## Target",
        "",
        f"Per turn, pgctx p50 minus baseline p50 (target: at most +{TARGET_MS:g} ms at every size; p95 below):",
        "",
        "| items in session | backend | p50 ms | - sqlite p50 | | - sqlalchemy p50 | | p95 ms | - sqlite p95 "
        "| - sqlalchemy p95 |",
        "|---:|---|---:|---:|---|---:|---|---:|---:|---:|",
    ]
    all_met = {b: True for b in PGCTX}
    for n in sizes:
        for b in PGCTX:
            cells = []
            for base in BASELINES:
                d = (p50[(b, n)] - p50[(base, n)]) * 1000
                all_met[b] &= d <= TARGET_MS
                cells += [f"{d:+.2f}", met(d <= TARGET_MS)]
            L.append(f"| {n:,} | {b} | {ms(p50[(b, n)])} | " + " | ".join(cells) + f" | {ms(p95[(b, n)])} | "
                     + " | ".join(f"{(p95[(b, n)] - p95[(base, n)]) * 1000:+.2f}" for base in BASELINES) + " |")
    L += ["", "| target | measured | |", "|---|---:|---|"]
    for b in PGCTX:
        L.append(f"| {b}: at most +{TARGET_MS:g} ms p50 against both baselines, every size | "
                 f"{'all sizes' if all_met[b] else 'not at every size'} | {met(all_met[b])} |")
    for b in PGCTX:
        r = p50[(b, big)] / p50[(b, small)]
        L.append(f"| {b}: flat, p50 at {big:,} / p50 at {small} <= {FLAT_RATIO} | {r:.2f} "
                 f"({ms(p50[(b, small)])} -> {ms(p50[(b, big)])} ms) | {met(r <= FLAT_RATIO)} |")
    for b, (budget, _bg) in PGCTX.items():
        mx = max(rec[(b, big)]["tokens"])
        L.append(f"| {b}: tokens get_items returns at {big:,} items <= B = {budget.history_budget:,} "
                 f"| max {mx:,} | {met(mx <= budget.history_budget)} |")
    L += [
        "",
        "## Per turn, by session size",
        "",
        "ms per turn; p50 of the parts (each part's own median; they need not add up to the total's). "
        "Items and tokens returned by get_items: at the last turn of each block (tokens: pgctx's counter, "
        "o200k_base, each item as a chat message; in brackets, each item's JSON counted the same way); "
        "median over the blocks, max in brackets for the token count.",
        "",
        "| items | backend | turns | p50 | p95 | max | add_items #1 p50 | add_items #2 p50 | get_items p50 "
        "| folds (turns with one) | items returned | tokens returned [as JSON] | of which summary + evidence |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n in sizes:
        for b in BACKENDS:
            v = rec[(b, n)]
            lo, hi = min(v["start"]), max(v["start"])
            folded = sum(1 for f in v["folds"] if f)
            errs = sum(v["errors"])
            fold_cell = "-" if b in BASELINES else f"{sum(v['folds'])} ({folded})" + (f", {errs} failed" if errs else "")
            L.append(
                f"| {n:,} ({lo:,}-{hi:,}) | {b} | {len(v['total'])} | {ms(p50[(b, n)])} | {ms(p95[(b, n)])} "
                f"| {ms(max(v['total']))} | {ms(statistics.median(v['add1']))} | {ms(statistics.median(v['add2']))} "
                f"| {ms(statistics.median(v['get']))} | {fold_cell} | {int(statistics.median(v['returned'])):,} "
                f"| {int(statistics.median(v['tokens'])):,} (max {max(v['tokens']):,}) "
                f"[{int(statistics.median(v['json_tokens'])):,}] "
                f"| {'-' if b in BASELINES else format(int(statistics.median(v['head_tokens'])), ',')} |")
    L += ["", "## Where the time goes", ""]
    if diag:
        L += [
            f"{DIAG_TURNS} more turns per backend after each size's timed rounds, on its last session, with timers "
            "around every statement's round trip (psycopg `AsyncConnection.execute` for pgctx, named by the "
            "pgctx.db constant; SQLAlchemy's before/after_cursor_execute events for sqlalchemy), pgctx's pool "
            "getconn/putconn and the built-in summarizer. Median ms per turn (a statement run more than once in a "
            "turn is summed), calls per turn in brackets; other = the turn less everything timed (Python: item "
            "conversion, token counting at append, the fold's request and bookkeeping, the items get_items builds, "
            "the asyncio hops).",
            "",
        ]
        for b in ("pgctx", "pgctx-small", "sqlalchemy"):
            keys = [k for k in diag if k[0] == b]
            if not keys:
                continue
            names = sorted({n for k in keys for _, acc, _ in diag[k] for n in acc},
                           key=lambda n: -max(statistics.median([r[1].get(n, 0.0) for r in diag[k]]) for k in keys))
            L += [f"**{b}**", "", "| step | " + " | ".join(f"{k[1]:,} items" for k in keys) + " |",
                  "|---|" + "---:|" * len(keys)]
            L.append("| turn (instrumented) | " + " | ".join(
                ms(statistics.median([r[0]["total"] for r in diag[k]])) for k in keys) + " |")
            for n in names:
                cells = []
                for k in keys:
                    vals = [r[1].get(n, 0.0) for r in diag[k]]
                    calls = statistics.mean([r[2].get(n, 0) for r in diag[k]]) if n in {x for r in diag[k] for x in r[2]} else None
                    cells.append(ms(statistics.median(vals)) + (f" ({calls:.1f})" if calls is not None else ""))
                L.append(f"| {n} | " + " | ".join(cells) + " |")
            L.append("| other (turn less the timed steps) | " + " | ".join(
                ms(statistics.median([r[0]["total"] - sum(r[1].values()) for r in diag[k]])) for k in keys) + " |")
            L.append("| get_items part of the turn | " + " | ".join(
                ms(statistics.median([r[0]["get"] for r in diag[k]])) for k in keys) + " |")
            L.append("| turns with a fold | " + " | ".join(
                str(sum(1 for r in diag[k] if r[0]["folds"])) + f" of {len(diag[k])}" for k in keys) + " |")
            L.append("")
    if split:
        L += [
            "Server side of FOLD_STATUS (fold()'s first query, sent by get_items once a turn: pgctx.fold_status and, when a "
            "fold is due, its input), on each size's last session after the instrumented turns: 5 calls in one "
            "transaction with track_functions = all (pg_stat_xact_user_functions; total includes the functions it "
            "calls, self is the function's own time, planning its body included), on the pool's long-lived "
            "connection (the one the timed turns used) and on a fresh connection (3 calls first; its plans made "
            "now, on the current statistics). ms per FOLD_STATUS call:",
            "",
        ]
        fn_names = ["fold_status", "tool_calls", "fold_triggers", "fold_boundary", "context_events"]
        for b in INLINE:
            L += [f"**{b}**", "", "| items | connection | FOLD_STATUS (client) | "
                  + " | ".join(f"{f}: calls, total, self" for f in fn_names) + " |",
                  "|---:|---|---:|" + "---:|" * len(fn_names)]
            for n in sizes:
                for where in ("pool connection", "fresh connection"):
                    v = split.get((b, n, where))
                    if not v:
                        continue
                    cells = []
                    for f in fn_names:
                        r = next((x for x in v["funcs"] if x[0] == f), None)
                        cells.append(f"{r[1]:.0f}, {r[2]:.2f}, {r[3]:.2f}" if r else "-")
                    L.append(f"| {n:,} | {where} | {ms(v['wall'])} | " + " | ".join(cells) + " |")
            L.append("")
        L += [
            "Scans of pgctx.events in the plan of pgctx.tool_calls (plpgsql, plan_cache_mode = force_generic_plan: "
            "one generic plan per connection, kept until invalidated), from auto_explain (log_analyze, nested "
            "statements) of one `tool_calls(cid, committed cursor)` call: index, ms per loop, loops, rows removed "
            "by the filter per loop:",
            "",
            "| backend | items | connection | scans |",
            "|---|---:|---|---|",
        ]
        for b in INLINE:
            for n in sizes:
                for where in ("pool connection", "fresh connection"):
                    v = split.get((b, n, where))
                    if not v or v.get("scans") is None:
                        continue
                    L.append(f"| {b} | {n:,} | {where} | " + "; ".join(
                        f"{idx} ({alias}): {t:.3f} ms x {loops}" + (f", {rem:,} removed" if rem else "")
                        for idx, alias, t, _rows, loops, rem in v["scans"]) + " |")
        L += [
            "",
            "The committed summary get_items renders (task_message + summary_message) for its leading system item "
            "(fold() takes its token count from the checkpoint and reads the summary only when a fold is due). "
            "Render time: median of 20, this process:",
            "",
            "| backend | items | version | summary bytes (canonical JSON) | facts | tokens | render ms |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for b in INLINE:
            for n in sizes:
                v = split.get((b, n, "summary"))
                if v:
                    L.append(f"| {b} | {n:,} | {v['version']} | {v['bytes']:,} | {v['facts']:,} | {v['tokens']:,} "
                             f"| {ms(v['render'])} |")
        L.append("")
    for b, rows in prof.items():
        L += [f"cProfile, {b}, {PROFILE_TURNS} turns at {big:,}+ items: top functions by own time, per turn "
              "(profiling inflates Python time; shares, not absolute figures):", "",
              "| function | calls | own ms | cumulative ms |", "|---|---:|---:|---:|"]
        for name, calls, tt, ct in rows:
            L.append(f"| `{name}` | {calls:.1f} | {ms(tt)} | {ms(ct)} |")
        L.append("")
    L += [
        "## Method and conditions",
        "",
        "- Sizes and rounds (sessions x blocks per session x turns per block, per backend): "
        + "; ".join(f"{n:,}: {p[0]} x {p[1]} x {p[2]}" for n, p in plan.items())
        + ". Fresh sessions pre-filled to exactly the size through add_items, turn by turn (a PgctxSession read once a "
        "turn, where it checks the fold), then "
        + ("" if info["no_analyze"] else "VACUUM ANALYZE of both databases' tables, ")
        + "CHECKPOINT; rounds alternate the backends, order reversed every other round. Warm-up: "
        f"{WARMUP_TURNS} full turns per backend before the first size.",
        "- Pre-fill time per size (all backends): "
        + ", ".join(f"{n:,}: {info['prefill'][n]:.0f}s" for n in sizes) + ".",
        "- Load average (1 min) at the start and end of each size's timed rounds: "
        + ", ".join(f"{n:,}: {a:.2f} -> {b_:.2f}" for n, (a, b_) in info["load"].items())
        + ". CPUs kept busy by other processes during the timed rounds (all busy CPU time less this process's "
        "and its PostgreSQL server's; of " + str(os.cpu_count()) + "): "
        + ", ".join(f"{n:,}: {x:.2f}" for n, x in info["others"].items()) + ".",
    ]
    if max(info["others"].values()) > 0.5:
        L.append("- **Other processes kept more than half a CPU busy during timed rounds**: absolute figures are "
                 "inflated; compare backends within a size (they were interleaved).")
    L += ["", "## Reading (generated from the figures above)", ""]
    for b in PGCTX:
        worst = {base: max((p50[(b, n)] - p50[(base, n)]) * 1000 for n in sizes) for base in BASELINES}
        missed = [f"{n:,}" for n in sizes if any((p50[(b, n)] - p50[(base, n)]) * 1000 > TARGET_MS for base in BASELINES)]
        r = p50[(b, big)] / p50[(b, small)]
        L.append(f"- **{b}**: the {TARGET_MS:g} ms p50 target is {met(not missed)}"
                 + (f" (missed at {', '.join(missed)} items)" if missed else "")
                 + "; p50 " + " / ".join(f"{ms(p50[(b, n)])}" for n in sizes) + f" ms at {' / '.join(f'{n:,}' for n in sizes)} items, "
                 + "against sqlite " + " / ".join(f"{(p50[(b, n)] - p50[('sqlite', n)]) * 1000:+.1f}" for n in sizes)
                 + ", against sqlalchemy " + " / ".join(f"{(p50[(b, n)] - p50[('sqlalchemy', n)]) * 1000:+.1f}" for n in sizes)
                 + f" ms (worst {worst['sqlite']:+.1f} / {worst['sqlalchemy']:+.1f}); "
                 + f"{'flat' if r <= FLAT_RATIO else 'not flat'} ({big:,} / {small}: {r:.2f}); get_items returns at most "
                 + f"{max(rec[(b, big)]['tokens']):,} tokens at {big:,} items (B = {PGCTX[b][0].history_budget:,}).")
    for base in BASELINES:
        L.append(f"- **{base}** returns every item: {int(statistics.median(rec[(base, big)]['tokens'])):,} tokens at "
                 f"{big:,} items; p50 " + " / ".join(ms(p50[(base, n)]) for n in sizes) + " ms.")
    for b in INLINE:
        keys = [(b, n) for n in sizes if (b, n) in diag]
        if keys:
            fs = [statistics.median([r[1].get("sql: FOLD_STATUS", 0.0) for r in diag[k]]) for k in keys]
            tot = [statistics.median([r[0]["total"] for r in diag[k]]) for k in keys]
            L.append(f"- {b}, where the time goes: FOLD_STATUS (one call a turn, from get_items, fold due or not) "
                     + " / ".join(f"{ms(f)} of {ms(t)}" for f, t in zip(fs, tot)) + " ms per instrumented turn at "
                     + " / ".join(f"{k[1]:,}" for k in keys) + " items.")
    return "\n".join(L) + "\n"


# ---- main ------------------------------------------------------------------------------------------

async def amain(args: argparse.Namespace, server: EmbeddedPostgres, tmp: Path, info: dict) -> tuple:
    plan = QUICK_PLAN if args.quick else PLAN
    sizes = list(plan)
    stores = Stores(server, tmp)
    await stores.start()
    rec: dict = defaultdict(lambda: defaultdict(list))
    diag: dict = {}
    split: dict = {}
    prof: dict = {}
    try:
        print("warm-up", file=sys.stderr, flush=True)
        for backend in BACKENDS:
            s = stores.make(backend, "warmup")
            for t in range(WARMUP_TURNS if not args.quick else 5):
                await turn(s, 0, 0, t)
        meter = CpuMeter(server.child_process.pid)
        last: dict[str, Live] = {}
        for n in sizes:
            last = await run_size(stores, n, plan[n], rec, info, meter, not args.no_analyze)
            await diagnose(stores, n, last, DIAG_TURNS if not args.quick else 3, diag)
            await server_side(stores, n, last, 5, split)
            stores.close_sqlite()  # the size's SQLite sessions (their thread-local connections)
            for b in PGCTX:  # close waits for a background fold; the shared pool stays open
                for s in stores.open.pop(b, []):
                    await s.close()
        prof = await profile(last, sizes[-1], PROFILE_TURNS if not args.quick else 3)
    finally:
        await stores.stop()
    return sizes, plan, rec, diag, split, prof


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: sizes 10, 100, 400, a few turns")
    parser.add_argument("--max-load", type=float, default=0,
                        help="wait (at most 15 min) for the 1-min load to drop to this first; 0: don't wait")
    parser.add_argument("--no-analyze", action="store_true",
                        help="no VACUUM ANALYZE after each pre-fill (plans pgctx's plpgsql functions cached on "
                             "the pool's connections while the tables were nearly empty are then kept until "
                             "autovacuum's ANALYZE invalidates them)")
    parser.add_argument("--label", default="", help="a note on the code measured, for the report")
    parser.add_argument("--out", type=Path, default=None, help=f"report path (default {RESULTS.relative_to(ROOT)})")
    args = parser.parse_args()
    command = ".venv/bin/python bench/bench_agents_session.py" + "".join(" " + shlex.quote(a) for a in sys.argv[1:])
    began = time.perf_counter()
    deadline = time.monotonic() + 900
    while args.max_load > 0 and os.getloadavg()[0] > args.max_load and time.monotonic() < deadline:
        print(f"load {os.getloadavg()[0]:.2f} > {args.max_load}: waiting 60s", file=sys.stderr, flush=True)
        time.sleep(60)
    import agents
    import asyncpg
    import sqlite3
    info: dict[str, Any] = {"code": code_state() + (f"; {args.label}" if args.label else ""), "no_analyze": args.no_analyze,
                            "agents": getattr(agents, "__version__", "?"), "asyncpg": asyncpg.__version__,
                            "sqlite": sqlite3.sqlite_version}
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the server on kill, too
    tmp = Path(tempfile.mkdtemp(prefix="bench-agents-"))
    server = EmbeddedPostgres(fsync=True)
    try:
        admin = server.superuser_dsn("postgres")
        with psycopg.connect(admin, autocommit=True) as c:
            c.execute("CREATE DATABASE pgctx")
            c.execute("CREATE DATABASE sqla")
            info["settings"] = dict(c.execute(
                "SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'fsync', "
                "'synchronous_commit', 'shared_buffers')").fetchall())
        pgctx.migrate(server.superuser_dsn("pgctx"))
        with psycopg.connect(server.superuser_dsn("pgctx"), autocommit=True) as c:
            for tool in TOOLS:
                c.execute("SELECT pgctx.declare_tool(%s, 'read', ARRAY['order_id'])", (tool,))
        sizes, plan, rec, diag, split, prof = asyncio.run(amain(args, server, tmp, info))
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    info["duration"] = f"{time.perf_counter() - began:.0f}s in all"
    text = report(sizes, plan, rec, diag, split, prof, info, command)
    print(text)
    out = args.out or RESULTS
    out.parent.mkdir(exist_ok=True)
    out.write_text(text)


if __name__ == "__main__":
    main()
