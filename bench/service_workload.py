"""A service's load under chaos, and the checks that prove nothing acknowledged was lost (issue 15).

Shared by ``bench/bench_service.py`` (the benchmark: 50 workers, 500 conversations, up to
100,000 turns, against LangGraph's PostgresSaver) and ``tests/test_chaos.py`` (a short run in
the test suite). Run as ``python bench/service_workload.py worker PLAN_JSON`` it is one worker
process; imported, :func:`run` drives a whole run and :func:`check_pgctx` checks what it left.

**Workers** are threads in worker processes (``layout``: threads per process, e.g. 10 processes
of one thread and 4 of ten), each with its own connection. A worker takes turns on conversations
picked at random, so two workers sometimes serve one conversation at once. A pgctx turn is what
an agent loop does:

1. append the user message;
2. ``pgctx.build_context`` (over budget: a forced fold, then once more);
3. append the tool call (idempotency key, event key = call id) *before* running the tool, run
   it (a sleep of 50-200 ms: the tool's service call), append its result;
4. append the assistant reply;
5. ``pgctx.fold`` (it folds only when the policy says a fold is due) with the built-in
   summarizer, a slow one (it sleeps first: a model call in flight) or a failing one (it raises).

Every append has an event key, so a worker that lost its connection, or whose statement timed
out, retries it and gets the original seq if the first attempt committed. After each
acknowledged append, fold and recovery the worker writes one JSON line to its slot's log with one
``write()`` (a SIGKILL cannot undo a finished write: the kernel has it), so the check knows
every acknowledgement a client received. A worker restarted after a kill first runs
``pgctx.recover`` on the conversation its log shows it was in the middle of, as a service does.

**Chaos** (one thread of the driver, its rates in turns: :class:`Chaos`): SIGKILL of random
worker processes that are taking turns (restarted after a moment), ``pg_terminate_backend`` of
random worker sessions, and a ``statement_timeout`` of a few milliseconds set on random workers'
sessions for a few seconds (the driver writes it to the worker's control file; the worker
applies it to its session with ``set_config`` before its next turn, and again after a reconnect).

**Checks** (:func:`check_pgctx`, with every worker stopped): every chain verifies, no seq gap,
every acknowledged append present as acknowledged (seq, kind, event key, payload digest), every
acknowledged fold committed, folds tile the history once (versions without a gap, each committed
fold continuing the previous one, the fold head the last of them), every interrupted tool call
(no result recorded) ``running`` or ``unknown`` and never guessed; then ``pgctx.recover`` on every
conversation: nothing left PREPARED, every interrupted call ``unknown`` with its idempotency key
and listed by the report and by the side-effects query ``pgctx.reconcile`` asks about; the chain
and the folds checked again; a second recover changes nothing.

The same workers can run LangGraph's PostgresSaver instead (``phase="langgraph"``): per turn a
``get_tuple`` of the thread, the same tool call (sleep), and one ``put`` of a checkpoint holding
its message list plus the turn's four messages (:func:`check_langgraph` checks what it can).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _path in (str(ROOT), str(HERE)):  # pgctx, and bench_persistence's helpers for the baseline
    if _path not in sys.path:
        sys.path.insert(0, _path)

import psycopg  # noqa: E402

import pgctx  # noqa: E402
from pgctx import db  # noqa: E402
from pgctx.canonical import canonical_json  # noqa: E402
from pgctx.errors import ContextOverBudget, SummarizerFailed  # noqa: E402

APP_NAME = "pgctx-svc"  # application_name prefix of worker sessions: what the chaos terminates
ATTEMPTS = 5  # tries per step (reconnecting or after a timeout) before the turn is given up
STOP_GRACE = 60  # seconds a worker has to finish its turn once asked to stop

# Errors the chaos causes, by the exception's class name, and what causes them. Anything else a
# worker meets is unexpected (reported, and the test fails on it).
EXPECTED = {
    "AdminShutdown": "pg_terminate_backend of the session (57P01)",
    "OperationalError": "the session was terminated: the connection is lost",
    "QueryCanceled": "statement_timeout set on the session (57014)",
    "SummarizerFailed": "the failing summarizer raised (nothing is prepared)",
    "ContextOverBudget": "the context outgrew the budget while the conversation's folds failed (timeouts, "
                         "terminations, kills, the failing summarizer): the worker forces a fold and builds it again",
}

# The working context's budget, less its window (Plan.window): small, so that folds come every few
# turns (a turn is ~300 tokens).
BUDGET = dict(fixed_input=300, output=800, margin=300)
SYSTEM = "You are the order desk's agent. Use the tools; never guess an outcome."


@dataclass
class Chaos:
    """Mean turns between chaos actions (exponentially distributed; None: never). Counted in
    turns, not seconds, so that a faster system meets the same chaos per turn as a slower one."""

    kill_every: float | None = 250
    terminate_every: float | None = 40
    timeout_every: float | None = 80
    restart_delay: tuple[float, float] = (0.2, 1.0)  # a killed process comes back after this
    timeout_ms: tuple[int, ...] = (1, 2, 5, 10, 20)  # statement_timeout values set
    timeout_for: tuple[float, float] = (1.0, 4.0)  # seconds a timeout stays set


@dataclass
class Plan:
    """One run: which system, where, how many workers and conversations, for how long."""

    phase: str  # "pgctx" or "langgraph"
    dsn: str  # the workers' connection string (pgctx: an application role)
    admin_dsn: str  # a superuser's, same database: the chaos and the checks
    run_dir: str
    layout: list[int] = field(default_factory=lambda: [1] * 10 + [10] * 4)  # threads per process
    conversations: int = 500
    turns: int | None = None  # stop after this many turns in all ...
    seconds: float | None = None  # ... or this long after every worker has started, whichever comes first
    chaos: Chaos | None = field(default_factory=Chaos)
    seed: int = 15
    window: int = 4_096  # the model's context window: B = window - 1,400 tokens
    slow_share: float = 0.15  # summarizer mix when a fold is due: slow (sleeps), failing (raises),
    failing_share: float = 0.08  # and the built-in one for the rest
    slow_seconds: tuple[float, float] = (0.1, 0.6)
    tool_seconds: tuple[float, float] = (0.05, 0.2)  # a tool's service call: a kill may land in it

    @property
    def workers(self) -> int:
        return sum(self.layout)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Plan:
        raw = json.loads(text)
        chaos = raw.pop("chaos")
        return cls(**raw, chaos=Chaos(**{k: tuple(v) if isinstance(v, list) else v for k, v in chaos.items()})
                   if chaos else None)


def conversation_ids(plan: Plan) -> list[str]:
    return [f"svc-{n:04d}" for n in range(plan.conversations)]


def digest(payload: dict) -> str:
    """What an acknowledgement records of a payload: SHA-256 of its canonical form (the same bytes
    the database's pgctx.canonical_text gives; see DIGEST_SQL)."""
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()[:16]


DIGEST_SQL = "left(encode(sha256(convert_to(pgctx.canonical_text(e.payload), 'UTF8')), 'hex'), 16)"


# ---- what a turn says --------------------------------------------------------------------------

TOOLS = (("lookup_order", "read"), ("update_delivery", "write"), ("open_ticket", "write"))
ASKS = ("where is order {o}? 我的包裹还没到，请帮我查询一下物流状态。",
        "please move the delivery of order {o} to {d}, 明天下午不在家。",
        "order {o} arrived damaged — open a ticket for a replacement, 谢谢。",
        "can you check whether order {o} is still on schedule for {d}? The customer called again.")
REPLIES = ("Order {o}: {r}. 已为您处理，如有问题请随时联系。",
           "Done for order {o} ({r}); I will keep an eye on the courier until {d}.",
           "I could not finish that for order {o}: {r}. 请稍后再试，或者联系客服。")


class Content:
    """The words and tool calls of turns: a few orders per conversation, so identifiers repeat."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def order(self, cid: str) -> str:
        return f"{10_000 + int(cid.rsplit('-', 1)[1]) * 7 + self.rng.randint(0, 4)}"

    def date(self) -> str:
        return f"2026-09-{self.rng.randint(1, 28):02d}"

    def user(self, order: str) -> dict:
        return {"text": self.rng.choice(ASKS).format(o=order, d=self.date())}

    def call(self, turn: str, order: str) -> dict:
        tool, effect = self.rng.choice(TOOLS)
        arguments = {"order_id": order} if effect == "read" else {"order_id": order, "date": self.date()}
        return {"tool": tool, "call_id": f"call-{turn}", "idempotency_key": f"idem-{turn}",
                "arguments": arguments, "effect": effect}

    def result(self, call: dict) -> dict:
        if self.rng.random() < 0.1:
            return {"call_id": call["call_id"], "outcome": "failed", "error": "rejected: the courier is closed"}
        return {"call_id": call["call_id"], "outcome": "succeeded", "request_id": f"req-{call['call_id'][5:]}",
                "data": {"status": self.rng.choice(["in transit", "delivered", "rescheduled"]), "eta": self.date()}}

    def reply(self, order: str, result: dict) -> dict:
        said = result.get("request_id") or result.get("error")
        return {"text": self.rng.choice(REPLIES).format(o=order, r=said, d=self.date())}


class SlowSummarizer:
    """The built-in summarizer behind a model call that takes a while (the worker may die in it)."""

    id = "bench/slow-builtin"

    def __init__(self, seconds: float):
        self.seconds = seconds

    def summarize(self, request: pgctx.FoldRequest) -> Any:
        time.sleep(self.seconds)
        return pgctx.BuiltinSummarizer().summarize(request)


class FailingSummarizer:
    """A model that is down: fold() must prepare nothing and say so (SummarizerFailed)."""

    id = "bench/failing"

    def summarize(self, request: pgctx.FoldRequest) -> Any:
        raise RuntimeError("model unavailable")


# ---- one worker ----------------------------------------------------------------------------------

class SlotLog:
    """A worker slot's log: one JSON line per write() (O_APPEND). A SIGKILL cannot undo a finished
    write; a line torn by a kill in mid-write is closed with a newline by the next process of the
    slot and skipped by :func:`read_log` (what it recorded counts as never acknowledged)."""

    def __init__(self, path: Path):
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        size = os.fstat(self.fd).st_size
        if size and os.pread(self.fd, 1, size - 1) != b"\n":
            os.write(self.fd, b"\n")

    def __call__(self, *record: Any) -> None:
        os.write(self.fd, (json.dumps(record, separators=(",", ":")) + "\n").encode())


class GiveUp(Exception):
    """A step failed ATTEMPTS times: the turn is abandoned (as a service answers the user with an
    error); what was acknowledged before stays acknowledged."""


class Worker:
    """One worker thread: its connection, its log, its turns."""

    def __init__(self, plan: Plan, slot: int, gen: int):
        self.plan, self.slot, self.gen = plan, slot, gen
        self.rng = random.Random(f"{plan.seed}/{plan.phase}/{slot}/{gen}")
        self.content = Content(self.rng)
        run = Path(plan.run_dir)
        self.log_path, self.control, self.stop_file = run / f"slot-{slot}.log", run / f"ctl-{slot}", run / "stop"
        self.conversations = conversation_ids(plan)
        self.budget = pgctx.Budget(window=plan.window, **BUDGET)
        self.conn: Any = None
        self.op = "start"  # the step under way, to label an unexpected error
        self.timeout_ms, self.applied_ms, self.control_mtime = 0, 0, None

    # -- connection, statement timeout, retries --

    def connect(self) -> None:
        while True:
            try:
                self.conn = self.open()
                self.applied_ms = 0
                return
            except psycopg.OperationalError as exc:
                self.log("E", "connect", type(exc).__name__)
                time.sleep(0.05)

    def open(self) -> Any:
        return psycopg.connect(self.plan.dsn, autocommit=True, application_name=f"{APP_NAME}-{self.slot}")

    def read_control(self) -> None:
        """The statement_timeout the chaos set for this slot (its control file), applied to the session."""
        try:
            mtime = self.control.stat().st_mtime_ns
            if mtime != self.control_mtime:
                self.control_mtime, self.timeout_ms = mtime, int(self.control.read_text() or 0)
        except (FileNotFoundError, ValueError):  # not written yet, or being rewritten: next turn
            pass
        if self.timeout_ms != self.applied_ms:
            self.step("set_timeout", lambda: self.conn.execute(
                "SELECT set_config('statement_timeout', %s, false)", (str(self.timeout_ms),)), timed=False)
            self.applied_ms = self.timeout_ms

    def step(self, op: str, action: Callable[[], Any], timed: bool = True) -> Any:
        """Run ``action`` (idempotent: appends carry event keys) until it succeeds; a lost
        connection is reopened, a statement timeout tried again (ATTEMPTS times in all)."""
        self.op = op
        for _ in range(ATTEMPTS):
            started = time.perf_counter()
            try:
                value = action()
            except psycopg.OperationalError as exc:  # terminated (57P01, lost connection) or timed out (57014)
                self.log("E", op, type(exc).__name__)
                if self.conn.closed or self.conn.broken:
                    self.connect()
                    if op != "set_timeout":
                        self.read_control()  # the new session has no timeout yet: apply the chaos's
                        self.op = op
                continue
            self.last_ms = round((time.perf_counter() - started) * 1000, 3)  # the attempt that succeeded
            if timed:
                self.log("O", op, self.last_ms)
            return value
        raise GiveUp(op)

    # -- the loop --

    def run(self) -> None:
        self.log = SlotLog(self.log_path)
        in_flight = last_open_turn(self.log_path)  # read before this run's first line
        self.log("S", self.slot, self.gen, os.getpid())
        self.connect()
        if in_flight and self.plan.phase == "pgctx":
            self.recover(in_flight)
        number = 0
        while not self.stop_file.exists():
            number += 1
            turn, cid = f"{self.slot}.{self.gen}.{number}", self.rng.choice(self.conversations)
            self.log("B", turn, cid)
            started = time.perf_counter()
            try:
                self.read_control()
                (self.pgctx_turn if self.plan.phase == "pgctx" else self.langgraph_turn)(turn, cid)
                outcome = "ok"
            except GiveUp as exc:
                outcome = f"abandoned in {exc}"
            except Exception as exc:  # unexpected: reported with its type and step, and the loop goes on
                self.log("E", self.op, type(exc).__name__)
                outcome = f"abandoned: {type(exc).__name__}"
            self.log("T", turn, round((time.perf_counter() - started) * 1000, 3), outcome)

    def recover(self, cid: str) -> None:
        """After a restart: recover the conversation the killed worker was in the middle of."""
        report = self.step("recover", lambda: pgctx.recover(self.conn, cid))
        self.log("R", cid, [p["action"] for p in report["prepared"]], report["recovery_event_seq"],
                 len(report["unknown_side_effects"]))

    # -- a pgctx turn --

    def append(self, op: str, cid: str, kind: str, payload: dict, key: str) -> int:
        seq = self.step(op, lambda: pgctx.append(self.conn, cid, kind, payload, event_key=key), timed=False)
        self.log("A", cid, seq, kind, key, digest(payload), self.last_ms)
        return seq

    def pgctx_turn(self, turn: str, cid: str) -> None:
        order = self.content.order(cid)
        self.append("append user", cid, "user", self.content.user(order), f"{turn}:u")
        self.context(cid)
        call = self.content.call(turn, order)
        self.append("append tool_call", cid, "tool_call", call, call["call_id"])
        time.sleep(self.rng.uniform(*self.plan.tool_seconds))  # the tool acts: its service has the key
        result = self.content.result(call)
        self.append("append tool_result", cid, "tool_result", result, f"{call['call_id']}:result")
        self.append("append assistant", cid, "assistant", self.content.reply(order, result), f"{turn}:a")
        self.fold(cid, self.summarizer())

    def context(self, cid: str) -> None:
        def build() -> Any:
            return pgctx.build_context(self.conn, cid, budget=self.budget, system=SYSTEM)

        try:
            self.step("build_context", build)
        except ContextOverBudget:  # the remedy is a fold, not a trim
            self.log("E", "build_context", "ContextOverBudget")
            self.fold(cid, pgctx.BuiltinSummarizer(), force=True)
            self.step("build_context", build)

    def summarizer(self) -> Any:
        pick = self.rng.random()
        if pick < self.plan.failing_share:
            return FailingSummarizer()
        if pick < self.plan.failing_share + self.plan.slow_share:
            return SlowSummarizer(self.rng.uniform(*self.plan.slow_seconds))
        return pgctx.BuiltinSummarizer()

    def fold(self, cid: str, summarizer: Any, force: bool = False) -> None:
        """fold() once (it retries lost races itself); a failure is logged, and the next turn of
        the conversation folds instead: nothing is lost by a fold that did not happen."""
        self.op, started = "fold", time.perf_counter()
        try:
            result = pgctx.fold(self.conn, cid, summarizer=summarizer, budget=self.budget, force=force)
        except SummarizerFailed:
            self.log("E", "fold", "SummarizerFailed")
            return
        except psycopg.OperationalError as exc:
            self.log("E", "fold", type(exc).__name__)
            if self.conn.closed or self.conn.broken:
                self.connect()
            return
        ms = round((time.perf_counter() - started) * 1000, 3)
        if result.committed:
            self.log("F", cid, result.version, result.cursor, summarizer.id)
            self.log("O", f"fold (committed, {summarizer.id})", ms)
        else:
            self.log("O", "fold (nothing due)", ms)

    # -- a LangGraph turn: the same four messages, one put of the whole list --

    def langgraph_turn(self, turn: str, cid: str) -> None:
        from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
        from bench_persistence import LGThread, lg_first, lg_next

        order = self.content.order(cid)
        call, user = self.content.call(turn, order), self.content.user(order)
        result = self.content.result(call)
        new = [HumanMessage(content=user["text"], id=f"{turn}:u"),
               AIMessage(content="", id=f"{turn}:c", tool_calls=[
                   {"name": call["tool"], "args": call["arguments"], "id": call["call_id"]}]),
               ToolMessage(content=json.dumps(result), tool_call_id=call["call_id"], id=f"{turn}:r"),
               AIMessage(content=self.content.reply(order, result)["text"], id=f"{turn}:a")]
        config = {"configurable": {"thread_id": cid, "checkpoint_ns": ""}}
        latest = self.step("get_tuple", lambda: self.saver.get_tuple(config))
        time.sleep(self.rng.uniform(*self.plan.tool_seconds))  # the same tool call as a pgctx turn's
        if latest is None:
            stored = self.step("put", lambda: lg_first(self.saver, cid, new), timed=False).config
        else:
            checkpoint = latest.checkpoint
            thread = LGThread(latest.config, checkpoint, checkpoint["channel_values"].get("messages", []),
                              checkpoint["channel_versions"]["messages"], latest.metadata["step"])
            args = lg_next(self.saver, thread, new)  # built once: a retried put writes the same checkpoint
            stored = self.step("put", lambda: self.saver.put(*args), timed=False)
        self.log("L", cid, stored["configurable"]["checkpoint_id"], [m.id for m in new], self.last_ms)

    @property
    def saver(self) -> Any:
        from langgraph.checkpoint.postgres import PostgresSaver

        if getattr(self, "_saver_conn", None) is not self.conn:
            self._saver, self._saver_conn = PostgresSaver(self.conn), self.conn
        return self._saver


class LangGraphWorker(Worker):
    def open(self) -> Any:
        from psycopg.rows import dict_row

        # as PostgresSaver.from_conn_string opens its connection
        return psycopg.connect(self.plan.dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row,
                               application_name=f"{APP_NAME}-{self.slot}")


def last_open_turn(path: Path) -> str | None:
    """The conversation of the last turn a slot's log shows begun and not ended (a killed worker's)."""
    if not path.exists():
        return None
    open_cid = None
    for record in read_log(path):
        if record[0] == "B":
            open_cid = record[2]
        elif record[0] == "T":
            open_cid = None
    return open_cid


def read_log(path: Path) -> list[list]:
    """A slot's complete lines; a line torn by a kill (at most one per kill) is skipped."""
    records = []
    for line in path.read_text().split("\n")[:-1]:  # the part after the last newline is incomplete
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            records.append(["torn"])
    return records


