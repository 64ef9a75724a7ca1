"""Builder for the held-out "services" trajectories (held-out set 2).

A Traj collects events and decision points, numbers the events (the seq each will get on replay)
and, before writing, checks the author's own ground truth against the full history: that a fact
probe's value really is the newest statement of its key, that a call's status is what the probe
claims, that an approval is still open, that the values a next call needs were said earlier, that
a constraint's phrase is in its event. Nothing here knows or guesses how pgctx builds a context.
"""

from __future__ import annotations

import json
import random
from typing import Any

SCALARS = (str, int, float, bool, type(None))


class AuthoringError(Exception):
    pass


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


def _flatten(obj: Any, prefix: str = ""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            name = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, dict):
                yield from _flatten(v, name)
            elif isinstance(v, list):
                if all(isinstance(x, SCALARS) for x in v):
                    yield name, v
                for i, x in enumerate(v):
                    if isinstance(x, (dict, list)):
                        yield from _flatten(x, f"{name}.{i}")
            else:
                yield name, v
    elif isinstance(obj, list):
        for i, x in enumerate(obj):
            yield from _flatten(x, f"{prefix}.{i}" if prefix else str(i))


_SKIP = {"call_id", "outcome", "request_id", "error", "idempotency_key", "authority"}


class Traj:
    def __init__(self, *, id: str, title: str, exercises: list[str], description: str,
                 tools: list[dict], seed: int, window: int | None = None):
        self.header = {"pgctx_trajectory": 1, "id": id, "title": title, "exercises": exercises,
                       "description": description, "tools": tools}
        if window is not None:
            self.header["window"] = window
        self.rng = random.Random(seed)
        self.tools = {t["tool"]: t for t in tools}
        self.steps: list[dict] = []
        self.seq = 0
        self.events: dict[int, dict] = {}  # seq -> {"kind", "payload"}
        self.calls: dict[str, int] = {}  # call_id -> seq of the call
        self._n = 0
        self._running_since_recovery: set[str] = set()

    # ------------------------------------------------------------------ events
    def ev(self, kind: str, payload: dict) -> int:
        self.seq += 1
        self.steps.append({"type": "event", "kind": kind, "payload": payload, "seq": self.seq})
        self.events[self.seq] = {"kind": kind, "payload": payload}
        return self.seq

    def user(self, text: str) -> int:
        return self.ev("user", {"text": text})

    def asst(self, text: str) -> int:
        return self.ev("assistant", {"text": text})

    def system(self, text: str) -> int:
        return self.ev("system", {"text": text})

    def call(self, tool: str, arguments: dict, *, call_id: str | None = None,
             idem: str | None = None) -> tuple[str, int]:
        if tool not in self.tools:
            raise AuthoringError(f"{self.header['id']}: tool {tool} not declared")
        self._n += 1
        cid = call_id or f"call_{self._n:03d}"
        if cid in self.calls:
            raise AuthoringError(f"{self.header['id']}: call id {cid} reused")
        payload = {"tool": tool, "call_id": cid, "arguments": arguments,
                   "effect": self.tools[tool]["effect"]}
        if idem:
            payload["idempotency_key"] = idem
        elif self.tools[tool]["effect"] != "read":
            raise AuthoringError(f"{self.header['id']}: write {tool} without idempotency key")
        s = self.ev("tool_call", payload)
        self.calls[cid] = s
        self._running_since_recovery.add(cid)
        return cid, s

    def result(self, call_id: str, outcome: str = "succeeded", result: Any = None, *,
               request_id: str | None = None, error: Any = None, **extra) -> int:
        if call_id not in self.calls:
            raise AuthoringError(f"{self.header['id']}: result for unknown call {call_id}")
        payload: dict[str, Any] = {"call_id": call_id, "outcome": outcome}
        if request_id:
            payload["request_id"] = request_id
        if error is not None:
            payload["error"] = error
        if result is not None:
            payload["result"] = result
        payload.update(extra)
        self._running_since_recovery.discard(call_id)
        return self.ev("tool_result", payload)

    def do(self, tool: str, arguments: dict, result: Any = None, outcome: str = "succeeded", *,
           idem: str | None = None, request_id: str | None = None, error: Any = None,
           call_id: str | None = None, **extra) -> tuple[str, int, int]:
        cid, cs = self.call(tool, arguments, idem=idem, call_id=call_id)
        rs = self.result(cid, outcome, result, request_id=request_id, error=error, **extra)
        return cid, cs, rs

    def status_query(self, call_id: str, outcome: str, **fields) -> int:
        if call_id not in self.calls:
            raise AuthoringError(f"{self.header['id']}: status_query for unknown call {call_id}")
        return self.ev("status_query", {"call_id": call_id, "outcome": outcome, **fields})

    def approval(self, approval_id: str, status: str, scopes_event: int | None = None, **fields) -> int:
        p: dict[str, Any] = {"approval_id": approval_id, "status": status}
        if scopes_event is not None:
            p["scopes_event"] = scopes_event
        p.update(fields)
        return self.ev("approval", p)

    def fact(self, key: str, value: Any, *, subject: dict | None = None, authority: str = "user",
             kind: str = "fact", **fields) -> int:
        p: dict[str, Any] = {"key": key, "value": value, "authority": authority}
        if subject:  # written as the probes name a subject: "name=value,name=value"
            p["subject"] = ",".join(f"{k}={v}" for k, v in subject.items())
        p.update(fields)
        return self.ev(kind, p)

    def correction(self, key: str, value: Any, **kw) -> int:
        return self.fact(key, value, kind="correction", **kw)

    def subtask_end(self, summary: str, **fields) -> int:
        return self.ev("subtask_end", {"summary": summary, **fields})

    def topic_switch(self, to: str, **fields) -> int:
        return self.ev("topic_switch", {"to": to, **fields})

    def recover(self) -> None:
        self.steps.append({"type": "recover"})
        if self._running_since_recovery:
            self.seq += 1
            self.events[self.seq] = {"kind": "recovery", "payload": {}}
            self._running_since_recovery = set()

    def decision(self, id: str, probes: list[dict], note: str = "") -> None:
        for p in probes:
            self._check(id, p)
        self.steps.append({"type": "decision", "id": id, "probes": probes, "note": note})

    # ------------------------------------------------------------------ author's checks
    def _fail(self, did: str, p: dict, msg: str):
        raise AuthoringError(f"{self.header['id']} / {did}: {p['probe']} probe: {msg}\n  {p}")

    def _statements(self, key: str, subject: str | None):
        pairs = dict(x.split("=", 1) for x in subject.split(",")) if subject else {}
        for s in sorted(self.events):
            e = self.events[s]
            k, p = e["kind"], e["payload"]
            if k in ("fact", "correction"):
                if p.get("key") != key or p.get("authority") == "model" or \
                        p.get("confidence") in ("inferred", "unknown"):
                    continue
                have = dict(x.split("=", 1) for x in p["subject"].split(",")) if p.get("subject") else {}
                if pairs and any(have.get(n) != v for n, v in pairs.items()):
                    continue
                yield s, p.get("value")
            elif k in ("tool_result", "status_query") and p.get("outcome") == "succeeded":
                if pairs:
                    cs = self.calls.get(p["call_id"])
                    args = self.events[cs]["payload"]["arguments"] if cs else {}
                    if any(str(args.get(n)) != v for n, v in pairs.items()):
                        continue
                body = {n: v for n, v in p.items() if n not in _SKIP and n != "result"}
                found = []
                for src in (p.get("result"), body):
                    if isinstance(src, dict):
                        for name, v in _flatten(src):
                            if (name == key or name.split(".")[-1] == key) and \
                                    not (isinstance(v, str) and len(v) > 200):
                                found.append(v)
                for v in found:
                    yield s, v

    def _text_before(self, upto: int) -> tuple[str, str]:
        """All event text up to seq ``upto`` excluding the last user event, and that event's text."""
        last_user = max((s for s, e in self.events.items() if e["kind"] == "user"), default=0)
        before = " ".join(dumps(e["payload"]) for s, e in sorted(self.events.items()) if s != last_user)
        last = dumps(self.events[last_user]["payload"]) if last_user else ""
        return before.lower(), last.lower()

    def _call_statuses(self, cid: str):
        cs = self.calls[cid]
        out = [(cs, "running", None)]
        for s in sorted(self.events):
            e = self.events[s]
            p = e["payload"]
            if e["kind"] == "recovery" and out[-1][1] == "running":
                out.append((s, "unknown", None))
            if p.get("call_id") != cid or s == cs:
                continue
            if e["kind"] == "tool_result":
                st = p["outcome"] if p["outcome"] in ("succeeded", "failed", "cancelled") else "unknown"
                out.append((s, st, p.get("request_id")))
            elif e["kind"] == "status_query":
                o = p["outcome"]
                st = {"succeeded": "succeeded", "failed": "failed", "not_performed": "failed"}.get(o, "unknown")
                out.append((s, st, p.get("request_id")))
        return out

    def _check(self, did: str, p: dict) -> None:
        if "why" not in p or not p["why"]:
            self._fail(did, p, "no why")
        kind = p["probe"]
        if kind == "fact":
            st = list(self._statements(p["key"], p.get("subject")))
            if not st:
                self._fail(did, p, "no statement of the key at all")
            newest = st[-1]
            if newest[1] != p["value"]:
                self._fail(did, p, f"newest statement (seq {newest[0]}) is {newest[1]!r}")
            for sv in p.get("superseded", []):
                if not any(v == sv for _, v in st):
                    self._fail(did, p, f"superseded value {sv!r} never stated")
        elif kind == "tool_state":
            if "call_id" in p:
                cids = [p["call_id"]]
            else:
                cids = [c for c, s in self.calls.items()
                        if self.events[s]["payload"].get("idempotency_key") == p["idempotency_key"]]
            if not cids or any(c not in self.calls for c in cids):
                self._fail(did, p, "no such call")
            sts = sorted(x for c in cids for x in self._call_statuses(c))
            newest = sts[-1]
            if newest[1] != p["status"]:
                self._fail(did, p, f"newest status is {newest[1]} (seq {newest[0]})")
            if p.get("request_id") and newest[2] != p["request_id"]:
                self._fail(did, p, f"newest request id is {newest[2]}")
        elif kind == "next_call":
            if p["tool"] not in self.tools:
                self._fail(did, p, "tool not declared")
            before, last = self._text_before(self.seq)
            earlier = 0
            for n, v in p["arguments"].items():
                v = str(v).lower()
                if v not in before and v not in last:
                    self._fail(did, p, f"argument {n}={v} never appears")
                if v in before:
                    earlier += 1
            if earlier == 0:
                self._fail(did, p, "every argument only in the decision's own user message")
        elif kind == "pending":
            if "approval_id" in p:
                evs = [e for s, e in sorted(self.events.items())
                       if e["kind"] == "approval" and e["payload"]["approval_id"] == p["approval_id"]]
                if not evs or evs[-1]["payload"]["status"] != "requested":
                    self._fail(did, p, "approval not open")
            else:
                cid = p["call_id"]
                if cid not in self.calls:
                    self._fail(did, p, "no such call")
                sts = self._call_statuses(cid)
                if sts[-1][1] in ("succeeded", "failed", "cancelled"):
                    self._fail(did, p, "call closed")
        elif kind == "constraint":
            e = self.events.get(p["seq"])
            if not e or p["text"].lower() not in dumps(e["payload"]).lower():
                self._fail(did, p, "text not in event")
        elif kind == "evidence":
            for s in p["seqs"]:
                if s not in self.events:
                    self._fail(did, p, f"no event {s}")
        else:
            self._fail(did, p, "unknown class")

    # ------------------------------------------------------------------ output
    def lines(self) -> list[str]:
        return [dumps(self.header)] + [dumps(s) for s in self.steps]


# ---------------------------------------------------------------------- probe helpers
def fact(key, value, why, subject=None, superseded=None):
    p = {"probe": "fact", "key": key, "value": value, "why": why}
    if subject:
        p["subject"] = subject
    if superseded:
        p["superseded"] = superseded
    return p


def tool_state(status, why, call_id=None, idem=None, request_id=None):
    p = {"probe": "tool_state", "status": status, "why": why}
    if call_id:
        p["call_id"] = call_id
    if idem:
        p["idempotency_key"] = idem
    if request_id:
        p["request_id"] = request_id
    return p


def next_call(tool, arguments, why):
    return {"probe": "next_call", "tool": tool, "arguments": arguments, "why": why}


def pending(why, approval_id=None, call_id=None):
    p = {"probe": "pending", "why": why}
    if approval_id:
        p["approval_id"] = approval_id
    if call_id:
        p["call_id"] = call_id
    return p


def constraint(seq, text, why):
    return {"probe": "constraint", "seq": seq, "text": text, "why": why}


def evidence(seqs, why):
    return {"probe": "evidence", "seqs": list(seqs), "why": why}
