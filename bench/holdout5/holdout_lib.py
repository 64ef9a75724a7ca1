"""Shared machinery of held-out set 5: a trajectory builder, the lint, the ORACLE and the CLI.

Both ``short/generate.py`` and ``long/generate.py`` import this module; each of them declares its
own TOOLS table (every tool once) and its own trajectories. Nothing here reads pgctx's summarizer,
context or judge: the oracle below re-implements the probe rules of docs/eval.md ("Probes and how
each is judged") against the WHOLE raw history up to each decision, so that every probe is
satisfiable by a context that kept everything. It says nothing about what pgctx keeps.

CLI (``main``): no flag writes the files; ``--check`` exits 1 when a file on disk differs from what
would be written; ``--stats`` prints a table. Any oracle or lint problem is printed and the
program exits 2 without writing anything.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any, Callable

from pgctx.eventlog import event_tokens
from pgctx.tokens import TokenCounter

COUNTER = TokenCounter.for_model("gpt-4o-mini")
CLASSES = ("fact", "tool_state", "next_call", "pending", "constraint", "evidence")
NOT_FACT_FIELDS = {"call_id", "outcome", "request_id", "error", "idempotency_key", "authority"}
DEFINITIVE = {"succeeded", "failed", "cancelled", "not_performed"}


def tokens(kind: str, payload: dict) -> int:
    return event_tokens(kind, payload, COUNTER) or 0


# --------------------------------------------------------------------------------------------------
# probes


def F(key: str, value: Any, superseded: tuple | list = (), subject: str | None = None, why: str = "") -> dict:
    p: dict[str, Any] = {"probe": "fact", "key": key}
    if subject is not None:
        p["subject"] = subject
    p["value"] = value
    if superseded:
        p["superseded"] = list(superseded)
    if why:
        p["why"] = why
    return p


def TS(status: str, call_id: str | None = None, idem: str | None = None, request_id: str | None = None,
       why: str = "") -> dict:
    p: dict[str, Any] = {"probe": "tool_state"}
    if call_id is not None:
        p["call_id"] = call_id
    if idem is not None:
        p["idempotency_key"] = idem
    p["status"] = status
    if request_id is not None:
        p["request_id"] = request_id
    if why:
        p["why"] = why
    return p


def NC(tool: str, why: str = "", **arguments: Any) -> dict:
    p = {"probe": "next_call", "tool": tool, "arguments": arguments}
    if why:
        p["why"] = why
    return p


def PA(approval_id: str, why: str = "") -> dict:
    p = {"probe": "pending", "approval_id": approval_id}
    if why:
        p["why"] = why
    return p


def PC(call_id: str, why: str = "") -> dict:
    p = {"probe": "pending", "call_id": call_id}
    if why:
        p["why"] = why
    return p


def C(seq: int, text: str, why: str = "") -> dict:
    p: dict[str, Any] = {"probe": "constraint", "seq": seq, "text": text}
    if why:
        p["why"] = why
    return p


def EV(*seqs: int, why: str = "") -> dict:
    p: dict[str, Any] = {"probe": "evidence", "seqs": list(seqs)}
    if why:
        p["why"] = why
    return p


# --------------------------------------------------------------------------------------------------
# builder


class Traj:
    """Builds one trajectory; tracks seqs exactly as the replay assigns them."""

    def __init__(self, tools_table: dict, tid: str, title: str, exercises: list[str], description: str,
                 window: int | None = None):
        self.table = tools_table
        self.id, self.title, self.exercises, self.description, self.window = tid, title, exercises, description, window
        self.rng = random.Random(tid)  # every random filler choice is seeded by the trajectory id
        self.steps: list[dict] = []
        self.seq = 0
        self.events: dict[int, tuple[str, dict]] = {}
        self.used_tools: list[str] = []
        self._n = 0

    # events -----------------------------------------------------------------------------------------
    def ev(self, kind: str, payload: dict) -> int:
        self.seq += 1
        self.steps.append({"type": "event", "kind": kind, "payload": payload, "seq": self.seq})
        self.events[self.seq] = (kind, payload)
        return self.seq

    def user(self, text: str) -> int:
        return self.ev("user", {"text": text})

    def asst(self, text: str) -> int:
        return self.ev("assistant", {"text": text})

    def system(self, text: str) -> int:
        return self.ev("system", {"text": text})

    def call(self, tool: str, call_id: str, idem: str | None = None, **arguments: Any) -> int:
        if tool not in self.table:
            raise KeyError(f"{self.id}: tool {tool!r} is not in the TOOLS table")
        if tool not in self.used_tools:
            self.used_tools.append(tool)
        payload: dict[str, Any] = {"tool": tool, "call_id": call_id, "arguments": arguments}
        if idem is not None:
            payload["idempotency_key"] = idem
        payload["effect"] = self.table[tool]["effect"]
        return self.ev("tool_call", payload)

    def res(self, call_id: str, outcome: str = "succeeded", result: dict | None = None, log: str | None = None,
            error: str | None = None, request_id: str | None = None, **extra: Any) -> int:
        payload: dict[str, Any] = {"call_id": call_id, "outcome": outcome}
        if request_id is not None:
            payload["request_id"] = request_id
        if error is not None:
            payload["error"] = error
        if result is not None:
            payload["result"] = result
        if log is not None:
            payload["log"] = log
        payload.update(extra)
        return self.ev("tool_result", payload)

    def sq(self, call_id: str, outcome: str, result: dict | None = None, **extra: Any) -> int:
        payload: dict[str, Any] = {"call_id": call_id, "outcome": outcome}
        if result is not None:
            payload["result"] = result
        payload.update(extra)
        return self.ev("status_query", payload)

    def fact(self, key: str, value: Any, authority: str = "user", confidence: str = "confirmed",
             subject: str | None = None) -> int:
        payload: dict[str, Any] = {"key": key, "value": value, "authority": authority, "confidence": confidence}
        if subject is not None:
            payload["subject"] = subject
        return self.ev("fact", payload)

    def corr(self, key: str, value: Any, authority: str = "user", confidence: str = "confirmed",
             subject: str | None = None) -> int:
        payload: dict[str, Any] = {"key": key, "value": value, "authority": authority, "confidence": confidence}
        if subject is not None:
            payload["subject"] = subject
        return self.ev("correction", payload)

    def approval(self, approval_id: str, status: str, scopes_event: int) -> int:
        return self.ev("approval", {"approval_id": approval_id, "status": status, "scopes_event": scopes_event})

    def cr(self, tool: str, call_id: str, args: dict, result: dict | None = None, outcome: str = "succeeded",
           log: str | None = None, error: str | None = None, request_id: str | None = None,
           idem: str | None = None) -> tuple[int, int]:
        """A call and its answer, back to back: (call seq, result seq)."""
        a = self.call(tool, call_id, idem=idem, **args)
        b = self.res(call_id, outcome=outcome, result=result, log=log, error=error, request_id=request_id)
        return a, b

    # other steps ------------------------------------------------------------------------------------
    def recover(self) -> int | None:
        """pgctx.recover: a recovery event is appended when a call since the last recovery has no answer."""
        last_recovery = max((s for s, (k, _) in self.events.items() if k == "recovery"), default=0)
        answered = {p["call_id"] for k, p in self.events.values() if k in ("tool_result", "status_query")}
        running = [p["call_id"] for s, (k, p) in self.events.items()
                   if k == "tool_call" and s > last_recovery and p["call_id"] not in answered]
        self.steps.append({"type": "recover"})
        if not running:
            raise ValueError(f"{self.id}: a recover step with no running call would append nothing")
        self.seq += 1
        self.events[self.seq] = ("recovery", {})
        return self.seq

    def decide(self, did: str, *probes: dict, note: str = "") -> None:
        for p in probes:  # a tool named by a next_call probe is declared too
            if p["probe"] == "next_call" and p["tool"] in self.table and p["tool"] not in self.used_tools:
                self.used_tools.append(p["tool"])
        self.steps.append({"type": "decision", "id": did, "probes": list(probes), "note": note})

    # output -----------------------------------------------------------------------------------------
    def header(self) -> dict:
        h: dict[str, Any] = {"pgctx_trajectory": 1, "id": self.id, "title": self.title, "exercises": self.exercises,
                             "description": self.description,
                             "tools": [{"tool": t, "effect": self.table[t]["effect"],
                                        "identifier_args": list(self.table[t]["identifier_args"]),
                                        "description": self.table[t]["description"]} for t in self.used_tools]}
        if self.window is not None:
            h["window"] = self.window
        return h

    def text(self) -> str:
        lines = [json.dumps(self.header(), ensure_ascii=False)]
        for step in self.steps:
            if step["type"] == "event":
                lines.append(json.dumps({"type": "event", "kind": step["kind"], "payload": step["payload"],
                                         "seq": step["seq"]}, ensure_ascii=False))
            else:
                lines.append(json.dumps(step, ensure_ascii=False))
        return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------
# the oracle: every probe against the whole raw history up to its decision (docs/eval.md's rules)


def _flatten(value: Any, prefix: str, out: list[tuple[str, Any, bool]], in_list: bool = False) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out, in_list)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _flatten(v, f"{prefix}.{i}", out, True)
    else:
        out.append((prefix, value, in_list))


def result_fields(payload: dict) -> list[tuple[str, Any, bool]]:
    """(dotted name, value, inside a list) of a tool_result / status_query's stated fields."""
    out: list[tuple[str, Any, bool]] = []
    for k, v in payload.items():
        if k in NOT_FACT_FIELDS:
            continue
        _flatten(v, k, out)
    return out


