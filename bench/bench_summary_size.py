"""Summary size over a steady workload: does the committed summary stay bounded as history grows?

A service's loop on one conversation about a rotating set of a few orders (the live state does
not grow): each turn appends, in one ``pgctx.append_many``, a user message (mostly small talk,
sometimes a binding instruction), a read tool call and its result (status, eta, last hub and a
long tracking log), a write tool call with an idempotency key and its result (request id,
confirmed), and the assistant's reply; then it calls ``pgctx.fold(conn, cid, budget=B)``, as a
service would at the end of every turn, and ``pgctx.build_context(conn, cid, budget=B)``. Every
so often a write times out (outcome ``timeout``, so the call is ``unknown``) and a status query
a few turns later resolves it (``succeeded``); now and then an approval is requested and
granted a few turns later.

When the conversation passes 1,000, 10,000 and 100,000 events the report records the committed
summary's stored token count (pgctx.checkpoints.tokens), the median of it over the last 20
folds, the entries per section, the folds so far, the working context's tokens and the wall
time of the phase. Target: the median summary tokens at 10k and at 100k within 10% of the 1k
one (ratio <= 1.10). Token counts are a real BPE encoding, so the figures are deterministic
(same seed, same code: same numbers); the times are for information.

    .venv/bin/python bench/bench_summary_size.py [--events N | --quick] [--seed S]

Results: bench/results/summary-size.md, written by a full run (100,000 events) only; a shorter
run prints its report (``--out PATH`` writes it somewhere).
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
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

import pgctx
from pgctx.errors import ContextOverBudget
from pgctx.embedded import EmbeddedPostgres
from pgctx.messages import item_line, summary_message, task_message
from pgctx.summarizers import UNRESOLVED, BuiltinSummarizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import code_state, cpu_model, met  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
BUDGET = pgctx.Budget(window=8192, fixed_input=0, output=1024, reasoning=0, margin=0)
TARGET = 1.10
LAST_FOLDS = 20
ALONG = (1_000, 2_000, 3_000, 5_000, 10_000, 20_000, 50_000, 100_000)  # where the trajectory table looks
COUNTED = ("facts", "tool_state", "completed_actions", "user_requests", "constraints", "decisions", "open_questions")
CID = "steady-orders"
SYSTEM = "You are the delivery assistant. Use the tools; never guess an outcome."

ORDERS = ["10081", "10082", "10083", "10084", "10085"]
STATUSES = ["label created", "in transit", "at hub", "out for delivery", "delayed", "held at depot"]
HUBS = ["Leipzig", "Kassel", "Hannover", "Nuremberg", "Dortmund", "Erfurt", "Hamburg", "Munich"]
WINDOWS = ["08:00-10:00", "10:00-12:00", "12:00-14:00", "14:00-16:00", "16:00-18:00", "18:00-20:00"]
SMALL_TALK = [
    "how is your day going?", "is it raining over there too?", "I'm just checking in, no rush.",
    "my neighbour says the courier came by yesterday", "sorry for asking again",
    "the last parcel came really early, that was nice", "what does 'at hub' actually mean?",
    "I'll be working from home most of the week", "does the driver usually ring the bell?",
    "the app shows something different from the email", "ok", "thanks", "great, thank you",
    "can you check on the order again?", "any news?", "is it still on track for the window?",
]
BINDING = [
    "only order {o} for now, leave the others alone",
    "call me before arriving, please",
    "never leave order {o} with a neighbour",
    "do not reschedule order {o} to a morning slot",
    "make sure order {o} is delivered to the back door",
    "please text me when order {o} is out for delivery",
]
LOG_EVENTS = ["parcel scanned", "sorted onto line", "loaded into trailer", "departed facility",
              "arrived at facility", "handed to carrier partner", "customs data received",
              "weight verified", "route optimised for delivery", "address validated"]


def tracking_log(rng: random.Random, order: str, turn: int) -> str:
    """A long free-text tracking log (~300-600 tokens): text, not a fact (longer than 200 characters)."""
    lines = []
    day, minute = 1 + turn % 27, rng.randrange(6 * 60, 9 * 60)
    for _ in range(rng.randint(12, 24)):
        minute += rng.randrange(7, 95)
        hub = rng.choice(HUBS)
        lines.append(f"2026-09-{day:02d} {minute // 60 % 24:02d}:{minute % 60:02d} {hub} hub: "
                     f"{rng.choice(LOG_EVENTS)} for shipment {order}-{rng.randrange(100, 999)}, scan ref "
                     f"{rng.randrange(10**7, 10**8)}, operator {rng.choice('ABCDEFGH')}{rng.randrange(10, 99)}")
    return "\n".join(lines)


@dataclass
class Workload:
    """The events of each turn; deterministic for a seed."""

    rng: random.Random
    seq: int = 0  # the head seq (gap-free from 1)
    turn: int = 0
    unknown: list[tuple[str, int]] = field(default_factory=list)  # (call id, turn to resolve at)
    approvals: list[tuple[str, int, int]] = field(default_factory=list)  # (approval id, scoped seq, turn to grant)
    writes: list[int] = field(default_factory=list)  # seq of every write call
    kinds: Counter = field(default_factory=Counter)

    def next_turn(self) -> list[dict]:
        t, rng = self.turn, self.rng
        self.turn += 1
        order = ORDERS[t % len(ORDERS)] if rng.random() < 0.8 else rng.choice(ORDERS)
        events: list[dict] = []

        def add(kind: str, payload: dict) -> int:
            events.append({"kind": kind, "payload": payload})
            self.seq += 1
            self.kinds[kind] += 1
            return self.seq

        text = rng.choice(BINDING).format(o=order) if rng.random() < 0.12 else rng.choice(SMALL_TALK)
        user_seq = add("user", {"text": text})
        # answers to earlier turns' open items come first, as a service would record them
        for call_id, due in [u for u in self.unknown if u[1] <= t]:
            self.unknown.remove((call_id, due))
            add("status_query", {"call_id": call_id, "outcome": "succeeded", "request_id": f"req-{call_id}"})
        for approval_id, scoped, due in [a for a in self.approvals if a[2] <= t]:
            self.approvals.remove((approval_id, scoped, due))
            add("approval", {"approval_id": approval_id, "status": "granted", "granted_by": "user",
                             "scopes_event": scoped, "scope": {"order_id": order, "action": "redirect"}})
        if rng.random() < 0.025:
            approval_id = f"ap-{t}"
            add("approval", {"approval_id": approval_id, "status": "requested", "scopes_event": user_seq,
                             "scope": {"order_id": order, "action": "redirect"}})
            self.approvals.append((approval_id, user_seq, t + rng.randint(2, 6)))
        read = f"r{t}"
        add("tool_call", {"tool": "track_order", "effect": "read", "call_id": read, "idempotency_key": f"k-{read}",
                          "arguments": {"order_id": order}})
        add("tool_result", {"call_id": read, "outcome": "succeeded", "request_id": f"req-{read}", "result": {
            "status": rng.choice(STATUSES), "eta": f"2026-09-{1 + (t // 7) % 28:02d}",
            "last_hub": rng.choice(HUBS), "log": tracking_log(rng, order, t)}})
        write = f"w{t}"
        window = rng.choice(WINDOWS)
        self.writes.append(add("tool_call", {
            "tool": "schedule_delivery", "effect": "write", "call_id": write, "idempotency_key": f"k-{write}",
            "arguments": {"order_id": order, "window": window}}))
        if rng.random() < 0.06:
            add("tool_result", {"call_id": write, "outcome": "timeout"})
            self.unknown.append((write, t + rng.randint(1, 4)))
            reply = f"The scheduling service did not answer in time for order {order}; I'll check its status."
        else:
            add("tool_result", {"call_id": write, "outcome": "succeeded", "request_id": f"req-{write}",
                                "result": {"confirmed": True}})
            reply = (f"Order {order} is {rng.choice(STATUSES)}; delivery is booked for {window}."
                     if rng.random() < 0.85 else f"Shall I move order {order} to a later window?")
        add("assistant", {"text": reply})
        return events


@dataclass
class Phase:
    appends: float = 0.0
    fold_idle: float = 0.0  # fold() calls that committed nothing (the status query only)
    fold_commit: float = 0.0  # fold() calls that committed, summarizer included
    summarize: float = 0.0  # the summarizer's own time (part of fold_commit)
    context: float = 0.0
    folds: int = 0
    turns: int = 0
    max_context: int = 0
    over_budget: int = 0


class TimedSummarizer(BuiltinSummarizer):
    """The built-in summarizer, its time recorded."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def summarize(self, request):
        started = time.perf_counter()
        try:
            return super().summarize(request)
        finally:
            self.seconds += time.perf_counter() - started


