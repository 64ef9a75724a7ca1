"""Summarizers: what turns (previous summary, new events, must-keep items) into a candidate.

A summarizer is any object with an ``id`` and a ``summarize(request)`` method returning the
candidate summary (a dict or a :class:`pgctx.summary.Summary`). It only proposes: the candidate
is accepted or refused by pgctx.prepare_fold in SQL.

:class:`BuiltinSummarizer` needs no model and is deterministic (the same request gives the same
candidate). Its rules, so that the summary keeps what the next decision needs and stays bounded
(docs/guarantees.md, "The built-in summarizer"):

1. **Tool state** is exactly what the database derived (``must_keep``): every unresolved call,
   the newest resolved ones with status, request id, failure reason and subject; the writes
   beyond the horizon become one completed action per tool and status, with a count (the calls
   still in tool state need no completed action of their own).
2. **Facts from tool results**: every field of a successful result that is a fact
   (:mod:`pgctx.facts`) becomes a fact whose authority is the tool, whose subject is the call's
   identifier arguments and whose source is the result (a field that only restates the subject,
   ``order_id`` of a call about ``order_id=10086``, is not repeated, and a read's field that
   echoes its own argument observes nothing). What a successful write or irreversible call was
   made with is kept too, as ``tool.argument`` facts: its short arguments that hold a value (a
   directory changed to, a name given; not its identifiers, not prose, not a value a fact holds
   already), the newest replacing the older (``cd.path`` is the current directory).
3. **Which value is current** (article 七.4), for facts with the same key about the same subject
   (two subjects that differ are different entities; a missing subject matches any):
   a confirmed statement by the user replaces any earlier value; the result of a write (or
   irreversible call) replaces any earlier value, this agent having changed it; a read's result
   replaces the user's, the model's and that tool's own earlier readings. Another tool's reading
   about overlapping identifiers (a shared ``name=value``, as the database compares them) that
   differs is a contradiction: both stay, and an open question says so (the database pins both
   results as risk evidence); a later reading settles it, replacing the contradicting ones. The
   replaced fact goes; the new one keeps the last different value as ``previous_value``. A value
   the model inferred (authority ``model`` or confidence ``inferred``) never replaces a
   confirmed one: it becomes an open question instead. Facts are kept in the order they were
   last stated or used: a fact whose value a later event repeats (a call's argument, a message)
   moves to the end.
4. **The user's own words** (requests, preferences, constraints) are kept verbatim, newest first,
   with their source seqs (a repeated statement is kept once, citing the times it was said in the
   fold's range, up to the newest 12, or at least its newest three; a
   message over STATEMENT_CHARS as its first sentence and every sentence that binds or holds a
   value); bare acknowledgements ("ok", "thanks": ``must_keep``'s list, pgctx.acknowledgement) are
   not.
5. **The goal follows the conversation**: the first user message sets it; a ``topic_switch``
   replaces it, and the earlier goal is kept as a superseded decision.
6. Approvals granted or denied and permission conclusions become constraints citing their
   events (the same scope granted again, or the same conclusion, is one constraint citing the
   newest); subtask ends, phase changes and branch merges become decisions, and so does what the
   agent said it will do (an assistant message offering or planning an action: "I'll ...",
   "shall I ...", verbatim, authority the model); a failed verification becomes an open question.
7. **Bounded size**: decisions, open questions, constraints and statements keep at most 8, 8, 12
   and 16 entries (the newest 12 requests of a fold's range are the database's to require, PC120:
   four more leave room for an older rule), and the summary keeps within ``budget.summary_limit`` tokens, both by
   dropping entries, the least useful first and, among equals, the least recent: decisions and
   open questions that hold no value; statements that neither bind ("only", "never", "call me",
   "without asking", ...) nor hold a value (a number, a code, a file name, a short phrase such as
   a name); tool facts whose value is prose (more than six words or 60 characters, no digit) and the
   details of a listing's rows (a row's fields but its ids and names: ``series[3].rps`` goes,
   ``albums[2].album_id`` stays: a later call picks a row by them);
   statements, decisions and open questions that hold a value; the other tool facts; binding
   statements; the user's declared facts; constraints. Recency follows what is live, not only
   the order of events: a fact whose value a later event repeats, or about an entity a later
   event names (a value of its subject), counts as used then. Within the size bound a statement
   is first shortened to the values the user typed in it (ids, codes, amounts, addresses, paths:
   ``(values only) ...``; statements shortened to the same values are one entry citing each time),
   and dropped only in a second pass. Tool state, pending actions and
   what PC120 requires (the newest user requests of the range, the facts declared in it), which
   the database checks, are never dropped; a range that had content always leaves a citation
   (the newest message, as a decision, when nothing else cites it; in a range of tool results
   only, the newest result's first two fields). Stated limit: what is
   dropped is gone from the summary (the events keep it), and the binding words are an English
   and Chinese list, not an understanding of the text.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any, Protocol

from pgctx.canonical import canonical_json
from pgctx.facts import MAX_TEXT, result_fields, subject_pairs, subject_text
from pgctx.messages import erasure_of, item_line, message_text, summary_message, task_message
from pgctx.summary import SCHEMA_VERSION, cited
from pgctx.tokens import Budget

APPROVAL = "await approval "
LITERALS = "(values only) "  # a statement rule 7 shortened to the values the user typed
UNRESOLVED = ("planned", "running", "unknown")
REQUIRED_REQUESTS = 12  # the newest user requests of a fold's range the database requires cited (PC120, 080)
CAPS = {"decisions": 8, "open_questions": 8, "constraints": 12, "user_requests": REQUIRED_REQUESTS + 4}
GOAL_CHARS = 160  # the goal's start: the user's words are kept whole among the statements
SAID_CHARS = 300  # what the agent said, as a decision
HOLLOW_FIELDS = 2  # what a range of tool results only keeps when the size bound dropped its facts
STATEMENT_CHARS = 800
_BINDING = re.compile(r"\b(never|always|only|must|make sure|be sure|call me|text me|email me|prefer|instead of|"
                      r"avoid|no later than|unless|except|authori[sz]e|allowed|without (asking|checking|telling|"
                      r"confirming)|do not|don't (?!know|remember|think|see|understand|care|mind|have|need)|"
                      r"not (on|before|after|until|over|above|under|below|more than|less than|mon|tue|wed|thu|fri|"
                      r"sat|sun)\w*|(no|nothing) (\w+ ){0,2}(until|before|after|more than|over|above)|max(imum)?|"
                      r"at most|at least|"
                      r"can't find out|cannot|policy|limit|budget|keep (it|them|the)|leave (it|them|that|those|the))\b"
                      r"|请勿|不要|只|必须|务必|记得", re.IGNORECASE)
# a number, an email, a path or file name, a code with separators: something a next call can use
_VALUE = re.compile(r"\d|\S@\S|\w[/_]\w|\w\.[a-z]{2,4}\b")
# the literal values of a user's message: tokens holding a digit, an @, a path or a code separator
_LITERAL = re.compile(r"[\w./:@+#-]*(?:\d|@|\w/\w|\w_\w)[\w./:@+#,-]*\w|[\w./:@+#-]*\d")
_SENTENCE = re.compile(r"(?<=[.!?。！？;；])\s+|\n+")
NAME_WORDS, NAME_CHARS = 6, 60  # a short phrase (a name, a title) is a value, longer text is prose
# the last component of a field that names or identifies a row: what a later call picks it by
_IDENTIFYING = re.compile(r"(^|_)([Ii][Dd]s?|uuid|code|number|no|ref|key|sku|slug|handle|email|url|path|title)$"
                          r"|[a-z]Id$|[Nn]ame$|[a-z](Code|Number|Key|Ref)$")
# what the agent said it will do: an offer or a plan
_COMMITMENT = re.compile(r"\b(I'll|I will|I'm going to|I am going to|shall I|should I|let me know and I)\b",
                         re.IGNORECASE)


@dataclass(frozen=True)
class Event:
    seq: int
    kind: str
    payload: dict[str, Any]
    tokens: int | None = None  # as stored at append (None: appended without a count)


@dataclass(frozen=True)
class FoldRequest:
    """Everything a summarizer gets: an incremental update, never the whole history."""

    conversation_id: str
    from_seq: int  # the committed cursor; events from_seq+1 .. to_seq are new
    to_seq: int
    previous_summary: dict[str, Any] | None
    events: list[Event]
    must_keep: dict[str, Any]
    schema: dict[str, Any]
    base_version: int = 0  # the committed version the request continues (what the fold's CAS expects)
    budget: Budget | None = None  # the caller's budget (summary_limit: what the summary should stay within)
    horizon: int | None = None  # the resolved writes must_keep kept in full (None: 12); prepare_fold needs the same


class Summarizer(Protocol):
    id: str

    def summarize(self, request: FoldRequest) -> Any: ...


def binding(text: str) -> bool:
    """Whether a user statement has a word that binds the agent (rule 7's drop order)."""
    return bool(_BINDING.search(text))


def holds_value(value: Any) -> bool:
    """Whether a statement or fact value holds something a next call can use (rule 7): a number, a
    code, an address, a path, or a short phrase such as a name."""
    return not isinstance(value, str) or bool(_VALUE.search(value)) or (
        len(value.split()) <= NAME_WORDS and len(value) <= NAME_CHARS)


def literals(text: str) -> list[str]:
    """The values a user typed in a message (ids, codes, amounts, addresses, paths), in order, once each."""
    found = [m.group(0).strip(".,:;") for m in _LITERAL.finditer(text)]
    return list(dict.fromkeys(v for v in found if len(v) >= 2))


class BuiltinSummarizer:
    id = "pgctx-builtin/2"

    def summarize(self, request: FoldRequest) -> dict[str, Any]:
        events = _view(request.events)
        cleared = any(e.kind == "clear" for e in request.events)
        s = _upgrade(request.previous_summary) if request.previous_summary and not cleared else _empty()
        keep = request.must_keep
        calls = {**keep.get("collapsed", {}), **keep["tool_calls"]}  # tool and subject of every call touched
        arguments = {e.payload.get("call_id"): e.payload.get("arguments")  # of the calls made in this range
                     for e in request.events if e.kind == "tool_call"}
        acknowledged = set(keep.get("acknowledgements", ()))
        for event in events:
            if event.seq not in acknowledged:
                self._fold_event(s, event, calls, arguments, request.from_seq)
            _used(s, event)
        _tool_state(s, keep)
        _pending(s, keep)
        kept = _Kept(keep)
        _cap(s, kept)
        s["omitted_event_range"] = dict(keep["omitted_event_range"])
        s["last_event_id"] = request.to_seq
        _bound(s, request.budget or Budget(), request.to_seq, kept)
        _not_hollow(s, events, calls)
        return s

    def _fold_event(self, s: dict[str, Any], event: Event, calls: dict[str, Any],
                    arguments: dict[str, Any], since: int) -> None:
        p, seq = event.payload, event.seq
        text = message_text(event.kind, p)
        if event.kind == "user" and text is not None:
            if not s["task"]["goal"]:
                s["task"].update(goal=text[:GOAL_CHARS], source_event_ids=[seq])
            _statement(s, text, seq, since)
        elif event.kind in ("tool_result", "status_query") and p.get("outcome") == "succeeded":
            call = calls.get(p.get("call_id"), {})
            authority = str(p.get("authority") or call.get("tool") or "tool")
            restated = subject_pairs(call.get("subject"))
            changed = call.get("effect", "read") != "read"
            fields = result_fields(p, None if changed else arguments.get(p.get("call_id")))
            for key, value in fields:
                if restated.get(key) != str(value):
                    _set_fact(s, key, value, call.get("subject"), authority, "confirmed", seq, changed=changed)
            # what a change was made with: a later call may depend on it (a directory changed to, a
            # name given); its identifiers are its subject already, and a field echoing it is there
            told = {str(v) for _, v in fields} | {str(f["value"]) for f in s["facts"]}  # nothing said twice
            for name, value in sorted((arguments.get(p.get("call_id")) or {}).items() if changed else ()):
                if name not in restated and _argument(value) and str(value) not in told:
                    _set_fact(s, f"{call.get('tool', 'call')}.{name}", value, call.get("subject"), authority,
                              "confirmed", seq, changed=True)
        elif event.kind in ("fact", "correction") and "key" in p and "value" in p:
            _set_fact(s, str(p["key"]), _fact_value(p["value"]), subject_text(p.get("subject")),
                      str(p.get("authority", "user")), _confidence(p.get("confidence")), seq)
        elif event.kind == "approval" and p.get("status") in ("granted", "denied"):
            verb = "authorized" if p["status"] == "granted" else "denied"
            grant = f"{verb} by {p.get('granted_by', 'user')}: {canonical_json(p.get('scope'))}" + (
                f" - {p['text']}" if p.get("text") else "")
            sources = [seq] + ([p["scopes_event"]] if isinstance(p.get("scopes_event"), int)
                               and 1 <= p["scopes_event"] < seq else [])
            _constrain(s, f"{grant} (approval {p.get('approval_id')})", sources, same=f"{grant} (approval ")
        elif event.kind == "permission":
            text = f"permission: {p.get('text', canonical_json(p))}"
            _constrain(s, text, [seq], same=text)
        elif event.kind == "assistant" and text is not None and _COMMITMENT.search(text):
            _decide(s, f"the agent said: {text[:SAID_CHARS]}", seq)
        elif event.kind == "subtask_end":
            _decide(s, f"subtask ended: {p.get('text', '')}", seq)
            if p.get("task_done"):
                s["task"]["status"] = "succeeded"
        elif event.kind == "topic_switch":
            if s["task"]["goal"]:
                _decide(s, f"earlier goal: {s['task']['goal']}", *(s["task"]["source_event_ids"] or [seq]),
                        status="superseded")
            topic = p.get("topic") or p.get("text") or "a new topic"
            s["task"].update(goal=f"topic: {topic}"[:GOAL_CHARS], status="running", source_event_ids=[seq])
        elif event.kind == "phase_change":
            _decide(s, f"phase changed: {p.get('from', '?')} -> {p.get('to', '?')}", seq)
        elif event.kind == "branch_merge":
            _decide(s, f"mainline confirmed: {p.get('mainline')}", seq)
        elif event.kind == "verification" and p.get("ok") is False:
            _question(s, f"verification failed: {p.get('what', '?')} (#{seq})")


def _confidence(value: Any) -> str:
    """A declared fact's confidence as the summary's finite set has it: inferred and unknown as
    such, anything else a client wrote ("explicit", "high", none) confirmed, as the fidelity judge
    and must_keep read it."""
    return value if value in ("inferred", "unknown") else "confirmed"


def _fact_value(value: Any) -> Any:
    """A declared fact's value as a summary fact holds it: a scalar or a list of scalars as it is,
    anything else (an object, nested lists) as its canonical JSON text."""
    scalar = (str, int, float, bool, type(None))
    if isinstance(value, scalar) or (isinstance(value, list) and all(isinstance(v, scalar) for v in value)):
        return value
    return canonical_json(value)


def _argument(value: Any) -> bool:
    """A call argument worth keeping as a fact: a number, or a short string that holds a value (an
    id, a path, a name), not prose (a message's text)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) or (
        isinstance(value, str) and 0 < len(value) <= MAX_TEXT and holds_value(value))


def _empty() -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "task": {"goal": "", "status": "running", "source_event_ids": []},
        "facts": [], "decisions": [], "tool_state": {}, "completed_actions": [], "pending": [],
        "constraints": [], "user_requests": [], "open_questions": [],
        "omitted_event_range": {"from": 1, "to": 0}, "last_event_id": 0,
    }


def _upgrade(previous: dict[str, Any]) -> dict[str, Any]:
    """A copy of the previous summary in this version's shape (a version 1 summary's constraints
    were plain strings, with no sources)."""
    s = copy.deepcopy(previous)
    if s.get("schema_version") == 1:
        s["schema_version"] = SCHEMA_VERSION
        s["task"].setdefault("source_event_ids", [])
        s["constraints"] = [{"text": c, "source_event_ids": []} for c in s["constraints"]]
        s["user_requests"] = []
    return s


def _decide(s: dict[str, Any], text: str, *seqs: int, status: str = "active") -> None:
    s["decisions"].insert(0, {"decision": text, "status": status, "source_event_ids": list(seqs)})


def _constrain(s: dict[str, Any], text: str, sources: list[int], same: str) -> None:
    """A constraint, newest first; one granted again (its text starts the same) replaces the older."""
    s["constraints"] = [c for c in s["constraints"] if not (isinstance(c, dict) and c["text"].startswith(same))]
    s["constraints"].insert(0, {"text": text, "source_event_ids": sources})


def _question(s: dict[str, Any], text: str) -> None:
    if text not in s["open_questions"]:
        s["open_questions"].insert(0, text)


def _statement(s: dict[str, Any], text: str, seq: int, since: int) -> None:
    """Rule 4: the user's words, verbatim, newest first, each statement once (bare
    acknowledgements never reach here: must_keep lists them, pgctx.acknowledgement). A statement
    said again cites the times it was said in this fold's range (after ``since``; PC120 may
    require the newest 12 of them) and, of earlier folds' ranges, the newest while it cites
    fewer than three: a statement repeated all along does not grow with the history."""
    if not text.strip():
        return
    text = _shortened(text)
    sources = [seq]
    for old in [r for r in s["user_requests"] if r["text"].casefold() == text.casefold()]:
        s["user_requests"].remove(old)
        sources += [x for x in old["source_event_ids"] if x > since][:REQUIRED_REQUESTS - 1]
        sources += [x for x in old["source_event_ids"] if x <= since][:max(0, 3 - len(sources))]
    s["user_requests"].insert(0, {"text": text, "source_event_ids": sources})


def _shortened(text: str) -> str:
    """A message as a statement: whole up to STATEMENT_CHARS; a longer one as its first sentence
    and every sentence that binds the agent or holds a value, verbatim (joined by " ... "), within
    STATEMENT_CHARS."""
    if len(text) <= STATEMENT_CHARS:
        return text
    sentences = [x for x in _SENTENCE.split(text) if x.strip()]
    kept = [x for i, x in enumerate(sentences) if i == 0 or binding(x) or _VALUE.search(x)]
    return " ... ".join(kept)[:STATEMENT_CHARS]


def _same_subject(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b


def _overlap(a: str | None, b: str | None) -> bool:
    """Subjects about some of the same identifiers (a shared name=value, as sql/160 compares calls)."""
    return bool(set(subject_pairs(a).items()) & set(subject_pairs(b).items()))


def _view(events: list[Event]) -> list[Event]:
    """The events a summary may take content from: after the last clear (the summary starts over
    there, sql/200), neither retracted nor erased (nothing of an erased event may be carried, or
    cited: PC119), and not the retraction and clear events themselves."""
    start = max((i for i, e in enumerate(events) if e.kind == "clear"), default=-1) + 1
    retracted = {e.payload.get("seq") for e in events if e.kind == "retraction"}
    return [e for e in events[start:] if e.kind not in ("retraction", "clear") and e.seq not in retracted
            and erasure_of(e.payload) is None]


def _contradiction(key: str, subject: str | None) -> str:
    return f"contradiction about {key} [{subject}]:"


def _used(s: dict[str, Any], event: Event) -> None:
    """Rule 3's order: facts whose value this event repeats, or about an entity it names (a value
    of their subject), move to the end (the most recently used: what is live)."""
    text = canonical_json(event.payload)
    # the substring tests first: they rule out almost every fact, holds_value's regex is the costly part
    named = {subject for subject in {f.get("subject") for f in s["facts"]} if subject
             and any(len(v) >= 3 and v in text for v in subject_pairs(subject).values())}
    used = [f for f in s["facts"] if event.seq not in f["source_event_ids"] and (
        f.get("subject") in named
        or isinstance(f["value"], str) and len(f["value"]) >= 5 and f["value"] in text and holds_value(f["value"]))]
    for f in used:
        s["facts"].remove(f)
        s["facts"].append(f)


def _set_fact(s: dict[str, Any], key: str, value: Any, subject: str | None, authority: str, confidence: str,
              seq: int, changed: bool = False) -> None:
    """Rule 3: which value is current. ``changed``: the reading is the result of this agent's write."""
    same = [f for f in s["facts"] if f["key"] == key and f["status"] == "active"
            and _same_subject(f.get("subject"), subject)]
    fact = {"key": key, "value": value, "confidence": confidence, "authority": authority,
            "source_event_ids": [seq], "status": "active"}
    if subject is not None:
        fact["subject"] = subject
    where = f"{key}{f' [{subject}]' if subject else ''}"

    def tool(f: dict[str, Any]) -> bool:
        return f["authority"] not in ("user", "model")

    if authority == "model" or confidence != "confirmed":
        confirmed = [f for f in same if f["authority"] != "model" and f["confidence"] == "confirmed"]
        for f in confirmed:
            if f["value"] != value:
                _question(s, f"{where}: the model inferred {value!r} (#{seq}), but {f['authority']} confirmed "
                             f"{f['value']!r} (#{f['source_event_ids'][-1]}); the confirmed value stands")
        if confirmed:
            return
        replaced = same
    else:
        # other tools' readings about overlapping identifiers: a contradiction, or settled by this one
        others = [f for f in s["facts"] if f["key"] == key and f["status"] == "active" and tool(f)
                  and f["authority"] != authority and _overlap(f.get("subject"), subject)]
        settled = changed or authority == "user" or len({canonical_json(f["value"]) for f in others}) > 1
        rivals = [] if settled else [f for f in others if f["value"] != value]
        for f in rivals:
            _question(s, f"{_contradiction(key, subject)} {f['authority']} says {f['value']!r} "
                         f"(#{f['source_event_ids'][-1]}), {authority} says {value!r} (#{seq})")
        if settled and others:
            s["open_questions"] = [q for q in s["open_questions"] if not q.startswith(f"contradiction about {key} [")]
        replaced = [f for f in same if f not in rivals
                    and (authority == "user" or changed or not tool(f) or f["authority"] == authority)]
        replaced += [f for f in others if settled and f not in replaced]
    previous = None
    for f in replaced:
        s["facts"].remove(f)
        previous = f["value"] if f["value"] != value else f.get("previous_value", previous)
    if previous is not None:
        fact["previous_value"] = previous
    s["facts"].append(fact)


