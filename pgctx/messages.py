"""How events appear to the model: chat messages, and OpenAI Responses input items.

One rendering, used both to count an event's tokens when it is appended and to build the
working context, so the stored counts are the counts of what is sent.

- ``user`` / ``assistant`` / ``system`` events become messages of that role (their ``text``, or a
  string ``content``: :func:`message_text`).
- A ``tool_call`` becomes an assistant message with one tool call (name, JSON arguments); its
  answer (``tool_result`` or ``status_query``) a ``tool`` message with the call id.
- Every other kind (approval, fact, correction, recovery, …) is a system note naming the kind,
  so the model sees what happened.
- An erased event (its payload the marker ``{"pgctx_erased": S}``, with a tool event's ids,
  sql/030) is a short system note saying so, whatever its kind: never its old content, which is
  gone.
"""

from __future__ import annotations

import json
from typing import Any

from pgctx.canonical import ERASURE_KEPT_FIELDS, canonical_json

ANSWERS = ("tool_result", "status_query")


def note(kind: str, payload: dict[str, Any], label: str = "") -> dict[str, Any]:
    """A system note for an event that is not a message (``label``: evidence seq and reason)."""
    return {"role": "system", "content": f"[{kind}{label}] {canonical_json(payload)}"}


NOTE_CHARS = 240  # what a pinned note keeps of an event's content


def evidence_note(kind: str, payload: dict[str, Any], seq: int, reason: str) -> dict[str, Any]:
    """Evidence kept raw beside the summary: the event as a note, with its seq and why it is kept
    (:func:`kept_for`)."""
    return note(kind, payload, f" #{seq}, kept raw: {kept_for(payload, reason)}")


def kept_for(payload: dict[str, Any], reason: str) -> str:
    """Why evidence is kept, said once: a reason naming the event's own call ("... (call X)")
    without the call, which the event itself names; in a small window the labels are a fair share
    of what evidence costs."""
    own = f" (call {payload.get('call_id')})"
    return reason[:-len(own)] if payload.get("call_id") is not None and reason.endswith(own) else reason


def pinned_note(kind: str, payload: dict[str, Any], seq: int, reason: str, chain_hash: bytes | None,
                chars: int = NOTE_CHARS) -> dict[str, Any]:
    """Evidence over its share of the budget, shortened: the event's seq, why it is pinned and its
    chain hash (the event stays verifiable: pgctx.verify_chain, pgctx.events.hash), then the first
    ``chars`` of its content as one line (a call's tool and arguments, an answer's outcome and
    fields)."""
    if kind == "tool_call":
        content = f"{payload.get('tool', '')}({canonical_json(payload.get('arguments', {}))})"
    else:
        content = canonical_json({k: v for k, v in payload.items() if k != "call_id"} if kind in ANSWERS else payload)
    if len(content) > chars:
        content = content[:chars] + "..."
    where = f"{kind} #{seq}" + (f" (call {payload.get('call_id')})" if kind in ANSWERS + ("tool_call",) else "")
    digest = f", chain hash {chain_hash.hex()[:16]}" if chain_hash else ""
    return {"role": "system",
            "content": f"[{where}, pinned evidence shortened: {kept_for(payload, reason)}{digest}] {content}"}


def call_message(payload: dict[str, Any]) -> dict[str, Any]:
    arguments = payload.get("arguments", {})
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": str(payload.get("call_id", "")), "type": "function",
        "function": {"name": str(payload.get("tool", "")), "arguments": canonical_json(arguments)},
    }]}


def output_message(payload: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in payload.items() if k != "call_id"}
    return {"role": "tool", "tool_call_id": str(payload.get("call_id", "")), "content": canonical_json(body)}


# Every field an erased event of some kind may keep beside its marker (sql/030).
_KEPT_ANY = frozenset(f for fields in ERASURE_KEPT_FIELDS.values() for f in fields)


def erasure_of(payload: dict[str, Any]) -> int | None:
    """The seq of the erasure event that erased this event, if ``payload`` is an erased marker:
    ``{"pgctx_erased": S}`` and, for a tool event, the ids it keeps (sql/030)."""
    value = payload.get("pgctx_erased")
    if not isinstance(value, int) or isinstance(value, bool) or not set(payload) - {"pgctx_erased"} <= _KEPT_ANY:
        return None
    return value


def erased_message(kind: str, erasure_seq: int, seq: int | None = None) -> dict[str, Any]:
    where = f" #{seq}" if seq is not None else ""
    return {"role": "system", "content": f"[{kind}{where} erased: its content was removed (erasure at seq {erasure_seq})]"}


def message_text(kind: str, payload: dict[str, Any]) -> str | None:
    """The text of a ``user``, ``assistant`` or ``system`` event: its ``text``, or, as chat APIs
    call it, a string ``content`` (sql/080's pgctx.message_text is the same rule); None for other
    kinds and for a message without either."""
    if kind not in ("user", "assistant", "system"):
        return None
    for name in ("text", "content"):
        if isinstance(payload.get(name), str):
            return payload[name]
    return None