def worker_main(plan_json: str, slots: str, gen: str) -> None:
    plan = Plan.from_json(plan_json)
    if (Path(plan.run_dir) / "stop").exists():  # restarted as the run ends: nothing to do
        return
    # load what a turn needs (seconds) before the first one, which would pay for it: the token
    # encoding, or LangGraph and its serializer
    if plan.phase == "pgctx":
        pgctx.Budget(window=plan.window, **BUDGET).counter().count("warm-up")
    else:
        importlib.import_module("bench_persistence")  # langchain-core, langgraph, PostgresSaver
    cls = Worker if plan.phase == "pgctx" else LangGraphWorker
    threads = [threading.Thread(target=cls(plan, int(slot), int(gen)).run) for slot in slots.split(",")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


# ---- the driver: worker processes and the chaos ----------------------------------------------------

@dataclass
class Timing:
    wall: float  # seconds from the first worker's start to the last one's exit
    window: float  # seconds from every worker up to the stop signal: what turns/s is measured over
    window_turns: int  # turns completed in that window
    stopping: float  # seconds the workers took to finish their turns and exit

    @property
    def turns_per_second(self) -> float:
        return self.window_turns / self.window if self.window else float("nan")


@dataclass
class ChaosCounts:
    kills: int = 0  # worker processes SIGKILLed
    workers_killed: int = 0  # worker threads they held
    restarts: int = 0
    terminations: int = 0  # pg_terminate_backend calls that terminated a session
    timeouts: int = 0  # statement_timeouts set
    crashes: list[str] = field(default_factory=list)  # processes that exited by themselves (not asked to)
    stop_kills: int = 0  # processes killed because they did not stop within STOP_GRACE


class Process:
    def __init__(self, service: Service, index: int, slots: list[int]):
        self.service, self.index, self.slots, self.gen = service, index, slots, -1
        self.popen: subprocess.Popen | None = None
        self.killed = False  # by the chaos, and not started again yet
        self.logged: list[int] = []  # its slots' log sizes when it started

    def start(self) -> None:
        self.gen, self.killed = self.gen + 1, False
        self.logged = [self.service.offsets.get(slot, 0) for slot in self.slots]
        run = Path(self.service.plan.run_dir)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        with (run / f"proc-{self.index}.stderr").open("a") as err:
            self.popen = subprocess.Popen(
                [sys.executable, str(Path(__file__)), "worker", self.service.plan.to_json(),
                 ",".join(map(str, self.slots)), str(self.gen)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                stderr=err)

    def working(self) -> bool:
        """Whether its workers are taking turns (have logged since it started): a process still
        loading is not where a kill tests anything."""
        return not self.killed and all(self.service.offsets.get(slot, 0) > before
                                       for slot, before in zip(self.slots, self.logged))

    def kill(self) -> None:
        if self.popen and self.popen.poll() is None:
            os.kill(self.popen.pid, signal.SIGKILL)
            self.popen.wait()
            self.killed = True


class Service:
    """Starts the worker processes, runs the chaos thread, counts turns, stops everything."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.rng = random.Random(f"{plan.seed}/chaos/{plan.phase}")
        Path(plan.run_dir).mkdir(parents=True, exist_ok=True)
        slots = iter(range(plan.workers))
        self.procs = [Process(self, i, [next(slots) for _ in range(n)]) for i, n in enumerate(plan.layout)]
        self.lock = threading.Lock()  # the chaos thread and the monitor both start processes
        self.counts = ChaosCounts()
        self.stopping = threading.Event()
        self.offsets: dict[int, int] = {}  # slot -> bytes of its log counted (a slot is here once it logged)
        self.turns = 0

    def run(self) -> Timing:
        """Run until plan.turns turns are done or plan.seconds passed."""
        started = time.monotonic()
        for proc in self.procs:
            proc.start()
        chaos = threading.Thread(target=self.chaos, daemon=True) if self.plan.chaos else None
        if chaos:
            chaos.start()
        up: tuple[float, int] | None = None
        while not self.done(up):
            time.sleep(0.25)
            self.count_turns()
            if up is None and len(self.offsets) == self.plan.workers:  # every worker has started
                up = (time.monotonic(), self.turns)
            self.watch()
        stopped = (time.monotonic(), self.turns)
        self.stopping.set()
        if chaos:
            chaos.join()
        self.stop()
        up = up or (started, 0)
        return Timing(time.monotonic() - started, stopped[0] - up[0], stopped[1] - up[1],
                      time.monotonic() - stopped[0])

    def done(self, up: tuple[float, int] | None) -> bool:
        plan = self.plan
        return ((plan.turns is not None and self.turns >= plan.turns)
                or (plan.seconds is not None and up is not None and time.monotonic() - up[0] >= plan.seconds))

    def count_turns(self) -> None:
        for slot in range(self.plan.workers):
            path = Path(self.plan.run_dir) / f"slot-{slot}.log"
            if not path.exists():
                continue
            with path.open("rb") as f:
                f.seek(self.offsets.get(slot, 0))
                chunk = f.read()
            complete = chunk[:chunk.rfind(b"\n") + 1]
            if complete:
                self.offsets[slot] = self.offsets.get(slot, 0) + len(complete)
            self.turns += complete.count(b'\n["T"')  + complete.startswith(b'["T"')

    def watch(self) -> None:
        """A worker process that exited without being killed crashed: record it, start it again."""
        with self.lock:
            for proc in self.procs:
                if proc.popen and not proc.killed and proc.popen.poll() is not None:
                    self.counts.crashes.append(f"process {proc.index} (slots {proc.slots}) exited with "
                                               f"{proc.popen.returncode}: {self.last_words(proc)}")
                    proc.start()

    def last_words(self, proc: Process) -> str:
        """The end of a crashed process's stderr (its traceback), for the report: a CI log has no run dir."""
        text = (Path(self.plan.run_dir) / f"proc-{proc.index}.stderr").read_text(errors="replace")
        return text[-2_000:].strip() or "nothing on stderr"

    def chaos(self) -> None:
        chaos, rng = self.plan.chaos, self.rng

        def after(mean: float | None) -> float:  # the turn count of the next action
            return self.turns + rng.expovariate(1 / mean) if mean else float("inf")

        next_kill, next_term, next_timeout = after(chaos.kill_every), after(chaos.terminate_every), \
            after(chaos.timeout_every)
        restarts: list[tuple[float, Process]] = []
        resets: dict[int, float] = {}
        with psycopg.connect(self.plan.admin_dsn, autocommit=True) as admin:
            while not self.stopping.wait(0.02):
                now = time.monotonic()
                for due, proc in [r for r in restarts if r[0] <= now]:
                    restarts.remove((due, proc))
                    with self.lock:
                        proc.start()
                    self.counts.restarts += 1
                for slot in [s for s, due in resets.items() if due <= now]:
                    del resets[slot]
                    self.set_timeout(slot, 0)
                if self.turns >= next_kill:
                    next_kill = after(chaos.kill_every)
                    working = [p for p in self.procs if p.working()]
                    if working:
                        victim = rng.choice(working)
                        with self.lock:
                            victim.kill()  # SIGKILL: no cleanup, no rollback by the client
                        self.counts.kills += 1
                        self.counts.workers_killed += len(victim.slots)
                        restarts.append((now + rng.uniform(*chaos.restart_delay), victim))
                if self.turns >= next_term:
                    next_term = after(chaos.terminate_every)
                    self.counts.terminations += admin.execute(
                        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM"
                        " (SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                        "   AND application_name LIKE %s ORDER BY random() LIMIT %s) s",
                        (f"{APP_NAME}-%", rng.randint(1, 2))).fetchone()[0]
                if self.turns >= next_timeout:
                    next_timeout = after(chaos.timeout_every)
                    slot = rng.randrange(self.plan.workers)
                    if slot not in resets:
                        self.set_timeout(slot, rng.choice(chaos.timeout_ms))
                        resets[slot] = now + rng.uniform(*chaos.timeout_for)
                        self.counts.timeouts += 1
        for slot in resets:
            self.set_timeout(slot, 0)

    def set_timeout(self, slot: int, ms: int) -> None:
        path = Path(self.plan.run_dir) / f"ctl-{slot}"
        scratch = path.with_suffix(".new")
        scratch.write_text(str(ms))
        scratch.replace(path)  # atomic: a worker reads the old value or the new one

    def stop(self) -> None:
        (Path(self.plan.run_dir) / "stop").touch()
        deadline = time.monotonic() + STOP_GRACE
        for proc in self.procs:
            if proc.popen is None:
                continue
            try:
                proc.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
                if proc.popen.returncode != 0 and proc.popen.returncode != -signal.SIGKILL:
                    self.counts.crashes.append(f"process {proc.index} exited with {proc.popen.returncode} "
                                               f"at stop: {self.last_words(proc)}")
            except subprocess.TimeoutExpired:
                proc.kill()
                self.counts.stop_kills += 1
        self.count_turns()
        # A killed client's backend finishes the statement it was running before it notices: wait
        # for the last of them, so that the checks see what the workers left, all of it.
        with psycopg.connect(self.plan.admin_dsn, autocommit=True) as admin:
            while admin.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                                " AND application_name LIKE %s", (f"{APP_NAME}-%",)).fetchone()[0]:
                time.sleep(0.05)


