"""Per-turn persistence: pgctx.append_many vs PostgresSaver.put(), and PgctxSaver vs PostgresSaver.

    python bench/bench_persistence.py [--quick] [--turns N] [--steps N] [--reads N] [--block B]
                                      [--max-busy CPUS] [--max-disk MBPS] [--note TEXT] [--out PATH]

(needs the bench extra: ``pip install -e '.[bench]'``, which brings langgraph-checkpoint-postgres.)

One throwaway PostgreSQL (pgctx.embedded, fsync on, synchronous_commit on: every commit is
durable) holds both systems in separate databases: pgctx migrated in one, PostgresSaver.setup()
in the other. A *turn* is a user message and the assistant's reply (two messages, ~200 characters
of mixed English/Chinese text each). For each history size H (10, 100 and 1000 messages):

* pgctx: N conversations, each pre-built with H events; the timed turn is one
  ``pgctx.append_many(conn, cid, [user, assistant])`` -- one statement, one transaction; only the
  two new events are written (whatever append_many does per event, e.g. token counts, is timed).
* LangGraph: N threads, each pre-built with a checkpoint whose ``messages`` channel holds H
  langchain-core messages; the timed turn is one ``saver.put(config, checkpoint, metadata,
  new_versions)`` of the next checkpoint -- parent = the previous checkpoint, ``messages`` = the
  whole list (H + 2 messages, as MessagesState keeps it), ``new_versions`` marking ``messages``
  changed, so put() serializes (JsonPlusSerializer) and writes the whole list again.

Every timed turn goes to a thread holding exactly H messages (one timed turn per thread): turns on
one thread would grow its history by 2 per turn (1000 turns would take H=10 to 2010). Neither
write reads the thread's earlier rows, so this is the cost of the next turn of any thread of that
length -- with its pages as cold as in a service where many conversations take turns (the timed
blocks start after a CHECKPOINT, so each turn's first page writes carry full-page images, for both
systems). The benchmark watches the CPU and disk writes of other processes (--max-busy,
--max-disk): it waits for a quiet machine before timing and measures a block pair again when
something else ran. The two systems run in alternating blocks of B turns
(pgctx, LangGraph, LangGraph, pgctx, ...) so drift on a noisy machine hits both; turns/s is the
median over blocks (B / summed turn latencies), the speedup the median of the per-pair ratios.
Only the call is timed: messages and checkpoints are built before the clock starts.

Storage per thread is measured apart, in two more databases: K threads per H, each grown turn by
turn (H/2 turns of one append_many / one put each) to H messages; the figure is the growth of
pg_total_relation_size (heap + TOAST + indexes) of the system's tables, divided by K.

Then the same comparison for the two LangGraph checkpointers, PgctxSaver (pgctx.integrations.langgraph,
in a pgctx-migrated database) and PostgresSaver (in one set up by .setup()), in four more databases
of the same server. A *step* is what a MessagesState graph's loop writes for one turn of its node:
``put_writes(parent_config, [("messages", [user, assistant])], task_id, task_path)``, then
``put(parent_config, checkpoint, metadata, {"messages": version})`` whose ``messages`` is the whole
list, built as ``parent's list + [user, assistant]`` from the same message objects (what lets
PgctxSaver write only the delta). put_writes + put are timed together, one step per thread holding
H messages, in alternating blocks as above. PgctxSaver computes the delta without reading when
its cache (each thread's newest state, for up to 256 threads and ``cache_messages`` messages in
all) holds the parent -- as a graph's loop has it -- so each pair's threads are built (one put of
H messages each) right before the pair, by the saver instance that times them, with the cache
sized to hold them (as a service sizes it to its active threads); built all at once, most parents
would have left the cache by their step, and their step would read them first. Storage
per thread: K threads per saver grown step by step to H messages, table growth / K; then
``get_tuple`` (latest checkpoint) of those threads, in alternating blocks.

The results are printed and written to bench/results/persistence.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import shlex
import statistics
import sys
import time
import uuid
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from psycopg.rows import dict_row, tuple_row  # noqa: E402

import pgctx  # noqa: E402
from pgctx.embedded import EmbeddedPostgres  # noqa: E402
from machine import code_state, cpu_model, met  # noqa: E402

try:
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
    from langgraph.checkpoint.base import BaseCheckpointSaver, create_checkpoint, empty_checkpoint
    from langgraph.checkpoint.postgres import PostgresSaver

    from pgctx.integrations.langgraph import PgctxSaver
except ImportError as exc:  # pragma: no cover - depends on the environment
    sys.exit(f"bench_persistence needs langgraph-checkpoint-postgres: pip install -e '.[bench]' ({exc})")

RESULTS = HERE / "results" / "persistence.md"
HISTORIES = (10, 100, 1000)
GOALS = {10: 2.0, 100: 6.0, 1000: 30.0}  # pgctx turns/s over LangGraph turns/s
ISSUE_PUT_RATES = {10: 776.0, 1000: 51.5}  # put() turns/s the issue measured when it set the goals
WARMUP = 20  # untimed turns per system and history size, on threads of their own
PGCTX_DB = "pgctx_bench"
LANGGRAPH_DB = "langgraph_bench"
PGCTX_STORE_DB = "pgctx_storage"
LANGGRAPH_STORE_DB = "langgraph_storage"


# ---- realistic message text ---------------------------------------------------------------------

EN_WORDS = (
    "the a to of and in is for on with that this it as be by are from at or an will can you we "
    "order refund invoice customer shipping address delivery courier parcel tracking warehouse "
    "tomorrow afternoon morning today please check status update change cancel confirm request "
    "payment card account email phone number ticket support agent delayed arrived missing "
    "damaged replacement return label pickup window schedule policy fee discount coupon price"
).split()
ZH_PHRASES = (
    "订单 退款 发票 明天 下午 上午 送达 地址 快递 客服 查询 状态 延迟 仓库 请 帮我 确认 一下 已经 可以 "
    "修改 时间 包裹 物流 更新 取消 申请 处理 问题 谢谢 您好 我们 已为您 安排 重新 发货 退货 标签 上门 取件 "
    "优惠券 价格 运费 损坏 缺件 补发 预计 到达 联系 电话"
).split()


def message_text(rng: random.Random) -> str:
    """One chat message of ~200 characters (180-220), English and Chinese sentences mixed."""
    target = rng.randint(180, 220)
    out = ""
    while len(out) < target:
        if rng.random() < 0.35:
            out += "".join(rng.choice(ZH_PHRASES) for _ in range(rng.randint(5, 12))) + "。"
        else:
            words = [rng.choice(EN_WORDS) for _ in range(rng.randint(6, 16))]
            sentence = " ".join(words)
            out += ("" if not out or out.endswith("。") else " ") + sentence[0].upper() + sentence[1:] + "."
    return out[:target]


def texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [message_text(rng) for _ in range(count)]


# ---- the two systems ----------------------------------------------------------------------------

def pgctx_events(pairs: list[tuple[str, str]]) -> list[dict]:
    events = []
    for user, reply in pairs:
        events.append({"kind": "user", "payload": {"text": user}})
        events.append({"kind": "assistant", "payload": {"text": reply}})
    return events


def lc_messages(pairs: list[tuple[str, str]]) -> list[BaseMessage]:
    """What MessagesState holds: add_messages gives every message a uuid4 id."""
    out: list[BaseMessage] = []
    for user, reply in pairs:
        out.append(HumanMessage(content=user, id=str(uuid.uuid4())))
        out.append(AIMessage(content=reply, id=str(uuid.uuid4())))
    return out


@dataclass
class LGThread:
    """One LangGraph thread: the config of its latest checkpoint, the checkpoint, its messages."""

    config: dict
    checkpoint: dict
    messages: list
    version: str
    step: int


def lg_first(saver: BaseCheckpointSaver, thread_id: str, messages: list) -> LGThread:
    """A thread whose latest checkpoint holds ``messages`` (one put)."""
    version = saver.get_next_version(None, None)
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"messages": messages}
    checkpoint["channel_versions"] = {"messages": version}
    config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    config = saver.put(config, checkpoint, {"source": "input", "step": -1, "parents": {}}, {"messages": version})
    return LGThread(config, checkpoint, messages, version, -1)


def lg_next(saver: BaseCheckpointSaver, thread: LGThread, new: list) -> tuple[dict, dict, dict, dict]:
    """put()'s arguments for the step that appends ``new`` to the thread's messages.

    As a graph step does: a new checkpoint id (uuid6), the messages channel's next version,
    the node's versions_seen, new_versions = {"messages": version}, the parent's config.
    """
    messages = thread.messages + new
    version = saver.get_next_version(thread.version, None)
    checkpoint = create_checkpoint(thread.checkpoint, None, thread.step + 1)
    checkpoint["channel_values"] = {"messages": messages}
    checkpoint["channel_versions"] = {"messages": version}
    checkpoint["versions_seen"] = {"chatbot": {"messages": thread.version}}
    meta = {"source": "loop", "step": thread.step + 1, "parents": {}}
    return thread.config, checkpoint, meta, {"messages": version}


def lg_advance(thread: LGThread, config: dict, checkpoint: dict, new_versions: dict) -> None:
    thread.config = config
    thread.checkpoint = checkpoint
    thread.messages = checkpoint["channel_values"]["messages"]
    thread.version = new_versions["messages"]
    thread.step += 1


# ---- noise --------------------------------------------------------------------------------------

class NoiseMeter:
    """What other processes do meanwhile: CPU and disk writes of the machine minus this benchmark's own
    (its client and every process of its server, from /proc)."""

    def __init__(self, postmaster_pid: int | None = None):
        self.postmaster = postmaster_pid
        self.tick = os.sysconf("SC_CLK_TCK")
        self.disks = [d.name for d in Path("/sys/block").iterdir()
                      if not d.name.startswith(("loop", "ram", "zram", "dm-", "md"))]

    def _ours(self) -> tuple[float, int]:
        cpu, written = 0, 0
        pids = [os.getpid()]
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit() or self.postmaster is None:
                continue
            try:
                stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if self.postmaster in (int(stat[1]), int(proc.name)):
                cpu += int(stat[11]) + int(stat[12])
                pids.append(int(proc.name))
        for pid in pids:
            try:
                io = dict(line.split(": ") for line in Path(f"/proc/{pid}/io").read_text().splitlines())
                written += int(io["write_bytes"])
            except (OSError, KeyError, ValueError):
                pass
        t = os.times()
        return cpu / self.tick + t.user + t.system, written

    def _snap(self) -> tuple[float, float, float, int, int]:
        fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        busy_all = (sum(fields[:8]) - fields[3] - fields[4]) / self.tick
        written_all = 0
        for line in Path("/proc/diskstats").read_text().splitlines():
            cols = line.split()
            if cols[2] in self.disks:
                written_all += int(cols[9]) * 512
        cpu, written = self._ours()
        return time.monotonic(), busy_all, cpu, written_all, written

    def start(self) -> None:
        self.t0 = self._snap()

    def others(self) -> tuple[float, float]:
        """(CPUs, disk MB/s) used by other processes since start() (0 = quiet)."""
        t1 = self._snap()
        elapsed = t1[0] - self.t0[0]
        cpus = ((t1[1] - self.t0[1]) - (t1[2] - self.t0[2])) / elapsed
        disk = ((t1[3] - self.t0[3]) - (t1[4] - self.t0[4])) / elapsed / 1e6
        return max(0.0, cpus), max(0.0, disk)


def busy(others: tuple[float, float], max_busy: float, max_disk: float) -> bool:
    return others[0] > max_busy or others[1] > max_disk


def wait_for_quiet(meter: NoiseMeter, max_busy: float, max_disk: float, budget_s: float = 900,
                   pause: float = 20) -> float:
    """Wait (at most budget_s) until other processes use at most max_busy CPUs and write at most
    max_disk MB/s over 3 s; the seconds waited."""
    started = time.monotonic()
    while True:
        meter.start()
        time.sleep(3)
        others = meter.others()
        if not busy(others, max_busy, max_disk) or time.monotonic() - started > budget_s:
            return time.monotonic() - started
        print(f"other processes use {others[0]:.2f} CPUs and write {others[1]:.1f} MB/s: waiting {pause:.0f}s",
              file=sys.stderr, flush=True)
        time.sleep(pause)


# ---- measurement --------------------------------------------------------------------------------

@dataclass
class Side:
    name: str
    latencies: list[float] = field(default_factory=list)
    block_rates: list[float] = field(default_factory=list)
    wal_per_turn: list[float] = field(default_factory=list)

    def p(self, q: float) -> float:
        s = sorted(self.latencies)
        return s[int(q * (len(s) - 1))]

    def p50_p95_ms(self) -> str:
        """"p50 / p95" in milliseconds, as the report's tables print them."""
        return f"{self.p(0.5) * 1000:.2f} / {self.p(0.95) * 1000:.2f}"