def _key_matches(name: str, key: str) -> bool:
    return name == key or name.split(".")[-1] == key or name == "result." + key


def parse_subject(subject: Any) -> dict[str, str]:
    if subject is None:
        return {}
    if isinstance(subject, dict):
        return {str(k): str(v) for k, v in subject.items()}
    pairs = {}
    for part in str(subject).split(","):
        if part.strip():
            name, _, value = part.partition("=")
            pairs[name.strip()] = value.strip()
    return pairs


def _leaves(value: Any) -> list[str]:
    out: list[tuple[str, Any, bool]] = []
    _flatten(value, "", out)
    return [str(v) for _, v, _ in out if v is not None]


def event_texts(kind: str, payload: dict) -> list[str]:
    """The text a next_call value may be found in: message content, call arguments, tool answers."""
    if kind in ("user", "assistant", "system"):
        return [payload.get("text", "")]
    if kind == "tool_call":
        return _leaves(payload.get("arguments", {}))
    if kind in ("tool_result", "status_query"):
        return _leaves({k: v for k, v in payload.items() if k != "call_id"})
    return []


class Oracle:
    def __init__(self, t: Traj):
        self.t = t
        self.problems: list[str] = []

    def err(self, where: str, msg: str) -> None:
        self.problems.append(f"{self.t.id}: {where}: {msg}")

    def statements(self, upto: int, key: str, subject: str | None, where: str) -> list[tuple[int, Any]]:
        want = parse_subject(subject)
        calls = {p["call_id"]: p for k, p in self.t.events.values() if k == "tool_call"}
        found: list[tuple[int, Any]] = []
        for seq in range(1, upto + 1):
            kind, p = self.t.events[seq]
            values: list[Any] = []
            if kind in ("fact", "correction") and p.get("key") == key:
                if p.get("authority") == "model" or p.get("confidence") in ("inferred", "unknown"):
                    continue
                have = parse_subject(p.get("subject"))
                if all(have.get(n) == v for n, v in want.items()):
                    values.append(p.get("value"))
            elif kind in ("tool_result", "status_query") and p.get("outcome") == "succeeded":
                matches = [(n, v, inl) for n, v, inl in result_fields(p) if _key_matches(n, key)]
                for n, v, inl in matches:
                    if inl:
                        self.err(where, f"key {key!r} is stated inside a list at seq {seq} ({n}): ambiguous")
                    if isinstance(v, str) and len(v) > 200:
                        self.err(where, f"key {key!r} at seq {seq} is a long text field: ambiguous")
                if not matches:
                    continue
                if want:
                    call = calls.get(p["call_id"])
                    args = call["arguments"] if call else {}
                    if not all(n in args and str(args[n]) == v for n, v in want.items()):
                        continue
                values = [v for _, v, _ in matches]
            if values:
                if len({json.dumps(v, sort_keys=True) for v in values}) > 1:
                    self.err(where, f"seq {seq} states two values for {key!r}: {values}")
                found.append((seq, values[0]))
        return found

    def call_statuses(self, upto: int, call_ids: list[str]) -> list[tuple[int, str, str | None]]:
        st: list[tuple[int, str, str | None]] = []
        recoveries = [s for s in range(1, upto + 1) if self.t.events[s][0] == "recovery"]
        for cid in call_ids:
            call_seq = next(s for s in range(1, upto + 1)
                            if self.t.events[s][0] == "tool_call" and self.t.events[s][1]["call_id"] == cid)
            answers = []
            for s in range(call_seq + 1, upto + 1):
                kind, p = self.t.events[s]
                if kind == "tool_result" and p["call_id"] == cid:
                    o = p["outcome"]
                    answers.append((s, o if o in ("succeeded", "failed", "cancelled") else "unknown",
                                    p.get("request_id")))
                elif kind == "status_query" and p["call_id"] == cid:
                    o = p["outcome"]
                    status = {"succeeded": "succeeded", "failed": "failed", "not_performed": "failed"}.get(o, "unknown")
                    answers.append((s, status, p.get("request_id")))
            if answers:
                st += answers
            else:
                after = [r for r in recoveries if r > call_seq]
                st.append((after[0], "unknown", None) if after else (call_seq, "running", None))
        return sorted(st)

    def check(self) -> None:
        t = self.t
        steps = t.steps
        seq = 0
        last_event: tuple[str, dict] | None = None
        last_user_seq = 0
        seen_ids: set[str] = set()
        for i, step in enumerate(steps):
            if step["type"] == "event":
                seq = step["seq"]
                last_event = (step["kind"], step["payload"])
                if step["kind"] == "user":
                    last_user_seq = seq
                continue
            if step["type"] == "recover":
                seq = max(s for s in t.events if s <= seq + 1)
                last_event = ("recovery", {})
                continue
            if step["type"] != "decision":
                continue
            did = step["id"]
            if did in seen_ids:
                self.err(did, "decision id used twice")
            seen_ids.add(did)
            if i == 0 or steps[i - 1]["type"] != "event" or steps[i - 1]["kind"] != "user":
                self.err(did, "a decision must follow a user event")
            upto = seq
            for n, probe in enumerate(step["probes"]):
                self.check_probe(f"{did}#{n}", probe, upto, last_user_seq)

    def check_probe(self, where: str, p: dict, upto: int, user_seq: int) -> None:
        t = self.t
        cls = p["probe"]
        if cls == "fact":
            st = self.statements(upto, p["key"], p.get("subject"), where)
            if not st:
                self.err(where, f"no statement of {p['key']!r} before the decision")
                return
            newest_seq, newest = st[-1]
            if newest != p["value"] or type(newest) is not type(p["value"]):
                self.err(where, f"newest statement of {p['key']!r} (seq {newest_seq}) is {newest!r}, not {p['value']!r}")
            for old in p.get("superseded", []):
                if old == p["value"]:
                    self.err(where, f"superseded value {old!r} equals the value")
                if not any(v == old and type(v) is type(old) and s < newest_seq for s, v in st):
                    self.err(where, f"superseded value {old!r} of {p['key']!r} was never stated earlier")
        elif cls == "tool_state":
            if "call_id" in p:
                ids = [p["call_id"]]
            else:
                ids = [q["call_id"] for s, (k, q) in sorted(t.events.items())
                       if s <= upto and k == "tool_call" and q.get("idempotency_key") == p["idempotency_key"]]
            known = {q["call_id"] for s, (k, q) in t.events.items() if s <= upto and k == "tool_call"}
            if not ids or not all(c in known for c in ids):
                self.err(where, f"no such call before the decision: {ids}")
                return
            st = self.call_statuses(upto, ids)
            s, status, rid = st[-1]
            if status != p["status"]:
                self.err(where, f"newest status of {ids} (seq {s}) is {status}, not {p['status']}")
            if "request_id" in p and rid != p["request_id"]:
                self.err(where, f"request id of the newest statement is {rid!r}, not {p['request_id']!r}")
        elif cls == "pending":
            if "approval_id" in p:
                aid = p["approval_id"]
                req = [s for s, (k, q) in t.events.items()
                       if s <= upto and k == "approval" and q["approval_id"] == aid and q["status"] == "requested"]
                closed = [s for s, (k, q) in t.events.items()
                          if s <= upto and k == "approval" and q["approval_id"] == aid and q["status"] != "requested"]
                if not req:
                    self.err(where, f"approval {aid} was never requested")
                elif closed:
                    self.err(where, f"approval {aid} was answered at seq {closed}")
            else:
                cid = p["call_id"]
                calls = [s for s, (k, q) in t.events.items() if s <= upto and k == "tool_call" and q["call_id"] == cid]
                answers = [(s, q["outcome"]) for s, (k, q) in t.events.items()
                           if s <= upto and k in ("tool_result", "status_query") and q["call_id"] == cid]
                if not calls:
                    self.err(where, f"call {cid} was never made")
                if any(o in DEFINITIVE for _, o in answers):
                    self.err(where, f"call {cid} has a definitive answer: {answers}")
        elif cls == "next_call":
            if p["tool"] not in t.table:
                self.err(where, f"next_call of an undeclared tool {p['tool']!r}")
            own = t.events[user_seq][1]["text"].lower()
            for name, value in p["arguments"].items():
                v = str(value).lower()
                if len(v) < 4:
                    self.err(where, f"argument {name}={value!r} is too short to be a meaningful search")
                if v in own:
                    self.err(where, f"argument {name}={value!r} is in the decision's own user message")
                if not any(v in text.lower() for s in range(1, user_seq) for text in event_texts(*t.events[s])):
                    self.err(where, f"argument {name}={value!r} appears nowhere before the decision's user message")
        elif cls == "constraint":
            s = p["seq"]
            if s not in t.events or s > upto:
                self.err(where, f"constraint seq {s} does not exist before the decision")
                return
            kind, q = t.events[s]
            if kind != "user":
                self.err(where, f"constraint seq {s} is a {kind} event, not something the user said")
            elif p["text"].lower() not in q["text"].lower():
                self.err(where, f"constraint text {p['text']!r} is not in seq {s}")
            if len(p["text"]) < 8:
                self.err(where, "constraint text is too short")
        elif cls == "evidence":
            for s in p["seqs"]:
                if s not in t.events or s > upto:
                    self.err(where, f"evidence seq {s} does not exist before the decision")
            if len(set(p["seqs"])) != len(p["seqs"]):
                self.err(where, "evidence seqs repeat")
        else:
            self.err(where, f"unknown probe class {cls}")