def _call_sources(call: dict[str, Any]) -> list[int]:
    """The events a call's entry cites: its call and answer, except those erased (PC119)."""
    return [q for q in (call["call_seq"], call.get("answer_seq")) if q is not None and q not in call.get("erased", ())]


def _tool_state(s: dict[str, Any], keep: dict[str, Any]) -> None:
    """Rule 1: tool state as derived; writes beyond the horizon collapsed per tool and status.
    A call whose events were erased is still derived (sql/080) and kept, citing what is left."""
    s["tool_state"] = {}
    for call_id, call in keep["tool_calls"].items():
        state = {"tool": call["tool"], "effect": call["effect"], "status": call["status"],
                 "source_event_ids": _call_sources(call)}
        for name in ("subject", "request_id", "idempotency_key", "error"):
            if name in call:
                state[name] = call[name]
        s["tool_state"][call_id] = state
    per_tool = {(a["tool"], a["status"]): a for a in s["completed_actions"] if a.get("tool")}
    for call in sorted(keep.get("collapsed", {}).values(), key=lambda c: c["call_seq"]):
        if call["effect"] == "read":
            continue
        entry = per_tool.setdefault((call["tool"], call["status"]), {"count": 0, "tool": call["tool"],
                                                                     "status": call["status"]})
        entry["count"] += 1
        # (the database collapses no call with nothing left to cite: sql/080)
        entry["source_event_ids"] = _call_sources(call) or entry.get("source_event_ids", [])
        entry["action"] = f"{call['tool']} x{entry['count']} earlier"  # (request ids: pgctx.side_effects)
    # the calls still in tool_state show their own status: only the collapsed need an action
    s["completed_actions"] = list(per_tool.values())


