"""Shared library of the holdout7 held-out set: trajectory builder, oracle, probe planner, lint, CLI.

Stdlib only (the token counter of pgctx is used by --stats when it can be imported).

The ORACLE replays a trajectory's raw history and judges each probe the way docs/eval.md says a
context holding the *full* history (every event raw, no summary) is judged.  It is deliberately
conservative where the documentation leaves room (a probe key that occurs inside a list, as a
non-leaf field, or twice in one event is never probed; next_call values must occur in a message
text, a tool call's arguments or a tool answer's string/number fields).  Only probes the oracle
accepts are written.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

PROBE_CLASSES = ("fact", "tool_state", "next_call", "pending", "constraint", "evidence")
EXCLUDED_RESULT_FIELDS = {"call_id", "outcome", "request_id", "error", "idempotency_key", "authority"}

# ----------------------------------------------------------------------------------------------
# tool registry (one for both parts: a tool is declared alike everywhere)
# ----------------------------------------------------------------------------------------------

TOOLS: dict[str, dict] = {}


def tool(name: str, effect: str, ids=(), desc: str | None = None) -> str:
    assert effect in ("read", "write", "irreversible"), effect
    spec = {"tool": name, "effect": effect, "identifier_args": list(ids)}
    if desc:
        spec["description"] = desc
    if name in TOOLS:
        assert TOOLS[name] == spec, f"tool {name} registered twice differently"
    TOOLS[name] = spec
    return name


def approx_tokens(obj) -> float:
    return len(json.dumps(obj, ensure_ascii=False)) / 2.5


# ----------------------------------------------------------------------------------------------
# ORACLE: the full raw history, judged as docs/eval.md says
# ----------------------------------------------------------------------------------------------

def _parse_subject(subject) -> dict | None:
    if subject is None:
        return None
    if isinstance(subject, dict):
        return {str(k): str(v) for k, v in subject.items()}
    out = {}
    for part in str(subject).split(","):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            return None
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _flatten(obj, path=(), in_list=False, out=None):
    """(path tuple, value, in_list, is_leaf) for every node of obj."""
    if out is None:
        out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = path + (str(k),)
            if isinstance(v, (dict, list)):
                out.append((p, None, in_list, False))
            _flatten(v, p, in_list, out)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            p = path + (str(i),)
            if isinstance(v, (dict, list)):
                out.append((p, None, True, False))
            _flatten(v, p, True, out)
    else:
        out.append((path, obj, in_list, True))
    return out


def _string_leaves(obj):
    for _p, v, _l, leaf in _flatten(obj):
        if leaf and isinstance(v, (str, int, float)) and not isinstance(v, bool):
            yield str(v)


class Oracle:
    """Judges probes against the full raw history (events: list of {seq, kind, payload})."""

    def __init__(self, events: list[dict]):
        self.events = events
        self.by_seq = {e["seq"]: e for e in events}
        self.calls = {}
        for e in events:
            if e["kind"] == "tool_call":
                self.calls[e["payload"]["call_id"]] = e

    # ---- fact statements
    def statements(self, key: str, subject: str | None):
        """([(seq, value)], ambiguous: bool)."""
        want = _parse_subject(subject) if subject else None
        stmts, ambiguous = [], False
        for e in self.events:
            k, p = e["kind"], e["payload"]
            if k in ("fact", "correction"):
                if p.get("key") != key:
                    continue
                if p.get("authority") == "model" or p.get("confidence") in ("inferred", "unknown"):
                    continue
                if want:
                    have = _parse_subject(p.get("subject"))
                    if not have or any(have.get(n) != v for n, v in want.items()):
                        continue
                stmts.append((e["seq"], p.get("value")))
            elif k in ("tool_result", "status_query"):
                if p.get("outcome") != "succeeded":
                    # still: a key inside an unsucceeded answer is no statement
                    continue
                fields = {f: v for f, v in p.items() if f not in EXCLUDED_RESULT_FIELDS}
                vals = []
                for path, v, in_list, leaf in _flatten(fields):
                    if path[-1] != key and ".".join(path) != key:
                        # a key that is only an inner component of a path is suspicious
                        if key in path[:-1]:
                            ambiguous = True
                        continue
                    if in_list or not leaf:
                        ambiguous = True
                        continue
                    if isinstance(v, str) and len(v) > 200:
                        continue
                    vals.append(v)
                if not vals:
                    continue
                if want:
                    call = self.calls.get(p.get("call_id"))
                    if call is None:
                        continue
                    args = call["payload"].get("arguments", {})
                    if any(not isinstance(args.get(n), str) or args.get(n) != v for n, v in want.items()):
                        continue
                if len(set(map(json.dumps, vals))) > 1:
                    ambiguous = True
                stmts.append((e["seq"], vals[0]))
        stmts.sort(key=lambda s: s[0])
        return stmts, ambiguous

    # ---- call status
    def call_of(self, call_id=None, idempotency_key=None):
        if call_id is not None:
            return self.calls.get(call_id)
        found = [c for c in self.calls.values() if c["payload"].get("idempotency_key") == idempotency_key]
        return found[0] if len(found) == 1 else None

    def call_status(self, call_id):
        """(status, request_id, seq, kind of the newest statement) of the call."""
        call = self.calls[call_id]
        newest = None
        answered = False
        for e in self.events:
            p = e["payload"]
            if e["kind"] == "tool_result" and p.get("call_id") == call_id:
                answered = True
                o = p.get("outcome")
                st = o if o in ("succeeded", "failed", "cancelled") else "unknown"
                newest = (st, p.get("request_id"), e["seq"], "tool_result")
            elif e["kind"] == "status_query" and p.get("call_id") == call_id:
                answered = True
                o = p.get("outcome")
                st = {"succeeded": "succeeded", "failed": "failed", "not_performed": "failed"}.get(o, "unknown")
                newest = (st, p.get("request_id"), e["seq"], "status_query")
        if not answered:
            rec = any(e["kind"] == "recovery" and e["seq"] > call["seq"] for e in self.events)
            return ("unknown" if rec else "running", None, call["seq"], "tool_call")
        return newest

    def definitive(self, call_id) -> bool:
        for e in self.events:
            p = e["payload"]
            if p.get("call_id") != call_id:
                continue
            if e["kind"] == "tool_result" and p.get("outcome") in ("succeeded", "failed", "cancelled"):
                return True
            if e["kind"] == "status_query" and p.get("outcome") in ("succeeded", "failed", "not_performed"):
                return True
        return False

    def approval_open(self, approval_id) -> bool:
        requested = closed = False
        for e in self.events:
            if e["kind"] == "approval" and e["payload"].get("approval_id") == approval_id:
                st = e["payload"].get("status")
                if st == "requested":
                    requested = True
                elif st in ("granted", "denied"):
                    closed = True
        return requested and not closed

    # ---- text
    def texts(self):
        for e in self.events:
            k, p = e["kind"], e["payload"]
            if k in ("user", "assistant", "system"):
                yield str(p.get("text", p.get("content", "")))
            elif k == "tool_call":
                yield from _string_leaves(p.get("arguments", {}))
            elif k in ("tool_result", "status_query"):
                yield from _string_leaves(p)

    def event_text(self, seq) -> str:
        e = self.by_seq.get(seq)
        if e is None:
            return ""
        p = e["payload"]
        if e["kind"] in ("user", "assistant", "system"):
            return str(p.get("text", p.get("content", "")))
        return json.dumps(p, ensure_ascii=False)

    # ---- the judge
    def judge(self, probe: dict) -> tuple[bool, str]:
        c = probe["probe"]
        if c == "fact":
            stmts, amb = self.statements(probe["key"], probe.get("subject"))
            if amb:
                return False, "ambiguous key"
            if not stmts:
                return False, "no statement"
            newest = stmts[-1][1]
            if newest != probe["value"] or type(newest) is not type(probe["value"]):
                return False, f"newest is {newest!r}"
            if newest in probe.get("superseded", []):
                return False, "newest is superseded"
            return True, ""
        if c == "tool_state":
            call = self.call_of(probe.get("call_id"), probe.get("idempotency_key"))
            if call is None:
                return False, "no such call"
            st, rid, _seq, _k = self.call_status(call["payload"]["call_id"])
            if st != probe["status"]:
                return False, f"status is {st}"
            if probe.get("request_id") is not None and rid != probe["request_id"]:
                return False, "request id differs"
            return True, ""
        if c == "next_call":
            corpus = "\n".join(self.texts()).lower()
            for name, v in probe["arguments"].items():
                if str(v).lower() not in corpus:
                    return False, f"argument {name}={v!r} not in the history"
            return True, ""
        if c == "pending":
            if probe.get("approval_id") is not None:
                return (self.approval_open(probe["approval_id"]), "approval not open")
            cid = probe["call_id"]
            if cid not in self.calls:
                return False, "no such call"
            return (not self.definitive(cid), "call answered definitively")
        if c == "constraint":
            if probe["seq"] not in self.by_seq:
                return False, "no such seq"
            return (probe["text"].lower() in self.event_text(probe["seq"]).lower(), "text not in event")
        if c == "evidence":
            return (all(s in self.by_seq for s in probe["seqs"]), "missing seq")
        return False, "unknown class"


# ----------------------------------------------------------------------------------------------
# builder + probe planner
# ----------------------------------------------------------------------------------------------

class Builder:
    def __init__(self, tid: str, title: str, exercises: list[str], description: str, *, rng: random.Random,
                 window: int | None, target_tokens: float, events_range: tuple[int, int], probes_per_decision=(3, 4)):
        self.tid, self.title, self.exercises, self.description = tid, title, exercises, description
        self.rng, self.window, self.target = rng, window, target_tokens
        self.ev_min, self.ev_max = events_range
        self.ppd = probes_per_decision
        self.steps: list[dict] = []
        self.events: list[dict] = []
        self.seq = 0
        self.tok = 0.0
        self.used_tools: list[str] = []
        self.ncalls = 0
        self.call_prefix = "call_"
        self.watches: list[dict] = []     # fact candidates
        self.constraints: list[dict] = []
        self.evidences: list[dict] = []
        self.watched_calls: list[str] = []
        self.approvals: list[str] = []
        self.used = Counter()            # (class, item) -> times probed
        self.class_count = Counter()
        self.dropped = Counter()
        self.ndecisions = 0
        self.filler = None               # callable(builder) appending one filler exchange
        self.bulk_spec = None            # (tool, arguments, row function): a routine read with a long output
        self.routine_gap = None          # insert a routine decision every this many padded events (long part)
        self._last_decision_seq = 0
        self.quota = 3                   # background probes per class and trajectory, at most
        self.reuse = 3                   # times one item may be probed

    # ---- raw events
    def _event(self, kind, payload):
        self.seq += 1
        self.steps.append({"type": "event", "kind": kind, "payload": payload, "seq": self.seq})
        self.events.append({"seq": self.seq, "kind": kind, "payload": payload})
        self.tok += approx_tokens(payload)
        return self.seq

    def user(self, text, constraint: str | None = None, why: str = ""):
        s = self._event("user", {"text": text})
        if constraint:
            for c in ([constraint] if isinstance(constraint, str) else constraint):
                assert c.lower() in text.lower(), (c, text)
                self.constraints.append({"seq": s, "text": c, "why": why or "what the user said"})
        return s

    def asst(self, text):
        return self._event("assistant", {"text": text})

    def system(self, text):
        return self._event("system", {"text": text})

    def new_call_id(self):
        self.ncalls += 1
        return f"{self.call_prefix}{self.ncalls:03d}"

    def call(self, tool_name, args, idem=None, watch=False):
        assert tool_name in TOOLS, tool_name
        if tool_name not in self.used_tools:
            self.used_tools.append(tool_name)
        cid = self.new_call_id()
        payload = {"tool": tool_name, "call_id": cid, "arguments": args}
        if idem:
            payload["idempotency_key"] = idem
        self._event("tool_call", payload)
        if watch or TOOLS[tool_name]["effect"] != "read":
            self.watched_calls.append(cid)
        return cid

    def ok(self, cid, result=None, log=None, rid=None, evidence: str | None = None, **extra):
        payload = {"call_id": cid, "outcome": "succeeded"}
        if rid:
            payload["request_id"] = rid
        if result is not None:
            payload["result"] = result
        if log is not None:
            payload["log"] = log
        payload.update(extra)
        s = self._event("tool_result", payload)
        self._autowatch(cid, result)
        if evidence:
            self.evidences.append({"seqs": [s], "why": evidence})
        return s

    def _autowatch(self, cid, result):
        """Short scalar fields a tool returned about a subject (its identifier arguments) are fact candidates."""
        if not isinstance(result, dict):
            return
        call = next(e for e in self.events if e["kind"] == "tool_call" and e["payload"]["call_id"] == cid)
        ids = [a for a in TOOLS[call["payload"]["tool"]]["identifier_args"]
               if isinstance(call["payload"]["arguments"].get(a), str)]
        if not ids:
            return
        subject = ", ".join(f"{a}={call['payload']['arguments'][a]}" for a in ids)
        if len(result) == 1 and isinstance(next(iter(result.values())), dict):
            result = next(iter(result.values()))
        for k, v in result.items():
            if k in ids or isinstance(v, bool) or not isinstance(v, (str, int)) or (isinstance(v, str) and len(v) > 60):
                continue
            self.watch(k, subject, f"{k} that {call['payload']['tool']} returned for {subject}")

    def fail(self, cid, error, rid=None, outcome="failed"):
        payload = {"call_id": cid, "outcome": outcome, "error": error}
        if rid:
            payload["request_id"] = rid
        return self._event("tool_result", payload)

    def timeout(self, cid, error="gateway timeout after 30s; the write may or may not have been applied"):
        return self._event("tool_result", {"call_id": cid, "outcome": "timeout", "error": error})

    def sq(self, cid, outcome, result=None, **extra):
        payload = {"call_id": cid, "outcome": outcome}
        if result is not None:
            payload["result"] = result
        payload.update(extra)
        s = self._event("status_query", payload)
        if outcome == "succeeded":
            self._autowatch(cid, result)
        return s

    def fact(self, key, value, subject=None, authority="user", confidence="confirmed", kind="fact", watch=True):
        payload = {"key": key, "value": value, "authority": authority, "confidence": confidence}
        if subject is not None:
            payload["subject"] = subject
        s = self._event(kind, payload)
        if watch and authority != "model" and confidence not in ("inferred", "unknown"):
            self.watch(key, subject if isinstance(subject, str) or subject is None else
                       ", ".join(f"{k}={v}" for k, v in subject.items()))
        return s

    def correction(self, key, value, subject=None, authority="user"):
        return self.fact(key, value, subject, authority=authority, kind="correction")

    def approval(self, aid, status, scopes_event, subject=None):
        payload = {"approval_id": aid, "status": status, "scopes_event": scopes_event}
        if subject:
            payload["subject"] = subject
        if aid not in self.approvals:
            self.approvals.append(aid)
        return self._event("approval", payload)

    def recover(self):
        last_rec = max([e["seq"] for e in self.events if e["kind"] == "recovery"], default=0)
        answered = {e["payload"].get("call_id") for e in self.events if e["kind"] in ("tool_result", "status_query")}
        running = [e for e in self.events if e["kind"] == "tool_call" and e["seq"] > last_rec
                   and e["payload"]["call_id"] not in answered]
        self.steps.append({"type": "recover"})
        if running:
            self.seq += 1
            self.events.append({"seq": self.seq, "kind": "recovery", "payload": {}})
        return bool(running)

    # ---- candidates
    def watch(self, key, subject=None, why=""):
        item = {"key": key, "subject": subject, "why": why, "since": self.seq}
        if not any(w["key"] == key and w["subject"] == subject for w in self.watches):
            self.watches.append(item)

    def evidence(self, seqs, why):
        self.evidences.append({"seqs": list(seqs), "why": why})

    def constraint(self, seq, text, why=""):
        assert text.lower() in Oracle(self.events).event_text(seq).lower(), (seq, text)
        self.constraints.append({"seq": seq, "text": text, "why": why})

    # ---- probes
    @staticmethod
    def p_next(tool_name, arguments, why=""):
        return {"probe": "next_call", "tool": tool_name, "arguments": arguments, "why": why}

    @staticmethod
    def p_fact(key, value, subject=None, superseded=(), why=""):
        p = {"probe": "fact", "key": key}
        if subject:
            p["subject"] = subject
        p["value"] = value
        if superseded:
            p["superseded"] = list(superseded)
        p["why"] = why
        return p

    def _fact_probe(self, w):
        o = Oracle(self.events)
        stmts, amb = o.statements(w["key"], w["subject"])
        if amb or not stmts:
            return None
        value = stmts[-1][1]
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            return None
        older = []
        for _s, v in stmts[:-1]:
            if v != value and v not in older and isinstance(v, type(value)):
                older.append(v)
        why = w["why"] or f"the newest stated {w['key']}" + (f" of {w['subject']}" if w["subject"] else "")
        if older:
            why += " (an older value was stated and is superseded)"
        return self.p_fact(w["key"], value, w["subject"], older[-3:], why)

    def _tool_state_probe(self, cid):
        o = Oracle(self.events)
        call = o.calls[cid]
        st, rid, _s, kind = o.call_status(cid)
        p = {"probe": "tool_state"}
        idem = call["payload"].get("idempotency_key")
        if idem and self.rng.random() < 0.6:
            p["idempotency_key"] = idem
        else:
            p["call_id"] = cid
        p["status"] = st
        if rid and kind == "tool_result" and self.rng.random() < 0.5:
            p["request_id"] = rid
        p["why"] = f"{call['payload']['tool']} (seq {call['seq']}) is {st}" + \
            (": its outcome was never settled" if st == "unknown" else "")
        return p

    def _candidates(self, cls):
        o = Oracle(self.events)
        out = []
        if cls == "fact":
            for w in self.watches:
                p = self._fact_probe(w)
                if p:
                    out.append((("fact", w["key"], w["subject"]), w["since"], p))
        elif cls == "tool_state":
            for cid in o.calls:
                st = o.call_status(cid)[0]
                bonus = 0 if st in ("unknown", "failed", "cancelled") else 1
                if cid not in self.watched_calls:
                    if not TOOLS[o.calls[cid]["payload"]["tool"]]["identifier_args"]:
                        continue
                    bonus = 4
                out.append((("tool_state", cid), o.calls[cid]["seq"], self._tool_state_probe(cid), bonus * 15))
        elif cls == "pending":
            for aid in self.approvals:
                if o.approval_open(aid):
                    first = min(e["seq"] for e in self.events if e["kind"] == "approval"
                                and e["payload"]["approval_id"] == aid)
                    out.append((("pending", aid), first, {"probe": "pending", "approval_id": aid,
                                                          "why": f"approval {aid} was requested and is still unanswered"}))
            for cid, call in o.calls.items():
                if not o.definitive(cid) and cid in self.watched_calls:
                    out.append((("pending", cid), call["seq"], {"probe": "pending", "call_id": cid,
                                                                 "why": f"{call['payload']['tool']} {cid} has no definitive answer yet"}))
        elif cls == "constraint":
            for c in self.constraints:
                out.append((("constraint", c["seq"], c["text"]), c["seq"],
                            {"probe": "constraint", "seq": c["seq"], "text": c["text"], "why": c["why"]}))
        elif cls == "evidence":
            for ev in self.evidences:
                out.append((("evidence", tuple(ev["seqs"])), min(ev["seqs"]),
                            {"probe": "evidence", "seqs": ev["seqs"], "why": ev["why"]}))
            # two tools (or a tool and the user) stating different values of one watched field
            for w in self.watches:
                stmts, amb = o.statements(w["key"], w["subject"])
                if amb or len({json.dumps(v) for _s, v in stmts}) < 2 or w["key"] == "cwd":
                    continue
                seqs = [stmts[0][0], stmts[-1][0]]
                out.append((("evidence", tuple(seqs)), seqs[0],
                            {"probe": "evidence", "seqs": seqs,
                             "why": f"the conflicting statements of {w['key']}" + (f" for {w['subject']}" if w["subject"] else "")}))
            # a timed-out write and the status query that settled it
            for cid in self.watched_calls:
                tos = [e["seq"] for e in self.events if e["kind"] == "tool_result" and e["payload"]["call_id"] == cid
                       and e["payload"]["outcome"] == "timeout"]
                sqs = [e["seq"] for e in self.events if e["kind"] == "status_query" and e["payload"]["call_id"] == cid]
                if tos and sqs:
                    seqs = [o.calls[cid]["seq"], tos[0], sqs[-1]]
                    out.append((("evidence", tuple(seqs)), seqs[0],
                                {"probe": "evidence", "seqs": seqs, "why": "the timed-out write and the status query that settled it"}))
        return out

    def decide(self, label, probes=(), n=None, note=""):
        """A decision point: the explicit probes plus background probes chosen to balance classes."""
        self.ndecisions += 1
        self._last_decision_seq = self.seq
        o = Oracle(self.events)
        chosen, keys = [], set()
        for p in probes:
            ok, why = o.judge(p)
            if ok:
                chosen.append(p)
                keys.add(json.dumps(p, sort_keys=True))
            else:
                self.dropped[p["probe"]] += 1
        want = n if n is not None else self.rng.randint(*self.ppd)
        seen_items = set()
        attempts = 0
        while len(chosen) < want and attempts < 12:
            attempts += 1
            classes = [c for c in PROBE_CLASSES if c != "next_call"]
            self.rng.shuffle(classes)
            now = Counter(self.class_count)
            now.update(p["probe"] for p in chosen)
            mean = sum(now[c] for c in PROBE_CLASSES) / len(PROBE_CLASSES)
            classes = [c for c in classes if now[c] <= mean + 2 and now[c] < self.quota]
            classes.sort(key=lambda c: now[c])
            picked = False
            for cls in classes:
                cands = [c for c in self._candidates(cls) if c[0] not in seen_items and self.used[c[0]] < self.reuse]
                cands = [c for c in cands if json.dumps(c[2], sort_keys=True) not in keys]
                # not about the last few events: those are trivially present
                cands = [c for c in cands if c[1] <= self.seq - 3]
                if not cands:
                    continue
                cands.sort(key=lambda c: (self.used[c[0]], c[1] + (c[3] if len(c) > 3 else 0) + self.rng.random() * 20))
                item, _since, p = cands[0][:3]
                ok, _ = o.judge(p)
                seen_items.add(item)
                if not ok:
                    self.dropped[cls] += 1
                    continue
                chosen.append(p)
                keys.add(json.dumps(p, sort_keys=True))
                self.used[item] += 1
                picked = True
                break
            if not picked:
                break
        if not chosen:
            return None
        for p in chosen:
            self.class_count[p["probe"]] += 1
        did = f"d{self.ndecisions:02d}-{label}"
        step = {"type": "decision", "id": did, "probes": chosen}
        if note:
            step["note"] = note
        self.steps.append(step)
        return did

    def dcall(self, label, tool_name, args, carry, why="", idem=None, extra_probes=(), n=None, watch=False):
        """Decision point (next_call over the carried arguments) right before the call, then the call."""
        needed = dict(carry) if isinstance(carry, dict) else {k: args[k] for k in carry}
        probe = self.p_next(tool_name, needed, why or f"{tool_name} needs " + ", ".join(needed))
        self.decide(label, [probe, *extra_probes], n=n)
        return self.call(tool_name, args, idem=idem, watch=watch)

    # ---- padding
    def pad(self, frac):
        """Filler exchanges until the approximate tokens reach frac of the target (and events stay in range)."""
        guard = 0
        while guard < 60 and self.filler is not None:
            guard += 1
            tok_short = self.tok < frac * self.target
            ev_short = self.seq < frac * self.ev_min
            if not (tok_short or ev_short):
                break
            if self.seq >= frac * self.ev_max - 2:
                break
            if self.routine_gap and self.seq - self._last_decision_seq >= self.routine_gap:
                self.decide("routine", [], n=self.rng.randint(2, 3))
            need = (frac * self.target - self.tok) / max(1.0, frac * self.ev_max - self.seq)
            if self.bulk_spec and need > 45 and self.rng.random() < min(0.8, need / 120):
                self._bulk()
            else:
                self.filler(self)

    def _bulk(self):
        tool_name, args, rowfn = self.bulk_spec
        c = self.call(tool_name, dict(args))
        rows = [rowfn() for _ in range(self.rng.randint(12, 22))]
        self.ok(c, {"count": len(rows)}, log="\n".join(rows))

    def coda(self, user_text, reply):
        """A closing exchange and one last decision point (background probes only)."""
        self.user(user_text)
        self.asst(reply)
        self.decide("close", [], n=3)

    # ---- output
    def header(self):
        h = {"pgctx_trajectory": 1, "id": self.tid, "title": self.title, "exercises": self.exercises,
             "description": self.description, "tools": [TOOLS[t] for t in self.used_tools]}
        if self.window:
            h["window"] = self.window
        return h

    def text(self):
        lines = [json.dumps(self.header(), ensure_ascii=False)]
        lines += [json.dumps(s, ensure_ascii=False) for s in self.steps]
        return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------
# independent verification (oracle over the written file) + lint
# ----------------------------------------------------------------------------------------------

def replay_check(text: str, name: str) -> list[str]:
    """Re-read a written trajectory and judge every probe against the full raw history at its point."""
    problems = []
    lines = [json.loads(l) for l in text.splitlines() if l.strip()]
    events, seq = [], 0
    answered = set()
    last_rec = 0
    for step in lines[1:]:
        t = step["type"]
        if t == "event":
            seq += 1
            if step.get("seq") is not None and step["seq"] != seq:
                problems.append(f"{name}: seq {step['seq']} expected {seq}")
            events.append({"seq": seq, "kind": step["kind"], "payload": step["payload"]})
        elif t == "recover":
            ans = {e["payload"].get("call_id") for e in events if e["kind"] in ("tool_result", "status_query")}
            running = [e for e in events if e["kind"] == "tool_call" and e["seq"] > last_rec
                       and e["payload"]["call_id"] not in ans]
            if running:
                seq += 1
                events.append({"seq": seq, "kind": "recovery", "payload": {}})
                last_rec = seq
        elif t == "decision":
            o = Oracle(events)
            for p in step["probes"]:
                ok, why = o.judge(p)
                if not ok:
                    problems.append(f"{name} {step['id']}: {p['probe']} rejected by the oracle: {why}")
        else:
            problems.append(f"{name}: step type {t} not used by this set")
    return problems


def lint(files: dict[str, str], part: str, ev_range, window_choices) -> list[str]:
    problems = []
    ids, decls, classes = {}, {}, Counter()
    for name, text in files.items():
        lines = [json.loads(l) for l in text.splitlines() if l.strip()]
        h = lines[0]
        if h["id"] in ids:
            problems.append(f"{name}: duplicate trajectory id {h['id']}")
        ids[h["id"]] = name
        declared = {t["tool"]: t for t in h["tools"]}
        for t in h["tools"]:
            other = decls.setdefault(t["tool"], t)
            if (other["effect"], other["identifier_args"]) != (t["effect"], t["identifier_args"]):
                problems.append(f"{name}: tool {t['tool']} declared differently")
        if part == "short" and h.get("window") not in window_choices:
            problems.append(f"{name}: window {h.get('window')} not in {window_choices}")
        if part == "long" and h.get("window") is not None:
            problems.append(f"{name}: long trajectories play in the run's window")
        calls, answers, approvals, dids, idems = {}, defaultdict(list), {}, set(), set()
        nev = 0
        for s in lines[1:]:
            if s["type"] == "event":
                nev += 1
                k, p = s["kind"], s["payload"]
                if k == "tool_call":
                    if p["call_id"] in calls:
                        problems.append(f"{name}: call id {p['call_id']} reused")
                    if p["tool"] not in declared:
                        problems.append(f"{name}: tool {p['tool']} not declared")
                    if p.get("idempotency_key"):
                        if p["idempotency_key"] in idems:
                            problems.append(f"{name}: idempotency key reused")
                        idems.add(p["idempotency_key"])
                    calls[p["call_id"]] = p
                elif k in ("tool_result", "status_query"):
                    if p["call_id"] not in calls:
                        problems.append(f"{name}: answer to unknown call {p['call_id']}")
                    if k == "tool_result":
                        answers[p["call_id"]].append(p["outcome"])
                        if len(answers[p["call_id"]]) > 1:
                            problems.append(f"{name}: call {p['call_id']} answered twice")
                elif k == "approval":
                    st = p["status"]
                    prev = approvals.get(p["approval_id"])
                    if st == "requested" and prev is not None:
                        problems.append(f"{name}: approval {p['approval_id']} requested twice")
                    if st != "requested" and prev != "requested":
                        problems.append(f"{name}: approval {p['approval_id']} answered without request")
                    approvals[p["approval_id"]] = st
            elif s["type"] == "decision":
                if s["id"] in dids:
                    problems.append(f"{name}: decision id {s['id']} reused")
                dids.add(s["id"])
                for p in s["probes"]:
                    classes[p["probe"]] += 1
                    if p["probe"] == "next_call" and p["tool"] not in declared:
                        problems.append(f"{name}: next_call of undeclared tool {p['tool']}")
        if not ev_range[0] <= nev <= ev_range[1]:
            problems.append(f"{name}: {nev} events, outside {ev_range}")
        problems += replay_check(text, name)
    for c in PROBE_CLASSES:
        if classes[c] == 0:
            problems.append(f"part {part}: no {c} probe")
    return problems


# ----------------------------------------------------------------------------------------------
# CLI shared by short/generate.py and long/generate.py
# ----------------------------------------------------------------------------------------------

def _counter():
    try:
        import pgctx  # noqa: PLC0415
        return pgctx.Budget().counter().count
    except Exception:  # noqa: BLE001
        return None


def stats(builders, files, part):
    count = _counter()
    per_class = Counter()
    dropped = Counter()
    print(f"part {part}: {len(files)} trajectories")
    tot_ev = tot_tok = 0
    for b in builders:
        name = f"{b.tid}.jsonl"
        text = files[name]
        lines = [json.loads(l) for l in text.splitlines() if l.strip()]
        evs = [s for s in lines[1:] if s["type"] == "event"]
        cls = Counter(p["probe"] for s in lines[1:] if s["type"] == "decision" for p in s["probes"])
        per_class.update(cls)
        dropped.update(b.dropped)
        tok = sum(count(json.dumps(e["payload"], ensure_ascii=False)) for e in evs) if count else None
        window = b.window or 4096
        tot_ev += len(evs)
        tot_tok += tok or 0
        ratio = f"{tok / window:.2f}x" if tok else "?"
        ndec = sum(1 for s in lines[1:] if s["type"] == "decision")
        print(f"  {b.tid:34s} window={window:5d} events={len(evs):4d} tokens={tok} ({ratio}) decisions={ndec:3d} "
              f"probes={sum(cls.values()):3d} " + " ".join(f"{c}={cls[c]}" for c in PROBE_CLASSES))
    print(f"  total events={tot_ev} tokens={tot_tok} probes={sum(per_class.values())}")
    print("  per class: " + ", ".join(f"{c}={per_class[c]}" for c in PROBE_CLASSES))
    if sum(dropped.values()):
        print("  candidate probes the oracle refused (not written): " + ", ".join(f"{k}={v}" for k, v in dropped.items()))


def main(part: str, build, folder: Path, ev_range, window_choices=()):
    builders = build()
    files = {f"{b.tid}.jsonl": b.text() for b in builders}
    args = sys.argv[1:]
    problems = lint(files, part, ev_range, window_choices)
    if "--check" in args:
        on_disk = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.jsonl")}
        bad = sorted(set(on_disk) ^ set(files)) + sorted(n for n in files if on_disk.get(n) not in (None, files[n]))
        if bad or problems:
            for n in bad:
                print(f"differs from what generate.py writes: {n}")
            for p in problems:
                print(p)
            sys.exit(1)
        print(f"{part}: {len(files)} files are what generate.py writes; lint and oracle clean")
        if "--stats" in args:
            stats(builders, files, part)
        return
    if problems:
        for p in problems:
            print(p)
        sys.exit(1)
    if "--stats" in args:
        stats(builders, files, part)
        return
    for old in folder.glob("*.jsonl"):
        if old.name not in files:
            old.unlink()
    for n, t in files.items():
        (folder / n).write_text(t, encoding="utf-8")
    print(f"{part}: wrote {len(files)} trajectories to {folder}")