def section_tokens(counter: pgctx.TokenCounter, summary: dict) -> dict[str, int]:
    """Tokens of each section's lines as the model reads them (the summary message's lines), and the task message."""
    out = {"task+pending": counter.message_tokens(task_message(summary))}
    for name in ("user_requests", "facts", "constraints", "tool_state", "completed_actions", "decisions",
                 "open_questions"):
        items = summary.get(name) or []
        lines = [item_line(name, k, v) for k, v in items.items()] if isinstance(items, dict) else \
            [item_line(name, i) for i in items]
        out[name] = sum(counter.count(f"- {line}") for line in lines)
    return out


def snapshot(conn, work: Workload, fold_tokens: list[int], folds: int, context_tokens: int, elapsed: float,
             counter: pgctx.TokenCounter) -> dict:
    version, cursor, stored, summary = conn.execute(
        "SELECT k.version, k.cursor, k.tokens, k.summary FROM pgctx.checkpoints k "
        "WHERE k.conversation_id = %s AND k.version = (SELECT version FROM pgctx.fold_heads WHERE conversation_id = %s)",
        (CID, CID)).fetchone()
    state = summary["tool_state"]
    folded_writes = sum(1 for s in work.writes if s <= cursor)
    in_state = sum(1 for c in state.values() if c["effect"] != "read")
    collapsed = {f"{a['tool']} {a['status']}": a.get("count", 0) for a in summary["completed_actions"]}
    recount = (counter.message_tokens(task_message(summary))
               + counter.message_tokens(summary_message(summary, version, cursor)))
    return dict(
        events=work.seq, cursor=cursor, version=version, folds=folds, stored=stored, recount=recount,
        median=statistics.median(fold_tokens[-LAST_FOLDS:]), min20=min(fold_tokens[-LAST_FOLDS:]),
        max20=max(fold_tokens[-LAST_FOLDS:]),
        facts=len(summary["facts"]), tool_state=len(state),
        unresolved=sum(1 for c in state.values() if c["status"] in UNRESOLVED),
        reads=sum(1 for c in state.values() if c["effect"] == "read"), writes_in_state=in_state,
        completed=len(summary["completed_actions"]), collapsed=collapsed, folded_writes=folded_writes,
        user_requests=len(summary["user_requests"]), constraints=len(summary["constraints"]),
        decisions=len(summary["decisions"]), open_questions=len(summary["open_questions"]),
        pending=len(summary["pending"]), context=context_tokens, elapsed=elapsed,
        sections=section_tokens(counter, summary), fact_keys=Counter(f["key"] for f in summary["facts"]),
    )


