#!/usr/bin/env python3
"""Write the trajectory suite that `pgctx eval` runs: pgctx/evaluation/suite/NN_<id>.jsonl (docs/eval.md).

    .venv/bin/python scripts/generate_suite.py            # (re)write the files
    .venv/bin/python scripts/generate_suite.py --check    # exit 1 if the files differ from what it writes

Each trajectory is one function below. It drives a :class:`Builder`, which appends events as an
agent service would (tracking seqs per conversation and branch, tool calls and their answers,
recoveries and merges), renders long tool output deterministically, and adds decision points
whose probes it checks for fairness as it goes (a ``next_call`` value must come from earlier in
the conversation, never from the turn's own request; a cited seq must already exist). The
function-calling trajectories (file system, trading, travel, messaging, vehicle) run their tools
against small in-memory simulations, so every result is consistent with the calls before it.

Everything random comes from one ``random.Random`` seeded with the trajectory id: the output is
byte-identical on every run. Sizes are checked against the budget the suite is evaluated with
(a 4,096-token window, 512 reserved for output): no event over 1,000 tokens, no turn (one user
message up to the next) over 1,600, and every trajectory at least 100 events and 20,000 tokens.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pgctx.messages import event_message
from pgctx.evaluation.probes import text_of
from pgctx.tokens import TokenCounter

SUITE_DIR = Path(__file__).resolve().parent.parent / "pgctx" / "evaluation" / "suite"
COUNTER = TokenCounter("o200k_base")
MAX_EVENT_TOKENS = 1000
MAX_TURN_TOKENS = 1600
MIN_EVENTS = 100
MIN_TOKENS = 20_000
EARLY_TOKENS = 2_000  # an early decision point: the conversation still fits, nothing is folded away

Line = Callable[[random.Random], str]
Output = tuple[dict[str, Any], str | None]  # what a simulated tool returns: its result, and its log if any


def event_tokens(kind: str, payload: dict[str, Any]) -> int:
    """An event's tokens, as pgctx counts them when it is appended."""
    return COUNTER.message_tokens(event_message(kind, payload))


def event_text(kind: str, payload: dict[str, Any]) -> str:
    """What the model reads of an event, as the judge reads it (pgctx.evaluation.probes.text_of)."""
    return text_of([event_message(kind, payload)])


def tool(name: str, effect: str, identifier_args: Iterable[str] = (), description: str = "") -> dict[str, Any]:
    """A header tool declaration."""
    spec: dict[str, Any] = {"tool": name, "effect": effect, "identifier_args": list(identifier_args)}
    if description:
        spec["description"] = description
    return spec


# -- probes (docs/eval.md, "Probes and how each is judged") --------------------------------------------------

def _probe(cls: str, why: str, **fields: Any) -> dict[str, Any]:
    probe = {"probe": cls, **{k: v for k, v in fields.items() if v is not None}}
    if why:
        probe["why"] = why
    return probe


def fact(key: str, value: Any, *, subject: str | None = None, superseded: Iterable[Any] = (),
         why: str = "") -> dict[str, Any]:
    return _probe("fact", why, key=key, subject=subject, value=value, superseded=list(superseded) or None)


def state(call: Call, status: str, *, request_id: str | None = None, by_key: bool = False,
          why: str = "") -> dict[str, Any]:
    """The call's status (named by idempotency key with ``by_key``, as a status query asks)."""
    name = {"idempotency_key": call.key} if by_key else {"call_id": call.id}
    return _probe("tool_state", why, **name, status=status, request_id=request_id)


def next_call(tool_name: str, why: str = "", **arguments: str) -> dict[str, Any]:
    return _probe("next_call", why, tool=tool_name, arguments=arguments)


def pending(*, approval_id: str | None = None, call: Call | None = None, why: str = "") -> dict[str, Any]:
    return _probe("pending", why, approval_id=approval_id, call_id=call.id if call else None)


def constraint(seq: int, text: str, why: str = "") -> dict[str, Any]:
    return _probe("constraint", why, seq=seq, text=text)


def evidence(*seqs: int, why: str = "") -> dict[str, Any]:
    return _probe("evidence", why, seqs=list(seqs))


# -- the builder ---------------------------------------------------------------------------------------------

@dataclass
class Call:
    """One tool call as the trajectory made it, and what answered it."""

    id: str
    tool: str
    arguments: dict[str, Any]
    effect: str
    key: str | None
    seq: int
    answer_seq: int | None = None
    request_id: str | None = None
    result: dict[str, Any] = field(default_factory=dict)
    interrupted: bool = False  # a recovery made it unknown


@dataclass
class Conversation:
    """The main conversation or a branch: its seqs, the history it sees, its current turn."""

    seq: int = 0
    history: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)  # (seq, kind, payload)
    calls: list[Call] = field(default_factory=list)
    tokens: int = 0
    turn_tokens: int = 0

    def copy(self) -> Conversation:
        return Conversation(self.seq, list(self.history), list(self.calls), self.tokens, self.turn_tokens)


class Builder:
    """Appends the steps of one trajectory, checking sizes, seqs and probe fairness as it goes.

    ``reserved`` are the values the trajectory's ``next_call`` probes use: random log lines never
    contain them, so a value is in the context only where the conversation put it on purpose.
    """

    def __init__(self, id: str, title: str, description: str, exercises: list[str], tools: list[dict[str, Any]],
                 reserved: Iterable[str] = ()):
        self.header = {"pgctx_trajectory": 1, "id": id, "title": title, "exercises": exercises,
                       "description": description, "tools": tools}
        self.rng = random.Random(id)
        self.effects = {t["tool"]: t["effect"] for t in tools}
        self.identifiers = {t["tool"]: t["identifier_args"] for t in tools}
        self.reserved = [v.lower() for v in reserved]
        self.steps: list[dict[str, Any]] = []
        self.branches = {"main": Conversation()}
        self.current = "main"
        self.call_numbers = itertools.count(1)
        self.tokens = 0
        self.events = 0
        self._small_talk = itertools.cycle(self.rng.sample(SMALL_TALK, len(SMALL_TALK)))

    @property
    def conv(self) -> Conversation:
        return self.branches[self.current]

    # events

    def event(self, kind: str, **payload: Any) -> int:
        conv = self.conv
        tokens = event_tokens(kind, payload)
        assert tokens <= MAX_EVENT_TOKENS, f"{self.header['id']}: a {kind} event of {tokens} tokens"
        if kind == "user":
            self._end_turn(conv)
        conv.tokens += tokens
        conv.turn_tokens += tokens
        conv.seq += 1
        conv.history.append((conv.seq, kind, payload))
        self.steps.append({"type": "event", "kind": kind, "payload": payload, "seq": conv.seq})
        self.tokens += tokens
        self.events += 1
        return conv.seq

    def _end_turn(self, conv: Conversation) -> None:
        assert conv.turn_tokens <= MAX_TURN_TOKENS, (
            f"{self.header['id']}: the turn before seq {conv.seq + 1} has {conv.turn_tokens} tokens")
        conv.turn_tokens = 0

    def user(self, text: str) -> int:
        return self.event("user", text=text)

    def assistant(self, text: str) -> int:
        return self.event("assistant", text=text)

    def chat(self, user: str, assistant: str) -> int:
        """A user message and the assistant's reply; the user message's seq."""
        seq = self.user(user)
        self.assistant(assistant)
        return seq

    def small_talk(self, n: int = 1) -> None:
        """``n`` exchanges of small talk, in a shuffled order that repeats only once exhausted."""
        for user, assistant in itertools.islice(self._small_talk, n):
            self.chat(user, assistant)

    def meanwhile(self, n: int, *turns: Callable[[], Any]) -> None:
        """``n`` turns while the task waits, each one of ``turns`` drawn at random (list one twice to weight it)."""
        for _ in range(n):
            self.rng.choice(turns)()

    def fact(self, key: str, value: Any, authority: str, *, kind: str = "fact", subject: str | None = None,
             confidence: str | None = None) -> int:
        payload = {"key": key, "value": value, "authority": authority}
        if confidence:
            payload["confidence"] = confidence
        if subject:
            payload["subject"] = subject
        return self.event(kind, **payload)

    def call(self, tool_name: str, arguments: dict[str, Any], *, key: str | None = None) -> Call:
        """A tool call without its answer yet (its effect is the header's declaration). A write or
        irreversible call gets an idempotency key: ``key``, or one made of its identifiers."""
        number = next(self.call_numbers)
        effect = self.effects[tool_name]
        payload: dict[str, Any] = {"tool": tool_name, "call_id": f"c-{number}", "arguments": arguments}
        if effect != "read":
            idents = [str(arguments[a]) for a in self.identifiers[tool_name] if a in arguments]
            key = key or "-".join([tool_name.replace("_", "-"), *idents, str(number)])
            payload["idempotency_key"] = key
        seq = self.event("tool_call", **payload)
        call = Call(payload["call_id"], tool_name, arguments, effect, key, seq)
        self.conv.calls.append(call)
        return call

    def answer(self, call: Call, outcome: str = "succeeded", *, result: dict[str, Any] | None = None,
               log: str | None = None, error: str | None = None, request_id: str | None = None) -> int:
        """The call's tool_result; a succeeded write or irreversible call always carries a request id."""
        payload: dict[str, Any] = {"call_id": call.id, "outcome": outcome}
        if outcome == "succeeded" and call.effect != "read":
            request_id = request_id or f"req_{hexid(self.rng, 10)}"
        if request_id:
            payload["request_id"] = request_id
        if error:
            payload["error"] = error
        if result is not None:
            payload["result"] = result
        if log is not None:
            payload["log"] = log
        call.answer_seq, call.request_id, call.result = self.event("tool_result", **payload), request_id, result or {}
        return call.answer_seq

    def tool(self, tool_name: str, arguments: dict[str, Any], result: dict[str, Any] | None = None, *,
             log: str | None = None) -> Call:
        """A call that succeeded, with its result."""
        call = self.call(tool_name, arguments)
        self.answer(call, result=result, log=log)
        return call

    def run(self, sim: Any, tool_name: str, **arguments: Any) -> Call:
        """Execute ``tool_name`` on a simulation (its method returns (result, log or None)) and record it."""
        result, log = getattr(sim, tool_name)(**arguments)
        return self.tool(tool_name, arguments, result, log=log)

    def status_query(self, call: Call, outcome: str, authority: str, request_id: str | None = None) -> int:
        """The service's answer, asked by idempotency key, about a call whose outcome was unknown."""
        payload: dict[str, Any] = {"call_id": call.id, "idempotency_key": call.key, "outcome": outcome}
        if request_id:
            payload["request_id"] = request_id
        payload["authority"] = authority
        call.answer_seq, call.request_id = self.event("status_query", **payload), request_id
        return call.answer_seq

    def approval(self, approval_id: str, status: str, scopes_event: int, scope: dict[str, Any], text: str,
                 granted_by: str = "user") -> int:
        """An approval requested, or answered (granted or denied) by ``granted_by``."""
        answer = {} if status == "requested" else {"granted_by": granted_by}
        return self.event("approval", approval_id=approval_id, status=status, scopes_event=scopes_event,
                          scope=scope, **answer, text=text)

    # steps that are not events

    def decide(self, id: str, *probes: dict[str, Any], early: bool = False) -> None:
        """A decision point right after a user message; every probe is checked for fairness first.
        ``early``: the history is still short, so nothing may be lost (checked)."""
        history = self.conv.history
        assert history and history[-1][1] == "user", f"{self.header['id']}/{id}: a decision must follow a user event"
        assert not early or self.conv.tokens < EARLY_TOKENS, f"{self.header['id']}/{id}: {self.conv.tokens} tokens"
        assert 2 <= len(probes) <= 8, f"{self.header['id']}/{id}: {len(probes)} probes"
        for probe in probes:
            self._check(id, probe)
        step: dict[str, Any] = {"type": "decision", "id": id, "probes": list(probes)}
        if early:
            step["note"] = f"early: under {EARLY_TOKENS:,} tokens of history, nothing may be lost"
        self.steps.append(step)

    def _check(self, decision: str, probe: dict[str, Any]) -> None:
        where = f"{self.header['id']}/{decision}"
        history = self.conv.history
        by_seq = {seq: (kind, payload) for seq, kind, payload in history}
        if probe["probe"] == "next_call":
            request = history[-1][2]["text"].lower()
            earlier = "\n".join(event_text(k, p) for _, k, p in history[:-1]).lower()
            for value in probe["arguments"].values():
                text = str(value).lower()
                assert text not in request, f"{where}: {value!r} is in the turn's own request"
                assert text in earlier, f"{where}: {value!r} appears nowhere earlier"
        elif probe["probe"] == "constraint":
            kind, payload = by_seq[probe["seq"]]
            assert probe["text"].lower() in payload["text"].lower(), f"{where}: {probe['text']!r} not at {probe['seq']}"
        elif probe["probe"] == "evidence":
            assert all(s in by_seq for s in probe["seqs"]), f"{where}: evidence {probe['seqs']}"
        elif probe["probe"] in ("tool_state", "pending") and "call_id" in probe:
            assert any(c.id == probe["call_id"] for c in self.conv.calls), f"{where}: no call {probe['call_id']}"

    def recover(self) -> int | None:
        """The agent restarted: a call left without an answer becomes unknown through one recovery event."""
        self.steps.append({"type": "recover"})
        conv = self.conv
        interrupted = [c for c in conv.calls if c.answer_seq is None and not c.interrupted]
        if not interrupted:
            return None
        for c in interrupted:
            c.interrupted = True
        conv.seq += 1
        conv.history.append((conv.seq, "recovery", {"interrupted_calls": [{"call_id": c.id, "seq": c.seq}
                                                                          for c in interrupted]}))
        return conv.seq

    def fork(self, branch: str) -> None:
        """A branch of the current conversation at its head (everything is answered, so all of it folds)."""
        assert all(c.answer_seq is not None for c in self.conv.calls), "fork with a call still waiting"
        self.steps.append({"type": "fork", "branch": branch})
        self.branches[branch] = self.conv.copy()

    def switch(self, branch: str) -> None:
        self.steps.append({"type": "switch", "branch": branch})
        self.current = branch

    def confirm_mainline(self, branch: str) -> int:
        """``branch`` becomes the mainline: one branch_merge event on it."""
        self.steps.append({"type": "confirm_mainline", "branch": branch})
        conv = self.branches[branch]
        conv.seq += 1
        conv.history.append((conv.seq, "branch_merge", {}))
        return conv.seq

    # generated text

    def log(self, line: Line, tokens: int, head: Iterable[str] = ()) -> str:
        """Long tool output: the ``head`` lines, then lines of ``line`` until about ``tokens`` tokens.
        A generated line holding a reserved value is drawn again."""
        lines = list(head)
        total = sum(COUNTER.count(x) + 1 for x in lines)
        while total < tokens:
            text = line(self.rng)
            if any(v in text.lower() for v in self.reserved):
                continue
            lines.append(text)
            total += COUNTER.count(text) + 1
        return "\n".join(lines)

    def page(self, title: str, pool: list[str], tokens: int) -> str:
        """A page body (help article, e-mail, document): ``title``, then the sentences of ``pool`` in a
        shuffled order, three to a paragraph, until about ``tokens`` tokens."""
        order = self.rng.sample(pool, len(pool))
        paragraphs, total, start = [title], COUNTER.count(title), 0
        while total < tokens:
            paragraph = " ".join(order[(start + i) % len(order)] for i in range(3))
            paragraphs.append(paragraph)
            total += COUNTER.count(paragraph) + 1
            start += 3
        return "\n\n".join(paragraphs)

    def render(self) -> str:
        for conv in self.branches.values():
            self._end_turn(conv)
        where = self.header["id"]
        assert self.events >= MIN_EVENTS and self.tokens >= MIN_TOKENS, (
            f"{where}: {self.events} events, {self.tokens} tokens")
        decisions = sum(s["type"] == "decision" for s in self.steps)
        assert 3 <= decisions <= 8, f"{where}: {decisions} decision points"
        lines = [self.header] + self.steps
        return "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in lines)


# -- long tool output: one line maker per kind of listing ----------------------------------------------------

def clock(rng: random.Random) -> str:
    return f"{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}"


def hexid(rng: random.Random, digits: int = 8) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(digits))


HUBS = [("HZ-XS02", "Hangzhou Xiaoshan Sorting Center"), ("JX-TR01", "Jiaxing Transfer Hub"),
        ("SH-QP04", "Shanghai Qingpu Gateway"), ("SZ-IP03", "Suzhou Industrial Park Depot"),
        ("KS-LH01", "Kunshan Linehaul Yard"), ("SH-MH11", "Shanghai Minhang Delivery Station")]
SCAN_OPS = ["ARRIVAL_SCAN", "SORT_SCAN", "DEPARTURE_SCAN", "LINEHAUL_LOAD", "LINEHAUL_UNLOAD", "BAG_CLOSE",
            "BAG_OPEN", "WEIGHT_CHECK", "DIM_CHECK", "CAGE_TRANSFER", "DOCK_ASSIGN", "EXCEPTION_REVIEW"]

UK_HUBS = [("HINCK-01", "Hinckley Hub"), ("OLDBURY", "Oldbury Superhub"), ("BRS-DEP", "Bristol Depot"),
           ("AVON-DC", "Avonmouth Distribution Centre"), ("MAN-TRF", "Manchester Trafford Depot"),
           ("SWN-DEP", "Swindon Depot")]


def scan_line(days: list[str], hubs: list[tuple[str, str]] = HUBS) -> Line:
    """A courier's scan history line, on one of ``days``, at one of ``hubs``."""
    def line(rng: random.Random) -> str:
        code, hub = rng.choice(hubs)
        note = rng.choice([f"weight {rng.uniform(20, 31):.2f}kg", f"dims {rng.randrange(140, 160)}x78x18cm",
                           "seal intact", "label reprinted", f"scanner HS-{rng.randrange(100, 999)}",
                           f"route {rng.choice('ABCDEF')}{rng.randrange(10, 99)}", f"dock {rng.randrange(1, 24)}",
                           "no exception", f"trailer {rng.choice(['ZJ', 'HU', 'SU'])}-{rng.randrange(1000, 9999)}"])
        return (f"{rng.choice(days)} {clock(rng)} {code:<8} {rng.choice(SCAN_OPS):<16} "
                f"bag BG{rng.randrange(10**5, 10**6)} belt {rng.randrange(1, 40):02d} op {rng.randrange(2000, 9999)} "
                f"{hub}; {note}")
    return line


def server_log(service: str, paths: list[str], day: str) -> Line:
    """An HTTP service's access log."""
    def line(rng: random.Random) -> str:
        status = rng.choice([200] * 12 + [201, 204, 304, 400, 404, 409, 429, 500, 502])
        return (f"{day}T{clock(rng)}.{rng.randrange(1000):03d}Z {'WARN' if status >= 400 else 'INFO'} {service} "
                f"{rng.choice(['GET', 'GET', 'POST', 'PATCH'])} {rng.choice(paths)} status={status} "
                f"dur={rng.randrange(3, 900)}ms trace={hexid(rng)} node={service}-{rng.randrange(1, 9)}")
    return line


def table(columns: list[Callable[[random.Random], str]], sep: str = "  ") -> Line:
    """A row of a fixed-column listing, one generator per column."""
    return lambda rng: sep.join(col(rng) for col in columns)


def choice(options: list[str]) -> Callable[[random.Random], str]:
    return lambda rng: rng.choice(options)


def number(lo: float, hi: float, fmt: str = "{:.2f}") -> Callable[[random.Random], str]:
    return lambda rng: fmt.format(rng.uniform(lo, hi))


def integer(lo: int, hi: int, fmt: str = "{}") -> Callable[[random.Random], str]:
    return lambda rng: fmt.format(rng.randrange(lo, hi))


def date_in(year_month: str, lo: int = 1, hi: int = 28) -> Callable[[random.Random], str]:
    return lambda rng: f"{year_month}-{rng.randrange(lo, hi + 1):02d}"



# -- small talk ----------------------------------------------------------------------------------------------

SMALL_TALK = [
    ("Sorry, I got distracted by a phone call. Where were we?", "No problem — we're right where we left off."),
    ("Thanks for being patient with me today.", "Of course. Take your time."),
    ("Is it always this busy on a Monday?", "Mondays are usually the busiest day for support, yes."),
    ("Do you work weekends too?", "I'm available any time you need help."),
    ("Give me a second, my cat just knocked over a plant.", "Ha — take care of the plant first, I'll wait."),
    ("Hmm, okay. Let me think about it for a moment.", "Sure, take all the time you need."),
    ("By the way, the weather here is awful today.", "Sorry to hear that — hopefully it clears up soon."),
    ("That's reassuring, thank you.", "Glad it helps."),
    ("I'm back. Sorry, I had to step away.", "Welcome back! Nothing has changed on my side."),
    ("You're much faster than the phone hotline.", "Thank you! I'm happy to help here."),
    ("Could you keep your answers short? I'm on my phone.", "Sure, I'll keep it brief."),
    ("Just a moment, someone is at the door.", "No rush, I'll be here."),
    ("Alright, I'm following so far.", "Great, let me know when you're ready for the next step."),
    ("My colleague had the same issue last month.", "It's a fairly common situation, and usually resolved quickly."),
    ("Okay, I trust you on this one.", "Thanks — I'll keep you posted on every step."),
    ("Wow, that was quick.", "Happy to hear that!"),
    ("I've been waiting all week for this to be sorted.", "I understand, let's get it sorted today."),
    ("Is there a way to get notifications about this?", "You'll get an e-mail for every status change."),
    ("I'll grab a coffee and be right back.", "Enjoy your coffee, I'll be here."),
    ("Sorry if I'm asking a lot of questions.", "Not at all, questions are welcome."),
]


# -- the trajectories ----------------------------------------------------------------------------------------

TRACKING_ASKS = [
    "Any update on the parcel?", "Can you check the tracking again?", "Where is it now?",
    "Has it moved since this morning?", "Is it any closer?", "Could you look it up once more?",
    "What does the courier say now?", "Any news from the carrier?", "Still stuck, or moving?",
    "Sorry to bother you again — any progress?", "Check again please, I'm getting nervous.",
    "Did the status change?",
]