def event_message(kind: str, payload: dict[str, Any], seq: int | None = None) -> dict[str, Any]:
    """The chat message of one event on its own (what its stored token count measures)."""
    erasure = erasure_of(payload)
    if erasure is not None:
        return erased_message(kind, erasure, seq)
    text = message_text(kind, payload)
    if text is not None:
        return {"role": kind, "content": text}
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
    """The committed summary as the model reads it, marked with what it covers so the model knows
    events are omitted. Compact lines, not JSON: the summary is the largest fixed part of every
    request, and its structure is for validation and recovery, its text for the model (article
    六). Deterministic, so its token count is the same from the database or a summarizer. The
    task and pending actions are the task message's (:func:`task_message`)."""
    lines = [f"[summary v{version} of events 1..{cursor}: what the omitted events established]"]
    for name, title in SUMMARY_SECTIONS:
        items = summary.get(name) or []
        if name == "facts":
            entries = _fact_groups(items)
        elif isinstance(items, dict):
            entries = [item_line(name, k, v) for k, v in items.items()]
        elif name == "user_requests":
            # the words the task message shows as the goal are not said twice (the entry still
            # cites them: in a small window those tokens are a raw event's)
            goal = (summary.get("task") or {}).get("goal")
            entries = [f"#{_seqs(item)}: (the task above)" if goal and item.get("text") == goal
                       else item_line(name, item) for item in items]
        else:
            entries = [item_line(name, item) for item in items]
        if entries:
            lines.append(f"{title}:")
            lines += [f"- {entry}" for entry in entries]
    return {"role": "system", "content": "\n".join(lines)}


SUMMARY_SECTIONS = (("user_requests", "User said (newest first)"), ("facts", "Facts"), ("constraints", "Constraints"),
                    ("tool_state", "Tool calls"), ("completed_actions", "Done"), ("decisions", "Decisions"),
                    ("open_questions", "Open questions"))


def item_line(section: str, item: Any, state: dict[str, Any] | None = None) -> str:
    """One entry of a summary section as the model reads it (tool_state: the call id and its state)."""
    if section == "tool_state":
        return _call_line(item, state or {})
    if isinstance(item, str):  # open questions; a version 1 constraint
        return item
    if section == "user_requests":
        return f"#{_seqs(item)}: {item.get('text', '')}"
    if section == "facts":
        return _fact_line(item)
    if section == "constraints":
        return f"{item.get('text', '')} (#{_seqs(item)})"
    if section == "completed_actions":
        return f"{item.get('action', '')}: {item.get('status', '')} (#{_seqs(item)})"
    return f"{item.get('status', '')}: {item.get('decision', '')} (#{_seqs(item)})"  # decisions


def _seqs(item: dict[str, Any]) -> str:
    return ",".join(str(seq) for seq in item.get("source_event_ids", []))


def show(value: Any) -> str:
    """A fact value as text: lists joined, JSON spelling for true/false/null."""
    if isinstance(value, list):
        return ", ".join(show(v) for v in value)
    return value if isinstance(value, str) else json.dumps(value)


def _fact_groups(facts: list[dict[str, Any]]) -> list[str]:
    """Facts as lines, one per subject, authority and sources (in the order each group first
    appears): "[order_id=10086] tracker #12: status = shipped; eta = 2026-09-02" reads as well as a
    line per fact and costs about half the tokens. The fields of one row of a listing are said
    together, the row named once: "items[0].id = 7hq2m1o0, start = 09:30; items[1].id = ..."."""
    groups: dict[tuple[Any, ...], dict[str, list[dict[str, Any]]]] = {}
    for fact in facts:
        how, key = fact.get("authority", ""), str(fact.get("key", ""))
        row = key[:key.rindex("].") + 2] if "]." in key else key  # "items[0]." (a row), or the key itself
        groups.setdefault((fact.get("subject") or "", how, _seqs(fact)), {}).setdefault(row, []).append(fact)
    return [_fact_head(subject, how, seqs) + "; ".join(
        ", ".join(_fact_value(f, f["key"][len(row):] if i and row.endswith(".") else None)
                  for i, f in enumerate(members))
        for row, members in rows.items()) for (subject, how, seqs), rows in groups.items()]


def _fact_head(subject: str, authority: str, seqs: str) -> str:
    return (f"[{subject}] " if subject else "") + f"{authority} #{seqs}: "


def _fact_value(fact: dict[str, Any], name: str | None = None) -> str:
    text = f"{fact.get('key', '') if name is None else name} = {show(fact.get('value'))}"
    if fact.get("confidence", "confirmed") != "confirmed":
        text += f" ({fact['confidence']})"
    if fact.get("previous_value") is not None:
        text += f" (was {show(fact['previous_value'])})"
    return text + (" NO LONGER VALID" if fact.get("status") == "expired" else "")


def _fact_line(fact: dict[str, Any]) -> str:
    """One fact on its own line, as a group of one (:func:`_fact_groups`)."""
    return _fact_head(fact.get("subject") or "", fact.get("authority", ""), _seqs(fact)) + _fact_value(fact)


def _call_line(call_id: str, state: dict[str, Any]) -> str:
    subject = f" [{state['subject']}]" if state.get("subject") else ""
    status = state.get("status", "")
    line = f"{call_id} {state.get('tool', '')}{subject} {state.get('effect', '')}: {status}"
    # the idempotency key is what a status query asks by: shown while the outcome is open
    shown = ("request_id", "error") if status in ("succeeded", "failed", "cancelled") else \
        ("request_id", "idempotency_key", "error")
    for name in shown:
        if state.get(name):
            line += f", {name.replace('_', ' ')} {state[name]}"
    return f"{line} (#{_seqs(state)})"
