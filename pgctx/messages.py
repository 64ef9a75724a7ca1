"""How events appear to the model: chat messages, and OpenAI Responses input items.

One rendering, used both to count an event's tokens when it is appended and to build the
working context, so the stored counts are the counts of what is sent.

- ``user`` / ``assistant`` / ``system`` events become messages of that role (their ``text``).
- A ``tool_call`` becomes an assistant message with one tool call (name, JSON arguments); its
  answer (``tool_result`` or ``status_query``) a ``tool`` message with the call id.
- Every other kind (approval, fact, correction, recovery, …) is a system note naming the kind,
  so the model sees what happened.
"""

from __future__ import annotations

import json
from typing import Any

from pgctx.canonical import canonical_json

ANSWERS = ("tool_result", "status_query")


def note(kind: str, payload: dict[str, Any], label: str = "") -> dict[str, Any]:
    """A system note for an event that is not a message (``label``: evidence seq and reason)."""
    return {"role": "system", "content": f"[{kind}{label}] {canonical_json(payload)}"}


def call_message(payload: dict[str, Any]) -> dict[str, Any]:
    arguments = payload.get("arguments", {})
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": str(payload.get("call_id", "")), "type": "function",
        "function": {"name": str(payload.get("tool", "")), "arguments": canonical_json(arguments)},
    }]}


def output_message(payload: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in payload.items() if k != "call_id"}
    return {"role": "tool", "tool_call_id": str(payload.get("call_id", "")), "content": canonical_json(body)}


def event_message(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The chat message of one event on its own (what its stored token count measures)."""
    if kind in ("user", "assistant", "system") and isinstance(payload.get("text"), str):
        return {"role": kind, "content": payload["text"]}
    if kind == "tool_call":
        return call_message(payload)
    if kind in ANSWERS:
        return output_message(payload)
    return note(kind, payload)


def to_input_items(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat messages as OpenAI Responses API input items (function_call / function_call_output)."""
    items: list[dict[str, Any]] = []
    for m in messages:
        if m.get("tool_calls"):
            items += [{"type": "function_call", "call_id": c["id"], "name": c["function"]["name"],
                       "arguments": c["function"]["arguments"]} for c in m["tool_calls"]]
        elif m["role"] == "tool":
            items.append({"type": "function_call_output", "call_id": m["tool_call_id"], "output": m["content"]})
        else:
            items.append({"role": m["role"], "content": m["content"]})
    return items


def task_message(summary: dict[str, Any]) -> dict[str, Any]:
    """The task state (goal, status, what is pending) the model must act on, from the summary."""
    task = summary.get("task", {})
    lines = [f"Task: {task.get('goal', '')}", f"Status: {task.get('status', 'unknown')}"]
    lines += [f"Pending{' (blocking)' if p.get('blocking') else ''}: {p.get('action')}"
              for p in summary.get("pending", [])]
    return {"role": "system", "content": "\n".join(lines)}


def summary_message(summary: dict[str, Any], version: int, cursor: int) -> dict[str, Any]:
    """The committed summary, marked with what it covers so the model knows events are omitted."""
    # compact separators: the summary is the largest fixed part of every request; sorted keys:
    # the same text (and token count) whether the summary came from the database or a summarizer
    text = json.dumps(summary, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return {"role": "system", "content": f"[summary v{version} of events 1..{cursor}] {text}"}