def order_delivery_long() -> Builder:
    order, waybill, phone = "10086", "SF1402758832", "138-0013-7745"
    b = Builder(
        "order-delivery-long", "A delivery followed for days: 60 tracking look-ups, one rescheduling",
        "One order tracked over a week: about sixty tracking look-ups, each returning a ~900-token scan "
        "history, an ETA that slips twice, one delivery-date change that succeeded, and a request the user "
        "makes once early (have the courier call first) and repeats once near the end. Probes check the "
        "confirmed delivery date against the original one, the latest ETA against older ones, the request, "
        "and the identifiers the next call needs.",
        ["long order conversation (~240 events, ~60 tracking look-ups with long scan logs)",
         "a write that succeeded sets the confirmed date (fact with the original date superseded)",
         "the latest ETA from the last tracking call supersedes older ETAs",
         "a user request stated early and repeated later (constraint)",
         "next_call values from early in the conversation (waybill, phone number)"],
        [tool("get_order", "read", ["order_id"]), tool("track_shipment", "read", ["tracking_no"]),
         tool("update_delivery_date", "write", ["order_id"]), tool("add_courier_note", "write", ["order_id"])],
        reserved=[order, waybill, phone])
    b.user(f"Hi, my order {order} (the oak standing desk) still hasn't arrived. Can you see where it is?")
    b.tool("get_order", {"order_id": order},
           {"order_id": order, "item": "oak standing desk 140x70", "status": "shipped", "carrier": "SF Express",
            "tracking_no": waybill, "delivery_date": "2024-06-14"})
    b.assistant(f"It shipped with SF Express, waybill {waybill}, and is due on 2024-06-14.")
    ask_call = b.user(f"Thanks. Please have the courier call me before arriving — {phone}. "
                      "The intercom in my building is broken.")
    b.assistant(f"Noted: the courier should call {phone} before arriving. I'll pass it on once a courier "
                "is assigned to the last leg.")
    day = 9

    def lookup(eta: str, status: str) -> Call:
        nonlocal day
        if b.rng.random() < 0.3:
            day += 1  # the parcel's scan history grows by a day now and then
        days = [f"2024-06-{d:02d}" for d in range(8, min(day, 17) + 1)]
        where = b.rng.choice(HUBS)[1]
        call = b.tool("track_shipment", {"tracking_no": waybill},
                      {"tracking_no": waybill, "status": status, "last_scan": where, "eta": eta},
                      log=b.log(scan_line(days), b.rng.randrange(620, 860),
                                head=[f"Waybill {waybill} — scan history, oldest first"]))
        b.assistant(f"Last scan at {where}; status {status.replace('_', ' ')}, estimated arrival {eta}.")
        return call

    def track(eta: str, status: str) -> Call:
        b.user(b.rng.choice(TRACKING_ASKS))
        return lookup(eta, status)

    etas = ["2024-06-14 14:00-18:00", "2024-06-16 09:00-13:00", "2024-06-18 09:00-12:00", "2024-06-18 13:00-15:00"]
    track(etas[0], "in_transit")
    b.user("Is it moving at all? Check again please.")
    b.decide("early-check",
             next_call("track_shipment", tracking_no=waybill, why="the waybill came from get_order"),
             constraint(ask_call, "call me before arriving"),
             fact("delivery_date", "2024-06-14"),
             fact("tracking_no", waybill), early=True)
    lookup(etas[0], "in_transit")
    for _ in range(9):
        track(etas[0], "in_transit")
    for _ in range(8):
        track(etas[1], "delayed")
    b.chat("The 16th is bad for me, I'm travelling until the 18th.",
           "Understood. I can ask SF Express to hold it and deliver on June 18 instead, if you like.")
    b.user("Yes please, move the delivery to June 18.")
    move = b.tool("update_delivery_date", {"order_id": order, "delivery_date": "2024-06-18"},
                  {"order_id": order, "delivery_date": "2024-06-18", "carrier_confirmation": "SF-RS-55120"})
    b.assistant("Done: the delivery is now booked for 2024-06-18 (carrier confirmation SF-RS-55120).")
    b.small_talk(2)
    b.user("Did the date change actually go through? I want to be sure before I leave.")
    b.decide("date-confirmed",
             state(move, "succeeded", request_id=move.request_id, why="the user asks whether the write happened"),
             fact("delivery_date", "2024-06-18", superseded=["2024-06-14"]),
             constraint(ask_call, "call me before arriving"))
    b.assistant(f"Yes: the change went through (request {move.request_id}); the delivery is booked for 2024-06-18.")
    for _ in range(12):
        track(etas[2], "held_at_depot")
    b.user("What's the latest estimate now?")
    b.decide("latest-eta",
             next_call("track_shipment", tracking_no=waybill),
             fact("eta", etas[2], superseded=etas[:2]),
             fact("delivery_date", "2024-06-18", superseded=["2024-06-14"]),
             constraint(ask_call, "call me before arriving"))
    lookup(etas[2], "held_at_depot")
    for _ in range(10):
        track(etas[3], "held_at_depot")
    repeat = b.user("And remember: the courier must call me before arriving, I can't hear the door.")
    b.assistant("Yes — I'll make sure the courier has the note to call you first.")
    for _ in range(3):
        track(etas[3], "scheduled")
    b.user("Quick one: which day is it booked for again, and when do they expect to come?")
    b.decide("booked-day",
             fact("delivery_date", "2024-06-18", superseded=["2024-06-14"]),
             fact("eta", etas[3], superseded=etas[:3]),
             constraint(repeat, "call me before arriving"))
    b.assistant(f"It's booked for 2024-06-18, and SF Express expects to come {etas[3][11:]} that day.")
    for _ in range(12):
        track(etas[3], "scheduled")
    track(etas[3], "out_for_delivery")
    b.user("The app says it's out for delivery! Make sure the courier has my note.")
    b.decide("courier-note",
             next_call("add_courier_note", order_id=order, phone=phone, why="both from the first two messages"),
             constraint(repeat, "call me before arriving"),
             fact("eta", etas[3], superseded=etas[:3]),
             fact("delivery_date", "2024-06-18", superseded=["2024-06-14"]),
             state(move, "succeeded", request_id=move.request_id))
    b.tool("add_courier_note", {"order_id": order, "phone": phone, "note": "Please call before arriving"},
           {"order_id": order, "note_added": True})
    b.assistant(f"The courier now has your note: call {phone} before arriving.")
    return b


RETAIL_HELP = [
    "Large items are delivered by a two-person team to the room of your choice.",
    "Please make sure the delivery route is clear and that lifts are available on the day.",
    "Items over 1.9 m tall may need to be carried up the stairs if the lift is too small.",
    "Our drivers will call you about 30 minutes before they arrive when a phone number is on file.",
    "You can change your delivery slot free of charge up to 24 hours before the slot starts.",
    "Refunds are issued to the original payment method within 5 to 10 working days.",
    "Damaged items can be returned within 30 days; please keep the original packaging if possible.",
    "A return label is e-mailed to you once the return has been registered.",
    "Drop-off points accept parcels up to 30 kg and 120 cm on the longest side.",
    "Assembly service is available in most postcodes for a flat fee per item.",
    "If nobody is home, the team will wait up to 10 minutes before rescheduling.",
    "Gift cards and vouchers cannot be refunded to a bank card.",
    "Warranty claims require the order number and a photo of the fault.",
    "Orders placed before 2 pm on a working day are usually dispatched the same day.",
    "We will never ask for your full card number by phone or e-mail.",
    "Delivery slots are four hours long; you will get a one-hour window on the morning of delivery.",
    "Please check every item on delivery and report visible damage within 48 hours.",
    "Replacement items are sent as soon as the original item has been collected or dropped off.",
    "Our customer service team is available seven days a week from 8 am to 10 pm.",
    "Some remote areas have longer delivery times and a limited choice of slots.",
    "For safety reasons, our drivers cannot move existing furniture or appliances.",
    "Packaging can be taken away by the delivery team on request.",
]

RETAIL_QUESTIONS = [
    ("Will the delivery team carry it upstairs?", "KB-1104", "Delivering large items"),
    ("What if I'm not home when they come?", "KB-1120", "Missed deliveries"),
    ("Can I change the slot later if my plans change?", "KB-1131", "Changing your delivery slot"),
    ("How do refunds work with you, in general?", "KB-2210", "Refunds and payment methods"),
    ("Do you take the packaging away?", "KB-1152", "Packaging and recycling"),
    ("What's your return policy for damaged items?", "KB-2240", "Returning a damaged item"),
    ("Is there an assembly service?", "KB-1170", "Assembly service"),
    ("How do warranty claims work?", "KB-2301", "Warranty claims"),
]


def help_turn(b: Builder) -> None:
    """The user asks a general question; the agent reads a help-center article (~400-550 tokens)."""
    question, article, title = b.rng.choice(RETAIL_QUESTIONS)
    b.user(question)
    b.tool("get_help_article", {"article_id": article}, {"article_id": article, "title": title},
           log=b.page(title, RETAIL_HELP, b.rng.randrange(380, 560)))
    b.assistant(f"According to our help center ({title}): " + b.rng.choice(RETAIL_HELP))


PANELS = ["side panel L", "side panel R", "top panel", "base plinth", "back board", "shelf", "door L", "door R",
          "hanging rail", "drawer front", "drawer side", "cross brace"]
FIXINGS = ["cam lock 15 mm", "dowel 8x30", "screw 4x16", "screw 3.5x30", "hinge 110°", "shelf pin", "rail bracket",
           "wall anchor", "drawer runner", "bumper pad"]


def manual_turn(b: Builder, product: str, question: str) -> None:
    """The user asks about assembly; the agent reads a section of the product manual (~700-850 tokens)."""
    b.user(question)
    section = b.rng.randrange(2, 9)
    row = table([integer(1, 60, "step {:02d}:"), lambda rng: f"fit {rng.choice(PANELS)} to {rng.choice(PANELS)}",
                 lambda rng: f"with {rng.randrange(2, 9)} x {rng.choice(FIXINGS)}",
                 choice(["2 people", "1 person", "use a level", "do not overtighten", "check alignment"])])
    b.tool("get_product_manual", {"product_id": product, "section": section},
           {"product_id": product, "section": section, "pages": b.rng.randrange(3, 7)},
           log=b.log(row, b.rng.randrange(680, 850), head=[f"{product} assembly manual, section {section}"]))
    tip = b.rng.choice(["two people are needed for this part.", "the fixings are in bag C.",
                        "it takes about 40 minutes.", "use the wall anchors for this step."])
    b.assistant(f"That's covered in section {section} of the manual: {tip}")


def slot_listing(b: Builder, postcode: str, first: tuple[str, str]) -> str:
    """Delivery slots for a postcode, the earliest first."""
    row = table([lambda rng: f"SLOT-07{rng.randrange(11, 27):02d}-{rng.choice(['AM', 'PM'])}",
                 choice(["08:00-12:00", "12:00-16:00", "16:00-20:00"]), choice(["team B3", "team B7", "team C1"]),
                 integer(0, 6, "capacity {}/6"), integer(100, 400, "van BX-{}"),
                 choice(["2-person", "2-person + assembly"])])
    head = [f"Delivery slots for {postcode} (earliest first)",
            f"{first[0]}  {first[1]}  team B3  capacity 1/6  van BX-214  2-person"]
    return b.log(row, b.rng.randrange(560, 760), head=head)


EMAIL_LINES = [
    "Thank you for your order, we're getting it ready.",
    "Your items will be dispatched from our Avonmouth distribution centre.",
    "If any of the details below are wrong, please reply to this e-mail or call us.",
    "You can manage your order online at any time from your account page.",
    "This e-mail was sent to you because you placed an order with us.",
    "Please do not reply to this automated message with card details.",
    "Our opening hours are Monday to Sunday, 8 am to 10 pm.",
    "We'll send you another e-mail when your delivery slot is confirmed.",
    "Prices include VAT where applicable; delivery charges are shown separately.",
    "Remember to measure doorways and stairwells before large items arrive.",
    "Your invoice is attached as a PDF and is also available in your account.",
    "Kind regards, the Customer Care team.",
]


def address_correction() -> Builder:
    customer, order, tool_phone, guessed_phone = "C-55821", "W-30417", "+44 7700 900412", "+44 7700 900124"
    old_address, new_address = "27 Elm Grove, Flat 4C, Bristol BS6 5QT", "27 Elm Grove, Flat 14C, Bristol BS6 5QU"
    first_old, first_new = ("SLOT-0709-AM", "2024-07-09 08:00-12:00"), ("SLOT-0710-PM", "2024-07-10 12:00-16:00")
    b = Builder(
        "address-correction", "A delivery address corrected by the user; a phone number guessed by the model",
        "Booking a furniture delivery. The user gives an address, the model reads an old e-mail and guesses a "
        "phone number from its signature (inferred), then the user corrects the flat number and postcode. "
        "Probes check that the corrected address supersedes the first one, that the customer record's phone "
        "number is still the one shown as current (the model's guess must not override it), and that the slot "
        "and ids the booking needs survive help-center pages and small talk.",
        ["a user correction supersedes a fact (fact probe with superseded)",
         "a model-inferred value must not override a tool-confirmed one",
         "two results for the same field told apart by subject (postcode)",
         "next_call values from earlier tool results"],
        [tool("get_customer", "read", ["customer_id"]), tool("get_delivery_slots", "read", ["postcode"]),
         tool("read_email", "read", ["message_id"]), tool("get_help_article", "read", ["article_id"]),
         tool("get_product_manual", "read", ["product_id"]),
         tool("book_delivery_slot", "write", ["order_id", "slot_id"]), tool("send_sms", "write", ["phone"])],
        reserved=[order, first_new[0], tool_phone, "DLV-77102"])
    b.user(f"Hi, I'm Mei Lin, customer {customer}. I need to book delivery for my wardrobe, order {order}. "
           f"The address is {old_address}.")
    b.fact("delivery_address", old_address, "user", subject=f"order_id={order}")
    b.tool("get_customer", {"customer_id": customer},
           {"customer_id": customer, "name": "Mei Lin", "phone": tool_phone, "email": "mei.lin@example.co.uk",
            "tier": "gold"})
    b.tool("get_delivery_slots", {"postcode": "BS6 5QT"},
           {"postcode": "BS6 5QT", "first_slot_id": first_old[0], "first_slot": first_old[1], "slots_listed": 31},
           log=slot_listing(b, "BS6 5QT", first_old))
    b.assistant(f"Thanks, Mei. The earliest slot for BS6 5QT is {first_old[1]}. We'll call {tool_phone} on the day.")
    b.user("Can you check that the phone number you have for me is right?")
    b.decide("phone-on-file",
             fact("phone", tool_phone, why="from the customer record"),
             fact("delivery_address", old_address, subject=f"order_id={order}"),
             fact("first_slot_id", first_old[0], subject="postcode=BS6 5QT"), early=True)
    b.assistant(f"The number on your account is {tool_phone}.")
    b.user("I forwarded you the order confirmation e-mail, message MSG-2291. Is everything in it right?")
    b.tool("read_email", {"message_id": "MSG-2291"},
           {"message_id": "MSG-2291", "from": "orders@homestore.example", "subject": f"Your order {order}",
            "date": "2024-06-28"},
           log=b.page(f"Your order {order} is confirmed", EMAIL_LINES, 300)
           + f"\n\nMei Lin\n27 Elm Grove, Bristol\nTel. {guessed_phone}")
    b.fact("phone", guessed_phone, "model", confidence="inferred")
    b.assistant("The e-mail matches the order. I noticed a different number in the signature, "
                f"{guessed_phone} — I'll keep the one on your account unless you tell me otherwise.")
    for question in ["How many boxes will the wardrobe come in?", "Is it hard to put together?",
                     "Does it need to be fixed to the wall?", "How long does the frame take to build?",
                     "Are the screws included, or do I buy them?"]:
        manual_turn(b, "PAX-W2-236", question)
    for _ in range(3):
        help_turn(b)
    b.small_talk(2)
    correction = b.user("Oh no, I gave you the wrong flat — it's Flat 14C, not 4C. And the postcode is BS6 5QU, "
                        "I always mix them up.")
    b.fact("delivery_address", new_address, "user", kind="correction", subject=f"order_id={order}")
    b.tool("get_delivery_slots", {"postcode": "BS6 5QU"},
           {"postcode": "BS6 5QU", "first_slot_id": first_new[0], "first_slot": first_new[1], "slots_listed": 28},
           log=slot_listing(b, "BS6 5QU", first_new))
    b.assistant(f"Updated: {new_address}. For BS6 5QU the earliest slot is {first_new[1]}.")
    for question in ["What tools will I need for the doors?", "How do the drawers go in?",
                     "Which part do I start with?", "Is there a soft-close option for the doors?",
                     "How do I fix the back board?", "What goes inside the drawers first?"]:
        manual_turn(b, "PAX-W2-236", question)
    for _ in range(3):
        help_turn(b)
    b.small_talk(3)
    b.user("OK, book the earliest slot you found for the corrected address.")
    b.decide("book-slot",
             next_call("book_delivery_slot", order_id=order, slot_id=first_new[0]),
             fact("delivery_address", new_address, subject=f"order_id={order}", superseded=[old_address]),
             fact("first_slot_id", first_new[0], subject="postcode=BS6 5QU"),
             fact("phone", tool_phone, superseded=[guessed_phone], why="the model's guess is not a statement"),
             constraint(correction, "Flat 14C"))
    booking = b.tool("book_delivery_slot", {"order_id": order, "slot_id": first_new[0], "address": new_address},
                     {"booking_ref": "DLV-77102", "slot": first_new[1], "address": new_address})
    b.assistant(f"Booked: {first_new[1]} at {new_address}, reference DLV-77102.")
    b.user("Can you text me the confirmation?")
    b.decide("sms",
             next_call("send_sms", phone=tool_phone, why="the account's number, not the guessed one"),
             fact("phone", tool_phone, superseded=[guessed_phone]),
             state(booking, "succeeded", request_id=booking.request_id),
             fact("booking_ref", "DLV-77102"))
    b.tool("send_sms", {"phone": tool_phone, "text": f"Delivery DLV-77102 booked for {first_new[1]}."},
           {"phone": tool_phone, "sms_id": "SMS-90211", "status": "queued"})
    b.assistant("Sent.")
    for question in ["How is the hanging rail fitted?", "Can the shelves be moved later?",
                     "What goes at the back?", "How are the doors adjusted?"]:
        manual_turn(b, "PAX-W2-236", question)
    for _ in range(3):
        help_turn(b)
    b.small_talk(3)
    for question in ["Can I add a mirror door later?", "How do I level it on a sloping floor?"]:
        manual_turn(b, "PAX-W2-236", question)
    for _ in range(2):
        help_turn(b)
    b.user("My neighbour asks which address the van is coming to and what the booking reference is.")
    b.decide("confirm-address",
             fact("delivery_address", new_address, subject=f"order_id={order}", superseded=[old_address]),
             fact("booking_ref", "DLV-77102"),
             state(booking, "succeeded", request_id=booking.request_id),
             fact("phone", tool_phone, superseded=[guessed_phone]))
    b.assistant(f"The van comes to {new_address}; the booking reference is DLV-77102.")
    return b


BILLING_DOCS = [
    "The Business plan includes SSO, audit logs and a 99.9% uptime commitment.",
    "Plan changes take effect immediately and are prorated to the day.",
    "Seats can be added at any time; removed seats are credited at the next renewal.",
    "Invoices are issued on the first day of each billing period in the account currency.",
    "A failed payment is retried after 3, 5 and 7 days before the account is suspended.",
    "Only account owners and billing admins can change the plan or the number of seats.",
    "Usage above the included API quota is billed per thousand requests.",
    "Annual plans can be converted to monthly billing at renewal only.",
    "Tax is calculated from the billing address on the account.",
    "Credits from downgrades never expire and are applied to the next invoices first.",
    "The audit log keeps every administrative action for 400 days.",
    "Each seat allows one named user; seats cannot be shared between people.",
    "Enterprise features require a signed order form and are not available self-serve.",
    "Changes made through the API are idempotent when an Idempotency-Key header is sent.",
    "A plan change and a seat change in the same day appear as separate invoice lines.",
]

BILLING_QUESTIONS = [
    ("What does the Business plan include again?", "plans/business"),
    ("How is a mid-cycle change billed?", "billing/proration"),
    ("Who on our side is allowed to change seats?", "admin/roles"),
    ("What happens if a payment fails?", "billing/failed-payments"),
    ("Do unused seats get credited?", "billing/credits"),
    ("Is the API safe to retry?", "api/idempotency"),
]
AUDIT_REASONS = ["Finance asked about a spike.", "I want to see who logged in.", "Just to be thorough.",
                 "Someone mentioned errors that day.", "Our SSO had hiccups around then."]
API_PATHS = ["/v2/accounts/ACME-4471", "/v2/accounts/ACME-4471/seats", "/v2/accounts/ACME-4471/invoices",
             "/v2/accounts/ACME-4471/usage", "/v2/sso/config", "/v2/users", "/v2/users/invite", "/v2/audit"]


def billing_timeout() -> Builder:
    account, email = "ACME-4471", "finance@acme-robotics.com"
    b = Builder(
        "billing-timeout", "A plan change that timed out stays unknown until billing answers",
        "A SaaS admin upgrades a plan and adds seats. The plan change times out: it must stay unknown (never "
        "failed, never done) through audit logs, usage reports and docs pages, until a status query by its "
        "idempotency key says it succeeded. The seat change first reports failed (a 502 at the gateway) and "
        "then billing says it succeeded: the same call with contradictory answers, kept as evidence until a "
        "later account read settles it.",
        ["a write that timed out stays unknown (tool_state unknown, pending) until a status query resolves it",
         "a later probe checks the resolved status and request id",
         "same-call contradiction: a failed tool_result then a status_query saying succeeded (evidence)",
         "plan and seat facts superseded by a later account read"],
        [tool("get_account", "read", ["account_id"]), tool("change_plan", "write", ["account_id"]),
         tool("add_seats", "write", ["account_id"]), tool("fetch_audit_log", "read", ["account_id"]),
         tool("get_usage_report", "read", ["account_id"]), tool("get_docs", "read", ["page"]),
         tool("send_invoice", "write", ["account_id"])],
        reserved=[email])

    def audit_turn() -> None:
        day = f"2024-08-{b.rng.randrange(1, 20):02d}"
        b.user(f"Can you pull the audit log for {day}? {b.rng.choice(AUDIT_REASONS)}")
        b.tool("fetch_audit_log", {"account_id": account, "day": day}, {"account_id": account, "day": day},
               log=b.log(server_log("billing-api", API_PATHS, day), b.rng.randrange(700, 860)))
        b.assistant(b.rng.choice(["Nothing unusual in that log apart from a few retries.",
                                  "The log shows routine traffic; no admin changes that day.",
                                  "Mostly reads from your SSO integration, nothing relevant."]))

    def usage_turn() -> None:
        month = f"2024-{b.rng.randrange(3, 8):02d}"
        b.user(f"How did our usage look in {month}?")
        row = table([date_in(month), choice(["api.requests", "storage.gb", "sso.logins", "exports", "webhooks"]),
                     integer(100, 90000), choice(["team-eu", "team-us", "ops", "research", "sales"])])
        b.tool("get_usage_report", {"account_id": account, "month": month},
               {"account_id": account, "month": month, "over_quota": False},
               log=b.log(row, b.rng.randrange(650, 820), head=["day  metric  quantity  group"]))
        b.assistant(f"Usage was within the plan's quota in {month}.")

    def docs_turn() -> None:
        question, page = b.rng.choice(BILLING_QUESTIONS)
        b.user(question)
        b.tool("get_docs", {"page": page}, {"page": page}, log=b.page(f"Docs: {page}", BILLING_DOCS, 420))
        b.assistant(b.rng.choice(BILLING_DOCS))

    waiting = (audit_turn, audit_turn, usage_turn, docs_turn, b.small_talk)  # what the admin looks at meanwhile

    goal = b.user(f"Hi, I'm the admin for account {account}. We need to move from the Team plan to Business, and "
                  "add 15 seats for the new hires starting Monday.")
    b.tool("get_account", {"account_id": account},
           {"account_id": account, "plan": "team", "seats": 40, "seats_used": 38, "renewal_date": "2024-09-01",
            "billing_email": email})
    b.assistant("You're on Team with 40 seats (38 used). I'll change the plan first, then add the seats.")
    b.user("Yes, go ahead with the plan change.")
    plan = b.call("change_plan", {"account_id": account, "plan": "business"}, key=f"plan-{account}-business")
    b.answer(plan, "timeout", error="billing-api did not answer within 30 s")
    b.assistant("The billing service didn't answer in time, so I can't tell yet whether the plan changed. "
                "I won't retry blindly; I'll ask billing about this request by its idempotency key.")
    b.user("Ugh. So did it change or not?")
    b.decide("plan-unknown",
             state(plan, "unknown", why="a timeout is not a failure"),
             pending(call=plan),
             evidence(plan.seq, plan.answer_seq, why="unknown outcome, not reconciled"),
             constraint(goal, "add 15 seats"), early=True)
    b.assistant("Not known yet — the request may or may not have been applied.")
    b.meanwhile(12, *waiting)
    b.user("While we wait, add the 15 seats.")
    seats = b.call("add_seats", {"account_id": account, "seats": 15})
    failed = b.answer(seats, "failed", error="502 Bad Gateway from billing-api")
    queried = b.status_query(seats, "succeeded", "billing-service", request_id="bil_7d21c0a9e4")
    b.assistant("The gateway reported a failure, but billing says the seats were added (request bil_7d21c0a9e4). "
                "I won't retry.")
    b.user("Wait, so are the seats there or not?")
    b.decide("seats-contradiction",
             evidence(failed, queried, why="the same call answered failed, then succeeded"),
             state(seats, "succeeded", request_id="bil_7d21c0a9e4"),
             state(plan, "unknown"),
             pending(call=plan))
    b.assistant("Billing confirms the seats were added; the earlier failure came from the gateway.")
    b.meanwhile(15, *waiting)
    b.user("Can you check on the plan change now?")
    b.decide("ask-billing",
             state(plan, "unknown", by_key=True, why="the status query asks by idempotency key"),
             pending(call=plan),
             evidence(plan.seq, plan.answer_seq),
             state(seats, "succeeded", request_id="bil_7d21c0a9e4"))
    b.status_query(plan, "succeeded", "billing-service", request_id="bil_5e90f3b812")
    b.tool("get_account", {"account_id": account},
           {"account_id": account, "plan": "business", "seats": 55, "seats_used": 38, "renewal_date": "2024-09-01",
            "billing_email": email})
    b.assistant("Billing confirms the plan change went through (request bil_5e90f3b812): you're on Business "
                "with 55 seats.")
    b.meanwhile(9, *waiting)
    b.user("Great. Remind me: what plan are we on now, and how many seats?")
    b.decide("settled",
             fact("plan", "business", superseded=["team"]),
             fact("seats", 55, superseded=[40]),
             state(plan, "succeeded", request_id="bil_5e90f3b812"),
             state(seats, "succeeded", request_id="bil_7d21c0a9e4"))
    b.assistant("Business, 55 seats.")
    b.meanwhile(5, *waiting)
    b.user("Perfect. Send the updated invoice to our finance address.")
    b.decide("send-invoice",
             next_call("send_invoice", account_id=account, email=email, why="both from the account record"),
             fact("plan", "business", superseded=["team"]),
             state(plan, "succeeded", request_id="bil_5e90f3b812"))
    b.tool("send_invoice", {"account_id": account, "email": email}, {"invoice_id": "INV-2024-08-4471", "sent": True})
    b.assistant(f"Sent invoice INV-2024-08-4471 to {email}.")
    return b