def _pending(s: dict[str, Any], keep: dict[str, Any]) -> None:
    """Pending actions are re-derived each fold: unresolved calls and unanswered approvals."""
    calls = [{"action": f"resolve {state['status']} call {call_id} ({state['tool']}) by a status query",
              "blocking": True, "source_event_ids": state["source_event_ids"][:1]}  # (none erased: _tool_state)
             for call_id, state in s["tool_state"].items() if state["status"] in UNRESOLVED]
    # the database lists every approval still unanswered, whenever it was requested
    approvals = [{"action": f"{APPROVAL}{a['approval_id']}", "blocking": True, "source_event_ids": [a["seq"]]}
                 for a in keep["open_approvals"]]
    s["pending"] = calls + approvals
    if approvals:
        s["task"]["status"] = "waiting_for_approval"
    elif s["task"]["status"] == "waiting_for_approval":
        s["task"]["status"] = "running"


def _tokens(s: dict[str, Any], budget: Budget, cursor: int) -> int:
    counter = budget.counter()
    return counter.message_tokens(task_message(s)) + counter.message_tokens(summary_message(s, 1, cursor))


def _tier(name: str, item: Any) -> int:
    """Rule 7: the order entries are dropped in (lowest first)."""
    if name in ("decisions", "open_questions"):
        text = item if isinstance(item, str) else item["decision"]
        return 3 if _VALUE.search(text) else 0
    if name == "user_requests":
        # (a statement shortened to its values binds nothing: the "only" of its mark is not the user's)
        words = not item["text"].startswith(LITERALS)
        return 5 if words and binding(item["text"]) else (3 if holds_value(item["text"]) else 1)
    if name == "facts":
        if item["authority"] in ("user", "model"):
            return 6
        return 4 if holds_value(item["value"]) and not row_detail(item["key"]) else 2
    return 7  # constraints