# --------------------------------------------------------------------------------------------------
# lint: structural rules of the set


def lint(t: Traj, limits: dict) -> list[str]:
    out: list[str] = []
    ev = t.events
    n_events = len(ev)
    total = sum(tokens(k, p) for k, p in ev.values())
    window = t.window or 4096
    budget = window - window // 8
    x = total / window
    lo, hi = limits["events"]
    if not lo <= n_events <= hi:
        out.append(f"{t.id}: {n_events} events, outside {lo}-{hi}")
    lo, hi = limits["x"]
    if not lo <= x <= hi:
        out.append(f"{t.id}: {total} tokens is {x:.2f}x the window, outside {lo}-{hi}")
    if "tokens" in limits:
        lo, hi = limits["tokens"]
        if not lo <= total <= hi:
            out.append(f"{t.id}: {total} tokens, outside {lo}-{hi}")
    if t.window not in limits["windows"]:
        out.append(f"{t.id}: window {t.window} is not one of {limits['windows']}")
    probes = [(i, p) for i, s in enumerate(t.steps) if s["type"] == "decision" for p in s["probes"]]
    lo, hi = limits["probes"]
    if not lo <= len(probes) <= hi:
        out.append(f"{t.id}: {len(probes)} probes, outside {lo}-{hi}")
    late = sum(1 for pos, _ in probe_positions(t) if pos > n_events / 2)
    if late < limits["late_share"] * len(probes):
        out.append(f"{t.id}: only {late}/{len(probes)} probes are past the middle")
    for s, (k, p) in ev.items():
        n = tokens(k, p)
        if n > limits["max_event_share"] * budget:
            out.append(f"{t.id}: seq {s} ({k}) has {n} tokens, over {limits['max_event_share']:.0%} of B={budget}")
    call_ids: dict[str, int] = {}
    for s, (k, p) in sorted(ev.items()):
        if k == "tool_call":
            if p["call_id"] in call_ids:
                out.append(f"{t.id}: call id {p['call_id']} used twice")
            call_ids[p["call_id"]] = s
        if k in ("tool_result", "status_query") and p["call_id"] not in call_ids:
            out.append(f"{t.id}: seq {s} answers an unknown call {p['call_id']}")
        if k == "approval" and not 1 <= p["scopes_event"] < s:
            out.append(f"{t.id}: approval at seq {s} scopes a later event")
    for i, s in enumerate(t.steps):
        if s["type"] == "decision":
            for p in s["probes"]:
                if p["probe"] == "evidence":
                    size = sum(tokens(*ev[q]) for q in p["seqs"] if q in ev)
                    if size > 0.35 * budget:
                        out.append(f"{t.id}: evidence probe {p['seqs']} of {s['id']} takes {size} tokens, over 35% of B "
                                   "(the evidence share)")
    return out