def refund_crash() -> Builder:
    order, email, refund_id = "10093", "r.okafor@example.com", "re_3PqA91XK"
    b = Builder(
        "refund-crash", "A refund interrupted by a crash, reconciled by idempotency key; the session resumes",
        "A customer asks for a refund of a damaged blender. The agent calls the payment service and crashes "
        "before the result is recorded; recovery makes the refund unknown. Probes before reconciliation "
        "require unknown (never failed: a retry would refund twice) and the call as raw evidence; a status query "
        "by idempotency key then says it succeeded, and later probes require that status and its request id. "
        "A second restart with nothing running appends nothing, and the session resumes with the replacement "
        "order.",
        ["a refund interrupted by a crash (no result, then recover), reconciled by a status query",
         "probes before and after reconciliation (unknown, then succeeded with the request id)",
         "an irreversible call kept as evidence until the subtask ends",
         "a session resumed after recovery (recover steps mid-conversation, later probes)",
         "an approval granted for an amount (constraint)"],
        [tool("get_order", "read", ["order_id"]), tool("issue_refund", "irreversible", ["order_id"]),
         tool("create_return_label", "write", ["order_id"]), tool("get_help_article", "read", ["article_id"]),
         tool("track_parcel", "read", ["parcel_id"]),
         tool("place_replacement_order", "write", ["order_id"]), tool("send_email", "write", ["to"])],
        reserved=[order, email, refund_id, "10241"])

    def track(parcel: str, status: str) -> None:
        b.user(b.rng.choice(TRACKING_ASKS))
        days = [f"2024-05-{d:02d}" for d in range(14, 21)]
        b.tool("track_parcel", {"parcel_id": parcel}, {"parcel_id": parcel, "status": status},
               log=b.log(scan_line(days, UK_HUBS), b.rng.randrange(650, 850), head=[f"DPD parcel {parcel}"]))
        b.assistant(f"Parcel {parcel}: {status.replace('_', ' ')}.")

    b.user(f"My blender from order {order} arrived with a cracked jug. I'd like a refund.")
    b.tool("get_order", {"order_id": order},
           {"order_id": order, "item": "Vortex 900 blender", "total": "89.90", "paid_with": "VISA ending 4417",
            "status": "delivered", "email": email})
    b.assistant("Sorry about that. I can see the order: 89.90, paid by VISA ending 4417. "
                "Could you send a photo of the damage?")
    b.chat("Here's the photo, the crack runs down the side of the jug.",
           "Thanks, that's clearly transport damage. You won't need to pay for the return.")
    help_turn(b)
    b.user("Do I need to send it back?")
    label = b.tool("create_return_label", {"order_id": order}, {"label_id": "RL-55290133", "carrier": "DPD"})
    b.assistant("Yes — I've created a free DPD return label, RL-55290133.")
    ask = b.user("OK. Please refund the 89.90 to my card.")
    grant = b.approval("apr-refund-10093", "granted", ask, {"order_id": order, "amount": "89.90"},
                       "Refund 89.90 to the original card for order 10093.")
    refund = b.call("issue_refund", {"order_id": order, "amount": "89.90", "currency": "GBP"},
                    key=f"refund-{order}-89.90")
    crash = b.recover()
    b.user("Hello? The chat froze. Did my refund go through?")
    b.decide("after-crash",
             state(refund, "unknown", why="interrupted by the crash: a retry could refund twice"),
             pending(call=refund),
             evidence(refund.seq, crash, why="unknown irreversible call and the restart"),
             constraint(grant, "Refund 89.90"), early=True)
    b.status_query(refund, "succeeded", "payments", request_id=refund_id)
    b.assistant(f"Sorry about the interruption. The payment service confirms the refund went through ({refund_id}).")
    b.user("Good. So it's done? I really don't want to be refunded twice or not at all.")
    b.decide("reconciled",
             state(refund, "succeeded", request_id=refund_id),
             evidence(refund.seq, refund.answer_seq, why="an irreversible call stays raw until the work is closed"),
             state(label, "succeeded", request_id=label.request_id),
             constraint(grant, "Refund 89.90"))
    b.assistant("It's done, exactly once. It should reach your card in 5-10 working days.")
    b.event("subtask_end", text=f"refund for order {order} reconciled: succeeded", task_done=False)
    b.chat("I dropped the old one off at the parcel shop this morning.", "Thanks! I'll keep an eye on the return.")
    for status in ["collected", "in_transit", "in_transit", "at_hub", "in_transit", "at_hub", "in_transit",
                   "at_returns_centre"]:
        track("RL-55290133", status)
    help_turn(b)
    b.user("Actually I'd still like the blender. Can you send a replacement?")
    b.tool("place_replacement_order", {"order_id": order, "sku": "VTX-900-BLK"},
           {"replacement_order_id": "10241", "ship_date": "2024-05-21", "price": "0.00"})
    b.assistant("Done: replacement order 10241, shipping on 2024-05-21, free of charge.")
    for _ in range(4):
        help_turn(b)
    b.small_talk(3)
    for _ in range(3):
        help_turn(b)
    b.user("Can you e-mail me the refund confirmation, please?")
    b.decide("email-refund",
             next_call("send_email", to=email, reference=refund_id, why="the request id of the reconciled refund"),
             state(refund, "succeeded", request_id=refund_id),
             fact("replacement_order_id", "10241"))
    b.tool("send_email", {"to": email, "reference": refund_id, "template": "refund_confirmation"},
           {"message_id": "EM-77310", "status": "sent"})
    b.assistant("Sent.")
    for _ in range(4):
        help_turn(b)
    b.small_talk(2)
    assert b.recover() is None  # a restart with nothing running appends nothing
    b.user("Hi, I'm back after lunch — the page reloaded. Where are we with the replacement?")
    b.decide("resumed",
             next_call("get_order", order_id="10241", why="the replacement order from before the restart"),
             fact("replacement_order_id", "10241"),
             fact("ship_date", "2024-05-21"),
             state(refund, "succeeded", request_id=refund_id))
    b.tool("get_order", {"order_id": "10241"},
           {"order_id": "10241", "item": "Vortex 900 blender", "status": "packed", "ship_date": "2024-05-21",
            "parcel_id": "15509937212"})
    b.assistant("Replacement 10241 is packed and ships on 2024-05-21.")
    for status in ["label_created", "collected", "in_transit", "at_hub", "in_transit", "at_hub", "in_transit",
                   "in_transit", "out_for_delivery"]:
        track("15509937212", status)
    help_turn(b)
    b.user("And the refund, is that still on its way?")
    b.decide("refund-still-done",
             state(refund, "succeeded", request_id=refund_id),
             fact("total", "89.90", subject=f"order_id={order}"))
    b.assistant(f"Yes, refund {refund_id} was issued; banks take 5-10 working days.")
    return b


def payment_line(orders: list[str], day: str) -> Line:
    """A payment gateway's log for a customer's orders."""
    def line(rng: random.Random) -> str:
        event = rng.choice(["AUTHORISATION", "AUTHORISATION", "CAPTURE", "RISK_CHECK", "3DS_CHALLENGE", "WEBHOOK"])
        result = rng.choice(["AUTHORISED", "AUTHORISED", "PENDING", "SETTLED", "RETRY"])
        return (f"{day}T{clock(rng)}Z {event:<14} order {rng.choice(orders)} amount {rng.uniform(20, 400):.2f} GBP "
                f"card ****{rng.randrange(1000, 9999)} psp_ref {hexid(rng, 12)} {result}")
    return line


def warehouse_line(orders: list[str], day: str) -> Line:
    """A warehouse management system's event log for a set of orders."""
    def line(rng: random.Random) -> str:
        op = rng.choice(["PICK", "PACK", "LABEL", "MANIFEST", "HOLD", "RELEASE", "LOAD", "QC_CHECK"])
        return (f"{day} {clock(rng)} WMS {op:<8} order {rng.choice(orders)} tote T{rng.randrange(1000, 9999)} "
                f"aisle {rng.choice('ABCDEFGH')}{rng.randrange(1, 40):02d} picker P{rng.randrange(100, 999)} "
                f"{rng.choice(['ok', 'ok', 'ok', 'weight mismatch', 'rescan', 'label reprint'])}")
    return line


def scoped_authorization() -> Builder:
    customer, mine, others = "CUS-7781", "10086", ["10087", "10091"]
    orders = [mine, *others]
    b = Builder(
        "scoped-authorization", "An authorization for one order, buried under hundreds of log lines",
        "A support agent is authorized to cancel and refund one order of a customer who was double-charged; "
        "the customer's other orders must not be touched. The scope is stated by the user and granted as an "
        "approval at the start, then buried under payment-gateway and warehouse logs that mention all three "
        "orders. Later the user asks to do the same for another order: the scope must still be visible, and a "
        "new approval requested for it stays pending.",
        ["an authorization scope stated early (user message and granted approval), buried under logs (constraint)",
         "a request outside the scope leads to a new approval that stays pending",
         "an irreversible refund kept as evidence",
         "next_call values (amount) from an earlier tool result"],
        [tool("get_customer_orders", "read", ["customer_id"]), tool("fetch_payment_log", "read", ["order_id"]),
         tool("fetch_warehouse_log", "read", ["order_id"]), tool("cancel_order", "write", ["order_id"]),
         tool("refund_payment", "irreversible", ["order_id"])],
        reserved=["239.00"])

    def read_log(tool_name: str, ask: str, line: Callable[[list[str], str], Line]) -> Callable[[], None]:
        """A turn reading one day of the gateway's or the warehouse's log about one of the orders."""
        def turn() -> None:
            order, day = b.rng.choice(orders), f"2024-06-{b.rng.randrange(3, 9):02d}"
            b.user(ask.format(order=order, day=day))
            b.tool(tool_name, {"order_id": order, "day": day}, {"order_id": order, "day": day},
                   log=b.log(line(orders, day), b.rng.randrange(700, 860)))
            b.assistant(b.rng.choice(["Routine entries, nothing new about the double charge.",
                                      "Nothing unusual there.", "Just the normal pick-and-pack flow.",
                                      "A couple of retries, all resolved."]))
        return turn

    digging = (read_log("fetch_payment_log", "Pull the payment log around order {order} for {day}.", payment_line),
               read_log("fetch_warehouse_log", "What does the warehouse log say for {order} on {day}?", warehouse_line))

    goal = b.user(f"I'm Priya from the support desk. Customer {customer} was double-charged. You may cancel and "
                  f"refund only order {mine} — the other orders on that account are fine and must not be touched.")
    grant = b.approval("apr-5521", "granted", goal, {"order_id": mine, "actions": ["cancel", "refund"],
                                                     "max_amount": "240.00"},
                       f"Cancel and refund order {mine} only; refund at most 240.00.")
    b.tool("get_customer_orders", {"customer_id": customer}, {"customer_id": customer, "orders": orders})
    b.assistant(f"The account has three orders: {', '.join(orders)}. I'll look into {mine} only.")
    b.user(f"Find the duplicate payment on {mine}.")
    b.tool("fetch_payment_log", {"order_id": mine, "day": "2024-06-04"},
           {"order_id": mine, "day": "2024-06-04", "duplicate_authorisation": True, "duplicate_amount": "239.00"},
           log=b.log(payment_line(orders, "2024-06-04"), 640,
                     head=[f"2024-06-04T10:02:11Z AUTHORISATION  order {mine} amount 239.00 GBP AUTHORISED",
                           f"2024-06-04T10:02:14Z AUTHORISATION  order {mine} amount 239.00 GBP AUTHORISED",
                           f"2024-06-04T19:40:03Z CAPTURE        order {mine} amount 239.00 GBP SETTLED",
                           f"2024-06-04T19:40:03Z CAPTURE        order {mine} amount 239.00 GBP SETTLED"]))
    b.assistant(f"Found it: 239.00 was authorised twice on {mine}, three seconds apart.")
    b.user("Is the duplicate settled already or still only authorised?")
    b.decide("scope-early",
             constraint(goal, f"only order {mine}"),
             constraint(grant, f"order {mine} only"),
             fact("duplicate_amount", "239.00"), early=True)
    b.assistant("Both were captured at 19:40 the same day, so the customer was really charged twice.")
    b.meanwhile(6, *digging)
    b.small_talk(2)
    b.meanwhile(5, *digging)
    other = b.user(f"Looks like {others[0]} has the same duplicate charge — just do the same there.")
    b.decide("out-of-scope",
             constraint(grant, f"order {mine} only", why="the grant does not cover the other order"),
             constraint(goal, "must not be touched"))
    b.approval("apr-5530", "requested", other, {"order_id": others[0], "actions": ["cancel", "refund"]},
               f"Requested: authorization to cancel and refund order {others[0]} (not covered by apr-5521).")
    b.assistant(f"I'm only authorized for {mine}. I've requested approval apr-5530 for {others[0]}; "
                "until it's granted I won't touch it.")
    b.meanwhile(6, *digging)
    b.small_talk(2)
    b.meanwhile(4, *digging)
    b.user("Fine. Go ahead with the one you are allowed to do: cancel it first.")
    b.decide("cancel",
             next_call("cancel_order", order_id=mine),
             constraint(grant, f"order {mine} only"),
             pending(approval_id="apr-5530", why="requested, not yet answered"),
             fact("duplicate_amount", "239.00"))
    cancel = b.tool("cancel_order", {"order_id": mine}, {"order_id": mine, "status": "cancelled"})
    b.assistant(f"Order {mine} is cancelled.")
    b.user("Now the refund of the duplicate.")
    b.decide("refund",
             next_call("refund_payment", order_id=mine, amount="239.00", why="the amount from the payment log"),
             constraint(grant, "at most 240.00"),
             state(cancel, "succeeded", request_id=cancel.request_id),
             pending(approval_id="apr-5530"))
    refund = b.tool("refund_payment", {"order_id": mine, "amount": "239.00", "currency": "GBP"},
                    {"order_id": mine, "refund_id": "RF-20931", "amount": "239.00"})
    b.assistant(f"Refunded 239.00 on {mine} (refund RF-20931).")
    b.meanwhile(4, *digging)
    b.user("Did the refund go out? The customer is on the phone.")
    b.decide("refund-done",
             state(refund, "succeeded", request_id=refund.request_id),
             evidence(refund.seq, refund.answer_seq, why="irreversible, the work is not closed yet"),
             pending(approval_id="apr-5530"),
             constraint(goal, f"only order {mine}"))
    b.assistant("Yes: refund RF-20931 for 239.00 went out; it reaches the card in 3-5 days.")
    b.meanwhile(3, *digging)
    b.user("Any news on the other approval?")
    b.decide("still-waiting",
             pending(approval_id="apr-5530"),
             constraint(grant, f"order {mine} only"),
             fact("refund_id", "RF-20931"),
             evidence(refund.seq, refund.answer_seq, why="irreversible, the work is not closed yet"))
    b.assistant("Not yet — apr-5530 is still waiting for an answer.")
    return b


REVIEWS = ["Comfortable from day one", "Runs half a size small", "Great for long walks", "The sole wears quickly",
           "Colour is exactly as pictured", "Keeps the rain out on my bike commute", "Zip feels flimsy",
           "Light enough to pack", "Arrived quickly, well packed", "Worth the price", "Too warm for summer",
           "Sleeves are a bit long", "Cushioning is excellent", "Squeaks on wet floors"]


def review_line(rng: random.Random) -> str:
    stars = rng.randrange(2, 6)
    source = rng.choice(["verified buyer", "store pickup", "online order"])
    size = rng.choice(["S", "M", "L", "41", "42", "43"])
    return (f"{'★' * stars}{'☆' * (5 - stars)}  \"{rng.choice(REVIEWS)}\" — {source}, "
            f"2024-0{rng.randrange(1, 5)}-{rng.randrange(1, 29):02d}, size {size}, "
            f"{rng.randrange(0, 40)} found helpful")


def stock_contradiction() -> Builder:
    shoe, shoe_half, jacket, pickup = "NK-AM270-420", "NK-AM270-425", "PT-TORRENT-M-BLU", "2024-05-11"
    b = Builder(
        "stock-contradiction", "Two systems disagree about the same shoe's stock",
        "Reserving two products for pickup. The store's stock system says 3 pairs of the shoe are in stock, the "
        "warehouse system says 0, for the same SKU: contradictory results from two different tools, kept as "
        "evidence until a manual stock audit settles it (0). Several SKUs with different stock and "
        "reservations are told apart by subject.",
        ["contradictory tool results: two different tools report different in_stock for the same SKU (evidence)",
         "a later result settles the contradiction (fact with the contradicted value superseded)",
         "several entities at once (fact probes with subject sku=...)",
         "next_call values from earlier user messages and tool results"],
        [tool("check_stock", "read", ["sku", "store"]), tool("warehouse_lookup", "read", ["sku"]),
         tool("find_nearby_stores", "read", ["sku"]),
         tool("stock_audit", "read", ["sku"]), tool("get_reviews", "read", ["sku"]),
         tool("reserve_item", "write", ["sku"]), tool("get_reservation", "read", ["reservation_id"])],
        reserved=[shoe, shoe_half, jacket, pickup, "RSV-88120", "RSV-88121"])
    other_skus = ["NK-AM90-410", "NK-PEG40-440", "AD-UB22-415", "PT-NANO-L-BLK", "PT-R1-S-GRN", "NB-990-430"]

    def reviews(sku: str, question: str) -> None:
        b.user(question)
        b.tool("get_reviews", {"sku": sku, "page": b.rng.randrange(1, 6)}, {"sku": sku, "rating": "4.3"},
               log=b.log(review_line, b.rng.randrange(650, 850)))
        b.assistant(f"Reviewers mostly like it: {b.rng.choice(REVIEWS).lower()}, several say.")

    def nearby(sku: str, question: str) -> None:
        b.user(question)
        row = table([choice(["Harajuku", "Shinjuku East", "Ikebukuro", "Ginza", "Kichijoji", "Yokohama Minato",
                             "Omotesando", "Ueno", "Futako-Tamagawa", "Machida", "Kawasaki", "Tachikawa"]),
                     integer(0, 6, "{} in stock"), number(0.4, 38, "{:.1f} km"), choice(["open 10-21", "open 11-20"]),
                     integer(3000, 9999, "tel 03-5466-{}")])
        b.tool("find_nearby_stores", {"sku": sku}, {"sku": sku, "stores_checked": 24},
               log=b.log(row, b.rng.randrange(650, 850), head=["store  stock  distance  hours  phone"]))
        b.assistant("A few stores nearby have it, but none within walking distance of Shibuya.")

    wms_row = table([date_in("2024-05", 1, 8), clock, choice(["MOVE", "RECEIVE", "PICK", "COUNT", "TRANSFER_OUT"]),
                     choice(other_skus), choice(["A-03-1", "A-12-4", "B-07-2", "B-19-6", "C-02-3", "C-11-8"]),
                     integer(1, 12, "qty {}"), choice(["wms_batch", "t.ono", "k.mori", "r.sato"])])

    def warehouse(sku: str, count: int, movement: str) -> Call:
        return b.tool("warehouse_lookup", {"sku": sku}, {"sku": sku, "in_stock": count, "last_movement": movement},
                      log=b.log(wms_row, b.rng.randrange(480, 620), head=[f"{sku}: {movement}"]))

    def stock(sku: str, store_count: int, warehouse_count: int, movement: str) -> tuple[int, int]:
        """The store's and the warehouse's answers for one SKU (their result seqs)."""
        store = b.tool("check_stock", {"sku": sku, "store": "Shibuya"},
                       {"sku": sku, "store": "Shibuya", "in_stock": store_count})
        return store.answer_seq, warehouse(sku, warehouse_count, movement).answer_seq

    goal = b.user(f"Hi! I'd like to reserve two things for pickup at the Shibuya store on Saturday {pickup}: the "
                  f"Air Max 270 in EU 42 ({shoe}) and the Torrent rain jacket, medium, blue ({jacket}).")
    b.tool("check_stock", {"sku": shoe, "store": "Shibuya"}, {"sku": shoe, "store": "Shibuya", "in_stock": 3})
    b.tool("check_stock", {"sku": jacket, "store": "Shibuya"}, {"sku": jacket, "store": "Shibuya", "in_stock": 7})
    b.assistant("Good news: the Shibuya store shows 3 pairs of the shoe and 7 jackets.")
    reviews(shoe, "Are the shoes true to size?")
    reviews(jacket, "And is the jacket really waterproof?")
    b.small_talk(1)
    b.user("Before you reserve, can you make sure the warehouse agrees? Last time the app was wrong.")
    store_says, warehouse_says = stock(shoe, 3, 0, "2024-05-06 TRANSFER_OUT 3 to Harajuku")
    b.assistant("They disagree about the shoe: the store system shows 3 pairs, the warehouse shows none after a "
                "transfer to Harajuku. The jacket I'll check separately.")
    b.user("So can you reserve the sneakers or not?")
    b.decide("contradiction",
             evidence(store_says, warehouse_says, why="two tools, same SKU, different in_stock"),
             next_call("stock_audit", sku=shoe, why="a manual count settles it"),
             fact("in_stock", 7, subject=f"sku={jacket}"),
             constraint(goal, pickup))
    b.tool("stock_audit", {"sku": shoe},
           {"sku": shoe, "in_stock": 0, "counted_by": "K. Mori", "counted_at": "2024-05-08 10:12"})
    b.assistant("A staff member counted the shelf: there are no pairs left in EU 42.")
    nearby(shoe, "Could another store have the 42?")
    reviews(shoe, "Do the 42s feel narrow?")
    nearby(shoe, "What about stores further out?")
    for sku, question in [(jacket, "Do people say the hood fits over a cap?"),
                          (shoe_half, "What about the 42.5 reviews?"), (jacket, "Does it pack small?"),
                          (shoe, "Do they squeak?")]:
        reviews(sku, question)
    b.small_talk(2)
    b.user("Is there a 42.5 then? Check both systems this time.")
    stock(shoe_half, 2, 2, "2024-05-02 RECEIVE 6 from supplier")
    b.assistant("Yes: both systems show 2 pairs in EU 42.5.")
    b.user("Check the warehouse for the jacket too, please.")
    warehouse(jacket, 7, "2024-05-03 RECEIVE 10")
    b.assistant("The warehouse agrees: 7 jackets.")
    nearby(jacket, "Which stores have the jacket in blue?")
    nearby(shoe_half, "Which stores have the 42.5?")
    reviews(jacket, "Does the jacket have inside pockets?")
    for sku, question in [(shoe_half, "Any complaints about the 42.5 width?"), (jacket, "How warm is the jacket?")]:
        reviews(sku, question)
    b.user("OK, reserve the jacket and the 42.5 for Saturday.")
    b.decide("reserve",
             fact("in_stock", 0, subject=f"sku={shoe}", superseded=[3], why="the audit settled it"),
             fact("in_stock", 2, subject=f"sku={shoe_half}"),
             fact("in_stock", 7, subject=f"sku={jacket}"),
             next_call("reserve_item", sku=jacket, pickup_date=pickup),
             next_call("reserve_item", sku=shoe_half, pickup_date=pickup))
    jacket_hold = b.tool("reserve_item", {"sku": jacket, "store": "Shibuya", "pickup_date": pickup},
                         {"sku": jacket, "reservation_id": "RSV-88120", "hold_until": "2024-05-11 20:00"})
    shoe_hold = b.tool("reserve_item", {"sku": shoe_half, "store": "Shibuya", "pickup_date": pickup},
                       {"sku": shoe_half, "reservation_id": "RSV-88121", "hold_until": "2024-05-11 20:00"})
    b.assistant("Both reserved: the jacket (RSV-88120) and the shoe in 42.5 (RSV-88121), held until 20:00 on Saturday.")
    for sku, question in [(jacket, "What do people say about the colour?"), (shoe_half, "Are they good for running?"),
                          (jacket, "Is it breathable?"), (shoe_half, "How long do they last?")]:
        reviews(sku, question)
    b.small_talk(2)
    b.user("Can you double-check that my jacket reservation is still held?")
    b.decide("check-hold",
             next_call("get_reservation", reservation_id="RSV-88120"),
             fact("reservation_id", "RSV-88120", subject=f"sku={jacket}"),
             state(jacket_hold, "succeeded", request_id=jacket_hold.request_id),
             state(shoe_hold, "succeeded", request_id=shoe_hold.request_id))
    b.tool("get_reservation", {"reservation_id": "RSV-88120"},
           {"reservation_id": "RSV-88120", "status": "held", "hold_until": "2024-05-11 20:00"})
    b.assistant("Still held until 20:00 on Saturday.")
    nearby(jacket, "If I miss Saturday, which other stores have the jacket?")
    nearby(shoe_half, "And the 42.5, in case?")
    reviews(jacket, "Is the jacket good in snow?")
    reviews(shoe_half, "Are they comfortable for standing all day?")
    b.small_talk(1)
    nearby(shoe, "Sorry, one more time: is the 42 anywhere at all?")
    for sku, question in [(shoe_half, "Do they come with spare laces?"), (jacket, "Can it be machine washed?")]:
        reviews(sku, question)
    b.user("Great. So what exactly am I picking up on Saturday, and under which references?")
    b.decide("pickup-summary",
             fact("reservation_id", "RSV-88120", subject=f"sku={jacket}"),
             fact("reservation_id", "RSV-88121", subject=f"sku={shoe_half}"),
             fact("hold_until", "2024-05-11 20:00"),
             constraint(goal, "Shibuya store"))
    b.assistant("The jacket (RSV-88120) and the shoes in EU 42.5 (RSV-88121).")
    return b


