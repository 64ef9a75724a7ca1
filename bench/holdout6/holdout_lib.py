"""Shared builder, oracle and lint for the holdout6 trajectories (standard library only).

Written from docs/eval.md ("Trajectory files", "Probes and how each is judged"), the payload
conventions of docs/sql-reference.md and pgctx/trajectory.py only.  Nothing here knows how pgctx
summarizes: the ORACLE re-reads the *raw* history a decision point has behind it and checks that
each probe's expected value is what the full history says (so a context that kept everything
would pass every probe), and the LINT checks the file is well formed for the replay.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

PROBE_CLASSES = ("fact", "tool_state", "next_call", "pending", "constraint", "evidence")
_NOT_FACT_FIELDS = {"call_id", "outcome", "request_id", "error", "idempotency_key", "authority"}


class Traj:
    """Builds one trajectory; seqs are tracked so every event line carries the seq it must get."""

    def __init__(self, tid, title, exercises, tools, description="", window=None):
        self.header = {"pgctx_trajectory": 1, "id": tid, "title": title, "exercises": list(exercises),
                       "description": description, "tools": tools}
        if window is not None:
            self.header["window"] = window
        self.steps = []
        self.seq = 0
        self.running = {}      # call_id -> seq, calls without an answer since the last recovery
        self.events = {}       # seq -> (kind, payload)

    # ---- events --------------------------------------------------------------------------
    def event(self, kind, payload):
        self.seq += 1
        self.steps.append({"type": "event", "kind": kind, "payload": payload, "seq": self.seq})
        self.events[self.seq] = (kind, payload)
        return self.seq

    def user(self, text):
        return self.event("user", {"text": text})

    def assistant(self, text):
        return self.event("assistant", {"text": text})

    def system(self, text):
        return self.event("system", {"text": text})

    def call(self, tool, call_id, arguments, idempotency_key=None, effect=None):
        p = {"tool": tool, "call_id": call_id, "arguments": arguments}
        if idempotency_key:
            p["idempotency_key"] = idempotency_key
        if effect:
            p["effect"] = effect
        s = self.event("tool_call", p)
        self.running[call_id] = s
        return s

    def result(self, call_id, outcome, result=None, request_id=None, error=None, log=None, **extra):
        p = {"call_id": call_id, "outcome": outcome}
        if request_id:
            p["request_id"] = request_id
        if error:
            p["error"] = error
        if result is not None:
            p["result"] = result
        if log:
            p["log"] = log
        p.update(extra)
        self.running.pop(call_id, None)
        return self.event("tool_result", p)

    def status_query(self, call_id, outcome, result=None, request_id=None):
        p = {"call_id": call_id, "outcome": outcome}
        if request_id:
            p["request_id"] = request_id
        if result is not None:
            p["result"] = result
        return self.event("status_query", p)

    def approval(self, approval_id, status, scopes_event=None, note=None):
        p = {"approval_id": approval_id, "status": status}
        if scopes_event is not None:
            p["scopes_event"] = scopes_event
        if note:
            p["text"] = note
        return self.event("approval", p)

    def fact(self, key, value, subject=None, authority="user", confidence="confirmed", kind="fact"):
        p = {"key": key, "value": value, "authority": authority, "confidence": confidence}
        if subject:
            p["subject"] = subject
        return self.event(kind, p)

    def correction(self, key, value, subject=None, authority="user"):
        return self.fact(key, value, subject, authority, "confirmed", kind="correction")

    # ---- other steps ---------------------------------------------------------------------
    def recover(self):
        self.steps.append({"type": "recover"})
        if self.running:
            self.seq += 1
            self.events[self.seq] = ("recovery", {})
            self.running = {}
            return self.seq
        return None

    def fork(self, branch):
        """fork + switch: the rest of the trajectory goes to ``branch`` (seqs continue from the fork point)."""
        self.steps.append({"type": "fork", "branch": branch})
        self.steps.append({"type": "switch", "branch": branch})

    def confirm_mainline(self, branch):
        self.steps.append({"type": "confirm_mainline", "branch": branch})
        self.seq += 1
        self.events[self.seq] = ("branch_merge", {})
        return self.seq

    def decision(self, did, probes, note=""):
        self.steps.append({"type": "decision", "id": did, "probes": probes, "note": note})

    def lines(self):
        out = [json.dumps(self.header, ensure_ascii=False, sort_keys=False)]
        out += [json.dumps(s, ensure_ascii=False, sort_keys=False) for s in self.steps]
        return "\n".join(out) + "\n"


# ---- probe constructors --------------------------------------------------------------------
def p_fact(key, value, subject=None, superseded=(), why=""):
    p = {"probe": "fact", "key": key, "value": value}
    if subject:
        p["subject"] = subject
    if superseded:
        p["superseded"] = list(superseded)
    if why:
        p["why"] = why
    return p


def p_state(status, call_id=None, idempotency_key=None, request_id=None, why=""):
    p = {"probe": "tool_state", "status": status}
    if call_id:
        p["call_id"] = call_id
    else:
        p["idempotency_key"] = idempotency_key
    if request_id:
        p["request_id"] = request_id
    if why:
        p["why"] = why
    return p


def p_next(tool, arguments, why=""):
    p = {"probe": "next_call", "tool": tool, "arguments": dict(arguments)}
    if why:
        p["why"] = why
    return p


def p_pending(approval_id=None, call_id=None, why=""):
    p = {"probe": "pending"}
    if approval_id:
        p["approval_id"] = approval_id
    else:
        p["call_id"] = call_id
    if why:
        p["why"] = why
    return p


def p_constraint(seq, text, why=""):
    p = {"probe": "constraint", "seq": seq, "text": text}
    if why:
        p["why"] = why
    return p


def p_evidence(seqs, why=""):
    p = {"probe": "evidence", "seqs": list(seqs)}
    if why:
        p["why"] = why
    return p


# ---- ORACLE: what the full raw history says at each decision point ---------------------------
def _pairs(subject):
    if subject is None:
        return {}
    if isinstance(subject, dict):
        return {str(k): str(v) for k, v in subject.items()}
    out = {}
    for part in str(subject).split(","):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def _flatten(obj, prefix=""):
    out = {}
    for k, v in obj.items():
        name = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            out.update(_flatten(v, name))
        else:
            out[name] = v
    return out


def _result_fields(payload):
    fields = {}
    res = payload.get("result")
    if isinstance(res, dict):
        if len(res) == 1 and isinstance(next(iter(res.values())), dict):
            res = next(iter(res.values()))
        fields.update(_flatten(res))
    for k, v in payload.items():
        if k in _NOT_FACT_FIELDS or k == "result":
            continue
        if isinstance(v, dict):
            fields.update(_flatten(v, k))
        else:
            fields[k] = v
    return {k: v for k, v in fields.items() if not (isinstance(v, str) and len(v) > 200)}


def _field_matches(name, key):
    return name == key or name.split(".")[-1] == key


def statements(history, key, subject=None):
    """(seq, value) of every raw statement of ``key`` (oldest first), as docs/eval.md defines them."""
    want = _pairs(subject)
    calls = {p.get("call_id"): p for _, (k, p) in history if k == "tool_call"}
    out = []
    for seq, (kind, p) in history:
        if kind in ("fact", "correction"):
            if p.get("key") != key or p.get("authority") == "model" or p.get("confidence") in ("inferred", "unknown"):
                continue
            have = _pairs(p.get("subject"))
            if all(have.get(k) == v for k, v in want.items()):
                out.append((seq, p.get("value")))
        elif kind in ("tool_result", "status_query") and p.get("outcome") == "succeeded":
            if want:
                call = calls.get(p.get("call_id"))
                args = {str(k): str(v) for k, v in (call or {}).get("arguments", {}).items()}
                if not call or not all(args.get(k) == v for k, v in want.items()):
                    continue
            for name, v in _result_fields(p).items():
                if _field_matches(name, key):
                    out.append((seq, v))
    return out


def call_status(history, call_id=None, idempotency_key=None):
    """(status, request_id) of the newest raw statement about a call, or None."""
    ids = set()
    for _, (k, p) in history:
        if k == "tool_call" and (p.get("call_id") == call_id or
                                 (idempotency_key and p.get("idempotency_key") == idempotency_key)):
            ids.add(p.get("call_id"))
    newest = None
    answered = set()
    for seq, (kind, p) in history:
        if kind == "tool_result" and p.get("call_id") in ids:
            o = p.get("outcome")
            newest = (o if o in ("succeeded", "failed", "cancelled") else "unknown", p.get("request_id"))
            answered.add(p.get("call_id"))
        elif kind == "status_query" and p.get("call_id") in ids:
            o = p.get("outcome")
            st = {"succeeded": "succeeded", "failed": "failed", "not_performed": "failed"}.get(o, "unknown")
            newest = (st, p.get("request_id"))
            answered.add(p.get("call_id"))
    if newest is not None:
        return newest
    for seq, (kind, p) in history:
        if kind == "tool_call" and p.get("call_id") in ids and p.get("call_id") not in answered:
            recovered = any(k == "recovery" and s > seq for s, (k, _) in history)
            newest = ("unknown" if recovered else "running", None)
    return newest


def is_open(history, approval_id=None, call_id=None):
    if approval_id:
        opened = closed = False
        for _, (k, p) in history:
            if k == "approval" and p.get("approval_id") == approval_id:
                if p.get("status") == "requested":
                    opened = True
                elif p.get("status") in ("granted", "denied"):
                    closed = True
        return opened and not closed
    called = any(k == "tool_call" and p.get("call_id") == call_id for _, (k, p) in history)
    answered = any(k in ("tool_result", "status_query") and p.get("call_id") == call_id
                   for _, (k, p) in history)
    return called and not answered


def check_probe(history, probe):
    """None if the full raw history supports the probe, else a reason."""
    seqs = {s for s, _ in history}
    kind = probe["probe"]
    if kind == "fact":
        st = statements(history, probe["key"], probe.get("subject"))
        if not st:
            return f"no raw statement of {probe['key']!r} ({probe.get('subject')})"
        if st[-1][1] != probe["value"]:
            return f"newest statement of {probe['key']!r} is {st[-1][1]!r}, not {probe['value']!r}"
        for old in probe.get("superseded", []):
            if old == probe["value"]:
                return "superseded value equals the value"
            if old not in [v for _, v in st]:
                return f"superseded value {old!r} was never stated for {probe['key']!r}"
    elif kind == "tool_state":
        got = call_status(history, probe.get("call_id"), probe.get("idempotency_key"))
        if got is None:
            return "no such call"
        if got[0] != probe["status"]:
            return f"call is {got[0]}, not {probe['status']}"
        if probe.get("request_id") and got[1] != probe["request_id"]:
            return f"request id is {got[1]!r}"
    elif kind == "next_call":
        text = " ".join(json.dumps(p, ensure_ascii=False) for _, (_, p) in history).lower()
        for name, v in probe["arguments"].items():
            if str(v).lower() not in text:
                return f"argument {name}={v!r} never appears"
    elif kind == "pending":
        if not is_open(history, probe.get("approval_id"), probe.get("call_id")):
            return "not open in the raw history"
    elif kind == "constraint":
        if probe["seq"] not in seqs:
            return f"seq {probe['seq']} is not before the decision"
        k, p = dict(history)[probe["seq"]]
        if probe["text"].lower() not in json.dumps(p, ensure_ascii=False).lower():
            return f"event {probe['seq']} does not contain {probe['text']!r}"
    elif kind == "evidence":
        missing = [s for s in probe["seqs"] if s not in seqs]
        if missing:
            return f"seqs {missing} are not before the decision"
    return None


def oracle(t: Traj):
    """Every problem of t's probes against its raw history (empty when all are supported)."""
    problems = []
    history = []
    seq = 0
    for step in t.steps:
        if step["type"] == "event":
            seq = step["seq"]
            history.append((seq, (step["kind"], step["payload"])))
        elif step["type"] == "recover":
            rec = [s for s, (k, _) in t.events.items() if k == "recovery" and s == seq + 1]
            if rec:
                seq += 1
                history.append((seq, ("recovery", {})))
        elif step["type"] == "confirm_mainline":
            seq += 1
            history.append((seq, ("branch_merge", {})))
        elif step["type"] == "decision":
            for i, pr in enumerate(step["probes"]):
                why = check_probe(history, pr)
                if why:
                    problems.append(f"{t.header['id']} decision {step['id']} probe {i} ({pr['probe']}): {why}")
    return problems