def wal_lsn(monitor) -> int:
    return monitor.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn").fetchone()[0]


def run_block(side: Side, monitor, turns: list[Callable[[], Any]]) -> None:
    """Time each turn; one block rate = turns / summed latencies; WAL bytes per turn."""
    lsn0 = wal_lsn(monitor)
    spent = 0.0
    for turn in turns:
        prepared = turn()  # builds the arguments, untimed; returns the timed call
        t0 = time.perf_counter()
        prepared()
        elapsed = time.perf_counter() - t0
        side.latencies.append(elapsed)
        spent += elapsed
    side.block_rates.append(len(turns) / spent)
    side.wal_per_turn.append((wal_lsn(monitor) - lsn0) / len(turns))


@dataclass
class Paired:
    """What alternating block pairs measured: one Side per system, and per kept pair the ratio of
    the first system's block rate to the second's (= the second's mean latency over the first's)."""

    sides: dict[str, Side]
    ratios: list[float]
    others: list[tuple[float, float]]  # (CPUs, disk MB/s) of other processes during each kept block pair
    redone: int  # block pairs measured again because other processes were busy
    waited: float  # seconds spent waiting for a quiet machine


def alternate(names: tuple[str, str], total: int, block: int, first: int, last: int,
              calls: Callable[[range], dict[str, list[Callable[[], Callable[[], Any]]]]],
              monitor, meter: NoiseMeter, max_busy: float, max_disk: float) -> Paired:
    """Timed blocks of ``block`` calls per system, alternating (A, B, B, A, ...), until ``total``
    calls per system are kept; the calls of a pair are indices ``first``, ``first + 1``, ... below
    ``last``. ``calls(indices)`` returns, per system, one untimed preparation per index that
    returns the timed call (it may also prepare the pair, e.g. build its threads).

    A block pair during which other processes used more than ``max_busy`` CPUs (or wrote more than
    ``max_disk`` MB/s) is measured again on the next indices, after waiting for the machine to
    calm down, as long as indices are left.
    """
    sides = {name: Side(name) for name in names}
    ratios: list[float] = []
    others: list[tuple[float, float]] = []
    redone, waited, nxt = 0, 0.0, first
    while len(ratios) * block < total:
        size = min(block, total - len(ratios) * block)
        idx = range(nxt, nxt + size)
        nxt += size
        prepared = calls(idx)
        pair = {name: Side(name) for name in names}
        order = list(names) if len(ratios) % 2 == 0 else list(reversed(names))
        meter.start()
        for name in order:
            run_block(pair[name], monitor, prepared[name])
        noise = meter.others()
        if busy(noise, max_busy, max_disk) and nxt + block <= last:
            redone += 1
            print(f"  other processes used {noise[0]:.2f} CPUs and wrote {noise[1]:.1f} MB/s during a block "
                  "pair: measuring it again", file=sys.stderr, flush=True)
            waited += wait_for_quiet(meter, max_busy, max_disk)
            continue
        others.append(noise)
        for name in names:
            sides[name].latencies += pair[name].latencies
            sides[name].block_rates += pair[name].block_rates
            sides[name].wal_per_turn += pair[name].wal_per_turn
        ratios.append(pair[names[0]].block_rates[0] / pair[names[1]].block_rates[0])
    return Paired(sides, ratios, others, redone, waited)