TRAVEL_INFO = [
    "Passports must be valid for at least six months from the date of arrival.",
    "Visitors from the United Kingdom can stay up to 30 days without a visa.",
    "An electronic arrival card must be completed within three days before arrival.",
    "Business-class fares include two checked bags of up to 32 kg each.",
    "Economy fares include one checked bag of up to 23 kg.",
    "Changes to the ticket are allowed for a fee plus any difference in fare.",
    "Refundable fares can be cancelled up to 24 hours before departure.",
    "Online check-in opens 48 hours before departure and closes 90 minutes before.",
    "Travel insurance is recommended and may be required by your employer's policy.",
    "The airport train runs every 10 minutes between 5:30 am and midnight.",
    "Lounge access is included with business-class tickets on this route.",
    "Seat selection is free for business class and charged for economy.",
    "Meals are served on all long-haul flights; special meals must be requested 24 hours ahead.",
    "Hotel check-in is usually from 3 pm, and check-out by 11 am.",
    "City tax is collected at the hotel and is not included in the room rate.",
    "Corporate travellers must book through the approved travel agency.",
    "Receipts must be submitted within 30 days of returning from the trip.",
    "Taxi fares from the airport to the city centre are typically 25 to 35 local currency units.",
]

CARRIERS = [("SQ", "A350"), ("BA", "B777"), ("QR", "A350"), ("EK", "A380"), ("TK", "A330"), ("LH", "B747"),
            ("CX", "A350"), ("MH", "A330"), ("EY", "B787"), ("AF", "B777")]


def flight_line(origin: str, destination: str) -> Line:
    """A row of a flight search: flight, times, aircraft, fares and seats left."""
    def line(rng: random.Random) -> str:
        code, aircraft = rng.choice(CARRIERS)
        number = rng.randrange(10, 999)
        hubs = ["DOH", "DXB", "IST", "FRA", "HKG", "KUL", "AUH", "CDG"]
        via = "" if code in ("SQ", "BA") else f" via {rng.choice(hubs)}"
        economy = rng.uniform(780, 1500)
        return (f"{code}{number:<4} {origin} {rng.randrange(6, 23):02d}:{rng.choice(['05', '20', '35', '50'])} -> "
                f"{destination} {rng.randrange(0, 24):02d}:{rng.choice(['10', '25', '40', '55'])}+1{via}  {aircraft}  "
                f"Y {economy:.2f}  J {economy * rng.uniform(3.1, 4.2):.2f}  "
                f"seats Y{rng.randrange(0, 30)}/J{rng.randrange(0, 9)}  "
                f"fare FR-{code}{number}-Y / FR-{code}{number}-J")
    return line


def hotel_line(city: str, area: str, currency: str, max_rate: float = 620.0) -> Line:
    """A row of a hotel search: id, name, stars, nightly rate (at most ``max_rate``), distance, rating, terms."""
    def line(rng: random.Random) -> str:
        name = (f"{rng.choice(['The', 'Hotel', 'Grand', 'Park', 'Royal', 'Harbour'])} "
                f"{rng.choice(['Bayview', 'Orchid', 'Lotus', 'Meridian', 'Peninsula', 'Garden', 'Quay', 'Heritage'])}")
        return (f"HTL-{city}-{rng.randrange(1000, 9999)}  {name:<18}  {rng.randrange(3, 6)}*  "
                f"{rng.uniform(180, max_rate):.2f} {currency}/night  {rng.uniform(0.2, 6):.1f} km to {area}  "
                f"rating {rng.uniform(7, 9.6):.1f}  "
                f"{rng.choice(['free cancellation', 'non-refundable', 'pay at hotel'])}")
    return line


def pending_approval() -> Builder:
    fare, fare_price, hotel_cap = "FR-SQ317-J", "4380.00", "350.00"
    b = Builder(
        "pending-approval", "A business-class fare waiting for the manager's approval",
        "Booking a business trip. A business-class fare over the policy limit needs the manager's approval; "
        "the request stays unanswered through hotel searches, visa pages and small talk, while a second "
        "approval (an expensive hotel) is requested and denied. Probes check that the first approval is still "
        "shown as pending far from its request, that the denial's cap is kept, and, once granted, that the "
        "booking uses the approved fare.",
        ["an approval still pending, far from where it was requested (pending probes)",
         "a second approval requested then denied: its cap is a constraint, it is no longer pending",
         "a granted approval scopes the next call (constraint, next_call)",
         "an irreversible booking kept as evidence"],
        [tool("search_flights", "read", ["origin", "destination", "date"]), tool("get_travel_policy", "read"),
         tool("search_hotels", "read", ["city"]), tool("hold_hotel", "write", ["hotel_id"]),
         tool("get_travel_info", "read", ["topic"]), tool("book_flight", "irreversible", ["fare_id"]),
         tool("send_itinerary", "write", ["booking_ref"])],
        reserved=[fare, "2024-09-16", "2024-09-20", "HTL-SIN-2207", "HTL-SIN-3318", "HH-30391", "SQ-7XKQ2M", hotel_cap])

    def info_turn() -> None:
        topic = b.rng.choice(["visa", "baggage", "arrival card", "airport transfer", "expenses", "check-in"])
        b.user(f"What do I need to know about {topic} for this trip?")
        b.tool("get_travel_info", {"topic": topic, "country": "SG"}, {"topic": topic, "country": "SG"},
               log=b.page(f"Singapore travel notes: {topic}", TRAVEL_INFO, b.rng.randrange(380, 520)))
        b.assistant(b.rng.choice(TRAVEL_INFO))

    def hotels(best: tuple[str, str, str], **limits: str) -> None:
        """A hotel search for the trip's dates; ``best`` (id, name, rate) heads the listing."""
        arguments = {"city": "SIN", "near": "Marina Bay", "check_in": "2024-09-16", "check_out": "2024-09-20", **limits}
        b.tool("search_hotels", arguments,
               {"city": "SIN", "results": 30, "best_hotel_id": best[0], "best_rate": best[2]},
               log=b.log(hotel_line("SIN", "Marina Bay", "SGD", float(limits.get("max_rate", 620))),
                         b.rng.randrange(650, 800),
                         head=[f"{best[0]}  {best[1]}  5*  {best[2]} SGD/night  0.4 km to Marina Bay  rating 9.1"]))
        b.assistant(f"The best match is {best[1]} ({best[0]}) at {best[2]} SGD a night.")

    def other_dates() -> None:
        date = f"2024-09-{b.rng.choice([13, 14, 21, 22])}"
        b.user(f"Out of curiosity, what are the flights like on {date}?")
        b.tool("search_flights", {"origin": "LHR", "destination": "SIN", "date": date},
               {"origin": "LHR", "destination": "SIN", "date": date, "options": b.rng.randrange(18, 30)},
               log=b.log(flight_line("LHR", "SIN"), b.rng.randrange(680, 860)))
        b.assistant(f"Similar choice on {date}; nothing cheaper in business than SQ317.")

    waiting = (info_turn, info_turn, other_dates, other_dates, b.small_talk)  # while the approvals wait

    goal = b.user("I need to be at the Singapore office from 2024-09-16 to 2024-09-20. Please find me a flight from "
                  "London on 2024-09-15 and a hotel near Marina Bay. My manager, Dana Whitfield, approves anything "
                  "outside the travel policy.")
    b.tool("search_flights", {"origin": "LHR", "destination": "SIN", "date": "2024-09-15"},
           {"origin": "LHR", "destination": "SIN", "date": "2024-09-15", "cheapest_fare_id": "FR-SQ317-Y",
            "cheapest_price": "1120.00", "options": 26},
           log=b.log(flight_line("LHR", "SIN"), 720,
                     head=[f"SQ317  LHR 11:35 -> SIN 07:50+1  A350  Y 1120.00  J {fare_price}  seats Y12/J4  "
                           f"fare FR-SQ317-Y / {fare}"]))
    b.assistant(f"SQ317 nonstop on 2024-09-15: economy 1120.00, business {fare_price}.")
    ask = b.user("It's a 13-hour flight — I'd like business class on SQ317.")
    b.tool("get_travel_policy", {}, {"max_fare_without_approval": "3000.00", "hotel_cap_per_night": hotel_cap},
           log=b.page("Corporate travel policy", TRAVEL_INFO, 380))
    b.approval("APR-TRV-5521", "requested", ask, {"fare_id": fare, "amount": fare_price},
               f"Business-class fare {fare} at {fare_price} exceeds the 3000.00 limit: approval requested from "
               "Dana Whitfield.")
    b.assistant("That fare is over the 3000.00 limit, so I've asked Dana Whitfield to approve it (APR-TRV-5521).")
    b.user("OK. While we wait, can you find hotels?")
    b.decide("hotels-while-waiting",
             pending(approval_id="APR-TRV-5521"),
             next_call("search_hotels", check_in="2024-09-16", check_out="2024-09-20", why="dates of the trip"),
             fact("cheapest_fare_id", "FR-SQ317-Y"),
             constraint(goal, "Marina Bay"), early=True)
    hotels(("HTL-SIN-2207", "Bayfront Grand", "420.00"))
    hotel_ask = b.user("The Bayfront Grand looks lovely, hold a room there.")
    b.approval("APR-HTL-5522", "requested", hotel_ask, {"hotel_id": "HTL-SIN-2207", "rate": "420.00"},
               f"Bayfront Grand HTL-SIN-2207 at 420.00 a night exceeds the {hotel_cap} cap: approval requested "
               "from Dana Whitfield.")
    b.assistant(f"That's over the {hotel_cap} a night cap, so I've asked Dana for that too (APR-HTL-5522).")
    b.meanwhile(9, *waiting)
    b.user("Any word from Dana?")
    b.decide("any-word",
             pending(approval_id="APR-TRV-5521", why="requested many turns ago, never answered"),
             pending(approval_id="APR-HTL-5522"),
             fact("hotel_cap_per_night", hotel_cap))
    b.assistant("Not yet: both approvals (flight and hotel) are still waiting for Dana.")
    b.meanwhile(8, *waiting)
    denial = b.approval("APR-HTL-5522", "denied", hotel_ask, {"hotel_id": "HTL-SIN-2207", "rate": "420.00"},
                        f"Dana Whitfield declined the Bayfront Grand: please stay under the {hotel_cap} cap.",
                        granted_by="Dana Whitfield")
    b.user("Dana declined the hotel. Find something cheaper that she'll accept.")
    b.decide("cheaper-hotel",
             pending(approval_id="APR-TRV-5521", why="the flight approval is still open"),
             constraint(denial, f"under the {hotel_cap} cap"),
             next_call("search_hotels", max_rate=hotel_cap, check_in="2024-09-16"))
    hotels(("HTL-SIN-3318", "Harbour Quay", "298.00"), max_rate=hotel_cap)
    b.user("Harbour Quay is fine. Hold it.")
    hold = b.tool("hold_hotel", {"hotel_id": "HTL-SIN-3318", "check_in": "2024-09-16", "check_out": "2024-09-20"},
                  {"hold_id": "HH-30391", "hotel_id": "HTL-SIN-3318", "rate": "298.00",
                   "free_cancel_until": "2024-09-13"})
    b.assistant("Held: Harbour Quay, 298.00 a night, hold HH-30391 (free cancellation until 2024-09-13).")
    b.meanwhile(8, *waiting)
    b.user("Let's make sure everything's lined up for the trip. What's still open?")
    b.decide("still-open",
             pending(approval_id="APR-TRV-5521"),
             state(hold, "succeeded", request_id=hold.request_id),
             fact("hold_id", "HH-30391"),
             constraint(denial, f"under the {hotel_cap} cap"))
    b.assistant("The hotel is held; the business-class flight still waits for Dana's approval.")
    b.meanwhile(7, *waiting)
    grant = b.approval("APR-TRV-5521", "granted", ask, {"fare_id": fare, "amount": fare_price},
                       f"Dana Whitfield approved business-class fare {fare} at {fare_price}.",
                       granted_by="Dana Whitfield")
    b.user("Dana says she approved the flight. Go ahead and book it.")
    b.decide("book",
             constraint(grant, "approved business-class fare"),
             next_call("book_flight", fare_id=fare, why="the approved fare, not the cheapest"),
             fact("hold_id", "HH-30391"))
    booking = b.tool("book_flight", {"fare_id": fare, "passenger": "Sam Porter", "date": "2024-09-15"},
                     {"booking_ref": "SQ-7XKQ2M", "fare_id": fare, "amount": fare_price, "seat": "14A"})
    b.assistant(f"Booked: SQ317 on 2024-09-15, business, {fare_price}, booking SQ-7XKQ2M, seat 14A.")
    b.meanwhile(2, *waiting)
    b.user("Send me the itinerary with both bookings, please.")
    b.decide("itinerary",
             next_call("send_itinerary", booking_ref="SQ-7XKQ2M", hold_id="HH-30391"),
             evidence(booking.seq, booking.answer_seq, why="the irreversible booking, work not closed"),
             state(booking, "succeeded", request_id=booking.request_id))
    b.tool("send_itinerary", {"booking_ref": "SQ-7XKQ2M", "hold_id": "HH-30391"},
           {"sent_to": "sam.porter@corp.example"})
    b.assistant("Sent to your work e-mail.")
    return b


TECH_DOCS = [
    "Back up your data before sending the device for repair; the drive may be erased.",
    "Remove any cases, screen protectors and external accessories before pickup.",
    "The courier will bring a padded box; you don't need to package the device yourself.",
    "Repairs covered by the warranty are free of charge, including return shipping.",
    "Liquid damage is not covered by the standard warranty.",
    "The typical turnaround time is five to seven working days after the device arrives.",
    "You'll get a text message when the device is on its way back to you.",
    "Turn off Find My before sending the device, or the technicians cannot work on it.",
    "Please have the device charged to at least 20% when the courier arrives.",
    "If you miss the pickup, you can rebook a new slot online at no cost.",
    "The repair centre may replace the whole unit if the part is not available.",
    "Replaced parts become the property of the repair centre.",
]


def call_record(month: str) -> Line:
    """A line of an itemized phone bill."""
    def line(rng: random.Random) -> str:
        kind = rng.choice(["call", "call", "sms", "data"])
        amount = rng.choice(["0.00 (bundle)"] * 5 + [f"{rng.uniform(0.05, 2.5):.2f}"])
        what = {"call": f"{rng.randrange(0, 40)}m{rng.randrange(60):02d}s", "sms": "1 msg",
                "data": f"{rng.uniform(1, 900):.1f} MB"}[kind]
        return (f"{month}-{rng.randrange(1, 31):02d} {clock(rng)}  {kind:<4}  +44 7{rng.randrange(100, 999)} "
                f"{rng.randrange(100000, 999999)}  {rng.choice(['UK mobile', 'UK landline', 'UK data', 'EU roam'])}  "
                f"{what}  {amount}")
    return line


def topic_switch_return() -> Builder:
    ticket, serial, slot = "RMA-2024-33817", "C02ZK1XYMD6T", "PU-0613-PM"
    address, account = "5 Canal Street, Manchester M1 3HE", "0743-22891"
    b = Builder(
        "topic-switch-return", "A laptop repair, a phone bill detour, and back to the laptop",
        "The user arranges a laptop repair pickup, switches to disputing a roaming charge on a phone bill (long "
        "itemized call records), then returns to the laptop. The repair ticket, serial number, pickup address and "
        "the chosen slot from the first topic must still be there on return, and the dispute's reference "
        "afterwards.",
        ["a topic switch and a return to the earlier topic (its facts still needed on return)",
         "next_call values from the first topic, used after the detour",
         "a user-stated fact with a subject (pickup address of the ticket)"],
        [tool("get_repair_ticket", "read", ["ticket_id"]), tool("get_pickup_slots", "read", ["ticket_id"]),
         tool("get_repair_guide", "read", ["topic"]), tool("schedule_pickup", "write", ["ticket_id", "slot_id"]),
         tool("get_phone_bill", "read", ["account_no"]), tool("get_call_records", "read", ["account_no"]),
         tool("dispute_charge", "write", ["account_no"])],
        reserved=[ticket, serial, slot, account, "47.20", "DSP-66120"])

    def record_page() -> None:
        b.user(b.rng.choice(["Show me the next page of records.", "Is the Swiss usage on this page?",
                             "Show me the data sessions.", "What about the page with the SMS?",
                             "Any roaming on the next page?", "Can you go back a page?", "Show me another page."]))
        page = b.rng.randrange(1, 9)
        b.tool("get_call_records", {"account_no": account, "period": "2024-05", "page": page},
               {"account_no": account, "period": "2024-05", "page": page, "pages": 8},
               log=b.log(call_record("2024-05"), b.rng.randrange(680, 860),
                         head=["date time  type  number  destination  duration  charge"]))
        b.assistant(b.rng.choice(["Nothing from Switzerland on that page.", "All UK usage on that page.",
                                  "Only bundle usage there.", "No roaming on that page either."]))

    def guide(question: str) -> None:
        b.user(question)
        b.tool("get_repair_guide", {"topic": "pickup"}, {"topic": "pickup"},
               log=b.page("Sending your device for repair", TECH_DOCS, b.rng.randrange(300, 420)))
        b.assistant(b.rng.choice(TECH_DOCS))

    b.user(f"Hi, my laptop is being repaired under ticket {ticket}. The courier should pick it up from my "
                  f"office: {address}.")
    b.fact("pickup_address", address, "user", subject=f"ticket_id={ticket}")
    b.tool("get_repair_ticket", {"ticket_id": ticket},
           {"ticket_id": ticket, "serial_number": serial, "model": "MacBook Pro 14 (2021)",
            "status": "awaiting_pickup", "warranty_until": "2025-03-02"})
    b.tool("get_pickup_slots", {"ticket_id": ticket}, {"ticket_id": ticket, "slots_listed": 18,
                                                        "earliest_slot_id": "PU-0612-AM"},
           log=b.log(table([lambda rng: f"PU-06{rng.randrange(14, 28)}-{rng.choice(['AM', 'PM'])}",
                            choice(["08:00-12:00", "13:00-17:00"]), choice(["DHL", "DPD"]), integer(1, 9, "{} left")]),
                     420, head=["PU-0612-AM  2024-06-12 08:00-12:00  DHL  2 left",
                                f"{slot}  2024-06-13 13:00-17:00  DHL  5 left"]))
    b.assistant(f"Your MacBook Pro (serial {serial}) is covered until 2025-03-02. The earliest pickup is Wednesday "
                f"morning; Thursday 13 June afternoon is slot {slot}.")
    wait = b.user("Thursday afternoon would suit, but let me check with my office before you book anything.")
    b.assistant(f"Sure — I'll hold off. Just tell me and I'll book {slot}.")
    guide("Do I need to do anything before they pick it up?")
    b.user("Can you remind me of the serial number? I need it for my insurance form.")
    b.decide("before-switch",
             fact("serial_number", serial),
             fact("pickup_address", address, subject=f"ticket_id={ticket}"),
             fact("warranty_until", "2025-03-02"),
             constraint(wait, "before you book anything", why="no booking until the office confirms"), early=True)
    b.assistant(f"It's {serial}.")
    b.event("topic_switch", topic="phone bill: roaming charge dispute")
    b.user(f"Different question while I wait for my office: my phone bill for account {account} has a strange "
           "roaming charge in May.")
    b.tool("get_phone_bill", {"account_no": account, "period": "2024-05"},
           {"account_no": account, "period": "2024-05", "total": "96.40", "roaming_charge": "47.20",
            "roaming_country": "CH"})
    b.assistant("The May bill is 96.40, including a 47.20 roaming charge for Switzerland.")
    b.meanwhile(10, record_page)
    b.user("I was never in Switzerland in May — please dispute that charge.")
    b.decide("dispute",
             next_call("dispute_charge", account_no=account, amount="47.20"),
             fact("roaming_charge", "47.20"),
             fact("roaming_country", "CH"))
    dispute = b.tool("dispute_charge", {"account_no": account, "amount": "47.20", "reason": "not roaming in CH"},
                     {"dispute_id": "DSP-66120", "status": "open", "decision_by": "2024-06-28"})
    b.assistant("Dispute DSP-66120 is open; they'll decide by 2024-06-28, and the amount is on hold meanwhile.")
    b.meanwhile(7, record_page)
    b.small_talk(3)
    b.meanwhile(6, record_page)
    b.event("topic_switch", topic="laptop repair pickup")
    b.user("OK, back to the laptop — my office says Thursday afternoon is fine. Please book it.")
    b.decide("back-to-laptop",
             next_call("schedule_pickup", ticket_id=ticket, slot_id=slot, why="both from before the detour"),
             fact("pickup_address", address, subject=f"ticket_id={ticket}"),
             fact("serial_number", serial),
             fact("status", "awaiting_pickup", subject=f"ticket_id={ticket}"))
    pickup = b.tool("schedule_pickup", {"ticket_id": ticket, "slot_id": slot, "address": address},
                    {"pickup_ref": "PK-55017", "window": "2024-06-13 13:00-17:00", "carrier": "DHL"})
    b.assistant(f"Booked: DHL will collect from {address} on 2024-06-13 between 13:00 and 17:00 (PK-55017).")
    guide("Should I remove the case before they come?")
    b.user("And what was the reference for the phone bill dispute again?")
    b.decide("dispute-ref",
             fact("dispute_id", "DSP-66120"),
             state(dispute, "succeeded", request_id=dispute.request_id),
             fact("decision_by", "2024-06-28"),
             state(pickup, "succeeded", request_id=pickup.request_id))
    b.assistant("DSP-66120; a decision is due by 2024-06-28.")
    for _ in range(3):
        guide(b.rng.choice(["What if I'm in a meeting when DHL arrives?", "How long does the repair take?",
                            "Will they wipe my drive?", "Do I get a loaner?"]))
    b.small_talk(2)
    b.user("The DHL driver just called and asked for the pickup reference and my serial number.")
    b.decide("courier-asks",
             fact("pickup_ref", "PK-55017"),
             fact("serial_number", serial),
             fact("pickup_address", address, subject=f"ticket_id={ticket}"),
             fact("window", "2024-06-13 13:00-17:00"))
    b.assistant(f"Pickup reference PK-55017, serial {serial}.")
    return b