def row_detail(key: str) -> bool:
    """Whether a tool fact is a detail of one row of a listing (``series[3].rps``,
    ``checks[4].region``) rather than a field of the result itself or a row's identifier or name
    (``albums[2].album_id``, ``items[0].title``): a listing's rows are many, a later call picks one
    of them by its id or name, and its other details are what rule 7 drops first among values."""
    return "[" in key and not _IDENTIFYING.search(key.rsplit(".", 1)[-1].rsplit("]", 1)[-1])


class _Kept:
    """What the database requires of this fold's summary beyond tool state and pending actions
    (PC120, must_keep): the newest user requests of the range cited, the facts declared in it
    kept. Rule 7 never drops an entry that holds one."""

    def __init__(self, keep: dict[str, Any]):
        self.requests = set(keep.get("requests", ()))
        self.facts = [(d["key"], d.get("subject"), d["seq"]) for d in keep.get("facts", ())]

    def __call__(self, name: str, item: Any) -> bool:
        if name == "user_requests":
            return bool(self.requests.intersection(item["source_event_ids"]))
        if name == "facts":
            return any(item["key"] == key and _same_subject(item.get("subject"), subject)
                       and max(item["source_event_ids"], default=0) >= seq for key, subject, seq in self.facts)
        return False


def _drop_order(s: dict[str, Any], names: tuple[str, ...], kept: _Kept) -> list[tuple[str, Any]]:
    """The entries of these sections that may be dropped, in the order rule 7 drops them: by tier,
    then least recent first (facts are kept least recently used first, the other sections newest
    first)."""
    entries = [(_tier(name, item), i if name == "facts" else -i, name, item)
               for name in names for i, item in enumerate(s[name]) if not kept(name, item)]
    return [(name, item) for *_, name, item in sorted(entries, key=lambda e: e[:2])]