def run(plan: Plan) -> tuple[Timing, ChaosCounts, Observed]:
    """Run the workers (and the chaos) as planned: how long it took, what the chaos did, and what
    the workers logged."""
    service = Service(plan)
    timing = service.run()
    return timing, service.counts, observe(plan)


# ---- what the workers logged --------------------------------------------------------------------

@dataclass
class Observed:
    acks: list[tuple[str, int, str, str, str]] = field(default_factory=list)  # cid, seq, kind, key, digest
    folds: list[tuple[str, int, int, str]] = field(default_factory=list)  # cid, version, cursor, summarizer
    puts: list[tuple[str, str, list[str]]] = field(default_factory=list)  # thread, checkpoint id, message ids
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter = field(default_factory=Counter)  # (op, exception class) -> count
    turns: Counter = field(default_factory=Counter)  # outcome -> count
    recoveries: list[list] = field(default_factory=list)  # what restarted workers' recover did
    torn: int = 0  # log lines torn by a kill

    @property
    def completed(self) -> int:
        return self.turns["ok"]

    def unexpected(self) -> dict[tuple[str, str], int]:
        return {k: n for k, n in self.errors.items() if k[1] not in EXPECTED}

    def acked_calls(self) -> dict[tuple[str, str], bool]:
        """(cid, call id) of every acknowledged tool call -> whether its result was acknowledged."""
        calls = {(cid, key): False for cid, _, kind, key, _ in self.acks if kind == "tool_call"}
        for cid, _, kind, key, _ in self.acks:
            if kind == "tool_result":
                calls[(cid, key.removesuffix(":result"))] = True
        return calls


