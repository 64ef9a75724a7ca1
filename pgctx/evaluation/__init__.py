"""pgctx.evaluate (``pgctx eval``): does a folded context keep what the next decision needs?

The evaluation of article 十八 as a product feature (docs/eval.md):

1. Every trajectory is validated first (:mod:`pgctx.evaluation.trajectory`); a malformed file evaluates
   nothing.
2. Each is replayed into PostgreSQL (an embedded throwaway server unless a DSN or connection is
   given) as an agent service would run: its tools are declared, each event is appended, and
   ``pgctx.fold`` runs with the configured summarizer and budget at the end of every turn (before
   the next ``user`` event, and at the end) and before each decision point (a model call within
   the turn, whose own events may have overrun the budget).
3. At each decision point the working context is built (``pgctx.build_context``) and every probe
   is judged against it (:mod:`pgctx.evaluation.probes`), and against the baselines of
   :mod:`pgctx.baselines` given the same number of tokens.
4. With ``ask`` (a :class:`pgctx.evaluation.asking.ProbeAsker`), a model is also asked the probes' questions
   given only pgctx's working context, and its answers are scored (system ``pgctx_asked``).
5. The report gives, per trajectory and per probe class, the pass rates, the compression (the
   full history's tokens over the working context's), folds committed and refused (by SQLSTATE),
   summarizer calls and the last summary's tokens. A trajectory whose events the database refuses
   reports that event's line and SQLSTATE, and the others are still evaluated.

Evaluating on your own database declares the trajectories' tools in its ``pgctx.tools`` and
leaves their conversations (ids ``eval-<trajectory>-<run>``): use a scratch database.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import psycopg

import pgctx
from pgctx import baselines
from pgctx.errors import ContextOverBudget, PgctxError, SummarizerFailed
from pgctx.eventlog import event_tokens
from pgctx.messages import event_message
from pgctx.evaluation.probes import View, Verdict, judge, text_of
from pgctx.summarizers import BuiltinSummarizer, FoldRequest, Summarizer
from pgctx.summary import cited
from pgctx.tokens import Budget
from pgctx.evaluation.trajectory import (
    PROBE_CLASSES, ConfirmStep, DecisionStep, EventStep, ForkStep, RecoverStep, SwitchStep, Trajectory,
    TrajectoryError, load_all,
)

if TYPE_CHECKING:  # the asker (and openai) only when asked for
    from pgctx.evaluation.asking import ProbeAsker


def eval_budget(window: int = 4096) -> Budget:
    """An evaluation's budget: an eighth of the window kept for the answer, nothing else reserved."""
    return Budget(window=window, fixed_input=0, output=window // 8, reasoning=0, margin=0)


# The suite's budget: a 4,096-token window with 512 tokens kept for the answer (B = 3,584).
EVAL_BUDGET = eval_budget()
SYSTEMS = ("pgctx", "last_messages", "trim_messages", "pgctx_asked")
TRIM_SKIPPED = "langchain-core is not installed (pip install 'pgctx[eval]')"


@dataclass(frozen=True)
class ProbeOutcome:
    decision: str
    probe: str  # its class
    verdicts: dict[str, Verdict]  # by system


@dataclass(frozen=True)
class DecisionOutcome:
    id: str
    history_tokens: int
    context_tokens: int  # the whole working context (what the baselines get too)
    folded_tokens: int = 0  # of it, the raw folded events filling the budget (section folded)
    budget: int = 0  # B

    @property
    def compression(self) -> float:
        """The history over the context the fold needs (summary, evidence, unfolded events): the
        folded events that fill the rest of B are left out, the summary covering them."""
        needed = self.context_tokens - self.folded_tokens
        return self.history_tokens / needed if needed else 0.0

    @property
    def fill(self) -> float:
        """How full the context is: its tokens over B."""
        return self.context_tokens / self.budget if self.budget else 0.0


@dataclass
class TrajectoryResult:
    id: str
    title: str
    path: str
    events: int = 0
    history_tokens: int = 0
    decisions: list[DecisionOutcome] = field(default_factory=list)
    probes: list[ProbeOutcome] = field(default_factory=list)
    fold_calls: int = 0  # fold() calls: one per turn
    folds: Counter = field(default_factory=Counter)  # committed, by what made them due
    refused: Counter = field(default_factory=Counter)  # refused, by SQLSTATE (or the summarizer's reason)
    summarizer_calls: int = 0
    not_smaller: int = 0  # candidates the database refused as not making the context smaller (PC121)
    requests_hidden: int = 0  # user requests of committed folds' ranges neither cited nor raw right after
    crossings: int = 0  # fold() calls that found S + E + H over the floor after it had been under it
    risk_events: set = field(default_factory=set)  # distinct risk triggers seen: their evidence (or reason)
    over_floor: bool = False  # S + E + H after the last fold() call
    summary_tokens: int = 0
    seconds: float = 0.0
    error: dict[str, Any] | None = None  # what stopped the replay: line, sqlstate (or TrajectoryError), message

    @property
    def fold_allowance(self) -> int:
        """The issue's bound on summarizer calls: one per threshold crossing (the floor, under the
        capacity threshold, so each capacity crossing is one too), one per risk event, one per
        forced fold."""
        return self.crossings + len(self.risk_events) + self.folds["forced"]

    @property
    def compression(self) -> float | None:
        """At the last decision point."""
        return self.decisions[-1].compression if self.decisions else None

    @property
    def fill(self) -> float | None:
        """The mean fill of its contexts (tokens over B)."""
        return statistics.fmean(d.fill for d in self.decisions) if self.decisions else None

    def pass_rate(self, system: str, probe_class: str | None = None) -> float | None:
        judged = [p.verdicts[system].passed for p in self.probes
                  if system in p.verdicts and probe_class in (None, p.probe)]
        return sum(judged) / len(judged) if judged else None


@dataclass
class EvalReport:
    results: list[TrajectoryResult]
    summarizer: str
    budget: Budget
    trim_skipped: str | None = None
    asker: str | None = None  # the model asked the probes' questions, if any

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(s for s in SYSTEMS if not (s == "trim_messages" and self.trim_skipped)
                     and not (s == "pgctx_asked" and self.asker is None))

    def probes(self) -> list[ProbeOutcome]:
        return [p for r in self.results for p in r.probes]

    def pass_rate(self, system: str, probe_class: str | None = None) -> float | None:
        judged = [p.verdicts[system].passed for p in self.probes()
                  if system in p.verdicts and probe_class in (None, p.probe)]
        return sum(judged) / len(judged) if judged else None

    def compression_median(self) -> float | None:
        values = [r.compression for r in self.results if r.compression is not None]
        return statistics.median(values) if values else None

    def fill_mean(self) -> float | None:
        """The mean fill of every decision point's context (tokens over B)."""
        values = [d.fill for r in self.results for d in r.decisions]
        return statistics.fmean(values) if values else None

    def passed(self, min_pass: float) -> bool:
        rate = self.pass_rate("pgctx")
        return rate is not None and rate >= min_pass and not any(r.error for r in self.results)

    def to_json(self) -> dict[str, Any]:
        classes = [c for c in PROBE_CLASSES if any(p.probe == c for p in self.probes())]
        out: dict[str, Any] = {
            "trajectories": len(self.results), "probes": len(self.probes()), "summarizer": self.summarizer,
            "budget": {"window": self.budget.window, "history_budget": self.budget.history_budget,
                       "model": self.budget.model},
        }
        for system in SYSTEMS:
            if system == "pgctx_asked" and self.asker is None:
                continue
            if system not in self.systems:
                out[system] = {"skipped": self.trim_skipped}
                continue
            out[system] = {"pass_rate": self.pass_rate(system),
                           "by_class": {c: self.pass_rate(system, c) for c in classes}}
        out["pgctx"].update(
            compression_median=self.compression_median(), fill_mean=self.fill_mean(),
            folds_not_smaller=sum(r.not_smaller for r in self.results),
            requests_hidden=sum(r.requests_hidden for r in self.results),
            fold_calls=sum(r.fold_calls for r in self.results),
            folds_committed=sum(sum(r.folds.values()) for r in self.results),
            folds_by_trigger=dict(sum((r.folds for r in self.results), Counter())),
            folds_refused=dict(sum((r.refused for r in self.results), Counter())),
            summarizer_calls=sum(r.summarizer_calls for r in self.results),
            threshold_crossings=sum(r.crossings for r in self.results),
            risk_events=sum(len(r.risk_events) for r in self.results),
            fold_allowance=sum(r.fold_allowance for r in self.results))
        out["per_trajectory"] = [{
            "id": r.id, "events": r.events, "history_tokens": r.history_tokens, "decisions": len(r.decisions),
            "probes": len(r.probes), **{s: r.pass_rate(s) for s in self.systems},
            "compression": r.compression, "fill": r.fill, "fold_calls": r.fold_calls, "folds_committed": sum(r.folds.values()),
            "folds_refused": dict(r.refused), "summarizer_calls": r.summarizer_calls,
            "fold_allowance": r.fold_allowance, "summary_tokens": r.summary_tokens, "seconds": round(r.seconds, 2), "error": r.error,
            "failed": [{"decision": p.decision, "probe": p.probe, "why": p.verdicts["pgctx"].why}
                       for p in r.probes if not p.verdicts["pgctx"].passed],
        } for r in self.results]
        return out


class _Counting:
    """The configured summarizer, counting its calls."""

    def __init__(self, inner: Summarizer):
        self.inner, self.id, self.calls = inner, inner.id, 0

    def summarize(self, request: FoldRequest) -> Any:
        self.calls += 1
        return self.inner.summarize(request)


def evaluate(target: str | psycopg.Connection | None = None, paths: Sequence[str | Path] | None = None, *,
             summarizer: Summarizer | None = None, budget: Budget | None = None, ask: ProbeAsker | None = None,
             progress: Callable[[int, int, TrajectoryResult], None] | None = None) -> EvalReport:
    """Replay trajectories (default: the shipped suite) and judge their probes; see the module doc.

    ``target`` is a DSN or a psycopg connection (autocommit) of a database pgctx may migrate, or
    None for an embedded throwaway server. ``progress(done, total, result)`` is called after each
    trajectory.
    """
    trajectories = load_all(paths)  # every file validated before anything runs
    summarizer = summarizer or BuiltinSummarizer()
    budget = budget or EVAL_BUDGET
    report = EvalReport([], summarizer.id, budget, None if baselines.trim_available() else TRIM_SKIPPED,
                        ask.id if ask else None)
    run = uuid.uuid4().hex[:8]
    with _database(target) as conn:
        for t in trajectories:
            for tool in t.header.tools:
                conn.execute("SELECT pgctx.declare_tool(%s, %s, %s, %s)",
                             (tool.tool, tool.effect, tool.identifier_args, tool.description))
        for done, t in enumerate(trajectories, start=1):
            report.results.append(_Replay(conn, t, f"eval-{t.id}-{run}", summarizer, played_in(t, budget), ask).run())
            if progress is not None:
                progress(done, len(trajectories), report.results[-1])
    return report


def played_in(t: Trajectory, budget: Budget) -> Budget:
    """The run's budget, or the trajectory's own window with EVAL_BUDGET's shares: an eighth of the
    window kept for the answer, nothing else reserved."""
    if t.header.window is None:
        return budget
    shares = eval_budget(t.header.window)
    return dataclasses.replace(budget, window=shares.window, output=shares.output, fixed_input=shares.fixed_input,
                               reasoning=shares.reasoning, margin=shares.margin)


@contextmanager
def _database(target: str | psycopg.Connection | None) -> Iterator[psycopg.Connection]:
    if isinstance(target, psycopg.Connection):
        pgctx.migrate(target)
        yield target
        return
    server = None
    if target is None:
        from pgctx.embedded import EmbeddedPostgres
        server = EmbeddedPostgres()
        target = server.superuser_dsn("postgres")
    try:
        pgctx.migrate(target)
        with psycopg.connect(target, autocommit=True) as conn:
            yield conn
    finally:
        if server is not None:
            server.stop()


def _trigger_class(policy: str) -> str:
    """'due: capacity (...)' -> 'capacity'; 'forced' -> 'forced'."""
    return policy.removeprefix("due: ").split(" ", 1)[0]


class _Replay:
    """One trajectory, replayed as an agent service runs it."""

    def __init__(self, conn: psycopg.Connection, trajectory: Trajectory, base_id: str, summarizer: Summarizer,
                 budget: Budget, ask: ProbeAsker | None = None):
        self.conn, self.t, self.budget, self.ask = conn, trajectory, budget, ask
        self.summarizer = _Counting(summarizer)
        self.counter = budget.counter()
        self.ids = {"main": base_id}
        self.history: dict[str, list[baselines.HistoryEvent]] = {"main": []}  # each branch's whole history
        self.fork_at = {"main": 0}  # where each branch's own events start
        self.current = "main"
        self.turn_open = False
        self.result = TrajectoryResult(trajectory.id, trajectory.header.title, trajectory.path)

    @property
    def cid(self) -> str:
        return self.ids[self.current]

    def run(self) -> TrajectoryResult:
        started = time.perf_counter()
        line = 0
        try:
            for line, step in self.t.steps:
                self._step(line, step)
            self._end_turn()
        except (TrajectoryError, PgctxError) as exc:  # an event the database refused, or a replay mismatch
            if exc.sqlstate is None and not isinstance(exc, TrajectoryError):
                raise
            self.result.error = {"line": line, "sqlstate": exc.sqlstate or type(exc).__name__, "message": str(exc)}
        own = [e for branch, h in self.history.items() for e in h if e[0] > self.fork_at[branch]]
        self.result.events, self.result.history_tokens = len(own), sum(e[3] for e in own)
        self.result.summarizer_calls = self.summarizer.calls
        self.result.seconds = time.perf_counter() - started
        return self.result

    def _step(self, line: int, step: Any) -> None:
        if isinstance(step, EventStep):
            if step.kind == "user":
                self._end_turn()
            seq = pgctx.append(self.conn, self.cid, step.kind, step.payload, counter=self.counter)
            if step.seq is not None and seq != step.seq:
                raise TrajectoryError(f"the event got seq {seq}, the file expects {step.seq}", path=self.t.path,
                                      line=line, field="seq")
            self.history[self.current].append((seq, step.kind, step.payload,
                                               event_tokens(step.kind, step.payload, self.counter)))
            self.turn_open = True
        elif isinstance(step, DecisionStep):
            self._decide(step)
        elif isinstance(step, RecoverStep):
            pgctx.recover(self.conn, self.cid)
            self._sync(self.current)
        elif isinstance(step, ForkStep):
            self._end_turn()
            self._fold(force=True)
            cursor = pgctx.committed_fold(self.conn, self.cid).cursor
            if cursor < self.history[self.current][-1][0]:
                raise TrajectoryError(f"cannot fork here: the forced fold did not reach the head, so it stops at event "
                                      f"{cursor} and the branch would lose the events after it", path=self.t.path,
                                      line=line, field="branch")
            branch_id = f"{self.ids['main']}.{step.branch}"
            pgctx.fork_conversation(self.conn, self.cid, cursor, branch_id)
            self.ids[step.branch], self.fork_at[step.branch] = branch_id, cursor
            self.history[step.branch] = [e for e in self.history[self.current] if e[0] <= cursor]
        elif isinstance(step, SwitchStep):
            self._end_turn()
            self.current = step.branch
        elif isinstance(step, ConfirmStep):
            pgctx.confirm_mainline(self.conn, self.ids[step.branch])
            self._sync(step.branch)

    def _sync(self, branch: str) -> None:
        """Events the database appended itself (recovery, branch_merge) join the history."""
        history = self.history[branch]
        last = history[-1][0] if history else 0
        rows = self.conn.execute("SELECT seq, kind, payload FROM pgctx.events WHERE conversation_id = %s AND seq > %s"
                                 " ORDER BY seq", (self.ids[branch], last)).fetchall()
        history += [(seq, kind, payload, event_tokens(kind, payload, self.counter)) for seq, kind, payload in rows]

    def _end_turn(self) -> None:
        if self.turn_open:
            self.turn_open = False
            self._fold(force=False)

    def _fold(self, *, force: bool) -> None:
        self.result.fold_calls += 1
        try:
            done = pgctx.fold(self.conn, self.cid, summarizer=self.summarizer, budget=self.budget, force=force)
        except SummarizerFailed as exc:
            self.result.refused[f"summarizer {exc.reason}"] += 1
            return
        except PgctxError as exc:
            if exc.sqlstate is None:
                raise
            self.result.refused[exc.sqlstate] += 1
            return
        floor = self.budget.floor
        if done.tokens_before > floor and not self.result.over_floor:
            self.result.crossings += 1
        self.result.over_floor = done.tokens_after > floor
        self.result.risk_events |= {t.evidence or (t.reason,) for t in done.triggers if t.cls == "risk"}
        if done.reason.startswith("not committed:"):
            self.result.not_smaller += 1
        if done.committed:
            self.result.folds[_trigger_class(done.policy)] += 1
            self.result.summary_tokens = self.conn.execute(
                "SELECT tokens FROM pgctx.checkpoints WHERE conversation_id = %s AND version = %s",
                (self.cid, done.version)).fetchone()[0]
            self.result.requests_hidden += len(self._hidden_requests(done.previous_cursor, done.cursor))

    def _hidden_requests(self, after: int, upto: int) -> list[int]:
        """The user requests a committed fold of after+1..upto left neither cited by its summary nor
        raw in the working context (bare acknowledgements aside, as pgctx.acknowledgement says)."""
        requests = [seq for (seq,) in self.conn.execute(
            "SELECT seq FROM pgctx.events WHERE conversation_id = %s AND seq > %s AND seq <= %s AND kind = 'user'"
            " AND NOT pgctx.acknowledgement(coalesce(pgctx.message_text(kind, payload), '')) ORDER BY seq",
            (self.cid, after, upto))]
        if not requests:
            return []
        try:
            ctx = pgctx.build_context(self.conn, self.cid, budget=self.budget)
            shown = set(cited(ctx.summary)) | {seq for seq, _, _ in ctx.events}
        except ContextOverBudget:  # no context: only the summary could show them
            shown = set(cited(pgctx.committed_fold(self.conn, self.cid).summary))
        return [seq for seq in requests if seq not in shown]

    def _decide(self, step: DecisionStep) -> None:
        # the agent is about to call the model: a service folds first (one query when nothing is
        # due), so a turn whose own events overrun the budget is folded before its context is built
        if self.turn_open:
            self._fold(force=False)
        history = self.history[self.current]
        full = sum(e[3] for e in history)
        try:
            ctx = pgctx.build_context(self.conn, self.cid, budget=self.budget)
            tokens, folded = ctx.total_tokens, ctx.sections["folded"]
            mine = View(ctx.summary, ctx.events, text_of(ctx.messages))
            over = None
        except ContextOverBudget as exc:
            tokens, folded, mine = self.budget.input_limit, 0, None
            over = Verdict(False, f"context over budget by {exc.over_by}")
        self.result.decisions.append(DecisionOutcome(step.id, full, tokens, folded, self.budget.history_budget))
        views = {"last_messages": _raw_view(baselines.last_messages(history, tokens))}
        trimmed = baselines.trim_messages(history, tokens)
        if trimmed is not None:
            views["trim_messages"] = _raw_view(trimmed)
        asked = (self.ask.ask(ctx.messages, step.probes) if self.ask and over is None
                 else [over] * len(step.probes))
        for probe, answered in zip(step.probes, asked):
            verdicts = {"pgctx": over or judge(probe, mine)}
            verdicts.update({name: judge(probe, view) for name, view in views.items()})
            if self.ask and answered is not None:
                verdicts["pgctx_asked"] = answered
            self.result.probes.append(ProbeOutcome(step.id, probe.probe, verdicts))


def _raw_view(kept: list[baselines.HistoryEvent]) -> View:
    return View(None, [(seq, kind, payload) for seq, kind, payload, _ in kept],
                text_of(event_message(kind, payload) for _, kind, payload, _ in kept))


def format_report(report: EvalReport) -> str:
    """The terminal tables: per trajectory, then per probe class."""
    def pct(value: float | None) -> str:
        return "   -" if value is None else f"{100 * value:5.1f}%"

    names = {"pgctx": "pgctx", "last_messages": "last msgs", "trim_messages": "trim_msgs", "pgctx_asked": "asked"}
    head = (f"{'trajectory':<28} {'events':>6} {'tokens':>7} {'probes':>6} "
            + " ".join(f"{names[s]:>9}" for s in report.systems)
            + f" {'compr.':>6} {'fill':>5} {'folds':>5} {'refused':>7} {'calls':>5} {'summary':>7}")
    lines = [head, "-" * len(head)]
    for r in report.results:
        lines.append(f"{r.id[:28]:<28} {r.events:>6} {r.history_tokens:>7} {len(r.probes):>6} "
                     + " ".join(f"{pct(r.pass_rate(s)):>9}" for s in report.systems)
                     + f" {(r.compression or 0):>5.1f}x {100 * (r.fill or 0):>4.0f}% {sum(r.folds.values()):>5}"
                     + f" {sum(r.refused.values()):>7}"
                     + f" {r.summarizer_calls:>5} {r.summary_tokens:>7}"
                     + (f"  ERROR line {r.error['line']}: {r.error['sqlstate']}" if r.error else ""))
    median = report.compression_median()
    lines.append(f"{'all':<28} {sum(r.events for r in report.results):>6} "
                 f"{sum(r.history_tokens for r in report.results):>7} {len(report.probes()):>6} "
                 + " ".join(f"{pct(report.pass_rate(s)):>9}" for s in report.systems)
                 + f" {(median or 0):>5.1f}x {100 * (report.fill_mean() or 0):>4.0f}% (median compression, mean fill)")
    lines += ["", f"{'probe class':<28} {'probes':>6} " + " ".join(f"{names[s]:>9}" for s in report.systems)]
    for c in PROBE_CLASSES:
        n = sum(1 for p in report.probes() if p.probe == c)
        if n:
            lines.append(f"{c:<28} {n:>6} " + " ".join(f"{pct(report.pass_rate(s, c)):>9}" for s in report.systems))
    calls, turns = (sum(getattr(r, a) for r in report.results) for a in ("summarizer_calls", "fold_calls"))
    lines.append(f"summarizer calls: {calls} on {turns} turns; allowed (floor crossings + risk events + forced): "
                 f"{sum(r.fold_allowance for r in report.results)}; candidates refused as not making the context "
                 f"smaller: {sum(r.not_smaller for r in report.results)}; user requests a fold left neither in the "
                 f"summary nor raw: {sum(r.requests_hidden for r in report.results)}")
    if report.trim_skipped:
        lines.append(f"trim_messages skipped: {report.trim_skipped}")
    lines.append(f"summarizer {report.summarizer}; budget: window {report.budget.window}, "
                 f"B = {report.budget.history_budget} tokens ({report.budget.model})"
                 + (f"; asked: {report.asker} (the evidence class is not asked)" if report.asker else ""))
    return "\n".join(lines)