def probe_positions(t: Traj) -> list[tuple[int, dict]]:
    """(number of events before the decision, probe) for every probe."""
    out = []
    seq = 0
    for s in t.steps:
        if s["type"] == "event":
            seq = s["seq"]
        elif s["type"] == "recover":
            seq = max(q for q in t.events if q <= seq + 1)
        elif s["type"] == "decision":
            out += [(seq, p) for p in s["probes"]]
    return out


def stats_row(t: Traj) -> dict:
    total = sum(tokens(k, p) for k, p in t.events.values())
    window = t.window or 4096
    counts = {c: 0 for c in CLASSES}
    for _, p in probe_positions(t):
        counts[p["probe"]] += 1
    n = len(t.events)
    late = sum(1 for pos, _ in probe_positions(t) if pos > n / 2)
    return {"file": f"{t.id}.jsonl", "events": n, "tokens": total, "window": window, "x": total / window,
            "decisions": sum(1 for s in t.steps if s["type"] == "decision"), **counts,
            "probes": sum(counts.values()), "late": late}


def stats_table(ts: list[Traj]) -> str:
    head = "| file | events | tokens | window | x | decisions | fact | tool_state | next_call | pending | constraint | evidence | probes | past middle |"
    lines = [head, "|" + "---|" * 14]
    tot = {k: 0 for k in ("events", "tokens", "decisions", *CLASSES, "probes", "late")}
    for t in ts:
        r = stats_row(t)
        for k in tot:
            tot[k] += r[k]
        lines.append(f"| {r['file']} | {r['events']} | {r['tokens']} | {r['window']} | {r['x']:.1f} | {r['decisions']} | "
                     + " | ".join(str(r[c]) for c in CLASSES) + f" | {r['probes']} | {r['late']} |")
    lines.append(f"| **total ({len(ts)})** | {tot['events']} | {tot['tokens']} | | | {tot['decisions']} | "
                 + " | ".join(str(tot[c]) for c in CLASSES) + f" | {tot['probes']} | {tot['late']} |")
    return "\n".join(lines)