def two_orders() -> Builder:
    phones, charger = "20417", "20533"
    b = Builder(
        "two-orders", "Two orders at once: one delivered, one in transit, a return for the right one",
        "A customer asks about two orders with different states and dates: headphones delivered, a charger in "
        "transit. She first says she wants to return the charger, then corrects herself: the headphones. The "
        "charger is delivered later on. Fact probes name the order (subject) so the two orders' statuses, dates "
        "and the return are never mixed up.",
        ["several entities at once (fact probes with subject order_id=...)",
         "a user correction supersedes which order the return is for",
         "a status that changes later (in_transit, then delivered) with the old value superseded",
         "next_call values from earlier tool results"],
        [tool("get_order", "read", ["order_id"]), tool("track_shipment", "read", ["tracking_no"]),
         tool("get_help_article", "read", ["article_id"]), tool("start_return", "write", ["order_id"]),
         tool("get_return_label", "read", ["return_id"])],
        reserved=[phones, charger, "JD0098240095", "RET-44718"])

    def order(order_id: str, **fields: Any) -> Call:
        return b.tool("get_order", {"order_id": order_id}, {"order_id": order_id, **fields})

    def track(status: str, what: str = "charger", waybill: str = "JD0098240095") -> None:
        b.user(b.rng.choice(TRACKING_ASKS).replace("parcel", what))
        days = [f"2024-05-{d:02d}" for d in range(3, 9)]
        b.tool("track_shipment", {"tracking_no": waybill}, {"tracking_no": waybill, "status": status},
               log=b.log(scan_line(days), b.rng.randrange(620, 820), head=[f"Waybill {waybill}"]))
        b.assistant(f"The {what}: {status.replace('_', ' ')}.")

    b.user(f"Hi! I have two orders with you: {phones} (headphones) and {charger} (a phone charger). "
           "Can you check both?")
    order(phones, item="Sonic Q7 headphones", status="delivered", delivered_on="2024-05-02",
          tracking_no="JD0098117720", total="129.00")
    order(charger, item="65W USB-C charger", status="in_transit", eta="2024-05-09", tracking_no="JD0098240095",
          total="34.99")
    b.assistant(f"The headphones ({phones}) were delivered on 2024-05-02; the charger ({charger}) is on its way, "
                "due on 2024-05-09.")
    b.user("Sorry, which one is still on its way, and when is it due?")
    b.decide("both-orders",
             fact("status", "delivered", subject=f"order_id={phones}"),
             fact("status", "in_transit", subject=f"order_id={charger}"),
             fact("eta", "2024-05-09", subject=f"order_id={charger}"),
             fact("delivered_on", "2024-05-02", subject=f"order_id={phones}"), early=True)
    b.assistant(f"The charger, {charger}; it's due on 2024-05-09.")
    for status in ["in_transit", "in_transit", "at_hub", "in_transit", "at_hub", "in_transit"]:
        track(status)
    b.user("I want to return the charger, by the way. It's the wrong plug type.")
    b.fact("return_for_order", charger, "user")
    b.assistant("I can set that up once it's been delivered.")
    help_turn(b)
    b.user("Wait, sorry — not the charger, the headphones! The charger hasn't even arrived. The headphones' left ear "
           "crackles.")
    b.fact("return_for_order", phones, "user", kind="correction")
    ret = b.tool("start_return", {"order_id": phones, "reason": "left ear crackles"},
                 {"order_id": phones, "return_id": "RET-44718", "refund_amount": "129.00", "drop_off_by": "2024-05-16"})
    b.assistant("Return RET-44718 is open for the headphones: drop them off by 2024-05-16 and you'll get 129.00 back.")
    for _ in range(2):
        help_turn(b)
    for status in ["in_transit", "at_hub", "in_transit", "out_for_delivery"]:
        track(status)
    b.user("The doorbell just rang — is that the charger?")
    order(charger, item="65W USB-C charger", status="delivered", delivered_on="2024-05-08",
          tracking_no="JD0098240095", total="34.99")
    b.assistant("Yes: the charger was delivered a moment ago (2024-05-08).")
    for _ in range(3):
        help_turn(b)
    b.small_talk(2)
    b.user("Where do I drop off the return?")
    b.decide("drop-off",
             next_call("get_return_label", return_id="RET-44718"),
             fact("return_for_order", phones, superseded=[charger], why="the user corrected herself"),
             fact("drop_off_by", "2024-05-16"),
             state(ret, "succeeded", request_id=ret.request_id))
    b.tool("get_return_label", {"return_id": "RET-44718"},
           {"return_id": "RET-44718", "label_url": "https://returns.example/l/44718", "drop_off": "any InPost locker"})
    b.assistant("Print the label from the link and drop the parcel at any InPost locker.")
    b.chat("Dropped the headphones off at the locker.", "Thanks! Its waybill is JD0098301144; I'll follow it.")
    for status in ["dropped_off", "collected", "in_transit", "at_hub", "in_transit"]:
        track(status, "return", "JD0098301144")
    help_turn(b)
    b.user(f"Can you look at {phones} again? I want to be sure the return is registered on the order.")
    order(phones, item="Sonic Q7 headphones", status="return_started", delivered_on="2024-05-02",
          tracking_no="JD0098117720", total="129.00")
    b.assistant("Yes: the order shows the return as started.")
    for status in ["in_transit", "at_hub", "in_transit", "arrived_at_returns_centre"]:
        track(status, "return", "JD0098301144")
    for _ in range(2):
        help_turn(b)
    b.small_talk(2)
    for _ in range(3):
        help_turn(b)
    b.user("Let me summarise for my husband: what's the state of each order now?")
    b.decide("summary",
             fact("status", "delivered", subject=f"order_id={charger}", superseded=["in_transit"]),
             fact("status", "return_started", subject=f"order_id={phones}", superseded=["delivered"]),
             fact("delivered_on", "2024-05-08", subject=f"order_id={charger}"),
             fact("refund_amount", "129.00"),
             fact("return_for_order", phones, superseded=[charger]))
    b.assistant("Headphones: return started (129.00 back once dropped off by 2024-05-16). "
                "Charger: delivered on 2024-05-08.")
    b.user("He says the charger has the wrong plug for us after all. Please send that back too.")
    b.decide("second-return",
             next_call("start_return", order_id=charger, why="the charger order, from earlier messages"),
             fact("status", "delivered", subject=f"order_id={charger}", superseded=["in_transit"]),
             fact("delivered_on", "2024-05-08", subject=f"order_id={charger}"))
    b.tool("start_return", {"order_id": charger, "reason": "wrong plug type"},
           {"order_id": charger, "return_id": "RET-44731", "refund_amount": "34.99", "drop_off_by": "2024-05-22"})
    b.assistant("Return RET-44731 is open for the charger: 34.99 back once it's dropped off by 2024-05-22.")
    return b


def bulk_retag() -> Builder:
    tag, page_size = "summer-2024", 12
    b = Builder(
        "bulk-retag", "A bulk re-tagging job: 300+ writes, one of them unknown",
        "The agent tags every product of a category, twelve listed at a time, skipping the clearance items the "
        "user excluded: over 300 successful writes, each with its own request id, and one that times out. "
        "Probes ask only what is live: the cursor of the next page, the most recent writes, the write whose "
        "outcome is still unknown, the current totals and the exclusion — never the request id of an early "
        "write, so the summary can stay bounded.",
        ["hundreds of writes (300+ successful write calls): the summary must stay bounded",
         "one write timed out and stays unknown through the rest of the job (tool_state, pending, evidence)",
         "recent writes and current totals (tool_state, fact)",
         "a user's exclusion stated once at the start (constraint)",
         "next_call values from the previous page's result (cursor) and the first message (tag)"],
        [tool("list_products", "read", ["category"]), tool("tag_product", "write", ["sku"]),
         tool("count_tagged", "read", ["tag"]), tool("get_product", "read", ["sku"])],
        reserved=[tag])
    catalog = [f"OUT-{n}" for n in b.rng.sample(range(1000, 10000), 340)]
    clearance = set(b.rng.sample(catalog, 24))
    pages = [catalog[i:i + page_size] for i in range(0, len(catalog), page_size)]
    cursors = [f"cur_{hexid(b.rng, 6)}" for _ in pages[1:]]  # cursors[n]: the cursor of page n + 1
    fail_page = 17
    fail_sku = next(s for s in pages[fail_page][5:] if s not in clearance)
    done: list[Call] = []

    def batch(number: int) -> Call | None:
        """List page ``number`` and tag its products but the clearance ones; the call that timed out, if any."""
        skus = pages[number]
        arguments = {"category": "outdoor"} | ({"cursor": cursors[number - 1]} if number else {})
        b.tool("list_products", arguments, {"skus": [s for s in skus if s not in clearance],
                                            "clearance": [s for s in skus if s in clearance],
                                            "next_cursor": cursors[number] if number < len(cursors) else None})
        failed = None
        for sku in skus:
            if sku in clearance:
                continue
            call = b.call("tag_product", {"sku": sku, "tag": tag})
            if sku == fail_sku:
                b.answer(call, "timeout", error="catalog-api: no answer within 10 s")
                failed = call
            else:
                b.answer(call, result={"sku": sku, "tags": ["outdoor", tag]})
                done.append(call)
        b.assistant(f"Page {number + 1} of {len(pages)} done"
                    + (f"; {fail_sku} timed out, I'll check it later." if failed else "."))
        return failed

    def count(ask: str) -> int:
        b.user(ask)
        b.tool("count_tagged", {"tag": tag},
               {"tag": tag, "tagged": len(done), "remaining": len(catalog) - len(clearance) - len(done)})
        b.assistant(f"{len(done)} products are tagged so far.")
        return len(done)

    def recent() -> list[dict[str, Any]]:
        return [state(call, "succeeded", request_id=call.request_id) for call in done[-2:]]

    goal = b.user(f"Please tag every product in the outdoor category with {tag} — there are about 340. Don't touch "
                  "anything marked clearance; those are being delisted.")
    batch(0)
    asks = ["Next page please.", "Keep going.", "Continue.", "Go on with the next batch.", "Carry on.",
            "Next one.", "Looks fine, continue."]
    unknown: Call | None = None
    for number in range(1, len(pages)):
        cursor = cursors[number - 1]
        if number == 1:
            b.user("Looks right. Carry on with the next page.")
            b.decide("second-page",
                     next_call("list_products", cursor=cursor, why="the cursor from the previous page"),
                     next_call("tag_product", tag=tag),
                     constraint(goal, "marked clearance"),
                     *recent(), early=True)
        elif number == 9:
            b.user(b.rng.choice(asks))
            b.decide("mid-job",
                     next_call("list_products", cursor=cursor),
                     next_call("tag_product", tag=tag),
                     constraint(goal, "marked clearance"),
                     *recent())
        elif number == fail_page + 3:
            b.user("Anything go wrong so far? If not, carry on.")
            b.decide("after-timeout",
                     state(unknown, "unknown", why="a timeout, neither retried nor reconciled"),
                     pending(call=unknown),
                     evidence(unknown.seq, unknown.answer_seq),
                     next_call("list_products", cursor=cursor),
                     *recent())
        elif number == fail_page + 6:
            tagged = count("How many are done so far?")
            b.small_talk(2)
            b.user("Sorry, where were we — how many were done, and is anything unresolved? Then carry on.")
            b.decide("totals",
                     fact("tagged", tagged, why="nothing was tagged since the count"),
                     state(unknown, "unknown"),
                     pending(call=unknown),
                     evidence(unknown.seq, unknown.answer_seq),
                     constraint(goal, "marked clearance"),
                     next_call("list_products", cursor=cursor))
            b.assistant(f"{tagged} done; {fail_sku} is still unconfirmed. On to the next page.")
        else:
            b.user(b.rng.choice(asks))
        unknown = batch(number) or unknown
    tagged = count("Is that everything?")
    b.user("Great. And the one that timed out — what do we do about it?")
    b.decide("the-unknown-one",
             next_call("get_product", sku=fail_sku, why="check its tags before any retry"),
             state(unknown, "unknown"),
             pending(call=unknown),
             evidence(unknown.seq, unknown.answer_seq),
             fact("tagged", tagged),
             *recent())
    b.tool("get_product", {"sku": fail_sku}, {"sku": fail_sku, "tags": ["outdoor"]})
    b.assistant(f"{fail_sku} does not have the tag yet; I'll retry it with the same idempotency key.")
    return b


JAPAN_INFO = [
    "Visitors from the UK can stay in Japan for up to 90 days without a visa.",
    "Most ryokan serve dinner between 18:00 and 19:30; late arrivals should call ahead.",
    "Expressways charge tolls; an ETC card from the rental company saves time at the gates.",
    "An international driving permit is required to rent a car in Japan.",
    "Parking in central Kyoto is scarce and costs 300 to 600 yen per hour.",
    "The Nozomi is the fastest train between Tokyo and Kyoto, about 2 hours 15 minutes.",
    "Reserved seats on the Shinkansen can be booked up to one month in advance.",
    "Large luggage over 160 cm in total dimensions needs an oversized baggage seat on the Shinkansen.",
    "Luggage forwarding services deliver suitcases between hotels the next day.",
    "October weather in Kyoto is mild, usually between 15 and 24 degrees.",
    "Cash is still preferred in many small shops and temples.",
    "The Haruka express connects Kyoto Station with Kansai Airport in about 75 minutes.",
    "Tipping is not customary in Japan.",
    "Many temples close their gates at 17:00.",
    "Rental cars must be returned with a full tank; stations near airports are busy in the morning.",
    "Child seats are mandatory for children under six.",
]


def branch_mainline() -> Builder:
    hotel, hold, quote, train = "HTL-KYO-2291", "HOLD-55102", "QT-TOY-7713", "NOZOMI-231"
    b = Builder(
        "branch-mainline", "Train or rental car: two plans kept apart until the user chooses",
        "Planning a trip. After a Kyoto hotel is held, the user wants the train plan and a rental-car plan "
        "compared separately: the conversation forks, the train plan continues on the main line and the car "
        "plan on a branch, each with its own events and seqs. The user picks the car; the branch is confirmed "
        "as the mainline (a branch_merge event) and the trip continues there. Probes on both lines check what "
        "each knows: the hold made before the fork, and only that line's own plan.",
        ["a branch and its mainline: fork, events on both, confirm_mainline, probes on the branch",
         "facts from before the fork needed on the branch (folded into the summary at the fork)",
         "next_call values from the branch's own tool results"],
        [tool("search_hotels", "read", ["city"]), tool("hold_room", "write", ["hotel_id"]),
         tool("get_travel_info", "read", ["topic"]), tool("search_trains", "read", ["origin", "destination"]),
         tool("get_fare_quote", "read", ["train_id"]), tool("get_rental_quote", "read", ["pickup"]),
         tool("get_car_details", "read", ["quote_id"]), tool("reserve_car", "write", ["quote_id"]),
         tool("get_route", "read", ["origin", "destination"])],
        reserved=[hotel, hold, quote, train, "2024-10-06", "2024-10-10"])

    def route(origin: str, destination: str) -> None:
        b.user(f"How is the drive from {origin} to {destination}?")
        row = table([choice(["Tomei Expwy", "Shin-Tomei Expwy", "Meishin Expwy", "Shin-Meishin Expwy"]),
                     choice(["Gotemba IC", "Shizuoka IC", "Hamamatsu IC", "Toyota JCT", "Kusatsu IC", "Suita IC"]),
                     integer(8, 95, "{} km"), integer(5, 70, "{} min"), integer(300, 3800, "toll {} JPY"),
                     choice(["service area", "parking area", "no stop", "EV charger"])])
        b.tool("get_route", {"origin": origin, "destination": destination},
               {"origin": origin, "destination": destination, "hours": b.rng.choice(["5.5", "6", "6.5"])},
               log=b.log(row, b.rng.randrange(650, 820), head=["road  exit  distance  time  toll  stop"]))
        b.assistant(f"About six hours from {origin} to {destination} on the expressways, with tolls on most segments.")

    def info(topic: str) -> None:
        b.user(f"What should we know about {topic}?")
        b.tool("get_travel_info", {"topic": topic, "country": "JP"}, {"topic": topic, "country": "JP"},
               log=b.page(f"Japan travel notes: {topic}", JAPAN_INFO, b.rng.randrange(360, 480)))
        b.assistant(b.rng.choice(JAPAN_INFO))

    def trains() -> None:
        row = table([lambda rng: f"{rng.choice(['NOZOMI', 'HIKARI', 'KODAMA'])}-{rng.randrange(200, 700)}",
                     lambda rng: f"Tokyo {rng.randrange(6, 21):02d}:{rng.randrange(60):02d}",
                     lambda rng: f"Kyoto +{rng.choice(['2h14', '2h18', '2h41', '3h38'])}",
                     integer(13000, 14500, "{} JPY reserved"), integer(0, 60, "{} seats"), choice(["N700S", "N700A"])])
        b.tool("search_trains", {"origin": "Tokyo", "destination": "Kyoto", "date": "2024-10-06"},
               {"best_train_id": train, "departs": "09:33", "fare": "14170"},
               log=b.log(row, b.rng.randrange(650, 820),
                         head=[f"{train}  Tokyo 09:33  Kyoto +2h14  14170 JPY reserved"]))
        b.assistant(f"{train} at 09:33 is the best fit: 14170 yen each, reserved seat.")

    def cars() -> None:
        row = table([choice(["compact", "standard", "minivan", "SUV", "wagon"]),
                     choice(["Toyota Yaris", "Honda Fit", "Toyota Sienta", "Nissan Serena", "Mazda CX-5"]),
                     integer(4, 8, "{} seats"), integer(1, 5, "{} large bags"), integer(36000, 92000, "{} JPY total"),
                     choice(["ETC card", "no ETC", "ETC + snow tires"]), choice(["Tokyo Station", "Shinagawa"])])
        b.tool("get_rental_quote", {"pickup": "Tokyo Station", "dropoff": "Kansai Airport", "start": "2024-10-06",
                                    "end": "2024-10-10"},
               {"quote_id": quote, "car": "Toyota Sienta", "total": "58300"},
               log=b.log(row, b.rng.randrange(650, 820),
                         head=[f"{quote}  minivan  Toyota Sienta  7 seats  3 large bags  58300 JPY total"]))
        b.assistant(f"Best value is a Toyota Sienta, quote {quote}: 58300 yen for the four days, one way to "
                    "Kansai Airport.")

    goal = b.user("Plan our Japan trip: Tokyo from 2024-10-03, Kyoto 2024-10-06 to 2024-10-09, then we fly home from "
                  "Kansai (KIX) on 2024-10-10. Two adults, and we'd like a ryokan in Kyoto.")
    b.tool("search_hotels", {"city": "Kyoto", "check_in": "2024-10-06", "check_out": "2024-10-09", "type": "ryokan"},
           {"city": "Kyoto", "results": 22, "best_hotel_id": hotel, "best_rate": "31500"},
           log=b.log(hotel_line("KYO", "Gion", "JPY"), 700,
                     head=[f"{hotel}  Gion Shirakawa Inn  ryokan  31500 JPY/night  0.3 km to Gion  rating 9.4"]))
    b.assistant(f"The Gion Shirakawa Inn ({hotel}) is the best-rated ryokan: 31500 yen a night.")
    b.user("Lovely. Hold a room there.")
    room = b.tool("hold_room", {"hotel_id": hotel, "check_in": "2024-10-06", "check_out": "2024-10-09", "guests": 2},
                  {"hold_id": hold, "hotel_id": hotel, "expires": "2024-09-20"})
    b.assistant(f"Held: hold {hold}, valid until 2024-09-20.")
    b.user("How long is that hold valid, and what's its reference?")
    b.decide("hold",
             fact("hold_id", hold),
             fact("expires", "2024-09-20"),
             state(room, "succeeded", request_id=room.request_id), early=True)
    b.assistant(f"{hold}, until 2024-09-20.")
    info("the ryokan etiquette")
    split = b.user("Now the leg from Tokyo to Kyoto: compare the train with renting a car, as two separate plans — "
                   "I don't want them mixed up.")
    b.fork("rental-car")
    trains()
    b.user("What would the train plan cost in total for the two of us?")
    b.decide("train-plan",
             next_call("get_fare_quote", train_id=train, date="2024-10-06", why="the train found on this line"),
             fact("hold_id", hold, why="made before the fork"),
             fact("fare", "14170"),
             constraint(split, "two separate plans"))
    b.tool("get_fare_quote", {"train_id": train, "date": "2024-10-06", "passengers": 2},
           {"train_id": train, "total": "28340", "seats": "car 7, 12A-12B"})
    b.assistant("28340 yen for both of you, reserved seats 12A-12B in car 7.")
    for topic in ["luggage on the Shinkansen", "getting from Kyoto Station to Gion"]:
        info(topic)
    for question in ["Are there earlier trains, in case we want a longer first day?",
                     "And later ones, in the afternoon?", "Which trains have the newest carriages?"]:
        b.user(question)
        trains()
    b.switch("rental-car")
    cars()
    for topic in ["driving in Japan", "parking in Kyoto"]:
        info(topic)
    route("Tokyo", "Kyoto")
    route("Tokyo", "Fuji Five Lakes")
    route("Fuji Five Lakes", "Kyoto")
    b.user("Does that car fit two big suitcases and our carry-ons?")
    b.decide("car-plan",
             next_call("get_car_details", quote_id=quote, why="the quote found on this branch"),
             fact("hold_id", hold, why="made before the fork, folded into the branch's first summary"),
             fact("total", "58300"),
             constraint(goal, "2024-10-10"))
    b.tool("get_car_details", {"quote_id": quote},
           {"quote_id": quote, "large_bags": 3, "carry_ons": 4, "etc_card": True})
    b.assistant("Yes: three large bags plus four carry-ons, and it comes with an ETC toll card.")
    for topic in ["expressway tolls", "returning the car at Kansai Airport", "fuel stations"]:
        info(topic)
    b.user("Show me the other cars too, just to compare.")
    cars()
    route("Kyoto", "Kansai Airport")
    info("driving licence requirements")
    route("Tokyo", "Hakone")
    b.small_talk(2)
    b.user("We've decided: we'll take the car. Let's go with that plan.")
    b.confirm_mainline("rental-car")
    b.assistant("Great — the car plan is now the plan; the train option is dropped.")
    b.user("Go ahead and reserve it.")
    b.decide("chosen",
             next_call("reserve_car", quote_id=quote, dropoff_date="2024-10-10"),
             fact("hold_id", hold),
             fact("car", "Toyota Sienta"),
             constraint(goal, "fly home from Kansai"))
    car = b.tool("reserve_car", {"quote_id": quote, "dropoff_date": "2024-10-10", "drivers": 2},
                 {"reservation_id": "CAR-88412", "quote_id": quote, "total": "58300", "pickup": "2024-10-06 09:00"})
    b.assistant("Reserved: CAR-88412, pick-up at Tokyo Station on 2024-10-06 at 09:00.")
    for topic in ["the Kyoto ryokan check-in", "sightseeing on the way", "child seats", "the drive to Kansai"]:
        info(topic)
    b.small_talk(2)
    for topic in ["road conditions in October", "temples near Gion"]:
        info(topic)
    route("Hakone", "Kyoto")
    route("Kyoto", "Nara")
    route("Nara", "Kansai Airport")
    route("Kyoto", "Amanohashidate")
    info("onsen towns near Kyoto")
    route("Kyoto", "Kinosaki Onsen")
    b.user("Remind me: what have we booked so far?")
    b.decide("booked",
             fact("reservation_id", "CAR-88412"),
             fact("hold_id", hold),
             state(car, "succeeded", request_id=car.request_id),
             fact("expires", "2024-09-20", why="the hotel hold must be confirmed before it lapses"))
    b.assistant(f"The ryokan hold {hold} (confirm before 2024-09-20) and the car CAR-88412.")
    return b


# -- function-calling trajectories: tools run against small in-memory simulations ----------------------------
# Each simulation method is a tool: it takes the call's arguments and returns (result, log or None),
# and Builder.run records the call and its answer. Long outputs go to the log.


@dataclass
class File:
    text: str
    modified: str

    def size(self) -> int:
        return len(self.text.encode())