def _cap(s: dict[str, Any], kept: _Kept) -> None:
    """Rule 7: at most CAPS entries per section."""
    for name, cap in CAPS.items():
        for _, item in _drop_order(s, (name,), kept)[:max(len(s[name]) - cap, 0)]:
            s[name].remove(item)


def _not_hollow(s: dict[str, Any], events: list[Event], calls: dict[str, Any]) -> None:
    """A range with content is never folded into a summary that cites none of it (PC120): when
    nothing else does, the newest message of the range is kept as a decision, or, in a range of
    tool results only (a read whose facts the size bound dropped), the newest successful result's
    first fields."""
    seqs = {e.seq for e in events}
    if seqs & set(cited(s)):
        return
    said = [(e, message_text(e.kind, e.payload)) for e in events]
    said = [(e, text) for e, text in said if text and text.strip()]
    if said:
        last, text = said[-1]
        who = "the agent" if last.kind == "assistant" else last.kind
        _decide(s, f"{who} said: {text[:SAID_CHARS]}", last.seq)
        return
    answers = [e for e in events if e.kind in ("tool_result", "status_query") and e.payload.get("outcome") == "succeeded"
               and result_fields(e.payload)]
    if answers:
        last = answers[-1]
        tool = calls.get(last.payload.get("call_id"), {}).get("tool", last.kind)
        fields = "; ".join(f"{key} = {value}" for key, value in result_fields(last.payload)[:HOLLOW_FIELDS])
        _decide(s, f"{tool} said: {fields}"[:SAID_CHARS], last.seq)