def run(conn, total: int, marks: list[int], seed: int, progress: bool) -> tuple[list[dict], list[Phase], Workload]:
    work = Workload(random.Random(seed))
    summarizer = TimedSummarizer()
    counter = BUDGET.counter()
    fold_tokens: list[int] = []
    history: list[tuple[int, int, dict[str, int], dict[str, int]]] = []  # per fold: head, tokens, sections, counts
    snaps: list[dict] = []
    phases: list[Phase] = [Phase()]
    folds = 0
    started = phase_start = time.perf_counter()
    next_report = 5000
    while work.seq < total:
        phase = phases[-1]
        events = work.next_turn()
        t0 = time.perf_counter()
        seqs = pgctx.append_many(conn, CID, events, counter=counter)
        t1 = time.perf_counter()
        assert seqs[-1] == work.seq, (seqs, work.seq)
        before = summarizer.seconds
        result = pgctx.fold(conn, CID, budget=BUDGET, summarizer=summarizer)
        t2 = time.perf_counter()
        try:
            ctx = pgctx.build_context(conn, CID, budget=BUDGET, system=SYSTEM)
            context_tokens = ctx.total_tokens
        except ContextOverBudget:
            phase.over_budget += 1
            context_tokens = -1
        t3 = time.perf_counter()
        phase.appends += t1 - t0
        phase.context += t3 - t2
        phase.turns += 1
        phase.max_context = max(phase.max_context, context_tokens)
        if result.committed:
            folds += 1
            phase.folds += 1
            phase.fold_commit += t2 - t1
            phase.summarize += summarizer.seconds - before
            tokens, summary = conn.execute("SELECT tokens, summary FROM pgctx.checkpoints WHERE conversation_id = %s "
                                           "AND version = %s", (CID, result.version)).fetchone()
            fold_tokens.append(tokens)
            history.append((work.seq, tokens, section_tokens(counter, summary),
                            {name: len(summary[name]) for name in COUNTED}))
        else:
            phase.fold_idle += t2 - t1
        if progress and work.seq >= next_report:
            next_report += 5000
            print(f"{work.seq:,} events, {folds} folds, summary {fold_tokens[-1] if fold_tokens else 0} tokens, "
                  f"{time.perf_counter() - started:.0f}s", file=sys.stderr, flush=True)
        if marks and work.seq >= marks[0]:
            marks.pop(0)
            now = time.perf_counter()
            snaps.append(snapshot(conn, work, fold_tokens, folds, context_tokens, now - phase_start, counter))
            snaps[-1]["sections20"] = {name: statistics.median(h[2][name] for h in history[-LAST_FOLDS:])
                                       for name in history[-1][2]}
            phase_start = now
            phases.append(Phase())
    return snaps, phases[:len(snaps)], work, history