def observe(plan: Plan) -> Observed:
    seen = Observed()
    for slot in range(plan.workers):
        path = Path(plan.run_dir) / f"slot-{slot}.log"
        if not path.exists():
            continue
        for record in read_log(path):
            tag = record[0]
            if tag == "A":
                seen.acks.append(tuple(record[1:6]))
                seen.latencies[f"append {record[3]}"].append(record[6])
            elif tag == "O":
                seen.latencies[record[1]].append(record[2])
            elif tag == "F":
                seen.folds.append(tuple(record[1:5]))
            elif tag == "L":
                seen.puts.append((record[1], record[2], record[3]))
                seen.latencies["put"].append(record[4])
            elif tag == "E":
                seen.errors[(record[1], record[2])] += 1
            elif tag == "T":
                seen.turns["ok" if record[3] == "ok" else record[3]] += 1
                if record[3] == "ok":
                    seen.latencies["turn"].append(record[2])
            elif tag == "R":
                seen.recoveries.append(record[1:])
            elif tag == "torn":
                seen.torn += 1
    return seen


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# ---- the checks ------------------------------------------------------------------------------------

@dataclass
class Check:
    name: str
    checked: int  # how many things were looked at
    violations: list[str] = field(default_factory=list)  # what failed (the first few, then a count)