# ---- LINT ----------------------------------------------------------------------------------
def lint(trajs, min_events, max_events):
    problems = []
    ids = set()
    decl = {}
    for t in trajs:
        h = t.header
        if h["id"] in ids:
            problems.append(f"duplicate id {h['id']}")
        ids.add(h["id"])
        tools = {x["tool"]: x for x in h["tools"]}
        for x in h["tools"]:
            prev = decl.setdefault(x["tool"], x)
            if (prev["effect"], prev["identifier_args"]) != (x["effect"], x["identifier_args"]):
                problems.append(f"{h['id']}: tool {x['tool']} declared differently")
        n = len(t.events)
        if not (min_events <= n <= max_events):
            problems.append(f"{h['id']}: {n} events, outside {min_events}-{max_events}")
        call_ids, dec_ids = set(), set()
        for s in t.steps:
            if s["type"] == "event" and s["kind"] == "tool_call":
                p = s["payload"]
                if p["call_id"] in call_ids:
                    problems.append(f"{h['id']}: call id {p['call_id']} reused")
                call_ids.add(p["call_id"])
                if p["tool"] not in tools:
                    problems.append(f"{h['id']}: tool {p['tool']} not declared")
                else:
                    for a in tools[p["tool"]]["identifier_args"]:
                        if a not in p["arguments"]:
                            problems.append(f"{h['id']}: call {p['call_id']} lacks identifier {a}")
            elif s["type"] == "event" and s["kind"] in ("tool_result", "status_query"):
                if s["payload"]["call_id"] not in call_ids:
                    problems.append(f"{h['id']}: answer to unknown call {s['payload']['call_id']}")
            elif s["type"] == "decision":
                if s["id"] in dec_ids:
                    problems.append(f"{h['id']}: decision id {s['id']} reused")
                dec_ids.add(s["id"])
                for pr in s["probes"]:
                    if pr["probe"] == "next_call" and pr["tool"] not in tools:
                        problems.append(f"{h['id']}: next_call tool {pr['tool']} not declared")
        if not any(s["type"] == "decision" for s in t.steps):
            problems.append(f"{h['id']}: no decision")
    classes = {pr["probe"] for t in trajs for s in t.steps if s["type"] == "decision" for pr in s["probes"]}
    for c in PROBE_CLASSES:
        if c not in classes:
            problems.append(f"probe class {c} never used")
    return problems