class FileSystem:
    """A user's home directory: directories are dicts, files are :class:`File`; paths are relative."""

    def __init__(self, home: str, tree: dict[str, Any]):
        self.home, self.tree, self.cwd = home, tree, []  # cwd: names from the home directory down

    def _dir(self, parts: list[str]) -> dict[str, Any]:
        node = self.tree
        for part in parts:
            node = node[part]
        return node

    def _resolve(self, path: str) -> list[str]:
        parts = list(self.cwd)
        for part in path.split("/"):
            if part == "..":
                parts.pop()
            elif part not in ("", "."):
                parts.append(part)
        return parts

    def path(self) -> str:
        return "/".join([self.home, *self.cwd])

    def pwd(self) -> Output:
        return {"current_working_directory": self.path()}, None

    def cd(self, folder: str) -> Output:
        parts = self._resolve(folder)
        assert isinstance(self._dir(parts), dict), folder
        self.cwd = parts
        return {"current_working_directory": self.path()}, None

    def ls(self) -> Output:
        entries = self._dir(self.cwd)
        if len(entries) <= 10:
            return {"current_directory_content": sorted(entries)}, None
        lines = [f"drwxr-xr-x     4096  2024-02-01  {name}/" if isinstance(e, dict) else
                 f"-rw-r--r--  {e.size():>7}  {e.modified}  {name}" for name, e in sorted(entries.items())]
        folders = sorted(name for name, e in entries.items() if isinstance(e, dict))
        return {"current_directory": self.path(), "entries": len(entries), "folders": folders}, "\n".join(lines)

    def find(self, name: str, path: str = ".") -> Output:
        def walk(node: dict[str, Any], prefix: str) -> Iterable[str]:
            for key, entry in sorted(node.items()):
                if name in key:
                    yield prefix + key
                if isinstance(entry, dict):
                    yield from walk(entry, f"{prefix}{key}/")
        return {"matches": list(walk(self._dir(self._resolve(path)), "./"))}, None

    def _file(self, file_name: str) -> File:
        parts = self._resolve(file_name)
        return self._dir(parts[:-1])[parts[-1]]

    def cat(self, file_name: str) -> Output:
        text = self._file(file_name).text
        return {"file_name": file_name, "lines": text.count("\n") + 1}, text

    def wc(self, file_name: str, mode: str) -> Output:
        text = self._file(file_name).text
        counted = {"l": text.count("\n") + 1, "w": len(text.split()), "c": len(text)}[mode]
        return {"count": counted, "type": {"l": "lines", "w": "words", "c": "characters"}[mode]}, None

    def grep(self, file_name: str, pattern: str) -> Output:
        lines = [line for line in self._file(file_name).text.splitlines() if pattern in line]
        return {"matching_lines": lines[:6], "total_matches": len(lines)}, None

    def tail(self, file_name: str, lines: int) -> Output:
        text = "\n".join(self._file(file_name).text.splitlines()[-lines:])
        return {"file_name": file_name, "lines": lines}, text

    def _move(self, source: str, destination: str, keep: bool) -> Output:
        src = self._resolve(source)
        entry = self._dir(src[:-1])[src[-1]]
        dst = self._resolve(destination)
        target = self._dir(dst) if isinstance(self._dir(dst[:-1]).get(dst[-1]), dict) else None
        if target is not None:
            target[src[-1]] = entry
        else:
            self._dir(dst[:-1])[dst[-1]] = entry
        if not keep:
            del self._dir(src[:-1])[src[-1]]
        return {"source": source, "destination": destination, "result": "copied" if keep else "moved"}, None

    def mv(self, source: str, destination: str) -> Output:
        return self._move(source, destination, keep=False)

    def cp(self, source: str, destination: str) -> Output:
        return self._move(source, destination, keep=True)

    def rm(self, file_name: str) -> Output:
        parts = self._resolve(file_name)
        del self._dir(parts[:-1])[parts[-1]]
        return {"removed": file_name}, None

    def echo(self, content: str, file_name: str) -> Output:
        parts = self._resolve(file_name)
        self._dir(parts[:-1])[parts[-1]] = File(content, "2024-03-08")
        return {"file_name": file_name, "bytes_written": len(content.encode())}, None


MEETING_NOTES = [
    "Attendees: Alex, Priya, Tom and the finance partner.",
    "Marketing spend came in 6% under plan, mostly because the trade show was cancelled.",
    "Headcount costs are on track; two hires moved from Q3 to Q4.",
    "Cloud costs grew faster than expected after the analytics migration.",
    "Action: Tom to split the cloud line by team before the next review.",
    "Travel is still above budget; the policy reminder goes out next week.",
    "The contractor invoices for July arrived late and are now included.",
    "Open question: whether the software renewals should be capitalised.",
    "Priya will send the revised forecast to the leadership team on Friday.",
    "The office move is postponed to next year, freeing part of the facilities budget.",
    "Everyone agreed to freeze discretionary spend until the numbers are final.",
    "Next review: first Monday of October.",
    "We discussed the vendor consolidation; three contracts end in December.",
    "Support costs dropped after the new self-service portal launched.",
    "The FX impact on the UK subsidiary was about 40k.",
    "Legal fees were higher because of the trademark dispute, which is now settled.",
    "The data team asked for two more GPU instances for the forecasting model.",
    "Sales commissions will be reviewed once the Q3 bookings are final.",
    "Tom noted that three invoices were coded to the wrong cost centre.",
    "The hardware refresh for support is deferred by one quarter.",
    "Priya asked everyone to use the new template from next month.",
    "Training budgets are mostly unused; teams should plan courses before December.",
    "We agreed to report cloud costs per product line from Q4.",
    "The customer advisory board dinner moved to November.",
    "Alex will tidy the shared reports folder and archive the finished quarters.",
]


def budget_csv(rng: random.Random) -> str:
    return ",".join([rng.choice(["eng", "sales", "marketing", "ops", "finance", "support", "legal"]),
                     rng.choice(["salaries", "cloud", "travel", "software", "contractors", "events", "hardware"]),
                     f"{rng.uniform(2000, 90000):.2f}", f"{rng.uniform(2000, 90000):.2f}",
                     rng.choice(["alex", "priya", "tom", "li", "sam"])])


def workspace(b: Builder) -> FileSystem:
    """Alex's workspace: reports (thirty-odd files and an archive folder), scratch, projects."""
    dates = date_in("2023-10", 1, 28)
    reports: dict[str, Any] = {
        "old_quarters": {"q1_budget_final.csv": File(b.log(budget_csv, 300), "2023-04-11"),
                         "q2_budget_final.csv": File(b.log(budget_csv, 300), "2023-07-09")},
        "q3_budget_draft.csv": File(b.log(budget_csv, 400), "2023-09-02"),
        "q3_budget_final.csv": File(b.log(budget_csv, 400), "2023-09-28"),
        "q3_budget_final_v2.csv": File(b.log(budget_csv, 420, head=["dept,line_item,plan,actual,owner"]), "2023-10-04"),
        "budget_review_notes.md": File(b.page("# Q3 budget review", MEETING_NOTES, 420)
                                       + "\n\nThe final numbers are in q3_budget_final_v2.csv; q3_budget_final.csv "
                                         "is superseded (kept for reference only).", "2023-10-05"),
    }
    for topic in ["hiring_plan", "vendor_review", "okr_status", "board_deck_outline", "travel_policy", "roadmap"]:
        for version in b.rng.sample(["2023-07", "2023-08", "2023-09", "2023-10"], 2):
            reports[f"{topic}_{version}.md"] = File(b.page(f"# {topic} {version}", MEETING_NOTES,
                                                           b.rng.randrange(380, 540)), dates(b.rng))
    for topic in ["cloud_costs", "travel_spend", "support_metrics", "forecast", "headcount", "renewals", "capex",
                  "contractors"]:
        for version in b.rng.sample(["2023-07", "2023-08", "2023-09", "2023-10"], 2):
            reports[f"{topic}_{version}.csv"] = File(b.log(budget_csv, b.rng.randrange(600, 800),
                                                           head=["dept,line_item,plan,actual,owner"]), dates(b.rng))
    paths = ["/v1/reports", "/v1/export", "/v1/login", "/v1/search"]
    scratch = {f"server_access_{day}.log": File(b.log(server_log("reports-api", paths, day), 820), day)
               for day in ("2023-10-02", "2023-10-03")}
    scratch |= {"tmp_export_8812.csv": File(b.log(budget_csv, 200), "2023-10-02"),
                "tmp_export_8813.csv": File(b.log(budget_csv, 200), "2023-10-02"),
                "scratch_notes.txt": File("try the pivot by team; ask Tom about cloud split", "2023-10-03")}
    projects = {"orion": {"README.md": File(b.page("# Orion", MEETING_NOTES, 300), "2023-08-01")},
                "atlas": {"README.md": File(b.page("# Atlas", MEETING_NOTES, 300), "2023-06-12")}}
    return FileSystem("/home/alex/workspace", {"reports": reports, "scratch": scratch, "projects": projects,
                                                "todo.txt": File("- tidy reports\n- archive Q3\n- clean scratch",
                                                                 "2023-10-01")})


def fs_workspace() -> Builder:
    final, draft, archive = "q3_budget_final_v2.csv", "q3_budget_draft.csv", "old_quarters"
    access_log, temps = "server_access_2023-10-02.log", ["tmp_export_8812.csv", "tmp_export_8813.csv"]
    b = Builder(
        "fs-workspace", "Tidying a workspace with file-system tools",
        "A multi-turn file-system session in the style of function-calling benchmarks (ls, cd, find, cat, mv, "
        "cp, rm, grep, wc, tail), executed on an in-memory file system. File and folder names come from "
        "listings and documents many turns earlier; the working directory changes with cd; two deletions are "
        "irreversible and kept as evidence until the clean-up ends.",
        ["multi-turn function calling: file system (ls/cd/cat/mv/cp/rm with file names)",
         "next_call arguments from earlier tool results (file and folder names), never the turn's own request",
         "the current working directory as a fact that changes with cd",
         "irreversible deletions kept as evidence until a subtask_end",
         "a user rule stated once at the start (constraint)"],
        [tool("pwd", "read"), tool("ls", "read"), tool("cd", "read", description="changes the session's directory"),
         tool("find", "read"), tool("cat", "read", ["file_name"]), tool("wc", "read", ["file_name"]),
         tool("grep", "read", ["file_name"]), tool("tail", "read", ["file_name"]),
         tool("mv", "write", ["source"]), tool("cp", "write", ["source"]), tool("echo", "write", ["file_name"]),
         tool("rm", "irreversible", ["file_name"])],
        reserved=[final, draft, archive, *temps, access_log])
    fs = workspace(b)
    reading = [name for name in sorted(fs.tree["reports"]) if name[:2] != "q3" and "." in name
               and name != "budget_review_notes.md"]

    def read_report() -> None:
        name = reading.pop(b.rng.randrange(len(reading)))
        b.user(f"Open {name}, I don't remember what's in it.")
        b.run(fs, "cat", file_name=name)
        b.assistant("A spreadsheet export: plan against actuals per team." if name.endswith(".csv") else
                    b.rng.choice(["Notes from a planning review.", "Mostly action items from the review.",
                                  "A short status update with a few open questions."]))

    rule = b.user("I need to tidy my workspace. One rule: don't delete anything without asking me first — moving is "
                  "fine. Start by showing me what's here.")
    b.run(fs, "pwd")
    b.run(fs, "ls")
    b.assistant("You have reports, scratch, projects and a todo.txt here.")
    b.user("Go into reports and list everything.")
    b.run(fs, "cd", folder="reports")
    b.run(fs, "ls")
    b.assistant("Thirty-odd files, mostly notes and budget sheets, plus a folder for finished quarters.")
    b.user("Which of these are the Q3 budget files?")
    b.run(fs, "find", name="q3_budget")
    b.assistant(f"Three: {draft}, q3_budget_final.csv and {final}.")
    b.user("Which one is the real final? There should be a review note about it.")
    b.run(fs, "cat", file_name="budget_review_notes.md")
    b.assistant(f"The note says {final} has the final numbers; q3_budget_final.csv is superseded.")
    b.user("Where are we right now, by the way?")
    b.decide("where",
             fact("current_working_directory", f"{fs.home}/reports"),
             constraint(rule, "without asking me first"), early=True)
    b.assistant(f"In {fs.home}/reports.")
    for _ in range(5):
        read_report()
    b.user("OK. Move the real final version into the folder for finished quarters.")
    b.decide("archive-final",
             next_call("mv", source=final, destination=archive, why="names from the review note and the listing"),
             fact("current_working_directory", f"{fs.home}/reports"),
             constraint(rule, "moving is fine"))
    moved = b.run(fs, "mv", source=final, destination=archive)
    b.assistant(f"Moved {final} into {archive}/.")
    for _ in range(7):
        read_report()
    b.small_talk(2)
    b.user("Copy the budget draft into scratch so I can play with it.")
    b.decide("copy-draft",
             next_call("cp", source=draft, why="the draft's name from the find result"),
             fact("current_working_directory", f"{fs.home}/reports"),
             state(moved, "succeeded", request_id=moved.request_id))
    b.run(fs, "cp", source=draft, destination="../scratch")
    b.assistant(f"Copied {draft} into scratch.")
    b.user("Now go to scratch and tell me how long the access log there is.")
    b.run(fs, "cd", folder="../scratch")
    b.run(fs, "ls")
    b.run(fs, "wc", file_name=access_log, mode="l")
    b.assistant(f"{access_log} has {fs.wc(access_log, 'l')[0]['count']} lines.")
    b.user("Show me the end of it.")
    b.run(fs, "tail", file_name=access_log, lines=40)
    b.assistant("Mostly routine requests, with a few errors from the export endpoint.")
    b.user("Are there many 500s in it?")
    b.run(fs, "grep", file_name=access_log, pattern="status=500")
    b.assistant("A handful, all on the export endpoint.")
    b.user("And the log from the next day, the end of it?")
    b.run(fs, "tail", file_name="server_access_2023-10-03.log", lines=40)
    b.assistant("Similar traffic on the 3rd.")
    b.user("Delete the two temporary exports, I don't need them.")
    b.decide("delete-temps",
             next_call("rm", file_name=temps[0], why="from the listing of scratch"),
             next_call("rm", file_name=temps[1]),
             fact("current_working_directory", f"{fs.home}/scratch", superseded=[f"{fs.home}/reports"]),
             constraint(rule, "without asking me first"))
    removed = [b.run(fs, "rm", file_name=name) for name in temps]
    b.assistant("Both deleted.")
    b.user("Did both deletions actually work?")
    b.decide("deleted",
             state(removed[0], "succeeded", request_id=removed[0].request_id),
             state(removed[1], "succeeded", request_id=removed[1].request_id),
             evidence(removed[0].seq, removed[0].answer_seq, removed[1].seq, removed[1].answer_seq,
                      why="irreversible, the clean-up is not closed yet"))
    b.assistant("Yes, both files are gone.")
    b.event("subtask_end", text="scratch cleaned: two temporary exports deleted", task_done=False)
    b.user("Write a cleanup_log.txt here saying what we moved and deleted.")
    b.run(fs, "echo", content=f"moved {final} to reports/{archive}; deleted {temps[0]} and {temps[1]}",
          file_name="cleanup_log.txt")
    b.assistant("Written.")
    b.user("Go back to reports.")
    b.run(fs, "cd", folder="../reports")
    b.run(fs, "ls")
    b.assistant("Back in reports.")
    for _ in range(7):
        read_report()
    b.small_talk(2)
    for _ in range(6):
        read_report()
    b.user("My boss wants the final Q3 numbers. Show me the file we archived.")
    b.decide("show-final",
             next_call("cd", folder=archive, why="where the move put it"),
             next_call("cat", file_name=final),
             fact("current_working_directory", f"{fs.home}/reports", superseded=[f"{fs.home}/scratch"]),
             state(moved, "succeeded", request_id=moved.request_id),
             constraint(rule, "without asking me first"))
    b.run(fs, "cd", folder=archive)
    b.run(fs, "cat", file_name=final)
    b.assistant("Here are the final Q3 numbers.")
    return b


MARKET_NEWS = [
    "Chipmakers rallied after a strong revenue forecast from a major foundry.",
    "Treasury yields edged lower ahead of the central bank meeting.",
    "Oil prices slipped as inventories rose more than expected.",
    "Retail sales beat estimates, lifting consumer discretionary stocks.",
    "Analysts raised price targets on cloud software names after earnings.",
    "The dollar weakened against the yen for a third straight session.",
    "A large pension fund disclosed new positions in semiconductor equipment makers.",
    "Volatility stayed subdued despite a busy week of economic data.",
    "Smartphone shipments grew for the second quarter in a row.",
    "Regulators opened a review of a proposed merger in the payments sector.",
    "Electric vehicle makers fell after price cuts in China.",
    "Bank stocks were mixed as investors weighed lending margins.",
    "Gold hovered near its record high on safe-haven demand.",
    "Small caps outperformed as rate-cut expectations firmed.",
]

SECTORS = {"Technology": ["AAPL", "MSFT", "NVDA", "AMD", "INTC", "ORCL", "CRM", "ADBE", "AVGO", "QCOM", "CSCO", "IBM",
                          "TXN", "MU", "AMAT"],
           "Energy": ["XOM", "CVX", "COP", "SLB", "EOG", "PSX", "MPC", "OXY", "HAL", "KMI", "WMB", "VLO"],
           "Healthcare": ["JNJ", "PFE", "MRK", "ABBV", "LLY", "TMO", "UNH", "AMGN", "GILD", "BMY", "CVS", "ISRG"]}
COMPANIES = {"NVIDIA": "NVDA", "Apple": "AAPL", "Microsoft": "MSFT", "Advanced Micro Devices": "AMD"}


class Broker:
    """A brokerage account: prices, orders, a watchlist and cash movements (BFCL's TradingBot in spirit)."""

    def __init__(self, b: Builder):
        self.b = b
        self.prices = {sym: round(b.rng.uniform(30, 600), 2) for syms in SECTORS.values() for sym in syms}
        self.prices |= {"NVDA": 912.40, "AAPL": 189.20, "MSFT": 421.55, "AMD": 163.10}
        self.balance, self.account_id = 25410.77, "ACC-7741-2209"
        self.orders: dict[str, dict[str, Any]] = {}
        self.order_numbers = itertools.count(5530912, 35)
        self.watchlist = ["MSFT", "AMD"]

    def get_account_info(self) -> Output:
        return {"account_id": self.account_id, "balance": f"{self.balance:.2f}", "binding_card": "****4412"}, None

    def get_symbol_by_name(self, name: str) -> Output:
        return {"symbol": COMPANIES[name]}, None

    def get_stock_info(self, symbol: str) -> Output:
        rng = self.b.rng
        return {"symbol": symbol, "price": f"{self.prices[symbol]:.2f}",
                "percent_change": f"{rng.uniform(-2.5, 2.5):+.2f}", "volume": f"{rng.uniform(5, 90):.1f}M"}, None

    def get_available_stocks(self, sector: str) -> Output:
        rng = self.b.rng
        rows = [f"{sym:<5} {price:>9.2f} {rng.uniform(-3, 3):+6.2f}%  vol {rng.uniform(1, 90):5.1f}M  "
                f"bid {price - 0.05:.2f} ask {price + 0.04:.2f}  52w {price * 0.7:.2f}-{price * 1.2:.2f}  "
                f"pe {rng.uniform(8, 70):.1f}" for sym, price in ((s, self.prices[s]) for s in SECTORS[sector])]
        return {"sector": sector, "stocks": len(rows)}, "\n".join(rows)

    def get_order_book(self, symbol: str) -> Output:
        price, rng = self.prices[symbol], self.b.rng
        rows = [f"bid {price - i * 0.05:9.2f} x {rng.randrange(100, 9000):>5}   |   "
                f"ask {price + i * 0.05 + 0.04:9.2f} x {rng.randrange(100, 9000):>5}   "
                f"venue {rng.choice(['NSDQ', 'ARCA', 'BATS', 'EDGX', 'IEX'])}"
                for i in range(1, 27)]
        return {"symbol": symbol, "levels": len(rows)}, "\n".join(rows)

    def get_market_news(self, topic: str) -> Output:
        rng, symbols = self.b.rng, list(self.prices)
        return {"topic": topic}, "\n".join(
            f"{rng.randrange(7, 17):02d}:{rng.randrange(60):02d} ET  [{rng.choice(symbols)}] {rng.choice(MARKET_NEWS)} "
            f"({rng.choice(['Reuters', 'Bloomberg', 'Dow Jones', 'AP', 'MarketWatch'])})" for _ in range(26))

    def place_order(self, order_type: str, symbol: str, price: str, amount: int) -> Output:
        order_id = f"ORD-{next(self.order_numbers)}"
        limit = float(price)
        # a limit buy below the market rests; a sell at or below the market is sent for execution
        status = "Open" if order_type == "Buy" and limit < self.prices[symbol] else "Pending"
        self.orders[order_id] = {"order_id": order_id, "order_type": order_type, "symbol": symbol, "price": price,
                                 "amount": amount, "status": status}
        return {"order_id": order_id, "order_type": order_type, "status": status, "price": price,
                "amount": amount}, None

    def get_order_details(self, order_id: str) -> Output:
        order = self.orders[order_id]
        if order["status"] == "Pending":
            order["status"] = "Completed"
            self.balance += float(order["price"]) * order["amount"]
        return dict(order), None

    def cancel_order(self, order_id: str) -> Output:
        self.orders[order_id]["status"] = "Cancelled"
        return {"order_id": order_id, "status": "Cancelled"}, None

    def make_transaction(self, account_id: str, xact_type: str, amount: str) -> Output:
        self.balance -= float(amount) if xact_type == "withdrawal" else -float(amount)
        return {"status": "completed", "xact_type": xact_type, "amount": amount,
                "new_balance": f"{self.balance:.2f}"}, None

    def add_to_watchlist(self, stock: str) -> Output:
        self.watchlist.append(stock)
        return {"watchlist": list(self.watchlist)}, None


def trading_desk() -> Builder:
    b = Builder(
        "trading-desk", "A trading session: quotes, two orders, a cancellation and a withdrawal",
        "A multi-turn trading session in the style of function-calling benchmarks, run on an in-memory "
        "brokerage: the symbol comes from a name lookup, two orders get ids from place_order that later calls "
        "need, their statuses change (one fills, one is cancelled), and a cash withdrawal is irreversible. "
        "Market listings, order books and news fill the turns in between.",
        ["multi-turn function calling: trading (symbols, order ids from place_order needed by later calls)",
         "several entities at once: two orders with different statuses (fact probes with subject)",
         "a status that changes (Open, then Cancelled; Pending, then Completed)",
         "an irreversible withdrawal kept as evidence"],
        [tool("get_account_info", "read"), tool("get_symbol_by_name", "read", ["name"]),
         tool("get_stock_info", "read", ["symbol"]), tool("get_available_stocks", "read", ["sector"]),
         tool("get_order_book", "read", ["symbol"]), tool("get_market_news", "read", ["topic"]),
         tool("place_order", "write", ["symbol"]), tool("get_order_details", "read", ["order_id"]),
         tool("cancel_order", "write", ["order_id"]), tool("make_transaction", "irreversible", ["account_id"]),
         tool("add_to_watchlist", "write", ["stock"])],
        reserved=["ORD-5530912", "ORD-5530947", "ACC-7741-2209", "905.00"])
    broker = Broker(b)

    def board() -> None:
        sector = b.rng.choice(list(SECTORS))
        b.user(f"Show me the {sector.lower()} board.")
        b.run(broker, "get_available_stocks", sector=sector)
        b.assistant(f"Here's the {sector.lower()} board; mostly small moves today.")

    def order_book() -> None:
        symbol = b.rng.choice(["NVDA", "AAPL", "MSFT", "AMD"])
        b.user(f"What does the order book for {symbol} look like?")
        b.run(broker, "get_order_book", symbol=symbol)
        b.assistant(f"The {symbol} book is deep on both sides, spreads of a few cents.")

    def news() -> None:
        b.user("Anything in the news?")
        b.run(broker, "get_market_news", topic=b.rng.choice(["semiconductors", "markets", "rates"]))
        b.assistant(b.rng.choice(MARKET_NEWS))

    browsing = (board, order_book, news)  # market look-arounds between the trades

    b.user("Morning. What does my account look like?")
    b.run(broker, "get_account_info")
    b.assistant(f"Account {broker.account_id}, balance {broker.balance:.2f}.")
    b.user("What's NVIDIA trading at?")
    b.run(broker, "get_symbol_by_name", name="NVIDIA")
    b.run(broker, "get_stock_info", symbol="NVDA")
    b.assistant("NVDA is at 912.40.")
    buy_ask = b.user("Buy 15 shares with a limit at 905.00.")
    b.run(broker, "place_order", order_type="Buy", symbol="NVDA", price="905.00", amount=15)
    b.assistant("Limit buy placed: ORD-5530912, 15 NVDA at 905.00, open.")
    b.user("And sell 40 Apple at the market price.")
    b.run(broker, "get_stock_info", symbol="AAPL")
    sell = b.run(broker, "place_order", order_type="Sell", symbol="AAPL", price="189.20", amount=40)
    b.assistant("Sell order ORD-5530947 placed: 40 AAPL at 189.20, pending execution.")
    b.user("What's my balance before these go through?")
    b.decide("balance-first",
             fact("balance", "25410.77"),
             fact("account_id", broker.account_id),
             state(sell, "succeeded", request_id=sell.request_id),
             constraint(buy_ask, "limit at 905.00"), early=True)
    b.assistant("25410.77; the Apple sale will add to it once it executes.")
    b.meanwhile(6, *browsing)
    b.user("Check both orders.")
    for order_id in ("ORD-5530912", "ORD-5530947"):
        b.run(broker, "get_order_details", order_id=order_id)
    b.assistant("The NVIDIA buy is still open at 905.00; the Apple sale is completed.")
    b.meanwhile(7, *browsing)
    b.user("How's my NVIDIA order doing now?")
    b.decide("nvidia-order",
             next_call("get_order_details", order_id="ORD-5530912", why="the id place_order returned"),
             fact("status", "Open", subject="order_id=ORD-5530912"),
             fact("status", "Completed", subject="order_id=ORD-5530947", superseded=["Pending"]),
             constraint(buy_ask, "limit at 905.00"))
    b.run(broker, "get_order_details", order_id="ORD-5530912")
    b.assistant("Still open: NVDA trades well above your 905.00 limit.")
    b.meanwhile(5, *browsing)
    b.user("The price ran away from my limit. Cancel that NVIDIA order.")
    b.decide("cancel",
             next_call("cancel_order", order_id="ORD-5530912"),
             fact("status", "Open", subject="order_id=ORD-5530912"),
             fact("status", "Completed", subject="order_id=ORD-5530947", superseded=["Pending"]))
    cancel = b.run(broker, "cancel_order", order_id="ORD-5530912")
    b.assistant("Cancelled ORD-5530912.")
    b.meanwhile(4, *browsing)
    b.user("What's my balance now?")
    b.run(broker, "get_account_info")
    b.assistant(f"{broker.balance:.2f}, including the Apple sale.")
    balance = f"{broker.balance:.2f}"
    b.user("Withdraw 2,000 to my bank account.")
    b.decide("withdraw",
             next_call("make_transaction", account_id=broker.account_id),
             fact("balance", balance, superseded=["25410.77"]),
             fact("status", "Cancelled", subject="order_id=ORD-5530912", superseded=["Open"]),
             state(cancel, "succeeded", request_id=cancel.request_id))
    withdrawal = b.run(broker, "make_transaction", account_id=broker.account_id, xact_type="withdrawal",
                       amount="2000.00")
    b.assistant(f"Withdrawn: 2000.00; the new balance is {broker.balance:.2f}.")
    b.meanwhile(5, *browsing)
    b.user("Did the withdrawal go through? The bank app shows nothing yet.")
    b.decide("withdrawal-done",
             state(withdrawal, "succeeded", request_id=withdrawal.request_id),
             evidence(withdrawal.seq, withdrawal.answer_seq, why="irreversible cash movement"),
             fact("new_balance", f"{broker.balance:.2f}"),
             fact("status", "Cancelled", subject="order_id=ORD-5530912", superseded=["Open"]))
    b.assistant("Yes, it completed on our side; banks usually show it within a working day.")
    b.meanwhile(3, *browsing)
    b.user("Put the chip stock I tried to buy on my watchlist.")
    b.decide("watchlist",
             next_call("add_to_watchlist", stock="NVDA"),
             fact("status", "Cancelled", subject="order_id=ORD-5530912", superseded=["Open"]),
             evidence(withdrawal.seq, withdrawal.answer_seq))
    b.run(broker, "add_to_watchlist", stock="NVDA")
    b.assistant("NVDA is on your watchlist.")
    return b