# What the facts of a check say, for reports.
FACTS = {
    "conversations": "conversations",
    "events": "events",
    "committed": "committed folds",
    "prepared": "PREPARED folds left after recovery",
    "discarded": "fold candidates discarded (lost races, or by recovery)",
    "unacknowledged_events": "events committed but never acknowledged (the ack was lost to a kill, a "
                             "termination or a timeout; the retry of the append found them by event key)",
    "interrupted": "interrupted tool calls (call acknowledged, result not)",
    "result_unacknowledged": "of which the result was committed but not acknowledged",
    "unanswered": "tool calls without a result in the database",
    "running_before_recovery": "of which still running before the final recovery (the others: made unknown by "
                               "a restarted worker's recovery)",
    "recovery_committed": "PREPARED folds the final recovery committed",
    "recovery_discarded": "PREPARED folds the final recovery discarded",
    "acknowledged_messages": "acknowledged messages",
    "lost_from_latest": "acknowledged messages missing from their thread's latest checkpoint",
}


@dataclass
class Checks:
    checks: list[Check] = field(default_factory=list)
    facts: dict[str, int] = field(default_factory=dict)  # what the run left: interrupted calls, ...

    def add(self, name: str, checked: int, violations: list[str]) -> None:
        self.checks.append(Check(name, checked, violations))

    @property
    def violations(self) -> list[str]:
        return [f"{c.name}: {v}" for c in self.checks for v in c.violations]