@dataclass
class Result:
    history: int
    turns: int
    pgctx: Side
    langgraph: Side
    ratios: list[float]
    lg_blob_bytes: int
    lg_serde: str
    others: list[tuple[float, float]]  # (CPUs, disk MB/s) of other processes during each kept block pair
    redone: int  # block pairs measured again because other processes used more than max_busy CPUs
    waited: float  # seconds spent waiting for a quiet machine


def measure(history: int, turns: int, block: int, dsns: dict[str, str], monitor, seed: int,
            meter: NoiseMeter, max_busy: float, max_disk: float) -> Result:
    """Threads of H messages for each system, then alternating timed blocks of one turn per thread.

    A block pair during which other processes used more than ``max_busy`` CPUs (or wrote more than
    ``max_disk`` MB/s) is measured again
    on spare threads, after waiting for the machine to calm down (up to ``turns // 2`` spare turns).
    """
    spare = max(2 * block, turns // 2)
    count = WARMUP + turns + spare
    hist_texts = texts(history, seed)
    hist_pairs = list(zip(hist_texts[0::2], hist_texts[1::2]))
    new_texts = texts(2 * count, seed + 1)
    new_pairs = list(zip(new_texts[0::2], new_texts[1::2]))

    pc = psycopg.connect(dsns["pgctx"], autocommit=True)
    # As PostgresSaver.from_conn_string connects (its docs require autocommit and dict_row).
    lg = psycopg.connect(dsns["langgraph"], autocommit=True, prepare_threshold=0, row_factory=dict_row)
    saver = PostgresSaver(lg)
    try:
        # Pre-build, untimed: every pgctx conversation and LangGraph thread holds H messages.
        history_events = pgctx_events(hist_pairs)
        history_messages = lc_messages(hist_pairs)
        cids = [f"h{history}-c{i}" for i in range(count)]
        for cid in cids:
            pgctx.append_many(pc, cid, history_events)
        threads = [lg_first(saver, f"h{history}-t{i}", history_messages) for i in range(count)]
        serde_type, blob = saver.serde.dumps_typed(history_messages)
        serde = f"{type(saver.serde).__name__}, blob type {serde_type!r}"
        for conn, tables in ((pc, ["pgctx.events", "pgctx.conversations"]),
                             (lg, ["checkpoints", "checkpoint_blobs", "checkpoint_writes"])):
            for table in tables:
                conn.execute(f"VACUUM ANALYZE {table}")

        def pgctx_turn(i: int) -> Callable[[], Any]:
            events = pgctx_events([new_pairs[i]])
            return lambda: pgctx.append_many(pc, cids[i], events)

        def lg_turn(i: int) -> Callable[[], Any]:
            thread = threads[i]
            args = lg_next(saver, thread, lc_messages([new_pairs[i]]))

            def call() -> None:
                config = saver.put(*args)
                lg_advance(thread, config, args[1], args[3])

            return call

        waited = wait_for_quiet(meter, max_busy, max_disk)
        monitor.execute("CHECKPOINT")  # the pre-build's dirty pages are flushed before the clock starts
        scratch = Side("warm-up")
        run_block(scratch, monitor, [lambda i=i: pgctx_turn(i) for i in range(WARMUP)])
        run_block(scratch, monitor, [lambda i=i: lg_turn(i) for i in range(WARMUP)])

        paired = alternate(("pgctx", "LangGraph"), turns, block, WARMUP, count,
                           lambda idx: {"pgctx": [lambda i=i: pgctx_turn(i) for i in idx],
                                        "LangGraph": [lambda i=i: lg_turn(i) for i in idx]},
                           monitor, meter, max_busy, max_disk)

        # Sanity: every timed turn wrote what it should.
        n_events = pc.execute("SELECT count(*) FROM pgctx.events WHERE conversation_id = %s", (cids[0],)).fetchone()[0]
        assert n_events == history + 2, (n_events, history)
        row = lg.execute("SELECT count(*) AS n FROM checkpoints WHERE thread_id = %s", (f"h{history}-t0",)).fetchone()
        assert row["n"] == 2, row
        return Result(history, turns, paired.sides["pgctx"], paired.sides["LangGraph"], paired.ratios, len(blob),
                      serde, paired.others, paired.redone, waited + paired.waited)
    finally:
        pc.close()
        lg.close()


# ---- storage per thread -------------------------------------------------------------------------

PGCTX_SIZE = """
SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'pgctx' AND c.relkind IN ('r', 'p')
"""
LANGGRAPH_SIZE = """
SELECT (pg_total_relation_size('checkpoints') + pg_total_relation_size('checkpoint_blobs')
        + pg_total_relation_size('checkpoint_writes'))::bigint AS size
"""


@dataclass
class Storage:
    history: int
    threads: int
    pgctx_bytes: float
    langgraph_bytes: float
    lg_blob_raw: float  # octet_length of the thread's blobs (serialized messages lists)
    lg_blob_stored: float  # pg_column_size: after TOAST compression


def storage(history: int, threads: int, dsns: dict[str, str], seed: int) -> Storage:
    """K threads grown turn by turn to H messages; table growth / K, for each system."""
    all_texts = texts(history, seed + 2)
    pairs = list(zip(all_texts[0::2], all_texts[1::2]))
    with psycopg.connect(dsns["pgctx_store"], autocommit=True) as pc:
        before = pc.execute(PGCTX_SIZE).fetchone()[0]
        for k in range(threads):
            cid = f"store-h{history}-c{k}"
            for pair in pairs:
                pgctx.append_many(pc, cid, pgctx_events([pair]))
        pgctx_bytes = (pc.execute(PGCTX_SIZE).fetchone()[0] - before) / threads
    with psycopg.connect(dsns["langgraph_store"], autocommit=True, prepare_threshold=0, row_factory=dict_row) as lg:
        saver = PostgresSaver(lg)
        before = lg.execute(LANGGRAPH_SIZE).fetchone()["size"]
        for k in range(threads):
            thread = lg_first(saver, f"store-h{history}-t{k}", lc_messages(pairs[:1]))
            for pair in pairs[1:]:
                args = lg_next(saver, thread, lc_messages([pair]))
                lg_advance(thread, saver.put(*args), args[1], args[3])
        lg_bytes = (lg.execute(LANGGRAPH_SIZE).fetchone()["size"] - before) / threads
        blobs = lg.execute(
            "SELECT sum(octet_length(blob))::bigint AS raw, sum(pg_column_size(blob))::bigint AS stored"
            "  FROM checkpoint_blobs WHERE thread_id = %s", (f"store-h{history}-t0",)).fetchone()
    return Storage(history, threads, pgctx_bytes, lg_bytes, blobs["raw"], blobs["stored"])


# ---- LangGraph checkpointers: PgctxSaver against PostgresSaver ---------------------------------

SAVERS = ("PgctxSaver", "PostgresSaver")
SAVER_DBS = {"PgctxSaver": "saver_pgctx_bench", "PostgresSaver": "saver_postgres_bench"}
SAVER_STORE_DBS = {"PgctxSaver": "saver_pgctx_storage", "PostgresSaver": "saver_postgres_storage"}
SAVER_TABLES = {"PgctxSaver": ("pgctx.events", "pgctx.conversations"),
                "PostgresSaver": ("checkpoints", "checkpoint_blobs", "checkpoint_writes")}
SAVER_SIZE = {"PgctxSaver": PGCTX_SIZE, "PostgresSaver": LANGGRAPH_SIZE}
TASK_PATH = "~__pregel_pull, chatbot"  # a graph's task path for its node "chatbot" (task_path_str)
STEP_GOAL = 10.0  # at 1,000 messages: PostgresSaver's p50 per step over PgctxSaver's
STORAGE_GOAL = 50.0  # at 1,000 messages: PostgresSaver's storage per thread over PgctxSaver's
FLAT = 1.5  # "flat": PgctxSaver's figure at 1,000 messages at most FLAT x its figure at 10


def saver_open(name: str, dsn: str) -> tuple[psycopg.Connection, BaseCheckpointSaver]:
    """A connection opened as the saver's from_conn_string opens it, and the saver on it."""
    if name == "PgctxSaver":
        conn = psycopg.connect(dsn, autocommit=True)
        # sized for a pair's threads (block <= 127 threads of <= 1,002 messages), see measure_steps
        return conn, PgctxSaver(conn, cache_messages=128 * 1_002)
    conn = psycopg.connect(dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row)
    return conn, PostgresSaver(conn)


def scalar(conn: psycopg.Connection, sql: str, params: tuple = ()) -> Any:
    """One value, whatever row factory the connection has (PostgresSaver's is dict_row)."""
    with conn.cursor(row_factory=tuple_row) as cur:
        return cur.execute(sql, params).fetchone()[0]


def graph_step(saver: BaseCheckpointSaver, thread: LGThread, new: list) -> Callable[[], None]:
    """One step of a MessagesState graph's node appending ``new`` (a user message and the reply),
    prepared untimed; returns the timed call. The node's writes go to the parent checkpoint
    (put_writes), then put() stores the next checkpoint, whose ``messages`` is the whole list:
    the parent's list plus ``new``, the same message objects (lg_next), as add_messages keeps them
    -- PgctxSaver recognises the parent's messages by identity and writes only ``new``."""
    args = lg_next(saver, thread, new)
    task_id = str(uuid.uuid4())

    def call() -> None:
        saver.put_writes(thread.config, [("messages", new)], task_id, TASK_PATH)
        lg_advance(thread, saver.put(*args), args[1], args[3])

    return call


def vacuum_analyze(conns: dict[str, psycopg.Connection]) -> None:
    for name, conn in conns.items():
        for table in SAVER_TABLES[name]:
            conn.execute(f"VACUUM ANALYZE {table}")


@dataclass
class StepResult:
    history: int
    steps: Paired  # put_writes + put per step; ratios: PgctxSaver's block rate / PostgresSaver's
    pgctx_kinds: dict[str, int]  # events of one timed thread by kind: its build and its step


def measure_steps(history: int, steps: int, block: int, dsns: dict[str, str], monitor, seed: int,
                  meter: NoiseMeter, max_busy: float, max_disk: float) -> StepResult:
    """One timed step per thread holding H messages, the two savers in alternating blocks.

    A pair's threads are built right before it (one untimed put of H messages each) by the saver
    instance that then times their step: PgctxSaver computes a step's delta without reading when its
    cache (each thread's newest state, up to 256 threads, ``cache_messages`` messages in all) holds
    the parent, as it does in a graph (the previous step, or the get_tuple a run starts with); a
    pair leaves at most ``block`` threads pending per saver, and the cache is sized to hold them.
    Building all threads first would push the early ones out of that cache. Then VACUUM ANALYZE
    (plans for the tables as they are; autovacuum has no reason to start during the blocks) and
    CHECKPOINT (each step's first page writes carry full-page images, as in the append_many
    comparison).
    """
    spare = max(2 * block, steps // 2)
    count = WARMUP + steps + spare
    hist_texts = texts(history, seed + 3)
    history_messages = lc_messages(list(zip(hist_texts[0::2], hist_texts[1::2])))
    new_texts = texts(2 * count, seed + 4)
    new_pairs = list(zip(new_texts[0::2], new_texts[1::2]))
    opened = {name: saver_open(name, dsns[SAVER_DBS[name]]) for name in SAVERS}
    conns = {name: conn for name, (conn, _) in opened.items()}
    savers = {name: saver for name, (_, saver) in opened.items()}
    threads: dict[str, dict[int, LGThread]] = {name: {} for name in SAVERS}

    def prepare(idx: range) -> dict[str, list[Callable[[], Callable[[], None]]]]:
        for name in SAVERS:
            for i in idx:
                threads[name][i] = lg_first(savers[name], f"h{history}-t{i}", history_messages)
        vacuum_analyze(conns)
        monitor.execute("CHECKPOINT")
        return {name: [lambda name=name, i=i: graph_step(savers[name], threads[name][i], lc_messages([new_pairs[i]]))
                       for i in idx] for name in SAVERS}

    try:
        warm = prepare(range(WARMUP))
        for name in SAVERS:
            run_block(Side("warm-up"), monitor, warm[name])
        paired = alternate(SAVERS, steps, block, WARMUP, count, prepare, monitor, meter, max_busy, max_disk)

        # Sanity: the first timed thread of each saver reads back as built plus its step.
        for name in SAVERS:
            thread = threads[name][WARMUP]
            tup = savers[name].get_tuple({"configurable": {"thread_id": f"h{history}-t{WARMUP}", "checkpoint_ns": ""}})
            assert [m.id for m in tup.checkpoint["channel_values"]["messages"]] == [m.id for m in thread.messages]
            assert len(thread.messages) == history + 2, (name, len(thread.messages))
        kinds = dict(conns["PgctxSaver"].execute(
            "SELECT kind, count(*) FROM pgctx.events WHERE conversation_id = %s GROUP BY kind ORDER BY kind",
            (f"h{history}-t{WARMUP}",)).fetchall())
        return StepResult(history, paired, kinds)
    finally:
        for conn in conns.values():
            conn.close()


@dataclass
class SaverStorage:
    history: int
    threads: int
    bytes: dict[str, float]  # table growth per thread, by saver
    reads: Paired  # get_tuple of these threads' latest checkpoints; ratios: PgctxSaver's rate / PostgresSaver's


def saver_storage(history: int, threads: int, reads: int, block: int, dsns: dict[str, str], monitor, seed: int,
                  meter: NoiseMeter, max_busy: float, max_disk: float) -> SaverStorage:
    """K threads per saver grown step by step (graph_step: put_writes + put) to H messages, in a
    database holding only these threads: the growth of the saver's tables / K. Then get_tuple
    (no checkpoint_id: the latest checkpoint) of those threads, round robin, in alternating
    blocks: a thread grown turn by turn is what a graph reads, and for PgctxSaver the
    longest chain of deltas to rebuild. get_tuple always reads the database (PgctxSaver's cache
    only spares a put the read of its parent), so the savers that grew the threads time it."""
    all_texts = texts(history, seed + 5)
    pairs = list(zip(all_texts[0::2], all_texts[1::2]))
    opened = {name: saver_open(name, dsns[SAVER_STORE_DBS[name]]) for name in SAVERS}
    conns = {name: conn for name, (conn, _) in opened.items()}
    savers = {name: saver for name, (_, saver) in opened.items()}
    grown: dict[str, list[LGThread]] = {name: [] for name in SAVERS}
    try:
        sizes = {}
        for name in SAVERS:
            before = scalar(conns[name], SAVER_SIZE[name])
            for k in range(threads):
                thread = lg_first(savers[name], f"store-h{history}-t{k}", lc_messages(pairs[:1]))
                for pair in pairs[1:]:
                    graph_step(savers[name], thread, lc_messages([pair]))()
                grown[name].append(thread)
            sizes[name] = (scalar(conns[name], SAVER_SIZE[name]) - before) / threads
        vacuum_analyze(conns)

        def latest(name: str, k: int) -> Callable[[], Any]:
            config = {"configurable": {"thread_id": f"store-h{history}-t{k % threads}", "checkpoint_ns": ""}}
            return lambda: savers[name].get_tuple(config)

        paired = alternate(SAVERS, reads, block, 0, 2 * reads,
                           lambda idx: {name: [lambda name=name, k=k: latest(name, k) for k in idx] for name in SAVERS},
                           monitor, meter, max_busy, max_disk)
        for name in SAVERS:  # Sanity: what get_tuple returns is what the steps stored.
            tup = latest(name, 0)()
            assert [m.id for m in tup.checkpoint["channel_values"]["messages"]] == [m.id for m in grown[name][0].messages]
            assert len(grown[name][0].messages) == history, (name, len(grown[name][0].messages))
        return SaverStorage(history, threads, sizes, paired)
    finally:
        for conn in conns.values():
            conn.close()


# ---- report -------------------------------------------------------------------------------------

def human(n: float) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n:,.0f} B"


def rate(n: float) -> str:
    return f"{n:,.0f}" if n >= 100 else f"{n:.1f}"


def commit_floor(monitor, count: int = 200) -> float:
    """Median latency (s) of a durable one-row INSERT into a plain table: the cost of a commit here."""
    monitor.execute("CREATE TABLE IF NOT EXISTS commit_floor (id int, note text)")
    times = []
    for i in range(count):
        t0 = time.perf_counter()
        monitor.execute("INSERT INTO commit_floor VALUES (%s, %s)", (i, "x" * 200))
        times.append(time.perf_counter() - t0)
    monitor.execute("DROP TABLE commit_floor")
    return statistics.median(times)


def versions() -> str:
    out = []
    for name in ("langgraph-checkpoint-postgres", "langgraph-checkpoint", "langchain-core", "ormsgpack", "psycopg"):
        try:
            out.append(f"{name} {importlib_metadata.version(name)}")
        except importlib_metadata.PackageNotFoundError:
            pass
    return ", ".join(out)


def saver_report(steps: list[StepResult], stores: list[SaverStorage], info: dict[str, Any]) -> list[str]:
    """The section on the LangGraph checkpointers, with the issue's targets."""
    def p50(paired: Paired, name: str) -> float:
        return paired.sides[name].p(0.5)

    def step_ratio(r: StepResult) -> float:
        return p50(r.steps, "PostgresSaver") / p50(r.steps, "PgctxSaver")

    step_at = {r.history: r for r in steps}
    store_at = {s.history: s for s in stores}
    lo, hi = min(HISTORIES), max(HISTORIES)
    speedup = step_ratio(step_at[hi])
    smaller = store_at[hi].bytes["PostgresSaver"] / store_at[hi].bytes["PgctxSaver"]
    write_flat = p50(step_at[hi].steps, "PgctxSaver") / p50(step_at[lo].steps, "PgctxSaver")
    per_message = {s.history: s.bytes["PgctxSaver"] / s.history for s in stores}
    storage_flat = per_message[hi] / per_message[lo]
    lines = [
        "",
        "## LangGraph checkpointers: PgctxSaver vs PostgresSaver",
        "",
        "A step = what a `MessagesState` graph's loop writes for one turn of its node: "
        "`put_writes(parent_config, [(\"messages\", [user, assistant])], task_id, task_path)`, then "
        "`put(parent_config, checkpoint, metadata, {\"messages\": version})` with the checkpoint's `messages` the "
        "whole list (H + 2 messages of ~200 characters). Both savers in this run, in alternating blocks; p50 / p95 "
        "over every timed step; ratio = PostgresSaver's p50 / PgctxSaver's.",
        "",
        "| messages in thread | PgctxSaver step p50 / p95 ms | PostgresSaver step p50 / p95 ms | ratio "
        "| WAL per step, PgctxSaver | WAL per step, PostgresSaver |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in steps:
        pg, lg = r.steps.sides["PgctxSaver"], r.steps.sides["PostgresSaver"]
        lines.append(
            f"| {r.history:,} | {pg.p50_p95_ms()} | {lg.p50_p95_ms()} | {step_ratio(r):.1f}x "
            f"| {human(statistics.median(pg.wal_per_turn))} | {human(statistics.median(lg.wal_per_turn))} |")
    lines += [
        "",
        "Storage per thread grown step by step to H messages, and `get_tuple` (latest checkpoint) of those threads:",
        "",
        "| messages in thread | PgctxSaver | per message | PostgresSaver | PostgresSaver / PgctxSaver "
        "| get_tuple p50 / p95 ms, PgctxSaver | get_tuple p50 / p95 ms, PostgresSaver | get_tuple ratio "
        "| threads measured |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in stores:
        pg, lg = s.reads.sides["PgctxSaver"], s.reads.sides["PostgresSaver"]
        lines.append(
            f"| {s.history:,} | {human(s.bytes['PgctxSaver'])} | {human(per_message[s.history])} "
            f"| {human(s.bytes['PostgresSaver'])} | {s.bytes['PostgresSaver'] / s.bytes['PgctxSaver']:.1f}x "
            f"| {pg.p50_p95_ms()} | {lg.p50_p95_ms()} "
            f"| {lg.p(0.5) / pg.p(0.5):.2f}x | {s.threads} |")
    lines += [
        "",
        f"Targets, at {hi:,} messages, measured in this run:",
        "",
        f"- per-step checkpoint write (put_writes + put) >= {STEP_GOAL:g}x faster than PostgresSaver: "
        f"{speedup:.1f}x, {met(speedup >= STEP_GOAL)}",
        f"- storage per thread >= {STORAGE_GOAL:g}x smaller: {smaller:.1f}x, {met(smaller >= STORAGE_GOAL)}",
        f"- per-step write flat from {lo} to {hi:,} messages (PgctxSaver's p50 at {hi:,} / at {lo}, at most "
        f"{FLAT:g}x): {write_flat:.2f}x, {met(write_flat <= FLAT)}",
        f"- storage flat (PgctxSaver's bytes per message at {hi:,} / at {lo}, at most {FLAT:g}x): "
        f"{storage_flat:.2f}x, {met(storage_flat <= FLAT)}",
        "",
        "### Method",
        "",
        f"- `PgctxSaver(conn)` (pgctx.integrations.langgraph) on an autocommit connection, as "
        "`PgctxSaver.from_conn_string` opens one, in a database migrated with `pgctx.migrate`; `PostgresSaver(conn)` "
        "on a connection opened as in the comparison above, in a database set up by `.setup()`. Each saver in its "
        f"own database of the server above (`{SAVER_DBS['PgctxSaver']}`, `{SAVER_DBS['PostgresSaver']}`; storage "
        f"and get_tuple: `{SAVER_STORE_DBS['PgctxSaver']}`, `{SAVER_STORE_DBS['PostgresSaver']}`).",
        "- A step's arguments are built before the clock starts, as the comparison above builds put()'s (a uuid6 "
        "checkpoint id, the next version from the saver's `get_next_version`, versions_seen of the node, metadata "
        "`{\"source\": \"loop\", \"step\": n, \"parents\": {}}`), plus a uuid4 task id and the task path "
        f"`{TASK_PATH}`; the new list is the parent's list + the two new messages, the same message objects, "
        "as add_messages leaves them: PgctxSaver compares the parent's messages with the new list (by identity "
        "first) and writes only what was added.",
        f"- Steps: {info['steps']} timed steps per saver and history size in alternating blocks of {info['block']}, "
        f"after {WARMUP} untimed warm-up steps each; one step per thread, every thread holding exactly H messages "
        "(built by one put of H messages). A pair's threads are built right before it by the saver instance that "
        "then times their step: PgctxSaver finds the parent in its cache (each thread's newest state; 256 threads, "
        "sized here to 128 x 1,002 messages), as in a graph (the previous step, or the get_tuple a run starts "
        "with); built all at once, the "
        "early threads would have left the cache. Before each pair: VACUUM ANALYZE of the savers' tables and a "
        "CHECKPOINT (full-page images on each step's first writes, as above).",
        "- What one timed thread holds after its build and step, PgctxSaver events by kind: "
        + "; ".join(f"H={r.history}: " + ", ".join(f"{k} {n}" for k, n in r.pgctx_kinds.items()) for r in steps)
        + ". PostgresSaver's step writes one checkpoint_writes row (the two messages), one checkpoint_blobs row "
        "(the whole list, serialized) and one checkpoints row.",
        "- Storage: K threads per saver and H in a database holding only these threads, each grown from a put of "
        "its first 2 messages by H/2 - 1 steps as above; the growth of pg_total_relation_size (heap + TOAST + "
        "indexes) of every table of schema pgctx (pgctx.events, pgctx.conversations, ...) resp. checkpoints + "
        "checkpoint_blobs + checkpoint_writes, divided by K. PostgresSaver keeps every checkpoint's blob.",
        f"- get_tuple: {info['reads']} calls per saver and H, `get_tuple({{thread_id, checkpoint_ns}})` (no "
        "checkpoint_id: the latest checkpoint) of the storage threads round robin, in alternating blocks after a "
        "VACUUM ANALYZE; both return the thread's H messages (checked). A get_tuple always reads the database.",
        f"- \"Flat\" is this benchmark's reading of the issue: at most {FLAT:g}x from {lo} to {hi:,} messages "
        "(100x the history).",
        "- LangGraph's opt-in `DeltaChannel` (beta in langgraph 1.2) is not used: MessagesState's `messages` is the "
        "default add_messages channel, which PostgresSaver stores whole at every step.",
        "- Noise, as above: block pairs redone, steps: " + ", ".join(f"H={r.history}: {r.steps.redone}" for r in steps)
        + "; get_tuple: " + ", ".join(f"H={s.history}: {s.reads.redone}" for s in stores)
        + "; other processes during the kept pairs, max CPUs / MB/s written: "
        + ", ".join(f"H={r.history}: {max(o[0] for o in r.steps.others):.2f} / {max(o[1] for o in r.steps.others):.1f}"
                    for r in steps)
        + f"; waited {sum(r.steps.waited for r in steps) + sum(s.reads.waited for s in stores):.0f} s for quiet.",
        "- PostgresSaver / PgctxSaver per block pair (ratio of mean step latencies, min-max): " + "; ".join(
            f"H={r.history}: {min(r.steps.ratios):.1f}-{max(r.steps.ratios):.1f}x" for r in steps) + ".",
    ]
    if any(busy(o, info["max_busy"], info["max_disk"]) for r in [*(x.steps for x in steps), *(x.reads for x in stores)]
           for o in r.others):
        lines.append("- **The machine stayed busy** during some kept block pairs of this section (spare threads ran "
                     "out); rerun on a quiet machine before quoting these figures.")
    return lines


def report(results: list[Result], stores: list[Storage], saver_steps: list[StepResult],
           saver_stores: list[SaverStorage], info: dict[str, Any]) -> str:
    lines = [
        "# Per-turn persistence: pgctx vs LangGraph's PostgresSaver.put()",
        "",
        f"`{info['command']}`",
        "",
        f"{info['date']}; {info['machine']}.",
        "",
        "A turn = a user message + the assistant's reply (2 messages of ~200 characters). Throughput is the median "
        "over alternating blocks; the speedup is the median of the per-block-pair ratios pgctx / LangGraph.",
        "",
        "| history (messages) | pgctx turns/s | LangGraph turns/s | speedup | goal | pgctx p50 / p95 ms "
        "| LangGraph p50 / p95 ms | WAL per turn, pgctx | WAL per turn, LangGraph |",
        "|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for r in results:
        speedup = statistics.median(r.ratios)
        goal = GOALS.get(r.history)
        verdict = "—" if goal is None else (f">= {goal:g}x met" if speedup >= goal else f">= {goal:g}x **MISSED**")
        lines.append(
            f"| {r.history:,} | {rate(statistics.median(r.pgctx.block_rates))} "
            f"| {rate(statistics.median(r.langgraph.block_rates))} | {speedup:.1f}x | {verdict} "
            f"| {r.pgctx.p50_p95_ms()} | {r.langgraph.p50_p95_ms()} "
            f"| {human(statistics.median(r.pgctx.wal_per_turn))} | {human(statistics.median(r.langgraph.wal_per_turn))} |"
        )
    lines += [
        "",
        "Storage per thread holding H messages, grown turn by turn (H/2 turns):",
        "",
        "| messages in thread | pgctx | LangGraph | LangGraph / pgctx | LangGraph blobs, serialized / stored | threads measured |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for s in stores:
        lines.append(
            f"| {s.history:,} | {human(s.pgctx_bytes)} | {human(s.langgraph_bytes)} "
            f"| {s.langgraph_bytes / s.pgctx_bytes:.1f}x | {human(s.lg_blob_raw)} / {human(s.lg_blob_stored)} "
            f"| {s.threads} |"
        )
    lines += [
        "",
        "## Method",
        "",
        f"- {info['server']}; {info['versions']}. Both systems on one server, one run, "
        f"databases `{PGCTX_DB}` and `{LANGGRAPH_DB}` (storage: `{PGCTX_STORE_DB}`, `{LANGGRAPH_STORE_DB}`); "
        "one connection per system, as a client uses it; the benchmark connects as the postgres superuser.",
        f"- {info['turns']} timed turns per system and history size, in alternating blocks of {info['block']} "
        f"(pgctx, LangGraph, LangGraph, pgctx, ...), after {WARMUP} untimed warm-up turns each; every timed "
        "turn goes to its own thread pre-built with exactly H messages, so the history is H for every turn. "
        "Only the call is timed (append_many / put); messages and checkpoints are built before.",
        "- pgctx turn: `pgctx.append_many(conn, conversation_id, [user, assistant])` on an autocommit connection, "
        "payloads `{\"text\": ...}`: one statement, one transaction, the hash chain computed by the database; "
        f"{info['pgctx_append']}",
        "- LangGraph turn: `PostgresSaver(conn).put(parent_config, checkpoint, metadata, {\"messages\": version})` "
        "on a connection opened as `PostgresSaver.from_conn_string` opens it (autocommit, prepare_threshold=0, "
        "dict_row); `channel_values[\"messages\"]` is the whole list of langchain-core `HumanMessage`/`AIMessage` "
        "objects (content + uuid4 id, as add_messages leaves them), H + 2 after the turn. "
        f"put() serializes it with its default serializer ({results[0].lg_serde}) and upserts one checkpoint_blobs row "
        "(the whole list) plus one checkpoints row, in one pipeline = one transaction. Serialized list of H messages: "
        + ", ".join(f"H={r.history}: {human(r.lg_blob_bytes)}" for r in results) + ".",
        "- A real LangGraph turn costs LangGraph more than this: a graph run writes a checkpoint for the input step "
        "and one per superstep (each rewriting `messages` when it changed), plus put_writes() rows; here a turn is "
        "a single put(). AIMessages from a model also carry response and usage metadata, omitted here.",
        "- WAL per turn: pg_current_wal_lsn() growth over a block / its turns (one system writes at a time). It "
        "includes full-page images: the timed blocks start right after a CHECKPOINT and every turn touches another "
        "thread's index pages, as in a service with many active conversations.",
        f"- For scale: a durable one-row INSERT commit into a plain table takes {info['floor'] * 1000:.2f} ms "
        "(median) on this server. The goals ask pgctx for at most "
        + ", ".join(f"{1000 / (statistics.median(r.langgraph.block_rates) * GOALS[r.history]):.2f} ms"
                    for r in results if r.history in GOALS)
        + " per turn at H = " + ", ".join(str(r.history) for r in results if r.history in GOALS)
        + " here (1 / (LangGraph turns/s x goal)). The issue set the goals against put() at "
        + ", ".join(f"{v:g}/s (H={h})" for h, v in ISSUE_PUT_RATES.items()) + "; this run measured "
        + ", ".join(f"{rate(statistics.median(r.langgraph.block_rates))}/s (H={r.history})"
                    for r in results if r.history in ISSUE_PUT_RATES) + ".",
        "- Storage: in a database holding only these threads, K threads per H grown to H messages turn by turn "
        "(pgctx: H/2 append_many calls of 2 events; LangGraph: one put of the first 2 messages, then H/2 - 1 "
        "puts, each rewriting the whole list); the figure is the growth of pg_total_relation_size (heap + TOAST + "
        "all indexes) of pgctx's tables (schema pgctx: events, conversations, ...) resp. checkpoints + "
        "checkpoint_blobs + checkpoint_writes, divided by K. LangGraph keeps every checkpoint's blob (no pruning); "
        "blobs 'serialized / stored' = octet_length vs pg_column_size (after TOAST compression) of one thread's blobs.",
        "- Noise: the benchmark watches what other processes do (machine CPU time and disk writes minus its "
        "client's and its server's, from /proc/stat, /proc/diskstats and /proc/PID/io) and waits until they use at "
        f"most {info['max_busy']:g} CPUs and write at most {info['max_disk']:g} MB/s before timing; a block pair "
        "during which they did more is measured again on spare threads. Block pairs redone: "
        + ", ".join(f"H={r.history}: {r.redone}" for r in results)
        + "; other processes during the kept pairs, max CPUs / MB/s written: "
        + ", ".join(f"H={r.history}: {max(o[0] for o in r.others):.2f} / {max(o[1] for o in r.others):.1f}"
                    for r in results)
        + f" (of {os.cpu_count()} CPUs); waited {info['waited_start'] + sum(r.waited for r in results):.0f} s for "
        f"quiet; {info['duration']}.",
    ]
    if any(busy(o, info["max_busy"], info["max_disk"]) for r in results for o in r.others):
        lines.append("- **The machine stayed busy**: some kept block pairs ran while other processes used more than "
                     "the limits above (spare threads ran out); rerun on a quiet machine before quoting these "
                     "figures.")
    if info.get("note"):
        lines.append(f"- {info['note']}")
    lines.append("- Speedup per block pair (min-max): " + "; ".join(
        f"H={r.history}: {min(r.ratios):.1f}-{max(r.ratios):.1f}x" for r in results) + ".")
    lines += saver_report(saver_steps, saver_stores, info)
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="200 turns, 100 saver steps and 50 get_tuple calls per history size, and fewer "
                             "storage threads (default 1000, 500, 200)")
    parser.add_argument("--turns", type=int, help="timed turns per system and history size")
    parser.add_argument("--steps", type=int, help="timed checkpointer steps per saver and history size")
    parser.add_argument("--reads", type=int, help="timed get_tuple calls per saver and history size")
    parser.add_argument("--block", type=int, default=50,
                        help="turns (steps, get_tuple calls) per alternating block (default 50; below 128, so a "
                             "pair's threads stay in PgctxSaver's cache of 256 threads)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-busy", type=float, default=0.25,
                        help="CPUs other processes may use: the benchmark waits (at most 15 min) for a machine "
                             "that quiet before timing, and measures a block pair again when they used more "
                             "(default 0.25)")
    parser.add_argument("--max-disk", type=float, default=2.0,
                        help="disk writes (MB/s) other processes may make, likewise (default 2)")
    parser.add_argument("--note", help="a line added to the report (e.g. what else ran on the machine)")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"where to write the report (default {RESULTS})")
    args = parser.parse_args()
    turns = args.turns or (200 if args.quick else 1000)
    store_turns = 400 if args.quick else 1000  # per history size and system, K = turns / (H/2)
    steps = args.steps or (100 if args.quick else 500)
    reads = args.reads or (50 if args.quick else 200)
    store_steps = 400 if args.quick else 2000  # per history size and saver, K = steps / (H/2)
    if not 0 < args.block < 128:
        parser.error("--block must be between 1 and 127")

    started = time.time()
    waited_start = wait_for_quiet(NoiseMeter(), args.max_busy, args.max_disk)
    server = EmbeddedPostgres(fsync=True)
    try:
        admin_dsn = server.superuser_dsn("postgres")
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            for db in (PGCTX_DB, LANGGRAPH_DB, PGCTX_STORE_DB, LANGGRAPH_STORE_DB, *SAVER_DBS.values(),
                       *SAVER_STORE_DBS.values()):
                admin.execute(f"CREATE DATABASE {db}")
        dsns = {"pgctx": server.superuser_dsn(PGCTX_DB), "langgraph": server.superuser_dsn(LANGGRAPH_DB),
                "pgctx_store": server.superuser_dsn(PGCTX_STORE_DB),
                "langgraph_store": server.superuser_dsn(LANGGRAPH_STORE_DB)}
        dsns.update({db: server.superuser_dsn(db) for db in (*SAVER_DBS.values(), *SAVER_STORE_DBS.values())})
        for key in ("pgctx", "pgctx_store", SAVER_DBS["PgctxSaver"], SAVER_STORE_DBS["PgctxSaver"]):
            pgctx.migrate(dsns[key])
        for key in ("langgraph", "langgraph_store", SAVER_DBS["PostgresSaver"], SAVER_STORE_DBS["PostgresSaver"]):
            with psycopg.connect(dsns[key], autocommit=True, prepare_threshold=0, row_factory=dict_row) as conn:
                PostgresSaver(conn).setup()

        with psycopg.connect(admin_dsn, autocommit=True) as monitor:
            settings = dict(monitor.execute(
                "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', "
                "'wal_sync_method', 'shared_buffers', 'full_page_writes', 'max_wal_size', 'block_size')").fetchall())
            pg_version = monitor.execute("SHOW server_version").fetchone()[0]
            assert settings["fsync"] == "on" and settings["synchronous_commit"] == "on", settings
            with psycopg.connect(dsns["pgctx"]) as pc:
                token_cols = [r[0] for r in pc.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_schema = 'pgctx' "
                    "AND table_name = 'events' AND column_name ILIKE '%token%'").fetchall()]

            floor = commit_floor(monitor)
            results = []
            meter = NoiseMeter(server.server_pid)
            for history in HISTORIES:
                print(f"history {history}: {turns} turns per system ...", file=sys.stderr, flush=True)
                results.append(measure(history, turns, args.block, dsns, monitor, args.seed, meter, args.max_busy,
                                       args.max_disk))
            stores = []
            for history in HISTORIES:
                threads = max(1, store_turns // (history // 2))
                print(f"storage, {history} messages: {threads} threads per system ...", file=sys.stderr, flush=True)
                stores.append(storage(history, threads, dsns, args.seed))
            saver_steps = []
            for history in HISTORIES:
                print(f"checkpointers, history {history}: {steps} steps per saver ...", file=sys.stderr, flush=True)
                saver_steps.append(measure_steps(history, steps, args.block, dsns, monitor, args.seed, meter,
                                                 args.max_busy, args.max_disk))
            saver_stores = []
            for history in HISTORIES:
                threads = max(1, store_steps // (history // 2))
                print(f"checkpointers, storage and get_tuple, {history} messages: {threads} threads per saver ...",
                      file=sys.stderr, flush=True)
                saver_stores.append(saver_storage(history, threads, reads, args.block, dsns, monitor, args.seed,
                                                  meter, args.max_busy, args.max_disk))
    finally:
        server.stop()

    info = {
        "command": shlex.join(["python", "bench/bench_persistence.py", *sys.argv[1:]]),
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{cpu_model()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
                   f"Python {platform.python_version()}",
        "server": (f"PostgreSQL {pg_version} (pgctx.embedded), fsync={settings['fsync']}, "
                   f"synchronous_commit={settings['synchronous_commit']}, wal_sync_method={settings['wal_sync_method']}, "
                   f"full_page_writes={settings['full_page_writes']}, shared_buffers={int(settings['shared_buffers']) * int(settings['block_size']) // (1 << 20)} MB, "
                   f"max_wal_size={settings['max_wal_size']} MB"),
        "versions": f"pgctx at {code_state()}; {versions()}",
        "turns": turns,
        "steps": steps,
        "reads": reads,
        "block": args.block,
        "pgctx_append": (f"per-event token counts are computed by append_many (pgctx.events columns {', '.join(token_cols)}) "
                         "and are part of the timed call." if token_cols else
                         "this pgctx.append_many computes no per-event token counts (pgctx.events has no token column)."),
        "waited_start": waited_start,
        "max_busy": args.max_busy,
        "max_disk": args.max_disk,
        "duration": f"total {time.time() - started:.0f} s",
        "note": args.note,
        "floor": floor,
    }
    text = report(results, stores, saver_steps, saver_stores, info)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)


if __name__ == "__main__":
    main()