AIRPORTS = {"San Francisco": "SFO", "Sydney": "SYD", "Melbourne": "MEL", "Los Angeles": "LAX", "Auckland": "AKL",
            "Honolulu": "HNL", "Vancouver": "YVR", "Brisbane": "BNE", "Tokyo": "HND", "Singapore": "SIN",
            "Hong Kong": "HKG", "Seattle": "SEA", "Dallas": "DFW", "Fiji": "NAN", "Perth": "PER", "Adelaide": "ADL",
            "Christchurch": "CHC", "Manila": "MNL", "Seoul": "ICN", "Taipei": "TPE", "Bangkok": "BKK",
            "Kuala Lumpur": "KUL", "Denpasar": "DPS", "Cairns": "CNS", "Gold Coast": "OOL", "Wellington": "WLG"}


class TravelAgency:
    """Flights, bookings, insurance and a card (BFCL's TravelAPI in spirit)."""

    def __init__(self, b: Builder):
        self.b = b
        self.cards = {"card_3478": 5200.00}
        self.bookings: dict[str, dict[str, Any]] = {}
        self.booking_numbers = itertools.count(3426812, 65)
        self.fares = {("SFO", "SYD", "2024-11-15", "economy"): "1140.00",
                      ("MEL", "SFO", "2024-11-24", "economy"): "1275.00"}

    def login(self, user_id: str) -> Output:
        return {"user_id": user_id, "access_token": "tok_9f2a7c31", "expires_in": 86400}, None

    def get_nearest_airport_by_city(self, location: str) -> Output:
        return {"nearest_airport": AIRPORTS[location]}, None

    def list_all_airports(self) -> Output:
        rng = self.b.rng
        rows = [f"{code}  {city:<14} {rng.choice(['International', 'Intl', 'Metropolitan'])} Airport  "
                f"terminals {rng.randrange(1, 6)}  runways {rng.randrange(1, 5)}  tz UTC{rng.randrange(-10, 13):+d}  "
                f"lounges {rng.randrange(2, 30)}  rail link {rng.choice(['yes', 'no'])}"
                for city, code in AIRPORTS.items()]
        return {"airports": len(rows)}, "\n".join(rows)

    def find_flights(self, travel_from: str, travel_to: str, travel_date: str) -> Output:
        return ({"travel_from": travel_from, "travel_to": travel_to, "travel_date": travel_date, "options": 24},
                self.b.log(flight_line(travel_from, travel_to), self.b.rng.randrange(650, 820)))

    def get_flight_cost(self, travel_from: str, travel_to: str, travel_date: str, travel_class: str) -> Output:
        return {"travel_cost_list": [self.fares[travel_from, travel_to, travel_date, travel_class]]}, None

    def purchase_flight(self, access_token: str, card_id: str, travel_date: str, travel_from: str, travel_to: str,
                    travel_class: str, travel_cost: str) -> Output:
        booking_id = f"BK-{next(self.booking_numbers)}"
        self.cards[card_id] -= float(travel_cost)
        self.bookings[booking_id] = {"travel_cost": travel_cost, "travel_date": travel_date,
                                     "route": f"{travel_from}-{travel_to}"}
        return {"booking_id": booking_id, "transaction_id": f"TX-{self.b.rng.randrange(10**7, 10**8)}",
                "booking_status": True}, None

    def retrieve_invoice(self, access_token: str, booking_id: str) -> Output:
        return {"booking_id": booking_id, **self.bookings[booking_id]}, None

    def purchase_insurance(self, access_token: str, insurance_type: str, booking_id: str, insurance_cost: str,
                           card_id: str) -> Output:
        self.cards[card_id] -= float(insurance_cost)
        return {"insurance_id": f"INS-{self.b.rng.randrange(10000, 99999)}", "insurance_status": True}, None

    def compute_exchange_rate(self, base_currency: str, target_currency: str, value: str) -> Output:
        return {"exchanged_value": f"{float(value) * 1.5318:.2f}", "rate": "1.5318"}, None

    def cancel_booking(self, access_token: str, booking_id: str) -> Output:
        booking = self.bookings.pop(booking_id)
        self.cards["card_3478"] += float(booking["travel_cost"])
        return {"booking_id": booking_id, "cancel_status": True, "refunded": booking["travel_cost"]}, None

    def get_credit_card_balance(self, access_token: str, card_id: str) -> Output:
        return {"card_id": card_id, "card_balance": f"{self.cards[card_id]:.2f}"}, None

    def contact_customer_support(self, booking_id: str, message: str) -> Output:
        return {"booking_id": booking_id, "support_ticket": f"CS-{self.b.rng.randrange(100000, 999999)}"}, None

    def get_travel_info(self, topic: str) -> Output:
        return {"topic": topic, "country": "AU"}, self.b.page(f"Australia travel notes: {topic}", TRAVEL_INFO,
                                                              self.b.rng.randrange(380, 520))


def travel_booking() -> Builder:
    token, card, outbound_date = "tok_9f2a7c31", "card_3478", "2024-11-15"
    b = Builder(
        "travel-booking", "Booking, insuring and cancelling flights with a travel API",
        "A multi-turn travel session in the style of function-calling benchmarks, on an in-memory travel API: "
        "an access token from login, airport codes from look-ups, fares from a cost query, and booking ids that "
        "later calls need (invoice, insurance, cancellation). Two bookings exist at once, so the cancellation "
        "must name the right one. Bookings, insurance and the cancellation move money: irreversible, kept as "
        "evidence until the subtask closes.",
        ["multi-turn function calling: travel (airport codes, booking ids, dates, amounts)",
         "next_call arguments from earlier results: access token, card id, codes, cost, booking ids",
         "two bookings at once: the cancellation names the right one",
         "irreversible bookings kept as evidence until a subtask_end"],
        [tool("login", "read", ["user_id"]), tool("get_nearest_airport_by_city", "read", ["location"]),
         tool("list_all_airports", "read"), tool("find_flights", "read", ["travel_from", "travel_to"]),
         tool("get_flight_cost", "read", ["travel_from", "travel_to"]), tool("get_travel_info", "read", ["topic"]),
         tool("purchase_flight", "irreversible", ["card_id"]), tool("retrieve_invoice", "read", ["booking_id"]),
         tool("purchase_insurance", "irreversible", ["booking_id"]), tool("compute_exchange_rate", "read"),
         tool("cancel_booking", "irreversible", ["booking_id"]), tool("get_credit_card_balance", "read", ["card_id"]),
         tool("contact_customer_support", "write", ["booking_id"])],
        reserved=[token, card, "BK-3426812", "BK-3426877", "1140.00"])
    agency = TravelAgency(b)

    def travel_notes() -> None:
        topic = b.rng.choice(["visa", "arrival card", "baggage", "airport transfer", "check-in", "insurance"])
        b.user(f"What should I know about {topic}?")
        b.run(agency, "get_travel_info", topic=topic)
        b.assistant(b.rng.choice(TRAVEL_INFO))

    def other_flights() -> None:
        date = f"2024-11-{b.rng.randrange(12, 20)}"
        b.user(f"Just curious — what flies to Sydney on {date}?")
        b.run(agency, "find_flights", travel_from="SFO", travel_to="SYD", travel_date=date)
        b.assistant(f"About two dozen options on {date}, most with a stop.")

    def airports() -> None:
        b.user("Can you show me all the airports you cover?")
        b.run(agency, "list_all_airports")
        b.assistant("Here they are; all the major Pacific hubs are covered.")

    planning = (travel_notes, other_flights, airports)

    b.user("Hi, I'm Ana Ruiz, user id ana.ruiz.88. I'm going to a conference in Sydney: fly me from San Francisco on "
           f"{outbound_date}, economy, and pay with my card {card}.")
    b.run(agency, "login", user_id="ana.ruiz.88")
    for city in ("San Francisco", "Sydney"):
        b.run(agency, "get_nearest_airport_by_city", location=city)
    b.run(agency, "find_flights", travel_from="SFO", travel_to="SYD", travel_date=outbound_date)
    b.run(agency, "get_flight_cost", travel_from="SFO", travel_to="SYD", travel_date=outbound_date,
          travel_class="economy")
    b.assistant(f"SFO to SYD on {outbound_date} in economy costs 1140.00.")
    b.user("That's fine, book it.")
    b.decide("book-outbound",
             next_call("purchase_flight", access_token=token, card_id=card, travel_date=outbound_date,
                       travel_from="SFO", travel_to="SYD", travel_cost="1140.00",
                       why="token from login, codes and cost from the look-ups"),
             fact("nearest_airport", "SYD", subject="location=Sydney"),
             fact("nearest_airport", "SFO", subject="location=San Francisco"), early=True)
    outbound = b.run(agency, "purchase_flight", access_token=token, card_id=card, travel_date=outbound_date,
                     travel_from="SFO", travel_to="SYD", travel_class="economy", travel_cost="1140.00")
    outbound_id = outbound.result["booking_id"]
    b.assistant(f"Booked: {outbound_id}.")
    b.meanwhile(5, *planning)
    b.user("Can I get the invoice for that flight?")
    b.decide("invoice",
             next_call("retrieve_invoice", access_token=token, booking_id=outbound_id),
             evidence(outbound.seq, outbound.answer_seq, why="irreversible booking, not closed yet"),
             state(outbound, "succeeded", request_id=outbound.request_id))
    b.run(agency, "retrieve_invoice", access_token=token, booking_id=outbound_id)
    b.assistant(f"Invoice for {outbound_id}: 1140.00, SFO-SYD on {outbound_date}.")
    b.user("Add comprehensive insurance to it, the 89.00 option, same card.")
    insurance = b.run(agency, "purchase_insurance", access_token=token, insurance_type="comprehensive",
                      booking_id=outbound_id, insurance_cost="89.00", card_id=card)
    b.assistant("Insured.")
    b.user("How much is the flight plus insurance in Australian dollars?")
    b.run(agency, "compute_exchange_rate", base_currency="USD", target_currency="AUD", value="1229.00")
    b.assistant("About 1882.58 AUD.")
    b.event("subtask_end", text=f"outbound {outbound_id} booked and insured", task_done=False)
    b.meanwhile(7, *planning)
    b.user("Now the way back: Melbourne to San Francisco on 2024-11-24, economy, same card.")
    b.run(agency, "get_nearest_airport_by_city", location="Melbourne")
    b.run(agency, "get_flight_cost", travel_from="MEL", travel_to="SFO", travel_date="2024-11-24",
          travel_class="economy")
    back = b.run(agency, "purchase_flight", access_token=token, card_id=card, travel_date="2024-11-24", travel_from="MEL",
                 travel_to="SFO", travel_class="economy", travel_cost="1275.00")
    back_id = back.result["booking_id"]
    b.assistant(f"Return booked: {back_id}, MEL to SFO on 2024-11-24, 1275.00.")
    b.meanwhile(7, *planning)
    b.user("The conference was extended by a week, so cancel the return booking — keep the outbound.")
    b.decide("cancel-return",
             next_call("cancel_booking", access_token=token, booking_id=back_id, why="the return, not the outbound"),
             evidence(back.seq, back.answer_seq),
             state(back, "succeeded", request_id=back.request_id),
             state(insurance, "succeeded", request_id=insurance.request_id))
    cancelled = b.run(agency, "cancel_booking", access_token=token, booking_id=back_id)
    b.assistant(f"Cancelled {back_id}; 1275.00 goes back to your card.")
    b.meanwhile(5, *planning)
    b.user("What's left on my card now?")
    b.decide("card-balance",
             next_call("get_credit_card_balance", access_token=token, card_id=card),
             state(cancelled, "succeeded", request_id=cancelled.request_id),
             evidence(cancelled.seq, cancelled.answer_seq, why="irreversible cancellation, not closed yet"),
             fact("refunded", "1275.00"))
    b.run(agency, "get_credit_card_balance", access_token=token, card_id=card)
    b.assistant(f"{agency.cards[card]:.2f} available.")
    b.meanwhile(5, *planning)
    b.user("Please tell support I need a vegetarian meal on my flight to Sydney.")
    b.decide("support",
             next_call("contact_customer_support", booking_id=outbound_id, why="the outbound booking, still active"),
             state(outbound, "succeeded", request_id=outbound.request_id),
             state(cancelled, "succeeded", request_id=cancelled.request_id))
    b.run(agency, "contact_customer_support", booking_id=outbound_id, message="Vegetarian meal requested.")
    b.assistant("Done; support will confirm by e-mail.")
    return b


PEOPLE = ["Alice Moreau", "Kenji Watanabe", "Lena Fischer", "Omar Haddad", "Sofia Rossi", "Daniel Kim", "Priya Nair",
          "Lucas Silva", "Emma Johansson", "Mateo Garcia", "Hannah Becker", "Yuki Tanaka", "Noah Williams",
          "Chloe Martin", "Arjun Mehta", "Ines Duarte", "Tom Novak", "Grace Okafor", "Felix Wagner", "Mia Jensen",
          "Leo Dubois", "Zara Ahmed", "Ravi Patel", "Nina Petrova", "Samuel Osei", "Julia Costa", "Ethan Brooks",
          "Aiko Sato", "Marta Kowalska", "Ben Carter"]
CHAT_LINES = ["Can you send the deck before Friday?", "The staging build is red again.", "Lunch on Thursday?",
              "I pushed the fix, please review.", "Customer call moved to 3pm.", "Who owns the launch checklist?",
              "Orion beta feedback is in the shared doc.", "Reminder: timesheets are due today.",
              "The release notes need one more pass.", "Can we move our 1:1?", "Design review is at 11.",
              "Marketing wants the final screenshots.", "QA signed off on the Android build.",
              "The press embargo lifts on launch day at 9am.", "Please update the status page copy."]


class Messenger:
    """A workplace messenger and a ticket tracker (BFCL's MessageAPI and TicketAPI in spirit)."""

    def __init__(self, b: Builder):
        self.b = b
        self.users = {name: f"USR{n:03d}" for n, name in enumerate(PEOPLE, start=1)}
        self.sent: list[dict[str, Any]] = []
        self.message_numbers = itertools.count(40219, 14)
        self.tickets: dict[str, dict[str, Any]] = {}

    def message_login(self, user_id: str) -> Output:
        return {"login_status": True, "user_id": user_id}, None

    def list_users(self) -> Output:
        rng = self.b.rng
        rows = [f"{uid}  {name:<16} {rng.choice(['eng', 'design', 'marketing', 'sales', 'support', 'qa'])}  "
                f"{rng.choice(['Berlin', 'Lisbon', 'Tokyo', 'Austin', 'Toronto', 'Remote'])}  "
                f"last seen {rng.randrange(1, 59)} min ago" for name, uid in self.users.items()]
        return {"users": len(rows)}, "\n".join(rows)

    def get_user_id(self, user: str) -> Output:
        return {"user": user, "user_id": self.users[user]}, None

    def send_message(self, receiver_id: str, message: str) -> Output:
        message_id = f"MSG-{next(self.message_numbers)}"
        self.sent.append({"message_id": message_id, "receiver_id": receiver_id, "message": message})
        return {"sent_status": True, "message_id": message_id}, None

    def delete_message(self, receiver_id: str, message_id: str) -> Output:
        self.sent = [m for m in self.sent if m["message_id"] != message_id]
        return {"deleted_status": True, "message_id": message_id}, None

    def search_messages(self, keyword: str) -> Output:
        rng = self.b.rng
        rows = [f"MSG-{rng.randrange(10000, 39999)} | {rng.choice(PEOPLE)} | 2024-03-{rng.randrange(1, 12):02d} "
                f"{rng.randrange(8, 19):02d}:{rng.randrange(60):02d} | {rng.choice(CHAT_LINES)}" for _ in range(30)]
        return {"keyword": keyword, "matches": len(rows)}, "\n".join(rows)

    def create_ticket(self, title: str, description: str, priority: int) -> Output:
        ticket_id = f"TCK-{8812 + len(self.tickets)}"
        self.tickets[ticket_id] = {"ticket_id": ticket_id, "title": title, "priority": priority, "status": "Open"}
        return dict(self.tickets[ticket_id]), None

    def get_ticket(self, ticket_id: str) -> Output:
        ticket = self.tickets[ticket_id]
        if ticket["status"] == "Open":
            ticket["status"] = "In Progress"
        return dict(ticket), None

    def resolve_ticket(self, ticket_id: str, resolution: str) -> Output:
        self.tickets[ticket_id]["status"] = "Resolved"
        return {"ticket_id": ticket_id, "status": "Resolved"}, None


def messaging_tickets() -> Builder:
    b = Builder(
        "messaging-tickets", "Coordinating a launch over a messenger and a ticket tracker",
        "A multi-turn messaging session in the style of function-calling benchmarks: user ids come from a "
        "directory look-up, message ids from send_message, and a ticket id from create_ticket; a message with a "
        "wrong date is deleted by its id and re-sent, and the ticket's status changes as work progresses. "
        "Directory listings and message searches fill the turns in between.",
        ["multi-turn function calling: messaging (user ids, message ids) and tickets",
         "next_call arguments from earlier results (receiver and message ids, ticket id)",
         "a corrected date supersedes the first one (fact probes on the user's statements)",
         "a ticket status that changes (Open, In Progress, Resolved)"],
        [tool("message_login", "read", ["user_id"]), tool("list_users", "read"), tool("get_user_id", "read", ["user"]),
         tool("send_message", "write", ["receiver_id"]), tool("delete_message", "write", ["message_id"]),
         tool("search_messages", "read", ["keyword"]), tool("create_ticket", "write"),
         tool("get_ticket", "read", ["ticket_id"]), tool("resolve_ticket", "write", ["ticket_id"])],
        reserved=["USR002", "USR003", "MSG-40219", "MSG-40233", "TCK-8812", "2024-03-15"])
    chat = Messenger(b)

    def search() -> None:
        keyword = b.rng.choice(["Orion", "staging", "launch", "press", "release notes", "screenshots"])
        b.user(f"Search my messages for '{keyword}'.")
        b.run(chat, "search_messages", keyword=keyword)
        b.assistant(f"Thirty matches for '{keyword}', mostly from the launch channel.")

    def directory() -> None:
        b.user("Who's online in the directory right now?")
        b.run(chat, "list_users")
        b.assistant("Most of the launch team was active in the last hour.")

    busywork = (search, search, search, directory)

    b.user("Log me in as USR001, please. I need to coordinate the Orion launch today.")
    b.run(chat, "message_login", user_id="USR001")
    b.assistant("You're logged in.")
    b.user("Message Kenji Watanabe that the launch review moved to 2024-03-14 at 10:00.")
    b.fact("launch_review", "2024-03-14 10:00", "user")
    b.run(chat, "get_user_id", user="Kenji Watanabe")
    first = b.run(chat, "send_message", receiver_id="USR002", message="The launch review moved to 2024-03-14 at 10:00.")
    b.assistant("Sent to Kenji (USR002).")
    b.user("Also look up Lena Fischer for me, I'll need her later.")
    b.run(chat, "get_user_id", user="Lena Fischer")
    b.assistant("Lena Fischer is USR003.")
    b.user("Open a ticket: the staging build is broken, priority 3.")
    ticket = b.run(chat, "create_ticket", title="Staging build broken",
                   description="Staging pipeline fails at the integration tests since this morning.", priority=3)
    b.assistant("Ticket TCK-8812 is open.")
    correction = b.user("Oops — the review is actually on 2024-03-15, same time. Delete the message I sent Kenji and "
                        "send him the right date.")
    b.decide("fix-message",
             next_call("delete_message", receiver_id="USR002", message_id="MSG-40219",
                       why="ids from get_user_id and send_message"),
             state(first, "succeeded", request_id=first.request_id),
             fact("user_id", "USR002", subject="user=Kenji Watanabe"), early=True)
    b.fact("launch_review", "2024-03-15 10:00", "user", kind="correction")
    deleted = b.run(chat, "delete_message", receiver_id="USR002", message_id="MSG-40219")
    second = b.run(chat, "send_message", receiver_id="USR002",
                   message="Correction: the launch review is on 2024-03-15 at 10:00.")
    b.assistant("Deleted the old message and sent the corrected date (MSG-40233).")
    b.meanwhile(8, *busywork)
    b.small_talk(2)
    b.user("What's the status of the staging ticket?")
    b.decide("ticket-status",
             next_call("get_ticket", ticket_id="TCK-8812", why="the id create_ticket returned"),
             state(ticket, "succeeded", request_id=ticket.request_id),
             fact("launch_review", "2024-03-15 10:00", superseded=["2024-03-14 10:00"]))
    b.run(chat, "get_ticket", ticket_id="TCK-8812")
    b.assistant("TCK-8812 is in progress.")
    b.meanwhile(7, *busywork)
    b.user("The build is green again. Resolve the ticket.")
    b.decide("resolve",
             next_call("resolve_ticket", ticket_id="TCK-8812"),
             fact("status", "In Progress", subject="ticket_id=TCK-8812", superseded=["Open"]),
             constraint(correction, "2024-03-15"))
    b.run(chat, "resolve_ticket", ticket_id="TCK-8812", resolution="Integration tests fixed; pipeline green.")
    b.assistant("Resolved.")
    b.meanwhile(5, *busywork)
    b.user("Send Lena the corrected review date too.")
    b.decide("tell-lena",
             next_call("send_message", receiver_id="USR003", why="looked up many turns ago"),
             fact("launch_review", "2024-03-15 10:00", superseded=["2024-03-14 10:00"]),
             constraint(correction, "2024-03-15"))
    b.run(chat, "send_message", receiver_id="USR003", message="The launch review is on 2024-03-15 at 10:00.")
    b.assistant("Sent to Lena.")
    b.meanwhile(5, *busywork)
    b.user("Did Kenji get the corrected date, and is the wrong message gone?")
    b.decide("kenji-check",
             state(second, "succeeded", request_id=second.request_id),
             state(deleted, "succeeded", request_id=deleted.request_id),
             fact("launch_review", "2024-03-15 10:00", superseded=["2024-03-14 10:00"]),
             fact("status", "Resolved", subject="ticket_id=TCK-8812", superseded=["Open", "In Progress"]))
    b.assistant("Yes: the wrong message was deleted and MSG-40233 with the corrected date was delivered.")
    return b