# ---- counting ------------------------------------------------------------------------------
def token_counter():
    try:  # only for --stats, when run with pgctx's interpreter; the files never depend on it
        import pgctx  # noqa: F401
        c = pgctx.Budget().counter()
        return c.count, "pgctx counter"
    except Exception:
        return (lambda text: max(1, len(text) // 4)), "estimate (chars/4)"


def event_text(kind, payload):
    if kind in ("user", "assistant", "system"):
        return payload.get("text", "")
    return json.dumps(payload, ensure_ascii=False)


def stats(trajs):
    count, how = token_counter()
    total = {c: 0 for c in PROBE_CLASSES}
    rows = []
    for t in trajs:
        per = {c: 0 for c in PROBE_CLASSES}
        for s in t.steps:
            if s["type"] == "decision":
                for pr in s["probes"]:
                    per[pr["probe"]] += 1
                    total[pr["probe"]] += 1
        toks = sum(count(event_text(k, p)) for k, p in t.events.values())
        rows.append((t.header["id"], t.header.get("window", 4096), len(t.events),
                     sum(s["type"] == "decision" for s in t.steps), sum(per.values()), toks))
    print(f"tokens: {how}")
    print(f"{'id':34} {'window':>6} {'events':>6} {'decis':>5} {'probes':>6} {'tokens':>7}")
    for r in rows:
        print(f"{r[0]:34} {r[1]:>6} {r[2]:>6} {r[3]:>5} {r[4]:>6} {r[5]:>7}")
    print(f"{'TOTAL':34} {'':>6} {sum(r[2] for r in rows):>6} {sum(r[3] for r in rows):>5} "
          f"{sum(r[4] for r in rows):>6} {sum(r[5] for r in rows):>7}")
    print("probes per class:", ", ".join(f"{c}={n}" for c, n in total.items()))


def main(build, out_dir: Path, min_events, max_events, argv=None):
    argv = sys.argv[1:] if argv is None else argv
    trajs = build()
    problems = []
    for t in trajs:
        problems += oracle(t)
    problems += lint(trajs, min_events, max_events)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    if "--stats" in argv:
        stats(trajs)
        return 0
    files = {out_dir / f"{t.header['id']}.jsonl": t.lines() for t in trajs}
    if "--check" in argv:
        stale = [str(f) for f, text in files.items() if not f.exists() or f.read_text(encoding="utf-8") != text]
        extra = [str(f) for f in out_dir.glob("*.jsonl") if f not in files]
        if stale or extra:
            print("out of date: " + ", ".join(stale + extra), file=sys.stderr)
            return 1
        print(f"{len(files)} trajectories up to date")
        return 0
    for f, text in files.items():
        f.write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} trajectories to {out_dir}")
    return 0


def rng(name):
    return random.Random("holdout6:" + name)