def _bound(s: dict[str, Any], budget: Budget, cursor: int, kept: _Kept) -> None:
    """Rule 7: drop the least useful entries, oldest first, until the summary fits its share.

    Each entry's tokens are estimated from its own line; the total is recounted exactly whenever
    the estimate says it fits."""
    limit = budget.summary_limit
    total = _tokens(s, budget, cursor)
    if total <= limit:
        return
    counter = budget.counter()
    sections = ("decisions", "open_questions", "user_requests", "facts", "constraints")
    # the requests the database makes it cite go to their values first (those that bind the agent
    # excepted: a rule is its words): they stay cited, and the context's raw events show the newest
    # of them whole while they fit
    required = [("user_requests", r) for r in s["user_requests"]
                if kept("user_requests", r) and not binding(r["text"])]
    for shorten in (True, False):  # first the user's words shortened to their values, then dropped too
        for name, item in (required if shorten else []) + _drop_order(s, sections, kept):
            before = counter.count(item_line(name, item)) + 1
            statement = name == "user_requests"
            values = literals(item["text"]) if shorten and statement else []
            if values and not item["text"].startswith(LITERALS):
                # the user's words go, the values they typed stay (an id, a code, an amount said once)
                text = LITERALS + ", ".join(values)
                same = next((r for r in s[name] if r is not item and r["text"] == text), None)
                if same is None:
                    item["text"] = text
                    total -= before - counter.count(item_line(name, item)) - 1
                else:  # the same values said again ("check CLM-1" twice): one entry citing each time
                    same["source_event_ids"] = sorted({*same["source_event_ids"], *item["source_event_ids"]},
                                                      reverse=True)
                    s[name].remove(item)
                    total -= before
            elif shorten and statement and item["text"].startswith(LITERALS):
                continue  # already its values: dropped in the second pass, if at all
            elif kept(name, item):
                continue  # required, and no values to shorten it to: it stays as it is
            else:
                s[name].remove(item)
                total -= before
            if total <= limit:
                total = _tokens(s, budget, cursor)
                if total <= limit:
                    return