def rows(conn: psycopg.Connection, sql: str, params: Any = None) -> list[tuple]:
    return conn.execute(sql, params).fetchall()


def check_pgctx(admin_dsn: str, seen: Observed) -> Checks:
    """Every check of the module docstring, as the schema owner (row-level security does not hide
    anything from it); returns what each check found."""
    out = Checks()
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conversations = [r[0] for r in rows(conn, "SELECT conversation_id FROM pgctx.conversations ORDER BY 1")]
        chain_and_folds(conn, conversations, out, "")
        acknowledged(conn, seen, out)
        calls = {(cid, call_id): (status, key, answer_seq) for cid, call_id, status, key, answer_seq in rows(
            conn, "SELECT conversation_id, call_id, status, idempotency_key, answer_seq FROM pgctx.side_effects")}
        unanswered = {k for k, (_, _, answer) in calls.items() if answer is None}
        out.add("a call without a result is running or unknown, never guessed", len(calls),
                [f"{k}: {calls[k][0]}" for k in sorted(unanswered) if calls[k][0] not in ("running", "unknown")])
        acked = seen.acked_calls()
        interrupted = [k for k, answered in acked.items() if not answered]
        out.facts.update(interrupted=len(interrupted), result_unacknowledged=sum(k not in unanswered for k in interrupted),
                         unanswered=len(unanswered),
                         running_before_recovery=sum(calls[k][0] == "running" for k in unanswered))
        out.add("an acknowledged call is recorded with its idempotency key", len(acked),
                [f"{k}: {calls.get(k)}" for k in acked if k not in calls or calls[k][1] != f"idem-{k[1][5:]}"])

        reports = {cid: pgctx.recover(conn, cid) for cid in conversations}
        prepared = rows(conn, "SELECT conversation_id, version FROM pgctx.checkpoints WHERE phase = 'PREPARED'")
        out.add("nothing PREPARED after recover", len(conversations), [f"{c} version {v}" for c, v in prepared])
        out.facts["recovery_committed"] = sum(p["action"] == "committed" for r in reports.values() for p in r["prepared"])
        out.facts["recovery_discarded"] = sum(p["action"] == "discarded" for r in reports.values() for p in r["prepared"])
        listed = {(cid, u["call_id"]): u["idempotency_key"] for cid, r in reports.items()
                  for u in r["unknown_side_effects"]}
        asked = {(cid, call_id): key for cid in conversations
                 for call_id, _, _, key, _ in rows(conn, db.UNKNOWN_CALLS, (cid,))}
        after = {(cid, call_id): status for cid, call_id, status in rows(
            conn, "SELECT conversation_id, call_id, status FROM pgctx.side_effects WHERE answer_seq IS NULL")}
        expected = {k: calls[k][1] for k in unanswered}
        out.add("after recover every call without a result is unknown", len(after),
                [f"{k}: {s}" for k, s in sorted(after.items()) if s != "unknown"])
        out.add("recover lists every unknown call with its idempotency key", len(expected),
                diff(expected, listed))
        out.add("reconcile would ask about every unknown call, by its key", len(expected), diff(expected, asked))
        chain_and_folds(conn, conversations, out, " (after recover)")
        again = [cid for cid in conversations if pgctx.recover(conn, cid)["changed"]]
        out.add("a second recover changes nothing", len(conversations), again)
        out.facts["conversations"] = len(conversations)
        out.facts["events"] = rows(conn, "SELECT count(*) FROM pgctx.events")[0][0]
        for phase, n in rows(conn, "SELECT phase, count(*) FROM pgctx.checkpoints GROUP BY 1"):
            out.facts[phase.lower()] = n
    for check in out.checks:  # keep reports readable: the first few of each, then how many more
        if len(check.violations) > 10:
            check.violations[10:] = [f"... and {len(check.violations) - 10} more"]
    return out


