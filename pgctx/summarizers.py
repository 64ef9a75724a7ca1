"""Summarizers: what turns (previous summary, new events, must-keep items) into a candidate.

A summarizer is any object with an ``id`` and a ``summarize(request)`` method returning the
candidate summary (a dict or a :class:`pgctx.summary.Summary`). It only proposes: the candidate
is accepted or refused by pgctx.prepare_fold in SQL.

:class:`BuiltinSummarizer` needs no model: it folds tool calls and results into tool state,
facts and corrections declared by events into facts, approvals into pending actions and
constraints, and always keeps the must-keep items the database derived. It is deterministic, so
the same request gives the same candidate.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Protocol

from pgctx.canonical import canonical_json
from pgctx.summary import SCHEMA_VERSION

APPROVAL = "await approval "


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


class Summarizer(Protocol):
    id: str

    def summarize(self, request: FoldRequest) -> Any: ...


def _text(payload: dict[str, Any], limit: int = 200) -> str:
    value = payload.get("text") or payload.get("goal") or ""
    return str(value)[:limit]


class BuiltinSummarizer:
    id = "pgctx-builtin/1"

    def summarize(self, request: FoldRequest) -> dict[str, Any]:
        s = copy.deepcopy(request.previous_summary) if request.previous_summary else self._empty()
        for event in request.events:
            self._fold_event(s, event)
        self._keep_tool_state(s, request.must_keep)
        self._keep_identifiers(s, request)
        self._pending(s, request)
        s["omitted_event_range"] = dict(request.must_keep["omitted_event_range"])
        s["last_event_id"] = request.to_seq
        return s

    @staticmethod
    def _empty() -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "task": {"goal": "", "status": "running"},
            "facts": [], "decisions": [], "tool_state": {}, "completed_actions": [], "pending": [],
            "constraints": [], "open_questions": [],
            "omitted_event_range": {"from": 1, "to": 0}, "last_event_id": 0,
        }

    def _fold_event(self, s: dict[str, Any], event: Event) -> None:
        p = event.payload
        if event.kind == "user" and not s["task"]["goal"]:
            s["task"]["goal"] = _text(p)
        elif event.kind in ("fact", "correction") and "key" in p and "value" in p:
            self._set_fact(s, event, p)
        elif event.kind == "approval" and p.get("status") == "granted":
            scope = canonical_json(p.get("scope"))
            s["constraints"].append(f"authorized by {p.get('granted_by', 'user')} (event {event.seq}): {scope}")
        elif event.kind == "subtask_end" and p.get("task_done"):
            s["task"]["status"] = "succeeded"

    @staticmethod
    def _set_fact(s: dict[str, Any], event: Event, p: dict[str, Any]) -> None:
        previous = None
        for fact in s["facts"]:
            if fact["key"] == p["key"] and fact["status"] == "active":
                fact["status"] = "expired"
                previous = fact["value"]
        fact = {
            "key": str(p["key"]),
            "value": p["value"],
            "confidence": p.get("confidence", "confirmed"),
            "authority": str(p.get("authority", "user")),
            "source_event_ids": [event.seq],
            "status": "active",
        }
        if previous is not None:
            fact["previous_value"] = previous
        s["facts"].append(fact)

    @staticmethod
    def _keep_tool_state(s: dict[str, Any], keep: dict[str, Any]) -> None:
        # resolved reads age out of the summary (their results are in the folded events); writes
        # keep their request ids and unresolved calls stay until answered
        s["tool_state"] = {
            call_id: state for call_id, state in s["tool_state"].items()
            if state["status"] in ("running", "unknown") or (state["effect"] != "read" and "request_id" in state)
        }
        for call_id, call in keep["tool_calls"].items():
            sources = [call["call_seq"]] + ([call["answer_seq"]] if "answer_seq" in call else [])
            state = {"tool": call["tool"], "effect": call["effect"], "status": call["status"],
                     "source_event_ids": sources}
            for field in ("request_id", "idempotency_key", "error"):
                if field in call:
                    state[field] = call[field]
            s["tool_state"][call_id] = state
            done = call["status"] == "succeeded" and call.get("effect") != "read"
            if done and not any(a["source_event_ids"] == sources for a in s["completed_actions"]):
                s["completed_actions"].append({"action": f"{call['tool']} ({call_id})", "status": "succeeded",
                                               "source_event_ids": sources})

    @staticmethod
    def _keep_identifiers(s: dict[str, Any], request: FoldRequest) -> None:
        known = {str(f["value"]) for f in s["facts"]}
        for event in request.events:
            arguments = event.payload.get("arguments") if event.kind == "tool_call" else None
            if not isinstance(arguments, dict):
                continue
            for ident in request.must_keep["identifiers"]:
                for key, value in arguments.items():
                    if str(value) == str(ident) and str(ident) not in known:
                        known.add(str(ident))
                        # one fact per identifier value: several orders are several facts
                        s["facts"].append({"key": f"{key}={value}", "value": value, "confidence": "confirmed",
                                           "authority": str(event.payload.get("tool", "tool")),
                                           "source_event_ids": [event.seq], "status": "active"})

    @staticmethod
    def _pending(s: dict[str, Any], request: FoldRequest) -> None:
        """Pending actions are re-derived each fold: unresolved calls and unanswered approvals."""
        calls = [
            {"action": f"resolve {state['status']} call {call_id} ({state['tool']}) by a status query",
             "blocking": True, "source_event_ids": state["source_event_ids"][:1]}
            for call_id, state in s["tool_state"].items() if state["status"] in ("running", "unknown")
        ]
        # the database lists every approval still unanswered, whenever it was requested
        approvals = [{"action": f"{APPROVAL}{a['approval_id']}", "blocking": True, "source_event_ids": [a["seq"]]}
                     for a in request.must_keep["open_approvals"]]
        s["pending"] = calls + approvals
        if approvals:
            s["task"]["status"] = "waiting_for_approval"
        elif s["task"]["status"] == "waiting_for_approval":
            s["task"]["status"] = "running"
