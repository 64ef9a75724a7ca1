#!/usr/bin/env python3
"""Write the held-out trajectories of bench/holdout/ (docs/eval.md has the format).

These conversations were written without reading pgctx's summarizer or its shipped suite, on
scenarios the suite does not use, so that `pgctx eval bench/holdout` is a score nothing was tuned
on. Output is deterministic (one seeded random.Random per trajectory):

    .venv/bin/python bench/holdout/generate.py           # (re)write the files
    .venv/bin/python bench/holdout/generate.py --check   # exit 1 if the files on disk differ
    .venv/bin/python bench/holdout/generate.py --stats   # the size table of README.md

Every trajectory is checked while it is built: seqs, decision placement (right after a user
event), probe sanity (next_call values said earlier but not in the decision's own user message,
constraint phrases present in the cited event) and the size rules (>= 100 events, >= 20,000
tokens, no event over 1,000 tokens, no turn over 1,600 tokens).
"""

from __future__ import annotations

import argparse
import json
import random
import string
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pgctx.messages import event_message
from pgctx.tokens import TokenCounter

HERE = Path(__file__).resolve().parent
COUNTER = TokenCounter("o200k_base")
MIN_EVENTS, MIN_TOKENS, MAX_EVENT_TOKENS, MAX_TURN_TOKENS = 100, 20_000, 1_000, 1_600
MIN_DECISIONS, MAX_DECISIONS, MIN_PROBES, MAX_PROBES = 4, 7, 2, 8


def event_tokens(kind: str, payload: dict[str, Any]) -> int:
    return COUNTER.message_tokens(event_message(kind, payload))


def text_tokens(text: str) -> int:
    return COUNTER.message_tokens({"role": "tool", "content": text})


def event_text(kind: str, payload: dict[str, Any]) -> str:
    """What the eval searches for next_call values: a message's content and its call arguments."""
    message = event_message(kind, payload)
    parts = [message.get("content") or ""]
    parts += [c["function"]["arguments"] for c in message.get("tool_calls") or []]
    return "\n".join(parts).lower()


# ----------------------------------------------------------------------------------------------
# probes (docs/eval.md, "Probes and how each is judged")
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Call:
    tool: str
    call_id: str
    idempotency_key: str | None
    arguments: dict[str, Any]
    seq: int


def fact(key: str, value: Any, superseded: Sequence[Any] = (), subject: str | None = None,
         why: str = "") -> dict[str, Any]:
    probe: dict[str, Any] = {"probe": "fact", "key": key}
    if subject:
        probe["subject"] = subject
    probe["value"] = value
    if superseded:
        probe["superseded"] = list(superseded)
    return _why(probe, why)


def state(call: Call, status: str, request_id: str | None = None, by_key: bool = False,
          why: str = "") -> dict[str, Any]:
    probe: dict[str, Any] = {"probe": "tool_state"}
    if by_key:
        probe["idempotency_key"] = call.idempotency_key
    else:
        probe["call_id"] = call.call_id
    probe["status"] = status
    if request_id:
        probe["request_id"] = request_id
    return _why(probe, why)


def next_call(tool: str, why: str = "", **arguments: str | int) -> dict[str, Any]:
    return _why({"probe": "next_call", "tool": tool, "arguments": arguments}, why)


def pending(approval_id: str | None = None, call: Call | None = None, why: str = "") -> dict[str, Any]:
    probe: dict[str, Any] = {"probe": "pending"}
    if approval_id:
        probe["approval_id"] = approval_id
    else:
        assert call is not None
        probe["call_id"] = call.call_id
    return _why(probe, why)


def constraint(seq: int, text: str, why: str = "") -> dict[str, Any]:
    return _why({"probe": "constraint", "seq": seq, "text": text}, why)


def evidence(*seqs: int, why: str = "") -> dict[str, Any]:
    return _why({"probe": "evidence", "seqs": list(seqs)}, why)


def _why(probe: dict[str, Any], why: str) -> dict[str, Any]:
    if why:
        probe["why"] = why
    return probe


# ----------------------------------------------------------------------------------------------
# the builder
# ----------------------------------------------------------------------------------------------

class Builder:
    """One trajectory: appends steps, tracks seqs and open calls, checks probes and sizes."""

    def __init__(self, tid: str, title: str, exercises: list[str], description: str,
                 tools: list[tuple[str, str, list[str]]], seed: int):
        self.header = {"pgctx_trajectory": 1, "id": tid, "title": title, "exercises": exercises,
                       "description": description,
                       "tools": [{"tool": t, "effect": e, "identifier_args": a} for t, e, a in tools]}
        self.effects = {t: e for t, e, _ in tools}
        self.rng = random.Random(seed)
        self.steps: list[dict[str, Any]] = []
        self.seq = 0
        self.kinds: dict[int, str] = {}
        self.payloads: dict[int, dict[str, Any]] = {}
        self.texts: dict[int, str] = {}
        self.sizes: dict[int, int] = {}
        self.calls: dict[str, Call] = {}
        self.running: list[str] = []  # call ids with no answer since the last recovery
        self.approvals: set[str] = set()
        self.decisions: list[str] = []
        self.probe_classes: Counter[str] = Counter()

    # -- ids ------------------------------------------------------------------------------------

    def token(self, n: int = 10, alphabet: str = string.ascii_lowercase + string.digits) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def hexid(self, n: int = 12) -> str:
        return self.token(n, "0123456789abcdef")

    # -- events ---------------------------------------------------------------------------------

    def event(self, kind: str, payload: dict[str, Any]) -> int:
        self.seq += 1
        self.steps.append({"type": "event", "kind": kind, "payload": payload, "seq": self.seq})
        self.kinds[self.seq], self.payloads[self.seq] = kind, payload
        self.texts[self.seq] = event_text(kind, payload)
        self.sizes[self.seq] = event_tokens(kind, payload)
        return self.seq

    def system(self, text: str) -> int:
        return self.event("system", {"text": text})

    def user(self, text: str) -> int:
        return self.event("user", {"text": text})

    def say(self, text: str) -> int:
        return self.event("assistant", {"text": text})

    def call(self, tool: str, **arguments: Any) -> Call:
        effect = self.effects[tool]  # KeyError: the tool is not declared in the header
        call_id = "call_" + self.token(12, string.ascii_letters + string.digits)
        key = f"{tool}-{self.hexid(16)}" if effect != "read" else None
        payload: dict[str, Any] = {"tool": tool, "call_id": call_id, "arguments": arguments}
        if key:
            payload["idempotency_key"] = key
        seq = self.event("tool_call", payload)
        call = Call(tool, call_id, key, arguments, seq)
        self.calls[call_id] = call
        self.running.append(call_id)
        return call

    def _answer(self, call: Call, outcome: str, **fields: Any) -> int:
        if call.call_id in self.running:
            self.running.remove(call.call_id)
        payload: dict[str, Any] = {"call_id": call.call_id, "outcome": outcome}
        payload.update({k: v for k, v in fields.items() if v is not None})
        return self.event("tool_result", payload)

    def ok(self, call: Call, result: dict[str, Any] | None = None, log: str | None = None,
           request_id: str | None = None) -> int:
        if request_id is None and self.effects[call.tool] != "read":
            request_id = "req_" + self.hexid(14)
        return self._answer(call, "succeeded", request_id=request_id, result=result, log=log)

    def fail(self, call: Call, error: str, result: dict[str, Any] | None = None,
             log: str | None = None) -> int:
        return self._answer(call, "failed", error=error, result=result, log=log)

    def timeout(self, call: Call, error: str, log: str | None = None) -> int:
        return self._answer(call, "timeout", error=error, log=log)

    def request_id_of(self, seq: int) -> str:
        return self.payloads[seq]["request_id"]

    def status_query(self, call: Call, outcome: str, authority: str, request_id: str | None = None,
                     **extra: Any) -> int:
        payload: dict[str, Any] = {"call_id": call.call_id, "idempotency_key": call.idempotency_key,
                                   "outcome": outcome}
        if request_id:
            payload["request_id"] = request_id
        payload["authority"] = authority
        payload.update(extra)
        return self.event("status_query", payload)

    def fact(self, key: str, value: Any, authority: str, subject: str | None = None,
             confidence: str | None = None, kind: str = "fact") -> int:
        payload: dict[str, Any] = {"key": key, "value": value, "authority": authority}
        if confidence:
            payload["confidence"] = confidence
        if subject:
            payload["subject"] = subject
        return self.event(kind, payload)

    def correction(self, key: str, value: Any, subject: str | None = None, authority: str = "user") -> int:
        return self.fact(key, value, authority, subject=subject, kind="correction")

    def guess(self, key: str, value: Any, subject: str | None = None) -> int:
        """A value the model inferred, never confirmed by a tool or the user."""
        return self.fact(key, value, "model", subject=subject, confidence="inferred")

    def approval(self, approval_id: str, status: str, scopes_event: int, scope: dict[str, Any],
                 text: str, granted_by: str | None = None) -> int:
        payload: dict[str, Any] = {"approval_id": approval_id, "status": status, "scopes_event": scopes_event,
                                   "scope": scope}
        if granted_by:
            payload["granted_by"] = granted_by
        payload["text"] = text
        self.approvals.add(approval_id)
        return self.event("approval", payload)

    def subtask_end(self, text: str, task_done: bool = False) -> int:
        return self.event("subtask_end", {"text": text, "task_done": task_done})

    def verification(self, ok: bool, what: str) -> int:
        return self.event("verification", {"ok": ok, "what": what})

    # -- control steps --------------------------------------------------------------------------

    def recover(self) -> int | None:
        """The agent restarted; pgctx appends one recovery event if a call is still running."""
        self.steps.append({"type": "recover"})
        if not self.running:
            return None
        self.seq += 1
        self.kinds[self.seq] = "recovery"
        self.running.clear()
        return self.seq

    def decide(self, decision_id: str, *probes: dict[str, Any], note: str = "") -> None:
        last = self.steps[-1]
        assert last["type"] == "event" and last["kind"] == "user", f"{decision_id}: not right after a user event"
        assert MIN_PROBES <= len(probes) <= MAX_PROBES, f"{decision_id}: {len(probes)} probes"
        newest_user = self.texts[self.seq]
        for p in probes:
            self._check_probe(decision_id, p, newest_user)
            self.probe_classes[p["probe"]] += 1
        step: dict[str, Any] = {"type": "decision", "id": decision_id, "probes": list(probes)}
        if note:
            step["note"] = note
        self.steps.append(step)
        self.decisions.append(decision_id)

    def _check_probe(self, did: str, p: dict[str, Any], newest_user: str) -> None:
        where = f"{self.header['id']}/{did}/{p['probe']}"
        if p["probe"] == "next_call":
            assert p["tool"] in self.effects, where
            for name, value in p["arguments"].items():
                v = str(value).lower()
                assert any(v in t for s, t in self.texts.items() if s < self.seq), f"{where}: {name}={value} unseen"
                assert v not in newest_user, f"{where}: {name}={value} is in the decision's own user message"
        elif p["probe"] == "constraint":
            assert self.kinds.get(p["seq"]) in ("user", "approval"), where
            assert p["text"].lower() in self.texts[p["seq"]], f"{where}: {p['text']!r} not in event {p['seq']}"
        elif p["probe"] == "evidence":
            assert all(s in self.kinds for s in p["seqs"]), where
        elif p["probe"] == "tool_state":
            known = {c.call_id for c in self.calls.values()} | {c.idempotency_key for c in self.calls.values()}
            assert (p.get("call_id") or p.get("idempotency_key")) in known, where
        elif p["probe"] == "pending":
            assert p.get("approval_id") in self.approvals or p.get("call_id") in self.calls, where

    # -- output ---------------------------------------------------------------------------------

    def turns(self) -> list[int]:
        """Token size of each turn (the events from one user message to the next)."""
        sizes: list[int] = [0]
        for seq in sorted(self.sizes):
            if self.kinds[seq] == "user" and sizes[-1]:
                sizes.append(0)
            sizes[-1] += self.sizes[seq]
        return sizes

    def stats(self) -> dict[str, Any]:
        return {"id": self.header["id"], "events": len(self.sizes), "tokens": sum(self.sizes.values()),
                "decisions": len(self.decisions), "probes": dict(self.probe_classes)}

    def render(self) -> str:
        tid = self.header["id"]
        assert len(self.sizes) >= MIN_EVENTS, f"{tid}: {len(self.sizes)} events"
        assert sum(self.sizes.values()) >= MIN_TOKENS, f"{tid}: {sum(self.sizes.values())} tokens"
        big = [s for s, n in self.sizes.items() if n > MAX_EVENT_TOKENS]
        assert not big, f"{tid}: events over {MAX_EVENT_TOKENS} tokens: {big}"
        turns = self.turns()
        assert max(turns) <= MAX_TURN_TOKENS, f"{tid}: a turn of {max(turns)} tokens"
        assert MIN_DECISIONS <= len(self.decisions) <= MAX_DECISIONS, f"{tid}: {len(self.decisions)} decisions"
        assert len(set(self.decisions)) == len(self.decisions), f"{tid}: duplicate decision ids"
        lines = [self.header] + self.steps
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


# ----------------------------------------------------------------------------------------------
# helpers for long tool output
# ----------------------------------------------------------------------------------------------

class Clock:
    """Monotonic timestamps for logs: each tick moves forward by a random number of seconds."""

    def __init__(self, rng: random.Random, start: datetime, fmt: str = "%Y-%m-%d %H:%M:%S"):
        self.rng, self.now, self.fmt = rng, start, fmt

    def tick(self, lo: int = 5, hi: int = 300) -> str:
        self.now += timedelta(seconds=self.rng.randint(lo, hi))
        return self.now.strftime(self.fmt)


def fill(rng: random.Random, line: Callable[[random.Random], str], target: int, head: str = "",
         sep: str = "\n") -> str:
    """`head` then lines from `line` until the text is about `target` tokens."""
    out = [head] if head else []
    while text_tokens(sep.join(out)) < target:
        out.append(line(rng))
    return sep.join(out)


def pick(rng: random.Random, options: Sequence[str]) -> str:
    return options[rng.randrange(len(options))]


def timeline(clock: Clock, entries: Sequence[str], lo: int = 30, hi: int = 5400) -> str:
    """Timestamped lines, one per entry, in order."""
    return "\n".join(f"{clock.tick(lo, hi)}  {e}" for e in entries)


def paragraphs(*parts: str) -> str:
    return "\n\n".join(" ".join(p.split()) for p in parts)


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cols = [list(map(str, c)) for c in zip(header, *rows)]
    widths = [max(len(x) for x in c) for c in cols]
    fmt = "  ".join("{:<%d}" % w for w in widths)
    return "\n".join([fmt.format(*header), fmt.format(*("-" * w for w in widths))]
                     + [fmt.format(*map(str, r)) for r in rows])

def audit_trail(rng: random.Random, start: datetime, actors: Sequence[str], events: Sequence[str], target: int,
                head: str = "Audit trail:") -> str:
    """A system audit trail of about `target` tokens: timestamped (actor, event) lines after `head`."""
    clock = Clock(rng, start)
    return fill(rng, lambda r: f"{clock.tick(1, 40)}  {pick(r, actors):<24} {pick(r, events)}", target, head)


def emails(messages: Sequence[tuple[str, str, str, str]]) -> str:
    """An e-mail thread: (from, date, subject, body) each, oldest first."""
    return "\n\n".join(f"From: {sender}\nDate: {date}\nSubject: {subject}\n\n{paragraphs(body)}"
                        for sender, date, subject, body in messages)


# ----------------------------------------------------------------------------------------------
# 01 HR onboarding: three hires, document checklists, a bonus approval, background checks
# ----------------------------------------------------------------------------------------------

HR_POLICY = [
    """Peoplebase onboarding policy PB-ONB-2025.2 applies to every regular hire whose first day is on
    or after 1 June 2025. People Ops owns the checklist; the hiring manager owns equipment and
    first-week scheduling. A hire may not badge into a lab on day one unless every item marked
    BLOCKING below is complete in Peoplebase, whatever the document vault shows.""",
    """Form I-9: Section 1 must be completed by the employee no later than the first day of
    employment. Section 2 must be completed by an authorized People Ops representative, in person
    or through the approved remote agent program, within three business days of the first day.
    Section 2 can only be marked complete in Peoplebase by a People Ops user; scans uploaded by
    front-desk staff are labelled automatically and must be verified before they count.""",
    """Tax and payroll: a signed W-4 (and the state equivalent where one exists) and a direct
    deposit authorization are needed before the first payroll cut-off after the start date. A
    missing direct deposit form does not block the start date but produces a paper check, which
    employees dislike; remind early.""",
    """Confidentiality: every hire signs the Mutual Confidentiality and Invention Assignment
    Agreement (NDA) before the offer is countersigned. Lab roles additionally acknowledge the Lab
    Safety Handbook (LSH rev. 14) and complete the online chemical hygiene module in the first
    week.""",
    """Background screening is ordered through Clearpath only after the offer letter is
    countersigned by both parties and the candidate's FCRA consent is on file. Packages are set
    per role family and may not be downgraded. Orders are billed on submission and cannot be
    cancelled once the vendor has started the county searches.""",
    """Sign-on bonuses above the role band's cap require written approval from the VP People before
    the offer package is finalized. Recruiters may promise nothing above the cap in writing until
    that approval exists.""",
    """Equipment: IT fulfils standard profiles within five business days of an order. Orders must
    name the date the equipment is needed; remote hires receive equipment at their home address
    on file, on-site hires at the lab receiving desk.""",
]

HR_ITEMS = {
    "i9_section1": ("Form I-9 Section 1", "employee", "day 1", "USCIS form, signed"),
    "i9_section2": ("Form I-9 Section 2", "People Ops", "day 3", "original documents, in person or remote agent"),
    "w4": ("Federal W-4 + state form", "employee", "first payroll cut-off", "signed PDF via portal"),
    "direct_deposit": ("Direct deposit authorization", "employee", "first payroll cut-off", "voided check or bank letter"),
    "nda": ("Confidentiality and invention assignment", "employee", "before countersignature", "DocuSign"),
    "lab_safety_ack": ("Lab Safety Handbook acknowledgement", "employee", "before lab access", "portal e-sign"),
    "vaccination_record": ("Hep B record or OH-3 declination + TB screen", "employee", "before lab access",
                           "reviewed by Occupational Health"),
    "forklift_cert": ("Powered industrial truck certificate", "employee", "before warehouse access",
                      "certificate copy, unexpired"),
}

HR_ROLES = {
    "RA-3": {"title": "Senior Research Associate", "bg_package": "lab-plus-7yr", "equipment_profile": "lab-laptop-14",
             "required_items": ["i9_section1", "i9_section2", "w4", "direct_deposit", "nda", "lab_safety_ack",
                                "vaccination_record"],
             "blocking": ["i9_section1", "nda", "lab_safety_ack", "vaccination_record"]},
    "LT-1": {"title": "Lab Operations Technician", "bg_package": "standard-5yr", "equipment_profile": "lab-tablet-rugged",
             "required_items": ["i9_section1", "i9_section2", "w4", "direct_deposit", "nda", "lab_safety_ack",
                                "forklift_cert"],
             "blocking": ["i9_section1", "nda", "lab_safety_ack", "forklift_cert"]},
    "DE-2": {"title": "Data Engineer II", "bg_package": "standard-7yr", "equipment_profile": "dev-laptop-16",
             "required_items": ["i9_section1", "i9_section2", "w4", "direct_deposit", "nda"],
             "blocking": ["i9_section1", "nda"], "sign_on_cap": "10000.00"},
}

BG_COMPONENTS = {
    "lab-plus-7yr": [("SSN trace and address history", "7 years", "0-1"), ("County criminal", "all counties, 7 years", "2-5"),
                     ("Federal criminal", "all districts, 7 years", "1-3"), ("Employment verification", "last 3 employers", "3-7"),
                     ("Education verification", "highest degree", "2-5"), ("OIG/SAM exclusion lists", "current", "0-1"),
                     ("Controlled substances registry", "current", "0-1")],
    "standard-5yr": [("SSN trace and address history", "5 years", "0-1"), ("County criminal", "all counties, 5 years", "2-5"),
                     ("Motor vehicle record", "state of licence", "0-1"), ("Employment verification", "last employer", "3-7")],
}

HR_RECRUITERS = ["r.santos (Recruiting)", "j.okonkwo (Recruiting)", "m.feld (Recruiting Ops)", "peoplebase-sync"]


def hr_history(b: Builder, clock: Clock, name: str, role: str, start: str, manager: str) -> str:
    def filler(rng: random.Random) -> str:
        return f"{clock.tick(900, 50000)}  " + pick(rng, [
            f"profile.viewed by {pick(rng, HR_RECRUITERS)}",
            "email.delivered template=ONB-WELCOME-01 to personal address",
            f"task.created 'Schedule first-week shadowing' owner={pick(rng, ['manager', 'buddy', 'People Ops'])}",
            "sync.adp status=ok fields=legal_name,ssn_last4,home_address,tax_state",
            f"docusign.envelope.viewed by candidate ip=73.{rng.randint(10, 250)}.{rng.randint(1, 250)}.{rng.randint(1, 250)}",
            "calendar.hold 'Orientation - Benefits 101' added to candidate calendar",
            f"portal.login candidate session={rng.randint(100000, 999999)} device={pick(rng, ['iPhone', 'Windows', 'macOS'])}",
            "benefits.eligibility.computed class=FT-US effective=first-of-month-after-start",
            f"comment.added by {pick(rng, HR_RECRUITERS)}: 'candidate asked about parking validation'",
        ])
    head = "\n".join([
        "Record history (oldest first):",
        f"{clock.tick(60, 600)}  offer.created role={role} for {name} by {pick(b.rng, HR_RECRUITERS[:3])}",
        f"{clock.tick(600, 9000)}  offer.approved comp_band_check=pass approver=finance-partner",
        f"{clock.tick(600, 9000)}  start_date.set {start} by hiring manager {manager}",
        f"{clock.tick(600, 9000)}  docusign.envelope.sent to candidate"])
    return fill(b.rng, filler, 290, head)


def hr_doc_log(b: Builder, clock: Clock, items: dict[str, str]) -> str:
    lines = ["Document events (oldest first):"]
    for item, status in items.items():
        if status == "complete":
            lines.append(f"{clock.tick(600, 40000)}  doc.{item}.completed via "
                         f"{pick(b.rng, ['candidate portal', 'DocuSign', 'People Ops upload'])}")
        else:
            lines.append(f"{clock.tick(600, 40000)}  doc.{item}.requested reminder_count={b.rng.randint(0, 2)}")

    def filler(rng: random.Random) -> str:
        item = pick(rng, sorted(items))
        return f"{clock.tick(300, 20000)}  " + pick(rng, [
            f"rules.evaluate item={item} result={items[item]} engine=PB-ONB-2025.2",
            f"portal.view item={item} by candidate",
            f"sla.check item={item} due_in_days={rng.randint(2, 20)}",
            f"audit.read item={item} by {pick(rng, HR_RECRUITERS)}"])
    return fill(b.rng, filler, 590, "\n".join(lines))


def hr_vault_listing(b: Builder, clock: Clock, hire_id: str, files: list[tuple[str, str, str]]) -> str:
    rows = []
    for file_id, label, uploader in files:
        rows.append((file_id, label, uploader, f"2025-06-{b.rng.randint(16, 26):02d} {b.rng.randint(8, 17):02d}:"
                     f"{b.rng.randint(0, 59):02d}", f"{b.rng.randint(80, 2400)} KB", "pdf",
                     "scanner OCR (unverified)" if "scanner" in uploader else "uploader"))
    return (f"Vault folder /onboarding/{hire_id}/ (retention: 3 years after separation)\n"
            + table(["file_id", "label", "uploaded_by", "uploaded_at", "size", "type", "labelled_by"], rows)
            + "\nAuto-labels are produced by the scanner's OCR classifier and are unverified until a People "
              "Ops user confirms them. Files uploaded by candidates through the portal carry the label the "
              "candidate chose. Deleted files are kept in the vault's recycle area for 30 days.\n"
            + fill(b.rng, lambda rng: f"{clock.tick(200, 30000)}  access {pick(rng, [f[0] for f in files])} "
                   f"by {pick(rng, HR_RECRUITERS)} action={pick(rng, ['preview', 'download', 'metadata'])}",
                   250, "Access log:"))


def it_fulfilment_log(b: Builder, request: str, profile: str) -> str:
    clock = Clock(b.rng, datetime(2025, 6, 27, 11, 20))
    steps = [f"{request} created profile={profile} source=peoplebase", "approval.auto standard profile",
             f"asset.reserve pool={pick(b.rng, ['BOS-DEPOT-1', 'BOS-DEPOT-2'])} status=reserved",
             "imaging.queue image=halv-std-2025.06 position=" + str(b.rng.randint(3, 40)),
             "mdm.preenrol status=ok", "courier.quote requested", "sla.target 5 business days"]
    return f"Fulfilment log {request}:\n" + timeline(clock, steps, 20, 900)


def hr_checklist_log(role: str) -> str:
    r = HR_ROLES[role]
    rows = [(item, *HR_ITEMS[item], "yes" if item in r["blocking"] else "no") for item in r["required_items"]]
    return (f"Checklist for {role} ({r['title']}), policy PB-ONB-2025.2\n"
            + table(["item", "document", "owner", "due", "evidence accepted", "blocking"], rows)
            + f"\nScreening package: {r['bg_package']}. Equipment profile: {r['equipment_profile']}.\n\n"
            + paragraphs(*HR_POLICY))


def traj_hr_onboarding() -> Builder:
    b = Builder(
        "hr-onboarding-checklists", "HR onboarding: three July starters, document checklists, a bonus approval",
        ["several entities at once (three hires, each with its own role, checklist and start date)",
         "a user correction supersedes a start date for one hire only",
         "HRIS and document vault contradict each other about the same hire's I-9; settled later by reading the file",
         "a pending approval (sign-on bonus above cap) that must hold the offer back, later granted",
         "irreversible background-check orders kept raw until the subtask ends",
         "an early rule (no weekend reminders, no checks before countersignature) needed much later",
         "next-call values (consent ids, packages, equipment profiles) from much earlier tool results"],
        "A People Ops coordinator works through three new hires' onboarding checklists in Peoplebase, "
        "the document vault, e-mail and the screening vendor over a long session spanning a weekend.",
        [("hr_get_hire", "read", ["hire_id"]), ("hr_role_checklist", "read", ["role_code"]),
         ("hr_doc_status", "read", ["hire_id"]), ("vault_index", "read", ["hire_id"]),
         ("vault_get_file", "read", ["file_id"]), ("hr_policy_doc", "read", ["policy_id"]),
         ("hr_mail_thread", "read", ["thread_id"]), ("hr_mail_search", "read", ["query"]),
         ("hr_send_reminder", "write", ["hire_id"]), ("hr_update_start_date", "write", ["hire_id"]),
         ("hr_add_note", "write", ["hire_id"]), ("it_catalog", "read", ["profile"]),
         ("it_order_equipment", "write", ["hire_id"]), ("bg_order_check", "irreversible", ["hire_id"]),
         ("hr_finalize_offer", "write", ["hire_id"]), ("hr_get_offer", "read", ["hire_id"])],
        seed=101)
    clock = Clock(b.rng, datetime(2025, 5, 27, 9, 12))
    b.system("You are the People Ops assistant for Halvorsen Biotech. You act in Peoplebase (HRIS), the "
             "onboarding document vault, the People Ops mailbox, IT's equipment service and the Clearpath "
             "screening vendor through tools. Today is Friday 27 June 2025; office hours are US Eastern.")
    goal = b.user(
        "Hi, Dana Whitcombe from People Ops. We have three July starters and I want their onboarding "
        "checklists airtight before day one: Priya Raman (H-2291), Tomás Ortega (H-2304) and Aisha Bello "
        "(H-2310). Two rules for this whole job: never send reminders to candidates on a weekend, and do "
        "not order any background check until I tell you the offer letter is countersigned. Can you pull "
        "their records first?")
    b.say("Sure. I'll pull all three hire records from Peoplebase and then go through the checklists one "
          "person at a time.")
    hires = {
        "H-2291": {"name": "Priya Raman", "role_code": "RA-3", "start_date": "2025-07-14",
                   "manager": "Dr. Elena Voss", "location": "Boston - Fan Pier lab", "sign_on_bonus": "0.00"},
        "H-2304": {"name": "Tomás Ortega", "role_code": "LT-1", "start_date": "2025-07-07",
                   "manager": "Kwame Asante", "location": "Boston - Fan Pier lab", "sign_on_bonus": "0.00"},
        "H-2310": {"name": "Aisha Bello", "role_code": "DE-2", "start_date": "2025-07-14",
                   "manager": "Ruth Nakamura", "location": "Remote (Portland, OR)", "sign_on_bonus": "12000.00"},
    }
    for hire_id, h in hires.items():
        c = b.call("hr_get_hire", hire_id=hire_id)
        b.ok(c, {"hire_id": hire_id, **h, "title": HR_ROLES[h["role_code"]]["title"], "employment_type": "full-time",
                 "offer_status": "draft" if hire_id == "H-2310" else "sent"},
             hr_history(b, clock, h["name"], h["role_code"], h["start_date"], h["manager"]))
    b.say("All three are in Peoplebase. Priya (Senior Research Associate, RA-3) and Tomás (Lab Operations "
          "Technician, LT-1) are on site at Fan Pier and their offers are out for signature; Priya starts "
          "14 July, Tomás 7 July. Aisha (Data Engineer II, DE-2) is remote in Portland, starts 14 July, and "
          "her offer is still a draft with a 12,000.00 sign-on bonus. Where do you want to start?")

    def checklist(role: str) -> int:
        r = HR_ROLES[role]
        c = b.call("hr_role_checklist", role_code=role)
        result = {"role_code": role, "required_items": r["required_items"], "blocking_items": r["blocking"],
                  "bg_package": r["bg_package"], "equipment_profile": r["equipment_profile"],
                  "policy_version": "PB-ONB-2025.2"}
        if "sign_on_cap" in r:
            result["sign_on_cap"] = r["sign_on_cap"]
        return b.ok(c, result, hr_checklist_log(role))

    def doc_status(hire_id: str, items: dict[str, str], consent: str, **extra: str) -> int:
        c = b.call("hr_doc_status", hire_id=hire_id)
        return b.ok(c, {"hire_id": hire_id, **items, **extra, "bg_consent_id": consent}, hr_doc_log(b, clock, items))

    # -- Priya ------------------------------------------------------------------------------------
    b.user("Start with Priya. What does an RA-3 need?")
    checklist("RA-3")
    b.say("An RA-3 needs seven items: I-9 Sections 1 and 2, W-4, direct deposit, NDA, the Lab Safety Handbook "
          "acknowledgement and the vaccination record. Four of them block lab access on day one: I-9 Section 1, "
          "NDA, lab safety acknowledgement and vaccination record. Her screening package is lab-plus-7yr.")
    b.user("And where is she on those?")
    priya = {"i9_section1": "complete", "i9_section2": "missing", "w4": "complete", "direct_deposit": "missing",
             "nda": "complete", "lab_safety_ack": "complete", "vaccination_record": "missing"}
    hris = doc_status("H-2291", priya, "CNS-40917")
    c = b.call("vault_index", hire_id="H-2291")
    vault = b.ok(c, {"hire_id": "H-2291", "i9_section2": "received", "direct_deposit": "missing",
                     "vaccination_record": "missing", "file_count": 5},
                 hr_vault_listing(b, clock, "H-2291", [("F-98840", "i9_section1", "candidate portal"),
                                                ("F-98841", "w4", "candidate portal"),
                                                ("F-98902", "nda", "DocuSign"),
                                                ("F-99003", "lab_safety_ack", "candidate portal"),
                                                ("F-99127", "i9_section2", "frontdesk-scanner-02")]))
    b.say("Priya is missing her direct deposit form and vaccination record. On the I-9 Section 2 the two "
          "systems disagree: Peoplebase says missing, but the vault has a file F-99127 auto-labelled as "
          "Section 2 by the front-desk scanner. I won't chase her for the I-9 until that's settled.")
    b.user("Ugh, the front-desk scanner mislabels things all the time. Send her a reminder for what's "
           "definitely missing, and leave the I-9 alone for now.")
    b.decide("remind-priya",
             next_call("hr_send_reminder", hire_id="H-2291", items="vaccination_record",
                       why="the reminder goes to Priya's hire record, for the items both systems call missing"),
             evidence(hris, vault, why="the HRIS/vault contradiction on i9_section2 is not settled yet"),
             constraint(goal, "on a weekend", why="reminders are allowed today (Friday) but the rule stands"),
             fact("start_date", "2025-07-14", subject="hire_id=H-2291"))
    c = b.call("hr_send_reminder", hire_id="H-2291", items=["direct_deposit", "vaccination_record"], channel="email")
    b.ok(c, {"hire_id": "H-2291", "reminder_id": "RMD-61730", "sent_at": "2025-06-27T10:41:00-04:00"},
         emails([("People Ops <people@halvorsen.example>", "Fri, 27 Jun 2025 10:41",
                  "Two onboarding items before your start on 14 July",
                  """Hi Priya, we're looking forward to having you on the team on Monday 14 July. Two items on
                  your onboarding checklist are still open: (1) your direct deposit authorization (a voided check
                  or a letter from your bank), and (2) your health records for laboratory access: a hepatitis B
                  vaccination record or a signed OH-3 declination, and a tuberculosis screening from the last
                  12 months. Please upload both through the candidate portal (Health documents for the second
                  one); please do not email medical records. If you have any questions, reply to this message
                  or call People Ops at extension 4410. Best regards, People Ops, Halvorsen Biotech""")]))
    c = b.call("vault_get_file", file_id="F-99127")
    b.ok(c, {"file_id": "F-99127", "labeled_as": "i9_section2", "detected_form": "I-9 Section 1",
             "pages": 1, "uploaded_by": "frontdesk-scanner-02"},
         paragraphs("OCR text, page 1 of 1:",
                    "Employment Eligibility Verification. Department of Homeland Security, U.S. Citizenship and "
                    "Immigration Services. USCIS Form I-9, OMB No. 1615-0047.",
                    "Section 1. Employee Information and Attestation: Employees must complete and sign Section 1 "
                    "of Form I-9 no later than the first day of employment, but not before accepting a job offer.",
                    "Last Name (Family Name): RAMAN. First Name (Given Name): PRIYA. Middle Initial: S. Other Last "
                    "Names Used: none. Address (Street Number and Name): [redacted by vault policy]. City or Town: "
                    "Somerville. State: MA. ZIP Code: [redacted]. Date of Birth: [redacted]. U.S. Social Security "
                    "Number: [redacted]. Employee's E-mail Address: [redacted].",
                    "I am aware that federal law provides for imprisonment and/or fines for false statements, or "
                    "the use of false documents, in connection with the completion of this form. I attest, under "
                    "penalty of perjury, that this information is true and correct. Check one of the following "
                    "boxes: 1. A citizen of the United States [X].",
                    "Signature of Employee: (signed). Today's Date: 06/23/2025. Preparer and/or Translator "
                    "Certification: I did not use a preparer or translator.",
                    "No Section 2 content (employer review and verification, document titles, issuing authority, "
                    "document numbers, expiration dates, first day of employment, employer signature) is present "
                    "on this page."))
    b.verification(False, "vault file F-99127 labelled i9_section2 is an I-9 Section 1; Priya's Section 2 is "
                          "still missing, as Peoplebase says")
    b.fact("i9_section2", "missing", "vault_get_file", subject="hire_id=H-2291")
    c = b.call("hr_add_note", hire_id="H-2291",
               text="Vault F-99127 auto-labelled i9_section2 is actually I-9 Section 1 (duplicate). Section 2 "
                    "still to be done in person within 3 business days of start.")
    b.ok(c, {"hire_id": "H-2291", "note_id": "NOTE-20418"})
    b.say("Reminder RMD-61730 went to Priya by email for the direct deposit form and vaccination record. I "
          "also opened F-99127: it's a second copy of her I-9 Section 1, mislabelled by the scanner, so "
          "Peoplebase is right that Section 2 is still missing. It can only be done in person within three "
          "business days of her start, so it isn't something to remind her about; I added a note to her file.")
    b.user("Elena, her manager, emailed me about Priya's first week. Thread is PO-TH-5521. Anything in it that "
           "changes the checklist?")
    c = b.call("hr_mail_thread", thread_id="PO-TH-5521")
    b.ok(c, {"thread_id": "PO-TH-5521", "messages": 3, "participants": ["Elena Voss", "Dana Whitcombe", "Sam Oduya"]},
         emails([
             ("Elena Voss <evoss@halvorsen.example>", "Wed, 25 Jun 2025 16:02", "Priya's first week",
              """Hi Dana, quick heads-up on Priya's first week. We have the AAV titration run starting Tuesday
              15 July in BSL-2 suite 4 and I'd really like her shadowing it from the start, since she ran the
              same assay at her last job and could take it over by August. Monday is fine for orientation and
              IT set-up. Can you make sure nothing blocks her badge for suite 4 by Tuesday morning? Also she'll
              need a locker in the gowning room; Sam usually handles that. Thanks, Elena"""),
             ("Dana Whitcombe <dwhitcombe@halvorsen.example>", "Wed, 25 Jun 2025 17:20", "RE: Priya's first week",
              """Thanks Elena, I'll check her checklist on Friday. Badge access to BSL-2 depends on the lab-access
              items being complete, and Occupational Health has to clear her health records, so the earlier she
              sends them the better. Adding Sam for the locker."""),
             ("Sam Oduya <soduya@halvorsen.example>", "Thu, 26 Jun 2025 08:47", "RE: Priya's first week",
              """Locker G-112 in the suite 4 gowning room is reserved for her from 14 July. Badge profile
              BSL2-S4 will be requested for her automatically once Peoplebase shows lab-access items complete;
              security processes those requests in about one business day, so anything completed by Friday
              11 July is safe for a Tuesday start. Sam""")]))
    b.say("Yes, one thing: Elena wants Priya in BSL-2 suite 4 from Tuesday 15 July. Her badge profile BSL2-S4 is "
          "only requested once Peoplebase shows the lab-access items complete, and Security needs about a "
          "business day, so her vaccination record effectively has to be cleared by Friday 11 July. Locker G-112 "
          "is reserved. Everything else in the thread is logistics.")

    # -- Tomás ------------------------------------------------------------------------------------
    b.user("Good to know, I'll tell her the deadline is the 11th. Now Tomás: checklist first.")
    checklist("LT-1")
    b.say("LT-1 is like RA-3 but with a powered industrial truck (forklift) certificate instead of the "
          "vaccination record, and that certificate blocks warehouse access. Package standard-5yr, equipment "
          "profile lab-tablet-rugged.")
    b.user("Where is he on it?")
    tomas = {"i9_section1": "complete", "i9_section2": "missing", "w4": "missing", "direct_deposit": "complete",
             "nda": "complete", "lab_safety_ack": "complete", "forklift_cert": "complete"}
    doc_status("H-2304", tomas, "CNS-41022")
    c = b.call("vault_index", hire_id="H-2304")
    b.ok(c, {"hire_id": "H-2304", "w4": "missing", "forklift_cert": "received", "file_count": 5},
         hr_vault_listing(b, clock, "H-2304", [("F-98977", "i9_section1", "candidate portal"),
                                        ("F-98978", "direct_deposit", "candidate portal"),
                                        ("F-99011", "nda", "DocuSign"),
                                        ("F-99012", "lab_safety_ack", "candidate portal"),
                                        ("F-99140", "forklift_cert", "People Ops upload")]))
    b.say("Only his W-4 is missing, plus the in-person I-9 Section 2 once he starts. Peoplebase and the vault "
          "agree. The forklift certificate is on file as F-99140.")
    b.user("Is that forklift certificate still valid? Last time we had one that expired a week after the start.")
    c = b.call("vault_get_file", file_id="F-99140")
    b.ok(c, {"file_id": "F-99140", "labeled_as": "forklift_cert", "detected_form": "PIT operator certificate",
             "expires": "2026-03-31", "pages": 2, "uploaded_by": "People Ops upload"},
         paragraphs("OCR text, page 1 of 2:",
                    """Certificate of Completion. Powered Industrial Truck Operator Training (29 CFR 1910.178).
                    This certifies that TOMAS ORTEGA has successfully completed formal instruction, practical
                    training and an evaluation of operator performance in the workplace for the following truck
                    classes: Class I (electric motor rider trucks), Class II (electric narrow aisle trucks),
                    Class IV (internal combustion, solid tires).""",
                    """Training provider: Bay State Safety Institute, Woburn, MA. Evaluator: R. Castellano,
                    certified trainer no. BSSI-0193. Date of evaluation: 31 March 2023. Re-evaluation due:
                    31 March 2026, or sooner after an incident, a near miss, an unsafe operation observation or
                    an assignment to a different type of truck.""",
                    "OCR text, page 2 of 2:",
                    """Training record: classroom module 4.0 hours (stability triangle, load centres, data plate
                    reading, refuelling and battery charging, pedestrian safety); practical module 3.5 hours
                    (pre-use inspection, travelling loaded and unloaded, ramps, stacking and unstacking at 3
                    levels, parking and shut-down); evaluation passed on first attempt. This certificate is
                    employer-specific; a new employer must evaluate the operator on its own trucks and site
                    conditions before assigning work."""))
    b.say("It's valid until 31 March 2026 (Class I, II and IV). One note from the certificate itself: it is "
          "employer-specific, so the warehouse team must still evaluate him on our trucks before assigning "
          "forklift work.")
    b.user("Heads up: Tomás's start date is moving. His visa appointment got pushed, so he now starts July 21, not "
           "the 7th.")
    b.correction("start_date", "2025-07-21", subject="hire_id=H-2304")
    b.say("Noted: Tomás now starts Monday 21 July 2025. Peoplebase still shows 7 July, and nothing has been "
          "ordered from IT for him yet. Shall I update his start date and order his equipment for the new date?")
    b.user("Yes, update the system. And IT should have his kit ready for the new date.")
    b.decide("move-tomas",
             fact("start_date", "2025-07-21", superseded=["2025-07-07"], subject="hire_id=H-2304",
                  why="the user's correction replaces the date Peoplebase returned"),
             fact("start_date", "2025-07-14", subject="hire_id=H-2291", why="Priya's date is not affected"),
             next_call("hr_update_start_date", hire_id="H-2304", start_date="2025-07-21"),
             next_call("it_order_equipment", hire_id="H-2304", profile="lab-tablet-rugged", deliver_by="2025-07-21",
                       why="the profile comes from the LT-1 checklist, the date from the correction"))
    c = b.call("hr_update_start_date", hire_id="H-2304", start_date="2025-07-21", reason="visa appointment moved")
    b.ok(c, {"hire_id": "H-2304", "start_date": "2025-07-21", "previous_start_date": "2025-07-07"},
         "Downstream updates triggered by start_date change:\n" + timeline(Clock(b.rng, datetime(2025, 6, 27, 11, 3)), [
             "payroll.first_cutoff recomputed: 2025-07-09 -> 2025-07-23 (pay date 2025-08-01)",
             "benefits.eligibility recomputed: coverage effective 2025-08-01 (first of month after start)",
             "benefits.enrolment_window recomputed: 2025-07-21 .. 2025-08-19",
             "orientation.booking moved: ORIENT-2025-07-07 -> ORIENT-2025-07-21",
             "i9.section2_due recomputed: 2025-07-23 (third business day)",
             "badge.request BLDG-FP-STD not yet created (waits for checklist)",
             "task 'Schedule first-week shadowing' due date moved to 2025-07-18",
             "notification.sent to hiring manager Kwame Asante: start date changed",
             "notification.sent to candidate: start date confirmation (template ONB-DATE-CHG)",
             "adp.sync queued: hire_date=2025-07-21",
             "adp.sync completed status=ok"], 2, 40))
    tomas_kit = b.call("it_order_equipment", hire_id="H-2304", profile="lab-tablet-rugged", deliver_by="2025-07-21",
                       ship_to="Fan Pier lab receiving desk")
    tomas_kit_res = b.ok(tomas_kit, {"hire_id": "H-2304", "it_request": "IT-REQ-55812", "profile": "lab-tablet-rugged",
                                     "deliver_by": "2025-07-21"}, it_fulfilment_log(b, "IT-REQ-55812", "lab-tablet-rugged"))
    b.say("Done: Peoplebase now shows 21 July for Tomás, and IT request IT-REQ-55812 will have a rugged lab "
          "tablet at the Fan Pier receiving desk by then.")
    b.user("Kwame sent his first-week plan for Tomás in thread PO-TH-5548, written for the old date. Does it "
           "still work?")
    c = b.call("hr_mail_thread", thread_id="PO-TH-5548")
    week = [("Mon 7 Jul", "08:30", "Orientation (People Ops), badge photo, IT tablet set-up"),
            ("Mon 7 Jul", "13:00", "Warehouse walk-through with K. Asante; PPE fitting"),
            ("Tue 8 Jul", "08:00", "Forklift site evaluation on our trucks (R. Diaz, Class I and II)"),
            ("Tue 8 Jul", "11:00", "Receiving SOP RCV-002 and cold-chain intake"),
            ("Wed 9 Jul", "07:30", "Shadow the liquid nitrogen delivery; cryo PPE training"),
            ("Wed 9 Jul", "13:00", "Chemical hygiene online module"),
            ("Thu 10 Jul", "08:00", "Inventory cycle count with the night shift lead"),
            ("Fri 11 Jul", "09:00", "Check-in with K. Asante; sign-off on receiving SOP")]
    b.ok(c, {"thread_id": "PO-TH-5548", "messages": 2, "participants": ["Kwame Asante", "Dana Whitcombe"]},
         emails([("Kwame Asante <kasante@halvorsen.example>", "Thu, 26 Jun 2025 15:10", "Tomás - first week",
                  """Dana, here's what I have planned for Tomás's first week. Rosa Diaz from the warehouse is the
                  only evaluator for the forklift site evaluation and she's on vacation 14-18 July, so that one
                  matters. The liquid nitrogen delivery is every Wednesday morning. Let me know if anything
                  clashes with orientation. Kwame""")])
         + "\n\nAttachment: first_week_tomas.txt\n" + table(["day", "time", "activity"], week)
         + "\n\n" + emails([("Dana Whitcombe <dwhitcombe@halvorsen.example>", "Thu, 26 Jun 2025 16:02",
                               "RE: Tomás - first week",
                               """Looks good Kwame, orientation on Monday morning works. I'll confirm once his
                               paperwork is through.""")]))
    b.say("It needs shifting by two weeks, and it mostly still works: Monday 21 July orientation, warehouse "
          "walk-through, Wednesday's liquid nitrogen delivery. The one constraint is the forklift site "
          "evaluation: Rosa Diaz is the only evaluator and she's away 14-18 July, which doesn't clash with the "
          "new week of 21 July. I'd tell Kwame to move the whole plan to the week of 21 July.")

    # -- Aisha ------------------------------------------------------------------------------------
    b.user("Now Aisha. She negotiated a sign-on bonus, I think it's over the band.")
    checklist("DE-2")
    b.say("The DE-2 cap is 10,000.00 and her draft offer has 12,000.00, so yes, it's over. Her checklist is "
          "the short one: I-9, W-4, direct deposit and NDA, with only I-9 Section 1 and the NDA blocking.")
    b.user("Check her documents too.")
    aisha = {"i9_section1": "complete", "i9_section2": "missing", "w4": "complete", "direct_deposit": "complete",
             "nda": "complete"}
    doc_status("H-2310", aisha, "CNS-41108", offer_package="draft")
    b.say("All complete except the I-9 Section 2, which for a remote hire goes through the remote agent "
          "program. Her offer package is still a draft, and policy needs the VP People's written approval for "
          "the bonus before it can be finalized.")
    b.user("Pull up her draft offer letter. I want to see exactly what it promises about the bonus.")
    c = b.call("hr_get_offer", hire_id="H-2310")
    b.ok(c, {"hire_id": "H-2310", "offer_status": "draft", "base_salary": "148000.00", "sign_on_bonus": "12000.00",
             "clawback_months": 12},
         paragraphs(
             """DRAFT - not for distribution. Halvorsen Biotech, Inc., One Fan Pier Boulevard, Boston, MA.""",
             """Dear Aisha, we are delighted to offer you the position of Data Engineer II in the Research
             Data Platform team, reporting to Ruth Nakamura, Director of Data Engineering. This is a full-time,
             exempt position based remotely in Portland, Oregon, with travel to Boston about once a quarter at
             the company's expense. Your anticipated start date is Monday, 14 July 2025.""",
             """Compensation. Your annual base salary will be 148,000.00, paid semi-monthly. You will also
             receive a one-time sign-on bonus of 12,000.00, less applicable withholdings, paid with your first
             regular paycheck. If you resign or are terminated for cause within 12 months of your start date,
             you agree to repay the sign-on bonus in full; within 24 months, half of it.""",
             """Equity. Subject to approval by the Board, you will be granted restricted stock units with a
             grant value of 60,000.00, vesting over four years with a one-year cliff, under the 2021 Equity
             Incentive Plan.""",
             """Benefits. You will be eligible for the company's benefit plans from the first of the month after
             your start date, including medical, dental and vision coverage, a 401(k) plan with a 4% match,
             and 20 days of paid time off per year plus company holidays.""",
             """Contingencies. This offer is contingent on satisfactory completion of a background check, your
             signing of the Mutual Confidentiality and Invention Assignment Agreement, and proof of your
             eligibility to work in the United States.""",
             """[Recruiting note - remove before sending: sign-on above DE-2 cap, needs VP People approval.]"""))
    b.say("The draft promises 148,000.00 base, a 12,000.00 sign-on bonus paid with her first paycheck (fully "
          "repayable if she leaves within 12 months, half within 24), and 60,000.00 in RSUs. There's a "
          "recruiting note in it flagging that the bonus is above the DE-2 cap and needs VP People approval.")
    hold = b.user("Right, anything over cap needs Marcus. Request it from him, and don't finalize her offer package "
                  "until he signs off.")
    b.approval("APR-7731", "requested", hold, {"hire_id": "H-2310", "sign_on_bonus": "12000.00", "cap": "10000.00"},
               "Approval requested from Marcus Lee (VP People): sign-on bonus of 12,000.00 for Aisha Bello "
               "(DE-2, cap 10,000.00). The offer package stays in draft until he answers.")
    b.say("Requested as APR-7731 from Marcus Lee. Her offer stays in draft until he answers.")
    b.user("How does the remote Section 2 actually work for her? She's in Portland.")
    c = b.call("hr_policy_doc", policy_id="PB-ONB-REMOTE")
    b.ok(c, {"policy_id": "PB-ONB-REMOTE", "title": "Remote I-9 verification", "revision": "3",
             "agent_vendor": "Verifi Notary Network"},
         paragraphs(
             """PB-ONB-REMOTE, revision 3. Remote hires complete Form I-9 Section 2 with an authorized
             representative instead of People Ops staff. Halvorsen uses the Verifi Notary Network, which has
             agents in every US metropolitan area; agents act on Halvorsen's behalf and Halvorsen remains
             liable for errors in Section 2.""",
             """Process: after the offer is final, People Ops creates a Verifi request from Peoplebase. The
             hire receives a link to book a 20-minute in-person appointment within the first three business
             days of employment. The agent examines the original documents (List A, or List B and List C),
             completes Section 2 on the Verifi tablet and uploads the signed form, which arrives in the vault
             labelled i9_section2 and verified.""",
             """Alternative procedure: Halvorsen is enrolled in E-Verify, so a trained People Ops user may
             instead examine the documents over a live video call, after the hire uploads copies of them,
             within the same three business days. The video session must be recorded in the I-9 notes.""",
             """Cost: Verifi bills 45.00 per appointment to the hiring cost centre. Missed appointments are
             billed. A hire who has not completed Section 2 by the end of the third business day must stop
             working until it is done; managers are notified automatically."""))
    b.say("For remote hires it's the Verifi Notary Network: once her offer is final, Peoplebase sends her a link "
          "to book a 20-minute in-person appointment in Portland within her first three business days (45.00, "
          "billed to the hiring cost centre). The alternative is a recorded live video review by a trained People "
          "Ops user under E-Verify. Either way it can only start after the offer is final, so it waits on Marcus.")
    b.user("Fine. What does her equipment profile include? She asked whether she gets a second monitor.")
    c = b.call("it_catalog", profile="dev-laptop-16")
    kit = [("LPT-16-M3P", "16in laptop, 36 GB RAM, 1 TB", 1, "standard"), ("MON-27-4K", "27in 4K monitor", 2, "remote only"),
           ("DCK-TB4", "Thunderbolt 4 dock", 1, "standard"), ("KB-US-ANSI", "keyboard, US layout", 1, "standard"),
           ("MS-ERGO", "ergonomic mouse", 1, "standard"), ("HDST-ANC", "noise-cancelling headset", 1, "standard"),
           ("YUBI-5C", "hardware security key", 2, "standard"), ("CAM-4K", "external webcam", 1, "remote only"),
           ("CHR-STIPEND", "home office stipend 350.00", 1, "remote only")]
    b.ok(c, {"profile": "dev-laptop-16", "monitors": 2, "lead_time_business_days": 5},
         "Profile dev-laptop-16 (engineering, remote eligible)\n"
         + table(["item", "description", "qty", "applies"], kit)
         + "\n" + paragraphs(
             """Remote hires receive two monitors, a webcam and the home office stipend; on-site hires get a desk
             set-up ticket instead. Shipments go by ground to the home address on file and need an adult
             signature; IT books the courier once the order is approved by the hiring manager, which is
             automatic for standard profiles.""",
             """Security keys are enrolled on the first day during the IT orientation call; the laptop stays
             locked to the setup assistant until then. Returns at separation use a prepaid box that IT ships
             on the last day."""))
    b.say("Yes: as a remote engineer she gets two 27-inch 4K monitors with the 16-inch laptop, dock, "
          "peripherals, webcam, two security keys and a 350.00 home-office stipend. Lead time is five business "
          "days and it needs an adult signature on delivery.")
    b.user("Great, order it, shipped to her home address on file.")
    c = b.call("it_order_equipment", hire_id="H-2310", profile="dev-laptop-16", deliver_by="2025-07-14",
               ship_to="home address on file")
    b.ok(c, {"hire_id": "H-2310", "it_request": "IT-REQ-55830", "profile": "dev-laptop-16", "deliver_by": "2025-07-14"},
         it_fulfilment_log(b, "IT-REQ-55830", "dev-laptop-16"))
    b.say("Ordered: IT-REQ-55830, due at her home by 14 July.")
    b.user("Priya asked whether she really needs the vaccination record before day one. What does the policy say "
           "exactly?")
    c = b.call("hr_policy_doc", policy_id="PB-HLTH-07")
    b.ok(c, {"policy_id": "PB-HLTH-07", "title": "Occupational health requirements for laboratory roles",
             "revision": "7", "applies_to": ["RA-*", "LT-*", "QC-*"]},
         paragraphs(
             """PB-HLTH-07, revision 7. Purpose: protect employees who work with human-derived materials and
             the people around them. Scope: every role in the RA, LT and QC families, including contractors
             who badge into BSL-2 areas.""",
             """Requirement 1. Before first lab access, the employee provides a record of hepatitis B
             vaccination (three doses or a positive titer) or a signed declination on form OH-3. The record
             is reviewed by Occupational Health, not by People Ops; People Ops only sees complete or missing.""",
             """Requirement 2. A tuberculosis screening (IGRA or two-step skin test) dated within 12 months
             of the start date. A positive result requires a chest X-ray report before access.""",
             """Requirement 3. Employees who cannot provide records before their first day may start in a
             non-lab capacity (training, desk work) for up to ten business days while Occupational Health
             arranges vaccination at company expense. Their badge is restricted to office floors until
             cleared.""",
             """Requirement 4. LT roles working only in the warehouse and receiving areas are exempt from
             Requirement 1 but not from Requirement 2. Exemptions are recorded by Occupational Health.""",
             """Questions go to occhealth@halvorsen.example. Records are uploaded through the candidate portal
             under 'Health documents'; do not email medical records to People Ops."""))
    b.say("Strictly, no: PB-HLTH-07 needs the hepatitis B record (or an OH-3 declination) and a TB screening "
          "before lab access, not before her start. Without them she could start in a non-lab capacity, badge "
          "limited to office floors. But given Elena's plan for suite 4 on 15 July, she should get them in by "
          "the 11th. Records go through the candidate portal under 'Health documents', not by email.")
    b.user("She already wrote back to the reminder: she had hep B shots as a child but has no record. Occupational "
           "Health answered in thread PO-TH-5560, can you read it?")
    c = b.call("hr_mail_thread", thread_id="PO-TH-5560")
    b.ok(c, {"thread_id": "PO-TH-5560", "messages": 2, "participants": ["Priya Raman", "Occupational Health"]},
         emails([
             ("Priya Raman <priya.raman.s@example.com>", "Fri, 27 Jun 2025 13:05", "RE: Two onboarding items",
              """Hi, thanks for the reminder. I'll upload the bank letter this weekend. For the hepatitis B record:
              I was vaccinated as a child in Chennai but I don't have the card anymore, and my last employer's
              occupational health file only shows a titer from 2019 that I can't get a copy of quickly. I did
              have a TB blood test (QuantiFERON) in March for my old job and I have that PDF. What should I do?
              Priya"""),
             ("Occupational Health <occhealth@halvorsen.example>", "Fri, 27 Jun 2025 15:40", "RE: Two onboarding items",
              """Hi Priya, no problem, this is common. The March QuantiFERON is within 12 months of your start,
              so please upload it under Health documents and it will satisfy the TB requirement. For hepatitis
              B, we can order a surface antibody titer at Quest at our expense: the requisition is attached
              (account HALV-OH-7, test code 8475). Results usually post in 2-3 business days. If the titer is
              positive, that is all we need. If it is negative, you can start the vaccine series at our clinic
              and sign an interim OH-3 so you can work in the lab while you complete it. Please get the blood
              draw done by Monday 7 July so we can clear you before your first lab day. Occupational Health""")]))
    b.say("Occupational Health has it covered: her March QuantiFERON counts for TB (she should upload it), and "
          "they'll pay for a hepatitis B titer at Quest (account HALV-OH-7, test 8475), results in 2-3 business "
          "days. A positive titer clears her; a negative one means an interim OH-3 while she starts the series. "
          "They want the blood draw by 7 July, which fits the 11 July deadline for her suite 4 badge.")
    b.user("Which orientation session do Priya and Aisha get on the 14th? Aisha is remote.")
    c = b.call("hr_policy_doc", policy_id="ORIENT-2025-07-14")
    agenda = [("08:30", "Welcome and badge photos", "Fan Pier lobby", "on-site only"),
              ("09:00", "Company overview (CEO recording)", "Room 2A / Zoom", "all"),
              ("09:45", "Benefits 101 with the Fidelis broker", "Room 2A / Zoom", "all"),
              ("10:45", "IT set-up: laptop, security keys, SSO", "Room 2B / Zoom breakout", "all"),
              ("12:00", "Lunch with buddies", "Cafeteria", "on-site only"),
              ("13:00", "Lab safety orientation (LSH rev. 14)", "Training lab T1", "lab roles"),
              ("13:00", "Remote work policy and expenses", "Zoom", "remote"),
              ("14:30", "Compliance: code of conduct, data privacy", "Room 2A / Zoom", "all"),
              ("15:30", "I-9 Section 2 review (bring original documents)", "People Ops office", "on-site only"),
              ("15:30", "Verifi booking help desk", "Zoom", "remote")]
    b.ok(c, {"policy_id": "ORIENT-2025-07-14", "title": "New hire orientation, Monday 14 July 2025",
             "zoom_link": "https://halvorsen.zoom.example/j/88213004412"},
         table(["time", "session", "where", "audience"], agenda) + "\n\n" + paragraphs(
             """On-site hires should arrive by 08:15 at the Fan Pier lobby with their original I-9 documents
             (a passport, or a driver's licence and a Social Security card). Remote hires join by Zoom from
             09:00; their laptop must be delivered and unboxed before the IT set-up session.""",
             """Hires who miss the Benefits 101 session can watch the recording, but the 30-day enrolment
             window still starts on the first day. Lab safety orientation is required before any lab access
             and is repeated on the first Monday of each month."""))
    b.say("Same day, different tracks. Priya is on site: 08:30 badge photos, the shared sessions, lab safety "
          "orientation at 13:00 and her I-9 Section 2 review at 15:30, so she should bring her original "
          "documents. Aisha joins by Zoom from 09:00 with the remote-work session at 13:00 and the Verifi "
          "booking desk at 15:30; her laptop (IT-REQ-55830) has to arrive before the 10:45 IT set-up.")
    b.user("Marcus hasn't replied yet, has he? Before I go into a meeting, tell me what's still open across all "
           "three.")
    b.decide("open-items",
             pending("APR-7731", why="the bonus approval is still open, so Aisha's offer must stay in draft"),
             constraint(hold, "finalize her offer package", why="the hold the user put on Aisha's offer"),
             fact("i9_section2", "missing", superseded=["received"], subject="hire_id=H-2291",
                  why="the vault's 'received' was a mislabelled Section 1"),
             state(tomas_kit, "succeeded", b.request_id_of(tomas_kit_res)),
             fact("start_date", "2025-07-21", superseded=["2025-07-07"], subject="hire_id=H-2304"))
    b.say("Open items: Priya still needs her direct deposit form and vaccination record (reminded today; the "
          "record is effectively due 11 July for suite 4) and the in-person I-9 Section 2 after she starts. Tomás "
          "needs his W-4 and the Section 2 on or after 21 July; his tablet is ordered. Aisha's offer is on hold "
          "pending Marcus's approval APR-7731; her equipment is ordered. No background checks yet: waiting on "
          "countersigned offers.")

    # -- Monday -----------------------------------------------------------------------------------
    b.system("Session resumed on Monday 30 June 2025, 09:05 US Eastern.")
    b.user("Morning. Anything in the People Ops inbox about our three since Friday?")
    c = b.call("hr_mail_search", query="Raman OR Ortega OR Bello since:2025-06-27")
    b.ok(c, {"query": "Raman OR Ortega OR Bello since:2025-06-27", "matches": 4},
         emails([
             ("Peoplebase <noreply@peoplebase.example>", "Sat, 28 Jun 2025 14:31",
              "Document uploaded: Priya Raman (H-2291)",
              """Priya Raman uploaded a document through the candidate portal: Direct deposit authorization
              (bank letter, 1 page). The item has been marked complete by the rules engine. No action is
              required unless the document is rejected on review."""),
             ("DocuSign <dse@docusign.example>", "Sun, 29 Jun 2025 19:02", "Completed: Offer letter - Priya Raman",
              """All parties have completed the envelope 'Halvorsen Biotech offer letter - Priya Raman'.
              Signers: Priya Raman (candidate), Elena Voss (hiring manager). The completed document has been
              filed to Peoplebase."""),
             ("DocuSign <dse@docusign.example>", "Sun, 29 Jun 2025 21:44", "Completed: Offer letter - Tomás Ortega",
              """All parties have completed the envelope 'Halvorsen Biotech offer letter - Tomás Ortega'.
              Signers: Tomás Ortega (candidate), Kwame Asante (hiring manager). The completed document has been
              filed to Peoplebase."""),
             ("Tomás Ortega <tomas.ortega.mail@example.com>", "Mon, 30 Jun 2025 07:12", "W-4 question",
              """Hi, I'm filling in the W-4 but I live in Nashua NH and will work in Boston. Do I need a
              Massachusetts form as well, or a New Hampshire one? NH has no income tax as far as I know.
              Thanks, Tomás"""),
             ("Aisha Bello <aisha.bello.pdx@example.com>", "Mon, 30 Jun 2025 08:20", "Equipment delivery",
              """Hello! I got an email from IT that my laptop and monitors are on order. I'm travelling 9-11 July
              for a wedding; is there any way the delivery can be on the 7th or 8th, or held at a FedEx location?
              Someone needs to sign for it, I understand. Thanks, Aisha""")]))
    b.say("Priya uploaded her direct deposit letter on Saturday; both Priya's and Tomás's offer letters show "
          "as completed in DocuSign (signed by them and their managers on Sunday); Tomás asked whether he needs "
          "a Massachusetts withholding form since he lives in New Hampshire; and Aisha asked whether her "
          "equipment can arrive on 7 or 8 July or be held at a FedEx location, since she's away 9-11 July and "
          "someone has to sign. Nothing from Marcus.")
    b.user("Check Priya's status to be sure the upload counted.")
    priya.update(direct_deposit="complete")
    doc_status("H-2291", priya, "CNS-40917")
    b.say("Confirmed: her direct deposit is complete now. Still missing: the vaccination record, and the Section "
          "2 after her start.")
    b.user("When is the July payroll cut-off again? I want to tell Tomás how long he has for the tax forms.")
    c = b.call("hr_policy_doc", policy_id="PAYCAL-2025-H2")
    cal = [("2025-07-09", "2025-07-15", "semi-monthly 1-15 Jul"), ("2025-07-23", "2025-08-01", "semi-monthly 16-31 Jul"),
           ("2025-08-08", "2025-08-15", "semi-monthly 1-15 Aug"), ("2025-08-22", "2025-09-01", "semi-monthly 16-31 Aug"),
           ("2025-09-09", "2025-09-15", "semi-monthly 1-15 Sep"), ("2025-09-23", "2025-10-01", "semi-monthly 16-30 Sep"),
           ("2025-10-09", "2025-10-15", "semi-monthly 1-15 Oct"), ("2025-10-23", "2025-11-03", "semi-monthly 16-31 Oct")]
    b.ok(c, {"policy_id": "PAYCAL-2025-H2", "title": "US payroll calendar, second half of 2025"},
         table(["cut-off", "pay date", "period"], cal) + "\n\n" + paragraphs(
             """Cut-off is 17:00 US Eastern on the date shown. New hires whose start date falls in a period are
             paid for it on its pay date if their W-4, state form and direct deposit are complete by the
             cut-off; otherwise they are paid by paper check, mailed to the home address on file, and tax is
             withheld at the default rate until the forms are filed.""",
             """Off-cycle runs are possible for payroll errors only and need the Payroll manager's approval.
             Sign-on bonuses are paid with the first regular paycheck after the offer's start date."""))
    b.say("With his start on 21 July, Tomás's first period is 16-31 July: cut-off 23 July at 17:00 Eastern, pay "
          "date 1 August. If his W-4 and M-4 aren't in by then he'd get a paper check with default withholding.")
    b.user("Good. I checked the DocuSign envelopes myself: offer letters for Priya and Tomás are countersigned, so "
           "go ahead with their background checks.")
    b.decide("order-checks",
             next_call("bg_order_check", hire_id="H-2291", package="lab-plus-7yr", consent_id="CNS-40917",
                       why="package from the RA-3 checklist, consent id from Priya's document status"),
             next_call("bg_order_check", hire_id="H-2304", package="standard-5yr", consent_id="CNS-41022",
                       why="package from the LT-1 checklist, consent id from Tomás's document status"),
             constraint(goal, "until I tell you the offer letter is countersigned",
                        why="the condition the user set for ordering checks, now met"),
             pending("APR-7731", why="Aisha is not part of this: her approval is still open"))
    bg = []
    for hire_id, package, consent, ref in [("H-2291", "lab-plus-7yr", "CNS-40917", "BGX-771204"),
                                           ("H-2304", "standard-5yr", "CNS-41022", "BGX-771205")]:
        c = b.call("bg_order_check", hire_id=hire_id, package=package, consent_id=consent)
        fee = "118.00" if package == "lab-plus-7yr" else "64.00"
        r = b.ok(c, {"hire_id": hire_id, "order_id": ref, "package": package, "fee": fee,
                     "expected_completion": "2025-07-07" if package == "lab-plus-7yr" else "2025-07-03"},
                 paragraphs(f"Clearpath order {ref} accepted for {hires[hire_id]['name']} ({package}).",
                            """The candidate has been emailed a notice of the order and a link to the summary of
                            rights under the Fair Credit Reporting Act. County criminal searches start within
                            one business day; once a search has started, the order cannot be cancelled and is
                            billed in full to account HALV-0042.""",
                            """Turnaround depends on court availability. Education and employment verifications
                            (where the package includes them) are attempted three times before being reported
                            as unable to verify.""")
                 + "\n\nPackage components:\n" + table(["component", "scope", "typical days"],
                                                         BG_COMPONENTS[package]))
        bg.append((c, r))
    b.say("Both checks are ordered with Clearpath: BGX-771204 for Priya (lab-plus-7yr) and BGX-771205 for Tomás "
          "(standard-5yr). Both candidates have been notified. Nothing ordered for Aisha.")
    b.user("Thanks. What will those cost us, and when should results come in?")
    b.decide("check-costs",
             state(bg[0][0], "succeeded", b.request_id_of(bg[0][1])),
             state(bg[1][0], "succeeded", b.request_id_of(bg[1][1])),
             evidence(bg[0][0].seq, bg[0][1], bg[1][0].seq, bg[1][1],
                      why="irreversible orders, billed and not cancellable, with no subtask end yet"),
             fact("fee", "118.00", subject="hire_id=H-2291"),
             fact("expected_completion", "2025-07-03", subject="hire_id=H-2304"),
             pending("APR-7731"))
    b.say("Priya's lab-plus-7yr check is 118.00, expected by 7 July; Tomás's standard-5yr is 64.00, expected by "
          "3 July. Both are billed to HALV-0042 and can't be cancelled now that they're submitted.")
    b.subtask_end("Background checks ordered for H-2291 and H-2304; Aisha (H-2310) waits on APR-7731.")
    b.user("Anything back from Clearpath yet? They sometimes need extra forms.")
    c = b.call("hr_mail_search", query="from:clearpath since:2025-06-30")
    b.ok(c, {"query": "from:clearpath since:2025-06-30", "matches": 2},
         emails([
             ("Clearpath Screening <orders@clearpath.example>", "Mon, 30 Jun 2025 11:58",
              "Action needed: BGX-771204 (Priya Raman) - employment verification release",
              """Order BGX-771204 includes verification of employment at Corvane Therapeutics (2019-2025).
              Corvane uses a third-party verifier that requires a signed release specific to them (form
              CV-REL-2). We have emailed the candidate a link to sign it. The rest of the order continues; the
              employment verification is paused until the release is signed, and will be reported as unable to
              verify after 10 business days without it. Questions: support@clearpath.example, reference
              BGX-771204."""),
             ("Clearpath Screening <orders@clearpath.example>", "Mon, 30 Jun 2025 12:03",
              "In progress: BGX-771205 (Tomás Ortega)",
              """Order BGX-771205 is in progress. County searches have been requested in Hillsborough County,
              NH and Suffolk County, MA. The motor vehicle record check is complete with no findings. The
              estimated completion date is unchanged.""")]))
    b.say("Two notices: Tomás's check is in progress with no issues so far (his driving record is clean). "
          "Priya's needs one thing from her: Corvane Therapeutics' verifier wants its own release form "
          "(CV-REL-2), which Clearpath has emailed her; until she signs it, the employment verification is "
          "paused, and after 10 business days it would be reported as unable to verify.")
    b.user("Can you answer Tomás's W-4 question? What's our rule for people living in NH?")
    c = b.call("hr_policy_doc", policy_id="PB-PAY-04")
    b.ok(c, {"policy_id": "PB-PAY-04", "title": "Multi-state withholding", "revision": "5"},
         paragraphs(
             """PB-PAY-04, revision 5. Payroll withholds state income tax for the state where the work is
             performed. An employee who lives in one state and works in another generally has tax withheld for
             the work state; the home state may tax the same income and give a credit, which is the employee's
             matter.""",
             """Massachusetts: employees performing services in Massachusetts complete Form M-4 in addition to
             the federal W-4, regardless of where they live. New Hampshire has no tax on wages and no
             withholding form.""",
             """Hybrid and remote days: an employee who works some days from home in another state must record
             them in the time system; withholding follows the days worked in each state. Massachusetts
             applies its own convenience rules to days worked from home for a Massachusetts employer; Payroll
             reviews these each quarter.""",
             """Forms are completed in the candidate portal before the first payroll cut-off. A missing state
             form means withholding at the single rate with no exemptions until it is filed."""))
    b.say("Per PB-PAY-04 he needs the Massachusetts M-4 along with the federal W-4, because he works in Boston; "
          "New Hampshire has no wage tax and no form. Both go through the candidate portal before the first "
          "payroll cut-off. Want me to send him that answer?")
    b.user("Not yet, I'll call him myself this afternoon. Oh, and Marcus just approved Aisha's bonus by email: he "
           "says 12,000 is fine since she's coming from a competitor.")
    b.approval("APR-7731", "granted", hold, {"hire_id": "H-2310", "sign_on_bonus": "12000.00", "cap": "10000.00"},
               "Marcus Lee approved the 12,000.00 sign-on bonus for Aisha Bello above the DE-2 cap.",
               granted_by="Marcus Lee (VP People)")
    b.say("Recorded: APR-7731 is granted by Marcus Lee. Shall I finalize Aisha's offer package now?")
    b.user("Yes, finalize it and note the approval on her file.")
    b.decide("finalize-aisha",
             next_call("hr_finalize_offer", hire_id="H-2310", sign_on_bonus="12000.00", approval_id="APR-7731"),
             fact("sign_on_cap", "10000.00", subject="role_code=DE-2"),
             fact("start_date", "2025-07-21", superseded=["2025-07-07"], subject="hire_id=H-2304"))
    c = b.call("hr_finalize_offer", hire_id="H-2310", sign_on_bonus="12000.00", approval_id="APR-7731")
    b.ok(c, {"hire_id": "H-2310", "offer_status": "final", "envelope_id": "DS-8F21C0"},
         "Finalization log:\n" + timeline(Clock(b.rng, datetime(2025, 6, 30, 14, 2)), [
             "offer.validate comp_band_check=exception approval=APR-7731 (VP People) result=pass",
             "offer.render template=OFFER-US-EXEMPT-2025 recruiting notes stripped",
             "docusign.envelope.created DS-8F21C0 signers=[candidate, hiring manager]",
             "docusign.envelope.sent to aisha.bello (personal email on file)",
             "verifi.request queued (sent when the envelope is completed)",
             "bg.package standard-7yr staged (ordered only on user instruction)",
             "payroll.one_time_payment staged: sign_on 12000.00 with first regular paycheck",
             "notification.sent to hiring manager Ruth Nakamura: offer finalized"], 5, 60))
    c = b.call("hr_add_note", hire_id="H-2310", text="Sign-on 12,000.00 above DE-2 cap approved by Marcus Lee "
               "(APR-7731), 30 June 2025.")
    b.ok(c, {"hire_id": "H-2310", "note_id": "NOTE-20466"})
    b.say("Aisha's offer is final and out for signature (envelope DS-8F21C0), with the approval noted on her file. "
          "Once she signs, Peoplebase will send her the Verifi booking link for the remote Section 2.")
    b.user("Tomás emailed again asking for the tax answer in writing. Send it to him with a reminder for the "
           "forms, please.")
    c = b.call("hr_send_reminder", hire_id="H-2304", items=["w4", "m4"], channel="email")
    b.ok(c, {"hire_id": "H-2304", "reminder_id": "RMD-61802", "sent_at": "2025-06-30T15:12:00-04:00"},
         emails([("People Ops <people@halvorsen.example>", "Mon, 30 Jun 2025 15:12",
                  "Your tax forms before your start on 21 July",
                  """Hi Tomás, thanks for your question. Because you will work in Boston, Massachusetts income tax
                  is withheld from your pay even though you live in New Hampshire, so please complete both the
                  federal W-4 and the Massachusetts Form M-4 in the candidate portal. New Hampshire has no tax on
                  wages and no withholding form. Your first pay period is 16-31 July; to be paid by direct
                  deposit with the right withholding, please submit both forms before the payroll cut-off on
                  Wednesday 23 July at 17:00 Eastern. Any questions about your own tax situation are best taken
                  to a tax adviser. Best regards, People Ops, Halvorsen Biotech""")]))
    b.say("Sent as RMD-61802: W-4 plus Massachusetts M-4, no New Hampshire form, due by the 23 July cut-off.")
    b.user("Last thing: did Clearpath finish Tomás's check? It said the 3rd but they're sometimes early.")
    c = b.call("hr_mail_search", query="from:clearpath BGX-771205")
    b.ok(c, {"query": "from:clearpath BGX-771205", "matches": 1},
         emails([("Clearpath Screening <orders@clearpath.example>", "Mon, 30 Jun 2025 12:03",
                  "In progress: BGX-771205 (Tomás Ortega)",
                  """Order BGX-771205 is in progress. County searches have been requested in Hillsborough
                  County, NH and Suffolk County, MA. The motor vehicle record check is complete with no
                  findings. The estimated completion date is unchanged.""")])
         + "\n\nNo newer messages match. Clearpath posts completion notices to this mailbox and to the "
           "Peoplebase hire record at the same time.")
    b.subtask_end("Aisha's offer finalized with the approved bonus; Tomás's tax forms requested; checks in "
                  "progress.", task_done=True)
    b.say("Not yet: the only message is Monday's in-progress notice (county searches requested in NH and MA, "
          "clean driving record), still estimating 3 July. I'll see the completion notice here and on his "
          "Peoplebase record when it lands.")
    return b


# ----------------------------------------------------------------------------------------------
# 02 Insurance claim: burst pipe, adjuster callbacks, a mitigation advance that crashed mid-call
# ----------------------------------------------------------------------------------------------

NM_CLAIM = "NM-CL-25-118734"
NM_POLICY = "HO3-4471902"


def nm_policy_text() -> str:
    coverages = [("A", "Dwelling", "412,000.00"), ("B", "Other structures", "41,200.00"),
                 ("C", "Personal property", "206,000.00"), ("D", "Loss of use (ALE)", "82,400.00"),
                 ("E", "Personal liability", "300,000.00"), ("F", "Medical payments", "5,000.00")]
    return ("Declarations page, homeowners policy HO3-4471902 (form HO 00 03 05 11 with Northgate endorsements)\n"
            "Named insured: Graham Okafor and Ngozi Okafor. Residence premises: 27 Lowell Street, Andover, MA 01810.\n"
            "Policy period: 2025-03-01 to 2026-03-01, 12:01 a.m. standard time.\n"
            + table(["coverage", "description", "limit"], coverages) + "\n\n" + paragraphs(
                """Deductibles. All perils deductible: 1,000.00 per occurrence. Endorsement NM-WD-22 (water damage
                deductible): losses caused by the discharge or overflow of water or steam from within a plumbing,
                heating, air conditioning or automatic fire protective sprinkler system, or from within a household
                appliance, are subject to a deductible of 2,500.00 per occurrence instead of the all perils
                deductible.""",
                """Endorsement NM-MIT-05 (emergency mitigation): reasonable costs of emergency services to prevent
                further damage, including water extraction and drying, are paid as part of Coverage A and do not
                require prior approval up to 5,000.00 when performed by a Northgate network vendor. Advance
                payments to vendors above 2,500.00 require approval of the claim desk supervisor.""",
                """Section I Conditions, Duties After Loss: give prompt notice; protect the property from further
                damage; keep an accurate record of repair expenses; prepare an inventory of damaged personal
                property; as often as reasonably required, show the damaged property and submit to inspection.""",
                """Exclusions relevant to water: we do not cover loss caused by continuous or repeated seepage or
                leakage of water over a period of 14 or more days, nor by wear and tear, deterioration, mould
                (except as provided by endorsement NM-MLD-10 up to 10,000.00), or by water below the surface of
                the ground.""",
                """Loss of use: if a loss covered under Section I makes the residence premises not fit to live in,
                we cover additional living expenses, meaning any necessary increase in living expenses incurred
                so that your household can maintain its normal standard of living, for the shortest time
                required to repair or replace the damage.""")
            + "\n\nForms and endorsements: HO 00 03 05 11, NM-WD-22 (water damage deductible), NM-MIT-05 (emergency "
              "mitigation), NM-MLD-10 (mould, 10,000.00), NM-SBU-5 (sewer backup, 5,000.00), NM-ID-1 (identity "
              "fraud expense), NM-RCC (replacement cost on contents), NM-OL-10 (ordinance or law, 10%).\n"
              "Mortgagee: Merrimack Valley Federal Credit Union, loan 88-2290417, ISAOA/ATIMA. Loss history at "
              "premises: none reported in the last 10 years. Protective devices: monitored smoke alarms, Nest "
              "leak sensors (2), deadbolts.\n"
            + table(["premium item", "annual"], [("Base premium", "1,812.00"), ("Water damage deductible credit", "-96.00"),
                                                 ("Protective devices credit (leak sensors)", "-54.00"),
                                                 ("Replacement cost contents", "118.00"), ("Sewer backup 5,000.00", "64.00"),
                                                 ("Total annual premium", "1,844.00")]))


def nm_callback_log(b: Builder, entries: Sequence[str]) -> str:
    clock = Clock(b.rng, datetime(2025, 9, 15, 8, 2))
    noise = ["system: claim viewed by desk analyst", "system: reserve review queued",
             "system: SLA timer 'first contact within 24h' met", "system: document index refreshed",
             "system: fraud score computed, band LOW", "system: coverage verification passed",
             "system: weather data attached: no storm events at risk address 2025-09-12..2025-09-15"]
    lines = []
    for e in entries:
        lines.append(f"{clock.tick(1200, 14000)}  {e}")
        for _ in range(b.rng.randint(2, 3)):
            lines.append(f"{clock.tick(30, 900)}  {pick(b.rng, noise)}")
    return "Claim activity log " + NM_CLAIM + " (oldest first):\n" + "\n".join(lines)


NM_ACTORS = ["claims-api", "desk analyst J. Whitford", "adjuster R. Caldwell", "assistant", "workflow-engine",
             "payments-svc", "document-svc"]


NM_EVENTS = ["record.locked for update", "record.unlocked", "rule.evaluated COV-A-WATER result=pass",
             "rule.evaluated DUP-CLAIM-CHECK result=no-match", "notification.queued channel=email to insured",
             "notification.delivered channel=sms", "task.updated 'Contact insured within 24h'",
             "index.refreshed document-store", "reserve.recomputed no change", "sla.evaluated on-track",
             "webhook.sent vendor-portal status=200", "cache.invalidated claim-summary"]


def nm_audit(b: Builder, start: datetime, head: str, target: int) -> str:
    return audit_trail(b.rng, start, NM_ACTORS, NM_EVENTS, target, head)


def nm_moisture_report(b: Builder, day: int, base: float) -> str:
    rooms = [("Kitchen ceiling", "drywall"), ("Kitchen north wall", "drywall"), ("Upstairs bath subfloor", "plywood"),
             ("Upstairs bath vanity base", "MDF"), ("Dining room ceiling edge", "plaster"), ("Kitchen cabinets (upper)", "wood")]
    rows = []
    for room, material in rooms:
        for point in range(1, 4):
            reading = max(8.0, base - day * b.rng.uniform(6, 11) + b.rng.uniform(-4, 4))
            goal = 12 if material != "plaster" else 10
            rows.append((room, f"P{point}", material, f"{reading:.1f}%", f"{goal}%", "dry" if reading <= goal else "wet"))
    atmos = [(f"{h:02d}:00", f"{b.rng.uniform(68, 74):.1f}F", f"{b.rng.uniform(30, 48):.0f}%",
              f"{b.rng.uniform(40, 62):.0f} gpp", f"{b.rng.uniform(18, 30):.0f} gpp") for h in (8, 12, 16, 20)]
    return (f"DryFast Restoration drying log, day {day}\n"
            + table(["area", "point", "material", "MC", "goal", "state"], rows)
            + "\nAtmospheric readings (affected area / dehumidifier outlet):\n"
            + table(["time", "temp", "RH", "GPP affected", "GPP outlet"], atmos)
            + f"\nEquipment on site: {b.rng.randint(3, 5)} dehumidifiers (LGR 2800i), {b.rng.randint(6, 9)} air movers, "
              "1 injectidry panel on the kitchen ceiling. Ambient 71F / 38% RH. Technician: L. Moreau.")


def nm_estimate(b: Builder) -> tuple[str, str]:
    """DryFast's mitigation estimate: (total, text)."""
    lines = [("WTR EXTR", "Water extraction from floor - Cat 1", "SF", 180, 0.92), ("WTR DHM", "Dehumidifier (per 24h) - XLarge", "EA", 20, 75.00),
             ("WTR DRY", "Air mover (per 24h)", "EA", 40, 30.50), ("WTR IDRY", "Injectidry ceiling system (per 24h)", "DA", 5, 95.00),
             ("WTR MON", "Monitor equipment and take readings", "HR", 6, 58.40), ("DRY CEIL", "Tear out wet drywall, ceiling, bag", "SF", 96, 2.31),
             ("INS BATT", "Tear out wet insulation, bag", "SF", 96, 0.88), ("CAB UPR", "Detach and reset upper cabinets", "LF", 12, 48.75),
             ("CAB LWR", "Remove toe kick for drying", "LF", 14, 6.20), ("FLR VNL", "Lift vinyl plank for drying", "SF", 60, 1.95),
             ("WTR AMS", "Apply antimicrobial agent", "SF", 420, 0.31), ("CNT MOV", "Contents - move out and reset", "HR", 4, 52.00),
             ("WTR HEPA", "HEPA vacuuming - detailed", "SF", 250, 0.84), ("WTR EMR", "Emergency service call - after hours", "EA", 1, 196.00),
             ("PPE", "Personal protective equipment", "EA", 6, 21.50), ("DMO HAUL", "Haul debris - pickup truck load", "EA", 1, 185.00),
             ("WTR PERM", "Moisture mapping and documentation", "EA", 1, 126.00), ("ELC DET", "Detach and reset light fixture", "EA", 1, 64.30),
             ("WTR BLK", "Equipment decontamination", "EA", 7, 23.75), ("FLR PROT", "Floor protection - plastic and tape", "SF", 300, 0.41)]
    rows, total = [], 0.0
    for code, desc, unit, qty, price in lines:
        amount = round(qty * price, 2)
        total += amount
        rows.append((code, desc, unit, qty, f"{price:.2f}", f"{amount:.2f}"))
    tax = round(total * 0.0625 * 0.35, 2)
    return (f"{total + tax:.2f}", "DryFast Restoration of Andover - mitigation estimate DF-25-3318 (price list XM-2025-Q3)\n"
            + table(["code", "description", "unit", "qty", "unit price", "amount"], rows)
            + f"\nLine item total {total:.2f}; materials tax {tax:.2f}; overhead and profit not applied to "
              "emergency services.\nNote: quantities for equipment days assume 5 days of drying; actual days will be "
              "billed per the drying log.")


def money(amount: str | float) -> str:
    return f"{float(amount):,.2f}"


def nm_repair_estimate(b: Builder) -> tuple[dict[str, str], str]:
    """The adjuster's repair estimate: (totals, text)."""
    lines = [("Kitchen", "Drywall 1/2in - hang, tape, finish (ceiling)", "SF", 96, 3.86, 0),
             ("Kitchen", "Insulation - batt R-30", "SF", 96, 1.42, 0), ("Kitchen", "Paint ceiling - 2 coats", "SF", 220, 1.12, 0),
             ("Kitchen", "Drywall - patch wall to 4ft", "SF", 64, 3.55, 0), ("Kitchen", "Paint walls - 2 coats", "SF", 410, 0.98, 0),
             ("Kitchen", "Upper cabinets - standard grade", "LF", 12, 286.00, 18), ("Kitchen", "Cabinet crown and light rail", "LF", 12, 14.70, 18),
             ("Kitchen", "Vinyl plank flooring - high grade", "SF", 240, 6.35, 22), ("Kitchen", "Quarter round and shoe", "LF", 62, 2.85, 22),
             ("Kitchen", "Light fixture - detach and reset", "EA", 1, 64.30, 0), ("Kitchen", "Final cleaning - construction", "SF", 240, 0.41, 0),
             ("Bath (up)", "Vanity base 30in - standard", "EA", 1, 612.00, 25), ("Bath (up)", "Vanity top - reset", "EA", 1, 118.00, 0),
             ("Bath (up)", "Plumbing - detach and reset sink and faucet", "EA", 1, 186.00, 0),
             ("Bath (up)", "Subfloor - seal stained area", "SF", 16, 1.05, 0), ("General", "Floor protection", "SF", 300, 0.41, 0),
             ("General", "Dumpster - 10 yard", "EA", 1, 485.00, 0), ("General", "Contents - pack out and reset", "HR", 6, 52.00, 0),
             ("General", "Residential supervision", "HR", 12, 64.00, 0)]
    rows, rcv, dep = [], 0.0, 0.0
    for room, desc, unit, qty, price, pct in lines:
        amount = qty * price
        d = amount * pct / 100
        rcv, dep = rcv + amount, dep + d
        rows.append((room, desc, unit, qty, f"{price:.2f}", f"{amount:.2f}", f"{d:.2f}"))
    rcv_total, dep_total = rcv * 1.2, dep * 1.2  # overhead and profit 10% + 10%
    totals = {"rcv_total": f"{rcv_total:.2f}", "depreciation": f"{dep_total:.2f}",
              "acv_total": f"{rcv_total - dep_total:.2f}", "first_payment": f"{rcv_total - dep_total - 2500:.2f}"}
    return totals, ("Adjuster estimate EST-40913-1 (price list XM-2025-Q3)\n"
                    + table(["room", "item", "unit", "qty", "unit price", "RCV", "depreciation"], rows)
                    + f"\nLine items {rcv:.2f}, depreciation {dep:.2f}, before overhead and profit (10% + 10%).\n"
                      f"Summary: RCV {money(rcv_total)}; recoverable depreciation {money(dep_total)}; ACV "
                      f"{money(rcv_total - dep_total)}; less deductible 2,500.00 (NM-WD-22); net ACV payment "
                      f"{money(rcv_total - dep_total - 2500)}. Recoverable depreciation is paid on proof of completed "
                      "repairs within 180 days.")


def traj_insurance_claim() -> Builder:
    b = Builder(
        "home-water-claim", "Home insurance claim: burst pipe, adjuster callbacks, a crashed advance payment",
        ["an early standing authorization (reschedule within rules) used much later, after long logs",
         "a user correction of the date of loss supersedes the value the claim was opened with",
         "a model inference about the deductible must not override the tool-confirmed one",
         "a supervisor approval pending, then granted, scoping an advance payment",
         "a crash in the middle of an irreversible payment: recover, then a status query reconciles it",
         "claim, vendor, payee and slot ids needed long after the tool results that gave them"],
        "A policyholder works with Northgate Mutual's claims assistant over several days: opening a water "
        "damage claim, arranging mitigation, handling the adjuster's reschedule and a vendor advance.",
        [("nm_policy_lookup", "read", ["policy_no"]), ("nm_claim_open", "write", ["policy_no"]),
         ("nm_claim_get", "read", ["claim_no"]), ("nm_claim_update", "write", ["claim_no"]),
         ("nm_claim_notes", "read", ["claim_no"]), ("nm_guidance", "read", ["topic"]),
         ("nm_vendor_search", "read", ["zip"]), ("nm_vendor_assign", "write", ["claim_no"]),
         ("nm_vendor_report", "read", ["job_no"]), ("nm_media_upload", "write", ["claim_no"]),
         ("nm_inspection_slots", "read", ["claim_no"]), ("nm_inspection_book", "write", ["claim_no"]),
         ("nm_pay_advance", "irreversible", ["claim_no"]), ("nm_payment_lookup", "read", ["claim_no"]),
         ("nm_message_adjuster", "write", ["claim_no"]), ("nm_contents_add", "write", ["claim_no"])],
        seed=202)
    b.system("You are Northgate Mutual's claims assistant, helping a policyholder through tools connected to "
             "the claims system. Today is Monday 15 September 2025, 07:40 US Eastern.")
    goal = b.user(
        "Hi. A pipe burst upstairs in our house and water came through the kitchen ceiling. Policy HO3-4471902, "
        "I'm Graham Okafor. One thing up front because I work nights: if the adjuster needs to set or move the "
        "inspection, you can accept any weekday slot starting at 10 am or later without asking me. Never "
        "weekends, my kids are home.")
    standing = b.approval("AUTH-GO-01", "granted", goal,
                          {"policy_no": NM_POLICY, "action": "accept or move the inspection appointment",
                           "condition": "weekday, starting at 10:00 or later; never weekends"},
                          "Standing authorization from the policyholder: accept any weekday inspection slot "
                          "starting at 10:00 or later without asking; never weekends.",
                          granted_by="Graham Okafor (named insured)")
    b.say("I'm sorry, Graham, that's stressful. I've noted your standing instruction for inspection slots. Let me "
          "pull your policy first.")
    c = b.call("nm_policy_lookup", policy_no=NM_POLICY)
    b.ok(c, {"policy_no": NM_POLICY, "status": "in force", "all_perils_deductible": "1000.00",
             "water_damage_deductible": "2500.00", "mitigation_preapproved_limit": "5000.00",
             "advance_supervisor_threshold": "2500.00", "zip": "01810"}, nm_policy_text())
    b.say("Your policy is in force. Sudden water discharge from plumbing is covered under Coverage A, but an "
          "endorsement sets a 2,500.00 water damage deductible for this kind of loss (your general deductible is "
          "1,000.00). Emergency drying by a Northgate network vendor is pre-approved up to 5,000.00.")
    b.user("Please open the claim. It happened Sunday morning, the 14th. The pipe under the upstairs bathroom sink "
           "let go, and the kitchen ceiling is soaked and sagging.")
    opened = b.call("nm_claim_open", policy_no=NM_POLICY, date_of_loss="2025-09-14",
                    cause="water - sudden discharge from plumbing",
                    description="Supply line under upstairs bathroom vanity failed; water through kitchen ceiling.")
    b.ok(opened, {"claim_no": NM_CLAIM, "date_of_loss": "2025-09-14", "adjuster": "Renée Caldwell",
                  "adjuster_phone": "978-555-0142", "desk": "Northeast Property Desk 3"},
         paragraphs(f"First notice of loss recorded as {NM_CLAIM}.",
                    """Loss type: water, sudden and accidental discharge from plumbing. Areas reported: upstairs
                    bathroom, kitchen ceiling. Emergency: active dripping, ceiling sagging. Occupancy: insured's
                    household of four remains in the home.""",
                    """Assignment: field adjuster Renée Caldwell (license MA-PA-88231), Northeast Property Desk 3.
                    The adjuster will contact the insured within one business day to schedule an inspection.
                    Desk supervisor: Marta Lindqvist.""",
                    """Reminders sent to the insured: turn off the water supply to the failed fixture; do not enter
                    rooms with a sagging ceiling; photograph the damage before cleanup; keep damaged materials
                    until the adjuster has seen them or says they can be discarded; keep all receipts.""")
         + "\n\nIntake answers recorded:\n" + "\n".join(f"Q: {q}\nA: {a}" for q, a in [
             ("Is anyone injured?", "No."), ("Is the water source stopped?", "Yes, fixture valve closed."),
             ("Which rooms are affected?", "Upstairs bathroom; kitchen below (ceiling, wall, cabinets, floor)."),
             ("Is electricity affected?", "Kitchen light fixture dripping; insured advised to switch off circuit."),
             ("Has anyone been hired to make repairs?", "Not yet."),
             ("Any prior water claims at this address?", "None in the last 10 years."),
             ("Is the home a rental or vacant?", "Owner-occupied, household of four."),
             ("How was the loss discovered?", "Insured found water on the kitchen floor in the morning.")])
         + "\n\n" + nm_audit(b, datetime(2025, 9, 15, 7, 44), "Audit trail:", 330))
    b.say(f"Claim {NM_CLAIM} is open. Your adjuster is Renée Caldwell (978-555-0142); she should call within one "
          "business day to schedule the inspection. Please keep out from under that sagging ceiling.")
    b.user("What should I do right now? Water's shut off but it's still dripping through.")
    c = b.call("nm_guidance", topic="water-mitigation")
    b.ok(c, {"topic": "water-mitigation", "revision": "2025-04"},
         paragraphs(
             """First 24 hours. Shut off water at the fixture valve or the main. Turn off electricity to affected
             rooms at the breaker if water is near outlets, fixtures or the panel. Do not use a household vacuum
             to remove water.""",
             """Sagging ceilings. A ceiling bulging with water can collapse without warning. Keep people and pets
             out of the room. If it is safe, a trained technician may puncture the low point to drain the water
             into a container; do not do this yourself if the bulge is larger than a dinner plate.""",
             """Drying. Drywall, insulation and subfloor hold water for days. Professional drying with
             dehumidifiers and air movers typically takes 3 to 5 days and must be documented with daily
             moisture readings so the adjuster can confirm what can be dried in place and what must be replaced.
             Mould can start growing after 48 to 72 hours.""",
             """Documentation. Photograph every affected area before and after mitigation, including close-ups of
             the failed part. Keep the failed part. Record the time you discovered the leak and, if a smart water
             sensor or a camera recorded it, save that record.""",
             """Network vendors. Northgate network vendors bill Northgate directly for emergency services within
             the policy's pre-approved limit, so you do not pay out of pocket. You may use a vendor outside the
             network, but you will be reimbursed only for reasonable costs and may need to pay first."""))
    b.say("Keep everyone out of the kitchen, and turn off the kitchen circuits at the breaker if water is near the "
          "lights or outlets. Don't puncture the ceiling yourself; a drying technician can drain it safely. Save the "
          "failed supply line and take photos before anything is cleaned up. A network drying company can bill us "
          "directly, so you won't pay out of pocket. Want me to find one near you?")
    b.user("Yes please, someone who can come today.")
    c = b.call("nm_vendor_search", zip="01810", service="water mitigation")
    vendors = [("V-55120", "DryFast Restoration of Andover", "2.1 mi", "today 10:00-12:00", "4.8 (312)", "network"),
               ("V-40871", "Merrimack Valley Water Pros", "6.4 mi", "today 14:00-16:00", "4.5 (188)", "network"),
               ("V-61233", "ServiceMaster Lowell", "9.0 mi", "tomorrow 08:00-10:00", "4.3 (901)", "network"),
               ("V-38002", "North Shore Dry-Out", "14.7 mi", "today 16:00-18:00", "4.6 (96)", "network"),
               ("V-70415", "Andover Home Services", "1.2 mi", "Wed 09:00", "4.1 (44)", "out of network")]
    b.ok(c, {"zip": "01810", "vendor_count": 5, "earliest_vendor_id": "V-55120"},
         "Water mitigation vendors near 01810\n"
         + table(["vendor_id", "name", "distance", "earliest arrival", "rating", "network"], vendors) + "\n\n"
         + paragraphs("""Network vendors are IICRC-certified, carry 2,000,000.00 liability insurance and agree to
                      Northgate's price list (Xactimate, current quarter). Their invoices go to the claim directly.
                      Out-of-network vendors are reimbursed at reasonable cost after review.""",
                      """Arrival windows are the vendors' own estimates and are updated every 15 minutes.""")
         + "\n\nVendor details:\n" + "\n".join(
             f"{v[0]} {v[1]}: IICRC WRT/ASD certified technicians {b.rng.randint(4, 30)}, trucks {b.rng.randint(2, 12)}, "
             f"average response {b.rng.randint(40, 180)} min, Northgate jobs last 12 months {b.rng.randint(10, 400)}, "
             f"re-inspection pass rate {b.rng.randint(88, 99)}%, languages: {pick(b.rng, ['EN', 'EN/ES', 'EN/PT', 'EN/FR'])}"
             for v in vendors))
    b.say("Closest and earliest is DryFast Restoration of Andover (V-55120), 2.1 miles away, arriving today "
          "10:00-12:00, rated 4.8. Merrimack Valley Water Pros could come at 14:00. Both are in network.")
    b.user("DryFast, their reviews are great. Book them.")
    c = b.call("nm_vendor_assign", claim_no=NM_CLAIM, vendor_id="V-55120", service="water mitigation")
    b.ok(c, {"claim_no": NM_CLAIM, "vendor_id": "V-55120", "job_no": "DF-25-3318", "arrival_window": "10:00-12:00"},
         "Assignment sent to DryFast Restoration of Andover.\n" + timeline(Clock(b.rng, datetime(2025, 9, 15, 7, 52)), [
             "dispatch.request created job=DF-25-3318 priority=emergency",
             "vendor.accepted by dispatcher K. Brennan",
             "vendor.crew assigned: L. Moreau (lead), T. Gaines",
             "vendor.eta 10:35 (window 10:00-12:00)",
             "insured.notified by SMS: crew and arrival window",
             "billing.mode direct-to-claim, price list XM-2025-Q3"], 10, 300)
         + "\n\n" + nm_audit(b, datetime(2025, 9, 15, 8, 5), "Audit trail:", 260))
    b.say("Booked: DryFast job DF-25-3318, crew lead L. Moreau, arriving between 10:00 and 12:00 (current ETA "
          "10:35). They'll bill the claim directly.")
    b.user("I took a dozen photos before they arrive. Can I send them to the claim?")
    photos = [f"IMG_{4410 + i}.HEIC" for i in range(12)]
    c = b.call("nm_media_upload", claim_no=NM_CLAIM, files=photos)
    media_rows = [(f"MD-{88120 + i}", name, f"2025-09-14 {6 + i // 6:02d}:{(i * 7) % 60:02d}",
                   pick(b.rng, ["kitchen ceiling", "kitchen floor", "upstairs vanity", "supply line", "hallway"]),
                   f"{b.rng.randint(1800, 4200)} KB") for i, name in enumerate(photos)]
    b.ok(c, {"claim_no": NM_CLAIM, "uploaded": 12, "rejected": 0},
         table(["media_id", "file", "taken (EXIF)", "auto-tag", "size"], media_rows)
         + "\n\nAuto-captions (image model, for search only):\n" + "\n".join(
             f"MD-{88120 + i}: " + pick(b.rng, [
                 "ceiling drywall bulging, brown water staining along a seam, light fixture below",
                 "standing water on vinyl plank flooring near the island, reflected light",
                 "open vanity cabinet, wet particle board base, chrome supply line with a visible crack at the nut",
                 "close-up of a compression fitting, white mineral deposit, split ferrule",
                 "dining chairs pushed against the wall, wet seat cushions, towels on the floor",
                 "upper cabinets with water streaks, a row of cookbooks with swollen spines"]) for i in range(12))
         + "\nPhotos are attached to the claim file and visible to the adjuster. EXIF timestamps are kept; GPS "
           "coordinates are stripped before storage.")
    b.say("All 12 photos are on the claim (MD-88120 to MD-88131), visible to Renée.")
    b.user("DryFast just left for the day. What did they actually do?")
    c = b.call("nm_vendor_report", job_no="DF-25-3318", day=1)
    b.ok(c, {"job_no": "DF-25-3318", "day": 1, "points_dry": 2, "points_total": 18, "water_removed_gal": 6},
         nm_moisture_report(b, 1, 38.0))
    b.say("Day 1: they drained about six gallons from the kitchen ceiling, set up dehumidifiers, air movers and "
          "a ceiling drying panel, and mapped 18 measuring points; only 2 are dry so far, which is expected on the "
          "first day.")
    b.user("Wait. I just checked the Nest leak sensor app. The leak actually started Saturday night, the 13th, "
           "around 11:40 pm. We only found it in the morning.")
    b.correction("date_of_loss", "2025-09-13", subject=f"claim_no={NM_CLAIM}")
    b.say("Thanks, that matters: the date of loss should be when the damage began, Saturday 13 September about "
          "23:40, not when you found it. The claim currently says 14 September. Shall I correct it and note the "
          "sensor record?")
    b.user("Yes, fix it on the claim.")
    b.decide("fix-date",
             next_call("nm_claim_update", claim_no=NM_CLAIM, date_of_loss="2025-09-13"),
             fact("date_of_loss", "2025-09-13", superseded=["2025-09-14"], subject=f"claim_no={NM_CLAIM}",
                  why="the user's correction replaces the date the claim was opened with"),
             fact("water_damage_deductible", "2500.00", why="from the policy lookup at the start"),
             constraint(standing, "10:00 or later", why="the standing rule for inspection slots"))
    c = b.call("nm_claim_update", claim_no=NM_CLAIM, date_of_loss="2025-09-13",
               note="Leak began approx. 23:40 on 2025-09-13 per insured's Nest leak sensor; discovered next morning.")
    b.ok(c, {"claim_no": NM_CLAIM, "date_of_loss": "2025-09-13"})
    b.say("Corrected: the claim now shows 13 September, with a note about the Nest sensor. Keep a screenshot of "
          "the sensor alert; Renée may ask for it.")
    b.user("How much will I actually pay out of pocket on this?")
    c = b.call("nm_claim_get", claim_no=NM_CLAIM)
    b.ok(c, {"claim_no": NM_CLAIM, "status": "open - awaiting inspection", "date_of_loss": "2025-09-13",
             "applicable_deductible": "2500.00", "deductible_basis": "NM-WD-22 water damage",
             "mitigation_vendor": "V-55120", "reserve_coverage_a": "18500.00"},
         paragraphs("""Coverage position (preliminary, pending inspection): loss reported as sudden discharge from
                    a plumbing supply line. Coverage A applies. Deductible basis: endorsement NM-WD-22, water
                    damage deductible 2,500.00 per occurrence. The deductible is applied once to the total of
                    Coverage A and Coverage C payments for this occurrence.""",
                    """Reserves are internal estimates set for financial reporting and are not an offer of
                    payment. Mitigation invoices from network vendors are paid in full to the vendor and counted
                    toward the loss before the deductible is applied to the remaining payments.""",
                    """Open tasks: inspection to be scheduled; contents inventory not yet received; mitigation in
                    progress (DF-25-3318).""")
         + "\n\nReserve history:\n" + table(["date", "coverage", "change", "reserve", "by"], [
             ("2025-09-15 07:44", "A - Dwelling", "+12000.00", "12000.00", "FNOL auto-reserve"),
             ("2025-09-15 07:44", "C - Contents", "+3000.00", "3000.00", "FNOL auto-reserve"),
             ("2025-09-15 08:10", "A - Mitigation", "+5000.00", "5000.00", "NM-MIT-05 pre-approval"),
             ("2025-09-15 13:31", "A - Dwelling", "+1500.00", "13500.00", "desk analyst J. Whitford")])
         + "\n\n" + nm_audit(b, datetime(2025, 9, 15, 14, 2), "Audit trail:", 300))
    b.say("The claim applies the 2,500.00 water damage deductible (endorsement NM-WD-22), once for the whole "
          "occurrence, across the building and your belongings. DryFast is paid directly and their bill counts "
          "toward the loss, so in practice the 2,500.00 comes off the repair payments to you.")
    b.user("Our plumber says it was sudden and accidental, a cracked compression fitting. Doesn't that mean the "
           "normal 1,000 deductible applies instead?")
    b.guess("applicable_deductible", "1000.00", subject=f"claim_no={NM_CLAIM}")
    b.say("It's a fair question, and it might be worth raising with Renée, but I don't think it changes the "
          "deductible: the endorsement applies the 2,500.00 to any sudden discharge from plumbing, which is exactly "
          "what a cracked fitting is. If the adjuster reclassified the loss, it could drop to 1,000.00, but as of "
          "now the claim applies 2,500.00. I'll add the plumber's finding to the file when you have his invoice.")
    b.user("OK. Has Renée called? My phone was on silent.")
    c = b.call("nm_claim_notes", claim_no=NM_CLAIM)
    notes = nm_callback_log(b, [
        "adjuster R. Caldwell: claim reviewed, photos MD-88120..MD-88131 seen; ceiling damage consistent with report",
        "adjuster R. Caldwell: outbound call to insured 978-555-0199, no answer, voicemail left",
        "vendor DryFast DF-25-3318: on site 10:41, ceiling drained (approx. 6 gal), 4 dehumidifiers, 8 air movers set",
        "adjuster R. Caldwell: inspection tentatively set Thu 2025-09-18 09:00 (SL-0918-0900)",
        "adjuster R. Caldwell: conflict, court appearance Thu morning; inspection must move. Options offered to "
        "insured: Sat 2025-09-20 09:00 (SL-0920-0900), Mon 2025-09-22 08:30 (SL-0922-0830), Tue 2025-09-23 14:00 "
        "(SL-0923-1400). Any can be confirmed through the portal or assistant.",
        "adjuster R. Caldwell: voicemail #2 left re: reschedule options",
        "vendor DryFast DF-25-3318: day 1 readings uploaded"])
    b.ok(c, {"claim_no": NM_CLAIM, "entries": 14, "pending_reschedule": True}, notes)
    b.say("She called twice. She's seen your photos. She had tentatively set the inspection for Thursday 18 "
          "September 09:00 but has a court appearance, so it has to move. Her options: Saturday 20 Sep 09:00 "
          "(SL-0920-0900), Monday 22 Sep 08:30 (SL-0922-0830) or Tuesday 23 Sep 14:00 (SL-0923-1400). DryFast also "
          "drained about six gallons from the ceiling this morning.")
    b.user("I'm heading into my shift now and can't think straight. Just handle it, please.")
    b.decide("reschedule",
             next_call("nm_inspection_book", claim_no=NM_CLAIM, slot_id="SL-0923-1400",
                       why="the only offered slot that is a weekday starting at 10:00 or later"),
             constraint(standing, "never weekends", why="the early standing authorization scopes what can be accepted"),
             fact("applicable_deductible", "2500.00", superseded=["1000.00"], subject=f"claim_no={NM_CLAIM}",
                  why="the model's 1,000.00 was only a hypothesis; the claim system applies 2,500.00"),
             fact("date_of_loss", "2025-09-13", superseded=["2025-09-14"], subject=f"claim_no={NM_CLAIM}"))
    booked = b.call("nm_inspection_book", claim_no=NM_CLAIM, slot_id="SL-0923-1400",
                    authorization="AUTH-GO-01")
    booked_res = b.ok(booked, {"claim_no": NM_CLAIM, "slot_id": "SL-0923-1400", "inspection_at": "2025-09-23T14:00:00-04:00",
                               "adjuster": "Renée Caldwell"})
    b.say("Done under your standing instruction: the only option that fits (weekday, 10 am or later) is Tuesday "
          "23 September at 14:00, so I booked SL-0923-1400. The Saturday and 8:30 Monday slots were out.")

    b.system("Tuesday 16 September 2025, 11:15 US Eastern.")
    b.user("DryFast is here for day 2. How is the drying going?")
    c = b.call("nm_vendor_report", job_no="DF-25-3318", day=2)
    b.ok(c, {"job_no": "DF-25-3318", "day": 2, "points_dry": 7, "points_total": 18}, nm_moisture_report(b, 2, 38.0))
    b.say("Progress: 7 of 18 measuring points are at their dry goal on day 2. The kitchen ceiling and the bathroom "
          "subfloor are still wet, which is normal at this stage. They have four dehumidifiers, air movers and a "
          "ceiling drying panel running.")
    b.user("They also sent their estimate for the whole mitigation job. Does it look reasonable to you?")
    c = b.call("nm_vendor_report", job_no="DF-25-3318", kind="estimate")
    mitigation_total, estimate_text = nm_estimate(b)
    b.ok(c, {"job_no": "DF-25-3318", "kind": "estimate", "estimate_total": mitigation_total, "price_list": "XM-2025-Q3"},
         estimate_text)
    b.say(f"It's a normal-looking mitigation estimate on Northgate's price list: {money(mitigation_total)} in total, mostly "
          "equipment days (dehumidifiers and air movers for five days), ceiling and cabinet tear-out, antimicrobial "
          "treatment and daily monitoring. It's above the 5,000.00 pre-approved mitigation limit, so Renée will "
          "review the part over 5,000.00 at the inspection.")
    b.user("Their lead says they need an advance of 3,200 to keep the equipment here through Friday and start "
           "the cabinet tear-out. Can Northgate pay them that directly?")
    c = b.call("nm_guidance", topic="vendor-advance")
    b.ok(c, {"topic": "vendor-advance", "revision": "2025-02", "supervisor_threshold": "2500.00"},
         paragraphs(
             """Advance payments to mitigation vendors are issued from the claim to the vendor's registered payee
             account. They reduce the amount later paid on the vendor's final invoice. An advance is issued once
             per idempotency key; issuing twice results in a double payment that must be recovered from the
             vendor.""",
             """Approval: advances up to 2,500.00 may be issued by the assistant on the policyholder's request.
             Advances above 2,500.00 need the approval of the desk supervisor, recorded on the claim, before they
             are issued. The approval names the payee and the amount.""",
             """Payments are irreversible once issued: a wrong payment is recovered by a demand letter, not by a
             reversal. Issued payments appear in the payment ledger within a few minutes; the vendor's bank may
             take one to two business days to credit them."""))
    advance_ask = b.user("Yes, ask for the approval then. 3,200.00 to DryFast.")
    b.approval("APR-NM-5521", "requested", advance_ask,
               {"claim_no": NM_CLAIM, "payee_id": "V-55120", "amount": "3200.00"},
               "Advance of 3,200.00 to DryFast Restoration of Andover (V-55120) on claim "
               f"{NM_CLAIM}: above the 2,500.00 threshold, approval requested from desk supervisor Marta Lindqvist.")
    b.say("Requested approval APR-NM-5521 from the desk supervisor, Marta Lindqvist, for 3,200.00 to DryFast "
          "(V-55120). I can't issue it until she approves.")
    b.user("While we wait, I want to start the list of damaged stuff: the dining table and six chairs, the rug, "
           "the microwave, the cookbooks on the open shelf, the kitchen curtains, the pendant light over the table, "
           "the pantry stuff on the bottom shelf and a few small appliances.")
    contents = [("Dining table, solid oak, 72in", "2019", "1", "1450.00", "water-stained, veneer lifting"),
                ("Dining chairs, upholstered", "2019", "6", "1140.00", "seat fabric stained"),
                ("Area rug, wool 8x10", "2021", "1", "890.00", "soaked, odour"),
                ("Microwave, over-the-range", "2022", "1", "420.00", "water inside housing"),
                ("Cookbooks (approx. 40)", "various", "40", "780.00", "pages swollen"),
                ("Fruit bowl and small appliances", "various", "1 lot", "160.00", "cleanable?"),
                ("Kitchen curtains and rod", "2020", "1", "135.00", "stained"),
                ("Pendant light (dining)", "2021", "1", "240.00", "water in fixture, do not use"),
                ("Paper goods and pantry (lower shelf)", "2025", "1 lot", "85.00", "wet, discarded? keep photo")]
    c = b.call("nm_contents_add", claim_no=NM_CLAIM, items=[r[0] for r in contents])
    b.ok(c, {"claim_no": NM_CLAIM, "inventory_id": "INV-31207", "items": 9, "claimed_total": "5300.00"},
         "Contents inventory INV-31207 (draft)\n" + table(["item", "purchased", "qty", "claimed", "condition"], contents)
         + "\n" + paragraphs("""Keep damaged items until the adjuster has seen them or approved disposal. Values are
                             replacement cost as claimed; the adjuster applies depreciation per the policy and pays
                             the depreciation holdback when the item is replaced."""))
    b.say("Started inventory INV-31207 with those nine lines, 5,300.00 claimed in total, using replacement "
          "prices for similar items; adjust any value you know better. Keep the items until Renée sees "
          "them on the 23rd.")
    b.user("The plumber emailed his invoice, I'm forwarding it. Can you add it to the claim?")
    c = b.call("nm_media_upload", claim_no=NM_CLAIM, files=["Invoice_BPR-7731.pdf"])
    b.ok(c, {"claim_no": NM_CLAIM, "uploaded": 1, "media_id": "MD-88140", "rejected": 0},
         paragraphs("Extracted text (OCR), MD-88140:",
                    """Brennan Plumbing & Radiant, 14 Essex Street, Andover MA. Master plumber licence MA 17742.
                    Invoice BPR-7731, date 2025-09-15. Customer: Graham Okafor, 27 Lowell Street, Andover.""",
                    """Emergency call-out, Sunday rate, 2 hours, 340.00. Replaced failed 3/8in compression supply
                    line and angle stop at upstairs vanity (cold side), 62.00 parts. Pressure-tested supply lines
                    in both upstairs bathrooms, no further leaks. Total 402.00, paid by card.""",
                    """Technician's note: failure at the compression nut on the cold supply; the brass ferrule was
                    split, consistent with a sudden failure rather than a long-term drip. No corrosion or staining
                    on the angle stop body. Recommend replacing the matching hot-side line (not done, customer
                    declined for now). Photos of the failed part retained by customer.""")
         + "\n\n" + nm_audit(b, datetime(2025, 9, 16, 15, 20), "Audit trail:", 280))
    b.say("Uploaded as MD-88140. His note helps: a split ferrule at the compression nut, consistent with a sudden "
          "failure, not a long-term drip (which would be excluded). The 402.00 repair of the fitting itself "
          "usually isn't covered (the policy covers the water damage, not the failed part), but keep it on file.")
    b.user("Has the supervisor answered on the advance yet? DryFast keeps asking.")
    b.decide("advance-waiting",
             pending("APR-NM-5521", why="the advance above the threshold cannot be issued before approval"),
             state(booked, "succeeded", b.request_id_of(booked_res)),
             fact("job_no", "DF-25-3318"),
             fact("applicable_deductible", "2500.00", superseded=["1000.00"], subject=f"claim_no={NM_CLAIM}"))
    b.say("Not yet: APR-NM-5521 is still waiting for Marta Lindqvist. Desk supervisors usually answer within the "
          "business day. I'll issue the payment as soon as it's approved.")

    b.system("Wednesday 17 September 2025, 09:30 US Eastern.")
    b.approval("APR-NM-5521", "granted", advance_ask,
               {"claim_no": NM_CLAIM, "payee_id": "V-55120", "amount": "3200.00"},
               "Desk supervisor approved the advance to DryFast Restoration of Andover as requested.",
               granted_by="Marta Lindqvist (desk supervisor)")
    b.user("Morning. First, how did day 3 go?")
    c = b.call("nm_vendor_report", job_no="DF-25-3318", day=3)
    b.ok(c, {"job_no": "DF-25-3318", "day": 3, "points_dry": 13, "points_total": 18}, nm_moisture_report(b, 3, 38.0))
    b.say("Better: 13 of 18 points are dry on day 3. The ceiling drywall is close to its goal; the bathroom "
          "subfloor and the upper cabinets are still wet, which is why they want the equipment through Friday.")
    b.user("DryFast called me again. If the money's approved, pay them now please.")
    b.decide("pay-advance",
             next_call("nm_pay_advance", claim_no=NM_CLAIM, payee_id="V-55120", amount="3200.00",
                       why="payee and amount from the approval and the vendor search, days earlier"),
             constraint(advance_ask, "3,200.00"),
             fact("date_of_loss", "2025-09-13", superseded=["2025-09-14"], subject=f"claim_no={NM_CLAIM}"))
    pay = b.call("nm_pay_advance", claim_no=NM_CLAIM, payee_id="V-55120", amount="3200.00",
                 approval_id="APR-NM-5521", memo="Mitigation advance DF-25-3318")
    crash = b.recover()
    assert crash is not None
    b.user("Hello? The chat froze for a while. Did the payment to DryFast go through? Their office says they see "
           "nothing yet.")
    b.decide("after-crash",
             state(pay, "unknown", by_key=True, why="the call was interrupted; nothing says whether it was issued"),
             evidence(pay.seq, why="an irreversible call whose outcome is unknown must stay in view"),
             next_call("nm_payment_lookup", claim_no=NM_CLAIM,
                       why="look in the ledger before anything is re-sent: a second advance would double pay"))
    b.say("The system restarted while the payment was being sent, so I don't know yet whether it was issued. I "
          "won't send it again blindly, because a second send would pay DryFast twice. Let me check the payment "
          "ledger first.")
    c = b.call("nm_payment_lookup", claim_no=NM_CLAIM)
    ledger = [("PMT-7760912", "2025-09-17 09:41", "V-55120 DryFast Restoration of Andover", "3200.00", "issued",
               pay.idempotency_key)]
    b.ok(c, {"claim_no": NM_CLAIM, "payments": 1, "total_paid": "3200.00"},
         "Payment ledger " + NM_CLAIM + "\n" + table(["payment_id", "issued_at", "payee", "amount", "status",
                                                      "idempotency_key"], ledger)
         + "\nACH credit to the payee's registered account; bank settlement usually within one business day.\n\n"
         + nm_audit(b, datetime(2025, 9, 17, 9, 41), "Payments audit:", 300))
    reconcile = b.status_query(pay, "succeeded", "nm_payment_lookup", request_id="PMT-7760912")
    b.say("It went through once: payment PMT-7760912, 3,200.00 to DryFast, issued at 09:41 before the freeze. "
          "Their bank should show it within a business day. Nothing was sent twice.")
    b.user("Phew. Please tell Renée the advance went out, and confirm the inspection time with her.")
    b.decide("tell-adjuster",
             state(pay, "succeeded", "PMT-7760912", why="the status query settled the unknown call"),
             evidence(pay.seq, reconcile, why="the irreversible payment and its reconciliation, before the subtask ends"),
             next_call("nm_message_adjuster", claim_no=NM_CLAIM, payment_id="PMT-7760912", slot_id="SL-0923-1400"),
             fact("inspection_at", "2025-09-23T14:00:00-04:00", subject=f"claim_no={NM_CLAIM}"))
    c = b.call("nm_message_adjuster", claim_no=NM_CLAIM, payment_id="PMT-7760912", slot_id="SL-0923-1400",
               text="Advance PMT-7760912 (3,200.00) issued to DryFast under APR-NM-5521. Insured confirms the "
                    "inspection on Tue 23 Sep 14:00.")
    b.ok(c, {"claim_no": NM_CLAIM, "message_id": "MSG-22841"})
    b.subtask_end("Mitigation advance paid once (PMT-7760912) and adjuster informed.")
    b.say("Sent to Renée (MSG-22841): the advance is paid and you'll see her Tuesday 23 September at 14:00.")
    b.user("Renée left another voicemail while I was on the phone with you. Can you read me the transcript?")
    c = b.call("nm_claim_notes", claim_no=NM_CLAIM, kind="voicemail")
    b.ok(c, {"claim_no": NM_CLAIM, "entries": 1, "voicemail_id": "VM-5510"},
         paragraphs("Voicemail VM-5510, from Renée Caldwell, 2025-09-17 10:06, 1 min 52 s (automatic transcript):",
                    """Hi Graham, it's Renée Caldwell from Northgate, calling about your water claim. I got your
                    confirmation for Tuesday the twenty-third at two o'clock, thank you, that works great. A few
                    things to have ready when I come by. Please keep the failed supply line, the plumber's invoice
                    you already uploaded is perfect. If you can, have the leak sensor history on your phone, I'd
                    like to take a screenshot of the alert time for the file.""",
                    """I saw DryFast's estimate come in, so above the
                    pre-approved five thousand; that's not a problem, I'll review the extra part when I'm there
                    and look at the drying logs. Please don't throw out the cabinets or the dining chairs until
                    I've seen them. And if you've started a contents list, great, I'll go through it with you.""",
                    """One more thing: if your kitchen is going to be out of commission for a while, keep your
                    grocery and restaurant receipts, we can talk about additional living expenses on Tuesday.
                    Call me back at nine seven eight, five five five, zero one four two if you need anything.
                    Bye now.""")
         + "\n\n" + nm_audit(b, datetime(2025, 9, 17, 10, 7), "Audit trail:", 160))
    b.say("Renée confirms Tuesday 23 September at 14:00. Have ready: the failed supply line, the Nest sensor "
          "history (she wants a screenshot of the alert time), and your contents list. Don't throw out the "
          "cabinets or dining chairs before she's seen them. She'll review the part of DryFast's estimate above "
          "5,000.00 on site and wants you to keep meal receipts for additional living expenses.")
    b.user("Last question for today: the kitchen will be torn open for a week or more. Can we claim a hotel or a "
           "rental while it's unusable?")
    c = b.call("nm_guidance", topic="additional-living-expenses")
    b.ok(c, {"topic": "additional-living-expenses", "revision": "2024-11"},
         paragraphs(
             """Coverage D pays additional living expenses (ALE) when a covered loss makes the home unfit to live
             in, or part of it unusable in a way that forces extra spending. A kitchen that cannot be used
             typically qualifies for the extra cost of meals (the amount above your normal grocery spending),
             not for a hotel, unless other parts of the home are also unusable.""",
             """Keep receipts. The adjuster compares them to your usual costs: for meals, Northgate uses a daily
             allowance of up to 45.00 per adult and 25.00 per child above normal spending unless receipts show a
             higher reasonable amount.""",
             """If the whole home must be vacated (for example, during asbestos abatement or when the electrical
             system is shut off), ALE covers comparable lodging, mileage above the usual commute and pet
             boarding. Lodging should be agreed with the adjuster in advance when possible.""",
             """ALE is not subject to the deductible and lasts for the shortest time needed to repair the home."""))
    b.say("Probably not a hotel: a kitchen out of use usually means the extra cost of meals is covered (up to "
          "45.00 per adult and 25.00 per child per day above your normal spending, with receipts), not lodging. If "
          "the repairs end up making the house unlivable, lodging is covered, ideally agreed with Renée first. ALE "
          "isn't subject to the deductible. Keep every receipt and bring it up at Tuesday's inspection.")
    b.user("What exactly am I supposed to keep or do before Tuesday? I don't want to mess this up.")
    c = b.call("nm_guidance", topic="duties-after-loss")
    b.ok(c, {"topic": "duties-after-loss", "revision": "2025-01"},
         paragraphs(
             """Your policy lists your duties after a loss (Section I Conditions). In plain terms: tell us
             promptly (done), protect the property from further damage (shutting the water off and drying
             count), and keep a record of what you spend to do so.""",
             """Keep the damaged property. Do not throw away damaged materials or belongings until the adjuster
             has seen them or told you in writing that you may. If something is a health hazard (spoiled food,
             wet insulation), photograph it with a ruler or a common object for scale before disposal.""",
             """Inventory. List damaged personal property with quantity, description, age, what you paid and
             what it costs to replace today. Attach bills, receipts or photos where you have them. A
             reasonable estimate is fine where you do not.""",
             """Inspection. Show the damaged property as often as reasonably required. You may be asked for
             records that support the claim: the failed part, repair invoices, leak sensor or camera records,
             and prior maintenance records.""",
             """Statement. For larger losses you may be asked to sign a sworn proof of loss within 60 days of
             our request. The adjuster will tell you if this applies.""",
             """Repairs. You may make reasonable temporary repairs. Permanent repairs before the inspection can
             make it hard to confirm the damage; ask the adjuster first.""")
         + "\n\n" + nm_audit(b, datetime(2025, 9, 17, 11, 2), "Access log:", 150))
    b.say("Before Tuesday: keep the cabinets, chairs and other damaged things (photograph anything you truly have "
          "to discard, like spoiled food), keep the failed fitting and the plumber's invoice, have the Nest alert "
          "ready, and finish the contents list with ages and prices as best you can. Temporary fixes are fine; "
          "hold off on permanent repairs until Renée has seen it.")
    b.system("Friday 19 September 2025, 16:10 US Eastern.")
    b.user("DryFast says they're pulling the equipment today. Is everything actually dry?")
    c = b.call("nm_vendor_report", job_no="DF-25-3318", day=5)
    b.ok(c, {"job_no": "DF-25-3318", "day": 5, "points_dry": 18, "points_total": 18, "drying_complete": True},
         nm_moisture_report(b, 5, 33.0))
    b.say("Yes: all 18 points reached their dry goal on day 5, including the subfloor and the upper cabinets, so "
          "it's reasonable for them to remove the equipment today. Their final invoice will follow the drying log.")
    b.system("Tuesday 23 September 2025, 17:30 US Eastern.")
    b.user("Renée came this afternoon. She said her inspection report is on the claim. What does it say?")
    c = b.call("nm_claim_notes", claim_no=NM_CLAIM, kind="inspection-report")
    b.ok(c, {"claim_no": NM_CLAIM, "report_id": "IR-40913", "cause_confirmed": "sudden discharge - supply line",
             "deductible_basis": "NM-WD-22 water damage"},
         paragraphs(
             f"Field inspection report IR-40913, claim {NM_CLAIM}, inspected 2025-09-23 14:00-15:25 by Renée "
             "Caldwell. Present: Graham Okafor.",
             """Cause and origin. Failure of the cold-water compression supply line at the upstairs hall
             bathroom vanity; split brass ferrule observed on the retained part. Plumber's invoice BPR-7731 and
             the insured's leak sensor record (alert 2025-09-13 23:41) are consistent with a sudden discharge.
             No evidence of long-term seepage: no rot, no staining on the subfloor underside beyond the recent
             event. Date of loss confirmed as 2025-09-13.""",
             """Coverage. Sudden and accidental discharge from a plumbing system, Coverage A and C. The water
             damage deductible of endorsement NM-WD-22 (2,500.00) applies to this occurrence; the insured asked
             whether the all perils deductible applies instead, and was told that the endorsement governs all
             discharges from plumbing, sudden or not.""",
             """Damage observed. Kitchen ceiling drywall removed by mitigation (approx. 96 SF), insulation
             removed; kitchen north wall drywall stained to 14 in. above the counter; upper cabinets (12 LF)
             delaminated at the bottom rails, not salvageable; vinyl plank flooring lifted in 60 SF, cupping
             observed on 22 SF; upstairs vanity base (MDF) swollen. Dining room ceiling edge plaster hairline
             cracks, likely pre-existing (noted, not included).""",
             f"""Mitigation. DryFast drying logs reviewed: all points dry on day 5. Estimate
             {money(mitigation_total)} accepted subject to final invoice; the amount above the 5,000.00
             pre-approval is approved as reasonable.""",
             """Contents. Inventory INV-31207 reviewed with the insured; all items seen except pantry goods
             (discarded, photographed). Depreciation to be applied per the schedule; replacement cost holdback
             paid on proof of replacement.""",
             """Next steps. Adjuster's repair estimate to be uploaded within 3 business days. Insured may choose
             any licensed contractor; the estimate is not a cap on reasonable costs agreed in advance."""))
    b.say("Her report confirms the cause (sudden failure of the supply line), the 13 September date of loss, "
          "and that the 2,500.00 water damage deductible applies; she told you the endorsement governs all "
          "plumbing discharges. She accepted DryFast's " + money(mitigation_total) + " including the part above 5,000.00. Damage "
          "included: the kitchen ceiling, the north wall to 14 inches, 12 feet of upper cabinets, 60 square "
          "feet of flooring and the vanity base; the dining room plaster cracks were judged pre-existing. Her "
          "repair estimate should be uploaded within three business days.")
    b.system("Thursday 25 September 2025, 10:00 US Eastern.")
    b.user("Her estimate is up. What's the first check going to be, roughly?")
    c = b.call("nm_claim_get", claim_no=NM_CLAIM, section="estimate")
    totals, estimate_text = nm_repair_estimate(b)
    b.ok(c, {"claim_no": NM_CLAIM, "estimate_id": "EST-40913-1", **totals, "applicable_deductible": "2500.00"},
         estimate_text)
    b.say(f"Renée's repair estimate is {money(totals['rcv_total'])} at replacement cost. Withheld depreciation is "
          f"{money(totals['depreciation'])}, so the actual cash value is {money(totals['acv_total'])}. Minus the "
          f"2,500.00 deductible, the first payment would be about {money(totals['first_payment'])}. The depreciation (mostly cabinets and flooring) is paid once the work is done. DryFast's "
          "mitigation is paid separately to them, so it doesn't reduce your check.")
    b.user("And she applied the 2,500 again? I still think the plumber's point should count for something.")
    b.decide("first-payment",
             fact("applicable_deductible", "2500.00", superseded=["1000.00"], subject=f"claim_no={NM_CLAIM}",
                  why="every tool and the adjuster say 2,500.00; the 1,000.00 was the model's hypothesis"),
             fact("date_of_loss", "2025-09-13", superseded=["2025-09-14"], subject=f"claim_no={NM_CLAIM}"),
             state(pay, "succeeded", "PMT-7760912", why="the advance was paid once"),
             next_call("nm_message_adjuster", claim_no=NM_CLAIM, report_id="IR-40913",
                       why="a disagreement goes to the adjuster, citing her report"))
    b.say("She did, and her report says why: the endorsement applies the 2,500.00 to any discharge from plumbing, "
          "sudden or not, so the plumber's finding helps coverage (it rules out the long-term seepage exclusion) "
          "but not the deductible. If you want, I can send Renée a written request to reconsider, citing her report "
          "IR-40913; you'd get a formal answer.")
    b.user("Yes, send it. Politely. I'd rather have it in writing.")
    c = b.call("nm_message_adjuster", claim_no=NM_CLAIM, report_id="IR-40913",
               text="The insured asks that the deductible basis be reconsidered: the plumber's invoice BPR-7731 and "
                    "report IR-40913 both describe a sudden failure. Please confirm in writing whether NM-WD-22 or "
                    "the all perils deductible applies, with the policy wording relied on.")
    b.ok(c, {"claim_no": NM_CLAIM, "message_id": "MSG-23107", "response_due": "2025-10-02"},
         nm_audit(b, datetime(2025, 9, 25, 10, 20), "Delivery and audit:", 280))
    b.say("Sent as MSG-23107. Northgate owes a written answer by 2 October; I'll tell you when it arrives.")
    b.user("Meanwhile I need a contractor for the actual repairs. Who's around?")
    c = b.call("nm_vendor_search", zip="01810", service="general contractor")
    gcs = [("V-20331", "Shawsheen Home Builders", "3.0 mi", "6 weeks", "4.7 (142)", "network"),
           ("V-20987", "Andover Kitchen & Bath", "1.5 mi", "8 weeks", "4.9 (77)", "network"),
           ("V-21840", "Merrimack Restoration Group", "7.8 mi", "3 weeks", "4.4 (260)", "network"),
           ("V-33012", "Reading Renovation Co.", "9.9 mi", "4 weeks", "4.6 (58)", "out of network")]
    b.ok(c, {"zip": "01810", "vendor_count": 4},
         "General contractors near 01810 (water damage repairs)\n"
         + table(["vendor_id", "name", "distance", "earliest start", "rating", "network"], gcs) + "\n\n"
         + paragraphs("""Network contractors agree to complete repairs at the adjuster's estimate, with changes
                      agreed by a supplement, and give a 5-year workmanship warranty backed by Northgate. You are
                      free to choose any licensed contractor; if an out-of-network contractor's price exceeds the
                      estimate, ask the adjuster to review the difference before work starts.""",
                      """Custom cabinets: the estimate prices standard-grade cabinets. Matching existing cabinets
                      exactly may cost more; the adjuster reviews matching requests case by case.""")
         + "\n\nContractor details:\n" + "\n".join(
             f"{g[0]} {g[1]}: MA HIC licence {b.rng.randint(100000, 199999)}, CSL {b.rng.randint(80000, 109999)}, "
             f"Northgate jobs last 12 months {b.rng.randint(5, 120)}, average cycle time {b.rng.randint(12, 40)} days, "
             f"supplements per job {b.rng.uniform(0.2, 1.6):.1f}, complaints {b.rng.randint(0, 3)}" for g in gcs))
    b.say("Four options: Merrimack Restoration Group can start soonest (about 3 weeks); Shawsheen Home Builders "
          "in about 6 weeks; Andover Kitchen & Bath has the best rating but is about 8 weeks out. The first three "
          "are in network, which means they work to Renée's estimate with a 5-year warranty backed by Northgate. "
          "If you want your cabinets matched exactly, ask Renée before work starts.")
    b.user("What will the contents list pay, roughly? She went through it with me.")
    c = b.call("nm_claim_get", claim_no=NM_CLAIM, section="contents")
    valuation = [("Dining table, solid oak, 72in", "1450.00", "6 yrs", "30%"), ("Dining chairs, upholstered (6)", "1140.00", "6 yrs", "36%"),
                 ("Area rug, wool 8x10", "890.00", "4 yrs", "20%"), ("Microwave, over-the-range", "420.00", "3 yrs", "30%"),
                 ("Cookbooks (approx. 40)", "780.00", "various", "40%"), ("Small appliances (lot)", "160.00", "various", "35%"),
                 ("Kitchen curtains and rod", "135.00", "5 yrs", "50%"), ("Pendant light (dining)", "240.00", "4 yrs", "16%"),
                 ("Paper goods and pantry (lot)", "85.00", "new", "0%")]
    rows, rcv, acv = [], 0.0, 0.0
    for item, price, age, pct in valuation:
        value = float(price) * (1 - int(pct.rstrip("%")) / 100)
        rcv, acv = rcv + float(price), acv + value
        rows.append((item, price, age, pct, f"{value:.2f}"))
    b.ok(c, {"claim_no": NM_CLAIM, "inventory_id": "INV-31207", "contents_rcv": f"{rcv:.2f}",
             "contents_acv": f"{acv:.2f}", "holdback": f"{rcv - acv:.2f}"},
         "Contents valuation INV-31207 (adjuster reviewed 2025-09-23)\n"
         + table(["item", "replacement", "age", "depreciation", "ACV"], rows) + "\n\n"
         + paragraphs("""Depreciation follows the Northgate contents schedule (furniture 5%/yr, textiles 10%/yr,
                      electronics 10%/yr, books 40% flat). The deductible is applied once per occurrence and has
                      already been taken from the dwelling payment, so it is not applied again here.""",
                      """Replacement cost holdback is paid when you send receipts for the replacement items within
                      180 days. You may replace with items of like kind and quality; upgrades are at your cost."""))
    b.say(f"Replacement value of the list is {money(rcv)}; after depreciation the actual cash value is {money(acv)}, "
          f"paid now. The remaining {money(rcv - acv)} is paid once you send replacement receipts within 180 days. "
          "No deductible comes off this part, since it was taken from the dwelling payment.")
    b.system("Wednesday 1 October 2025, 12:30 US Eastern.")
    b.user("Did Renée answer my deductible question?")
    c = b.call("nm_claim_notes", claim_no=NM_CLAIM, kind="correspondence")
    b.ok(c, {"claim_no": NM_CLAIM, "message_id": "MSG-23388", "in_reply_to": "MSG-23107", "applicable_deductible": "2500.00"},
         paragraphs("Letter MSG-23388, 2025-10-01, from Renée Caldwell to Graham Okafor:",
                    """Dear Mr. Okafor, thank you for your request of 25 September to reconsider the deductible on
                    claim NM-CL-25-118734. I have reviewed it with my supervisor, Marta Lindqvist.""",
                    """Your policy includes endorsement NM-WD-22, which reads in relevant part: 'losses caused by
                    the discharge or overflow of water or steam from within a plumbing, heating, air conditioning
                    or automatic fire protective sprinkler system ... are subject to a deductible of 2,500.00 per
                    occurrence instead of the all perils deductible.' The endorsement does not distinguish between
                    sudden and gradual discharges; a gradual discharge over 14 days or more would not be covered at
                    all.""",
                    """Your plumber's findings confirm that this was a sudden discharge, which is why the loss is
                    covered. The 2,500.00 deductible therefore remains applicable. In exchange for this endorsement
                    your premium includes a credit of 96.00 per year.""",
                    """If you disagree, you may ask for a review by Northgate's Customer Resolution team or contact
                    the Massachusetts Division of Insurance. Sincerely, Renée Caldwell, Property Field Adjuster."""))
    b.say("She did (MSG-23388): the 2,500.00 stays. Her reasoning is the endorsement's wording, which covers any "
          "discharge from plumbing without distinguishing sudden from gradual; the plumber's finding is what makes "
          "the loss covered at all. You can still ask Customer Resolution for a review or contact the Massachusetts "
          "Division of Insurance.")
    return b


# ----------------------------------------------------------------------------------------------
# 03 Card dispute: two disputes, ledger and network disagree, a provisional credit that timed out
# ----------------------------------------------------------------------------------------------

LK_CARD, LK_ACCOUNT, LK_CUSTOMER = "CRD-4417", "CHK-0093318", "CUS-5582019"
LK_TV, LK_DUP_A, LK_DUP_B = "TXN-20251002-88314", "TXN-20251003-11902", "TXN-20251003-11957"
LK_MERCHANTS = [("WHOLEFDS MKT #10233 SEATTLE WA", 5411, 38, 142), ("SHELL OIL 57442190 SEATTLE WA", 5541, 31, 78),
                ("STARBUCKS STORE 03311 SEATTLE WA", 5814, 4, 11), ("AMAZON MKTPL*2K4TR81 AMZN.COM/BILL WA", 5942, 9, 120),
                ("SEATTLE CITY LIGHT 206-684-3000 WA", 4900, 80, 140), ("PCC COMMUNITY MARKETS FREMONT WA", 5411, 22, 96),
                ("UBER *TRIP HELP.UBER.COM CA", 4121, 12, 46), ("REI #11 SEATTLE WA", 5941, 25, 210),
                ("WALGREENS #4471 SEATTLE WA", 5912, 6, 54), ("T-MOBILE AUTOPAY 800-937-8997 WA", 4814, 85, 85),
                ("KING COUNTY METRO ORCA WA", 4111, 20, 50), ("SPOTIFY USA 877-778-1161 NY", 4899, 11, 11),
                ("TRADER JOE'S #131 SEATTLE WA", 5411, 18, 88), ("CHEVRON 0203117 SHORELINE WA", 5542, 40, 72)]


LK_ACTORS = ["core-banking", "dispute-svc", "assistant", "card-platform", "notices-svc", "risk-engine"]
LK_EVENTS = ["case.lock acquired", "case.lock released", "regE.clock evaluated on-track", "ledger.read ok",
             "network.gateway call status=200", "notice.template resolved locale=en-US", "risk.score recomputed band=low",
             "case.index refreshed", "customer.profile read fields=notice_channel", "sla.timer updated"]


def lk_audit(b: Builder, start: datetime, target: int) -> str:
    return audit_trail(b.rng, start, LK_ACTORS, LK_EVENTS, target)


def lk_statement(b: Builder, start: datetime, end: datetime, special: Sequence[tuple[str, str, str, int, str]],
                 target: int) -> str:
    """A card statement listing of about `target` tokens: everyday spending around the `special` rows."""
    rows: list[tuple[Any, ...]] = list(special)
    day = start
    while day < end:
        name, mcc, lo, hi = LK_MERCHANTS[b.rng.randrange(len(LK_MERCHANTS))]
        rows.append((day.strftime("%Y-%m-%d"), name, f"{b.rng.uniform(lo, hi):.2f}", mcc,
                     f"TXN-{day:%Y%m%d}-{b.rng.randint(10000, 99999)}"))
        day += timedelta(hours=b.rng.randint(5, 30))
    rows.sort()
    header = ["posted", "description", "amount", "mcc", "txn_id"]
    keep = {r[4] for r in special}
    while text_tokens(table(header, rows)) > target:
        rows.pop(next(i for i, r in enumerate(rows) if r[4] not in keep))
    return table(header, rows)


def lk_policy(topic: str) -> str:
    texts = {
        "reg-e-disputes": [
            """Error resolution (Regulation E for the linked checking account; network rules for the card). A
            customer may dispute an electronic fund transfer or a card transaction within 60 days after the
            statement on which it first appeared was sent. Larkspur accepts disputes by phone, chat or in branch;
            a dispute taken by the assistant has the same standing as one taken by an agent.""",
            """Investigation: Larkspur investigates and determines whether an error occurred within 10 business
            days of receiving notice. If more time is needed, Larkspur may take up to 45 calendar days (90 for
            point-of-sale and new-account transactions) provided it issues a provisional credit for the disputed
            amount within the 10 business days.""",
            """Provisional credit: issued once per dispute, for the disputed amount only, to the account that was
            debited. It is posted with a description 'PROVISIONAL CREDIT - DISPUTE <id>'. Issuing it twice
            creates an overdraft risk for the customer when the duplicate is reversed; always check the account
            activity before retrying a provisional credit whose outcome is not known.""",
            """Notice: within 2 business days of issuing a provisional credit, the customer is told the amount and
            date of the credit and that it may be reversed if no error is found. Customers choose the channel for
            notices in their profile; paper is the default only where no e-mail consent exists.""",
            """Outcome: if an error occurred, the provisional credit becomes final. If not, Larkspur reverses it
            with 5 business days' notice and explains the findings; the customer may request the documents
            relied on.""",
            """Card replacement: a dispute for an incorrect amount or a duplicate charge does not require the card
            to be replaced. Replacement is only for suspected fraud or compromise, and needs the customer's
            consent because recurring payments on the old number will fail.""",
            """Merchant credits: if the merchant refunds the disputed amount while the dispute is open, the
            dispute is resolved in the customer's favour and the provisional credit is reversed, so that the
            customer is not refunded twice. The customer is notified before the reversal.""",
            """Representment: the merchant may contest a chargeback by sending evidence through the network. The
            bank reviews that evidence and gives it to the customer, who has 10 calendar days to rebut it with
            their own evidence. If the customer does not respond, the bank decides on the evidence it has.""",
            """Records: every step of a dispute is recorded with the time, the channel and the employee or system
            that acted. Customers may request a copy of the dispute file at any time."""],
        "statements": [
            """Statement cycle: checking statements close on the last business day of each month and are available
            in online banking the next business day. Customers with e-mail consent receive an e-mail when the
            statement is ready; no paper statement is mailed unless requested.""",
            """Disputes on statements: a provisional credit appears as its own line with the dispute id. A
            reversal appears as its own line too; the original transaction is never edited. Card transactions
            are listed by posting date, not by purchase date.""",
            """Year-end: the December statement includes the year's interest paid for tax purposes (form 1099-INT
            is issued separately if interest exceeds 10.00).""",
            """Corrections: if a statement shows an error, the 60-day dispute window runs from the date the
            statement was sent. Keep statements for at least one year after a dispute is closed."""],
        "dispute-reason-codes": [
            """Reason codes used by Larkspur for card disputes (network category in brackets): 12.5 incorrect
            amount [processing error]; 12.6.1 duplicate processing [processing error]; 13.1 merchandise or
            services not received [consumer dispute]; 13.3 not as described or defective [consumer dispute];
            13.6 credit not processed [consumer dispute]; 10.4 card-absent fraud [fraud].""",
            """Incorrect amount (12.5): the amount the cardholder agreed to differs from the amount charged. Only
            the difference is disputed. Evidence: receipt, order confirmation or written agreement showing the
            agreed amount. The merchant may respond with proof that the cardholder agreed to the higher amount.""",
            """Duplicate processing (12.6.1): the same transaction was processed more than once. Only the
            duplicate is disputed, never the first transaction. Evidence: the two transaction ids; the
            cardholder confirms a single purchase.""",
            """Time limits: the bank must present the chargeback to the network within 120 days of the
            transaction's processing date. Merchants have 30 days to respond to a chargeback; a second cycle
            (pre-arbitration) adds 30 days.""",
            """Not authorized versus incorrect amount: a cardholder who took part in the transaction must not use a
            fraud reason code, even if part of the amount was unexpected; doing so invalidates the chargeback and
            may require the card to be replaced.""",
            """Partial disputes: when only part of a transaction is disputed, the undisputed part is not
            recoverable later under the same reason. State the disputed amount exactly; it is the amount of the
            provisional credit and of the chargeback."""],
    }
    return paragraphs(*texts[topic])


def lk_iso_dump(b: Builder, txn: str, amount: str, when: str, auth: str, stan: str) -> str:
    """A card network clearing record, field by field."""
    fields = [("MTI", "1240 (first presentment)"), ("DE2 PAN", "4xxxxxxxxxxx4417"), ("DE3 processing code", "000000 purchase"),
              ("DE4 amount, transaction", amount.replace(".", "").rjust(12, "0")), ("DE12 local date/time", when),
              ("DE22 POS data", "510101513001 chip, PIN not present, attended"), ("DE24 function code", "200 first presentment"),
              ("DE26 MCC", "5732 electronics stores"), ("DE31 acquirer reference", f"74{b.rng.randint(10**20, 10**21 - 1)}"),
              ("DE32 acquirer id", "00000447209"), ("DE37 retrieval ref", f"{b.rng.randint(10**11, 10**12 - 1)}"),
              ("DE38 approval code", auth), ("DE41 terminal id", "HVE00217"), ("DE42 merchant id", "447209001882231"),
              ("DE43 card acceptor", "HARBORVIEW ELECTRONICS BELLEVUE WA US"), ("DE49 currency", "840 USD"),
              ("DE71 message number", "1"), ("PDS0023 terminal type", "POS"), ("PDS0052 e-commerce indicator", "none"),
              ("PDS0158 business activity", "interchange CPS/Retail"), ("DE11 STAN", stan),
              ("settlement date", "2025-10-03"), ("clearing file", f"TT140-{b.rng.randint(100000, 999999)}")]
    return (f"Network clearing record for {txn} (acquirer: Pacific Merchant Services)\n"
            + "\n".join(f"{k:<28} {v}" for k, v in fields)
            + "\nOnly presentments received in clearing files up to the query date are shown; adjustments sent in "
              "later files are listed in the bank's posting audit, not here.")


def traj_card_dispute() -> Builder:
    b = Builder(
        "card-dispute-credit", "Bank card dispute: two disputes, a ledger/network contradiction, a timed-out credit",
        ["the core ledger and the card network report different amounts for the same transaction; settled later",
         "a user correction narrows the disputed amount from the whole charge to a 45.00 fee",
         "several entities at once: a TV purchase and a duplicated subscription charge, each with its own ids",
         "an irreversible provisional credit times out: unknown until the account activity reconciles it",
         "early constraints (no card replacement; notices by e-mail only) needed near the end",
         "dispute ids, amounts and the account id needed long after the tool results that gave them"],
        "A Larkspur Federal Bank customer disputes a charge that is higher than her receipt and a doubled "
        "subscription; the assistant investigates, files both disputes and issues provisional credits.",
        [("lk_customer_verify", "read", ["customer_id"]), ("lk_card_transactions", "read", ["card_id"]),
         ("lk_txn_detail", "read", ["txn_id"]), ("lk_network_clearing", "read", ["txn_id"]),
         ("lk_posting_audit", "read", ["txn_id"]), ("lk_merchant_profile", "read", ["merchant_id"]),
         ("lk_policy", "read", ["topic"]), ("lk_dispute_file", "write", ["txn_id"]),
         ("lk_dispute_attach", "write", ["dispute_id"]), ("lk_provisional_credit", "irreversible", ["dispute_id"]),
         ("lk_account_activity", "read", ["account_id"]), ("lk_dispute_status", "read", ["dispute_id"]),
         ("lk_send_notice", "write", ["dispute_id"]), ("lk_dispute_rebut", "write", ["dispute_id"]),
         ("lk_card_security", "read", ["card_id"]), ("lk_profile_update", "write", ["customer_id"])],
        seed=303)
    b.system("You are Larkspur Federal Bank's digital banking assistant, acting on the customer's accounts through "
             "tools after verification. Today is Monday 20 October 2025, 08:55 US Pacific.")
    goal = b.user(
        "Hi, I'm Lena Fischer. There are two charges on my card ending 4417 I need to dispute: something from "
        "Harborview Electronics that's way too high, and I think Streamflix charged me twice. Please don't cancel or "
        "reissue my card over this, I have a dozen autopays on it. And send anything official to my email, not "
        "paper mail; I'm moving next month.")
    b.say("Hi Lena, I can help with both. First I need to verify you; I'll send a code to the phone number on "
          "your profile.")
    b.user("Got it: 418 207.")
    c = b.call("lk_customer_verify", customer_id=LK_CUSTOMER, otp="418207")
    verify_clock = Clock(b.rng, datetime(2025, 10, 20, 8, 56))
    b.ok(c, {"customer_id": LK_CUSTOMER, "verified": True, "name": "Lena Fischer", "card_id": LK_CARD,
             "account_id": LK_ACCOUNT, "email": "lena.fischer@fastmail.example", "notice_channel": "email"},
         fill(b.rng, lambda rng: f"{verify_clock.tick(1, 40)}  " + pick(rng, [
             "session.risk score=low device=known (iPhone 15, app 9.4.1)", "otp.sent channel=sms to ***-***-7710",
             "otp.verified attempts=1", "profile.read fields=name,email,notice_channel,products",
             "kyc.status current (reviewed 2025-03-02)", "consent.e-sign on file since 2019-06-14",
             "products: checking CHK-0093318, debit card CRD-4417 (linked), savings SAV-0093320",
             "alerts: low balance < 200.00 (sms), card not present (push)"]),
             520, "Verification log:"))
    b.say("You're verified. Your card CRD-4417 is linked to checking CHK-0093318, and your notices are set to "
          "e-mail (lena.fischer@fastmail.example). Let me find the two charges.")
    b.user("The Harborview one was early October, and Streamflix was around the same time.")
    c = b.call("lk_card_transactions", card_id=LK_CARD, start="2025-09-01", end="2025-10-19")
    special = [("2025-10-02", "HARBORVIEW ELECTRONICS BELLEVUE WA", "1294.99", 5732, LK_TV),
               ("2025-10-03", "STREAMFLIX.COM 888-555-0147 CA", "17.99", 4899, LK_DUP_A),
               ("2025-10-03", "STREAMFLIX.COM 888-555-0147 CA", "17.99", 4899, LK_DUP_B),
               ("2025-09-03", "STREAMFLIX.COM 888-555-0147 CA", "17.99", 4899, "TXN-20250903-11020")]
    b.ok(c, {"card_id": LK_CARD, "period": "2025-09-01..2025-10-19", "matches": {"harborview": LK_TV,
             "streamflix": [LK_DUP_A, LK_DUP_B]}},
         lk_statement(b, datetime(2025, 9, 1), datetime(2025, 10, 19), special, 900))
    b.say(f"Found them. Harborview Electronics, Bellevue: 1,294.99 posted on 2 October ({LK_TV}). Streamflix: two "
          f"charges of 17.99 on 3 October ({LK_DUP_A} and {LK_DUP_B}); your previous Streamflix charge was a single "
          "17.99 on 3 September. How much did you expect to pay at Harborview?")
    b.user("1,249.99! It was a TV, on sale. I have the receipt. I want the whole charge disputed, 1,294.99 "
           "is not what I agreed to.")
    b.fact("dispute_amount", "1294.99", "user", subject=f"txn_id={LK_TV}")
    b.say("Understood. Before filing I'll look at how the transaction was recorded, so the dispute states the right "
          "facts.")
    ledger = b.call("lk_txn_detail", txn_id=LK_TV)
    ledger_res = b.ok(ledger, {"txn_id": LK_TV, "amount": "1294.99", "merchant_id": "447209001882231",
                               "merchant": "HARBORVIEW ELECTRONICS", "auth_code": "08831K", "auth_amount": "1249.99",
                               "posted": "2025-10-02"},
                      "Core ledger posting history:\n" + timeline(Clock(b.rng, datetime(2025, 10, 1, 14, 22)), [
                          "auth.approved 1249.99 code=08831K terminal=HVE00217 (chip)",
                          "hold.placed 1249.99 on CHK-0093318",
                          "clearing.received presentment #1",
                          "posting.created amount=1294.99 batch=PB-1002-07",
                          "hold.released 1249.99",
                          "statement.line created",
                          "alerts.evaluated no alert (amount within card-present threshold)"], 60, 40000)
                      + "\n\n" + fill(b.rng, lambda rng: f"batch PB-1002-07 line {rng.randint(1000, 9999)}: "
                                      f"{pick(rng, ['posted', 'posted', 'posted', 'repost', 'memo'])} "
                                      f"acct=CHK-{rng.randint(1000000, 9999999):07d} amt={rng.uniform(3, 400):.2f}",
                                      300, "Batch context (neighbouring lines, other accounts masked):"))
    net = b.call("lk_network_clearing", txn_id=LK_TV)
    net_res = b.ok(net, {"txn_id": LK_TV, "amount": "1249.99", "presentments": 1, "approval_code": "08831K"},
                   lk_iso_dump(b, LK_TV, "1249.99", "2025-10-01 14:22:09", "08831K", "018813"))
    b.say("The two records disagree. Our core ledger posted 1,294.99, but the card network's clearing record for the "
          "same transaction shows the merchant presented 1,249.99, which matches your authorization and your "
          "receipt. One of them is missing something; I don't want to file on the wrong basis.")
    b.user("So which is it? What was I actually charged?")
    b.decide("contradiction",
             evidence(ledger_res, net_res, why="the ledger and network amounts for the same txn are not yet reconciled"),
             next_call("lk_posting_audit", txn_id=LK_TV, why="the posting audit shows every message behind the posted amount"),
             constraint(goal, "don't cancel or reissue my card", why="the user's standing rule for this case"),
             fact("auth_amount", "1249.99", subject=f"txn_id={LK_TV}"))
    c = b.call("lk_posting_audit", txn_id=LK_TV)
    b.ok(c, {"txn_id": LK_TV, "amount": "1294.99", "presentment_1": "1249.99", "adjustment": "45.00",
             "adjustment_descriptor": "DELIVERY/INSTALL"},
         "Posting audit for " + LK_TV + ":\n" + table(["file", "received", "message", "amount", "note"], [
             ("TT140-551873", "2025-10-02 03:10", "1240/200 first presentment", "1249.99", "matches auth 08831K"),
             ("TT140-552904", "2025-10-02 03:10", "1240/205 adjustment (incremental)", "45.00",
              "descriptor DELIVERY/INSTALL, same ARN"),
             ("-", "2025-10-02 03:12", "posting (combined)", "1294.99", "presentments combined by ARN")])
         + "\n\n" + paragraphs(
             """The acquirer sent an incremental adjustment of 45.00 under the same acquirer reference
             number in the same clearing cycle. Larkspur's posting engine combines presentments that share
             an ARN into one ledger line. The network clearing query shows first presentments only, which
             is why it reports 1,249.99.""",
             """Incremental adjustments without a matching incremental authorization are permitted for
             some merchant categories (lodging, car rental) but not for MCC 5732; a cardholder who did not
             agree to the extra amount has dispute rights under reason code 12.5 (incorrect amount)."""))
    b.verification(True, f"{LK_TV}: both readings are right; 1,294.99 = presentment 1,249.99 + a 45.00 adjustment "
                         "(DELIVERY/INSTALL) that the network query does not show")
    b.say("Both are right, in a way. Harborview presented 1,249.99 for the TV and then, the same night, a separate "
          "45.00 adjustment labelled DELIVERY/INSTALL. Our ledger combined them into 1,294.99; the network query only "
          "shows the first presentment. Electronics stores aren't supposed to add amounts you didn't authorize. Were "
          "you told about a delivery or installation fee?")
    b.user("Hold on. Is Harborview doing this to other people too?")
    c = b.call("lk_merchant_profile", merchant_id="447209001882231")
    b.ok(c, {"merchant_id": "447209001882231", "name": "Harborview Electronics", "mcc": 5732,
             "incremental_adjustments_90d": 214, "adjustment_disputes_90d": 61},
         paragraphs("""Harborview Electronics (3 stores, Puget Sound). Acquirer: Pacific Merchant Services. MCC 5732.
                    Descriptor HARBORVIEW ELECTRONICS <city> WA. Card-present chip terminals; delivery and
                    installation booked in store and, per the acquirer, charged separately when completed.""",
                    """Larkspur cardholders, last 90 days: 1,902 transactions; 214 carried an incremental adjustment
                    under the same ARN (most 45.00 or 89.00, descriptor DELIVERY/INSTALL); 61 of those were disputed
                    under reason 12.5. Merchant outcomes on those disputes: 44 accepted, 9 represented with a signed
                    work order, 8 pending.""")
         + "\n\n" + table(["month", "transactions", "adjustments", "disputed", "merchant accepted"], [
             ("2025-08", 611, 58, 12, 10), ("2025-09", 655, 71, 21, 16), ("2025-10", 636, 85, 28, 18)])
         + "\n\n" + lk_audit(b, datetime(2025, 10, 20, 9, 20), 360))
    b.say("It looks like a pattern: in the last 90 days, 214 of their Larkspur transactions had a separate DELIVERY/"
          "INSTALL adjustment added under the same reference, and 61 were disputed; Harborview accepted most of those "
          "disputes and contested 9 with a signed work order. That doesn't decide your case, but it's consistent with "
          "what you describe.")
    b.user("Oh! They offered delivery for 45 but the manager waived it because the TV was a floor model. So the TV "
           "is fine, I only dispute the 45, not the whole thing.")
    b.correction("dispute_amount", "45.00", subject=f"txn_id={LK_TV}")
    b.say("That makes it an incorrect-amount dispute for 45.00 only; the 1,249.99 for the TV stands. And the "
          "Streamflix one would be a duplicate-processing dispute for the second 17.99. Let me check our dispute "
          "rules before filing.")
    c = b.call("lk_policy", topic="dispute-reason-codes")
    b.ok(c, {"topic": "dispute-reason-codes", "incorrect_amount": "12.5", "duplicate": "12.6.1"},
         lk_policy("dispute-reason-codes"))
    b.say("Harborview: reason 12.5 (incorrect amount), disputing only the 45.00 difference, with your receipt as "
          "evidence. Streamflix: reason 12.6.1 (duplicate processing), disputing only the second charge. Do you "
          "want me to look at Streamflix's merchant record first, in case it's a legitimate second profile?")
    b.user("Yes, check. My sister used to share my account, but she left in August.")
    c = b.call("lk_merchant_profile", merchant_id="STREAMFLIX-0147")
    b.ok(c, {"merchant_id": "STREAMFLIX-0147", "name": "Streamflix Inc.", "mcc": 4899,
             "duplicate_reports_90d": 1834, "known_incident": "INC-SF-1003"},
         paragraphs("""Streamflix Inc., Los Angeles CA. Acquirer: Golden Gate Payments. Descriptor STREAMFLIX.COM
                    888-555-0147 CA. Recurring billing on the 3rd of each month for plans started on the 3rd.""",
                    """Known incident INC-SF-1003 (published by the acquirer on 2025-10-06): a retry defect in
                    Streamflix's billing system on 3 October 2025 between 02:00 and 04:30 UTC re-sent a subset of
                    recurring charges, creating duplicate presentments with new transaction ids. Streamflix states
                    it will refund affected customers automatically by 31 October; cardholders may still dispute.""",
                    """Additional-member charges appear with the descriptor STREAMFLIX.COM EXTRA MEMBER and a
                    different amount (7.99), never as a second full plan charge.""")
         + "\n\nDispute statistics, last 90 days:\n" + table(["reason", "count", "merchant win rate"], [
             ("12.6.1 duplicate", 1834, "3%"), ("13.2 cancelled recurring", 611, "41%"), ("10.4 fraud", 97, "12%"),
             ("13.1 not received", 22, "50%")])
         + "\n\nRecent cardholder reports (anonymised):\n" + "\n".join(
             f"- {d}: " + pick(b.rng, ["charged twice on the 3rd, same amount, different transaction ids",
                                       "two 17.99 charges a few minutes apart, only one profile",
                                       "second charge appeared after the app said payment failed",
                                       "refund promised by support chat, not received yet",
                                       "duplicate monthly charge; support says wait until the end of the month"])
             for d in ["2025-10-03", "2025-10-03", "2025-10-04", "2025-10-05", "2025-10-07", "2025-10-09", "2025-10-12"]))
    b.say("It's not your sister: an extra member would show up as a separate 7.99 'EXTRA MEMBER' charge. Streamflix "
          "had a billing defect on 3 October that re-sent some monthly charges (incident INC-SF-1003), and they say "
          "they'll refund automatically by 31 October. You can still dispute it now, which is safer.")
    b.user("Can you double check my summer statements? I want to be sure the extra member charge for my sister really "
           "stopped.")
    c = b.call("lk_card_transactions", card_id=LK_CARD, start="2025-07-01", end="2025-08-31")
    summer = [("2025-07-03", "STREAMFLIX.COM 888-555-0147 CA", "17.99", 4899, "TXN-20250703-10876"),
              ("2025-07-03", "STREAMFLIX.COM EXTRA MEMBER CA", "7.99", 4899, "TXN-20250703-10877"),
              ("2025-08-03", "STREAMFLIX.COM 888-555-0147 CA", "17.99", 4899, "TXN-20250803-10991"),
              ("2025-08-03", "STREAMFLIX.COM EXTRA MEMBER CA", "7.99", 4899, "TXN-20250803-10992"),
              ("2025-08-21", "STREAMFLIX.COM REFUND EXTRA MEMBER CA", "-3.20", 4899, "TXN-20250821-44010")]
    b.ok(c, {"card_id": LK_CARD, "period": "2025-07-01..2025-08-31", "extra_member_last": "2025-08-03"},
         lk_statement(b, datetime(2025, 7, 1), datetime(2025, 8, 31), summer, 900))
    b.say("It stopped: there's a 7.99 EXTRA MEMBER charge on 3 July and 3 August, then a prorated refund of 3.20 on 21 "
          "August when she left, and no extra member charge since. So the second 17.99 on 3 October is not her.")
    b.user("Dispute both now please. I don't trust them to refund.")
    b.decide("file-both",
             next_call("lk_dispute_file", txn_id=LK_TV, amount="45.00", reason_code="12.5",
                       why="only the 45.00 adjustment, after the user's correction"),
             next_call("lk_dispute_file", txn_id=LK_DUP_B, amount="17.99", reason_code="12.6.1",
                       why="only the second, duplicate Streamflix charge"),
             fact("dispute_amount", "45.00", superseded=["1294.99"], subject=f"txn_id={LK_TV}",
                  why="the user narrowed the dispute after the posting audit"),
             fact("adjustment", "45.00", subject=f"txn_id={LK_TV}", why="the settled reading behind the correction"))
    disputes = {}
    for txn, amount, code, did, merchant in [(LK_TV, "45.00", "12.5", "DSP-25-40117", "Harborview Electronics"),
                                             (LK_DUP_B, "17.99", "12.6.1", "DSP-25-40118", "Streamflix Inc.")]:
        c = b.call("lk_dispute_file", txn_id=txn, amount=amount, reason_code=code, card_id=LK_CARD)
        r = b.ok(c, {"txn_id": txn, "dispute_id": did, "amount": amount, "reason_code": code,
                     "credit_due_by": "2025-11-03", "decision_due_by": "2026-01-18"},
                 paragraphs(f"Dispute {did} opened for {amount} on {txn} ({merchant}), reason {code}.",
                            """Regulation E clock: notice received 2025-10-20. Provisional credit due within 10
                            business days (by 2025-11-03) if the investigation is not complete. Final decision due
                            within 90 calendar days for point-of-sale transactions.""",
                            """The card stays active; no replacement has been ordered. The customer's notice
                            channel on file is e-mail.""")
                 + "\n\n" + lk_audit(b, datetime(2025, 10, 20, 9, 31), 440))
        disputes[did] = (c, r)
    b.say("Filed both. DSP-25-40117: 45.00 on the Harborview charge, incorrect amount. DSP-25-40118: 17.99 on the "
          "second Streamflix charge, duplicate. Your card stays active. I can issue provisional credits for both right "
          "away so you have the money back while we investigate. Want me to?")
    b.user("Yes please, and can I send you the receipt for the TV?")
    c = b.call("lk_dispute_attach", dispute_id="DSP-25-40117", files=["harborview_receipt_1001.jpg"])
    receipt_res = b.ok(c, {"dispute_id": "DSP-25-40117", "attachment_id": "ATT-99810", "receipt_total": "1249.99",
                           "delivery_fee": "waived"},
         paragraphs("Extracted text (OCR) of harborview_receipt_1001.jpg:",
                    """HARBORVIEW ELECTRONICS - Bellevue Square, 575 Bellevue Sq, Bellevue WA 98004. Store 02,
                    register 07, associate D. Kim. 10/01/2025 2:21 PM.""",
                    """1 x ORION 65in QLED TV Q65-X9 (FLOOR MODEL, AS-IS, 30-day store warranty) 1,399.99; PRICE
                    OVERRIDE -150.00 (mgr A. Soto); subtotal 1,249.99. DELIVERY & WALL MOUNT 45.00; DELIVERY
                    WAIVED -45.00 (mgr A. Soto). Tax included per WA RCW 82.08 display pricing. TOTAL 1,249.99.
                    VISA DEBIT ****4417 CHIP APPROVED 08831K.""",
                    """Delivery scheduled 10/04/2025 9-12 window. Returns: 15 days with receipt; floor models
                    final sale after 15 days. Thank you for shopping at Harborview."""))
    b.say("Attached (ATT-99810). It's a strong receipt: it shows the 45.00 delivery and wall mount line and the "
          "manager's 'DELIVERY WAIVED -45.00', with a total of 1,249.99 approved under the same code 08831K. Now the "
          "provisional credits, starting with the Harborview one.")
    credit_tv = b.call("lk_provisional_credit", dispute_id="DSP-25-40117", account_id=LK_ACCOUNT, amount="45.00")
    credit_tv_timeout = b.timeout(credit_tv, "core banking did not answer within 30 s (gateway timeout 504)")
    b.say("The provisional credit request for DSP-25-40117 timed out: the core banking system didn't answer. It may "
          "or may not have been posted.")
    b.user("Did the credit go through or not? Should we just try again?")
    b.decide("credit-timeout",
             state(credit_tv, "unknown", why="a timeout is not a failure: the credit may have posted"),
             evidence(credit_tv.seq, credit_tv_timeout, why="the irreversible call with an unknown outcome stays in view"),
             next_call("lk_account_activity", account_id=LK_ACCOUNT, why="look for the credit before retrying"),
             fact("dispute_id", "DSP-25-40118", subject=f"txn_id={LK_DUP_B}"))
    b.say("Not yet, and I won't retry blindly: if the first request did post, a second would credit you twice and be "
          "reversed later, which could overdraw you. Let me look at your account activity first.")
    c = b.call("lk_account_activity", account_id=LK_ACCOUNT, since="2025-10-20T00:00:00-07:00")
    activity = [("2025-10-20 09:38:12", "PROVISIONAL CREDIT - DISPUTE DSP-25-40117", "+45.00", "posted", "PC-7731904"),
                ("2025-10-20 07:02:55", "T-MOBILE AUTOPAY", "-85.00", "posted", "-"),
                ("2025-10-20 06:15:40", "KING COUNTY METRO ORCA", "-20.00", "pending", "-"),
                ("2025-10-20 00:03:11", "INTEREST PAID", "+0.41", "posted", "-")]
    b.ok(c, {"account_id": LK_ACCOUNT, "available_balance": "2318.56", "entries": 4,
             "credit_ref": "PC-7731904", "credit_dispute_id": "DSP-25-40117"},
         "Account activity CHK-0093318 since 2025-10-20 00:00 PT\n"
         + table(["time", "description", "amount", "status", "reference"], activity)
         + "\n\n" + paragraphs("""Provisional credits post with the dispute id in the description and a PC
                               reference. A credit whose request timed out at the gateway is posted if, and only if,
                               it appears here; requests are idempotent per dispute id for 24 hours at the core,
                               but not across channels.""")
         + "\n\n" + lk_audit(b, datetime(2025, 10, 20, 9, 38), 410))
    reconcile = b.status_query(credit_tv, "succeeded", "lk_account_activity", request_id="PC-7731904")
    b.say("It did go through: 45.00 posted at 09:38 as 'PROVISIONAL CREDIT - DISPUTE DSP-25-40117' (PC-7731904). "
          "Nothing to retry. Your available balance is 2,318.56.")
    b.user("Good. Now the Streamflix one.")
    b.decide("second-credit",
             next_call("lk_provisional_credit", dispute_id="DSP-25-40118", account_id=LK_ACCOUNT, amount="17.99",
                       why="the second dispute's id and amount, from filing several turns ago"),
             state(credit_tv, "succeeded", "PC-7731904", why="reconciled by the account activity"),
             evidence(credit_tv.seq, reconcile, why="irreversible credit and its reconciliation, subtask not ended"),
             fact("dispute_amount", "45.00", superseded=["1294.99"], subject=f"txn_id={LK_TV}"))
    credit_sf = b.call("lk_provisional_credit", dispute_id="DSP-25-40118", account_id=LK_ACCOUNT, amount="17.99")
    credit_sf_res = b.ok(credit_sf, {"dispute_id": "DSP-25-40118", "amount": "17.99", "credit_ref": "PC-7731966",
                                     "posted_at": "2025-10-20T09:47:02-07:00"},
                         lk_audit(b, datetime(2025, 10, 20, 9, 47), 470))
    b.say("Done: 17.99 credited for DSP-25-40118 (PC-7731966). Both disputes now have their provisional credits.")
    b.user("What happens now, and what do I need to do?")
    c = b.call("lk_policy", topic="reg-e-disputes")
    b.ok(c, {"topic": "reg-e-disputes", "notice_due_business_days": 2, "decision_max_days_pos": 90},
         lk_policy("reg-e-disputes"))
    b.say("Nothing from you right now. We'll send each dispute to the merchant. The credits can be reversed if the "
          "investigation finds no error, but we'd give you 5 business days' notice and our reasons. Decisions are "
          "due within 90 days for card purchases, usually much sooner. You'll get a written notice of each credit "
          "within 2 business days.")
    b.user("Great. Please send me the official notices for both credits now so I have them before I move.")
    b.decide("send-notices",
             constraint(goal, "not paper mail", why="the user chose e-mail notices at the start"),
             next_call("lk_send_notice", dispute_id="DSP-25-40117", channel="email",
                       to="lena.fischer@fastmail.example", why="the address came from verification, long ago"),
             next_call("lk_send_notice", dispute_id="DSP-25-40118", channel="email", to="lena.fischer@fastmail.example"),
             state(credit_sf, "succeeded", b.request_id_of(credit_sf_res)),
             evidence(credit_sf.seq, credit_sf_res, why="the second irreversible credit, before the subtask ends"))
    for did, amount, ref in [("DSP-25-40117", "45.00", "PC-7731904"), ("DSP-25-40118", "17.99", "PC-7731966")]:
        c = b.call("lk_send_notice", dispute_id=did, channel="email", to="lena.fischer@fastmail.example")
        b.ok(c, {"dispute_id": did, "notice_id": f"NTC-{did[-5:]}", "channel": "email"},
             paragraphs(f"Notice of provisional credit, dispute {did}.",
                        f"""Dear Lena Fischer, on 20 October 2025 we credited {amount} to your checking account
                        ending 3318 (reference {ref}) while we investigate the error you reported on 20 October
                        2025. This credit is provisional. If we find that no error occurred, we will reverse it and
                        notify you at least 5 business days before doing so, and tell you how to request the
                        documents we relied on.""",
                        """You do not need to do anything at this time. If you have questions, reply to this
                        e-mail or call 1-800-555-0199. Larkspur Federal Bank, Member FDIC.""")
             + "\n\n" + lk_audit(b, datetime(2025, 10, 20, 9, 55), 310))
    b.subtask_end("Both disputes filed, provisionally credited once each (PC-7731904, PC-7731966) and notified by "
                  "e-mail.")
    b.say("Both notices are on their way to lena.fischer@fastmail.example, nothing by paper.")
    b.user("Should I be worried about fraud on the card, with all this? Be honest.")
    c = b.call("lk_card_security", card_id=LK_CARD)
    risk = [(f"2025-10-{d:02d}", pick(b.rng, ["card-present chip", "recurring", "card-not-present", "contactless"]),
             pick(b.rng, ["approved", "approved", "approved", "declined: wrong CVV"]) if d != 11 else "declined: wrong CVV",
             f"{b.rng.randint(2, 35)}") for d in range(1, 31)]
    b.ok(c, {"card_id": LK_CARD, "status": "active", "compromise_alerts": 0, "declines_30d": 1, "risk_band": "low"},
         "Card risk summary CRD-4417 (1-30 October)\n" + table(["date", "channel", "result", "risk score"], risk)
         + "\n\n" + paragraphs("""No compromise alerts from the networks' breach notifications. One card-not-present
                              decline on 2025-10-11 for a wrong CVV at a merchant the customer has used before
                              (AMAZON MKTPL), consistent with a typo. Both disputes are processing errors, not
                              fraud.""",
                              """Recommendation engine: no replacement recommended. Replacement would change the card
                              number and interrupt 12 recurring merchants on file."""))
    b.say("Honestly, no sign of fraud: no breach alerts, low risk scores, and the one decline (11 October, wrong "
          "security code at Amazon) looks like a typo. Both disputes are merchant processing errors. So there's no "
          "reason to replace the card, which fits what you asked: it stays as it is, autopays and all.")
    b.user("Good. Since I'm moving: my new address from December 1 is 4410 SE Division St, Apt 3, Portland OR 97206. "
           "Can you update it?")
    c = b.call("lk_profile_update", customer_id=LK_CUSTOMER, mailing_address="4410 SE Division St, Apt 3, Portland OR 97206",
               effective="2025-12-01")
    b.ok(c, {"customer_id": LK_CUSTOMER, "address_change_id": "ADR-55012", "effective": "2025-12-01",
             "notice_channel": "email"},
         paragraphs("""Address change ADR-55012 scheduled for 2025-12-01. The current address stays on file until
                    then. A confirmation is sent to both the old and the new address by e-mail only, because the
                    customer's notice channel is e-mail; no paper confirmation is mailed.""",
                    """Cards are not reissued on an address change. Recurring merchants are not notified; the
                    customer may need to update billing addresses used for address verification (AVS) on
                    card-not-present purchases.""")
         + "\n\n" + lk_audit(b, datetime(2025, 10, 20, 10, 2), 370))
    b.say("Scheduled: your mailing address becomes 4410 SE Division St, Apt 3, Portland OR 97206 on 1 December "
          "(ADR-55012). Notices stay e-mail only. Remember to update the billing address with online shops, since "
          "they check it on card-not-present purchases.")
    b.system("Monday 3 November 2025, 10:10 US Pacific.")
    b.user("Hi again. Any news on my two disputes? Streamflix sent me an email saying they refunded me.")
    for did in ("DSP-25-40118", "DSP-25-40117"):
        c = b.call("lk_dispute_status", dispute_id=did)
        if did == "DSP-25-40118":
            b.ok(c, {"dispute_id": did, "status": "resolved - merchant credit", "merchant_credit": "17.99",
                     "provisional_credit": "reversal scheduled 2025-11-10"},
                 paragraphs("""Merchant issued a credit of 17.99 on 2025-10-29 (STREAMFLIX.COM REFUND, txn
                            TXN-20251029-30118), matching the duplicate. The provisional credit PC-7731966 will be
                            reversed on 2025-11-10 so the customer is not refunded twice; notice of the reversal was
                            sent by e-mail on 2025-11-03.""")
                 + "\n\n" + lk_audit(b, datetime(2025, 10, 29, 4, 0), 440))
        else:
            b.ok(c, {"dispute_id": did, "status": "chargeback presented", "merchant_response_due": "2025-11-26"},
                 paragraphs("""Chargeback presented to the acquirer on 2025-10-22 under reason 12.5 for 45.00 with
                            attachment ATT-99810. The merchant has until 2025-11-26 to respond. The provisional
                            credit PC-7731904 remains in place.""")
                 + "\n\n" + lk_audit(b, datetime(2025, 10, 22, 11, 0), 440))
    b.say("Streamflix did refund the duplicate 17.99 on 29 October, so that dispute is resolved; because you'd "
          "otherwise have the money twice, the provisional 17.99 will be reversed on 10 November (you were e-mailed a "
          "notice). The Harborview 45.00 chargeback went to the merchant on 22 October; they have until 26 November "
          "to respond, and your provisional credit stays meanwhile.")
    b.user("Can you send me... actually just show me the whole Harborview dispute file so far.")
    c = b.call("lk_dispute_status", dispute_id="DSP-25-40117", kind="file")
    file_rows = [("2025-10-20 09:31", "assistant", "dispute opened, reason 12.5, amount 45.00"),
                 ("2025-10-20 09:36", "assistant", "attachment ATT-99810 (receipt) added"),
                 ("2025-10-20 09:38", "core-banking", "provisional credit PC-7731904 posted (request timed out at gateway)"),
                 ("2025-10-20 09:44", "assistant", "credit reconciled against account activity; no retry"),
                 ("2025-10-20 09:55", "notices-svc", "notice NTC-40117 sent by e-mail"),
                 ("2025-10-21 10:02", "dispute analyst M. Ortiz", "case reviewed; posting audit attached (ARN adjustment)"),
                 ("2025-10-22 11:00", "dispute-svc", "chargeback presented to network, reason 12.5, 45.00"),
                 ("2025-10-22 11:00", "dispute-svc", "network acknowledgement CB-9921-558310"),
                 ("2025-10-29 08:15", "dispute analyst M. Ortiz", "merchant response window open until 2025-11-26"),
                 ("2025-11-03 10:12", "assistant", "status read by customer via assistant")]
    b.ok(c, {"dispute_id": "DSP-25-40117", "entries": len(file_rows), "network_case": "CB-9921-558310"},
         "Dispute file DSP-25-40117\n" + table(["time", "actor", "entry"], file_rows) + "\n\n"
         + paragraphs("""Documents in file: ATT-99810 (customer receipt), posting audit for TXN-20251002-88314,
                      network clearing record, chargeback message CB-9921-558310. The customer may request copies at
                      any time.""")
         + "\n\n" + lk_audit(b, datetime(2025, 11, 3, 10, 14), 410))
    b.say("Here's the file: opened 20 October with your receipt; provisional credit posted and reconciled the same "
          "morning; reviewed by analyst M. Ortiz on the 21st; chargeback sent to the network on the 22nd (network "
          "case CB-9921-558310). Harborview has until 26 November to answer.")
    b.user("When does my statement close? I want to see both credits on it.")
    c = b.call("lk_policy", topic="statements")
    b.ok(c, {"topic": "statements", "closes": "last business day of the month"}, lk_policy("statements"))
    b.say("Your checking statement closes on the last business day of the month, so the October statement (closed 31 "
          "October) shows both provisional credits as their own lines; it's already in online banking, and you "
          "got an e-mail when it was ready.")
    b.system("Tuesday 11 November 2025, 08:20 US Pacific.")
    b.user("Why did you take 17.99 out of my account yesterday?")
    c = b.call("lk_account_activity", account_id=LK_ACCOUNT, since="2025-11-01T00:00:00-07:00")
    nov = [("2025-11-10 06:00:03", "PROVISIONAL CREDIT REVERSAL - DISPUTE DSP-25-40118", "-17.99", "posted", "PCR-7740021"),
           ("2025-11-07 12:31:40", "TRADER JOE'S #131", "-64.18", "posted", "-"),
           ("2025-11-05 07:02:51", "T-MOBILE AUTOPAY", "-85.00", "posted", "-"),
           ("2025-11-03 18:44:02", "STREAMFLIX.COM", "-17.99", "posted", "-"),
           ("2025-11-03 09:10:12", "SEATTLE CITY LIGHT", "-112.40", "posted", "-"),
           ("2025-11-01 00:03:09", "INTEREST PAID", "+0.39", "posted", "-")]
    b.ok(c, {"account_id": LK_ACCOUNT, "available_balance": "1904.22", "entries": 6},
         "Account activity CHK-0093318 since 2025-11-01 00:00 PT\n"
         + table(["time", "description", "amount", "status", "reference"], nov) + "\n\n"
         + lk_audit(b, datetime(2025, 11, 10, 6, 0), 410))
    b.say("That was the reversal of the provisional 17.99 for the Streamflix dispute (PCR-7740021), because "
          "Streamflix refunded the duplicate themselves on 29 October; without the reversal you'd have been refunded "
          "twice. The notice went to your e-mail on 3 November. Your Harborview credit of 45.00 is untouched.")
    b.system("Thursday 27 November 2025, 09:05 US Pacific.")
    b.user("I got an email saying Harborview responded to my dispute?")
    c = b.call("lk_dispute_status", dispute_id="DSP-25-40117")
    representment = b.ok(c, {"dispute_id": "DSP-25-40117", "status": "representment received", "delivery_fee": "agreed",
                             "rebuttal_due": "2025-12-07", "merchant_document": "MDOC-3318"},
                         paragraphs(
                             """Representment received 2025-11-25 from the acquirer for chargeback DSP-25-40117
                             (reason 12.5, 45.00). Merchant position: the cardholder agreed to the delivery and wall
                             mount service and the fee was correctly charged.""",
                             """Merchant document MDOC-3318 (delivery work order, OCR): 'Harborview Electronics
                             delivery and installation work order WO-88201. Customer: L. Fischer. Delivery
                             10/04/2025 9-12. Service: delivery + wall mount 65in, 45.00. Customer signature on
                             completion: (signed). Technician: R. Alvarez.'""",
                             """The work order does not mention a waiver and carries the customer's signature on
                             completion of the delivery. The cardholder may rebut within 10 calendar days
                             (by 2025-12-07) with evidence that the fee was waived or not agreed.""")
                         + "\n\n" + lk_audit(b, datetime(2025, 11, 25, 14, 0), 410))
    b.say("Harborview contests it: they sent a delivery work order (WO-88201) showing 'delivery + wall mount, 45.00' "
          "with your signature on completion, and say you agreed to the fee. That contradicts your receipt, which "
          "shows the 45.00 line and then 'DELIVERY WAIVED -45.00' by the manager. You have until 7 December to rebut.")
    b.user("I signed that the TV was delivered, not that I'd pay! The manager waived it. I even have a text from the "
           "store confirming it, I'll send you the screenshot.")
    b.decide("representment",
             evidence(receipt_res, representment,
                      why="the receipt (fee waived) and the merchant's work order (fee agreed) conflict, unsettled"),
             next_call("lk_dispute_attach", dispute_id="DSP-25-40117"),
             fact("dispute_amount", "45.00", superseded=["1294.99"], subject=f"txn_id={LK_TV}"),
             state(credit_tv, "succeeded", "PC-7731904", why="the provisional credit stands while the case is contested"))
    c = b.call("lk_dispute_attach", dispute_id="DSP-25-40117", files=["IMG_store_text_1002.png"])
    b.ok(c, {"dispute_id": "DSP-25-40117", "attachment_id": "ATT-10244"},
         paragraphs("Extracted text (OCR) of IMG_store_text_1002.png (SMS thread):",
                    """From: Harborview Bellevue (425-555-0113), Oct 2, 2025 10:14 AM: 'Hi Lena, this is Ana from
                    Harborview Bellevue. Confirming your floor-model Orion 65in delivery Sat 10/4 between 9-12. As
                    discussed, delivery and wall mount are on us (waived) because of the scratch on the stand.
                    Reply STOP to opt out.'""",
                    """To: Harborview Bellevue, Oct 2, 2025 10:20 AM: 'Thank you Ana! See you Saturday.'""",
                    """Metadata: screenshot taken 2025-11-27 09:11; the sender number matches the store's number on
                    the receipt.""")
         + "\n\n" + lk_audit(b, datetime(2025, 11, 27, 9, 12), 360))
    b.say("Attached as ATT-10244. It's good evidence: the store's own number, two days before delivery, says "
          "delivery and wall mount are 'on us (waived)', which matches the receipt's waiver line. Together they answer "
          "the work order: your signature confirmed the delivery, not a charge.")
    b.user("Great, send the rebuttal with everything.")
    b.decide("rebut",
             next_call("lk_dispute_rebut", dispute_id="DSP-25-40117", receipt="ATT-99810", text_message="ATT-10244",
                       why="the receipt attachment id comes from five weeks earlier"),
             fact("receipt_total", "1249.99", subject="dispute_id=DSP-25-40117",
                  why="the receipt attached five weeks earlier is the core of the rebuttal"),
             state(credit_tv, "succeeded", "PC-7731904"))
    c = b.call("lk_dispute_rebut", dispute_id="DSP-25-40117", evidence=["ATT-99810", "ATT-10244"],
               statement="The customer signed to confirm delivery only. The store waived the 45.00 delivery and wall "
                         "mount fee in writing (receipt line 'DELIVERY WAIVED -45.00' and the store's SMS of 2 Oct).")
    b.ok(c, {"dispute_id": "DSP-25-40117", "rebuttal_id": "RBT-2207", "decision_expected_by": "2025-12-22"},
         paragraphs("""Rebuttal RBT-2207 recorded and forwarded to the network as pre-arbitration for chargeback
                    DSP-25-40117. The merchant has 30 days to accept or escalate to arbitration. Arbitration fees
                    are not charged to the cardholder.""")
         + "\n\n" + lk_audit(b, datetime(2025, 11, 27, 9, 20), 410))
    b.say("Rebuttal RBT-2207 sent with the receipt and the store's text. Harborview now has 30 days to accept or go "
          "to arbitration; a decision is expected by 22 December. Your 45.00 provisional credit stays in place.")
    b.system("Monday 22 December 2025, 11:00 US Pacific.")
    b.user("Any decision on Harborview?")
    c = b.call("lk_dispute_status", dispute_id="DSP-25-40117")
    b.ok(c, {"dispute_id": "DSP-25-40117", "status": "resolved - customer favour", "provisional_credit": "final",
             "delivery_fee": "waived"},
         paragraphs("""Merchant accepted pre-arbitration on 2025-12-18 after reviewing rebuttal RBT-2207. The
                    chargeback of 45.00 stands. Provisional credit PC-7731904 is now final. Case closed
                    2025-12-19; closing letter sent by e-mail.""")
         + "\n\n" + lk_audit(b, datetime(2025, 12, 18, 16, 0), 410))
    b.subtask_end("DSP-25-40117 resolved in the customer's favour; DSP-25-40118 resolved by merchant refund.",
                  task_done=True)
    b.say("You won: Harborview accepted your rebuttal on 18 December, so the 45.00 credit is now final and the case is "
          "closed. The closing letter went to your e-mail. Both disputes are done.")
    b.user("I can't find the closing letter. Can you resend it?")
    c = b.call("lk_send_notice", dispute_id="DSP-25-40117", channel="email", to="lena.fischer@fastmail.example",
               template="closing-letter")
    b.ok(c, {"dispute_id": "DSP-25-40117", "notice_id": "NTC-40117-C2", "channel": "email"},
         paragraphs("Closing letter, dispute DSP-25-40117 (resent).",
                    """Dear Lena Fischer, we have completed our investigation of the error you reported on 20 October
                    2025 concerning a card transaction of 1,294.99 at Harborview Electronics on 2 October 2025. You
                    disputed 45.00 of that amount, an incremental delivery and installation charge.""",
                    """We found that an error occurred: the merchant charged a fee that it had waived in writing. The
                    provisional credit of 45.00 (reference PC-7731904) is now final. No further action is needed.""",
                    """If you have questions about this decision, reply to this e-mail or call 1-800-555-0199. You may
                    request copies of the documents we relied on. Larkspur Federal Bank, Member FDIC.""")
         + "\n\n" + lk_audit(b, datetime(2025, 12, 22, 11, 5), 310))
    b.say("Resent to lena.fischer@fastmail.example (NTC-40117-C2). It confirms the 45.00 is final.")
    return b


# ----------------------------------------------------------------------------------------------
# 04 IT helpdesk: lost phone, a password reset that timed out, a device wipe, shared mailbox access
# ----------------------------------------------------------------------------------------------

IT_UPN, IT_TICKET, IT_PHONE, IT_LAPTOP = "rahul.menon@corvid.example", "INC-77120", "MDM-77340", "MDM-88121"
IT_ACTORS = ["idm-core", "helpdesk-console", "assistant", "mdm-svc", "ca-engine", "exchange-online", "itsm"]
IT_EVENTS = ["policy.evaluated CA-014 (require MFA outside trusted locations)", "token.cache refreshed",
             "directory.replication ok (3 sites)", "object.read user attributes", "risk.score recomputed",
             "session.count read", "audit.export queued", "change.recorded in ITSM", "group.membership read",
             "license.state read M365-E5"]


def it_audit(b: Builder, start: datetime, target: int, head: str = "Audit trail:") -> str:
    return audit_trail(b.rng, start, IT_ACTORS, IT_EVENTS, target, head)


def it_signins(b: Builder, start: datetime, end: datetime, target: int, special: Sequence[tuple[str, ...]] = ()) -> str:
    apps = ["Outlook", "Teams", "SharePoint", "Azure VPN", "Salesforce", "Workday", "Office web"]
    places = [("Lisbon, PT", "85.243."), ("Lisbon, PT", "94.60."), ("Porto, PT", "188.81.")]
    rows: list[tuple[Any, ...]] = list(special)
    t = start
    while t < end:
        place, prefix = pick(b.rng, places)
        result = pick(b.rng, ["success", "success", "failure 50126 bad password", "interrupted 50074 MFA required",
                              "failure 50053 locked"])
        rows.append((t.strftime("%Y-%m-%d %H:%M:%S"), pick(b.rng, apps), result, place,
                     f"{prefix}{b.rng.randint(1, 254)}.{b.rng.randint(1, 254)}",
                     pick(b.rng, [IT_PHONE, IT_LAPTOP, "unmanaged browser"])))
        t += timedelta(minutes=b.rng.randint(7, 140))
    rows.sort()
    header = ["time (UTC)", "app", "result", "location", "ip", "device"]
    keep = set(special)
    while text_tokens(table(header, rows)) > target:
        rows.pop(next(i for i, r in enumerate(rows) if r not in keep))
    return table(header, rows)


IT_KB = {
    "KB-0412": ("Lost or stolen device with MFA", [
        """Applies when a user has lost the device that holds their authenticator app or receives their MFA
        codes. Goal: restore access quickly without weakening identity assurance.""",
        """Step 1. Verify identity by live video against the photo ID on file, or in person at a service desk.
        Knowledge questions are not sufficient. Record the method and time in the ticket.""",
        """Step 2. Issue a Temporary Access Pass (TAP) to let the user register a new authenticator. TAP lifetime
        must not exceed 8 hours, single use is preferred. Never read a TAP to anyone but the verified user.""",
        """Step 3. Remove the lost device's authenticator registration after the new one is registered, not
        before: removing it first leaves the user with no method if the TAP fails.""",
        """Step 4. Lock the lost device in MDM. Wipe it only with the owner's explicit confirmation written in
        the ticket (a phone call is not enough), because a wipe cannot be undone and erases personal data on
        BYOD devices.""",
        """Step 5. Revoke the device's VPN certificate and the user's refresh tokens, then review sign-ins since
        the loss for activity from the lost device."""]),
    "KB-0230": ("Shared mailbox access requests", [
        """Shared mailboxes are owned by a business team. Access (FullAccess, SendAs, SendOnBehalf) is granted by
        the service desk after approval.""",
        """Approval: access must be approved by the requester's manager of record in the identity directory,
        not by a team lead, project lead or the mailbox's members. For finance mailboxes the approval must also
        be recorded as an approval on the ticket before the grant.""",
        """Scope: grant the narrowest permission that meets the need; FullAccess does not include SendAs.
        Time-limited access can be set with an expiry date; quarter-close access for finance mailboxes normally
        expires at the end of the following month.""",
        """Propagation: Outlook desktop shows a newly granted shared mailbox after up to 60 minutes (automapping);
        Outlook on the web shows it immediately with 'Open another mailbox'."""]),
    "KB-0388": ("Credential prompts after a password change", [
        """After a password reset, apps that cached the old password keep prompting until they obtain a new
        token. Outlook desktop, Teams and OneDrive are the usual suspects.""",
        """Fix: sign out of Office apps, remove stale credentials from the OS credential manager, sign in again.
        If prompts continue, revoke the user's refresh tokens so every session must re-authenticate.""",
        """BitLocker: a password change never triggers BitLocker recovery by itself; recovery is triggered by
        firmware updates, docking changes or TPM events. Recovery keys are escrowed in MDM and may be read by the
        service desk after identity verification; reading a key is logged and rotates it on next boot."""]),
}


def it_kb(article: str) -> str:
    title, parts = IT_KB[article]
    return f"{article}: {title}\n\n" + paragraphs(*parts)


def traj_it_helpdesk() -> Builder:
    b = Builder(
        "helpdesk-lost-phone", "IT helpdesk: lost MFA phone, a password reset that timed out, a wipe and mailbox access",
        ["a password reset times out: the call stays unknown until the directory audit log reconciles it",
         "early policy rules (explicit written confirmation before a wipe, TAP at most 8 hours) needed later",
         "a model guess about the user's manager must not override the directory's manager of record",
         "a pending manager approval for shared mailbox access, later granted",
         "an irreversible device wipe kept raw until the lost-device subtask ends",
         "device ids, UPN and mailbox names needed long after the tool results that gave them"],
        "A service desk technician works a ticket for an employee who lost his phone abroad: identity, password, "
        "temporary access, device lock and wipe, token revocation and a shared mailbox request.",
        [("itsm_get_ticket", "read", ["ticket_no"]), ("itsm_add_worknote", "write", ["ticket_no"]),
         ("itsm_resolve", "write", ["ticket_no"]), ("idm_get_user", "read", ["upn"]),
         ("idm_signin_logs", "read", ["upn"]), ("idm_unlock", "write", ["upn"]),
         ("idm_reset_password", "write", ["upn"]), ("idm_audit_log", "read", ["upn"]),
         ("idm_issue_tap", "write", ["upn"]), ("idm_revoke_sessions", "write", ["upn"]),
         ("kb_article", "read", ["article_id"]), ("mdm_list_devices", "read", ["upn"]),
         ("mdm_lock_device", "write", ["device_id"]), ("mdm_wipe_device", "irreversible", ["device_id"]),
         ("mdm_device_status", "read", ["device_id"]), ("mdm_recovery_key", "read", ["device_id"]),
         ("vpn_revoke_cert", "write", ["device_id"]), ("mail_grant_access", "write", ["mailbox", "upn"]),
         ("idm_auth_methods", "read", ["upn"]), ("idm_remove_method", "write", ["upn"]),
         ("mail_list_permissions", "read", ["mailbox"]), ("idm_ca_policy", "read", ["policy_id"]),
         ("itsm_create_incident", "write", ["parent_ticket"]), ("mdm_enroll_invite", "write", ["upn"])],
        seed=404)
    b.system("You are the service desk copilot at Corvid Analytics. You act for the technician through tools "
             "connected to the ticketing system, the identity directory (IdM), device management (MDM), VPN and "
             "Exchange Online. Today is Monday 17 November 2025, 09:05 UTC.")
    goal = b.user(
        "Morning. I'm Jo Park on the service desk, working INC-77120 for Rahul Menon, who lost his phone in Lisbon "
        "and can't sign in. House rules for this one: never wipe a device without the owner's explicit confirmation "
        "written in the ticket, TAPs no longer than 8 hours, and no MFA changes until I've verified him by video. "
        "Can you read the ticket first?")
    c = b.call("itsm_get_ticket", ticket_no=IT_TICKET)
    b.ok(c, {"ticket_no": IT_TICKET, "caller": "Rahul Menon", "caller_upn": IT_UPN, "priority": "P2",
             "category": "Access / MFA", "assigned_to": "Jo Park", "state": "In progress"},
         paragraphs(f"{IT_TICKET} - Can't sign in, phone lost abroad (P2). Opened 2025-11-17 06:48 UTC via the "
                    "service desk phone line (call recording CR-55120), caller Rahul Menon, Senior Data Engineer, "
                    "Analytics Platform.",
                    """Description (entered by the night shift, T. Okafor): Caller is travelling in Lisbon for a
                    customer workshop until Thursday. His Android phone was stolen from a cafe table on Sunday
                    evening. He tried to sign in on his laptop several times this morning and is now locked out.
                    His authenticator app was only on the phone. He is calling from the hotel phone, +351 21 555
                    0148, room 514. Laptop is with him and working offline.""",
                    """Caller asked whether his phone can be 'erased remotely'; night shift told him the day team
                    would handle it and that he must confirm it in writing in the ticket from the self-service
                    portal once he has access, or by e-mail from a colleague's device to the service desk with the
                    ticket number.""",
                    """Related: he needs access to the finance AP shared mailbox for the quarter close (see his
                    team's comment below).""")
         + "\n\nWork notes:\n" + timeline(Clock(b.rng, datetime(2025, 11, 17, 6, 48)), [
             "T. Okafor: call received, identity NOT verified (knowledge questions only), ticket created",
             "T. Okafor: account shows locked (50053) since 06:31 UTC",
             "T. Okafor: assigned to day team, Jo Park",
             "Karen Holt (comment, via portal): Rahul is on my team, I'm his team lead. Please give him FullAccess "
             "to finance-ap@corvid.example asap, we close Q3 books on Wednesday. Thanks, Karen",
             "system: SLA P2 response due 10:48 UTC"], 120, 1800))
    b.say("Rahul's phone was stolen in Lisbon on Sunday evening; his authenticator was only on it. He's locked out "
          "since 06:31 UTC, calling from his hotel (+351 21 555 0148, room 514), and his laptop is with him. Night "
          "shift didn't verify his identity (knowledge questions only) and told him any wipe must be confirmed in "
          "writing in the ticket. Separately, Karen Holt, his team lead, asked for FullAccess to "
          "finance-ap@corvid.example before Wednesday's Q3 close.")
    b.user("Pull his account.")
    c = b.call("idm_get_user", upn=IT_UPN)
    groups = ["grp-analytics-platform", "grp-snowflake-prod-readers", "grp-vpn-users", "grp-m365-e5",
              "grp-github-corvid", "grp-databricks-engineers", "grp-lisbon-workshop-2025", "grp-all-staff"]
    b.ok(c, {"upn": IT_UPN, "employee_id": "E-30418", "display_name": "Rahul Menon", "department": "Analytics Platform",
             "manager": "Priyanka Das", "manager_upn": "priyanka.das@corvid.example", "account_status": "locked",
             "mfa_methods": ["authenticator (Pixel 7)", "none other"], "alternate_email": "r.menon.home@example.net"},
         "Directory object (selected attributes)\n" + "\n".join(f"{k:<24} {v}" for k, v in [
             ("title", "Senior Data Engineer"), ("office", "Remote - Bangalore hub"), ("employee_type", "Employee"),
             ("hire_date", "2021-04-12"), ("password_last_set", "2025-08-30 10:12 UTC"), ("lockout_time", "2025-11-17 06:31 UTC"),
             ("bad_password_count", "10"), ("mfa_default", "authenticator push"), ("phone (mobile)", "+91 98xxx xx210"),
             ("usage_location", "IN"), ("license", "M365 E5"), ("risk_level", "medium (atypical travel)")])
         + "\nGroups: " + ", ".join(groups) + "\n\n" + it_audit(b, datetime(2025, 11, 17, 9, 6), 500))
    b.say("His account is locked (10 bad passwords, since 06:31 UTC). His only MFA method is the authenticator on "
          "the stolen Pixel 7. The directory lists his manager as Priyanka Das; alternate e-mail "
          "r.menon.home@example.net. Risk level is medium because of atypical travel.")
    b.user("Why is it locked exactly? I want to be sure it's him and not someone with his phone.")
    c = b.call("idm_signin_logs", upn=IT_UPN, since="2025-11-16T00:00:00Z")
    special = [("2025-11-16 18:52:10", "Teams", "success", "Lisbon, PT", "85.243.17.201", IT_PHONE),
               ("2025-11-16 19:02:44", "Outlook", "success", "Lisbon, PT", "85.243.17.201", IT_PHONE),
               ("2025-11-17 03:14:09", "Office web", "failure 50126 bad password", "Lisbon, PT", "31.22.140.9",
                "unmanaged browser"),
               ("2025-11-17 06:31:02", "Outlook", "failure 50053 locked", "Lisbon, PT", "94.60.211.38", IT_LAPTOP)]
    b.ok(c, {"upn": IT_UPN, "since": "2025-11-16T00:00:00Z", "failures": 11, "last_phone_signin": "2025-11-16 19:02:44",
             "suspicious_ip": "31.22.140.9"},
         it_signins(b, datetime(2025, 11, 16, 7, 0), datetime(2025, 11, 17, 6, 30), 880, special))
    b.say("Mostly him: the failures this morning come from his laptop (MDM-88121) at the hotel IP, ending in the "
          "lockout at 06:31. Two things stand out, though: the phone's last sign-in was Sunday 19:02, around when it "
          "was stolen, and there was one failed attempt at 03:14 from an unmanaged browser at 31.22.140.9, which is "
          "not the hotel. The password wasn't accepted, but it's a reason to revoke his sessions once he's back in.")
    b.user("I just did the video call: it's him, I checked his passport against his badge photo, 09:20 UTC. "
           "Unlock him and reset the password; temp password to his alternate email.")
    c = b.call("idm_unlock", upn=IT_UPN)
    b.ok(c, {"upn": IT_UPN, "lockout_state": "cleared"}, it_audit(b, datetime(2025, 11, 17, 9, 21), 450))
    reset = b.call("idm_reset_password", upn=IT_UPN, deliver_to="r.menon.home@example.net", force_change=True)
    reset_timeout = b.timeout(reset, "IdM gateway did not respond within 60 s (504); request state unknown")
    b.say("Unlocked. The password reset request timed out at the IdM gateway, so I don't know whether it was "
          "applied and the temporary password sent.")
    b.user("He's waiting on the hotel phone. Did the reset work? If you're not sure, just run it again.")
    b.decide("reset-timeout",
             state(reset, "unknown", why="a timeout is not a failure; the reset may have been applied"),
             evidence(reset.seq, reset_timeout, why="an unknown write stays in view until reconciled"),
             next_call("idm_audit_log", upn=IT_UPN, why="check the directory's own record before re-running"),
             constraint(goal, "no MFA changes until I've verified him by video"))
    b.say("Better not to run it blind: if the first reset went through, a second one would invalidate the temporary "
          "password he may already have in his inbox, and he'd be chasing the wrong one. The directory's audit log "
          "will tell us; checking now.")
    c = b.call("idm_audit_log", upn=IT_UPN, since="2025-11-17T09:00:00Z")
    audit_rows = [("09:21:14", "Unlock user", "helpdesk-console (Jo Park)", "success", "op-5541190"),
                  ("09:21:19", "Reset password", "helpdesk-console (Jo Park)", "success", "op-5541207"),
                  ("09:21:20", "Send temporary password", "notification-svc", "delivered to r.menon.home@example.net",
                   "op-5541207"),
                  ("09:21:20", "Set force change at next sign-in", "idm-core", "success", "op-5541207")]
    b.ok(c, {"upn": IT_UPN, "entries": 4, "password_reset_op": "op-5541207", "password_reset": "success"},
         "Directory audit log (since 09:00 UTC)\n" + table(["time", "activity", "initiated by", "result", "operation"],
                                                           audit_rows)
         + "\n\n" + it_audit(b, datetime(2025, 11, 17, 9, 21), 620, "Replication and gateway trace:"))
    b.status_query(reset, "succeeded", "idm_audit_log", request_id="op-5541207")
    b.say("It worked the first time: reset applied at 09:21:19 (op-5541207) and the temporary password delivered to "
          "r.menon.home@example.net a second later, with a forced change at next sign-in. The gateway just didn't "
          "report back. Nothing to re-run; he should check his home e-mail.")
    b.user("He has it and changed it. Now MFA: his authenticator was on the stolen phone. What's the procedure?")
    c = b.call("kb_article", article_id="KB-0412")
    b.ok(c, {"article_id": "KB-0412", "title": "Lost or stolen device with MFA", "tap_max_hours": 8}, it_kb("KB-0412"))
    b.say("KB-0412: identity is verified (your video call at 09:20). Next, a Temporary Access Pass of at most 8 hours, "
          "single use, read only to him, so he can register the authenticator on a new device. Remove the old "
          "phone's registration only after the new one works. Then lock the phone, wipe only with his written "
          "confirmation in the ticket, revoke the VPN certificate and tokens.")
    b.user("He bought a cheap phone this morning. Issue the TAP.")
    b.decide("issue-tap",
             next_call("idm_issue_tap", upn=IT_UPN, why="the UPN came from the ticket and directory much earlier"),
             constraint(goal, "TAPs no longer than 8 hours", why="the lifetime limit set at the start"),
             state(reset, "succeeded", "op-5541207", why="reconciled from the audit log"),
             fact("manager", "Priyanka Das", subject=f"upn={IT_UPN}"))
    tap = b.call("idm_issue_tap", upn=IT_UPN, lifetime_hours=8, one_time=True)
    b.ok(tap, {"upn": IT_UPN, "tap_id": "TAP-88213", "expires_at": "2025-11-17T17:31:00Z", "one_time": True},
         paragraphs("""Temporary Access Pass TAP-88213 created. Value shown once in the technician console (masked
                    here: ****-****-**7Q). Lifetime 8 hours, single use. The user must sign in at
                    https://aka.ms/mysecurityinfo with the TAP and register a new method before it expires.""")
         + "\n\n" + it_audit(b, datetime(2025, 11, 17, 9, 31), 460))
    b.say("TAP-88213 is ready in your console (8 hours, single use, expires 17:31 UTC). Read it to him on the video "
          "call only, and have him register the authenticator at mysecurityinfo.")
    b.user("He's registered the new authenticator and he's in. Check his methods, and take the stolen phone's "
           "authenticator off once the new one is really there.")
    c = b.call("idm_auth_methods", upn=IT_UPN)
    methods = [("AM-1", "Microsoft Authenticator (push + TOTP)", "Pixel 7", "2023-01-09", "2025-11-16 19:02", "default"),
               ("AM-7", "Microsoft Authenticator (push + TOTP)", "moto g24", "2025-11-17 09:47", "2025-11-17 09:48", "-"),
               ("AM-8", "Temporary Access Pass", "TAP-88213", "2025-11-17 09:31", "2025-11-17 09:46", "used")]
    b.ok(c, {"upn": IT_UPN, "methods": 3, "new_method": "AM-7", "old_method": "AM-1"},
         table(["method_id", "type", "device", "registered", "last used", "flags"], methods) + "\n\n"
         + paragraphs("""AM-7 completed a successful MFA at 09:48 UTC. AM-1 is still the default method; removing it
                      makes AM-7 the default. The TAP is single use and has been consumed.""")
         + "\n\n" + it_audit(b, datetime(2025, 11, 17, 9, 49), 400))
    c = b.call("idm_remove_method", upn=IT_UPN, method_id="AM-1")
    b.ok(c, {"upn": IT_UPN, "removed": "AM-1", "default_method": "AM-7"}, it_audit(b, datetime(2025, 11, 17, 9, 50), 420))
    b.say("The new authenticator (AM-7, on a moto g24) already passed an MFA at 09:48, so I removed the stolen "
          "Pixel's registration (AM-1); AM-7 is now his default. The TAP was used and is gone.")
    b.user("Now the stolen phone itself: which device record is it?")
    c = b.call("mdm_list_devices", upn=IT_UPN)
    devices = [(IT_PHONE, "Google Pixel 7", "Android 15", "BYOD work profile", "2025-11-16 19:04 UTC", "Lisbon, PT", "compliant"),
               (IT_LAPTOP, "MacBook Pro 14 (2023)", "macOS 15.1", "corporate", "2025-11-17 09:33 UTC", "Lisbon, PT", "compliant"),
               ("MDM-90210", "iPad Air (2022)", "iPadOS 18.1", "corporate", "2025-11-02 16:40 UTC", "Bangalore, IN", "compliant"),
               ("MDM-61001", "Samsung Galaxy S10", "Android 12", "BYOD (retired)", "2024-02-11 08:15 UTC", "Bangalore, IN",
                "retired")]
    b.ok(c, {"upn": IT_UPN, "device_count": 4, "lost_candidate": IT_PHONE},
         table(["device_id", "model", "os", "ownership", "last check-in", "last location", "state"], devices) + "\n\n"
         + paragraphs("""BYOD work profile devices: a full wipe erases the whole phone, including personal data; a
                      work-profile wipe (retire) removes only company data. Corporate devices support full wipe,
                      lock and locate.""")
         + "\n\n" + it_audit(b, datetime(2025, 11, 17, 9, 40), 460))
    b.say(f"It's {IT_PHONE}, the Pixel 7 (BYOD with a work profile), last check-in Sunday 19:04 UTC in Lisbon. Note "
          "it's BYOD: a full wipe erases his personal data too; a work-profile retire removes only company data.")
    b.user("Lock it first.")
    c = b.call("mdm_lock_device", device_id=IT_PHONE, message="This device is lost. Call +351 21 555 0148.")
    b.ok(c, {"device_id": IT_PHONE, "lock": "queued", "delivery": "on next check-in"},
         it_audit(b, datetime(2025, 11, 17, 9, 44), 500))
    b.say("Lock command queued for the Pixel; it's offline, so it'll lock the moment it checks in, showing the hotel "
          "number.")
    b.user("Check the ticket again: did Rahul confirm the wipe in writing yet?")
    c = b.call("itsm_get_ticket", ticket_no=IT_TICKET)
    b.ok(c, {"ticket_no": IT_TICKET, "state": "In progress", "caller_confirmation": "full wipe of Pixel 7 confirmed",
             "confirmation_time": "2025-11-17 09:51 UTC"},
         "Work notes (newest last):\n" + timeline(Clock(b.rng, datetime(2025, 11, 17, 9, 20)), [
             "Jo Park: identity verified by live video, passport vs badge photo, 09:20 UTC",
             "Jo Park: account unlocked; password reset (op-5541207), temp password to alternate e-mail",
             "Jo Park: TAP-88213 issued (8h, single use); new authenticator registered 09:47",
             "Jo Park: lock queued on MDM-77340",
             "Rahul Menon (comment, via portal): I confirm: please do a FULL wipe of my Pixel 7, it was stolen and has "
             "my personal photos and banking apps. I understand this cannot be undone. Rahul",
             "Karen Holt (comment, via portal): any news on finance-ap? As his lead I approve it.",
             "system: SLA P2 response met"], 60, 400)
         + "\n\n" + it_audit(b, datetime(2025, 11, 17, 9, 52), 450))
    b.guess("manager", "Karen Holt", subject=f"upn={IT_UPN}")
    b.say("Yes: at 09:51 Rahul wrote in the ticket from the portal that he wants a FULL wipe of the Pixel 7 and "
          "understands it can't be undone, which meets your rule. Karen Holt, who seems to be his manager, also "
          "commented again that she approves the finance-ap access.")
    b.user("OK, go ahead and wipe it.")
    b.decide("wipe",
             next_call("mdm_wipe_device", device_id=IT_PHONE, why="the stolen phone's record, from the device list"),
             constraint(goal, "explicit confirmation written in the ticket", why="the rule the wipe depends on"),
             fact("lost_candidate", IT_PHONE, subject=f"upn={IT_UPN}"))
    wipe = b.call("mdm_wipe_device", device_id=IT_PHONE, mode="full", ticket_no=IT_TICKET)
    wipe_res = b.ok(wipe, {"device_id": IT_PHONE, "wipe": "queued", "delivery": "on next check-in",
                           "wipe_command_id": "WIPE-30918"},
                    paragraphs("""Full wipe WIPE-30918 queued for MDM-77340 (Google Pixel 7). The command is delivered
                               when the device next contacts the MDM service (any network). It cannot be cancelled
                               after delivery. Factory reset protection remains tied to the owner's Google
                               account.""")
                    + "\n\n" + it_audit(b, datetime(2025, 11, 17, 9, 55), 480))
    b.say("Full wipe WIPE-30918 queued for the Pixel; it runs when the phone next connects to any network and can't "
          "be cancelled after that.")
    b.user("Revoke the VPN certificate on that phone too, and kill his sessions because of that 03:14 attempt.")
    c = b.call("vpn_revoke_cert", device_id=IT_PHONE, reason="device stolen")
    b.ok(c, {"device_id": IT_PHONE, "cert_serial": "4F:2A:91:0C:77", "revoked": True},
         it_audit(b, datetime(2025, 11, 17, 9, 58), 480, "CRL publication:"))
    c = b.call("idm_revoke_sessions", upn=IT_UPN)
    b.ok(c, {"upn": IT_UPN, "sessions_revoked": 7, "refresh_tokens_revoked": True},
         paragraphs("""All refresh tokens for the user were revoked. Every app must sign in again; the laptop and
                    the new phone will prompt within about an hour. Sign-in attempts from the revoked phone will
                    fail.""")
         + "\n\n" + it_audit(b, datetime(2025, 11, 17, 9, 59), 460))
    b.say("VPN certificate 4F:2A:91:0C:77 revoked and all 7 of his sessions killed; his laptop and new phone will ask "
          "him to sign in again within the hour.")
    b.user("That 03:14 attempt bugs me. Why didn't conditional access block a sign-in from an unmanaged browser?")
    c = b.call("idm_ca_policy", policy_id="CA-014")
    b.ok(c, {"policy_id": "CA-014", "name": "Require MFA outside trusted locations", "state": "on",
             "blocks_unmanaged": False},
         paragraphs("""CA-014 Require MFA outside trusted locations. Users: all employees except break-glass
                    accounts. Cloud apps: all. Conditions: locations not in 'Corvid offices' or 'Corvid VPN egress'.
                    Grant: require multifactor authentication. Session: sign-in frequency 12 hours.""",
                    """CA-014 evaluates after the password check: a wrong password fails before the MFA requirement
                    applies, which is why the 03:14 attempt shows as 50126 (bad password) and not as blocked.
                    Unmanaged browsers are allowed to reach the password prompt; CA-021 (require compliant device
                    for Office web) is in report-only mode since 2025-10-01.""",
                    """Change history: 2025-06-12 sign-in frequency reduced from 24 to 12 hours; 2025-10-01 CA-021
                    created in report-only; 2025-10-20 break-glass exclusion reviewed.""")
         + "\n\n" + it_audit(b, datetime(2025, 11, 17, 10, 1), 450))
    b.say("It did what it's designed to: CA-014 only asks for MFA after a correct password, so a wrong password fails "
          "first (the 50126). The rule that would block unmanaged browsers for Office web, CA-021, is only in "
          "report-only mode since 1 October. Whoever tried at 03:14 had his username but not his password.")
    b.user("Open a security incident for that attempt, linked to this ticket.")
    c = b.call("itsm_create_incident", parent_ticket=IT_TICKET, category="Security / suspicious sign-in",
               summary="Failed sign-in as rahul.menon from unmanaged browser 31.22.140.9 at 03:14 UTC after device theft")
    b.ok(c, {"parent_ticket": IT_TICKET, "incident_no": "SEC-4471", "queue": "SOC tier 1", "priority": "P3"},
         paragraphs("""SEC-4471 created in the SOC tier 1 queue and linked to INC-77120. Attached automatically:
                    sign-in log extract (2025-11-16 00:00 to 2025-11-17 09:00 UTC), device record MDM-77340, CA
                    evaluation for the 03:14 attempt.""")
         + "\n\n" + it_audit(b, datetime(2025, 11, 17, 10, 3), 430))
    b.say("SEC-4471 is open with the SOC (P3), linked to INC-77120, with the sign-in extract, the phone's device "
          "record and the CA evaluation attached.")
    b.user("Now the finance-ap mailbox. What do we need for that?")
    c = b.call("kb_article", article_id="KB-0230")
    b.ok(c, {"article_id": "KB-0230", "title": "Shared mailbox access requests", "approver": "manager of record"},
         it_kb("KB-0230"))
    b.say("KB-0230 says the approval must come from his manager of record in the directory, not a team lead, and for "
          "finance mailboxes it must be recorded as an approval on the ticket before we grant. The directory has his "
          "manager as Priyanka Das, not Karen Holt, so Karen's comment isn't enough; I assumed too quickly earlier "
          "that Karen was his manager. Shall I request Priyanka's approval?")
    b.user("Before that, who has access to finance-ap today? I want to see what Karen's team usually gets.")
    c = b.call("mail_list_permissions", mailbox="finance-ap@corvid.example")
    perms = [("karen.holt@corvid.example", "FullAccess", "2025-12-31", "APR-IT-1980 (M. Osei)"),
             ("ap.clerk1@corvid.example", "FullAccess, SendAs", "none", "APR-IT-0412 (L. Brandt)"),
             ("ap.clerk2@corvid.example", "FullAccess, SendAs", "none", "APR-IT-0413 (L. Brandt)"),
             ("finance.controller@corvid.example", "FullAccess", "none", "owner"),
             ("dmitri.volkov@corvid.example", "FullAccess", "2025-10-31 (expired)", "APR-IT-1731 (P. Das)"),
             ("svc-ap-automation@corvid.example", "FullAccess", "none", "CHG-2024-118")]
    b.ok(c, {"mailbox": "finance-ap@corvid.example", "owner": "finance.controller@corvid.example", "entries": 6},
         table(["user", "permissions", "expires", "approval"], perms) + "\n\n"
         + paragraphs("""Quarter-close helpers from outside Finance get FullAccess with an expiry at the end of the
                      following month. SendAs is reserved for AP clerks.""")
         + "\n\n" + it_audit(b, datetime(2025, 11, 17, 10, 8), 430))
    b.say("Six entries. Karen herself has FullAccess until 31 December, approved by her own manager. Last quarter "
          "Dmitri Volkov had the same kind of quarter-close access, approved by Priyanka Das and expired 31 October. "
          "Only the AP clerks have SendAs. So FullAccess with an expiry is the norm here.")
    ask = b.user("Yes, ask Priyanka. FullAccess only, until the end of December.")
    b.approval("APR-IT-2291", "requested", ask,
               {"mailbox": "finance-ap@corvid.example", "upn": IT_UPN, "permission": "FullAccess",
                "expires": "2025-12-31"},
               "Approval requested from Priyanka Das (manager of record) for FullAccess to finance-ap@corvid.example "
               "for Rahul Menon until 2025-12-31, ticket INC-77120.")
    b.say("Requested APR-IT-2291 from Priyanka Das: FullAccess to finance-ap@corvid.example for Rahul until 31 "
          "December.")
    b.user("Karen's pinging me again. She's his team lead, isn't her OK enough? Who are we waiting on?")
    b.decide("mailbox-approval",
             fact("manager", "Priyanka Das", superseded=["Karen Holt"], subject=f"upn={IT_UPN}",
                  why="the directory's manager of record, not the model's guess from the ticket comment"),
             pending("APR-IT-2291", why="the grant waits on the manager's approval"),
             evidence(wipe.seq, wipe_res, why="the irreversible wipe is queued and the lost-device subtask is open"),
             constraint(ask, "until the end of December"))
    b.say("We're waiting on Priyanka Das, his manager of record in the directory. Karen is his team lead, and KB-0230 "
          "is explicit that a team lead's OK doesn't count for finance mailboxes. I'll tell Karen it's with Priyanka.")
    b.user("Yes, tell her on the ticket, nicely.")
    c = b.call("itsm_add_worknote", ticket_no=IT_TICKET, visibility="customer",
               text="Hi Karen, thanks for the nudge. Finance mailbox access has to be approved by Rahul's manager of "
                    "record, Priyanka Das (KB-0230); we've sent her the request (APR-IT-2291) and will grant FullAccess "
                    "until 31 Dec as soon as she approves. Jo, Service Desk")
    b.ok(c, {"ticket_no": IT_TICKET, "worknote_id": "WN-550944", "visibility": "customer"},
         it_audit(b, datetime(2025, 11, 17, 10, 16), 400))
    b.say("Posted as a customer-visible comment (WN-550944) explaining that it's waiting on Priyanka's approval.")
    b.user("While we wait: he says his MacBook is asking for a BitLocker, sorry, FileVault recovery key after the "
           "password change. Is that related?")
    c = b.call("kb_article", article_id="KB-0388")
    b.ok(c, {"article_id": "KB-0388", "title": "Credential prompts after a password change"}, it_kb("KB-0388"))
    c = b.call("mdm_recovery_key", device_id=IT_LAPTOP, reason=f"{IT_TICKET} user verified by video 09:20 UTC")
    b.ok(c, {"device_id": IT_LAPTOP, "key_type": "FileVault personal recovery key", "key_id": "FVK-7731-A",
             "rotates_on_use": True},
         paragraphs("""Recovery key FVK-7731-A shown once in the technician console (masked: ****-****-****-XK2P).
                    Reading the key is logged. The key rotates after the next successful unlock; the new key is
                    escrowed automatically.""",
                    """FileVault on macOS uses the local account password, which is synced with the directory
                    password at the next online sign-in; a recovery prompt right after a directory password change
                    usually means the Mac was offline when the password changed.""")
         + "\n\n" + it_audit(b, datetime(2025, 11, 17, 10, 12), 460))
    b.say("Related in a way: his Mac was offline when the password changed, so FileVault still wants the old one. The "
          "recovery key FVK-7731-A is in your console (read it to him on video); it rotates after use. Once he's in "
          "and online, the password syncs.")
    b.user("He'd also like Outlook and Teams on the new phone. Send him an enrolment invite.")
    c = b.call("mdm_enroll_invite", upn=IT_UPN, platform="android", ownership="BYOD work profile")
    b.ok(c, {"upn": IT_UPN, "invite_id": "ENR-66120", "expires_at": "2025-11-24T10:20:00Z"},
         paragraphs("""Enrolment invite ENR-66120 sent to rahul.menon@corvid.example (work e-mail, readable in
                    Outlook on the web). Steps for the user: install Company Portal from the Play Store, sign in,
                    accept the work profile, then install Outlook and Teams from the work profile's Play Store.""",
                    """BYOD work profile: the company can see the device model, OS version and compliance state,
                    and can remove the work profile. It cannot see personal apps, photos, messages or location
                    history. A full wipe erases the whole phone and is used only for lost or stolen devices, with
                    the owner's written confirmation.""")
         + "\n\n" + it_audit(b, datetime(2025, 11, 17, 10, 20), 400))
    b.say("Invite ENR-66120 sent to his work mailbox (valid a week): Company Portal, then the work profile, then "
          "Outlook and Teams. As a BYOD work profile, we'd only ever remove the company data from it, unless it's lost "
          "and he confirms a wipe in writing.")
    b.approval("APR-IT-2291", "granted", ask,
               {"mailbox": "finance-ap@corvid.example", "upn": IT_UPN, "permission": "FullAccess",
                "expires": "2025-12-31"},
               "Priyanka Das approved FullAccess to finance-ap@corvid.example for Rahul Menon until 2025-12-31.",
               granted_by="Priyanka Das (manager of record)")
    b.user("Priyanka just approved it on the ticket. Grant it.")
    b.decide("grant-mailbox",
             next_call("mail_grant_access", mailbox="finance-ap@corvid.example", upn=IT_UPN, permission="FullAccess",
                       expires="2025-12-31", why="scope from the approval and the user's earlier instruction"),
             fact("manager", "Priyanka Das", superseded=["Karen Holt"], subject=f"upn={IT_UPN}"),
             state(tap, "succeeded"))
    c = b.call("mail_grant_access", mailbox="finance-ap@corvid.example", upn=IT_UPN, permission="FullAccess",
               expires="2025-12-31", approval_id="APR-IT-2291")
    b.ok(c, {"mailbox": "finance-ap@corvid.example", "upn": IT_UPN, "permission": "FullAccess", "expires": "2025-12-31"},
         paragraphs("""FullAccess granted with automapping. Outlook desktop shows the mailbox within 60 minutes;
                    Outlook on the web immediately via 'Open another mailbox'. SendAs not granted.""")
         + "\n\n" + it_audit(b, datetime(2025, 11, 17, 10, 31), 500))
    b.say("Granted: FullAccess to finance-ap@corvid.example until 31 December (no SendAs). It'll appear in his Outlook "
          "within the hour, or right away on the web.")
    b.system("Monday 17 November 2025, 12:02 UTC.")
    b.user("Check his sign-ins since we revoked everything. Anything from the old phone?")
    c = b.call("idm_signin_logs", upn=IT_UPN, since="2025-11-17T09:59:00Z")
    later = [("2025-11-17 11:57:31", "Outlook", "failure 70008 token revoked", "Almada, PT", "2.82.14.77", IT_PHONE),
             ("2025-11-17 11:57:40", "Teams", "failure 70008 token revoked", "Almada, PT", "2.82.14.77", IT_PHONE)]
    b.ok(c, {"upn": IT_UPN, "since": "2025-11-17T09:59:00Z", "phone_attempts": 2, "phone_result": "blocked"},
         it_signins(b, datetime(2025, 11, 17, 10, 0), datetime(2025, 11, 17, 12, 0), 700, later))
    b.say("Two attempts from the old phone at 11:57 UTC, from Almada, both refused because the tokens were revoked. "
          "Everything else is Rahul on his laptop and new phone.")
    b.system("Monday 17 November 2025, 12:06 UTC.")
    b.user("Did the wipe happen? The police report needs it.")
    c = b.call("mdm_device_status", device_id=IT_PHONE)
    b.ok(c, {"device_id": IT_PHONE, "wipe_command_id": "WIPE-30918", "wipe": "completed",
             "completed_at": "2025-11-17 11:58 UTC", "last_check_in": "2025-11-17 11:57 UTC",
             "last_location": "Almada, PT"},
         "Command history MDM-77340\n" + table(["time (UTC)", "command", "state"], [
             ("2025-11-17 09:44", "lock (LCK-30901)", "queued"), ("2025-11-17 09:55", "full wipe (WIPE-30918)", "queued"),
             ("2025-11-17 11:57", "check-in from 2.82.14.77 (Almada, PT)", "received"),
             ("2025-11-17 11:57", "lock (LCK-30901)", "delivered, acknowledged"),
             ("2025-11-17 11:58", "full wipe (WIPE-30918)", "delivered, acknowledged, completed")])
         + "\n\n" + it_audit(b, datetime(2025, 11, 17, 11, 58), 480))
    b.verification(True, "WIPE-30918 completed on MDM-77340 at 11:58 UTC")
    b.subtask_end("Stolen Pixel 7 (MDM-77340) locked, wiped, VPN certificate revoked, sessions revoked.")
    b.say("Yes: the phone came online at 11:57 UTC in Almada, across the river from Lisbon, took the lock, and the "
          "full wipe completed at 11:58. For the police report: device MDM-77340, wipe WIPE-30918, last location "
          "Almada at 11:57 UTC.")
    b.user("Great. Put a proper work note on the ticket and resolve it.")
    b.decide("resolve",
             next_call("itsm_add_worknote", ticket_no=IT_TICKET),
             state(reset, "succeeded", "op-5541207"),
             fact("completed_at", "2025-11-17 11:58 UTC", subject=f"device_id={IT_PHONE}"))
    c = b.call("itsm_add_worknote", ticket_no=IT_TICKET,
               text="Identity verified by video 09:20 UTC (passport). Unlocked; password reset op-5541207 (gateway "
                    "timeout, confirmed in audit log, not re-run). TAP-88213 (8h, single use); new authenticator "
                    "registered. MDM-77340 locked and fully wiped (WIPE-30918, 11:58 UTC, on owner's written "
                    "confirmation 09:51). VPN cert revoked, sessions revoked (03:14 UTC failed attempt from "
                    "31.22.140.9). FileVault recovery key FVK-7731-A read. finance-ap FullAccess until 2025-12-31 "
                    "approved by manager of record Priyanka Das (APR-IT-2291).")
    b.ok(c, {"ticket_no": IT_TICKET, "worknote_id": "WN-550981"}, it_audit(b, datetime(2025, 11, 17, 12, 14), 400))
    c = b.call("itsm_resolve", ticket_no=IT_TICKET, resolution_code="Resolved - access restored")
    b.ok(c, {"ticket_no": IT_TICKET, "state": "Resolved", "survey_sent": True},
         it_audit(b, datetime(2025, 11, 17, 12, 15), 400))
    b.subtask_end("INC-77120 resolved.", task_done=True)
    b.say("Work note WN-550981 added and INC-77120 resolved; Rahul gets the satisfaction survey.")
    return b


# ----------------------------------------------------------------------------------------------
# 05 Grocery order: substitutions under an allergy rule, two window changes, a gift card
# ----------------------------------------------------------------------------------------------

FW_ORDER = "GRO-604417"
FW_OAT, FW_FORMULA, FW_GRANOLA = "448812", "220145", "310977"
FW_ITEMS = [("101233", "Bananas, organic (per lb)", "3 lb", "2.07"), ("101580", "Gala apples, organic 3 lb bag", "1", "5.49"),
            ("104410", "Baby spinach, organic 5 oz", "2", "7.98"), ("105002", "Avocados, Hass (each)", "4", "5.00"),
            ("120331", "Whole milk, organic 1 gal", "1", "6.29"), (FW_OAT, "Oat milk barista edition 32 oz (Oatside)", "2", "9.58"),
            ("130772", "Greek yogurt plain 32 oz", "1", "5.99"), ("140219", "Large brown eggs, dozen", "2", "9.58"),
            ("150880", "Sourdough loaf, sliced", "1", "5.49"), (FW_GRANOLA, "Granola, honey oat (nut-free) 12 oz", "1", "4.99"),
            ("160044", "Atlantic salmon fillet (per lb)", "1.5 lb", "17.99"), ("160310", "Chicken thighs, boneless 2 lb", "1", "9.98"),
            ("170552", "Cheddar, sharp 8 oz block", "1", "4.49"), ("180330", "Pasta, penne 16 oz", "2", "3.58"),
            ("180771", "Marinara sauce 24 oz", "1", "4.79"), ("190125", "Rice, jasmine 5 lb", "1", "8.99"),
            (FW_FORMULA, "Infant formula, Kendamil Classic stage 1, 800 g", "2", "79.98"),
            ("220410", "Baby wipes, fragrance-free 3 x 80", "1", "9.49"), ("230980", "Diapers size 3, 124 ct", "1", "41.99"),
            ("240015", "Dish soap, free & clear 25 oz", "1", "3.99"), ("250311", "Paper towels, 6 rolls", "1", "11.49"),
            ("260770", "Frozen peas 16 oz", "2", "3.98"), ("260915", "Frozen blueberries, organic 32 oz", "1", "9.99"),
            ("270402", "Coffee, whole bean medium roast 12 oz", "1", "10.99"), ("280119", "Sparkling water, lime 12 pk", "1", "5.49"),
            ("290600", "Olive oil, extra virgin 1 L", "1", "12.99"), ("300144", "Hummus, classic 10 oz", "1", "3.99"),
            ("300781", "Baby carrots 2 lb", "1", "2.99"), ("301120", "Cucumbers (each)", "3", "2.67")]
FW_ADDED = [("520944", "Nut-free chocolate cupcakes 6 pk (Happy Bakes)", "1", "9.99"),
            ("530112", "Birthday candles, assorted", "1", "2.99")]  # added on Friday
FW_TAXABLE = {"220410", "230980", "240015", "250311", "280119", "530112"}  # Seattle sales tax applies; groceries exempt
FW_TAX_RATE = 0.1035


def fw_totals(items: Sequence[tuple[str, str, str, str]], removed: Sequence[str] = (),
              weights: dict[str, str] | None = None) -> dict[str, str]:
    """Subtotal, coupons, tax and total of the order as picked."""
    prices = {sku: float(price) for sku, _, _, price in items if sku not in removed}
    prices.update({sku: float(v) for sku, v in (weights or {}).items()})
    baby = round(0.10 * (prices.get("220410", 0) + prices.get("230980", 0)), 2)
    coupons = baby + 5.00 + 3.00
    taxable = sum(v for sku, v in prices.items() if sku in FW_TAXABLE) - baby
    tax = round(taxable * FW_TAX_RATE, 2)
    subtotal = round(sum(prices.values()), 2)
    return {"subtotal": f"{subtotal:.2f}", "coupons": f"-{coupons:.2f}", "baby10": f"{baby:.2f}", "tax": f"{tax:.2f}",
            "total": f"{subtotal - coupons + tax:.2f}"}


FW_ACTORS = ["order-svc", "picking-app", "assistant", "inventory-svc", "routing-svc", "payments-svc"]
FW_EVENTS = ["order.read", "order.lock acquired", "order.lock released", "price.recomputed", "promo.evaluated",
             "route.capacity read", "inventory.snapshot read", "notification.queued push", "picker.sync ok",
             "tax.recomputed WA", "slot.hold refreshed"]


def fw_audit(b: Builder, start: datetime, target: int, head: str = "Audit trail:") -> str:
    return audit_trail(b.rng, start, FW_ACTORS, FW_EVENTS, target, head)


def fw_order_table(statuses: dict[str, str] | None = None, items: Sequence[tuple[str, str, str, str]] = FW_ITEMS) -> str:
    rows = [(sku, name, qty, price) + ((statuses.get(sku, "picked"),) if statuses is not None else ())
            for sku, name, qty, price in items]
    header = ["sku", "item", "qty", "price"] + (["pick status"] if statuses is not None else [])
    return table(header, rows)


FW_PRODUCTS = {
    "448830": ("Oatly Oat Milk Barista Edition 32 oz", "Oat base (water, oats), rapeseed oil, dipotassium phosphate, "
               "calcium carbonate, tricalcium phosphate, sea salt, dicalcium phosphate, riboflavin, vitamin A, "
               "vitamin D2, vitamin B12", "Contains: oats (gluten-free certified). Produced in a facility that also "
               "processes tree nuts (almonds).", "4.99"),
    "448851": ("Minor Figures Oat M*lk Barista 32 oz", "Water, oats (10%), sunflower oil, acidity regulator "
               "(dipotassium phosphate), calcium carbonate, sea salt, vitamins D2 and B12", "Contains: oats. "
               "Made in a dedicated nut-free facility.", "4.79"),
    "448790": ("Califia Farms Almond-Oat Barista Blend 32 oz", "Almond milk (filtered water, almonds), oat milk "
               "(filtered water, oats), sunflower oil, calcium carbonate, potassium citrate, sea salt, gellan gum",
               "Contains: almonds (tree nuts), oats.", "5.29"),
}


def fw_product_text(sku: str) -> str:
    name, ingredients, allergens, price = FW_PRODUCTS[sku]
    nutrition = [("Serving size", "1 cup (240 mL)"), ("Calories", "140" if sku != "448790" else "110"),
                 ("Total fat", "7 g"), ("Saturated fat", "0.5 g"), ("Sodium", "100 mg"), ("Total carbohydrate", "16 g"),
                 ("Total sugars", "7 g"), ("Protein", "3 g" if sku != "448790" else "2 g"), ("Calcium", "350 mg"),
                 ("Vitamin D", "3.6 mcg")]
    return (f"{sku} {name} - {price}\n\nIngredients: {ingredients}.\nAllergens: {allergens}\n\n"
            + table(["nutrient", "amount"], nutrition)
            + "\n\nAllergen information is supplied by the manufacturer and checked by Fenwick's product data team "
              "every 90 days. Always read the label on the package you receive.")


def traj_grocery() -> Builder:
    b = Builder(
        "grocery-substitutions", "Grocery order: substitutions under an allergy rule, two window changes, a gift card",
        ["an early allergy rule (no tree nuts, no formula substitution) needed for later substitution decisions",
         "store inventory and the picker's shelf scan contradict each other about the same SKU; settled by picking",
         "the delivery window corrected twice by the user: each correction supersedes the previous value",
         "a picker's substitution request as a pending approval, then denied",
         "an irreversible gift card redemption kept raw until the order subtask ends",
         "several SKUs at once; a gift card code given at the start needed at the end"],
        "A parent manages a large grocery delivery order with Fenwick Fresh: availability, substitutions that "
        "must respect a tree-nut allergy, window changes, the picker's questions and payment.",
        [("fw_get_order", "read", ["order_no"]), ("fw_inventory", "read", ["sku"]), ("fw_shelf_scan", "read", ["sku"]),
         ("fw_substitutes", "read", ["sku"]), ("fw_product_info", "read", ["sku"]),
         ("fw_set_substitution", "write", ["order_no", "sku"]), ("fw_delivery_windows", "read", ["postcode"]),
         ("fw_change_window", "write", ["order_no"]), ("fw_update_item", "write", ["order_no", "sku"]),
         ("fw_store_policy", "read", ["topic"]), ("fw_order_status", "read", ["order_no"]),
         ("fw_message_picker", "write", ["order_no"]), ("fw_redeem_gift_card", "irreversible", ["card_code"]),
         ("fw_apply_coupon", "write", ["order_no"]), ("fw_receipt", "read", ["order_no"]),
         ("fw_track_delivery", "read", ["order_no"]), ("fw_report_issue", "write", ["order_no"])],
        seed=505)
    b.system("You are Fenwick Fresh's shopping assistant. You manage the customer's online grocery orders through "
             "tools connected to orders, store inventory, the pickers' app and payments. Today is Thursday 9 October "
             "2025, 20:10 US Pacific.")
    goal = b.user(
        "Hi! I'm Mei Tanaka, order GRO-604417 for Saturday. Two rules before anything else: my son has a tree nut "
        "allergy, so no substitution can contain or 'may contain' tree nuts, ever. And no substitutions at all for "
        "the baby formula: if it's out, leave it out, I'll get it elsewhere. Also I have a gift card I want to use at "
        "the end: GC-7731-5520-9912, it should have 25.00 on it.")
    b.say("Hi Mei, got it: nothing with tree nuts or a tree-nut 'may contain' warning, no formula substitutions, and "
          "your gift card GC-7731-5520-9912 at the end. Let me open your order.")
    c = b.call("fw_get_order", order_no=FW_ORDER)
    ordered = fw_totals(FW_ITEMS)
    b.ok(c, {"order_no": FW_ORDER, "store": "Fenwick Fresh Ballard #14", "postcode": "98107",
             "delivery_window": "2025-10-11 10:00-12:00", "items": len(FW_ITEMS), "subtotal": ordered["subtotal"],
             "substitutions_default": "allow similar"},
         fw_order_table() + "\n\nSubstitution preference on file: 'allow similar' (picker chooses). Delivery address: "
         "2218 NW 63rd St, Seattle WA 98107. Gate code on file. Payment: Visa ending 2284 (pre-authorized at 110% of "
         "the estimated total).")
    b.say(f"Your order has {len(FW_ITEMS)} lines, subtotal {ordered['subtotal']}, for Saturday 11 October 10:00-12:00 from the Ballard store. "
          "Your substitution setting is 'allow similar', which lets the picker choose, so I'll set explicit choices "
          "where it matters.")
    b.user("Can you check that the oat milk and the formula are actually in stock? Last time both were missing.")
    inv_oat = b.call("fw_inventory", sku=FW_OAT, store="14")
    inv_oat_res = b.ok(inv_oat, {"sku": FW_OAT, "store": "14", "on_hand": 14, "reserved": 6, "next_delivery": "2025-10-13"},
                       "Inventory ledger 448812 at store 14 (last 7 days)\n" + table(
                           ["date", "received", "sold", "adjusted", "on hand"],
                           [("2025-10-03", 24, 9, 0, 31), ("2025-10-04", 0, 11, 0, 20), ("2025-10-05", 0, 7, 0, 13),
                            ("2025-10-06", 12, 6, 0, 19), ("2025-10-07", 0, 5, 0, 14), ("2025-10-08", 0, 0, 0, 14),
                            ("2025-10-09", 0, 0, 0, 14)])
                       + "\nNote: zero sales on 10-08 and 10-09 with stock on hand can indicate an empty shelf with "
                         "stock mis-recorded (ghost inventory).\n\n" + fw_audit(b, datetime(2025, 10, 9, 20, 12), 410))
    scan_oat = b.call("fw_shelf_scan", sku=FW_OAT, store="14")
    scan_oat_res = b.ok(scan_oat, {"sku": FW_OAT, "store": "14", "on_hand": 0, "scanned_at": "2025-10-09 07:10",
                                   "scanned_by": "shelf robot R2 aisle 9"},
                        "Shelf scan history 448812, aisle 9 bay 4\n" + table(["time", "source", "facings", "count", "note"], [
                            ("2025-10-07 07:05", "shelf robot R2", 4, 5, ""), ("2025-10-07 19:40", "associate K. Lee", 4, 0,
                                                                                "empty, tag present"),
                            ("2025-10-08 07:12", "shelf robot R2", 4, 0, "empty"), ("2025-10-09 07:10", "shelf robot R2", 4,
                                                                                 0, "empty")])
                        + "\nBackroom count not recorded since 2025-10-06.\n\n" + fw_audit(b, datetime(2025, 10, 9, 20, 13), 410))
    b.say("The oat milk is murky: the inventory system says 14 on hand, but the shelf robot has scanned the shelf "
          "empty three times since Tuesday evening and nothing has sold for two days, which looks like stock recorded "
          "but not really there. Checking the formula next.")
    b.user("OK, and the formula?")
    c = b.call("fw_inventory", sku=FW_FORMULA, store="14")
    b.ok(c, {"sku": FW_FORMULA, "store": "14", "on_hand": 9, "reserved": 2, "next_delivery": "2025-10-10"},
         "Inventory ledger 220145 at store 14 (last 7 days)\n" + table(["date", "received", "sold", "adjusted", "on hand"],
                                                                      [("2025-10-06", 12, 2, 0, 14), ("2025-10-07", 0, 3, 0, 11),
                                                                       ("2025-10-08", 0, 1, 0, 10), ("2025-10-09", 0, 1, 0, 9)])
         + "\nLocked case item: picked by a lead associate.\n\n" + fw_audit(b, datetime(2025, 10, 9, 20, 14), 380))
    b.say("The formula looks fine: 9 on hand, a locked-case item that sells steadily, with another delivery "
          "tomorrow.")
    b.user("So will I get my oat milk or not?")
    b.decide("oat-milk-contradiction",
             evidence(inv_oat_res, scan_oat_res, why="inventory (14) and shelf scan (0) disagree about the same SKU"),
             next_call("fw_substitutes", sku=FW_OAT, why="line up a safe fallback before picking day"),
             constraint(goal, "may contain", why="any fallback must respect the tree-nut rule"),
             fact("delivery_window", "2025-10-11 10:00-12:00"))
    b.say("Honestly, probably not from the shelf, unless the backroom has it. It's safest to set a substitute you'd "
          "accept now, so the picker doesn't improvise. Let me see what's similar.")
    c = b.call("fw_substitutes", sku=FW_OAT, store="14")
    subs = [("448830", "Oatly Oat Milk Barista Edition 32 oz", "4.99", 38, "0.93"),
            ("448790", "Califia Farms Almond-Oat Barista Blend 32 oz", "5.29", 22, "0.88"),
            ("448851", "Minor Figures Oat M*lk Barista 32 oz", "4.79", 17, "0.86"),
            ("448702", "Store brand oat beverage, original 64 oz", "3.99", 41, "0.71"),
            ("120331", "Whole milk, organic 1 gal", "6.29", 55, "0.40")]
    b.ok(c, {"sku": FW_OAT, "candidates": 5, "top_candidate": "448830"},
         "Substitute candidates for 448812 (ranked by similarity)\n"
         + table(["sku", "item", "price", "on hand", "similarity"], subs)
         + "\n\nSimilarity uses category, size, price and what other customers accepted. It does not check "
           "allergens; see product info.\n\n" + fw_audit(b, datetime(2025, 10, 9, 20, 16), 380))
    b.say("The closest matches are Oatly Barista (448830), Califia Almond-Oat (448790) and Minor Figures Barista "
          "(448851). Califia is out for sure because it contains almonds. Let me check the other two labels.")
    b.user("Yes check them, I don't trust the labels on the website.")
    for sku in ("448830", "448851"):
        c = b.call("fw_product_info", sku=sku)
        b.ok(c, {"sku": sku, "name": FW_PRODUCTS[sku][0], "price": FW_PRODUCTS[sku][3],
                 "tree_nut_risk": "may contain" if sku == "448830" else "none"},
             fw_product_text(sku))
    b.say("Oatly Barista is made in a facility that also processes almonds, so it's a 'may contain' and breaks your "
          "rule. Minor Figures Barista (448851) is made in a dedicated nut-free facility and lists only oats as an "
          "allergen. It's 4.79, slightly cheaper than yours.")
    b.user("Pick a substitute for it then, whatever's closest that's safe.")
    b.decide("choose-substitute",
             next_call("fw_set_substitution", order_no=FW_ORDER, sku=FW_OAT, substitute_sku="448851",
                       why="the only close match without a tree-nut warning"),
             constraint(goal, "tree nut allergy"),
             fact("tree_nut_risk", "may contain", subject="sku=448830", why="why the top-ranked match is excluded"))
    c = b.call("fw_set_substitution", order_no=FW_ORDER, sku=FW_OAT, substitute_sku="448851", qty=2)
    b.ok(c, {"order_no": FW_ORDER, "sku": FW_OAT, "substitute_sku": "448851", "rule": "only this substitute"},
         fw_audit(b, datetime(2025, 10, 9, 20, 24), 480))
    b.say("Set: if the Oatside is missing, the picker may only use Minor Figures Barista 448851 (2 cartons), nothing "
          "else.")
    b.user("The granola says nut-free but I'm paranoid. Can you check that label too?")
    c = b.call("fw_product_info", sku=FW_GRANOLA)
    b.ok(c, {"sku": FW_GRANOLA, "name": "Granola, honey oat (nut-free) 12 oz", "tree_nut_risk": "none",
             "price": "4.99"},
         f"{FW_GRANOLA} Granola, honey oat (nut-free) 12 oz - 4.99\n\nIngredients: whole grain rolled oats, cane sugar, "
         "sunflower oil, honey, brown rice flour, sunflower seeds, pumpkin seeds, sea salt, natural flavour, mixed "
         "tocopherols.\nAllergens: Contains: none of the top 9. Made in a facility free from peanuts and tree nuts; "
         "certified by the Nut Free Certification Organization (cert. NFCO-22871).\n\n"
         + table(["nutrient", "amount"], [("Serving size", "2/3 cup (55 g)"), ("Calories", "250"), ("Total fat", "9 g"),
                                         ("Sodium", "95 mg"), ("Total carbohydrate", "38 g"), ("Dietary fibre", "4 g"),
                                         ("Total sugars", "12 g"), ("Protein", "6 g"), ("Iron", "1.8 mg")])
         + "\n\nAllergen information is supplied by the manufacturer and checked every 90 days.")
    b.say("It's certified nut-free (NFCO-22871), made in a facility free of peanuts and tree nuts; the seeds are "
          "sunflower and pumpkin. It's safe by your rule.")
    b.user("And what happens if something else runs out? I don't want random swaps.")
    c = b.call("fw_store_policy", topic="substitutions")
    b.ok(c, {"topic": "substitutions", "default": "allow similar", "options": ["allow similar", "choose for me: none",
                                                                              "specific substitute", "ask me"]},
         paragraphs(
             """Substitution settings apply per item or to the whole order. 'Allow similar' lets the picker choose
             a comparable item at the same or lower unit price. 'No substitutions' removes out-of-stock items and
             refunds them. 'Specific substitute' allows only the item the customer named. 'Ask me' makes the
             picker send the customer a substitution request in the app; if the customer does not answer within 10
             minutes, the item is treated as 'no substitution'.""",
             """Allergies: pickers do not check allergen statements when choosing similar items. Customers with
             allergies should set 'ask me' or 'no substitutions' on the whole order, and specific substitutes for
             the items that matter.""",
             """Infant formula and medicines are never substituted without the customer's approval, regardless of
             the order setting.""",
             """Refunds for removed items appear on the receipt; the card is charged only for what is delivered.""")
         + "\n\n" + fw_audit(b, datetime(2025, 10, 9, 20, 31), 380))
    b.say("Given the allergy, the policy itself recommends switching the whole order from 'allow similar' to 'ask "
          "me' (the picker messages you; no answer in 10 minutes means no substitution), keeping the specific Minor "
          "Figures choice for the oat milk. Formula is never substituted without your approval anyway. Want me to "
          "switch the order to 'ask me'?")
    b.user("Yes, do that.")
    c = b.call("fw_update_item", order_no=FW_ORDER, sku="*", substitution="ask me")
    b.ok(c, {"order_no": FW_ORDER, "substitutions_default": "ask me", "exceptions": {FW_OAT: "448851"}},
         fw_audit(b, datetime(2025, 10, 9, 20, 33), 490))
    b.say("Done: the order is on 'ask me', with the oat milk exception kept.")
    b.user("Oh no, I forgot: Saturday morning is swim lessons. Can we move delivery to Saturday afternoon, "
           "2 to 4?")
    b.correction("delivery_window", "2025-10-11 14:00-16:00", subject=f"order_no={FW_ORDER}")
    c = b.call("fw_delivery_windows", postcode="98107", date="2025-10-11")
    windows = [("W-1011-0800", "08:00-10:00", "full"), ("W-1011-1000", "10:00-12:00", "booked (yours)"),
               ("W-1011-1200", "12:00-14:00", "3 left"), ("W-1011-1400", "14:00-16:00", "2 left"),
               ("W-1011-1600", "16:00-18:00", "6 left"), ("W-1011-1800", "18:00-20:00", "9 left")]
    b.ok(c, {"postcode": "98107", "date": "2025-10-11", "windows": 6, "afternoon_window_id": "W-1011-1400"},
         table(["window_id", "time", "availability"], windows)
         + "\n\nDelivery fee is the same for all windows (5.99, waived over 150.00). Windows can be changed free of "
           "charge until 22:00 the evening before.\n\n" + fw_audit(b, datetime(2025, 10, 9, 20, 36), 410))
    b.say("Saturday 14:00-16:00 (W-1011-1400) has two slots left. Changes are free until 22:00 Friday. Shall I move "
          "it?")
    b.user("Yes please, book it.")
    b.decide("move-window",
             next_call("fw_change_window", order_no=FW_ORDER, window_id="W-1011-1400"),
             fact("delivery_window", "2025-10-11 14:00-16:00", superseded=["2025-10-11 10:00-12:00"],
                  subject=f"order_no={FW_ORDER}", why="the user's correction replaces the original window"),
             fact("substitute_sku", "448851", subject=f"order_no={FW_ORDER}"))
    c = b.call("fw_change_window", order_no=FW_ORDER, window_id="W-1011-1400")
    b.ok(c, {"order_no": FW_ORDER, "delivery_window": "2025-10-11 14:00-16:00", "window_id": "W-1011-1400"},
         fw_audit(b, datetime(2025, 10, 9, 20, 38), 490))
    b.say("Moved: Saturday 11 October, 14:00-16:00.")
    b.system("Friday 10 October 2025, 18:45 US Pacific.")
    b.user("Change of plans again, sorry! My in-laws are visiting Saturday afternoon. Can it come Sunday "
           "morning instead, 9 to 11?")
    b.correction("delivery_window", "2025-10-12 09:00-11:00", subject=f"order_no={FW_ORDER}")
    c = b.call("fw_delivery_windows", postcode="98107", date="2025-10-12")
    sunday = [("W-1012-0700", "07:00-09:00", "5 left"), ("W-1012-0900", "09:00-11:00", "1 left"),
              ("W-1012-1100", "11:00-13:00", "4 left"), ("W-1012-1300", "13:00-15:00", "8 left"),
              ("W-1012-1500", "15:00-17:00", "full")]
    b.ok(c, {"postcode": "98107", "date": "2025-10-12", "windows": 5, "morning_window_id": "W-1012-0900"},
         table(["window_id", "time", "availability"], sunday)
         + "\n\nSunday orders are picked on Sunday morning from 06:00. Stock is replenished Saturday night for most "
           "dairy and produce.\n\n" + fw_audit(b, datetime(2025, 10, 10, 18, 46), 410))
    b.say("Sunday 12 October 09:00-11:00 (W-1012-0900) has one slot left. It's before the 22:00 cut-off, so no fee. "
          "One upside: Sunday orders are picked after the Saturday night restock, so the oat milk might be back.")
    b.user("Grab it!")
    b.decide("move-window-again",
             next_call("fw_change_window", order_no=FW_ORDER, window_id="W-1012-0900"),
             fact("delivery_window", "2025-10-12 09:00-11:00",
                  superseded=["2025-10-11 14:00-16:00", "2025-10-11 10:00-12:00"], subject=f"order_no={FW_ORDER}",
                  why="the second correction supersedes both earlier windows"),
             constraint(goal, "leave it out"))
    c = b.call("fw_change_window", order_no=FW_ORDER, window_id="W-1012-0900")
    b.ok(c, {"order_no": FW_ORDER, "delivery_window": "2025-10-12 09:00-11:00", "window_id": "W-1012-0900"},
         fw_audit(b, datetime(2025, 10, 10, 18, 48), 490))
    b.say("Booked: Sunday 12 October, 09:00-11:00.")
    b.user("Is there any coupon I should be using? Diapers are expensive.")
    c = b.call("fw_store_policy", topic="promotions")
    promos = [("BABY10", "10% off diapers and wipes", "member", "2025-10-31"),
              ("FRESH5", "5.00 off orders over 75.00 (produce week)", "all", "2025-10-12"),
              ("SPARKLE2", "2 for 9.00 sparkling water 12 pk", "all", "2025-10-15"),
              ("COFFEE3", "3.00 off whole bean coffee", "member", "2025-10-20")]
    b.ok(c, {"topic": "promotions", "eligible": ["BABY10", "FRESH5", "COFFEE3"], "stackable": True},
         table(["code", "offer", "who", "until"], promos)
         + "\n\n" + paragraphs("""Member coupons apply to Fenwick Rewards members. Coupons stack except where noted;
                               the gift card is applied after coupons and tax. FRESH5 requires delivery by
                               2025-10-12.""")
         + "\n\n" + fw_audit(b, datetime(2025, 10, 10, 18, 52), 410))
    b.say("You're a Rewards member, so three apply: BABY10 (10% off diapers and wipes, about 5.15 here), FRESH5 (5.00 "
          "off over 75.00, valid for deliveries through Sunday, so your new window still qualifies) and COFFEE3 (3.00 "
          "off the coffee). Shall I add all three?")
    b.user("Yes, all three.")
    for code in ("BABY10", "FRESH5", "COFFEE3"):
        c = b.call("fw_apply_coupon", order_no=FW_ORDER, code=code)
        b.ok(c, {"order_no": FW_ORDER, "code": code, "applied": True}, fw_audit(b, datetime(2025, 10, 10, 18, 55), 350))
    b.say("All three coupons are on the order; they'll be applied to the final total after picking.")
    b.user("It's my son's birthday on Sunday. Can you add a small chocolate cake from the bakery?")
    c = b.call("fw_product_info", sku="510230")
    b.ok(c, {"sku": "510230", "name": "Chocolate fudge cake 6in (in-store bakery)", "price": "18.99",
             "tree_nut_risk": "may contain"},
         "510230 Chocolate fudge cake 6in (in-store bakery) - 18.99\n\nIngredients: sugar, enriched flour, eggs, "
         "butter, cocoa, buttermilk, canola oil, chocolate chips (sugar, chocolate liquor, cocoa butter, soy lecithin), "
         "baking soda, salt, vanilla.\nAllergens: Contains: wheat, eggs, milk, soy. MAY CONTAIN: tree nuts, peanuts "
         "(made in an in-store bakery that also uses almonds, walnuts and pecans).\n\n"
         + table(["other bakery cakes", "sku", "tree nut statement"], [
             ("Vanilla birthday cake 6in", "510218", "may contain tree nuts"),
             ("Carrot cake 6in", "510244", "contains walnuts"),
             ("Chocolate cupcakes 4 pk", "510301", "may contain tree nuts")])
         + "\n\nPackaged alternatives from nut-free manufacturers:\n"
         + table(["item", "sku", "price", "allergen statement"], [
             ("Sweet Loren's-style chocolate cake mix (nut-free facility)", "520910", "6.49", "Contains: wheat, soy. Nut-free facility."),
             ("Nut-free chocolate cupcakes 6 pk (Happy Bakes)", "520944", "9.99", "Contains: wheat, eggs, milk. Certified nut-free."),
             ("Birthday candles, assorted", "530112", "2.99", "n/a")])
         + "\n\n" + fw_audit(b, datetime(2025, 10, 10, 19, 2), 380))
    b.say("I'd better not: every cake from the in-store bakery carries a 'may contain tree nuts' warning (the bakery "
          "also uses almonds, walnuts and pecans), and the carrot cake contains walnuts. There are two nut-free "
          "packaged options: Happy Bakes nut-free chocolate cupcakes, 6 pack, 9.99 (certified nut-free), or a "
          "chocolate cake mix made in a nut-free facility, 6.49. Candles are 2.99.")
    b.user("The cupcakes and candles then.")
    for sku, name, _, _ in FW_ADDED:
        c = b.call("fw_update_item", order_no=FW_ORDER, sku=sku, qty=1, substitution="no substitutions")
        b.ok(c, {"order_no": FW_ORDER, "sku": sku, "added": name, "qty": 1}, fw_audit(b, datetime(2025, 10, 10, 19, 6), 340))
    b.say("Added the Happy Bakes nut-free cupcakes (9.99) and candles (2.99), both set to no substitutions so nothing "
          "from the bakery can sneak in.")

    b.system("Sunday 12 October 2025, 06:40 US Pacific.")
    b.user("Morning! How's the picking going?")
    c = b.call("fw_order_status", order_no=FW_ORDER)
    statuses = {FW_OAT: "found (backroom)", FW_FORMULA: "NOT FOUND", "160044": "picked 1.46 lb", "101233": "picked 3.1 lb"}
    b.ok(c, {"order_no": FW_ORDER, "stage": "picking", "picker": "Dee R.", "picked": len(FW_ITEMS) + len(FW_ADDED) - 1, "missing": [FW_FORMULA],
             FW_OAT: "found (backroom)"},
         fw_order_table(statuses, FW_ITEMS + FW_ADDED))
    b.verification(True, "448812 oat milk found in the backroom by the picker; the shelf scan was right about the shelf, "
                         "the inventory right about the store")
    b.say("Good news on the oat milk: Dee, your picker, found the Oatside in the backroom, so no substitute needed. "
          "Everything else is picked, including the cupcakes. The one problem is the Kendamil formula: she couldn't find it.")
    c = b.call("fw_message_picker", order_no=FW_ORDER, text="Customer asks: please check the locked case for Kendamil "
               "stage 1 (220145); inventory showed 9 on Thursday.")
    b.ok(c, {"order_no": FW_ORDER, "message_id": "PKM-5521"}, fw_audit(b, datetime(2025, 10, 12, 6, 42), 380))
    picker_req = b.user("Ugh. Did she look in the locked case? What is she saying?")
    b.approval("SUB-8821", "requested", picker_req,
               {"order_no": FW_ORDER, "sku": FW_FORMULA, "substitute_sku": "220161",
                "substitute": "Bobbie Organic infant formula 800 g"},
               "Picker Dee R. asks to substitute Kendamil Classic stage 1 800 g (220145, locked case empty; 9 units "
               "recorded were sold Saturday) with Bobbie Organic infant formula 800 g (220161). Customer to answer "
               "within 10 minutes.")
    b.say("She checked: the locked case is empty (the 9 sold out on Saturday). She's asking in the app whether she may "
          "substitute Bobbie Organic infant formula 800 g (SUB-8821). She's waiting for your answer.")
    b.user("What do I tell her? Remind me what I said.")
    b.decide("formula-request",
             pending("SUB-8821", why="the picker's substitution request is open"),
             constraint(goal, "no substitutions at all for the baby formula", why="the user's own rule answers it"),
             next_call("fw_message_picker", order_no=FW_ORDER, sku=FW_FORMULA),
             fact("delivery_window", "2025-10-12 09:00-11:00",
                  superseded=["2025-10-11 14:00-16:00", "2025-10-11 10:00-12:00"], subject=f"order_no={FW_ORDER}"))
    b.say("You told me on Thursday: no substitutions at all for the formula; if it's out, leave it out. Shall I decline "
          "the Bobbie swap and have it removed?")
    b.user("Right. Decline it, leave it out.")
    b.approval("SUB-8821", "denied", picker_req,
               {"order_no": FW_ORDER, "sku": FW_FORMULA, "substitute_sku": "220161"},
               "Customer declined the formula substitution; remove 220145 from the order and refund it.",
               granted_by="Mei Tanaka (customer)")
    c = b.call("fw_message_picker", order_no=FW_ORDER, sku=FW_FORMULA,
               text="Customer declines the substitution. Please leave the formula out (no substitute).")
    b.ok(c, {"order_no": FW_ORDER, "message_id": "PKM-5530", "sku": FW_FORMULA, "resolution": "removed"},
         fw_audit(b, datetime(2025, 10, 12, 6, 49), 410))
    b.say("Declined and told Dee: the formula is left out and won't be charged.")
    b.user("Picking done? What's the total now?")
    c = b.call("fw_receipt", order_no=FW_ORDER)
    weights = {"160044": "17.51", "101233": "2.14"}
    final = fw_totals(FW_ITEMS + FW_ADDED, removed=[FW_FORMULA], weights=weights)
    lines = [(sku, name, qty, weights.get(sku, price) if sku != FW_FORMULA else "0.00 (removed)")
             for sku, name, qty, price in FW_ITEMS + FW_ADDED]
    b.ok(c, {"order_no": FW_ORDER, "subtotal": final["subtotal"], "coupons": final["coupons"], "tax": final["tax"],
             "delivery_fee": "0.00", "total": final["total"], "removed": [FW_FORMULA]},
         table(["sku", "item", "qty", "price"], lines)
         + f"\n\nSubtotal {final['subtotal']} (salmon 1.46 lb at 11.99/lb = 17.51; bananas 3.1 lb = 2.14). Coupons: "
           f"BABY10 -{final['baby10']}, FRESH5 -5.00, COFFEE3 -3.00. Tax {final['tax']} (non-food items only). "
           f"Delivery fee waived (over 150.00). Total {final['total']}. Removed: 220145 (out of stock, substitution "
           "declined), not charged.")
    b.say(f"Picking is done: total {final['total']} after {final['coupons'][1:]} in coupons and {final['tax']} tax, "
          "delivery free. The formula is removed and not charged.")
    b.user("OK, put my gift card on it now, and the rest on my Visa.")
    b.decide("gift-card",
             next_call("fw_redeem_gift_card", card_code="GC-7731-5520-9912", order_no=FW_ORDER,
                       why="the code was given in the user's first message, three days earlier"),
             fact("total", final["total"], subject=f"order_no={FW_ORDER}"),
             constraint(goal, "25.00"))
    gift = b.call("fw_redeem_gift_card", card_code="GC-7731-5520-9912", order_no=FW_ORDER, amount="25.00")
    due = f"{float(final['total']) - 25:.2f}"
    gift_res = b.ok(gift, {"card_code": "GC-7731-5520-9912", "redeemed": "25.00", "card_balance": "0.00",
                           "amount_due": due, "redemption_id": "GCR-90417"},
                    paragraphs("""Gift card redemptions are final: the balance is transferred to the order and cannot be
                               restored to the card, even if the order is later refunded (refunds of gift card
                               amounts are issued as store credit).""")
                    + "\n\n" + fw_audit(b, datetime(2025, 10, 12, 7, 5), 460))
    b.say(f"Gift card applied: 25.00 redeemed (GCR-90417), card balance now 0.00. The remaining {due} goes on your "
          "Visa ending 2284 at delivery.")
    b.user("Wait, did the gift card definitely go through? I got no email.")
    b.decide("gift-card-check",
             state(gift, "succeeded", b.request_id_of(gift_res)),
             evidence(gift.seq, gift_res, why="an irreversible redemption, the order subtask still open"),
             fact("amount_due", due))
    b.say("It did: redemption GCR-90417 took the full 25.00; the e-mail receipt comes with the delivery confirmation. "
          f"You'll pay {due} on the Visa.")
    b.user("Thanks. And the oat milk: did she use the Minor Figures or was it the real one?")
    c = b.call("fw_order_status", order_no=FW_ORDER)
    b.ok(c, {"order_no": FW_ORDER, "stage": "out for delivery", "eta": "09:25", FW_OAT: "picked (original)",
             "driver": "Sam P.", "van": "FW-14-07"},
         fw_order_table({**statuses, FW_OAT: "picked (original, backroom)", FW_FORMULA: "removed"}, FW_ITEMS + FW_ADDED))
    b.subtask_end(f"Order GRO-604417 picked, paid (gift card GCR-90417 + Visa {due}) and out for delivery.")
    b.say("The real Oatside, from the backroom; no substitutes at all in the end. Sam is on the way in van FW-14-07, "
          "arriving around 09:25.")
    b.user("It's 9:40 and no one's here. Where is he?")
    c = b.call("fw_track_delivery", order_no=FW_ORDER)
    b.ok(c, {"order_no": FW_ORDER, "eta": "09:52", "stops_before": 1, "driver": "Sam P.", "delay_reason": "bridge opening"},
         "Route FW-14-07, Sunday 12 October\n" + table(["stop", "address", "planned", "actual", "state"], [
             (1, "NW 58th St", "08:55", "09:02", "delivered"), (2, "24th Ave NW", "09:10", "09:21", "delivered"),
             (3, "Leary Way NW", "09:20", "09:41", "delivered"), (4, "NW 60th St", "09:30", "-", "next"),
             (5, "2218 NW 63rd St (you)", "09:25", "-", "eta 09:52"), (6, "NW 65th St", "09:45", "-", "planned")])
         + "\n\nDelay: Ballard Bridge opening 09:12-09:24. Deliveries inside the window are on time; the window ends "
           "11:00.\n\n" + fw_audit(b, datetime(2025, 10, 12, 9, 40), 360, "Telematics:"))
    b.say("He's one stop away: the Ballard Bridge opened 09:12-09:24 and put the route behind. New ETA 09:52, still well "
          "inside your 9-11 window.")
    b.user("He came. But the eggs: one carton is smashed, half the eggs broken.")
    c = b.call("fw_report_issue", order_no=FW_ORDER, sku="140219", issue="damaged", qty=1)
    b.ok(c, {"order_no": FW_ORDER, "sku": "140219", "refund": "4.79", "refund_to": "Visa ending 2284",
             "issue_id": "ISS-30441"},
         paragraphs("""Damaged item refund ISS-30441: 1 x Large brown eggs, dozen (4.79) refunded to the original card
                    (the gift card portion is never refunded to a gift card). No need to return the item; please
                    dispose of it. Refunds reach the card in 3-5 business days.""")
         + "\n\n" + fw_audit(b, datetime(2025, 10, 12, 10, 2), 410))
    b.subtask_end("Order GRO-604417 delivered; damaged eggs refunded (ISS-30441).", task_done=True)
    b.say("Sorry about that. I've refunded the smashed carton, 4.79, to your Visa (ISS-30441); no need to return it. "
          "Happy birthday to your son!")
    return b


# ----------------------------------------------------------------------------------------------
# 06 Clinic: an MRI rescheduled twice, a changed order, insurance pre-authorization
# ----------------------------------------------------------------------------------------------

LH_MRN, LH_ORDER, LH_MEMBER = "M-0094412", "ORD-55120", "CBH-448210977"
LH_ACTORS = ["scheduling-svc", "ehr", "assistant", "payer-gateway", "estimator", "notifications"]
LH_EVENTS = ["appointment.read", "patient.read demographics", "coverage.read primary", "order.read",
             "x12.278 exchange ok", "x12.270/271 eligibility ok", "reminder.scheduled sms", "slot.hold refreshed",
             "chart.access logged (treatment)", "hl7.ORM received"]


def lh_audit(b: Builder, start: datetime, target: int, head: str = "Audit trail:") -> str:
    return audit_trail(b.rng, start, LH_ACTORS, LH_EVENTS, target, head)


def lh_slots(b: Builder, rows: Sequence[tuple[str, str, str]], note: str) -> str:
    return (table(["slot_id", "start", "scanner"], rows) + "\n\n" + note + "\n\n"
            + lh_audit(b, datetime(2025, 7, 28, 10, 0), 460, "Slot search trace:"))


def lh_estimate_text(cpt: str, allowed: float, deductible_left: float) -> tuple[str, str]:
    """(patient responsibility, explanation) for an imaging claim: deductible first, then 20% coinsurance."""
    ded = min(allowed, deductible_left)
    coins = round((allowed - ded) * 0.20, 2)
    owed = f"{ded + coins:.2f}"
    rows = [("Allowed amount (Cobalt PPO contract, Lakeside Imaging)", f"{allowed:.2f}"),
            ("Applied to remaining deductible", f"{ded:.2f}"), ("Coinsurance 20% of the rest", f"{coins:.2f}"),
            ("Copay", "0.00 (advanced imaging has no copay on this plan)"), ("Estimated patient responsibility", owed)]
    return owed, (f"Good-faith estimate for CPT {cpt}\n" + table(["line", "amount"], rows) + "\n\n" + paragraphs(
        """This estimate uses the plan's benefits on the date it was produced and Lakeside's contracted rate. The
        final amount depends on the claim as processed by the payer, including any other claims processed first
        against the deductible. Radiologist reading fees are billed by Lakeside Radiology Associates and are
        included in the allowed amount shown.""",
        """Payment plans are available for balances over 200.00 with no interest for up to 12 months. Financial
        assistance applications can be made at any time before or after the service."""))


def traj_clinic() -> Builder:
    b = Builder(
        "clinic-mri-preauth", "Clinic: an MRI rescheduled twice, a changed order and insurance pre-authorization",
        ["an early scheduling rule (mornings before 11, never Thursdays) needed for the second reschedule",
         "appointment times superseded twice by reschedules",
         "the ordering physician changes the CPT code: the old code is superseded and the authorization must follow",
         "a pending physician signature (approval) that blocks the authorization update, later granted",
         "a model estimate from hearsay must not override the tool's cost estimate",
         "member id, auth number, order id and appointment id needed long after they were given"],
        "A patient books a knee MRI that needs prior authorization, moves it twice, and follows an order change "
        "from his orthopedist through scheduling, the payer and the cost estimate.",
        [("lh_patient_lookup", "read", ["mrn"]), ("lh_order_get", "read", ["order_id"]),
         ("cb_eligibility", "read", ["member_id"]), ("cb_auth_requirements", "read", ["cpt"]),
         ("cb_auth_submit", "write", ["member_id", "cpt"]), ("cb_auth_status", "read", ["auth_no"]),
         ("cb_auth_update", "write", ["auth_no"]), ("lh_slots", "read", ["location"]),
         ("lh_book", "write", ["order_id"]), ("lh_reschedule", "write", ["appointment_id"]),
         ("lh_prep_instructions", "read", ["cpt"]), ("lh_screening_submit", "write", ["appointment_id"]),
         ("lh_estimate", "read", ["order_id"]), ("lh_inbox", "read", ["mrn"]),
         ("lh_message_provider", "write", ["provider_id"]), ("lh_lab_order_status", "read", ["order_id"]),
         ("lh_rx_status", "read", ["mrn"]), ("lh_location_info", "read", ["location"])],
        seed=606)
    b.system("You are the scheduling assistant of Lakeside Health's patient portal. You help patients with "
             "appointments, orders, insurance authorizations and estimates through tools. Today is Monday 28 July "
             "2025, 10:00 US Central.")
    goal = b.user(
        "Hello, Harold Brennan here, MRN M-0094412. Dr. Alvarez ordered an MRI of my left knee and I need to book it. "
        "I can only do mornings, starting before 11, because I drive my wife to dialysis in the afternoons, and never "
        "on a Thursday, that's her long session. My insurance is Cobalt Health, member number CBH-448210977.")
    c = b.call("lh_patient_lookup", mrn=LH_MRN)
    b.ok(c, {"mrn": LH_MRN, "name": "Harold Brennan", "dob": "1957-03-14", "primary_insurance": "Cobalt Health PPO",
             "member_id": LH_MEMBER, "phone": "+1 612 555 0173", "preferred_location": "Lakeside Imaging - Riverside"},
         "Patient summary (scheduling view)\n" + "\n".join(f"{k:<26} {v}" for k, v in [
             ("address", "1184 Marshall Ave, St Paul MN 55104"), ("language", "English"), ("portal", "active since 2019"),
             ("emergency contact", "Joan Brennan (spouse)"), ("PCP", "Dr. Neil Okafor, Lakeside Internal Medicine"),
             ("allergies (from chart)", "iodinated contrast: hives (2016, CT abdomen)"),
             ("implants (from chart)", "left knee ACL reconstruction 2009, interference screws (details not on file)"),
             ("kidney function (from chart)", "eGFR 68 (2025-01-22)"), ("secondary insurance", "none")])
         + "\n\n" + lh_audit(b, datetime(2025, 7, 28, 10, 1), 400))
    c = b.call("lh_order_get", order_id=LH_ORDER)
    b.ok(c, {"order_id": LH_ORDER, "version": 1, "cpt": "73721",
             "description": "MRI left knee without contrast", "diagnosis": ["M23.222", "M25.562"],
             "ordering_provider": "Dr. Sofia Alvarez", "provider_id": "PRV-20871", "status": "signed"},
         paragraphs("""Order ORD-55120 v1, signed 2025-07-25 by Sofia Alvarez MD, Lakeside Orthopedics.
                    Exam: MRI knee left, without contrast (CPT 73721). Priority: routine, within 4 weeks.""",
                    """Clinical indication: 68-year-old male, 6 weeks of medial left knee pain with
                    mechanical locking after a twisting injury while gardening; positive McMurray test;
                    X-ray 2025-07-11 with mild medial joint space narrowing, no fracture. Conservative
                    treatment since 2025-06-15 (NSAIDs, home exercise programme, 4 weeks of physical
                    therapy) without improvement. Rule out medial meniscus tear.""",
                    """History: left ACL reconstruction 2009 (Dr. R. Hale, Fairview), hardware in situ.
                    Diagnoses: M23.222 derangement of posterior horn of medial meniscus, left knee;
                    M25.562 pain in left knee.""")
         + "\n\n" + lh_audit(b, datetime(2025, 7, 28, 10, 2), 340))
    b.say("Found you, Mr. Brennan. Dr. Alvarez's order ORD-55120 is for an MRI of the left knee without contrast "
          "(CPT 73721) to look for a meniscus tear. I've noted mornings only, starting before 11, and never Thursdays. "
          "Cobalt usually requires prior authorization for MRIs; let me check.")
    b.user("Yes, please. Last time I got a surprise bill.")
    c = b.call("cb_auth_requirements", cpt="73721", plan="Cobalt PPO")
    b.ok(c, {"cpt": "73721", "auth_required": True, "criteria": "CB-IMG-MSK-04", "turnaround_business_days": 2},
         paragraphs("""Cobalt Health clinical criteria CB-IMG-MSK-04, MRI of the knee (CPT 73721, 73722, 73723).
                    Prior authorization is required for all outpatient knee MRIs for PPO and HMO members. The
                    authorization is specific to the CPT code, the performing site and a date window; any change
                    to the code or the site requires an update before the service, and services outside the window
                    are not covered under the authorization.""",
                    """Criteria for MRI without contrast (73721): (a) suspected internal derangement with mechanical
                    symptoms (locking, catching, giving way) and a positive provocative test; and (b) 4 weeks of
                    conservative care including physical therapy or a documented reason it is not appropriate; and
                    (c) plain radiographs within 60 days.""",
                    """Criteria for MRI with and without contrast (73723): criteria for 73721 and one of: suspected
                    infection, tumour, inflammatory arthritis, or post-operative evaluation where hardware or graft
                    complications are suspected. Contrast studies require a serum creatinine/eGFR within 30 days
                    for members aged 60 or over.""",
                    """Turnaround: decisions within 2 business days for complete requests; urgent requests within
                    72 hours. Authorization windows are 30 days from the planned date of service unless stated
                    otherwise.""")
         + "\n\n" + lh_audit(b, datetime(2025, 7, 28, 10, 4), 490))
    b.say("Cobalt does require prior authorization for it. The order meets their criteria on paper (locking, positive "
          "test, four weeks of PT, a recent X-ray). The authorization will be tied to the exact exam code, the site "
          "and a date window, so if anything changes it has to be updated before the scan. Shall I check your "
          "benefits and submit it?")
    b.user("Go ahead.")
    c = b.call("cb_eligibility", member_id=LH_MEMBER, service="advanced imaging")
    b.ok(c, {"member_id": LH_MEMBER, "plan": "Cobalt PPO Gold 1500", "status": "active", "deductible": "1500.00",
             "deductible_remaining": "450.00", "coinsurance": "20%", "oop_max_remaining": "3780.00",
             "imaging_copay": "0.00"},
         "Eligibility response (X12 271), service type advanced imaging\n" + table(["benefit", "in network", "out of network"], [
             ("Deductible (individual)", "1,500.00 (1,050.00 met)", "3,000.00"), ("Coinsurance, advanced imaging", "20%", "40%"),
             ("Copay, advanced imaging", "none", "none"), ("Copay, specialist office visit", "40.00", "n/a"),
             ("Out-of-pocket maximum", "5,000.00 (1,220.00 met)", "10,000.00"), ("Prior authorization", "required", "required")])
         + "\n\nPlan year: calendar 2025. Coverage effective 2024-01-01, no termination date on file.\n\n"
         + lh_audit(b, datetime(2025, 7, 28, 10, 6), 380))
    auth = b.call("cb_auth_submit", member_id=LH_MEMBER, cpt="73721", order_id=LH_ORDER,
                  site="Lakeside Imaging - Riverside", planned_date="2025-08-05")
    b.ok(auth, {"member_id": LH_MEMBER, "auth_no": "PA-25-0731-88421", "status": "approved", "cpt": "73721",
                "valid_from": "2025-07-28", "valid_to": "2025-08-27", "site": "Lakeside Imaging - Riverside"},
         paragraphs("""Authorization PA-25-0731-88421 approved by automated criteria review (CB-IMG-MSK-04 path
                    A). Service: CPT 73721, one unit. Performing site: Lakeside Imaging - Riverside (NPI
                    1487706621). Valid for dates of service 2025-07-28 through 2025-08-27.""",
                    """This authorization confirms medical necessity only; payment is subject to eligibility and
                    plan benefits on the date of service.""")
         + "\n\n" + lh_audit(b, datetime(2025, 7, 28, 10, 7), 490))
    b.say("Your plan is Cobalt PPO Gold 1500: 450.00 of the deductible left, then 20% coinsurance; no copay for "
          "advanced imaging. Prior authorization PA-25-0731-88421 is approved for the exam at Lakeside Imaging - "
          "Riverside, for dates between 28 July and 27 August.")
    b.user("What appointments do they have?")
    c = b.call("lh_slots", location="Lakeside Imaging - Riverside", cpt="73721", start="2025-07-29")
    b.ok(c, {"location": "Lakeside Imaging - Riverside", "first_fit": "SL-0805-0930"},
         lh_slots(b, [("SL-0729-1430", "Tue 2025-07-29 14:30", "MR2 1.5T"), ("SL-0731-0800", "Thu 2025-07-31 08:00", "MR1 3T"),
                      ("SL-0801-1600", "Fri 2025-08-01 16:00", "MR2 1.5T"), ("SL-0804-1215", "Mon 2025-08-04 12:15", "MR1 3T"),
                      ("SL-0805-0930", "Tue 2025-08-05 09:30", "MR2 1.5T"), ("SL-0806-1045", "Wed 2025-08-06 10:45", "MR1 3T"),
                      ("SL-0807-0700", "Thu 2025-08-07 07:00", "MR2 1.5T")],
                  "Arrive 30 minutes early for safety screening. Exam time about 35 minutes without contrast."))
    b.say("The first slots that fit your rule (a morning start before 11, not a Thursday) are Tuesday 5 August at 09:30 "
          "(SL-0805-0930) and Wednesday 6 August at 10:45. The earlier ones are afternoons or on Thursday 31 July.")
    b.user("Could I do it at Eastgate instead? It's ten minutes from my house.")
    c = b.call("lh_slots", location="Lakeside Imaging - Eastgate", cpt="73721", start="2025-07-29")
    b.ok(c, {"location": "Lakeside Imaging - Eastgate", "first_fit": "SL-E-0812-0900", "auth_site_match": False},
         lh_slots(b, [("SL-E-0730-1500", "Wed 2025-07-30 15:00", "MR-E1 1.5T"), ("SL-E-0807-0800", "Thu 2025-08-07 08:00", "MR-E1 1.5T"),
                      ("SL-E-0811-1600", "Mon 2025-08-11 16:00", "MR-E1 1.5T"), ("SL-E-0812-0900", "Tue 2025-08-12 09:00", "MR-E1 1.5T")],
                  "Eastgate has one scanner (1.5T, wide bore). Authorizations naming another Lakeside site must be "
                  "updated with the payer before the exam; Cobalt treats each site as a separate performing "
                  "provider."))
    b.say("Eastgate's first slot that fits your rule is Tuesday 12 August 09:00, a week later than Riverside. Also, your "
          "authorization names Riverside, so using Eastgate would mean updating it with Cobalt first. Riverside on 5 "
          "August is sooner and already covered.")
    b.user("Riverside then. Book the earliest that works for me.")
    b.decide("book-first",
             next_call("lh_book", order_id=LH_ORDER, slot_id="SL-0805-0930", auth_no="PA-25-0731-88421"),
             constraint(goal, "never on a Thursday", why="the slot must respect the patient's rule"),
             fact("valid_to", "2025-08-27", why="the first authorization's window, from its approval"))
    c = b.call("lh_book", order_id=LH_ORDER, slot_id="SL-0805-0930", auth_no="PA-25-0731-88421")
    b.ok(c, {"order_id": LH_ORDER, "appointment_id": "APT-3310952", "appointment_start": "2025-08-05 09:30",
             "arrive_by": "09:00", "location": "Lakeside Imaging - Riverside"},
         lh_audit(b, datetime(2025, 7, 28, 10, 11), 540))
    b.say("Booked: Tuesday 5 August, 09:30 (arrive by 09:00) at Lakeside Imaging - Riverside, appointment "
          "APT-3310952, linked to the authorization.")
    b.user("Is there anything I need to do to prepare? I had knee surgery years ago, there's metal in there.")
    c = b.call("lh_prep_instructions", cpt="73721")
    b.ok(c, {"cpt": "73721", "screening_form": "MR-SAFE-2", "implant_documentation": "required if known"},
         paragraphs("""Preparing for your MRI. You can eat and take your usual medicines. Wear clothes without
                    metal or change into a gown. Leave jewellery, watches, hearing aids and cards at home or in the
                    locker.""",
                    """Safety screening. MRI uses a strong magnet. Before your exam you must complete the MR-SAFE-2
                    questionnaire. Tell us about pacemakers, defibrillators, neurostimulators, cochlear implants,
                    aneurysm clips, insulin pumps, metal fragments in the eyes, and any surgical implants.""",
                    """Orthopaedic implants such as screws, plates and joint replacements are usually safe for MRI,
                    but we need the implant's make and material to confirm. If you have an implant card or the
                    operative report, please upload it before your visit. Without it, the technologist may need to
                    contact the radiologist, which can delay or postpone the exam.""",
                    """Contrast. Some exams use gadolinium contrast through an IV. If your exam includes contrast,
                    you may need a recent kidney blood test (eGFR), and you must tell us about any previous reaction
                    to a contrast agent.""")
         + "\n\n" + lh_audit(b, datetime(2025, 7, 28, 10, 13), 460))
    b.say("Eat and take your medicines normally. The important part for you: fill in the MR-SAFE-2 screening and, if "
          "you can, upload your implant card or the operative report from the 2009 ACL surgery, so they know what the "
          "screws are made of; otherwise the scan could be delayed on the day.")
    b.user("I found the card from Fairview. It says 'Arthrex bio-interference screw, PEEK' and a titanium one. Fill in "
           "the form: no pacemaker, nothing else, no metal in my eyes.")
    c = b.call("lh_screening_submit", appointment_id="APT-3310952", form="MR-SAFE-2",
               answers={"pacemaker": "no", "neurostimulator": "no", "eye_metal": "no",
                        "implants": "left knee: Arthrex PEEK interference screw; titanium interference screw (2009)"})
    b.ok(c, {"appointment_id": "APT-3310952", "screening": "accepted", "mr_conditional": "titanium screw: MR safe",
             "review": "none needed"},
         paragraphs("""MR-SAFE-2 accepted. Implants: PEEK interference screw (non-metallic, MR safe); titanium
                    interference screw (non-ferromagnetic, MR safe at 1.5T and 3T). Titanium may cause a small
                    susceptibility artefact near the tibial tunnel; the technologist will adjust sequences.""")
         + "\n\n" + lh_audit(b, datetime(2025, 7, 28, 10, 20), 540))
    b.say("Screening accepted: both screws are MR safe. The titanium one may cause a small artefact on the images near "
          "the tunnel, which the technologist can work around. Nothing else needed.")
    b.user("And what will this cost me, all in?")
    c = b.call("lh_estimate", order_id=LH_ORDER, cpt="73721")
    owed_v1, est_text = lh_estimate_text("73721", 1386.00, 450.00)
    b.ok(c, {"order_id": LH_ORDER, "cpt": "73721", "allowed": "1386.00", "patient_responsibility": owed_v1,
             "estimate_id": "GFE-77120"},
         est_text + "\n\n" + lh_audit(b, datetime(2025, 7, 28, 10, 22), 440))
    b.say(f"Estimate GFE-77120: the allowed amount is 1,386.00. The first 450.00 goes to your remaining deductible, "
          f"then you pay 20% of the rest, so about {owed_v1} in total. No copay on advanced imaging. Payment plans "
          "exist for balances over 200.00.")
    b.user(f"Hm. My neighbour with Cobalt said he only paid $40 for his MRI at Lakeside.")
    b.guess("patient_responsibility", "40.00", subject=f"order_id={LH_ORDER}")
    b.say("That may be his plan: 40.00 is the specialist office visit copay on some Cobalt plans, yours included, and "
          "some HMO plans charge a flat copay for imaging. If your plan worked that way you'd pay about 40.00, but "
          f"your benefits say advanced imaging is deductible then 20% coinsurance, so the estimate of {owed_v1} is the "
          "one to plan on.")

    b.system("Thursday 31 July 2025, 16:20 US Central.")
    b.user("Bad news: I have to be in Duluth for my brother the week of the 4th. Can we move it to the week after?")
    c = b.call("lh_slots", location="Lakeside Imaging - Riverside", cpt="73721", start="2025-08-11")
    b.ok(c, {"location": "Lakeside Imaging - Riverside", "first_fit": "SL-0812-1000"},
         lh_slots(b, [("SL-0811-1300", "Mon 2025-08-11 13:00", "MR1 3T"), ("SL-0812-1000", "Tue 2025-08-12 10:00", "MR2 1.5T"),
                      ("SL-0813-1130", "Wed 2025-08-13 11:30", "MR2 1.5T"), ("SL-0814-0830", "Thu 2025-08-14 08:30", "MR1 3T"),
                      ("SL-0815-0900", "Fri 2025-08-15 09:00", "MR1 3T")],
                  "Rescheduling is free up to 24 hours before the appointment."))
    b.say("For the week of 11 August, the slots that fit are Tuesday 12 August 10:00 (SL-0812-1000) and Friday 15 "
          "August 09:00. Monday's is an afternoon, Wednesday's starts at 11:30 and Thursday is out. The authorization "
          "runs to 27 August, so either date is covered. Tuesday?")
    b.user("Tuesday at 10 is fine.")
    c = b.call("lh_reschedule", appointment_id="APT-3310952", slot_id="SL-0812-1000")
    b.ok(c, {"appointment_id": "APT-3310952", "appointment_start": "2025-08-12 10:00", "arrive_by": "09:30",
             "auth_no": "PA-25-0731-88421", "auth_covers_date": True},
         lh_audit(b, datetime(2025, 7, 31, 16, 24), 560))
    b.say("Moved: Tuesday 12 August at 10:00, arrive by 09:30. Same appointment number, and the authorization still "
          "covers it.")
    b.system("Friday 1 August 2025, 11:05 US Central.")
    b.user("Dr. Alvarez's nurse called me this morning about changing the MRI. Is there something in my messages?")
    c = b.call("lh_inbox", mrn=LH_MRN)
    b.ok(c, {"mrn": LH_MRN, "unread": 2, "latest_from": "Lakeside Orthopedics - Dr. Alvarez's team"},
         emails([("Lakeside Orthopedics <ortho-alvarez@lakeside.example>", "Fri, 1 Aug 2025 09:12", "Your knee MRI",
                  """Hello Mr. Brennan, this is Carla, Dr. Alvarez's nurse. After reviewing your 2009 operative report
                  from Fairview, Dr. Alvarez would like the MRI done with and without contrast, because she wants to
                  look at the ACL graft and the screw tunnels as well as the meniscus. She is updating the order today
                  (the exam code changes to 73723). Because you had hives with CT contrast in 2016, she will also
                  prescribe a premedication (prednisone and diphenhydramine) to take before the scan; MRI contrast is
                  a different kind of agent, but we want to be careful. You will also need a blood test for kidney
                  function (creatinine) within 30 days before the scan; an order has been placed at the Riverside
                  lab, no appointment needed. Please call us with any questions. Carla RN"""),
                 ("Lakeside Health <noreply@lakeside.example>", "Thu, 31 Jul 2025 16:25", "Appointment changed",
                  """Your appointment APT-3310952 (MRI) is now on Tuesday 12 August 2025 at 10:00 at Lakeside Imaging -
                  Riverside. Please arrive by 09:30.""")]))
    b.say("Yes: Dr. Alvarez wants it done with and without contrast (code 73723) to look at the ACL graft and screw "
          "tunnels too. Because of your 2016 reaction to CT contrast she'll prescribe premedication, and you need a "
          "creatinine blood test within 30 days before the scan (walk-in at the Riverside lab). The authorization we "
          "have is for 73721 only, so it has to be updated once her new order is signed.")
    b.user("OK. Is the new order there yet?")
    c = b.call("lh_order_get", order_id=LH_ORDER)
    b.ok(c, {"order_id": LH_ORDER, "version": 2, "cpt": "73723",
             "description": "MRI left knee without and with contrast", "status": "pending signature",
             "ordering_provider": "Dr. Sofia Alvarez", "provider_id": "PRV-20871",
             "premedication": "prednisone 50 mg 13/7/1 h before; diphenhydramine 50 mg 1 h before"},
         paragraphs("""Order ORD-55120 v2 (replaces v1), drafted 2025-08-01 08:50 by C. Ruiz RN for Sofia
                    Alvarez MD. Exam: MRI knee left, without and with contrast (CPT 73723). Reason for
                    change: post-operative evaluation of the ACL graft and tibial and femoral tunnels
                    (hardware in situ, 2009) in addition to the meniscus.""",
                    """Status: pending the ordering provider's electronic signature. Until it is signed,
                    v1 (73721) remains the active order for scheduling and authorization purposes.""")
         + "\n\n" + lh_audit(b, datetime(2025, 8, 1, 11, 7), 490))
    sign = b.user("Can you make sure Dr. Alvarez actually signs it? I don't want it stuck.")
    b.approval("SIG-ORD-55120-2", "requested", sign,
               {"order_id": LH_ORDER, "version": 2, "cpt": "73723", "provider_id": "PRV-20871"},
               "Signature requested from Dr. Sofia Alvarez for order ORD-55120 v2 (MRI left knee without and with "
               "contrast, CPT 73723). The authorization update waits for it.")
    c = b.call("lh_message_provider", provider_id="PRV-20871",
               text="Patient asks that order ORD-55120 v2 (73723) be signed so the Cobalt authorization can be updated "
                    "before the scan on 12 Aug.")
    b.ok(c, {"provider_id": "PRV-20871", "message_id": "MSG-PRV-44120"}, lh_audit(b, datetime(2025, 8, 1, 11, 10), 490))
    b.say("The new version is drafted (73723) but not signed yet, so the old 73721 order is still the active one. I've "
          "sent a signature request (SIG-ORD-55120-2) and a message to Dr. Alvarez's team asking her to sign it before "
          "your scan.")
    b.user("What's holding things up now, exactly?")
    b.decide("order-change",
             pending("SIG-ORD-55120-2", why="the signature blocks the authorization update"),
             fact("cpt", "73723", superseded=["73721"], subject=f"order_id={LH_ORDER}",
                  why="the new order version replaces the exam code"),
             fact("appointment_start", "2025-08-12 10:00", superseded=["2025-08-05 09:30"],
                  subject="appointment_id=APT-3310952"),
             fact("patient_responsibility", owed_v1, superseded=["40.00"], subject=f"order_id={LH_ORDER}",
                  why="the estimator's figure, not the model's 40.00 from the neighbour's story"))
    b.say("Two things, in order: Dr. Alvarez's signature on the new order, then Cobalt's approval of the updated code "
          "(contrast studies also need your creatinine result). The scan date itself is fine for now.")
    b.user("I went to the lab this morning for the blood test. Did they get it?")
    c = b.call("lh_lab_order_status", order_id="LAB-88012")
    b.ok(c, {"order_id": "LAB-88012", "test": "creatinine, serum with eGFR", "collected": "2025-08-01 08:40",
             "status": "resulted", "egfr": "71", "creatinine": "1.08 mg/dL"},
         table(["test", "result", "reference", "flag"], [("Creatinine, serum", "1.08 mg/dL", "0.74-1.35", ""),
                                                       ("eGFR (CKD-EPI 2021)", "71 mL/min/1.73m2", ">60", ""),
                                                       ("BUN", "17 mg/dL", "6-24", "")])
         + "\n\nCollected 2025-08-01 08:40 at Riverside lab; resulted 10:52. Valid for contrast screening until "
           "2025-08-31.\n\n" + lh_audit(b, datetime(2025, 8, 1, 11, 15), 490))
    b.say("Yes: creatinine 1.08, eGFR 71, both normal, resulted at 10:52. It's valid for contrast until 31 August.")
    b.user("And the premedication prescription, did it go to my pharmacy?")
    c = b.call("lh_rx_status", mrn=LH_MRN)
    b.ok(c, {"mrn": LH_MRN, "prescriptions": 2, "pharmacy": "Snelling Avenue Pharmacy, St Paul", "status": "ready for pickup"},
         table(["rx", "drug", "sig", "qty", "status"], [
             ("RX-5510231", "prednisone 50 mg tablet", "1 tab 13 h, 7 h and 1 h before MRI", "3", "ready for pickup"),
             ("RX-5510232", "diphenhydramine 50 mg capsule", "1 cap 1 h before MRI; no driving for 8 h", "1", "ready for pickup")])
         + "\n\n" + paragraphs("""Prescribed 2025-08-01 by Sofia Alvarez MD for contrast premedication (prior reaction to
                              iodinated contrast, 2016). The patient must not drive after diphenhydramine; arrange a
                              driver.""")
         + "\n\n" + lh_audit(b, datetime(2025, 8, 1, 11, 20), 460))
    b.say("Both are ready at Snelling Avenue Pharmacy: prednisone 50 mg (one tablet 13, 7 and 1 hour before the scan) "
          "and diphenhydramine 50 mg (one hour before). No driving for 8 hours after the diphenhydramine, so you'll "
          "need a ride.")

    b.system("Tuesday 5 August 2025, 09:40 US Central.")
    b.approval("SIG-ORD-55120-2", "granted", sign,
               {"order_id": LH_ORDER, "version": 2, "cpt": "73723", "provider_id": "PRV-20871"},
               "Dr. Sofia Alvarez signed order ORD-55120 v2 (CPT 73723) on 2025-08-05 08:58.",
               granted_by="Dr. Sofia Alvarez (ordering provider)")
    b.user("Dr. Alvarez's office says she signed it. Please update the insurance now.")
    b.decide("auth-update",
             next_call("cb_auth_update", auth_no="PA-25-0731-88421", cpt="73723", member_id=LH_MEMBER,
                       why="the auth number and member id came from the first days of the conversation"),
             fact("cpt", "73723", superseded=["73721"], subject=f"order_id={LH_ORDER}"),
             fact("egfr", "71", subject="order_id=LAB-88012"))
    c = b.call("cb_auth_update", auth_no="PA-25-0731-88421", cpt="73723", member_id=LH_MEMBER, order_id=LH_ORDER,
               planned_date="2025-08-12", attachments=["ORD-55120 v2", "LAB-88012", "Fairview op note 2009"])
    b.ok(c, {"auth_no": "PA-25-0731-88421", "status": "pended - clinical review", "cpt": "73723",
             "decision_due": "2025-08-07", "reviewer": "Cobalt musculoskeletal nurse reviewer"},
         paragraphs("""Update to PA-25-0731-88421 received: CPT 73721 -> 73723. Automated criteria path not met for
                    73723 (post-operative evaluation requires clinical review). Pended for nurse review; decision
                    due within 2 business days (by 2025-08-07). The original approval for 73721 is suspended while
                    the update is reviewed.""",
                    """If the updated service is approved, the authorization window is recalculated from the
                    planned date of service.""")
         + "\n\n" + lh_audit(b, datetime(2025, 8, 5, 9, 44), 490))
    b.say("Submitted. Cobalt's automated check doesn't cover post-operative contrast studies, so a nurse reviewer will "
          "decide by Thursday 7 August. Your 12 August appointment can stay for now.")
    b.system("Friday 8 August 2025, 09:15 US Central.")
    b.user("Did Cobalt decide?")
    c = b.call("cb_auth_status", auth_no="PA-25-0731-88421")
    b.ok(c, {"auth_no": "PA-25-0731-88421", "status": "approved", "cpt": "73723", "valid_from": "2025-08-15",
             "valid_to": "2025-09-14", "site": "Lakeside Imaging - Riverside"},
         paragraphs("""Approved 2025-08-07 16:40 by nurse reviewer (CB-IMG-MSK-04, post-operative path). Service: CPT
                    73723, one unit, Lakeside Imaging - Riverside. Valid for dates of service 2025-08-15 through
                    2025-09-14. Note from the reviewer: the requested window start was moved to 2025-08-15 because
                    the premedication protocol requires a pharmacy fill and the reviewer's standard 7-day lead time
                    for contrast studies with a prior reaction.""",
                    """Dates of service before 2025-08-15 are not covered under this authorization.""")
         + "\n\n" + lh_audit(b, datetime(2025, 8, 8, 9, 16), 490))
    b.say("Approved for the contrast MRI (73723), but only for dates from 15 August to 14 September. Your appointment on "
          "Tuesday 12 August falls before the window, so it would not be covered. We need to move it once more.")
    b.user("Unbelievable. Fine, find me something from the 15th.")
    c = b.call("lh_slots", location="Lakeside Imaging - Riverside", cpt="73723", start="2025-08-15")
    b.ok(c, {"location": "Lakeside Imaging - Riverside", "first_fit": "SL-0819-0815"},
         lh_slots(b, [("SL-0815-1400", "Fri 2025-08-15 14:00", "MR1 3T"), ("SL-0818-1330", "Mon 2025-08-18 13:30", "MR2 1.5T"),
                      ("SL-0819-0815", "Tue 2025-08-19 08:15", "MR2 1.5T"), ("SL-0821-0900", "Thu 2025-08-21 09:00", "MR1 3T"),
                      ("SL-0822-1115", "Fri 2025-08-22 11:15", "MR2 1.5T")],
                  "Contrast exams take about 50 minutes and need an IV; a radiologist must be on site, which limits "
                  "contrast slots."))
    b.say("From the 15th, contrast slots are fewer. Friday 15th is at 14:00, Monday 18th at 13:30, Thursday 21st is a "
          "Thursday and Friday 22nd starts at 11:15. The one that fits is Tuesday 19 August at 08:15 (SL-0819-0815).")
    b.user("Whatever fits my rules. Do it.")
    b.decide("second-reschedule",
             next_call("lh_reschedule", appointment_id="APT-3310952", slot_id="SL-0819-0815"),
             constraint(goal, "starting before 11", why="the patient's rule rules out the other contrast slots"),
             fact("valid_from", "2025-08-15", subject="auth_no=PA-25-0731-88421"),
             fact("appointment_start", "2025-08-12 10:00", superseded=["2025-08-05 09:30"],
                  subject="appointment_id=APT-3310952", why="the current booking, before this second move"))
    resched2 = b.call("lh_reschedule", appointment_id="APT-3310952", slot_id="SL-0819-0815", cpt="73723")
    moved2 = b.ok(resched2, {"appointment_id": "APT-3310952", "appointment_start": "2025-08-19 08:15", "arrive_by": "07:30",
                      "auth_no": "PA-25-0731-88421", "auth_covers_date": True},
                  lh_audit(b, datetime(2025, 8, 8, 9, 20), 560))
    b.say("Done: Tuesday 19 August at 08:15, arrive by 07:30 for the IV and screening. It's inside Cobalt's window. "
          "Take the premedication as prescribed: prednisone 13, 7 and 1 hour before, diphenhydramine 1 hour before, so "
          "you'll need someone to drive you home.")
    b.user("And now what will it cost, with the contrast?")
    c = b.call("lh_estimate", order_id=LH_ORDER, cpt="73723")
    owed_v2, est_text2 = lh_estimate_text("73723", 2214.00, 450.00)
    b.ok(c, {"order_id": LH_ORDER, "cpt": "73723", "allowed": "2214.00", "patient_responsibility": owed_v2,
             "estimate_id": "GFE-77388"},
         est_text2 + "\n\n" + lh_audit(b, datetime(2025, 8, 8, 9, 22), 440))
    b.say(f"New estimate GFE-77388 for the contrast study: allowed 2,214.00, so 450.00 deductible plus 20% of the rest, "
          f"about {owed_v2}.")
    b.user("What's different on the day with contrast? And where do I park?")
    c = b.call("lh_location_info", location="Lakeside Imaging - Riverside")
    b.ok(c, {"location": "Lakeside Imaging - Riverside", "address": "2450 Riverside Ave, Minneapolis MN 55454",
             "parking": "Ramp C, level 1, validated"},
         paragraphs("""Lakeside Imaging - Riverside, 2450 Riverside Ave, Minneapolis. Entrance from 25th Avenue; check in
                    at the Imaging desk on the ground floor. Parking in Ramp C, level 1 (validated at check-in, 3
                    hours). Drop-off loop at the main entrance.""",
                    """Contrast exams: an IV is placed in the arm at check-in. A nurse reviews your premedication and
                    allergy history. Gadolinium is injected halfway through the scan; you may feel coolness at the IV
                    site. After the scan you stay 30 minutes for observation if you have had a previous reaction to
                    any contrast agent. Drink plenty of water for the rest of the day.""",
                    """Companions may wait in the lounge; they cannot enter the scanner room. Wheelchairs are at the
                    entrance.""")
         + "\n\n" + lh_audit(b, datetime(2025, 8, 8, 9, 25), 490))
    b.say("Park in Ramp C, level 1 (validated for 3 hours) at 2450 Riverside Ave and check in at the Imaging desk. "
          "With contrast they'll put in an IV at check-in, a nurse will check your premedication, the contrast goes in "
          "halfway through, and because of your past reaction you'll stay 30 minutes afterwards for observation. Your "
          "driver can wait in the lounge.")
    b.system("Monday 18 August 2025, 17:30 US Central.")
    b.user("Anything I need for tomorrow? I want to be sure nothing changed again.")
    c = b.call("lh_inbox", mrn=LH_MRN)
    b.ok(c, {"mrn": LH_MRN, "unread": 1, "latest_from": "Lakeside Health reminders"},
         emails([("Lakeside Health <noreply@lakeside.example>", "Mon, 18 Aug 2025 09:00", "Reminder: MRI tomorrow",
                  """Your appointment APT-3310952, MRI knee left without and with contrast, is on Tuesday 19 August 2025
                  at 08:15 at Lakeside Imaging - Riverside. Please arrive by 07:30. Take your premedication as
                  prescribed (first dose tonight at 19:15). Bring a photo ID and your insurance card. You must have a
                  driver. Reply C to confirm or call 612-555-0100 to reschedule."""),
                 ("Cobalt Health <no-reply@cobalt.example>", "Fri, 8 Aug 2025 07:02", "Authorization approved",
                  """Authorization PA-25-0731-88421 for MRI knee (73723) at Lakeside Imaging - Riverside is approved for
                  dates of service 15 August - 14 September 2025.""")]))
    b.say("Nothing changed: tomorrow at 08:15, arrive 07:30, Riverside. First prednisone tonight at 19:15, then 01:15 "
          "and 07:15, diphenhydramine at 07:15. Bring ID, your Cobalt card and your driver.")
    b.user("So to confirm everything: when and where am I going, and what do I owe?")
    b.decide("final-confirm",
             fact("appointment_start", "2025-08-19 08:15", superseded=["2025-08-12 10:00", "2025-08-05 09:30"],
                  subject="appointment_id=APT-3310952"),
             fact("patient_responsibility", owed_v2, superseded=[owed_v1, "40.00"], subject=f"order_id={LH_ORDER}"),
             state(resched2, "succeeded", b.request_id_of(moved2)),
             constraint(goal, "dialysis"))
    b.subtask_end("MRI APT-3310952 booked for 2025-08-19 08:15 under PA-25-0731-88421 (73723).")
    b.say(f"Tuesday 19 August at 08:15 (arrive 07:30), Lakeside Imaging - Riverside, MRI of the left knee with and "
          f"without contrast, covered by authorization PA-25-0731-88421. Estimated cost {owed_v2}. Bring a driver "
          "because of the premedication; you'll be done well before your wife's afternoon appointment.")
    b.user("One more thing: please tell Dr. Alvarez's office the final date so they can book my follow-up.")
    b.decide("tell-provider",
             next_call("lh_message_provider", provider_id="PRV-20871", appointment_id="APT-3310952",
                       why="the provider id came from the order, weeks earlier"),
             fact("appointment_start", "2025-08-19 08:15", superseded=["2025-08-12 10:00", "2025-08-05 09:30"],
                  subject="appointment_id=APT-3310952"),
             fact("valid_to", "2025-09-14", subject="auth_no=PA-25-0731-88421"))
    c = b.call("lh_message_provider", provider_id="PRV-20871", appointment_id="APT-3310952",
               text="MRI knee left w/o and with contrast (ORD-55120 v2, 73723) is booked for Tue 19 Aug 2025 08:15 at "
                    "Riverside, authorization PA-25-0731-88421 valid to 14 Sep. Patient asks for a follow-up visit after "
                    "the results; mornings before 11 only, never Thursdays.")
    b.ok(c, {"provider_id": "PRV-20871", "message_id": "MSG-PRV-44981", "routed_to": "Lakeside Orthopedics front desk"},
         lh_audit(b, datetime(2025, 8, 18, 17, 40), 490))
    b.subtask_end("Provider informed; follow-up to be booked by the orthopedics office.", task_done=True)
    b.say("Sent to Dr. Alvarez's team (MSG-PRV-44981) with the date, the authorization and your morning-only, "
          "no-Thursday rule for the follow-up. Good luck tomorrow.")
    return b


# ----------------------------------------------------------------------------------------------
# 07 Car rental damage claim: photos, a standing settlement limit, a crashed dispute submission
# ----------------------------------------------------------------------------------------------

SR_AGREEMENT, SR_PLATE = "RA-7719-442", "WA-CKT4419"
SR_ACTORS = ["rental-core", "damage-recovery", "assistant", "photo-svc", "payments", "benefits-portal"]
SR_EVENTS = ["agreement.read", "case.lock acquired", "case.lock released", "photo.index refreshed",
             "fleet.record read", "notification.queued email", "sla.evaluated", "payment.hold read",
             "document.rendered pdf", "consent.checked e-sign"]


def sr_audit(b: Builder, start: datetime, target: int, head: str = "Audit trail:") -> str:
    return audit_trail(b.rng, start, SR_ACTORS, SR_EVENTS, target, head)


def sr_photos(b: Builder, prefix: str, start: datetime, views: Sequence[str], source: str) -> tuple[list[str], str]:
    """Photo ids and an EXIF table for a set of walk-around photos."""
    clock = Clock(b.rng, start, "%Y-%m-%d %H:%M:%S")
    ids, rows = [], []
    for view in views:
        pid = f"{prefix}-{b.rng.randint(10000, 99999)}"
        ids.append(pid)
        rows.append((pid, view, clock.tick(20, 40), source, f"47.44{b.rng.randint(10, 99)}, -122.30{b.rng.randint(10, 99)}",
                     f"{b.rng.randint(2400, 5200)} KB"))
    return ids, table(["photo_id", "view", "taken (EXIF)", "device", "GPS", "size"], rows)


SR_TERMS = [
    """Rental agreement terms, section 9 (Damage). The renter is responsible for damage to the vehicle during the
    rental period, whatever the cause, unless the renter purchased the Skyline Damage Waiver. Damage existing at
    pick-up is not the renter's responsibility if it was recorded on the check-out inspection, in photos taken by
    Skyline, or in photos the renter submits within 24 hours of pick-up through the app or at the counter.""",
    """9.3 Renter photos. Photos taken by the renter at pick-up are accepted as evidence of pre-existing damage when
    their time stamps and location data place them at the pick-up location within 60 minutes after the
    agreement's pick-up time, whether or not they were submitted within 24 hours.""",
    """9.4 Charges. Damage is charged at the repair estimate of a Skyline-approved body shop. Loss of use is
    charged at the daily rate for each day the vehicle is out of service for repair, up to 5 days. An
    administrative fee of 75.00 applies per damage claim.""",
    """9.6 Disputes. The renter may dispute a damage charge within 30 days of the damage notice. Skyline's damage
    recovery team answers within 10 business days and may propose a settlement. Accepting a settlement closes the
    claim and authorizes Skyline to charge the settled amount to the card on file; it cannot be reopened.""",
    """9.7 Third-party coverage. Skyline provides, on request, the documents a renter's credit card or personal
    insurer needs: the damage report, repair estimate or invoice, photos, fleet utilization log (for loss of use)
    and the rental agreement.""",
]


def traj_rental_damage() -> Builder:
    b = Builder(
        "rental-damage-dispute", "Car rental damage claim: pickup photos, a standing settlement limit, a crashed submission",
        ["an early standing authorization (accept a settlement up to 200.00 without asking) used after long logs",
         "a crash while the dispute is being submitted: recover, then a status query settles it",
         "an offer above the limit needs the user; a later one within it does not",
         "an irreversible settlement acceptance kept raw until the claim subtask ends",
         "agreement, photo, dispute and offer ids from much earlier tool results needed for later calls"],
        "A renter disputes a damage charge with Skyline Rent-A-Car using his own pickup photos, then handles the "
        "settlement and a card-benefit claim for the remainder.",
        [("sr_get_agreement", "read", ["agreement_no"]), ("sr_damage_report", "read", ["agreement_no"]),
         ("sr_checkout_inspection", "read", ["agreement_no"]), ("sr_fleet_history", "read", ["plate"]),
         ("sr_terms", "read", ["section"]), ("sr_upload_photos", "write", ["agreement_no"]),
         ("sr_submit_dispute", "write", ["agreement_no"]), ("sr_dispute_lookup", "read", ["agreement_no"]),
         ("sr_settlement_offer", "read", ["dispute_id"]), ("sr_reply_offer", "write", ["offer_id"]),
         ("sr_accept_settlement", "irreversible", ["offer_id"]), ("sr_request_documents", "write", ["agreement_no"]),
         ("mv_benefit_terms", "read", ["card_product"]), ("mv_claim_submit", "write", ["card_last4"]),
         ("mv_claim_status", "read", ["claim_no"]), ("mv_card_activity", "read", ["card_last4"]),
         ("sr_photo_detail", "read", ["photo_id"]), ("sr_fleet_utilization", "read", ["plate"]),
         ("mv_claim_withdraw", "write", ["claim_no"])],
        seed=707)
    b.system("You are Jonas Berg's personal assistant. You can act in his Skyline Rent-A-Car account and his Meridian "
             "card benefits portal through tools. Today is Monday 9 June 2025, 08:30 US Pacific.")
    goal = b.user(
        "Morning. Skyline charged me 1,055 for 'damage' on the car I returned at SeaTac last week, agreement "
        "RA-7719-442. That scratch on the rear bumper was there when I picked it up, and I photographed the whole car "
        "in the garage before driving off. Fight it. If they offer to settle, you can accept anything up to 200 total "
        "without asking me; above that, ask me first.")
    limit = b.approval("AUTH-JB-01", "granted", goal,
                       {"agreement_no": SR_AGREEMENT, "action": "accept a damage settlement", "max_total": "200.00"},
                       "Standing authorization from Jonas Berg: accept a Skyline damage settlement of up to 200.00 in "
                       "total without asking; anything above 200.00 needs his approval.",
                       granted_by="Jonas Berg")
    c = b.call("sr_get_agreement", agreement_no=SR_AGREEMENT)
    b.ok(c, {"agreement_no": SR_AGREEMENT, "vehicle": "2024 Toyota Camry SE, silver", "plate": SR_PLATE,
             "pickup": "2025-05-29 09:05 SEA", "return": "2025-06-02 17:48 SEA", "damage_waiver": "declined",
             "damage_charge_total": "1055.00", "card_on_file": "Meridian Visa Infinite ending 6630"},
         "Rental agreement summary\n" + table(["line", "amount"], [
             ("Time and mileage, 5 days at 62.40", "312.00"), ("Concession recovery fee 11.1%", "34.63"),
             ("Customer facility charge 5 days at 6.00", "30.00"), ("WA rental car tax 5.9% and sales tax 10.2%", "61.71"),
             ("Fuel: returned full", "0.00"), ("Skyline Damage Waiver", "declined (initialled)"),
             ("Rental total, charged 2025-06-02", "438.34"), ("Damage claim DC-55810, charged 2025-06-06", "1055.00")])
         + "\n\nPick-up: SEA rental facility, level 3, stall 3C-118. Return: SEA level 2 returns lane 6, agent "
           "badge 4471. Odometer out 22,418 / in 22,906.\n\n" + sr_audit(b, datetime(2025, 6, 9, 8, 31), 530))
    b.say("Got it, and noted your limit: I can accept a settlement up to 200.00 in total without asking; anything "
          "higher I'll bring to you. The agreement shows a silver 2024 Camry (WA-CKT4419), picked up 29 May 09:05 "
          "at SEA, returned 2 June 17:48. You declined the damage waiver, and damage claim DC-55810 for 1,055.00 was "
          "charged to your Visa ending 6630 on 6 June. Let me get their damage report.")
    b.user("Yes, what exactly are they claiming?")
    c = b.call("sr_damage_report", agreement_no=SR_AGREEMENT)
    b.ok(c, {"agreement_no": SR_AGREEMENT, "claim_no": "DC-55810", "damage": "rear bumper scratch 14 cm, paint transfer",
             "repair_estimate": "860.00", "loss_of_use": "120.00", "admin_fee": "75.00", "inspector": "badge 4471",
             "photos": ["SKY-P-88120", "SKY-P-88121", "SKY-P-88122"]},
         paragraphs("""Damage report DC-55810, vehicle WA-CKT4419, recorded at return 2025-06-02 17:55 by agent badge
                    4471. Finding: horizontal scratch approx. 14 cm on the rear bumper cover, left of the licence
                    plate, with white paint transfer; no dent; clear coat broken. Classified as new damage (not on
                    the check-out record).""",
                    """Repair estimate (Emerald City Collision, approved shop): refinish rear bumper cover, blend,
                    parts and materials: 860.00. Loss of use: 2 days at 60.00 (fleet rate) = 120.00. Administrative
                    fee 75.00. Total 1,055.00, charged to the card on file 2025-06-06.""")
         + "\n\n" + table(["photo_id", "view", "taken"], [("SKY-P-88120", "rear, full", "2025-06-02 17:53"),
                                                          ("SKY-P-88121", "rear bumper, close-up", "2025-06-02 17:53"),
                                                          ("SKY-P-88122", "rear left corner", "2025-06-02 17:54")])
         + "\n\n" + sr_audit(b, datetime(2025, 6, 9, 8, 34), 550))
    b.say("They claim a 14 cm scratch with white paint transfer on the rear bumper, left of the plate, found at return "
          "by agent 4471 and classed as new because it wasn't on the check-out record: 860.00 repair, 120.00 loss of "
          "use for 2 days, 75.00 admin fee. They have three photos from the return.")
    b.user("Did they actually charge my card already, or is it a hold?")
    c = b.call("mv_card_activity", card_last4="6630", since="2025-05-25")
    card_rows = [("2025-05-29", "SKYLINE RENT-A-CAR SEA (auth)", "hold 650.00", "released 2025-06-02"),
                 ("2025-06-02", "SKYLINE RENT-A-CAR SEA", "438.34", "posted"),
                 ("2025-06-06", "SKYLINE DAMAGE RECOVERY DC-55810", "1055.00", "posted")]
    for day in range(1, 19):
        if b.rng.random() < 0.55:
            card_rows.append((f"2025-06-{day:02d}" if day > 0 else "2025-05-31", pick(b.rng, [
                "PCC COMMUNITY MARKETS", "SOUND TRANSIT LINK", "CAFE VITA CAPITOL HILL", "AMAZON MKTPL", "REI SEATTLE",
                "LYFT *RIDE", "ALASKA AIR 0272", "SEATTLE PUBLIC UTIL", "ELLIOTT BAY BOOK CO"]), f"{b.rng.uniform(4, 180):.2f}",
                "posted"))
    card_rows.sort()
    b.ok(c, {"card_last4": "6630", "damage_charge": "1055.00", "damage_charge_date": "2025-06-06",
             "damage_charge_status": "posted"},
         table(["date", "merchant", "amount", "status"], card_rows)
         + "\n\nA posted charge can be disputed with the card issuer within 60 days of the statement date. The card's "
           "rental coverage and a merchant dispute are separate processes.\n\n" + sr_audit(b, datetime(2025, 6, 9, 8, 35), 430))
    b.say("It's charged, not held: 1,055.00 from 'SKYLINE DAMAGE RECOVERY DC-55810' posted on 6 June, separate from the "
          "rental itself (438.34 on 2 June). The 650.00 pickup hold was released on 2 June.")
    b.user("What does their check-out record actually say?")
    c = b.call("sr_checkout_inspection", agreement_no=SR_AGREEMENT)
    b.ok(c, {"agreement_no": SR_AGREEMENT, "inspection": "self-service pickup (no agent walk-around)",
             "rear_bumper": "no damage recorded", "diagram_marks": 2},
         paragraphs("""Check-out record for RA-7719-442. Pick-up type: Skyline Express (self-service: the renter goes
                    directly to the stall; no agent walk-around). The record is the vehicle's last post-rental
                    inspection, carried over: completed 2025-05-28 21:12 by agent badge 3309 after the previous
                    rental.""",
                    """Damage diagram marks: (1) windscreen, chip 4 mm, lower right; (2) front right wheel, kerb
                    rash. Rear bumper: no damage recorded. Interior: clean. Fuel: full. Odometer 22,418.""",
                    """Express renters are told in the app to photograph the vehicle before leaving the garage and to
                    report any damage not on the diagram within 24 hours.""")
         + "\n\n" + sr_audit(b, datetime(2025, 6, 9, 8, 36), 580))
    b.say("Interesting: it was an Express pickup, so nobody from Skyline walked around the car with you. The 'check-out "
          "record' is just the inspection after the previous rental, on the evening of 28 May, and it marks only a "
          "windscreen chip and front wheel kerb rash. That's exactly where your own photos matter.")
    b.user("I have the photos on my phone, 12 of them, taken right in the stall. Upload them.")
    views = ["front", "front left", "left side", "rear left", "rear", "rear bumper close-up (scratch)", "rear right",
             "right side", "front right", "front right wheel", "windscreen", "odometer"]
    my_photos, exif = sr_photos(b, "JB", datetime(2025, 5, 29, 9, 9), views, "iPhone 15 Pro")
    c = b.call("sr_upload_photos", agreement_no=SR_AGREEMENT, files=[f"IMG_{7101 + i}.HEIC" for i in range(12)])
    b.ok(c, {"agreement_no": SR_AGREEMENT, "uploaded": 12, "photo_ids": my_photos, "scratch_photo": my_photos[5],
             "within_60_min_of_pickup": True},
         exif + "\n\nAll 12 photos carry EXIF time stamps between 09:09 and 09:17 on 2025-05-29 and GPS positions "
           "inside the SEA rental facility. Photo " + my_photos[5] + " shows a horizontal scratch with white paint "
           "transfer on the rear bumper, left of the plate (image analysis: similarity to SKY-P-88121 0.94).\n\n"
         + sr_audit(b, datetime(2025, 6, 9, 8, 40), 170))
    b.say(f"Uploaded all 12. They're stamped 09:09-09:17 on 29 May, inside the rental facility, within minutes of your "
          f"09:05 pickup. Photo {my_photos[5]} shows the same scratch with white paint transfer (the system scores it "
          "0.94 similar to their close-up).")
    b.user("What do their terms say about renter photos? I want to quote them.")
    c = b.call("sr_terms", section="9")
    b.ok(c, {"section": "9", "renter_photo_window_minutes": 60, "dispute_window_days": 30}, paragraphs(*SR_TERMS))
    b.say("Section 9.3 is the one: renter photos count as evidence of pre-existing damage if their time stamps and GPS "
          "put them at the pickup location within 60 minutes after pickup, even if you didn't submit them within 24 "
          "hours. Yours do. 9.6 gives you 30 days from the notice to dispute, and says accepting a settlement closes "
          "the claim for good.")
    b.user("Check that car's history too. Maybe someone reported the scratch before me.")
    c = b.call("sr_fleet_history", plate=SR_PLATE)
    hist = [("2025-05-03", "RA-7702-118", "return", "no new damage", "-"),
            ("2025-05-11", "RA-7707-530", "return", "rear bumper scuff reported by renter via app, 10 cm", "photo only"),
            ("2025-05-14", "-", "shop triage", "rear bumper scuff: repair deferred (cosmetic)", "ticket FL-22019"),
            ("2025-05-21", "RA-7711-804", "return", "no new damage", "-"),
            ("2025-05-28", "RA-7716-077", "return", "windscreen chip noted", "diagram"),
            ("2025-06-02", SR_AGREEMENT, "return", "rear bumper scratch 14 cm (DC-55810)", "claim"),
            ("2025-06-05", "-", "shop", "rear bumper refinish at Emerald City Collision", "WO-ECC-3318")]
    b.ok(c, {"plate": SR_PLATE, "events": len(hist), "prior_rear_bumper_report": "2025-05-11", "deferred_ticket": "FL-22019"},
         table(["date", "agreement", "event", "finding", "record"], hist)
         + "\n\nFleet notes: cosmetic damage under 15 cm may be deferred until the vehicle's next scheduled service. "
           "Deferred items are not copied to the check-out diagram.\n\n" + sr_audit(b, datetime(2025, 6, 9, 8, 47), 580))
    b.say("Someone did: on 11 May another renter reported a 10 cm rear bumper scuff through the app, and on 14 May the "
          "shop deferred the repair as cosmetic (ticket FL-22019). Deferred items aren't copied to the check-out "
          "diagram, which explains why it wasn't on yours. The bumper was refinished on 5 June, after your return.")
    b.user("And the loss of use: they charged two days, but was the car actually off the road?")
    c = b.call("sr_fleet_utilization", plate=SR_PLATE, start="2025-06-02", end="2025-06-09")
    util = [("2025-06-02", "returned 17:48", "available from 21:10 (cleaned)"), ("2025-06-03", "RA-7721-310 out 07:40", "on rent"),
            ("2025-06-04", "RA-7721-310 in 18:02", "available"), ("2025-06-05", "shop WO-ECC-3318 08:00-16:30", "out of service"),
            ("2025-06-06", "RA-7724-905 out 09:15", "on rent"), ("2025-06-07", "on rent", "on rent"),
            ("2025-06-08", "RA-7724-905 in 12:40", "available"), ("2025-06-09", "available", "available")]
    b.ok(c, {"plate": SR_PLATE, "days_out_of_service": 1, "repair_date": "2025-06-05", "rented_after_return": "2025-06-03"},
         table(["date", "event", "state"], util)
         + "\n\nFleet utilization at SEA for the Camry class in this period: 94%. Loss of use under section 9.4 is "
           "charged for days the vehicle is out of service for the repair.\n\n" + sr_audit(b, datetime(2025, 6, 9, 8, 49), 490))
    b.say("Barely: the car was rented out again the morning after your return (3 June) with the scratch unrepaired, and "
          "was in the shop for one day, 5 June, 08:00-16:30. So even if the damage were yours, two days of loss of use "
          "wouldn't hold up; at most one.")
    b.user("Can you pull the details of their close-up photo? I want to compare it with mine.")
    c = b.call("sr_photo_detail", photo_id="SKY-P-88121")
    b.ok(c, {"photo_id": "SKY-P-88121", "taken": "2025-06-02 17:53:40", "device": "Skyline handheld HH-2207",
             "scratch_length_measured": "not measured", "paint_transfer": "white"},
         paragraphs("""SKY-P-88121, rear bumper close-up, taken 2025-06-02 17:53:40 with Skyline handheld HH-2207 (agent
                    badge 4471), returns lane 6. No measuring reference in frame; the 14 cm length in the damage
                    report is the agent's estimate. Image analysis: horizontal linear abrasion left of the plate recess,
                    white transfer along the lower edge, clear coat broken; no dent.""",
                    """Comparison with renter photo (image analysis): same location and shape; the abrasion's end
                    points align with the same features (plate recess corner, sensor hole) in both images.""")
         + "\n\n" + sr_audit(b, datetime(2025, 6, 9, 8, 51), 490))
    b.say(f"Their close-up was taken at return with no measuring reference, so the '14 cm' is the agent's estimate. The "
          f"image analysis says your photo {my_photos[5]} and theirs show the same abrasion, with the same end points "
          "relative to the plate recess and the parking sensor. That's strong.")
    b.user("Draft the statement first, I want to read it.")
    b.say("Draft: 'I dispute damage claim DC-55810 (1,055.00) on agreement RA-7719-442 in full. The rear bumper scratch "
          "existed before my rental. I picked the car up through Skyline Express at 09:05 on 29 May with no agent "
          "walk-around, and photographed the whole car in stall 3C-118 between 09:09 and 09:17; under section 9.3 of your "
          f"terms these photos are evidence of pre-existing damage. Photo {my_photos[5]} shows the scratch with white "
          "paint transfer in the same place as your return photo SKY-P-88121. Your own fleet history shows a renter "
          "reported a rear bumper scuff on 11 May and the repair was deferred on 14 May (FL-22019), which is why it was "
          "not on the check-out diagram. The loss-of-use charge is also unsupported: the car was rented again on 3 June "
          "and repaired in one day on 5 June. I ask you to reverse the full charge.' Shall I submit it like that?")
    b.user("Perfect. Submit the dispute with all of that.")
    dispute = b.call("sr_submit_dispute", agreement_no=SR_AGREEMENT, claim_no="DC-55810",
                     evidence=my_photos + ["FL-22019"],
                     statement="The rear bumper scratch pre-dates the rental: renter photos taken 09:09-09:17 at pickup "
                               "(terms 9.3), a prior renter report on 2025-05-11 and deferred repair ticket FL-22019. "
                               "Loss of use: the vehicle was rented again on 2025-06-03 and repaired in one day (2025-06-05). Request "
               "reversal of DC-55810 (1,055.00).")
    b.recover()
    b.user("The app says something went wrong and restarted. Did the dispute go in? I don't want two of them.")
    b.decide("after-crash",
             state(dispute, "unknown", by_key=True, why="interrupted mid-call: it may or may not have been recorded"),
             evidence(dispute.seq, why="an unreconciled call stays in view"),
             next_call("sr_dispute_lookup", agreement_no=SR_AGREEMENT, why="check before submitting again"),
             fact("claim_no", "DC-55810", subject=f"agreement_no={SR_AGREEMENT}"))
    b.say("I don't know yet: the submission was interrupted. I'll look it up before anything else, so we don't file it "
          "twice.")
    c = b.call("sr_dispute_lookup", agreement_no=SR_AGREEMENT)
    b.ok(c, {"agreement_no": SR_AGREEMENT, "disputes": 1, "dispute_id": "DSP-SR-20931", "status": "received",
             "idempotency_key": dispute.idempotency_key, "answer_due": "2025-06-23"},
         table(["dispute_id", "claim", "received", "evidence items", "status"], [
             ("DSP-SR-20931", "DC-55810", "2025-06-09 08:52", 13, "received")])
         + "\n\nOne dispute on file for this agreement. Answer due within 10 business days (by 2025-06-23).\n\n"
         + sr_audit(b, datetime(2025, 6, 9, 8, 52), 550))
    b.status_query(dispute, "succeeded", "sr_dispute_lookup", request_id="DSP-SR-20931")
    b.say("It went in once: dispute DSP-SR-20931, received 08:52 with all 13 evidence items. Skyline has to answer by "
          "23 June.")
    b.user("While we wait: does my Meridian card cover this kind of thing? I paid with it.")
    c = b.call("mv_benefit_terms", card_product="Meridian Visa Infinite")
    b.ok(c, {"card_product": "Meridian Visa Infinite", "coverage": "secondary auto rental collision damage",
             "claim_deadline_days": 60, "covers": ["damage", "loss of use", "towing"], "excludes": ["admin fees"]},
         paragraphs(
             """Auto Rental Collision Damage Waiver (Visa Infinite). Coverage applies when the cardholder declines
             the rental company's collision damage waiver and pays for the whole rental with the card. In the
             United States, coverage is secondary to the cardholder's personal auto insurance; it becomes primary
             when the cardholder has no personal auto insurance or when the personal policy excludes the loss.""",
             """Covered: damage to or theft of the rental vehicle, reasonable loss-of-use charges supported by the
             rental company's fleet utilization log, and towing to the nearest qualified repair facility. Not
             covered: administrative fees, diminished value, damage from off-road use.""",
             """Claims: notify the benefit administrator within 60 days of the incident and submit documents within
             180 days: the rental agreement (opening and closing), the damage report, the itemized repair estimate or
             invoice, photos, the fleet utilization log for loss of use, proof of payment, and a declarations page of
             any personal auto policy (or a statement that you have none).""",
             """If the rental company settles for a lower amount, the claim is limited to the amount actually
             charged to the cardholder, less any administrative fee."""))
    b.say("Partly. It's secondary coverage: it pays after your own car insurance, or first if you don't have any. It "
          "covers damage and documented loss of use, but not the 75.00 admin fee. Notify them within 60 days of the "
          "incident. If Skyline settles lower, the claim is limited to what you actually paid, minus admin fees.")
    b.user("I sold my car last year, no personal auto insurance anymore. So notify them now, so we don't miss the 60 "
           "days.")
    b.decide("card-notice",
             next_call("mv_claim_submit", card_last4="6630", agreement_no=SR_AGREEMENT,
                       why="the card digits and agreement come from the first tool results"),
             fact("damage_charge_total", "1055.00", subject=f"agreement_no={SR_AGREEMENT}"),
             fact("return", "2025-06-02 17:48 SEA", subject=f"agreement_no={SR_AGREEMENT}", why="the incident date"))
    c = b.call("mv_claim_submit", card_last4="6630", agreement_no=SR_AGREEMENT, kind="notice of incident",
               incident_date="2025-06-02", amount_charged="1055.00", personal_auto_insurance="none")
    b.ok(c, {"card_last4": "6630", "claim_no": "MV-CDW-338120", "status": "notice received",
             "documents_due": "2025-11-29", "coverage_position": "primary (no personal auto insurance)"},
         paragraphs("""Notice of incident MV-CDW-338120 received for the Skyline rental RA-7719-442. Because the
                    cardholder states he has no personal auto insurance, coverage would be primary. Documents are due
                    within 180 days of the incident (by 2025-11-29): closing rental agreement, damage report, itemized
                    repair estimate or invoice, photos, fleet utilization log and proof of payment.""",
                    """If the rental company reverses or reduces the charge, update the claim; the benefit pays only
                    the amount finally charged, excluding administrative fees.""")
         + "\n\n" + sr_audit(b, datetime(2025, 6, 9, 9, 2), 490))
    b.say("Notified: Meridian claim MV-CDW-338120, coverage primary since you have no auto insurance. Documents are due "
          "by 29 November, so there's plenty of time to see what Skyline does first.")

    b.system("Wednesday 18 June 2025, 12:15 US Pacific.")
    b.user("Any answer from Skyline?")
    c = b.call("sr_settlement_offer", dispute_id="DSP-SR-20931")
    b.ok(c, {"dispute_id": "DSP-SR-20931", "offer_id": "SO-44120", "offer_total": "425.00", "expires": "2025-06-25",
             "breakdown": {"repair_share": "350.00", "admin_fee": "75.00"}},
         paragraphs("""Settlement offer SO-44120 on dispute DSP-SR-20931. Skyline's damage recovery team reviewed the
                    renter photos and accepts that a scuff existed before the rental. It maintains that the scratch
                    grew from about 10 cm (11 May report) to 14 cm with paint transfer during the rental.""",
                    """Offer: Skyline refunds 705.00 of the 1,055.00 charged. The renter remains responsible for
                    350.00 (share of the repair) and the 75.00 administrative fee, 425.00 in total. Loss of use is
                    waived. The offer expires 2025-06-25. Accepting closes the claim; declining keeps the dispute
                    open for a supervisor review.""")
         + "\n\n" + sr_audit(b, datetime(2025, 6, 18, 12, 16), 580))
    b.say("They've moved: offer SO-44120 refunds 705.00 and leaves you with 425.00 (350.00 share of the repair plus the "
          "75.00 admin fee), arguing the scratch grew from 10 to 14 cm during your rental. That's above your 200.00 "
          "limit, so it's your call. Declining keeps the dispute open for a supervisor review.")
    b.user("Where does their 350 come from? Show me the numbers.")
    c = b.call("sr_damage_report", agreement_no=SR_AGREEMENT, section="estimate")
    est = [("Refinish rear bumper cover", "2.4 h", "62.00", "148.80"), ("Blend adjacent quarter panels (2)", "1.6 h", "62.00", "99.20"),
           ("Remove and install bumper cover", "1.8 h", "58.00", "104.40"), ("Remove and install parking sensors (4)", "0.6 h", "58.00", "34.80"),
           ("Paint materials", "4.0 h", "44.00", "176.00"), ("Clear coat, three-stage", "1", "96.00", "96.00"),
           ("Flex additive and adhesion promoter", "1", "38.00", "38.00"), ("Car wash and detail", "1", "32.00", "32.00"),
           ("Hazardous waste disposal", "1", "12.00", "12.00"), ("Shop supplies", "1", "118.80", "118.80")]
    b.ok(c, {"agreement_no": SR_AGREEMENT, "estimate_no": "ECC-E-55810", "estimate_total": "860.00",
             "renter_share_basis": "4 cm of 14 cm growth, rounded"},
         "Emerald City Collision estimate ECC-E-55810 (rear bumper, 2024 Camry SE)\n"
         + table(["operation", "labour/qty", "rate", "amount"], est)
         + "\n\nTotal 860.00. Settlement basis for SO-44120 (damage recovery analyst P. Lindgren): prior report 10 cm, "
           "return estimate 14 cm; renter share of repair set at 350.00 (approx. 40% of the refinish) plus the "
           "administrative fee.\n\n" + sr_audit(b, datetime(2025, 6, 18, 12, 20), 490))
    b.say("The repair estimate is 860.00, mostly refinish labour and paint. The 350.00 is the analyst's judgment: since "
          "the 11 May report said about 10 cm and the return estimate said 14 cm, they charge you roughly 40% of the "
          "refinish for the 'growth'. Neither length was measured.")
    b.user("425 is too much. Decline it and ask for the supervisor review. Point out their scuff report was never "
           "measured properly.")
    b.decide("decline-offer",
             next_call("sr_reply_offer", offer_id="SO-44120", why="an offer above the user's limit, declined by the user"),
             constraint(limit, "anything above 200.00 needs his approval"),
             state(dispute, "succeeded", "DSP-SR-20931", by_key=True, why="the dispute was reconciled after the crash"),
             fact("prior_rear_bumper_report", "2025-05-11", subject=f"plate={SR_PLATE}"))
    c = b.call("sr_reply_offer", offer_id="SO-44120", decision="decline",
               note="Renter declines and requests supervisor review. The 11 May scuff report was a renter's app photo "
                    "without a measurement; '10 cm' is an estimate. Renter photos at pickup show the scratch with paint "
                    "transfer already present (photo " + my_photos[5] + ").")
    b.ok(c, {"offer_id": "SO-44120", "decision": "declined", "review": "supervisor", "review_due": "2025-07-02"},
         sr_audit(b, datetime(2025, 6, 18, 12, 30), 630))
    b.say("Declined, with the supervisor review requested and your point about the unmeasured 11 May report, citing "
          f"photo {my_photos[5]}. The review is due by 2 July.")
    b.system("Friday 27 June 2025, 10:05 US Pacific.")
    b.user("Anything from the supervisor yet? And has Meridian done anything with the notice?")
    c = b.call("sr_dispute_lookup", agreement_no=SR_AGREEMENT)
    b.ok(c, {"agreement_no": SR_AGREEMENT, "dispute_id": "DSP-SR-20931", "status": "supervisor review",
             "review_due": "2025-07-02", "offer_open": "none"},
         table(["time", "entry"], [("2025-06-09 08:52", "dispute received (13 evidence items)"),
                                   ("2025-06-12 14:10", "assigned to damage recovery analyst P. Lindgren"),
                                   ("2025-06-18 12:14", "offer SO-44120 issued (425.00)"),
                                   ("2025-06-18 12:30", "offer declined by renter; supervisor review requested"),
                                   ("2025-06-20 09:00", "assigned to supervisor K. Amundsen"),
                                   ("2025-06-26 16:45", "supervisor requested fleet record FL-22019 and shop WO-ECC-3318")])
         + "\n\n" + sr_audit(b, datetime(2025, 6, 27, 10, 6), 530))
    c = b.call("mv_claim_status", claim_no="MV-CDW-338120")
    b.ok(c, {"claim_no": "MV-CDW-338120", "status": "notice received - awaiting documents", "examiner": "T. Osei"},
         paragraphs("""Claim MV-CDW-338120: notice received 2025-06-09. Examiner T. Osei assigned. Awaiting documents;
                    the cardholder reported an open dispute with the rental company, so the file is on hold until
                    2025-08-31 or until the dispute is resolved, whichever comes first.""")
         + "\n\n" + sr_audit(b, datetime(2025, 6, 27, 10, 7), 530))
    b.say("The supervisor, K. Amundsen, has it and on 26 June asked for the fleet record FL-22019 and the shop work order, "
          "which is a good sign; the review is due 2 July. Meridian has an examiner on your notice and has put it on hold "
          "until the Skyline dispute is resolved.")
    b.system("Tuesday 1 July 2025, 07:50 US Pacific.")
    b.user("I'm flying to Stockholm today and will be offline for two days. Anything new from Skyline?")
    c = b.call("sr_settlement_offer", dispute_id="DSP-SR-20931")
    b.ok(c, {"dispute_id": "DSP-SR-20931", "offer_id": "SO-44187", "offer_total": "75.00", "expires": "2025-07-08",
             "breakdown": {"repair_share": "0.00", "admin_fee": "75.00"}},
         paragraphs("""Supervisor review of dispute DSP-SR-20931 (supervisor K. Amundsen). The review accepts that the
                    damage pre-dated the rental: the renter's photos at 09:09-09:17 show the scratch with paint
                    transfer, matching the return photos, and the 11 May report was not measured.""",
                    """Revised offer SO-44187: Skyline refunds 980.00 of the 1,055.00 charged. The renter remains
                    responsible only for the administrative fee of 75.00, which section 9.4 applies per claim.
                    Offer expires 2025-07-08. Accepting closes the claim.""")
         + "\n\n" + sr_audit(b, datetime(2025, 7, 1, 7, 51), 580))
    b.say("The supervisor agrees the damage was already there. New offer SO-44187: they refund 980.00 and you keep only "
          "the 75.00 admin fee, expiring 8 July. That's within the 200.00 you authorised me to accept.")
    b.user("I'm boarding now. Do what we agreed.")
    b.decide("accept-within-limit",
             next_call("sr_accept_settlement", offer_id="SO-44187", dispute_id="DSP-SR-20931",
                       why="75.00 total is within the standing authorization"),
             constraint(limit, "up to 200.00", why="the early authorization, three weeks and many logs earlier"),
             fact("offer_total", "75.00", subject="dispute_id=DSP-SR-20931"))
    accept = b.call("sr_accept_settlement", offer_id="SO-44187", dispute_id="DSP-SR-20931", authorization="AUTH-JB-01")
    accept_res = b.ok(accept, {"offer_id": "SO-44187", "claim_no": "DC-55810", "refund": "980.00", "renter_pays": "75.00",
                               "refund_to": "Meridian Visa Infinite ending 6630", "claim_status": "closed"},
                      paragraphs("""Settlement accepted. Claim DC-55810 closed. Refund of 980.00 issued to the card ending
                                 6630 (3-5 business days). The 75.00 administrative fee remains charged. This
                                 settlement is final and cannot be reopened.""")
                      + "\n\n" + sr_audit(b, datetime(2025, 7, 1, 7, 55), 630))
    b.say("Accepted under your standing limit: claim DC-55810 is closed, 980.00 is on its way back to your Visa (3-5 "
          "business days) and you keep only the 75.00 admin fee. Safe flight.")
    b.system("Thursday 3 July 2025, 18:20 US Pacific.")
    b.user("Back online. So where did we end up, and did the refund come?")
    b.decide("after-accept",
             state(accept, "succeeded", b.request_id_of(accept_res)),
             evidence(accept.seq, accept_res, why="the irreversible acceptance, claim subtask still open"),
             fact("refund", "980.00", subject="offer_id=SO-44187"),
             fact("card_on_file", "Meridian Visa Infinite ending 6630", subject=f"agreement_no={SR_AGREEMENT}"))
    b.say("You accepted, through me, the supervisor's offer on 1 July: 980.00 refunded of the 1,055.00, claim closed, "
          "75.00 admin fee stays. The refund was issued to your Visa ending 6630 on 1 July; it should post by about 8 "
          "July. The admin fee isn't covered by the Meridian benefit, so there's nothing left to claim.")
    b.user("Fine. Can you get me their documents anyway, in case Meridian asks? And then we're done.")
    c = b.call("sr_request_documents", agreement_no=SR_AGREEMENT,
               documents=["damage report", "settlement letter", "closing agreement"])
    b.ok(c, {"agreement_no": SR_AGREEMENT, "document_pack": "DOC-SR-7719-01", "delivered_to": "jonas.berg@example.com"},
         paragraphs("""Document pack DOC-SR-7719-01 e-mailed to the renter: rental agreement (opening and closing),
                    damage report DC-55810 with return photos, settlement letter SO-44187 and claim closure notice.
                    The repair invoice is not included because the repair was paid by Skyline's fleet budget.""")
         + "\n\n" + sr_audit(b, datetime(2025, 7, 3, 18, 22), 630))
    b.say("Done: Skyline e-mailed the pack (DOC-SR-7719-01) with the agreement, damage report, settlement letter and "
          "closure notice. The claim is closed at 75.00.")
    b.user("Since only the admin fee is left, close the Meridian notice, there's nothing for them to pay.")
    c = b.call("mv_claim_withdraw", claim_no="MV-CDW-338120", reason="rental company settled; only administrative fee "
               "(not covered) remains")
    b.ok(c, {"claim_no": "MV-CDW-338120", "status": "withdrawn by cardholder"},
         paragraphs("""Claim MV-CDW-338120 withdrawn at the cardholder's request. A withdrawn notice can be reopened
                    within the original 180-day document window (until 2025-11-29) if the rental company charges
                    further amounts.""")
         + "\n\n" + sr_audit(b, datetime(2025, 7, 3, 18, 25), 510))
    b.say("Withdrawn. It can be reopened until 29 November if Skyline ever charges anything more.")
    b.user("One more question: will the refund land before my statement closes? I don't want to pay interest on it.")
    c = b.call("mv_benefit_terms", card_product="Meridian Visa Infinite", section="statements")
    b.ok(c, {"card_product": "Meridian Visa Infinite", "statement_closes": "2025-07-12", "payment_due": "2025-08-06",
             "grace_period": True},
         paragraphs("""Statement cycle for this account: closes on the 12th of each month; payment due 25 days later.
                    Purchases are interest-free during the grace period when the previous balance was paid in full.
                    Credits (refunds) that post before the closing date reduce the new balance; credits that post after
                    it appear on the next statement.""",
                    """A cardholder who expects a merchant credit may pay the statement balance minus the expected
                    credit; if the credit does not post, interest applies to the unpaid part only.""")
         + "\n\n" + sr_audit(b, datetime(2025, 7, 3, 18, 30), 470))
    b.say("Your statement closes on 12 July, and refunds usually take 3-5 business days, so the 980.00 should post before "
          "then and reduce this statement. You pay in full every month, so there's no interest either way.")
    b.system("Wednesday 9 July 2025, 09:00 US Pacific.")
    b.user("Did the 980 come back?")
    c = b.call("mv_card_activity", card_last4="6630", since="2025-07-01")
    b.ok(c, {"card_last4": "6630", "skyline_refund": "980.00", "refund_posted": "2025-07-07"},
         table(["date", "merchant", "amount", "status"], [
             ("2025-07-02", "ARLANDA EXPRESS", "37.40", "posted"), ("2025-07-02", "PRESSBYRAN ARLANDA", "8.15", "posted"),
             ("2025-07-03", "SYSTEMBOLAGET", "22.90", "posted"), ("2025-07-07", "SKYLINE DAMAGE RECOVERY DC-55810 REFUND",
                                                                 "-980.00", "posted"),
             ("2025-07-08", "PCC COMMUNITY MARKETS", "61.22", "posted")])
         + "\n\n" + sr_audit(b, datetime(2025, 7, 9, 9, 1), 490))
    b.subtask_end("Skyline damage claim DC-55810 settled at 75.00 (SO-44187); refund 980.00 posted; Meridian notice "
                  "withdrawn.", task_done=True)
    b.say("Yes: the 980.00 refund from Skyline posted on 7 July. All done; the only thing you paid for the scratch is the "
          "75.00 admin fee.")
    return b


# ----------------------------------------------------------------------------------------------
# 08 Cloud cost investigation: three accounts, two billing tools disagree, sandbox clean-up, budgets
# ----------------------------------------------------------------------------------------------

NC_PROD, NC_STAGING, NC_SANDBOX = "4412-0098-1123", "5520-1187-3304", "7781-2290-0456"
NC_ACTORS = ["billing-api", "cost-explorer", "assistant", "inventory-svc", "change-mgmt", "budgets"]
NC_EVENTS = ["query.planned partitions=31", "query.scanned 1.2 GB", "cache.hit ratio=0.81", "permission.checked finops-ro",
             "export.manifest read", "tag.index refreshed", "rate-card read 2025-08", "currency USD",
             "api.throttle none", "credential.assumed role/finops-assistant"]
NC_SERVICES = ["Compute (VMs)", "Managed Kubernetes", "Block storage", "Object storage", "NAT gateway - hours",
               "NAT gateway - data processing", "Data transfer out", "Managed Postgres", "Data warehouse", "Load balancers",
               "Logging", "Monitoring", "Key management", "DNS", "Container registry", "Serverless functions"]


def nc_audit(b: Builder, start: datetime, target: int, head: str = "Query trace:") -> str:
    return audit_trail(b.rng, start, NC_ACTORS, NC_EVENTS, target, head)


def nc_cost_table(b: Builder, scale: float, fixed: dict[str, str]) -> tuple[str, str]:
    """(total, table) of a month's cost by service, July beside August."""
    rows, total = [], 0.0
    for service in NC_SERVICES:
        aug = float(fixed[service]) if service in fixed else round(b.rng.uniform(0.2, 1.0) * scale * b.rng.choice([1, 1, 3, 8]), 2)
        jul = round(aug * b.rng.uniform(0.85, 1.08), 2) if service not in fixed else round(aug * b.rng.uniform(0.25, 0.4), 2)
        total += aug
        rows.append((service, f"{jul:.2f}", f"{aug:.2f}", f"{(aug - jul) / jul * 100:+.0f}%"))
    return f"{total:.2f}", table(["service", "2025-07", "2025-08", "change"], rows)


def nc_volumes(b: Builder, account: str, special: Sequence[tuple[str, ...]], n: int) -> str:
    rows = list(special)
    for _ in range(n):
        size = b.rng.choice([8, 20, 50, 100, 200, 500])
        rows.append((f"vol-0{b.hexid(15)}", f"{size} GiB", pick(b.rng, ["gp3", "gp3", "gp2", "st1"]), "in-use",
                     f"i-0{b.hexid(12)}", f"{b.rng.randint(3, 400)}", pick(b.rng, ["team=data", "team=ml", "team=web", "-"]),
                     f"{size * 0.08:.2f}"))
    rows.sort(key=lambda r: (r[3] != "available", r[0]))
    return (f"Block storage volumes in account {account} (region us-west-2)\n"
            + table(["volume_id", "size", "type", "state", "attached_to", "age_days", "tags", "usd_month"], rows))


def traj_cloud_cost() -> Builder:
    b = Builder(
        "cloud-cost-spike", "Cloud cost investigation: three accounts, two billing tools disagree, clean-up and budgets",
        ["several entities at once: production, staging and sandbox accounts with their own figures",
         "the cost explorer and the billing export disagree about the same account's NAT charge; the invoice settles it",
         "an early authorization (delete old unattached sandbox volumes only) used after long listings",
         "irreversible deletions kept raw until the clean-up subtask ends",
         "a change approval pending for a production network change, later granted",
         "a user correction supersedes a budget amount; ids and amounts from much earlier needed for calls"],
        "A FinOps lead investigates an August bill spike across three cloud accounts with the assistant, cleans up "
        "the sandbox within an early authorization, fixes the cause in production and sets budgets.",
        [("nc_cost_explorer", "read", ["account_id"]), ("nc_billing_export", "read", ["account_id"]),
         ("nc_invoice", "read", ["account_id"]), ("nc_anomaly_detail", "read", ["anomaly_id"]),
         ("nc_resource_inventory", "read", ["account_id"]), ("nc_flow_summary", "read", ["resource_id"]),
         ("nc_list_volumes", "read", ["account_id"]), ("nc_delete_volume", "irreversible", ["account_id", "volume_id"]),
         ("nc_docs", "read", ["topic"]), ("nc_change_request", "write", ["account_id"]),
         ("nc_create_vpc_endpoint", "write", ["account_id", "vpc_id"]), ("nc_create_budget", "write", ["account_id"]),
         ("nc_rightsizing", "read", ["account_id"])],
        seed=808)
    b.system("You are the FinOps assistant at Tidewater Analytics, with read access to billing and inventory and "
             "limited write access through tools. Today is Wednesday 3 September 2025, 09:30 US Eastern.")
    goal = b.user(
        "Hi, Sofia Marquez, FinOps. August came in 38% over forecast and the CFO wants an explanation by Friday. Three "
        "accounts: prod-analytics 4412-0098-1123, staging 5520-1187-3304 and sandbox 7781-2290-0456. Up front: you may "
        "delete unattached block storage volumes in the sandbox account only, if they're older than 30 days and not "
        "tagged keep=true. Anything in prod or staging, ask me. At the end I want budgets: 40,000 for prod, 8,000 for "
        "staging, 2,000 for sandbox.")
    rule = b.approval("AUTH-SM-01", "granted", goal,
                      {"account_id": NC_SANDBOX, "action": "delete unattached block storage volumes",
                       "condition": "unattached, older than 30 days, not tagged keep=true"},
                      "Standing authorization from Sofia Marquez: delete unattached volumes in the sandbox account "
                      "7781-2290-0456 only, when older than 30 days and not tagged keep=true. Prod and staging need "
                      "her approval.",
                      granted_by="Sofia Marquez (FinOps lead)")
    b.say("Understood: sandbox-only volume clean-up within those conditions, nothing in prod or staging without you, and "
          "budgets of 40,000 / 8,000 / 2,000 at the end. Starting with the cost explorer for all three accounts.")
    totals = {}

    def explorer(account: str, scale: float, fixed: dict[str, str]) -> int:
        c = b.call("nc_cost_explorer", account_id=account, month="2025-08", group_by="service")
        total, text = nc_cost_table(b, scale, fixed)
        totals[account] = total
        result = {"account_id": account, "month": "2025-08", "total": total, **{
            "nat_data_processing": v for k, v in fixed.items() if k == "NAT gateway - data processing"}}
        return b.ok(c, result, text + "\n\nData freshness: usage up to 2025-08-30 23:59 UTC.\n"
                    + nc_audit(b, datetime(2025, 9, 3, 9, 31), 260))

    ce = explorer(NC_PROD, 1300, {"NAT gateway - data processing": "18420.55", "NAT gateway - hours": "394.20"})
    b.say(f"Prod's August total in the cost explorer is {totals[NC_PROD]}. The standout is 'NAT gateway - data "
          "processing' at 18,420.55, about three times July.")
    b.user("And the other two?")
    explorer(NC_STAGING, 255, {})
    explorer(NC_SANDBOX, 70, {})
    b.say(f"Staging {totals[NC_STAGING]} and sandbox {totals[NC_SANDBOX]}: both look like normal drift against July, "
          "nothing like prod's NAT line.")
    b.user("NAT data processing? Let me see the raw billing export for prod, I don't trust the explorer's grouping.")
    c = b.call("nc_billing_export", account_id=NC_PROD, month="2025-08", filter="NAT")
    lines = [("nat-0a41c9e2", "us-west-2a", "NatGateway-Bytes", "GB", "339,812.4", "0.045", "15291.56"),
             ("nat-0a41c9e2", "us-west-2a", "NatGateway-Hours", "h", "744", "0.045", "33.48"),
             ("nat-07be3310", "us-west-2b", "NatGateway-Bytes", "GB", "118,400.0", "0.045", "5328.00"),
             ("nat-07be3310", "us-west-2b", "NatGateway-Hours", "h", "744", "0.045", "33.48"),
             ("nat-0c9920fa", "us-west-2c", "NatGateway-Bytes", "GB", "28,568.8", "0.045", "1285.60"),
             ("nat-0c9920fa", "us-west-2c", "NatGateway-Hours", "h", "744", "0.045", "33.48")]
    export = b.ok(c, {"account_id": NC_PROD, "month": "2025-08", "nat_data_processing": "21907.16",
                      "line_items": 6, "export_version": "2025-09-02T06:00Z"},
                  "Billing export (line items, filter NAT)\n"
                  + table(["resource", "zone", "usage type", "unit", "quantity", "rate", "cost"], lines)
                  + "\n\nExport is final for the month once the invoice is issued; this version includes usage through "
                    "2025-08-31 23:59 UTC.\n" + nc_audit(b, datetime(2025, 9, 3, 9, 40), 460))
    b.say("The export disagrees with the explorer: it puts prod's NAT data processing at 21,907.16 (three gateways, most "
          "of it nat-0a41c9e2 in us-west-2a with about 340 TB processed), against 18,420.55 in the explorer. A 3,486.61 "
          "gap on the same account and charge.")
    b.user("Great, two numbers. Which one goes in my report to the CFO?")
    b.decide("two-numbers",
             evidence(ce, export, why="the explorer and the export disagree about prod's NAT charge; not settled"),
             next_call("nc_invoice", account_id=NC_PROD, why="the invoice is the authoritative figure"),
             fact("total", totals[NC_STAGING], subject=f"account_id={NC_STAGING}", why="other accounts' figures still matter"))
    c = b.call("nc_invoice", account_id=NC_PROD, month="2025-08")
    b.ok(c, {"account_id": NC_PROD, "invoice_no": "INV-2025-08-44120", "nat_data_processing": "21907.16",
             "issued": "2025-09-02"},
         paragraphs("""Invoice INV-2025-08-44120 for account 4412-0098-1123, August 2025, issued 2025-09-02. Line
                    'NAT Gateway - data processed': 486,781.2 GB at 0.045 = 21,907.16.""",
                    """Note on tools: the cost explorer's monthly view is built from hourly usage with a lag of up to
                    48 hours and showed data through 2025-08-30 when queried; the billing export and the invoice
                    include the whole month. After invoicing, the explorer catches up within 24 hours.""")
         + "\n\n" + nc_audit(b, datetime(2025, 9, 3, 9, 46), 510))
    b.verification(True, f"prod NAT data processing for August is 21,907.16 (invoice INV-2025-08-44120); the explorer's "
                         f"18,420.55 lacked the last 48 hours")
    b.say("The invoice says 21,907.16, matching the export. The explorer's 18,420.55 was simply missing the last day "
          "and a half of August (it lags up to 48 hours). Use 21,907.16.")
    b.user("OK. What is pushing 340 TB through one NAT gateway?")
    c = b.call("nc_flow_summary", resource_id="nat-0a41c9e2", month="2025-08")
    talkers = [("10.40.12.0/22 (eks-analytics nodes)", "object storage us-west-2 (public endpoint)", "301,220 GB"),
               ("10.40.12.0/22 (eks-analytics nodes)", "container registry us-west-2", "21,904 GB"),
               ("10.40.16.0/24 (airflow workers)", "object storage us-west-2 (public endpoint)", "9,880 GB"),
               ("10.40.12.0/22 (eks-analytics nodes)", "pypi.org / files.pythonhosted.org", "3,110 GB"),
               ("10.40.20.0/24 (bastion)", "various", "41 GB"), ("10.40.12.0/22", "telemetry vendor", "1,402 GB"),
               ("10.40.16.0/24", "github.com", "2,255 GB")]
    b.ok(c, {"resource_id": "nat-0a41c9e2", "top_destination": "object storage (public endpoint)", "share": "88.6%",
             "vpc_id": "vpc-0f3a9c21d4e87b610", "since": "2025-08-06"},
         table(["source", "destination", "bytes (Aug)"], talkers)
         + "\n\n" + paragraphs("""Daily volume rose from about 3 TB/day to 13 TB/day on 2025-08-06 and stayed there.
                               Traffic to object storage in the same region through a NAT gateway is billed as NAT data
                               processing; a gateway VPC endpoint for object storage carries it at no processing
                               charge.""",
                               """VPC vpc-0f3a9c21d4e87b610 has no object storage endpoint. Route tables rtb-0a11c0 and
                               rtb-0b22d1 send 0.0.0.0/0 to nat-0a41c9e2 and nat-07be3310.""")
         + "\n\n" + nc_audit(b, datetime(2025, 9, 3, 9, 55), 480))
    b.say("Almost 89% of it is the analytics Kubernetes nodes reading object storage in the same region through the NAT "
          "gateway, because VPC vpc-0f3a9c21d4e87b610 has no object storage endpoint. It jumped from about 3 to 13 TB a "
          "day on 6 August. A gateway endpoint would carry that traffic with no processing charge.")
    b.user("What happened on August 6?")
    c = b.call("nc_anomaly_detail", anomaly_id="ANOM-2025-0806-17")
    b.ok(c, {"anomaly_id": "ANOM-2025-0806-17", "account_id": NC_PROD, "start": "2025-08-06", "root_cause_hint":
             "deployment of job 'feature-backfill-v2'"},
         paragraphs("""Anomaly ANOM-2025-0806-17 (prod-analytics): NAT data processing +330% from 2025-08-06. Correlated
                    change: Kubernetes deployment 'feature-backfill-v2' in namespace ml-features, first run 2025-08-06
                    02:10 UTC, scheduled hourly. The job reads the full 'events-raw' bucket partition for the trailing
                    30 days on each run instead of the new hour only (see its config: lookback=30d).""",
                    """The anomaly alert was sent to the ml-platform channel on 2025-08-07 and acknowledged by a
                    bot; no human follow-up is recorded.""")
         + "\n\n" + table(["date", "NAT GB processed", "expected"], [
             (f"2025-08-{d:02d}", f"{(3050 if d < 6 else 13200) + b.rng.randint(-400, 400):,}", "3,100") for d in range(1, 15)])
         + "\n\n" + nc_audit(b, datetime(2025, 9, 3, 10, 2), 420))
    b.say("A new hourly job, 'feature-backfill-v2' in the ml-features namespace, started on 6 August and re-reads 30 days "
          "of the events-raw bucket every hour (lookback=30d) instead of just the new hour. The anomaly alert went to "
          "the ml-platform channel and was only acknowledged by a bot. So two fixes: the job's lookback, and an "
          "endpoint so this kind of traffic never pays NAT processing.")
    b.user("I'll take the job config up with ML. Meanwhile, clean up the sandbox like I said.")
    c = b.call("nc_list_volumes", account_id=NC_SANDBOX, state="all")
    sandbox_special = [("vol-0a1b2c3d4e5f60718", "500 GiB", "gp3", "available", "-", "212", "owner=dpatel", "40.00"),
                       ("vol-0b7e19d0c4a2f3356", "200 GiB", "gp2", "available", "-", "95", "-", "20.00"),
                       ("vol-0c33f0e7a81d92b04", "1000 GiB", "st1", "available", "-", "148", "keep=true, owner=ml", "45.00"),
                       ("vol-0d4419ae2b6c07f11", "100 GiB", "gp3", "available", "-", "12", "owner=jlee", "8.00"),
                       ("vol-0e9026b1f3d5a8c47", "50 GiB", "gp3", "available", "-", "61", "-", "4.00")]
    b.ok(c, {"account_id": NC_SANDBOX, "volumes": 14, "unattached": 5, "unattached_usd_month": "117.00"},
         nc_volumes(b, NC_SANDBOX, sandbox_special, 9) + "\n\n" + nc_audit(b, datetime(2025, 9, 3, 10, 10), 160))
    b.say("The sandbox has five unattached volumes. By your rule, three qualify: vol-0a1b2c3d4e5f60718 (500 GiB, 212 "
          "days), vol-0b7e19d0c4a2f3356 (200 GiB, 95 days) and vol-0e9026b1f3d5a8c47 (50 GiB, 61 days). Two don't: "
          "vol-0c33f0e7a81d92b04 is tagged keep=true, and vol-0d4419ae2b6c07f11 is only 12 days old.")
    b.user("Go ahead with the ones that qualify.")
    b.decide("sandbox-delete",
             next_call("nc_delete_volume", account_id=NC_SANDBOX, volume_id="vol-0a1b2c3d4e5f60718"),
             next_call("nc_delete_volume", account_id=NC_SANDBOX, volume_id="vol-0e9026b1f3d5a8c47"),
             constraint(rule, "not tagged keep=true", why="the early authorization decides which volumes qualify"),
             fact("nat_data_processing", "21907.16", superseded=["18420.55"], subject=f"account_id={NC_PROD}",
                  why="the invoice settled the explorer/export disagreement"))
    deletions = []
    for vol in ("vol-0a1b2c3d4e5f60718", "vol-0b7e19d0c4a2f3356", "vol-0e9026b1f3d5a8c47"):
        c = b.call("nc_delete_volume", account_id=NC_SANDBOX, volume_id=vol, authorization="AUTH-SM-01")
        r = b.ok(c, {"account_id": NC_SANDBOX, "volume_id": vol, "state": "deleted"},
                 "Volume deleted. Deleted volumes cannot be recovered; no snapshot was requested.\n"
                 + nc_audit(b, datetime(2025, 9, 3, 10, 14), 210))
        deletions.append((c, r))
    b.say("Deleted the three qualifying sandbox volumes. The keep=true one and the 12-day-old one are untouched.")
    b.user("How much does that save? And what about staging, anything similar there?")
    b.decide("after-delete",
             state(deletions[1][0], "succeeded", b.request_id_of(deletions[1][1])),
             evidence(deletions[0][0].seq, deletions[0][1], deletions[1][0].seq, deletions[1][1],
                      deletions[2][0].seq, deletions[2][1], why="irreversible deletions, clean-up subtask still open"),
             next_call("nc_list_volumes", account_id=NC_STAGING),
             constraint(goal, "Anything in prod or staging, ask me"))
    b.say("About 64.00 a month (40.00 + 20.00 + 4.00). Let me look at staging's volumes; I won't delete anything there "
          "without you.")
    c = b.call("nc_list_volumes", account_id=NC_STAGING, state="all")
    staging_special = [("vol-0f10a2b3c4d5e6f71", "2000 GiB", "gp3", "available", "-", "77", "owner=marco", "160.00"),
                       ("vol-0f22b3c4d5e6f7a82", "500 GiB", "gp3", "available", "-", "40", "-", "40.00")]
    b.ok(c, {"account_id": NC_STAGING, "volumes": 11, "unattached": 2, "unattached_usd_month": "200.00"},
         nc_volumes(b, NC_STAGING, staging_special, 9) + "\n\n" + nc_audit(b, datetime(2025, 9, 3, 10, 20), 210))
    b.say("Staging has two unattached volumes worth 200.00 a month: vol-0f10a2b3c4d5e6f71 (2 TiB, 77 days, owner=marco) "
          "and vol-0f22b3c4d5e6f7a82 (500 GiB, 40 days, untagged). They'd meet the sandbox rule's age and tag conditions, "
          "but staging is outside it, so they're your call.")
    b.user("Leave staging, Marco owns it and he's on holiday. I'll ask him next week.")
    b.subtask_end("Sandbox clean-up done: 3 unattached volumes deleted under AUTH-SM-01; staging left to its owner.")
    b.say("Leaving staging alone. Sandbox clean-up is done.")
    b.user("Are old snapshots costing us in the sandbox too?")
    c = b.call("nc_resource_inventory", account_id=NC_SANDBOX, type="snapshot")
    snaps = [(f"snap-0{b.hexid(15)}", f"{b.rng.choice([8, 50, 100, 500])} GiB", f"2024-{b.rng.randint(1, 12):02d}-{b.rng.randint(1, 28):02d}",
              pick(b.rng, ["ami backup", "manual", "dlm policy daily", "manual before upgrade"]),
              pick(b.rng, ["-", "owner=dpatel", "keep=true", "-"]), f"{b.rng.uniform(0.3, 22):.2f}") for _ in range(14)]
    b.ok(c, {"account_id": NC_SANDBOX, "snapshots": 14, "snapshot_usd_month": f"{sum(float(s[5]) for s in snaps):.2f}"},
         table(["snapshot_id", "size", "created", "source", "tags", "usd_month"], snaps)
         + "\n\nSnapshots are incremental; deleting one releases only the blocks no other snapshot references.\n"
         + nc_audit(b, datetime(2025, 9, 3, 10, 26), 360))
    b.say(f"A little: 14 snapshots, about {sum(float(s[5]) for s in snaps):.2f} a month in total, mostly old manual ones. "
          "Your authorization covers volumes, not snapshots, so I haven't touched them; it's small enough to leave for a "
          "later tidy-up.")
    b.user("Leave them. Is there anything else to save in prod while we're at it?")
    c = b.call("nc_rightsizing", account_id=NC_PROD)
    recs = [("eks-analytics node group ng-m6i-4xl", "12 x m6i.4xlarge", "9 x m6i.4xlarge", "p95 CPU 31%", "1,912.00"),
            ("airflow workers", "6 x r6i.2xlarge", "6 x r6i.xlarge", "p95 memory 38%", "1,150.00"),
            ("managed postgres analytics-meta", "db.r6g.2xlarge", "db.r6g.xlarge", "p95 CPU 18%", "604.00"),
            ("data warehouse cluster dw-prod", "8 nodes", "reserved 1-year", "steady 24/7", "2,480.00"),
            ("load balancer lb-legacy-api", "1", "delete (no targets 60 days)", "0 requests", "18.40")]
    b.ok(c, {"account_id": NC_PROD, "recommendations": 5, "monthly_savings": "6164.40"},
         table(["resource", "current", "recommended", "evidence", "usd_month"], recs)
         + "\n\nRecommendations are based on 30 days of utilization. Reserved capacity commits the account for the "
           "term and cannot be cancelled.\n\n" + nc_audit(b, datetime(2025, 9, 3, 10, 28), 460))
    b.say("About 6,160 a month on paper: reserving the data warehouse (2,480, but it's a one-year commitment), trimming "
          "the analytics node group from 12 to 9 nodes (1,912), halving the Airflow workers and the metadata database, "
          "and deleting an idle legacy load balancer. None of that is in my remit without you; I'd put it in the CFO "
          "note as next steps.")
    b.user("Agreed, next steps. Now the endpoint for prod. What does it involve?")
    c = b.call("nc_docs", topic="gateway-endpoint-object-storage")
    b.ok(c, {"topic": "gateway-endpoint-object-storage", "hourly_charge": "0.00", "data_charge": "0.00",
             "change_class": "standard (network)"},
         paragraphs("""Gateway endpoints for object storage add a route to the selected route tables that sends traffic
                    for the regional object storage prefix list to the endpoint instead of the NAT gateway. There is no
                    hourly or data processing charge.""",
                    """Effect on running workloads: existing connections through the NAT gateway continue until they
                    close; new connections use the endpoint. Bucket policies that restrict access by source IP (the NAT
                    gateway's elastic IPs) will deny requests arriving through the endpoint; use aws:SourceVpce
                    conditions instead.""",
                    """Change management: creating or modifying route tables in a production VPC is a standard network
                    change and needs an approved change request (CAB) before execution, whatever the cost impact.""",
                    """Rollback: delete the endpoint; routes revert to the NAT gateway within seconds.""")
         + "\n\n" + nc_audit(b, datetime(2025, 9, 3, 10, 31), 420))
    b.say("Low risk and free: the endpoint adds a route for the object storage prefix to the route tables, so S3-style "
          "traffic bypasses the NAT. Two cautions: any bucket policy that allows only the NAT gateway's IPs would start "
          "denying requests, and any route table change in a production VPC needs an approved change request (CAB) "
          "first. Want me to raise the change?")
    cab_ask = b.user("Yes, raise it. Route tables rtb-0a11c0 and rtb-0b22d1.")
    c = b.call("nc_change_request", account_id=NC_PROD, vpc_id="vpc-0f3a9c21d4e87b610",
               summary="Add gateway endpoint for object storage to route tables rtb-0a11c0 and rtb-0b22d1 (NAT cost)",
               risk="low", rollback="delete endpoint")
    b.ok(c, {"account_id": NC_PROD, "change_id": "CHG-31107", "status": "awaiting CAB", "cab_date": "2025-09-04"},
         nc_audit(b, datetime(2025, 9, 3, 10, 36), 510, "Change record:"))
    b.approval("CHG-31107", "requested", cab_ask,
               {"account_id": NC_PROD, "vpc_id": "vpc-0f3a9c21d4e87b610", "route_tables": ["rtb-0a11c0", "rtb-0b22d1"]},
               "CAB approval requested for CHG-31107: gateway endpoint for object storage in prod VPC "
               "vpc-0f3a9c21d4e87b610 (route tables rtb-0a11c0, rtb-0b22d1). Next CAB: Thursday 4 September.")
    b.say("Raised CHG-31107; it goes to CAB tomorrow, Thursday 4 September. Nothing changes in prod until it's approved.")
    b.user("While that's pending: are there bucket policies in prod that lock to the NAT IPs? I don't want to break "
           "anything.")
    c = b.call("nc_resource_inventory", account_id=NC_PROD, type="bucket-policy")
    policies = [("events-raw", "vpc-scoped (aws:SourceVpc)", "ok with endpoint"),
                ("features-curated", "vpc-scoped (aws:SourceVpc)", "ok with endpoint"),
                ("ml-models", "IP allow-list: 44.230.11.7, 44.230.11.9 (NAT EIPs)", "would deny via endpoint"),
                ("exports-partner", "public-read disabled, IAM only", "ok with endpoint"),
                ("logs-archive", "IAM only", "ok with endpoint")]
    b.ok(c, {"account_id": NC_PROD, "buckets": 5, "at_risk": "ml-models"},
         table(["bucket", "policy", "endpoint impact"], policies) + "\n\n" + nc_audit(b, datetime(2025, 9, 3, 10, 45), 460))
    b.say("One: the 'ml-models' bucket allows only the two NAT gateway IPs, so reads through the endpoint would be denied. "
          "It needs its policy switched to an aws:SourceVpc condition before or with the endpoint change. The other four "
          "are fine.")
    b.user("Add that to the change. Any news from CAB?")
    b.decide("cab-pending",
             pending("CHG-31107", why="the production change waits on CAB approval"),
             fact("at_risk", "ml-models", subject=f"account_id={NC_PROD}"),
             fact("vpc_id", "vpc-0f3a9c21d4e87b610", subject="resource_id=nat-0a41c9e2"))
    c = b.call("nc_change_request", account_id=NC_PROD, change_id="CHG-31107",
               amend="Also replace the ml-models bucket's IP allow-list with an aws:SourceVpc condition, same window.")
    b.ok(c, {"account_id": NC_PROD, "change_id": "CHG-31107", "status": "awaiting CAB", "amended": True},
         nc_audit(b, datetime(2025, 9, 3, 10, 50), 440, "Change record:"))
    b.say("Amended CHG-31107 with the ml-models policy change. CAB meets tomorrow; no decision yet.")
    b.system("Thursday 4 September 2025, 15:10 US Eastern.")
    b.approval("CHG-31107", "granted", cab_ask,
               {"account_id": NC_PROD, "vpc_id": "vpc-0f3a9c21d4e87b610", "route_tables": ["rtb-0a11c0", "rtb-0b22d1"]},
               "CAB approved CHG-31107 (with the ml-models policy amendment) for execution from 2025-09-04 16:00.",
               granted_by="Change Advisory Board (chair: D. Whitfield)")
    b.user("CAB approved it. Go ahead after 4.")
    b.decide("create-endpoint",
             next_call("nc_create_vpc_endpoint", account_id=NC_PROD, vpc_id="vpc-0f3a9c21d4e87b610",
                       route_tables="rtb-0a11c0", change_id="CHG-31107"),
             fact("nat_data_processing", "21907.16", superseded=["18420.55"], subject=f"account_id={NC_PROD}"),
             constraint(cab_ask, "rtb-0b22d1"))
    c = b.call("nc_create_vpc_endpoint", account_id=NC_PROD, vpc_id="vpc-0f3a9c21d4e87b610",
               route_tables=["rtb-0a11c0", "rtb-0b22d1"], service="object storage", change_id="CHG-31107")
    b.ok(c, {"account_id": NC_PROD, "vpc_id": "vpc-0f3a9c21d4e87b610", "endpoint_id": "vpce-0d81f2a7c3",
             "state": "available"},
         nc_audit(b, datetime(2025, 9, 4, 16, 2), 510, "Execution log:"))
    b.say("Endpoint vpce-0d81f2a7c3 is live on both route tables, with the ml-models policy switched as amended.")
    b.system("Friday 5 September 2025, 08:40 US Eastern.")
    b.user("Morning. Did NAT traffic actually drop overnight?")
    c = b.call("nc_flow_summary", resource_id="nat-0a41c9e2", month="2025-09")
    b.ok(c, {"resource_id": "nat-0a41c9e2", "gb_per_day_before": "13200", "gb_per_day_after": "410",
             "endpoint_traffic_gb": "12650"},
         table(["hour (UTC)", "NAT GB", "endpoint GB"], [
             (f"2025-09-04 {h:02d}:00", f"{(550 if h < 20 else 17) + b.rng.randint(-40, 40)}",
              f"{(0 if h < 20 else 530) + b.rng.randint(0, 30)}") for h in range(14, 24)]
             + [(f"2025-09-05 {h:02d}:00", f"{17 + b.rng.randint(-5, 9)}", f"{530 + b.rng.randint(-30, 30)}") for h in range(0, 8)])
         + "\n\nObject storage traffic from the analytics VPC now uses vpce-0d81f2a7c3. Remaining NAT traffic: container "
           "registry, package mirrors, telemetry.\n\n" + nc_audit(b, datetime(2025, 9, 5, 8, 41), 420))
    b.say("Yes, sharply: from about 13,200 GB a day through the NAT to about 410, since the endpoint went live at 20:00 "
          "UTC yesterday; the object storage traffic now goes through vpce-0d81f2a7c3 at no processing charge. At 0.045 "
          "per GB that's roughly 575 a day saved, before ML even fixes the job.")
    b.user("Write me the paragraph for the CFO.")
    b.say("'August cloud spend came in 38% over forecast, almost entirely in the production analytics account. The "
          "invoice shows 21,907.16 of NAT gateway data processing, roughly three times July's level. A new hourly ML "
          "job deployed on 6 August re-read 30 days of raw event data every hour, and that traffic passed through a NAT "
          "gateway that charges per gigabyte. We added a free private route for that traffic on 4 September, which cut "
          "NAT traffic by about 97% overnight; the ML team is fixing the job. Staging and sandbox were in line with July; "
          "we also removed unused sandbox storage. Budgets with alerts are now set for all three accounts, and we have "
          "identified a further 6,000 a month of optional savings in production for review.'")
    b.user("Nice. Now the budgets. One change: make staging 10,000, not 8,000; they have a load test in "
           "September.")
    b.correction("budget", "10000.00", subject=f"account_id={NC_STAGING}")
    b.say("Noted: staging's budget is 10,000 instead of 8,000; prod 40,000 and sandbox 2,000 as you said at the start. "
          "Alerts at 80% and 100% to you?")
    b.user("Yes, 80 and 100, to me. Create them.")
    b.decide("budgets",
             next_call("nc_create_budget", account_id=NC_STAGING, amount="10000.00"),
             next_call("nc_create_budget", account_id=NC_SANDBOX, amount="2,000", why="the amount from the first message"),
             fact("budget", "10000.00", superseded=["8000.00"], subject=f"account_id={NC_STAGING}"),
             constraint(goal, "40,000 for prod"))
    for account, amount in ((NC_PROD, "40000.00"), (NC_STAGING, "10000.00"), (NC_SANDBOX, "2000.00")):
        c = b.call("nc_create_budget", account_id=account, amount=amount, thresholds=[80, 100],
                   notify="sofia.marquez@tidewater.example")
        b.ok(c, {"account_id": account, "budget_id": f"BUD-{account[:4]}-2025-09", "amount": amount},
             nc_audit(b, datetime(2025, 9, 4, 16, 10), 240, "Budget service:"))
    b.subtask_end("Budgets created for all three accounts; NAT fix live.")
    b.say("Budgets are set with alerts at 80% and 100% to you: prod 40,000, staging 10,000, sandbox 2,000.")
    b.user("What's the September forecast for prod now, against the 40,000?")
    c = b.call("nc_cost_explorer", account_id=NC_PROD, month="2025-09", view="forecast")
    fc_total, fc_table = nc_cost_table(b, 1150, {"NAT gateway - data processing": "2380.00", "NAT gateway - hours": "394.20"})
    b.ok(c, {"account_id": NC_PROD, "month": "2025-09", "forecast_total": fc_total, "budget": "40000.00"},
         fc_table.replace("2025-08", "2025-09 fcst") + "\n\nForecast from 4 days of September actuals and 90 days of "
         "history; the NAT line reflects the endpoint from 2025-09-04. 80% confidence interval +/- 7%.\n"
         + nc_audit(b, datetime(2025, 9, 5, 9, 30), 210))
    b.say(f"Forecast for September is about {fc_total}, with NAT processing down to about 2,380 (only the first days of "
          "the month ran through the NAT). That's well under the 40,000 budget; the 80% alert would fire at 32,000.")
    b.system("Monday 8 September 2025, 09:15 US Eastern.")
    b.user("Marco's back. He says delete the untagged 500 GiB staging volume, but keep his own 2 TiB one.")
    b.decide("staging-delete",
             next_call("nc_delete_volume", account_id=NC_STAGING, volume_id="vol-0f22b3c4d5e6f7a82",
                       why="the volume id from the staging listing five days earlier"),
             fact("budget", "10000.00", superseded=["8000.00"], subject=f"account_id={NC_STAGING}"),
             constraint(goal, "ask me", why="staging deletions need the user's word, which this message gives"))
    c = b.call("nc_delete_volume", account_id=NC_STAGING, volume_id="vol-0f22b3c4d5e6f7a82",
               approved_by="Sofia Marquez (owner Marco Ruiz consulted)")
    b.ok(c, {"account_id": NC_STAGING, "volume_id": "vol-0f22b3c4d5e6f7a82", "state": "deleted"},
         "Volume deleted. Deleted volumes cannot be recovered; no snapshot was requested.\n"
         + nc_audit(b, datetime(2025, 9, 8, 9, 17), 160))
    b.say("Deleted vol-0f22b3c4d5e6f7a82 (500 GiB, 40.00 a month) in staging; Marco's vol-0f10a2b3c4d5e6f71 stays.")
    b.user("ML says they changed the backfill job's lookback to one hour on Friday. Is the anomaly closed?")
    c = b.call("nc_anomaly_detail", anomaly_id="ANOM-2025-0806-17")
    b.ok(c, {"anomaly_id": "ANOM-2025-0806-17", "status": "resolved", "resolved_at": "2025-09-05 17:20",
             "object_storage_reads_per_day_gb": "460"},
         paragraphs("""ANOM-2025-0806-17 resolved 2025-09-05 17:20 UTC. Deployment 'feature-backfill-v2' updated
                    (lookback=1h, revision 14) at 16:55 UTC. Object storage reads from the ml-features namespace fell
                    from about 12,700 GB/day to about 460 GB/day. With the endpoint in place since 2025-09-04, neither
                    figure incurs NAT processing charges.""")
         + "\n\n" + table(["date", "object storage GB read (ml-features)", "via NAT GB"], [
             ("2025-09-03", "12,690", "12,690"), ("2025-09-04", "12,710", "6,880"), ("2025-09-05", "7,950", "0"),
             ("2025-09-06", "455", "0"), ("2025-09-07", "462", "0")])
         + "\n\n" + nc_audit(b, datetime(2025, 9, 8, 9, 20), 400))
    b.subtask_end("NAT cost spike resolved (endpoint + job fix); staging volume removed with the owner's consent.",
                  task_done=True)
    b.say("Closed: ML's change at 16:55 UTC on Friday cut the job's reads from about 12,700 to about 460 GB a day, and "
          "with the endpoint none of it goes through the NAT any more. September's NAT processing should be back to "
          "normal, well under the prod budget.")
    return b


# ----------------------------------------------------------------------------------------------
# 09 Legal review: a production set, redaction instructions, a privilege conflict, Bates and delivery
# ----------------------------------------------------------------------------------------------

LG_SET, LG_MATTER = "PROD-003", "M-2025-0412"
LG_ACTORS = ["review-platform", "dms", "assistant", "pii-engine", "privilege-model", "production-svc"]
LG_EVENTS = ["document.opened read-only", "coding.read", "hash.verified sha256", "lock.acquired", "lock.released",
             "index.refreshed", "audit.logged user=assistant", "render.tiff queued", "ocr.layer checked",
             "family.resolved attachments"]
LG_DOCS = [("DOC-0117", "email", "2024-11-04", "Rosa Nguyen -> Hector Salas", "Overtime approvals, dispatch team", "no"),
           ("DOC-0118", "spreadsheet", "2024-11-30", "Payroll export", "Dispatch payroll Nov 2024", "no"),
           ("DOC-0119", "text messages", "2024-12-02", "Dale Kellerman <-> Rosa Nguyen", "Shift change request", "no"),
           ("DOC-0120", "email", "2024-12-05", "Hector Salas -> Lydia Brandt", "Dispatch staffing", "no"),
           ("DOC-0121", "pdf", "2024-12-09", "HR file", "Written warning, D. Kellerman", "no"),
           ("DOC-0122", "email", "2024-12-10", "Lydia Brandt -> Martin Oyelaran", "FW: Dispatch staffing", "no"),
           ("DOC-0123", "calendar", "2024-12-11", "Rosa Nguyen", "Meeting: Kellerman termination", "no"),
           ("DOC-0124", "email", "2024-12-12", "Rosa Nguyen -> Lydia Brandt; cc Priya Anand", "Termination plan - Kellerman", "no"),
           ("DOC-0125", "pdf", "2024-12-16", "HR file", "Termination letter, D. Kellerman", "no"),
           ("DOC-0126", "spreadsheet", "2024-12-31", "Timekeeping export", "Dispatch hours Q4 2024", "no"),
           ("DOC-0127", "email", "2025-01-06", "Priya Anand -> Lydia Brandt", "Legal advice: Kellerman demand letter", "yes"),
           ("DOC-0128", "email", "2025-01-08", "Martin Oyelaran -> board list", "Q4 operations update", "no"),
           ("DOC-0129", "pdf", "2025-01-15", "Benefits", "COBRA notice, D. Kellerman", "no"),
           ("DOC-0130", "email", "2025-01-20", "Hector Salas -> dispatch-all", "New shift policy", "no"),
           ("DOC-0131", "spreadsheet", "2025-01-31", "Payroll export", "Final pay calculation", "no")]


def lg_audit(b: Builder, start: datetime, target: int, head: str = "Audit trail:") -> str:
    return audit_trail(b.rng, start, LG_ACTORS, LG_EVENTS, target, head)


def lg_pii_table(hits: Sequence[tuple[str, str, str, str]]) -> str:
    return table(["hit_id", "type", "text (masked)", "location"], hits)


def traj_legal_review() -> Builder:
    b = Builder(
        "legal-redaction-review", "Legal review: a production set, redaction instructions, privilege, Bates and delivery",
        ["early redaction instructions (what to redact and what never to) applied to documents much later",
         "first-pass coding and the privilege model contradict each other about the same document; unsettled until "
         "the supervising attorney decides",
         "a pending supervising-attorney sign-off that blocks production, later granted",
         "a user correction of the Bates prefix supersedes the one given at the start",
         "irreversible Bates stamping and production kept raw until the subtask ends",
         "several documents at once; hit ids, set id and the recipient from much earlier tool results"],
        "A paralegal and the review assistant prepare a document production for opposing counsel: PII redaction under "
        "the attorney's instructions, a privilege question, Bates numbering and secure delivery.",
        [("dms_list_set", "read", ["set_id"]), ("dms_get_document", "read", ["doc_id"]),
         ("dms_protocol", "read", ["matter_id"]), ("rv_pii_scan", "read", ["doc_id"]),
         ("rv_privilege_check", "read", ["doc_id"]), ("rv_redact", "write", ["doc_id"]),
         ("rv_privilege_log_add", "write", ["doc_id"]), ("rv_withhold", "write", ["doc_id"]),
         ("rv_qc_report", "read", ["set_id"]), ("rv_stamp_bates", "irreversible", ["set_id"]),
         ("rv_produce", "irreversible", ["set_id"]), ("rv_production_status", "read", ["set_id"])],
        seed=909)
    b.system("You are the litigation support assistant at Marlow & Pike LLP, working in the review platform and the "
             "document management system through tools. Today is Tuesday 14 October 2025, 09:00 US Eastern.")
    goal = b.user(
        "Good morning. Ines Duarte, paralegal on Kellerman v. Orbis Logistics (matter M-2025-0412). We're producing "
        "set PROD-003 to plaintiff's counsel by Friday 17:00. Redaction instructions from Daniel Pike: redact Social "
        "Security numbers, bank account numbers, personal phone numbers and the names of minors. Do not redact the "
        "names of Orbis executives or employees, ever; plaintiff is entitled to those. Privileged documents are "
        "withheld and logged, not redacted, and Daniel must sign off every privilege call before anything goes out. "
        "Bates prefix ORB, starting at ORB-004120.")
    b.fact("bates_prefix", "ORB", "user", subject=f"set_id={LG_SET}")
    b.say("Understood. I'll redact SSNs, bank account numbers, personal phone numbers and minors' names; never the names "
          "of Orbis executives or employees; privileged documents are withheld and logged, with Daniel's sign-off on each "
          "privilege call before production; Bates ORB from ORB-004120. Let me list the set.")
    c = b.call("dms_list_set", set_id=LG_SET)
    b.ok(c, {"set_id": LG_SET, "documents": len(LG_DOCS), "pages": 212, "first_pass_privileged": ["DOC-0127"],
             "custodians": ["Rosa Nguyen", "Hector Salas", "Lydia Brandt", "Martin Oyelaran", "Priya Anand"]},
         table(["doc_id", "type", "date", "from / source", "subject", "privileged (1st pass)"], LG_DOCS)
         + "\n\nFirst-pass review by contract reviewers (Oct 6-10). Families kept together; attachments inherit the "
           "parent's coding.\n\n" + lg_audit(b, datetime(2025, 10, 14, 9, 1), 240))
    b.say("15 documents, 212 pages, from five custodians. First-pass review marked one as privileged: DOC-0127, Priya "
          "Anand's legal advice e-mail of 6 January. The rest are marked not privileged.")
    b.user("Read me the ESI protocol's production requirements first, I want to be sure about the format.")
    c = b.call("dms_protocol", matter_id=LG_MATTER)
    b.ok(c, {"matter_id": LG_MATTER, "bates_prefix": "KEL-ORB", "bates_digits": 6, "format": "single-page TIFF + text + DAT",
             "delivery": "SFTP", "recipient": "sftp://xfer.harlanwebb.example/kellerman/incoming",
             "privilege_log_due": "with production"},
         paragraphs("""Stipulated ESI Protocol and Order, Kellerman v. Orbis Logistics, Inc., No. 2:25-cv-01187 (W.D.
                    Wash.), entered 2025-05-02. Section 6, Production format: documents are produced as single-page
                    Group IV TIFF images with document-level extracted text and a Concordance DAT load file;
                    spreadsheets in native format with a slip sheet.""",
                    """Section 6.4, Bates numbering: each page bears a unique Bates number with the producing party's
                    prefix and six digits. Defendant's prefix is KEL-ORB; plaintiff's is KEL-PL. Numbers continue from
                    the last production without gaps.""",
                    """Section 7, Redactions: redactions are permitted only for privilege and for personal identifying
                    information (Social Security numbers, financial account numbers, personal phone numbers and home
                    addresses of non-parties, names of minors). Each redaction is labelled with its basis
                    ('Redacted - PII' or 'Redacted - Privilege'). Names of parties' officers and employees may not be
                    redacted.""",
                    """Section 8, Privilege log: withheld documents are logged with date, author, recipients, privilege
                    basis and a description sufficient to assess the claim, served with the production.""",
                    """Section 9, Delivery: productions are delivered by SFTP to plaintiff's counsel Harlan & Webb LLP,
                    sftp://xfer.harlanwebb.example/kellerman/incoming, with the load file and a cover letter listing
                    the Bates range.""")
         + "\n\n" + lg_audit(b, datetime(2025, 10, 14, 9, 5), 450))
    b.say("Format: single-page TIFFs with text and a DAT load file, spreadsheets native with slip sheets. Redactions only "
          "for privilege and PII (including non-parties' home addresses), each labelled with its basis; employees' and "
          "officers' names may not be redacted, which matches Daniel's instruction. Privilege log goes with the "
          "production. Delivery by SFTP to Harlan & Webb. One thing to flag: section 6.4 gives our Bates prefix as "
          "KEL-ORB, not ORB.")
    b.user("Good catch, you're right, the protocol controls. Use KEL-ORB. The numbering still continues at 004120.")
    b.correction("bates_prefix", "KEL-ORB", subject=f"set_id={LG_SET}")
    b.say("Noted: Bates KEL-ORB from KEL-ORB-004120.")
    b.user("Start with the payroll export, DOC-0118.")
    c = b.call("rv_pii_scan", doc_id="DOC-0118")
    hits_0118 = [("H-0118-01", "SSN", "XXX-XX-4471", "row 4 col D"), ("H-0118-02", "bank account", "XXXXXX8832", "row 4 col H"),
                 ("H-0118-03", "SSN", "XXX-XX-2290", "row 5 col D"), ("H-0118-04", "bank account", "XXXXXX1907", "row 5 col H"),
                 ("H-0118-05", "SSN", "XXX-XX-6012", "row 6 col D"), ("H-0118-06", "bank account", "XXXXXX5540", "row 6 col H"),
                 ("H-0118-07", "SSN", "XXX-XX-3318", "row 7 col D"), ("H-0118-08", "bank account", "XXXXXX0416", "row 7 col H"),
                 ("H-0118-09", "person name", "Dale Kellerman", "row 4 col B"), ("H-0118-10", "person name", "Rosa Nguyen", "row 12 col B"),
                 ("H-0118-11", "routing number", "XXXXX0021", "row 4 col G")]
    b.ok(c, {"doc_id": "DOC-0118", "hits": len(hits_0118), "ssn": 4, "bank_account": 4, "names": 2},
         lg_pii_table(hits_0118) + "\n\nRouting numbers identify the bank, not the account; the protocol's 'financial "
         "account numbers' does not clearly cover them.\n\n" + lg_audit(b, datetime(2025, 10, 14, 9, 12), 450))
    b.say("DOC-0118 has four SSNs and four bank account numbers (H-0118-01 to -08), which get redacted. The two names "
          "(Kellerman and Rosa Nguyen) are employees, so they stay. There's also a routing number (H-0118-11): it "
          "identifies the bank, not the account, so I'd leave it unless Daniel wants it out.")
    b.user("Leave the routing number. Redact the rest as you said.")
    c = b.call("rv_redact", doc_id="DOC-0118", hit_ids=[h[0] for h in hits_0118[:8]], label="Redacted - PII")
    b.ok(c, {"doc_id": "DOC-0118", "redactions": 8, "label": "Redacted - PII", "version": "R1"},
         lg_audit(b, datetime(2025, 10, 14, 9, 15), 470))
    b.say("DOC-0118 redacted: 8 PII redactions, labelled 'Redacted - PII'.")
    b.user("Next, the text messages, DOC-0119. I remember something about his kid in there.")
    c = b.call("dms_get_document", doc_id="DOC-0119")
    b.ok(c, {"doc_id": "DOC-0119", "pages": 3, "type": "text messages"},
         "Text message thread exported from Rosa Nguyen's company phone (Orbis MDM export), 2024-12-02.\n\n"
         + "\n".join([
             "[07:12] Dale Kellerman (+1 253-555-0187): Rosa, can I switch to the 6-2 shift starting next week? My ex "
             "moved and I have to pick up Emma from Lincoln Elementary at 3 now.",
             "[07:30] Rosa Nguyen: Morning Dale. I'll need to check with Hector, dispatch is short on the early shift.",
             "[07:31] Dale Kellerman: I know. It's just until the custody thing is sorted. Emma's 11, she can't walk home "
             "on 112th.",
             "[09:02] Rosa Nguyen: Hector says he needs you on 10-6 through the holidays. Can someone else get her?",
             "[09:05] Dale Kellerman: No. I told you. Also I still haven't been paid the overtime from October.",
             "[09:40] Rosa Nguyen: Please put the overtime question in an email to payroll. I'll raise the shift with "
             "Lydia.",
             "[12:18] Dale Kellerman: Ok. My personal cell is this one, 253-555-0187, the work phone is in the truck.",
             "[16:55] Rosa Nguyen: Lydia says no change before January. Sorry Dale.",
             "[16:57] Dale Kellerman: Then I'll have to talk to someone about this."])
         + "\n\n" + lg_audit(b, datetime(2025, 10, 14, 9, 18), 330))
    c = b.call("rv_pii_scan", doc_id="DOC-0119")
    hits_0119 = [("H-0119-01", "phone (personal)", "+1 253-555-XXXX", "07:12"), ("H-0119-02", "person name (minor)", "Emma", "07:12"),
                 ("H-0119-03", "location (school)", "Lincoln Elementary", "07:12"), ("H-0119-04", "person name (minor)", "Emma", "07:31"),
                 ("H-0119-05", "age", "11", "07:31"), ("H-0119-06", "phone (personal)", "253-555-XXXX", "12:18"),
                 ("H-0119-07", "person name", "Hector", "09:02"), ("H-0119-08", "person name", "Lydia", "09:40"),
                 ("H-0119-09", "person name", "Lydia", "16:55"), ("H-0119-10", "person name", "Dale Kellerman", "07:12")]
    b.ok(c, {"doc_id": "DOC-0119", "hits": len(hits_0119), "minor_names": 2, "personal_phones": 2, "exec_names": 3},
         lg_pii_table(hits_0119) + "\n\n" + lg_audit(b, datetime(2025, 10, 14, 9, 20), 330))
    b.say("DOC-0119 is Kellerman's text thread with Rosa Nguyen. It names his daughter Emma, age 11, twice (H-0119-02 and "
          "-04) and gives his personal cell twice (H-0119-01 and -06). It also names Hector and Lydia, which are Orbis "
          "executives (Hector Salas, Lydia Brandt), and the school (H-0119-03).")
    b.user("Redact 0119 per Daniel's instructions.")
    b.decide("redact-0119",
             next_call("rv_redact", doc_id="DOC-0119", hit_id="H-0119-02", why="the minor's name"),
             next_call("rv_redact", doc_id="DOC-0119", hit_id="H-0119-06", why="the personal phone number"),
             constraint(goal, "Do not redact the names of Orbis executives",
                        why="H-0119-07..09 must stay, whatever the scanner flags"),
             constraint(goal, "names of minors"),
             fact("bates_prefix", "KEL-ORB", superseded=["ORB"], subject=f"set_id={LG_SET}"))
    c = b.call("rv_redact", doc_id="DOC-0119", hit_ids=["H-0119-01", "H-0119-02", "H-0119-04", "H-0119-06"],
               label="Redacted - PII")
    b.ok(c, {"doc_id": "DOC-0119", "redactions": 4, "label": "Redacted - PII", "version": "R1"},
         lg_audit(b, datetime(2025, 10, 14, 9, 24), 470))
    b.say("Redacted four spans in DOC-0119: Emma's name twice and the personal cell number twice. Hector, Lydia and "
          "Kellerman stay. I left the school name and her age: the instructions cover names of minors, and with the name "
          "gone they don't identify her. Tell me if Daniel wants them out too.")
    b.user("Fine as is. What about 0124? That's the termination plan with in-house counsel copied.")
    c = b.call("dms_get_document", doc_id="DOC-0124")
    meta_0124 = b.ok(c, {"doc_id": "DOC-0124", "pages": 2, "privileged": "no", "coded_by": "contract reviewer CR-07",
                         "cc": "Priya Anand (Associate General Counsel)"},
                     paragraphs("From: Rosa Nguyen. To: Lydia Brandt. Cc: Priya Anand. Date: 12 December 2024 18:02. "
                                "Subject: Termination plan - Kellerman.",
                                """Lydia, as discussed this afternoon, the plan for Dale is below. Priya, copying you so you
                                can tell us if anything here is a problem given his overtime complaint last week.""",
                                """1. Monday 16 Dec: deliver the termination letter (attendance, three lates in November per
                                the written warning of 9 Dec). 2. Final pay including accrued PTO on the 31st payroll. 3.
                                Recover the truck keys and the work phone. 4. COBRA notice by the 15th of January.""",
                                """Priya, specifically: does the timing look retaliatory given the overtime complaint of
                                5 Dec, and should we wait until January? Please advise before Monday.""",
                                "Rosa")
                     + "\n\nCoding (first pass): privileged = no; responsive = yes; note 'business plan, counsel only "
                       "cc'd'.\n\n" + lg_audit(b, datetime(2025, 10, 14, 9, 30), 350))
    c = b.call("rv_privilege_check", doc_id="DOC-0124")
    model_0124 = b.ok(c, {"doc_id": "DOC-0124", "privileged": "likely", "score": 0.87, "basis": "request for legal advice"},
                      paragraphs("""Privilege model v3.2: score 0.87 (likely privileged). Signals: in-house counsel
                                 addressed by name with a direct request for advice ('Priya, specifically: ... Please
                                 advise'); discussion of litigation risk ('retaliatory'); the sender is a manager acting
                                 on the company's behalf.""",
                                 """Counter-signals: the first part of the e-mail is a business plan sent to a business
                                 recipient; counsel is in cc. Consider producing with the advice request redacted
                                 ('Redacted - Privilege') instead of withholding.""")
                      + "\n\n" + lg_audit(b, datetime(2025, 10, 14, 9, 31), 350))
    b.say("The two disagree. First-pass coding says not privileged ('business plan, counsel only cc'd'); the privilege "
          "model says likely privileged (0.87), because Rosa asks Priya Anand directly for legal advice on retaliation "
          "risk. The model suggests a middle path: produce it with the advice request redacted as privileged.")
    priv_ask = b.user("That's exactly the kind of call Daniel has to make. What do we tell him?")
    b.decide("privilege-conflict",
             evidence(meta_0124, model_0124, why="coding and the privilege model disagree about DOC-0124, unsettled"),
             constraint(goal, "Daniel must sign off every privilege call"),
             fact("cc", "Priya Anand (Associate General Counsel)", subject="doc_id=DOC-0124",
                  why="counsel's role on the e-mail is what the privilege call turns on"))
    b.approval("PRIV-PROD003", "requested", priv_ask,
               {"set_id": LG_SET, "calls": {"DOC-0127": "withhold (legal advice)",
                                            "DOC-0124": "produce with the advice request redacted (privilege)"}},
               "Sign-off requested from Daniel Pike on the privilege calls for PROD-003: DOC-0127 withheld as legal "
               "advice; DOC-0124 produced with the paragraph requesting legal advice redacted as privileged.")
    b.say("I've sent Daniel the calls for sign-off (PRIV-PROD003): DOC-0127 withheld as legal advice, and DOC-0124 "
          "produced with the advice-request paragraph redacted as privileged, the rest produced. Nothing goes out until "
          "he signs.")

    def scan_and_redact(doc_id: str, hits: list[tuple[str, str, str, str]], redact: list[str], note: str,
                        start: datetime) -> None:
        c = b.call("rv_pii_scan", doc_id=doc_id)
        b.ok(c, {"doc_id": doc_id, "hits": len(hits)}, lg_pii_table(hits) + "\n\n" + note + "\n\n" + lg_audit(b, start, 430))
        if redact:
            c = b.call("rv_redact", doc_id=doc_id, hit_ids=redact, label="Redacted - PII")
            b.ok(c, {"doc_id": doc_id, "redactions": len(redact), "label": "Redacted - PII", "version": "R1"},
                 lg_audit(b, start + timedelta(minutes=2), 430))

    b.user("While he looks at it, do the Dec 5 executive e-mail, 0120.")
    scan_and_redact("DOC-0120", [("H-0120-01", "person name", "Hector Salas", "From"), ("H-0120-02", "person name", "Lydia Brandt", "To"),
                                 ("H-0120-03", "person name", "Dale Kellerman", "para 2"),
                                 ("H-0120-04", "phone (work)", "+1 253-555-0100 ext 214", "signature")], [],
                    "Work phone numbers are business contact details, not personal phone numbers.",
                    datetime(2025, 10, 14, 10, 5))
    b.say("DOC-0120 needs nothing: only employees' and executives' names and a work extension, which is a business "
          "contact, not a personal number.")
    b.user("And 0122, the one Lydia forwarded to the CEO.")
    scan_and_redact("DOC-0122", [("H-0122-01", "person name", "Lydia Brandt", "From"), ("H-0122-02", "person name", "Martin Oyelaran", "To"),
                                 ("H-0122-03", "phone (personal)", "+1 206-555-XXXX", "signature: 'mobile (personal)'"),
                                 ("H-0122-04", "person name", "Hector Salas", "quoted e-mail")], ["H-0122-03"],
                    "The signature block lists a personal mobile number for Lydia Brandt.", datetime(2025, 10, 14, 10, 9))
    b.say("DOC-0122 had one hit to redact: Lydia Brandt's personal mobile in her signature (H-0122-03). Her name and "
          "Martin Oyelaran's stay, per Daniel's rule.")
    b.user("Good. The timekeeping export, 0126?")
    hits_0126 = [(f"H-0126-{i:02d}", "phone (personal)", f"+1 253-555-XXXX", f"row {i + 3} col K") for i in range(1, 8)]
    hits_0126 += [(f"H-0126-{i:02d}", "person name", n, f"row {i - 4} col B") for i, n in
                  [(8, "Dale Kellerman"), (9, "Ana Flores"), (10, "Marcus Webb"), (11, "Tina Osei")]]
    scan_and_redact("DOC-0126", hits_0126, [h[0] for h in hits_0126[:7]],
                    "Column K 'emergency / personal phone' holds personal numbers of seven dispatchers.",
                    datetime(2025, 10, 14, 10, 20))
    b.say("DOC-0126: column K holds seven dispatchers' personal phone numbers, all redacted; their names stay.")
    b.user("And the final pay sheet, 0131.")
    hits_0131 = [("H-0131-01", "SSN", "XXX-XX-4471", "row 2 col C"), ("H-0131-02", "bank account", "XXXXXX8832", "row 2 col F"),
                 ("H-0131-03", "routing number", "XXXXX0021", "row 2 col E"), ("H-0131-04", "person name", "Dale Kellerman", "row 2 col B"),
                 ("H-0131-05", "amount", "4,118.62", "row 9 col F")]
    scan_and_redact("DOC-0131", hits_0131, ["H-0131-01", "H-0131-02"],
                    "The final pay amount is not PII.", datetime(2025, 10, 14, 10, 26))
    b.say("DOC-0131: Kellerman's SSN and bank account redacted; the routing number stays, as you decided for 0118, and so "
          "does the final pay amount.")
    b.user("Run the QC report on the whole set so we see what's left.")
    c = b.call("rv_qc_report", set_id=LG_SET)
    qc = [("DOC-0117", "scanned", 3, 0, "-"), ("DOC-0118", "redacted R1", 11, 8, "-"), ("DOC-0119", "redacted R1", 10, 4, "-"),
          ("DOC-0120", "scanned", 4, 0, "-"), ("DOC-0121", "not scanned", "-", "-", "needs PII scan"),
          ("DOC-0122", "redacted R1", 4, 1, "-"), ("DOC-0123", "scanned", 2, 0, "-"),
          ("DOC-0124", "privilege pending", 5, 0, "awaiting PRIV-PROD003"), ("DOC-0125", "not scanned", "-", "-", "needs PII scan"),
          ("DOC-0126", "redacted R1", 11, 7, "-"), ("DOC-0127", "privilege pending", "-", "-", "awaiting PRIV-PROD003"),
          ("DOC-0128", "scanned", 6, 0, "-"), ("DOC-0129", "not scanned", "-", "-", "needs PII scan"),
          ("DOC-0130", "scanned", 1, 0, "-"), ("DOC-0131", "redacted R1", 5, 2, "-")]
    b.ok(c, {"set_id": LG_SET, "ready": 10, "needs_scan": ["DOC-0121", "DOC-0125", "DOC-0129"],
             "privilege_pending": ["DOC-0124", "DOC-0127"]},
         table(["doc_id", "state", "PII hits", "redactions", "blocker"], qc)
         + "\n\nChecks: redaction labels present on all redactions; no redaction overlaps a custodian or executive name; "
           "spreadsheets flagged for native production with slip sheets.\n\n" + lg_audit(b, datetime(2025, 10, 14, 10, 40), 450))
    b.say("Ten documents are ready. Three haven't been PII-scanned yet (DOC-0121 warning, DOC-0125 termination letter, "
          "DOC-0129 COBRA notice), and DOC-0124 and DOC-0127 wait on Daniel's sign-off. QC confirms no redaction touches an "
          "employee or executive name.")
    b.user("Scan those three, starting with the warning letter.")
    scan_and_redact("DOC-0121", [("H-0121-01", "address (home, party)", "XXXX S 112th St, Tacoma", "letterhead"),
                                 ("H-0121-02", "person name", "Dale Kellerman", "para 1"),
                                 ("H-0121-03", "person name", "Rosa Nguyen", "signature")], [],
                    "The home address belongs to the plaintiff, a party; the protocol limits address redaction to "
                    "non-parties.", datetime(2025, 10, 14, 10, 50))
    b.say("DOC-0121: nothing to redact. The home address is Kellerman's own, and he's a party; the protocol only allows "
          "redacting non-parties' addresses.")
    b.user("The termination letter?")
    scan_and_redact("DOC-0125", [("H-0125-01", "address (home, party)", "XXXX S 112th St, Tacoma", "address block"),
                                 ("H-0125-02", "SSN (partial)", "XXX-XX-4471", "footer 'employee ref'"),
                                 ("H-0125-03", "person name", "Lydia Brandt", "signature")], ["H-0125-02"],
                    "A full SSN appears in the footer of the termination letter.", datetime(2025, 10, 14, 10, 54))
    b.say("DOC-0125: his SSN in the footer ('employee ref') redacted; the address and Lydia Brandt's signature stay.")
    b.user("And the COBRA notice.")
    scan_and_redact("DOC-0129", [("H-0129-01", "SSN", "XXX-XX-4471", "form field 3"),
                                 ("H-0129-02", "person name (minor)", "Emma Kellerman", "dependents table"),
                                 ("H-0129-03", "date of birth (minor)", "XX/XX/2013", "dependents table"),
                                 ("H-0129-04", "person name", "Dale Kellerman", "form field 1")], ["H-0129-01", "H-0129-02"],
                    "The COBRA notice lists the employee's dependents.", datetime(2025, 10, 14, 10, 58))
    b.say("DOC-0129: his SSN and his daughter Emma's name in the dependents table redacted. I left her birth year: "
          "without the name it doesn't identify her, same as in 0119. All 13 non-privileged documents are now done.")
    b.user("Can we stamp and send it today then? Plaintiff's counsel is pushing.")
    b.decide("signoff-pending",
             pending("PRIV-PROD003", why="Daniel's sign-off on the privilege calls is still open"),
             constraint(goal, "before anything goes out"),
             fact("bates_prefix", "KEL-ORB", superseded=["ORB"], subject=f"set_id={LG_SET}"),
             fact("recipient", "sftp://xfer.harlanwebb.example/kellerman/incoming", subject=f"matter_id={LG_MATTER}"))
    b.say("Not yet: everything is ready except the two privilege calls, and Daniel hasn't signed off on PRIV-PROD003. His "
          "instruction was that nothing goes out before he does. We still have until Friday 17:00.")

    b.system("Wednesday 15 October 2025, 14:20 US Eastern.")
    b.approval("PRIV-PROD003", "granted", priv_ask,
               {"set_id": LG_SET, "calls": {"DOC-0127": "withhold (legal advice)",
                                            "DOC-0124": "produce with the advice request redacted (privilege)"}},
               "Daniel Pike approved both calls: withhold DOC-0127; produce DOC-0124 with the paragraph beginning "
               "'Priya, specifically' and the sentence addressed to Priya in the first paragraph redacted as privileged.",
               granted_by="Daniel Pike (supervising attorney)")
    b.user("Daniel signed off on both. Apply his calls.")
    b.decide("apply-privilege",
             next_call("rv_withhold", doc_id="DOC-0127"),
             next_call("rv_privilege_log_add", doc_id="DOC-0127"),
             next_call("rv_redact", doc_id="DOC-0124", label="Redacted - Privilege",
                       why="the label comes from the protocol read on the first day"),
             constraint(goal, "withheld and logged, not redacted", why="DOC-0127 is withheld, not redacted"))
    c = b.call("rv_withhold", doc_id="DOC-0127", basis="attorney-client privilege", approval_id="PRIV-PROD003")
    b.ok(c, {"doc_id": "DOC-0127", "state": "withheld", "pages_removed": 2}, lg_audit(b, datetime(2025, 10, 15, 14, 22), 430))
    c = b.call("rv_privilege_log_add", doc_id="DOC-0127", date="2025-01-06", author="Priya Anand (Associate General "
               "Counsel)", recipients="Lydia Brandt (COO)", basis="attorney-client privilege",
               description="E-mail from in-house counsel providing legal advice regarding plaintiff's demand letter.")
    b.ok(c, {"doc_id": "DOC-0127", "log_entry": "PL-003-001"}, lg_audit(b, datetime(2025, 10, 15, 14, 24), 430))
    b.say("DOC-0127 is withheld (its two pages removed from the set) and logged as PL-003-001. Shall I do the partial "
          "redaction of DOC-0124 now?")
    b.user("Yes, go on with 0124.")
    priv_redact = b.call("rv_redact", doc_id="DOC-0124", label="Redacted - Privilege",
                         spans=["para 2, sentence 2 ('Priya, copying you ...')", "para 4 ('Priya, specifically ...')"])
    priv_redact_res = b.ok(priv_redact, {"doc_id": "DOC-0124", "redactions": 2, "label": "Redacted - Privilege",
                                         "version": "R1"}, lg_audit(b, datetime(2025, 10, 15, 14, 26), 430))
    c = b.call("rv_privilege_log_add", doc_id="DOC-0124", date="2024-12-12", author="Rosa Nguyen (HR Manager)",
               recipients="Lydia Brandt (COO); cc Priya Anand (Associate General Counsel)",
               basis="attorney-client privilege (partial redaction)",
               description="Portions of e-mail requesting legal advice from in-house counsel regarding timing of "
                           "termination; remainder produced.")
    b.ok(c, {"doc_id": "DOC-0124", "log_entry": "PL-003-002"}, lg_audit(b, datetime(2025, 10, 15, 14, 28), 430))
    b.say("DOC-0124 now carries two 'Redacted - Privilege' redactions (the sentence and the paragraph addressed to Priya) "
          "and is logged as a partial withholding (PL-003-002). Both of Daniel's calls are applied.")
    b.user("Stamp it.")
    b.decide("stamp",
             next_call("rv_stamp_bates", set_id=LG_SET, prefix="KEL-ORB", start="004120",
                       why="the corrected prefix and the starting number from the first messages"),
             fact("bates_prefix", "KEL-ORB", superseded=["ORB"], subject=f"set_id={LG_SET}"),
             state(priv_redact, "succeeded", b.request_id_of(priv_redact_res)))
    stamp = b.call("rv_stamp_bates", set_id=LG_SET, prefix="KEL-ORB", start="004120", digits=6)
    stamp_res = b.ok(stamp, {"set_id": LG_SET, "first": "KEL-ORB-004120", "last": "KEL-ORB-004329", "pages": 210,
                             "documents": 14},
                     table(["doc_id", "first page", "last page"], [
                         (d[0], f"KEL-ORB-{4120 + i * 15:06d}", f"KEL-ORB-{4120 + i * 15 + 14:06d}") for i, d in
                         enumerate([d for d in LG_DOCS if d[0] != "DOC-0127"])])
                     + "\n\nStamping is final: numbers are burned into the images and cannot be reissued without a "
                       "replacement production.\n\n" + lg_audit(b, datetime(2025, 10, 15, 14, 35), 450))
    b.say("Stamped: 14 documents, 210 pages, KEL-ORB-004120 to KEL-ORB-004329 (DOC-0127's two pages are withheld).")
    b.user("Send it to Harlan & Webb with the privilege log.")
    produce = b.call("rv_produce", set_id=LG_SET, recipient="sftp://xfer.harlanwebb.example/kellerman/incoming",
                     include=["images", "text", "natives", "DAT load file", "privilege log", "cover letter"])
    produce_timeout = b.timeout(produce, "SFTP transfer status not received within 120 s; connection closed by peer")
    b.say("The transfer started but its status never came back: the SFTP connection was closed before the confirmation. "
          "I don't know whether the production arrived.")
    b.user("It's 4:40 on Wednesday, not Friday, but still. Did it go or not? Should I resend?")
    b.decide("produce-timeout",
             state(produce, "unknown", why="a timeout: the production may have been delivered"),
             evidence(produce.seq, produce_timeout, stamp.seq, stamp_res,
                      why="the unknown delivery and the irreversible stamping before the subtask ends"),
             next_call("rv_production_status", set_id=LG_SET, why="check delivery before any resend"))
    b.say("Don't resend yet: a second delivery would put two copies of the same Bates range on their server, which "
          "invites confusion about which one counts. Checking the production status first.")
    c = b.call("rv_production_status", set_id=LG_SET)
    b.ok(c, {"set_id": LG_SET, "production_id": "PRD-0412-003", "delivered": True, "files": 233,
             "sha256_manifest": "verified", "delivered_at": "2025-10-15 16:37:52"},
         "Delivery manifest PRD-0412-003\n" + table(["file", "count", "bytes"], [
             ("IMAGES/*.tif", 210, "38,912,004"), ("TEXT/*.txt", 14, "402,118"), ("NATIVES/*.xlsx", 3, "1,204,990"),
             ("DATA/PROD003.dat", 1, "18,220"), ("PRIVLOG/PROD003_privilege_log.pdf", 1, "88,410"),
             ("COVER/PROD003_cover_letter.pdf", 1, "64,002"), ("MANIFEST/sha256.txt", 1, "21,744"),
             ("SLIPSHEETS/*.tif", 2, "96,004")])
         + "\n\nThe receiving server acknowledged all files and the checksum manifest at 16:37:52; the connection was "
           "closed by the peer after the acknowledgement.\n\n" + lg_audit(b, datetime(2025, 10, 15, 16, 41), 430))
    reconcile = b.status_query(produce, "succeeded", "rv_production_status", request_id="PRD-0412-003")
    b.say("It went: production PRD-0412-003 was delivered and acknowledged at 16:37:52, all 233 files with a verified "
          "checksum manifest; the server just closed the connection before our tool got the confirmation. No resend.")
    b.user("Great. Give me the Bates range and what was withheld for the cover e-mail to Harlan & Webb.")
    b.decide("cover-email",
             state(produce, "succeeded", "PRD-0412-003"),
             evidence(produce.seq, reconcile, why="the production and its reconciliation, subtask still open"),
             fact("last", "KEL-ORB-004329", subject=f"set_id={LG_SET}"),
             fact("log_entry", "PL-003-001", subject="doc_id=DOC-0127"))
    b.subtask_end("PROD-003 produced (PRD-0412-003): KEL-ORB-004120 to KEL-ORB-004329; DOC-0127 withheld, DOC-0124 "
                  "partially redacted for privilege.", task_done=True)
    b.say("For the cover e-mail: Defendant's third production, PROD-003, Bates KEL-ORB-004120 through KEL-ORB-004329 "
          "(14 documents, 210 pages), delivered by SFTP on 15 October at 16:37 (PRD-0412-003). One document withheld in "
          "full (privilege log entry PL-003-001, an e-mail from in-house counsel of 6 January 2025) and one produced with "
          "privilege redactions (PL-003-002, 12 December 2024). PII redactions are labelled 'Redacted - PII' per section "
          "7 of the ESI protocol.")
    return b



TRAJECTORIES: list[tuple[str, Callable[[], Builder]]] = [
    ("01_hr_onboarding", traj_hr_onboarding),
    ("02_insurance_claim", traj_insurance_claim),
    ("03_card_dispute", traj_card_dispute),
    ("04_it_helpdesk", traj_it_helpdesk),
    ("05_grocery", traj_grocery),
    ("06_clinic", traj_clinic),
    ("07_rental_damage", traj_rental_damage),
    ("08_cloud_cost", traj_cloud_cost),
    ("09_legal_review", traj_legal_review),
]


MIN_TRAJECTORIES, MIN_PROBES_TOTAL = 8, 150
PROBE_CLASSES = ("fact", "tool_state", "next_call", "pending", "constraint", "evidence")


def build_all() -> dict[str, tuple[Builder, str]]:
    """Every trajectory, built and rendered, after the checks that span the whole set."""
    out = {}
    tools: dict[str, dict[str, Any]] = {}
    for name, make in TRAJECTORIES:
        b = make()
        out[name] = (b, b.render())
        for tool in b.header["tools"]:  # one tool registry for the whole set
            assert tools.setdefault(tool["tool"], tool) == tool, f"{name}: {tool['tool']} declared differently"
    probes = sum((b.probe_classes for b, _ in out.values()), Counter())
    assert len(out) >= MIN_TRAJECTORIES and sum(probes.values()) >= MIN_PROBES_TOTAL, probes
    assert all(probes[c] for c in PROBE_CLASSES), f"a probe class is missing: {probes}"
    return out


def stats_table(built: dict[str, tuple[Builder, str]]) -> str:
    rows = []
    for name, (b, _) in built.items():
        s = b.stats()
        rows.append([f"{name}.jsonl", s["id"], s["events"], s["tokens"], s["decisions"],
                     sum(s["probes"].values())] + [s["probes"].get(c, 0) for c in PROBE_CLASSES])
    totals = ["total", "", *(sum(r[i] for r in rows) for i in range(2, len(rows[0])))]
    return table(["file", "id", "events", "tokens", "decisions", "probes", *PROBE_CLASSES], rows + [totals])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the files on disk differ")
    parser.add_argument("--stats", action="store_true", help="print the size table")
    args = parser.parse_args(argv)
    built = build_all()
    if args.stats:
        print(stats_table(built))
        return 0
    stale = []
    for name, (_, text) in built.items():
        path = HERE / f"{name}.jsonl"
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        if args.check:
            stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(HERE.parent.parent)}")
    expected = {f"{name}.jsonl" for name in built}
    extra = sorted(p.name for p in HERE.glob("*.jsonl") if p.name not in expected)
    if args.check and (stale or extra):
        for name in stale:
            print(f"differs from what generate.py writes: {name}", file=sys.stderr)
        for name in extra:
            print(f"not written by generate.py: {name}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
