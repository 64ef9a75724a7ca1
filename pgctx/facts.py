"""What a tool result states: the fields of its payload that are facts.

One definition, used by the built-in summarizer (facts whose authority is the tool) and by the
fidelity judge (:mod:`pgctx.evaluation.probes`, what a raw result in a context states), so the two cannot
disagree:

- the fields are the payload's ``result`` (an object's members, or the members of the object
  that is its one member: ``{"product": {"price": "26.50"}}`` states ``price``; any other value is
  the field ``result``) and every other payload member except the conventions pgctx reads itself
  (``call_id``, ``outcome``, ``request_id``, ``error``, ``idempotency_key``, ``authority``);
- objects are flattened with dotted names (``address.city``), lists of objects with an index
  (``flights[0].id``), down to 4 levels and 10 items;
- a field is a fact when its value is a number, a boolean, a string of at most 200 characters,
  or a list of at most 10 such scalars (the names in a listing); longer text is text, not a fact;
- given the arguments of a *read* call, a top-level field that repeats one of them (same name and
  value) echoes the request and observes nothing: it is not a fact (the database's readings skip
  it too, sql/160_fold_triggers.sql). A write's result repeating its argument confirms the change,
  and is a fact. (The judge, :mod:`pgctx.evaluation.probes`, passes no arguments: a raw event states what it
  states.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pgctx.canonical import canonical_json

CONVENTIONS = frozenset({"call_id", "outcome", "request_id", "error", "idempotency_key", "authority"})
MAX_TEXT = 200
MAX_ITEMS = 10
MAX_DEPTH = 4


def _scalar(value: Any) -> bool:
    return isinstance(value, (bool, int, float)) or (isinstance(value, str) and len(value) <= MAX_TEXT)


def _flatten(name: str, value: Any, depth: int) -> Iterator[tuple[str, Any]]:
    if _scalar(value):
        yield name, value
    elif isinstance(value, list) and len(value) <= MAX_ITEMS and value and all(_scalar(v) for v in value):
        yield name, list(value)
    elif depth < MAX_DEPTH and isinstance(value, dict):
        for key, inner in value.items():
            yield from _flatten(f"{name}.{key}" if name else str(key), inner, depth + 1)
    elif depth < MAX_DEPTH and isinstance(value, list):
        for i, inner in enumerate(value[:MAX_ITEMS]):
            if isinstance(inner, dict):
                yield from _flatten(f"{name}[{i}]", inner, depth + 1)


def record(result: dict[str, Any]) -> dict[str, Any]:
    """The record a result object states: itself, or the object that is its one member (a record
    wrapped in its type's name, ``{"product": {"price": "26.50"}}``), as sql/160's
    pgctx.result_record reads it."""
    if len(result) == 1:
        (inner,) = result.values()
        if isinstance(inner, dict):
            return inner
    return result


def result_fields(payload: dict[str, Any], arguments: dict[str, Any] | None = None) -> list[tuple[str, Any]]:
    """The (field, value) facts a tool result's payload states, in payload order, less the fields
    that echo ``arguments`` (a read call's, when known)."""
    fields: list[tuple[str, Any]] = []
    for key, value in payload.items():
        if key in CONVENTIONS:
            continue
        if key == "result" and isinstance(value, dict):
            fields += _flatten("", record(value), 0)
        else:
            fields += _flatten(str(key), value, 1)
    echoed = arguments if isinstance(arguments, dict) else {}
    return [(name, value) for name, value in fields if name not in echoed or echoed[name] != value]


def field_matches(field: str, key: str) -> bool:
    """A field is the key when its full dotted name, or its last component, is the key."""
    return field == key or field.rsplit(".", 1)[-1] == key


def subject_text(subject: Any) -> str | None:
    """A subject as pgctx writes it: ``"a=1, b=2"``; an object ``{"b": 2, "a": 1}`` (how a client
    may give a fact event's subject) in that form, names sorted, as sql/080's pgctx.subject_text
    writes it; anything else is no subject."""
    if isinstance(subject, str):
        return subject
    if isinstance(subject, dict) and subject:
        return ", ".join(f"{k}={v if isinstance(v, str) else canonical_json(v)}" for k, v in sorted(subject.items()))
    return None


def subject_pairs(subject: Any) -> dict[str, str]:
    """``"a=1, b=2"`` (how pgctx writes a subject) as {"a": "1", "b": "2"}."""
    pairs: dict[str, str] = {}
    for part in (subject_text(subject) or "").split(","):
        name, sep, value = part.strip().partition("=")
        if sep:
            pairs[name.strip()] = value.strip()
    return pairs