def report(snaps: list[dict], phases: list[Phase], work: Workload, history: list, info: dict) -> str:
    base = snaps[0]["median"]
    L = [
        "# Summary size over a steady workload",
        "",
        f"`{info['command']}`",
        "",
        f"{info['date']}; {info['machine']}; {info['server']}; one autocommit connection; {info['duration']:.0f}s in all.",
        "",
        f"Code measured: {info['code']}" + ("." if info["code_end"] == info["code"] else
                                            f"; **the code changed during the run**, at the end: {info['code_end']}."),
        "",
        f"Workload (seed {info['seed']}): one conversation about {len(ORDERS)} orders in rotation; a turn is a user "
        "message (88% small talk, 12% a binding instruction), a read `track_order` call and its result (status, eta, "
        "last_hub, a tracking log of ~300-600 tokens), a write `schedule_delivery` call (idempotency key) and its "
        "result (request id, confirmed), and the assistant's reply, appended with one `append_many`; 6% of writes "
        "time out and a `status_query` 1-4 turns later says succeeded; 2.5% of turns request an approval, granted "
        "2-6 turns later. After every turn: `pgctx.fold(conn, cid, budget=B)` (built-in summarizer) and "
        f"`pgctx.build_context(conn, cid, budget=B)`. B = `Budget(window=8192, fixed_input=0, output=1024, "
        f"reasoning=0, margin=0)`: B = {BUDGET.history_budget}, capacity threshold {BUDGET.threshold}, "
        f"summary_limit {BUDGET.summary_limit}, raw tail {BUDGET.tail}, context limit {BUDGET.input_limit}. "
        f"{work.turn:,} turns, events by kind: {', '.join(f'{k} {v:,}' for k, v in sorted(work.kinds.items()))}.",
        "",
        "## Summary size at each mark",
        "",
        f"Summary tokens: the committed checkpoint's stored count (`pgctx.checkpoints.tokens`); median, min and max "
        f"over the last {LAST_FOLDS} folds before the mark, and the last one. Entries: counts in the committed "
        "summary. Context: `build_context(...).total_tokens` after the mark's turn (system prompt included).",
        "",
        "| events | folds | summary tokens median (min-max) / last | facts | tool_state (unresolved) | completed actions "
        "(collapsed count per tool) | user_requests | constraints | decisions | open questions | context tokens |",
        "|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for s in snaps:
        collapsed = ", ".join(f"{k}: {v:,}" for k, v in s["collapsed"].items()) or "-"
        L.append(f"| {s['events']:,} | {s['folds']:,} | {s['median']:,.0f} ({s['min20']:,}-{s['max20']:,}) / "
                 f"{s['stored']:,} | {s['facts']} | {s['tool_state']} ({s['unresolved']}) | {s['completed']} "
                 f"({collapsed}) | {s['user_requests']} | {s['constraints']} | {s['decisions']} | "
                 f"{s['open_questions']} | {s['context']:,} |")
    L += ["", "## Target: median summary tokens flat within 10% (ratio to the 1k mark <= 1.10)", "",
          "| ratio | measured | |", "|---|---:|---|"]
    verdicts = []
    for s in snaps[1:]:
        ratio = s["median"] / base
        verdicts.append(ratio <= TARGET)
        L.append(f"| {s['events'] // 1000}k / {snaps[0]['events'] // 1000}k | {ratio:.3f} | {met(ratio <= TARGET)} |")
    if verdicts:
        L += ["", f"**Verdict: {'met' if all(verdicts) else 'MISSED'}** - median summary tokens "
              + ", ".join(f"{s['median']:,.0f}" for s in snaps) + " at "
              + ", ".join(f"{s['events']:,}" for s in snaps) + " events."]
    if len(snaps) > 2:  # for information: the last mark against the one before it
        a, z = snaps[-2], snaps[-1]
        L += ["", f"For information (not the target): {z['events'] // 1000}k / {a['events'] // 1000}k = "
              f"{z['median'] / a['median']:.3f}."]
    L += ["", "What changed between marks (median tokens per section over the last 20 folds; sections that moved "
          "by more than 5 tokens):", ""]
    for a, z in zip(snaps, snaps[1:]):
        moved = [(name, z["sections20"][name] - a["sections20"][name]) for name in a["sections20"]]
        moved = sorted([m for m in moved if abs(m[1]) > 5], key=lambda m: -abs(m[1]))
        L.append(f"- {a['events']:,} -> {z['events']:,} events: median {z['median'] - a['median']:+,.0f} tokens; "
                 + (", ".join(f"{name} {d:+,.0f}" for name, d in moved) or "no section moved by more than 5") + ".")
    L += ["", "## Where the summary's tokens are", "",
          "Tokens of each section's lines in the committed summary at the mark (the task message holds goal, status "
          "and pending actions; the summary message adds a header and section titles).", "",
          "| events | " + " | ".join(snaps[0]["sections"]) + " | stored total |",
          "|---:|" + "---:|" * (len(snaps[0]["sections"]) + 1)]
    for s in snaps:
        L.append(f"| {s['events']:,} | " + " | ".join(f"{v:,}" for v in s["sections"].values())
                 + f" | {s['stored']:,} |")
    L += ["", "## Along the way", "",
          f"The last {LAST_FOLDS} folds before each point: median summary tokens, median tokens per section and the "
          "entries of the last fold (a section that keeps growing shows here; one that fills up to its cap "
          "shows a ramp that stops).", "",
          "| events | folds | summary tokens | " + " | ".join(snaps[0]["sections"]) + " | entries: "
          + ", ".join(COUNTED) + " |",
          "|---:|---:|---:|" + "---:|" * len(snaps[0]["sections"]) + "---|"]
    for point in [p for p in ALONG if p <= work.seq]:
        upto = [h for h in history if h[0] <= point][-LAST_FOLDS:]
        if not upto:
            continue
        n = sum(1 for h in history if h[0] <= point)
        sections = " | ".join(f"{statistics.median(h[2][name] for h in upto):,.0f}" for name in snaps[0]["sections"])
        L.append(f"| {point:,} | {n:,} | {statistics.median(h[1] for h in upto):,.0f} | {sections} | "
                 + ", ".join(str(upto[-1][3][name]) for name in COUNTED) + " |")
    L += ["", "## Checks", ""]
    for s in snaps:
        accounted = s["writes_in_state"] + sum(s["collapsed"].values())
        L.append(f"- {s['events']:,} events (cursor {s['cursor']:,}, version {s['version']}): stored tokens "
                 f"{s['stored']:,}, recounted from the summary {s['recount']:,}; writes folded {s['folded_writes']:,} "
                 f"= in tool_state {s['writes_in_state']} + collapsed {sum(s['collapsed'].values()):,} -> "
                 f"{accounted:,} ({'consistent' if accounted == s['folded_writes'] else 'MISMATCH'}); tool_state "
                 f"reads {s['reads']}; pending {s['pending']}; fact keys "
                 + ", ".join(f"{k} {v}" for k, v in sorted(s["fact_keys"].items())) + ".")
    L += ["", "## Wall time per phase (for information)", "",
          "| phase | turns | wall s | append_many s | fold, none due s | fold, committed s (summarizer) | "
          "build_context s | folds | max context tokens | over budget |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    start = 0
    for s, p in zip(snaps, phases):
        L.append(f"| {start:,}-{s['events']:,} | {p.turns:,} | {s['elapsed']:.1f} | {p.appends:.1f} | "
                 f"{p.fold_idle:.1f} | {p.fold_commit:.1f} ({p.summarize:.1f}) | {p.context:.1f} | {p.folds:,} | "
                 f"{p.max_context:,} | {p.over_budget} |")
        start = s["events"]
    L.append("")
    L.append("Per turn in each phase, ms: " + "; ".join(
        f"{p.turns and 1000 * p.appends / p.turns:.2f} append, "
        f"{(p.turns - p.folds) and 1000 * p.fold_idle / (p.turns - p.folds):.2f} idle fold, "
        f"{p.folds and 1000 * p.fold_commit / p.folds:.2f} committing fold "
        f"({p.folds and 1000 * p.summarize / p.folds:.2f} summarizer), "
        f"{p.turns and 1000 * p.context / p.turns:.2f} build_context"
        for p in phases) + ".")
    return "\n".join(L) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000, help="events to append (default 100000)")
    parser.add_argument("--quick", action="store_true", help="10,000 events (marks at 1k and 10k)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--out", type=Path, help="write the report here (default: results/summary-size.md for a "
                                                 "full run, nowhere otherwise)")
    args = parser.parse_args()
    total = 10_000 if args.quick else args.events
    marks = [m for m in (1_000, 10_000, 100_000) if m < total] + [total]
    marks = sorted(set(marks))
    command = shlex.join([".venv/bin/python", "bench/bench_summary_size.py", *sys.argv[1:]])
    code = code_state()
    server = EmbeddedPostgres(fsync=False)
    started = time.perf_counter()
    try:
        dsn = server.superuser_dsn("test")
        pgctx.migrate(dsn)
        with psycopg.connect(dsn, autocommit=True) as conn:
            settings = dict(conn.execute("SELECT name, setting FROM pg_settings WHERE name IN "
                                         "('server_version', 'fsync', 'synchronous_commit', 'jit')").fetchall())
            snaps, phases, work, history = run(conn, total, marks, args.seed, not args.no_progress)
    finally:
        server.stop()
    info = {
        "command": command, "seed": args.seed, "code": code, "code_end": code_state(), "duration": time.perf_counter() - started,
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{cpu_model()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
                   f"Python {platform.python_version()}, psycopg {psycopg.__version__} ({psycopg.pq.__impl__})",
        "server": (f"PostgreSQL {settings['server_version']} (pgctx.embedded), fsync={settings['fsync']}, "
                   f"synchronous_commit={settings['synchronous_commit']}, jit={settings['jit']}"),
    }
    text = report(snaps, phases, work, history, info)
    print(text)
    out = args.out or (RESULTS / "summary-size.md" if total == 100_000 else None)
    if out is not None:
        out.parent.mkdir(exist_ok=True)
        out.write_text(text)
        print(f"written to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