CAR_MANUAL = [
    "The engine can be started only with the brake pedal fully pressed and all doors locked.",
    "Tire pressure should be checked when the tires are cold, at least every month.",
    "The recommended pressure is shown on the label inside the driver's door frame.",
    "Adaptive cruise control keeps a set distance to the vehicle ahead.",
    "Cruise control can be activated only while the engine is running.",
    "Use only unleaded fuel with an octane rating of 91 or higher.",
    "The fuel tank holds a maximum of 50 gallons.",
    "The parking brake should be engaged whenever the vehicle is parked on a slope.",
    "Climate control can pre-condition the cabin while the vehicle is charging.",
    "A warning light that stays on after start-up should be checked by a technician.",
    "Headlights switch on automatically in low light when set to AUTO.",
    "The navigation system recalculates the route automatically after a missed turn.",
    "The service interval is 10,000 miles or 12 months, whichever comes first.",
]

ECU_MODULES = ["ECM", "TCM", "BCM", "ABS", "SRS", "HVAC", "TPMS", "EPS", "IPC", "GW"]
ECU_SIGNALS = ["coolant_temp", "intake_air_temp", "battery_voltage", "fuel_trim_st", "fuel_trim_lt", "rpm",
               "throttle_pos", "wheel_speed_fl", "wheel_speed_rr", "cabin_temp", "oil_pressure", "map_kpa"]


class Vehicle:
    """A car's controls and sensors (BFCL's VehicleControlAPI in spirit)."""

    CITIES = {"San Francisco": "94016", "Rivermist": "83214", "Stonebrook": "74532", "Crescent Hollow": "69238"}

    def __init__(self, b: Builder):
        self.b = b
        self.fuel, self.doors_locked, self.brake = 8.5, False, "released"
        self.tires = {"front_left": 33, "front_right": 32, "rear_left": 28, "rear_right": 32}

    def display_car_status(self, option: str) -> Output:
        assert option == "fuel", option  # the only status this trajectory reads
        return {"fuel_level": f"{self.fuel:.1f}", "unit": "gallons"}, None

    def fill_fuel_tank(self, fuel_amount: float) -> Output:
        self.fuel += fuel_amount
        return {"fuel_level": f"{self.fuel:.1f}", "unit": "gallons"}, None

    def check_tire_pressure(self) -> Output:
        return {**{f"{k}_psi": v for k, v in self.tires.items()},
                "healthy_tire_pressure": min(self.tires.values()) >= 30}, None

    def find_nearest_tire_shop(self) -> Output:
        return {"shop_location": "1197 Harrison Street, San Francisco, 94103"}, None

    def get_zipcode_based_on_city(self, city: str) -> Output:
        return {"city": city, "zipcode": self.CITIES[city]}, None

    def estimate_distance(self, city_a: str, city_b: str) -> Output:
        return {"distance": "980.0", "unit": "km"}, None

    def run_diagnostics(self) -> Output:
        def line(rng: random.Random) -> str:
            return (f"{rng.choice(ECU_MODULES):<5} pid 0x{rng.randrange(256, 4095):03X}  {rng.choice(ECU_SIGNALS):<16} "
                    f"{rng.uniform(0, 120):8.2f}  {rng.choice(['OK', 'OK', 'OK', 'OK', 'WARN', 'STALE'])}  "
                    f"t+{rng.randrange(0, 9000)}ms")
        return {"modules_scanned": len(ECU_MODULES), "dtc_count": 1, "dtc": "C0750 rear-left TPMS low"}, \
            self.b.log(line, self.b.rng.randrange(680, 860), head=["module  pid  signal  value  status  time"])

    def get_weather_along_route(self, route: str) -> Output:
        def line(rng: random.Random) -> str:
            town = rng.choice(["Sacramento", "Auburn", "Truckee", "Reno", "Lovelock", "Winnemucca", "Elko"])
            sky = rng.choice(["clear", "cloudy", "showers", "fog", "gusty"])
            return (f"mile {rng.randrange(0, 610):>3}  {town}  {rng.randrange(8, 29)}C  "
                    f"wind {rng.randrange(0, 45)} km/h  {sky}  visibility {rng.randrange(2, 20)} km  "
                    f"road {rng.choice(['dry', 'wet', 'roadworks'])}")
        return {"route": route, "warnings": 0}, self.b.log(line, self.b.rng.randrange(650, 820))

    def lock_doors(self, unlock: bool, door: list[str]) -> Output:
        self.doors_locked = not unlock
        return {"lock_status": "unlocked" if unlock else "locked", "remaining_unlocked_doors": 4 if unlock else 0}, None

    def press_brake_pedal(self, pedal_position: float) -> Output:
        self.brake = "pressed" if pedal_position > 0.9 else "released"
        return {"brake_pedal_status": self.brake}, None

    def start_engine(self, ignition_mode: str) -> Output:
        assert self.doors_locked and self.brake == "pressed", "the engine starts with doors locked and brake pressed"
        return {"engine_state": "running", "fuel_level": f"{self.fuel:.1f}", "battery_voltage": "12.8"}, None

    def set_navigation(self, destination: str) -> Output:
        return {"status": f"Navigating to {destination}"}, None

    def set_cruise_control(self, speed: int, activate: bool, distance_to_next_vehicle: int) -> Output:
        return {"cruise_status": "active" if activate else "inactive", "current_speed": speed,
                "distance_to_next_vehicle": distance_to_next_vehicle}, None

    def get_car_manual(self, topic: str) -> Output:
        return {"topic": topic}, self.b.page(f"Owner's manual: {topic}", CAR_MANUAL, self.b.rng.randrange(300, 420))


def vehicle_road_trip() -> Builder:
    sister, shop = "1428 Alder Lane, Rivermist", "1197 Harrison Street, San Francisco, 94103"
    b = Builder(
        "vehicle-road-trip", "Preparing a car for a road trip with vehicle-control tools",
        "A multi-turn vehicle-control session in the style of function-calling benchmarks: fuel, tire pressure, "
        "diagnostics, door locks, brake and engine, navigation and cruise control, on an in-memory car. "
        "Zip codes and the tire shop's address come from tool results, the sister's address from the first "
        "message; one navigation command times out and stays unknown until the car's gateway answers.",
        ["multi-turn function calling: vehicle control (navigation, locks, engine, cruise control)",
         "next_call arguments from earlier results (zip codes, shop address) and an early user message",
         "a write that timed out stays unknown until a status query resolves it",
         "writes the next decision depends on (doors locked, brake pressed before the engine starts)"],
        [tool("display_car_status", "read", ["option"]), tool("fill_fuel_tank", "write"),
         tool("check_tire_pressure", "read"), tool("find_nearest_tire_shop", "read"),
         tool("get_zipcode_based_on_city", "read", ["city"]), tool("estimate_distance", "read", ["city_a", "city_b"]),
         tool("run_diagnostics", "read"), tool("get_weather_along_route", "read", ["route"]),
         tool("get_car_manual", "read", ["topic"]), tool("lock_doors", "write"), tool("press_brake_pedal", "write"),
         tool("start_engine", "write"), tool("set_navigation", "write", ["destination"]),
         tool("set_cruise_control", "write")],
        reserved=[sister, shop, "94016", "83214"])
    car = Vehicle(b)

    def diagnostics() -> None:
        b.user("Run a full diagnostics scan, I want to be safe.")
        b.run(car, "run_diagnostics")
        b.assistant("All modules report normal values apart from the rear-left tire pressure warning.")

    def weather() -> None:
        b.user("What's the weather like along the route?")
        b.run(car, "get_weather_along_route", route="I-80 east")
        b.assistant("Mostly clear, with some gusts over the pass.")

    def manual() -> None:
        topic = b.rng.choice(["tire pressure", "cruise control", "fuel", "starting the engine", "navigation"])
        b.user(f"What does the manual say about {topic}?")
        b.run(car, "get_car_manual", topic=topic)
        b.assistant(b.rng.choice(CAR_MANUAL))

    on_the_way = (diagnostics, diagnostics, weather, weather, manual)

    b.user(f"Morning! I'm driving from San Francisco to Rivermist today to see my sister at {sister}. "
           "First, how much fuel do I have?")
    b.run(car, "display_car_status", option="fuel")
    b.assistant("8.5 gallons.")
    b.user("Fill it up, the tank holds 50.")
    b.run(car, "fill_fuel_tank", fuel_amount=41.5)
    b.assistant("Full: 50.0 gallons.")
    b.user("How far is it?")
    for city in ("San Francisco", "Rivermist"):
        b.run(car, "get_zipcode_based_on_city", city=city)
    b.run(car, "estimate_distance", city_a="94016", city_b="83214")
    b.assistant("About 980 km.")
    b.user("Check the tires before we go.")
    b.run(car, "check_tire_pressure")
    b.event("verification", ok=False, what="rear-left tire at 28 psi, under the 30 psi minimum")
    b.run(car, "find_nearest_tire_shop")
    b.assistant(f"The rear-left tire is low (28 psi). The nearest tire shop is at {shop}.")
    b.user("Navigate me to the tire shop first.")
    b.decide("to-the-shop",
             next_call("set_navigation", destination=shop, why="the address find_nearest_tire_shop returned"),
             fact("rear_left_psi", 28),
             fact("zipcode", "83214", subject="city=Rivermist"), early=True)
    nav = b.call("set_navigation", {"destination": shop})
    b.answer(nav, "timeout", error="vehicle gateway did not acknowledge within 5 s")
    b.assistant("The car didn't confirm the navigation command, so I don't know yet whether it's set.")
    b.meanwhile(6, *on_the_way)
    b.user("OK, let's go. Start the car.")
    b.decide("start",
             state(nav, "unknown", why="a timeout is not a failure"),
             pending(call=nav),
             evidence(nav.seq, nav.answer_seq),
             fact("fuel_level", "50.0", superseded=["8.5"]))
    locked = b.run(car, "lock_doors", unlock=False, door=["driver", "passenger", "rear_left", "rear_right"])
    b.run(car, "press_brake_pedal", pedal_position=1.0)
    b.run(car, "start_engine", ignition_mode="START")
    b.assistant("Engine running. The navigation command is still unconfirmed; I've asked the car's gateway.")
    b.meanwhile(4, *on_the_way)
    b.user("The screen shows a map but no route. Is the navigation set or not?")
    b.decide("nav-unknown",
             state(nav, "unknown"),
             pending(call=nav),
             evidence(nav.seq, nav.answer_seq, why="unknown outcome, not reconciled yet"),
             fact("shop_location", shop))
    b.status_query(nav, "succeeded", "vehicle-gateway", request_id="vgw_81f0a2c4")
    b.assistant("The gateway confirms the navigation to the tire shop was set; the screen just hadn't refreshed.")
    b.meanwhile(4, *on_the_way)
    b.user("Tires are done, all four at 32. Now take me to my sister's.")
    b.decide("to-sister",
             next_call("set_navigation", destination=sister, why="the address from the first message"),
             state(nav, "succeeded", request_id="vgw_81f0a2c4"),
             state(locked, "succeeded", request_id=locked.request_id),
             fact("zipcode", "83214", subject="city=Rivermist"))
    b.run(car, "set_navigation", destination=sister)
    b.assistant("Navigating to your sister's.")
    b.meanwhile(10, *on_the_way)
    b.user("On the highway now. Cruise at 65 and keep a safe distance.")
    cruise = b.run(car, "set_cruise_control", speed=65, activate=True, distance_to_next_vehicle=100)
    b.assistant("Cruise control on at 65, 100 m from the car ahead.")
    b.meanwhile(7, *on_the_way)
    b.user("My sister asks how long the whole drive is — can you check the distance again?")
    b.decide("how-far",
             next_call("estimate_distance", city_a="94016", city_b="83214", why="zip codes looked up at the start"),
             fact("zipcode", "94016", subject="city=San Francisco"),
             state(cruise, "succeeded", request_id=cruise.request_id),
             fact("cruise_status", "active"))
    b.run(car, "estimate_distance", city_a="94016", city_b="83214")
    b.assistant("980 km in total; at this pace you'll arrive in the early evening.")
    return b


def metrics_line(rng: random.Random) -> str:
    """A monitoring time series row."""
    return (f"2024-06-12T{rng.randrange(9, 16):02d}:{rng.randrange(60):02d}Z  p50 {rng.randrange(60, 180)}ms  "
            f"p99 {rng.randrange(400, 1900)}ms  rps {rng.randrange(600, 2400)}  "
            f"cpu {rng.randrange(20, 90)}%  mem {rng.randrange(40, 85)}%  pod checkout-api-{hexid(rng, 5)}")


CHANGELOG = ["fix: rounding of multi-currency totals", "feat: saved cards for guest checkout",
             "chore: bump grpc to 1.64", "fix: retry on payment provider 503", "perf: cache shipping quotes for 60 s",
             "feat: gift message field", "fix: race in cart merge after login", "refactor: split tax service client",
             "chore: remove legacy_status reads",
             "feat: address autocomplete for NL", "fix: idempotency key on order create", "docs: runbook for refunds",
             "test: contract tests for payments", "fix: timezone of delivery slots"]


def ops_deploy() -> Builder:
    service, version, migration = "checkout-api", "2024.06.3", "M-0412"
    b = Builder(
        "ops-deploy", "A production release with a database migration waiting for the DBA",
        "Releasing a service: a schema migration may run only with the on-call DBA's approval, requested at the "
        "start and answered only much later; two monitoring tools disagree about the canary's error rate until "
        "a later reading settles it; a cache purge times out and stays unknown until the CDN answers; the "
        "migration itself is irreversible. Deploy logs and dashboards fill the turns in between.",
        ["an approval still pending across many turns, and the user's rule not to act without it (constraint)",
         "contradictory tool results: two monitoring tools report different error_rate for the same service",
         "a write that timed out (cache purge) stays unknown until a status query resolves it",
         "an irreversible migration kept as evidence until the release is closed",
         "next_call values from earlier results (deploy id, migration id)"],
        [tool("get_release", "read", ["release_id"]), tool("deploy", "write", ["service", "version"]),
         tool("query_grafana", "read", ["service"]), tool("query_datadog", "read", ["service"]),
         tool("fetch_logs", "read", ["service"]), tool("purge_cache", "write", ["zone"]),
         tool("run_migration", "irreversible", ["migration_id"]), tool("post_release_note", "write", ["channel"])],
        reserved=["DEP-7781", "DEP-7790", "static-checkout-eu"])

    def service_logs() -> None:
        b.user(b.rng.choice(["Show me the latest logs.", "Any errors in the logs?", "Tail the logs again."]))
        b.tool("fetch_logs", {"service": service, "since": "10m"}, {"service": service, "lines": 40},
               log=b.log(server_log(service, ["/v1/cart", "/v1/checkout", "/v1/payment", "/v1/shipping-quote"],
                                    "2024-06-12"), b.rng.randrange(700, 860)))
        b.assistant(b.rng.choice(["A few 4xx from clients, nothing new.", "Normal traffic.",
                                  "Some slow payment calls, all retried fine."]))

    def dashboard() -> None:
        b.user(b.rng.choice(["How do latency and load look?", "Show me the dashboard.", "CPU and memory okay?"]))
        b.tool("query_grafana", {"service": service, "panel": "latency"}, {"service": service, "panel": "latency"},
               log=b.log(metrics_line, b.rng.randrange(650, 820), head=["time  p50  p99  rps  cpu  mem  pod"]))
        b.assistant("Latency and load are within the usual range.")

    watching = (service_logs, dashboard)  # the rollout between the steps

    goal = b.user(f"Ship release {version} of {service} today. Its database migration {migration} needs sign-off "
                  "from the on-call DBA, Ravi — never run it without his approval.")
    b.approval("APR-DB-0412", "requested", goal, {"migration_id": migration},
                     f"Migration {migration} drops column orders.legacy_status: approval requested from the on-call "
                     "DBA, Ravi Patel.")
    b.tool("get_release", {"release_id": version},
           {"release_id": version, "commit": "9f3c2ab", "migrations": [migration], "changes": len(CHANGELOG)},
           log="\n".join(f"- {item} (#{b.rng.randrange(4100, 4900)})" for item in CHANGELOG))
    b.assistant(f"Release {version} has {len(CHANGELOG)} changes and migration {migration}. I've asked Ravi to "
                "approve the migration (APR-DB-0412); the code can go to the canary first.")
    b.user("Yes, start the canary.")
    canary = b.tool("deploy", {"service": service, "version": version, "stage": "canary", "traffic": "5%"},
                    {"deploy_id": "DEP-7781", "stage": "canary", "pods": 2})
    b.assistant("Canary DEP-7781 is live on 5% of traffic.")
    b.user("How's the canary's error rate?")
    grafana = b.tool("query_grafana", {"service": service, "panel": "errors"},
                     {"service": service, "error_rate": "0.4%", "window": "15m"},
                     log=b.log(metrics_line, 520, head=["time  p50  p99  rps  cpu  mem  pod"]))
    datadog = b.tool("query_datadog", {"service": service, "monitor": "5xx"},
                     {"service": service, "error_rate": "2.9%", "window": "15m"},
                     log=b.log(metrics_line, 520, head=["time  p50  p99  rps  cpu  mem  pod"]))
    b.assistant("Grafana says 0.4%, Datadog says 2.9% for the same service and window: they disagree.")
    b.user("Hmm. Which one is right? Should we go to 50%?")
    b.decide("disagreeing-monitors",
             evidence(grafana.answer_seq, datadog.answer_seq, why="two tools, same service, different error_rate"),
             pending(approval_id="APR-DB-0412"),
             constraint(goal, "never run it without his approval"),
             next_call("fetch_logs", deploy_id="DEP-7781", why="the canary's logs tell which monitor is right"),
             fact("deploy_id", "DEP-7781"), early=True)
    b.tool("fetch_logs", {"service": service, "since": "15m", "deploy_id": "DEP-7781"},
           {"service": service, "lines": 40},
           log=b.log(server_log(service, ["/v1/cart", "/v1/checkout", "/v1/payment"], "2024-06-12"), 700))
    b.assistant("The canary's logs show 502s from one pod only. Let me replace it and read Datadog again.")
    b.meanwhile(3, *watching)
    b.user("Purge the static checkout assets on the CDN while we wait, the new bundle needs it.")
    purge = b.call("purge_cache", {"zone": "static-checkout-eu", "paths": ["/assets/checkout/*"]})
    b.answer(purge, "timeout", error="cdn-api: no response within 20 s")
    b.assistant("The CDN didn't answer in time, so I can't tell whether the purge happened. I won't fire it again "
                "blindly; I'll ask the CDN about it by its idempotency key.")
    b.user("Did the purge go through or not?")
    b.decide("purge-unknown",
             state(purge, "unknown", why="a timeout, not a failure"),
             pending(call=purge),
             evidence(purge.seq, purge.answer_seq),
             evidence(grafana.answer_seq, datadog.answer_seq, why="not settled yet"),
             pending(approval_id="APR-DB-0412"))
    b.assistant("Not known yet.")
    b.user("Read the Datadog error rate again now that the bad pod is gone.")
    b.tool("query_datadog", {"service": service, "monitor": "5xx"},
           {"service": service, "error_rate": "0.5%", "window": "15m"},
           log=b.log(metrics_line, 520, head=["time  p50  p99  rps  cpu  mem  pod"]))
    b.assistant("Datadog now reads 0.5%, in line with Grafana: the 2.9% came from the pod I replaced.")
    b.meanwhile(6, *watching)
    b.small_talk(2)
    b.meanwhile(4, *watching)
    b.user("Ravi still hasn't answered? It's getting late — can't we just run the migration?")
    b.decide("no-approval-yet",
             pending(approval_id="APR-DB-0412", why="requested at the start, never answered"),
             constraint(goal, "never run it without his approval"),
             state(purge, "unknown"),
             pending(call=purge),
             fact("error_rate", "0.5%", subject=f"service={service}", superseded=["2.9%"]))
    b.assistant("Not without Ravi's approval — that was your rule. I'll keep the canary running meanwhile.")
    b.status_query(purge, "succeeded", "cdn-api", request_id="cdn_4e1b77d0a2")
    b.meanwhile(5, *watching)
    grant = b.approval("APR-DB-0412", "granted", goal, {"migration_id": migration},
                       f"Ravi Patel approved migration {migration}.", granted_by="Ravi Patel")
    b.user("Ravi approved it in Slack. Go ahead.")
    b.decide("run-migration",
             next_call("run_migration", migration_id=migration, why="from the release manifest"),
             constraint(grant, f"approved migration {migration}"),
             state(purge, "succeeded", request_id="cdn_4e1b77d0a2"),
             fact("deploy_id", "DEP-7781"))
    ran = b.tool("run_migration", {"migration_id": migration, "database": "orders-primary"},
                 {"migration_id": migration, "rows_rewritten": 1843211, "duration_s": 412})
    b.assistant(f"Migration {migration} ran in 412 s.")
    b.meanwhile(3, *watching)
    b.user("Migration done? Then roll out to everyone.")
    b.decide("full-rollout",
             state(ran, "succeeded", request_id=ran.request_id),
             evidence(ran.seq, ran.answer_seq, why="irreversible, the release is not closed"),
             next_call("deploy", version=version, service=service),
             fact("error_rate", "0.5%", subject=f"service={service}", superseded=["2.9%"]))
    full = b.tool("deploy", {"service": service, "version": version, "stage": "full", "traffic": "100%"},
                  {"deploy_id": "DEP-7790", "stage": "full", "pods": 24})
    b.assistant("Rolled out to 100% (DEP-7790).")
    b.meanwhile(3, *watching)
    b.event("subtask_end", text=f"release {version} shipped", task_done=True)
    b.user("Great. Post the release note with the deploy ids and the migration.")
    b.decide("release-note",
             next_call("post_release_note", canary="DEP-7781", full="DEP-7790", migration=migration),
             state(full, "succeeded", request_id=full.request_id),
             state(canary, "succeeded", request_id=canary.request_id))
    b.tool("post_release_note",
           {"channel": "releases", "canary": "DEP-7781", "full": "DEP-7790", "migration": migration},
           {"posted": True, "channel": "releases"})
    b.assistant("Posted.")
    return b


TRAJECTORIES: list[Callable[[], Builder]] = [
    order_delivery_long,
    address_correction,
    billing_timeout,
    refund_crash,
    scoped_authorization,
    stock_contradiction,
    pending_approval,
    topic_switch_return,
    two_orders,
    bulk_retag,
    branch_mainline,
    fs_workspace,
    trading_desk,
    travel_booking,
    messaging_tickets,
    vehicle_road_trip,
    ops_deploy,
]


def build_suite() -> dict[str, str]:
    """File name -> content of every trajectory."""
    files = {}
    for number, make in enumerate(TRAJECTORIES, start=1):
        b = make()
        files[f"{number:02d}_{b.header['id']}.jsonl"] = b.render()
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the files on disk differ from what it writes")
    args = parser.parse_args(argv)
    files = build_suite()
    on_disk = {p.name for p in SUITE_DIR.glob("*.jsonl")} if SUITE_DIR.is_dir() else set()
    if args.check:
        problems = [f"differs from what generate_suite.py writes: {SUITE_DIR / name}"
                    for name, text in files.items()
                    if not (SUITE_DIR / name).is_file() or (SUITE_DIR / name).read_text(encoding="utf-8") != text]
        problems += [f"not written by generate_suite.py: {SUITE_DIR / name}" for name in sorted(on_disk - files.keys())]
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    SUITE_DIR.mkdir(exist_ok=True)
    for name in on_disk - files.keys():
        (SUITE_DIR / name).unlink()
    for name, text in files.items():
        (SUITE_DIR / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} trajectories to {SUITE_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