def diff(expected: dict, found: dict) -> list[str]:
    return ([f"{k}: not listed" for k in sorted(expected.keys() - found.keys())]
            + [f"{k}: listed, but it has a result" for k in sorted(found.keys() - expected.keys())]
            + [f"{k}: key {found[k]!r}, expected {expected[k]!r}" for k in sorted(expected.keys() & found.keys())
               if found[k] != expected[k]])


def chain_and_folds(conn: psycopg.Connection, conversations: list[str], out: Checks, when: str) -> None:
    bad = []
    for cid in conversations:
        report = pgctx.verify(conn, cid)
        if not (report.ok and report.checked == report.head_seq):
            bad.append(f"{cid}: {report}")
    out.add(f"every chain verifies{when}", len(conversations), bad)
    out.add(f"seqs 1..head without a gap{when}", len(conversations), [str(r) for r in rows(conn, """
        SELECT c.conversation_id, c.head_seq, count(e.seq), min(e.seq), max(e.seq)
          FROM pgctx.conversations c LEFT JOIN pgctx.events e USING (conversation_id)
         GROUP BY 1, 2 HAVING count(e.seq) <> c.head_seq OR min(e.seq) <> 1 OR max(e.seq) <> c.head_seq""")])
    out.add(f"fold versions 1..n without a gap{when}", len(conversations), [str(r) for r in rows(conn, """
        SELECT conversation_id, count(*), min(version), max(version) FROM pgctx.checkpoints
         GROUP BY 1 HAVING count(*) <> max(version) OR min(version) <> 1""")])
    # no fold committed twice: each committed fold continues the one before it (its base is that
    # version and cursor), so the committed folds tile the history once
    out.add(f"committed folds tile the history once{when}", len(conversations), [str(r) for r in rows(conn, """
        SELECT * FROM (
            SELECT conversation_id, version, base_version, base_cursor, cursor,
                   coalesce(lag(version) OVER w, 0) AS previous_version, coalesce(lag(cursor) OVER w, 0) AS previous_cursor
              FROM pgctx.checkpoints WHERE phase = 'COMMITTED'
            WINDOW w AS (PARTITION BY conversation_id ORDER BY version)) k
         WHERE base_version <> previous_version OR base_cursor <> previous_cursor""")])
    out.add(f"the fold head is the last committed fold{when}", len(conversations), [str(r) for r in rows(conn, """
        SELECT h.conversation_id, h.version, h.cursor, k.version, k.cursor
          FROM pgctx.fold_heads h
          LEFT JOIN LATERAL (SELECT version, cursor FROM pgctx.checkpoints c
                              WHERE c.conversation_id = h.conversation_id AND c.phase = 'COMMITTED'
                              ORDER BY version DESC LIMIT 1) k ON true
         WHERE h.version <> coalesce(k.version, 0) OR h.cursor <> coalesce(k.cursor, 0)""")])