def main(tools_table: dict, builders: list[Callable[[], Traj]], outdir: Path, limits: dict) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a file differs from what would be written")
    ap.add_argument("--stats", action="store_true", help="print the stats table")
    args = ap.parse_args()

    problems: list[str] = []
    for name, spec in tools_table.items():
        if set(spec) != {"effect", "identifier_args", "description"} or spec["effect"] not in ("read", "write", "irreversible"):
            problems.append(f"TOOLS[{name!r}] is malformed")
    ts = [b() for b in builders]
    ids = [t.id for t in ts]
    if len(set(ids)) != len(ids):
        problems.append(f"duplicate trajectory ids: {ids}")
    used = set()
    for t in ts:
        used |= set(t.used_tools)
        o = Oracle(t)
        o.check()
        problems += o.problems
        problems += lint(t, limits)
    unused = set(tools_table) - used
    if unused:
        problems.append(f"TOOLS entries no trajectory uses: {sorted(unused)}")
    totals = {c: 0 for c in CLASSES}
    for t in ts:
        for _, p in probe_positions(t):
            totals[p["probe"]] += 1
    for c, n in totals.items():
        if n < limits["min_per_class"]:
            problems.append(f"only {n} {c} probes in the part (want {limits['min_per_class']}+)")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print(f"{len(problems)} problem(s): nothing written", file=sys.stderr)
        sys.exit(2)

    texts = {outdir / f"{t.id}.jsonl": t.text() for t in ts}
    if args.stats:
        print(stats_table(ts))
    if args.check:
        bad = [str(p) for p, text in texts.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        extra = [str(p) for p in outdir.glob("*.jsonl") if p not in texts]
        for p in bad:
            print(f"differs: {p}", file=sys.stderr)
        for p in extra:
            print(f"not written by generate.py: {p}", file=sys.stderr)
        if bad or extra:
            sys.exit(1)
        print(f"{len(texts)} files are what generate.py writes")
        return
    if not args.stats:
        for p, text in texts.items():
            p.write_text(text, encoding="utf-8")
        print(f"wrote {len(texts)} files to {outdir}")