def acknowledged(conn: psycopg.Connection, seen: Observed, out: Checks) -> None:
    """Every acknowledged append is in the log as acknowledged; every acknowledged fold committed."""
    conn.execute("CREATE TEMP TABLE acks (cid text, seq bigint, kind text, key text, digest text)")
    conn.execute("CREATE TEMP TABLE acked_folds (cid text, version int, cursor bigint, summarizer text)")
    with conn.cursor().copy("COPY acks FROM STDIN") as copy:
        for ack in seen.acks:
            copy.write_row(ack)
    with conn.cursor().copy("COPY acked_folds FROM STDIN") as copy:
        for acked in seen.folds:
            copy.write_row(acked)
    out.add("every acknowledged append is there as acknowledged", len(seen.acks), [str(r) for r in rows(conn, f"""
        SELECT a.*, e.kind, e.event_key, {DIGEST_SQL}
          FROM acks a LEFT JOIN pgctx.events e ON e.conversation_id = a.cid AND e.seq = a.seq
         WHERE e.seq IS NULL OR e.kind <> a.kind OR e.event_key IS DISTINCT FROM a.key
            OR {DIGEST_SQL} <> a.digest""")])
    out.add("every acknowledged fold is committed", len(seen.folds), [str(r) for r in rows(conn, """
        SELECT f.*, k.phase, k.cursor, k.summarizer
          FROM acked_folds f LEFT JOIN pgctx.checkpoints k ON k.conversation_id = f.cid AND k.version = f.version
         WHERE k.phase IS DISTINCT FROM 'COMMITTED' OR k.cursor <> f.cursor OR k.summarizer <> f.summarizer""")])
    out.facts["unacknowledged_events"] = rows(conn, """
        SELECT count(*) FROM pgctx.events e
         WHERE e.event_key IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM acks a WHERE a.cid = e.conversation_id AND a.seq = e.seq)""")[0][0]
    conn.execute("DROP TABLE acks, acked_folds")


def check_langgraph(admin_dsn: str, seen: Observed) -> Checks:
    """The baseline, as far as it can be checked: acknowledged checkpoints are stored, and which
    acknowledged messages its threads' latest checkpoints no longer hold (lost updates: two turns
    on one thread read the same parent and each put a list without the other's messages)."""
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row

    out = Checks()
    with psycopg.connect(admin_dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row) as conn:
        stored = {(r["thread_id"], r["checkpoint_id"]) for r in conn.execute(
            "SELECT thread_id, checkpoint_id FROM checkpoints")}
        out.add("every acknowledged put is stored", len(seen.puts),
                [f"{t} {c}" for t, c, _ in seen.puts if (t, c) not in stored])
        saver = PostgresSaver(conn)
        acked = defaultdict(set)
        for thread, _, ids in seen.puts:
            acked[thread].update(ids)
        lost = 0
        for thread, ids in acked.items():
            latest = saver.get_tuple({"configurable": {"thread_id": thread, "checkpoint_ns": ""}})
            kept = {m.id for m in latest.checkpoint["channel_values"].get("messages", [])}
            lost += len(ids - kept)
        out.facts["acknowledged_messages"] = sum(len(ids) for ids in acked.values())
        out.facts["lost_from_latest"] = lost
    return out


if __name__ == "__main__":
    if sys.argv[1:2] != ["worker"]:
        sys.exit("usage: service_workload.py worker PLAN_JSON SLOTS GEN  (the driver starts it)")
    worker_main(*sys.argv[2:])
