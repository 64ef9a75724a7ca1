"""pgctx canonical JSON v1 and the event hashes (chain formats v1 and v2), in pure Python (no database).

This reproduces byte for byte what ``sql/010_canonical.sql`` computes in PostgreSQL, so that an
exported audit bundle can be verified anywhere. The form is the text jsonb prints for a value
once numbers have lost trailing fractional zeros:

* objects: keys ordered by UTF-8 length, then by UTF-8 bytes; ``{"k": v, "k2": v2}``;
* arrays: ``[v, v2]``; empty containers ``{}`` and ``[]``;
* strings: UTF-8; only ``"``, ``\\`` and U+0000..U+001F are escaped (``\\b \\f \\n \\r \\t``,
  others as ``\\u00xx``); everything else, U+2028 and astral characters included, as itself;
* numbers: plain decimal, no exponent, no trailing fractional zeros, no ``-0``;
* ``true``, ``false``, ``null``.

Values PostgreSQL cannot hold raise :class:`pgctx.errors.UnrepresentableJSON`: U+0000, lone
surrogates, NaN and infinities, numbers beyond numeric's range, non-string object keys, and a
container that holds itself. Neither the writer nor the parser (:func:`loads`) recurses: any depth
PostgreSQL stores verifies here.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterator
from decimal import Decimal
from json.decoder import scanstring
from json.scanner import NUMBER_RE
from operator import itemgetter
from typing import Any

from pgctx.errors import UnrepresentableJSON

EVENT_TAG = b"pgctx:event:v1"
EVENT_TAG_V2 = b"pgctx:event:v2"
PAYLOAD_TAG_V2 = b"pgctx:payload:v2"
GENESIS_TAG = b"pgctx:genesis:v1"

_SUSPECT_ESCAPE = re.compile(r"\\u(?:0000|d[89a-f])")
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
# what a JSON string must escape: the quote, the backslash and the control characters
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f]')
# PostgreSQL numeric's range: 131072 digits before the decimal point, 16383 after it
NUMERIC_INTEGER_DIGITS = 131072
NUMERIC_FRACTION_DIGITS = 16383
_SEP = ", "  # between members; canonical_json tells it from text it wrote by identity
_SECOND = itemgetter(1)


def canonical_json(value: Any) -> str:
    """The canonical text of a JSON value (dict, list, str, int, float, Decimal, bool, None).

    Iterative, so that nesting is bounded by memory, not by Python's recursion limit: PostgreSQL
    accepts payloads some 13,000 levels deep at its default ``max_stack_depth`` (more when it is
    raised), and every payload it stores must verify offline.
    """
    out: list[str] = []
    emit = out.append
    # The container being written: its members still to write (an object's keys in canonical
    # order, or an array's elements), the object itself (None for an array) and its closing
    # bracket; `outer` holds the same for each enclosing container, with the container, which
    # _refuse_cycle looks for.
    members: Iterator[Any] = iter((value,))
    obj: dict[str, Any] | None = None
    closing = ""
    outer: list[tuple[Iterator[Any], dict[str, Any] | None, str, Any]] = []
    check_depth = 1024
    while True:
        if len(outer) > check_depth:  # deep: a container that holds itself would never end
            _refuse_cycle(outer)
            check_depth *= 2
        for v in members:
            if obj is not None:
                emit(_string(v))
                emit(": ")
                v = obj[v]
            # Every value is followed by _SEP; a closing bracket replaces the last one. The type
            # tests come most frequent first: no value is of two of these types (bools, which
            # are ints, are taken first).
            if v is None:
                emit("null")
            elif v is True:
                emit("true")
            elif v is False:
                emit("false")
            elif isinstance(v, str):
                emit(_string(v))
            elif isinstance(v, dict):
                outer.append((members, obj, closing, v))
                emit("{")
                members, obj, closing = _ordered_keys(v), v, "}"
                break
            elif isinstance(v, (list, tuple)):
                outer.append((members, obj, closing, v))
                emit("[")
                members, obj, closing = iter(v), None, "]"
                break
            elif isinstance(v, int):
                try:
                    emit(str(int(v)))
                except ValueError:  # more digits than int's str() allows (sys.get_int_max_str_digits)
                    emit(_decimal(Decimal(int(v))))
            elif isinstance(v, float):
                if not math.isfinite(v):
                    raise UnrepresentableJSON(f"{v!r} is not a JSON number PostgreSQL can store")
                emit(_decimal(Decimal(repr(v))))
            elif isinstance(v, Decimal):
                if not v.is_finite():
                    raise UnrepresentableJSON(f"{v!r} is not a JSON number PostgreSQL can store")
                emit(_decimal(v))
            else:
                raise UnrepresentableJSON(f"{type(v).__name__} is not a JSON value")
            emit(_SEP)
        else:  # the container is complete
            if not outer:
                out.pop()
                return "".join(out)
            if out[-1] is _SEP:
                out[-1] = closing
            else:  # empty
                emit(closing)
            emit(_SEP)
            members, obj, closing, _ = outer.pop()


def transport_json(value: Any) -> str:
    """JSON text of a fold document (a summary) to send to PostgreSQL, which canonicalises it.

    The C encoder does the common case; what it would not write exactly (a Decimal, NaN, a lone
    surrogate, U+0000 — or an astral character, which it writes as a pair) goes through
    :func:`canonical_json`, which writes it exactly or raises :class:`UnrepresentableJSON`.
    Event payloads always go through :func:`canonical_json`, which also refuses non-string keys.
    """
    try:
        text = json.dumps(value, allow_nan=False, ensure_ascii=True)
    except (TypeError, ValueError):
        return canonical_json(value)
    return canonical_json(value) if _SUSPECT_ESCAPE.search(text) else text


def loads(text: str | bytes) -> Any:
    """Parse JSON keeping every number exact (integers as int, the rest as Decimal), at any depth.

    json's C parser recurses once per level of nesting: text nested deeper than the recursion
    limit allows is parsed again by :func:`_loads_nested`, which keeps its own stack.
    """
    try:
        return json.loads(text, parse_float=Decimal, parse_int=_integer, parse_constant=_refuse_constant)
    except RecursionError:
        if isinstance(text, bytes):
            text = text.decode(json.detect_encoding(text), "surrogatepass")  # as json.loads decodes bytes
        return _loads_nested(text)


def _integer(digits: str) -> int | Decimal:
    try:
        return int(digits)
    except ValueError:  # more digits than int() parses (sys.get_int_max_str_digits); numeric holds 131072
        return Decimal(digits)


def _refuse_constant(name: str) -> Any:
    raise UnrepresentableJSON(f"JSON constant {name} cannot be stored by PostgreSQL")


_WHITESPACE = re.compile(r"[ \t\n\r]*")
_LITERALS = (("null", None), ("true", True), ("false", False))
_CONSTANTS = ("NaN", "Infinity", "-Infinity")


def _loads_nested(text: str) -> Any:
    """json.loads (with loads' numbers) keeping a stack of the open containers instead of recursing.

    The same grammar and values as json.loads: whitespace is space, tab, CR and LF; strings are
    json's own scanstring (strict: raw control characters refused); a key given twice keeps its
    last value, as in json.loads and in jsonb. Malformed text raises json.JSONDecodeError.
    """
    skip = _WHITESPACE.match
    opened: list[tuple[dict[str, Any] | list[Any], str]] = []  # each open container, its pending key
    i = skip(text, 0).end()
    while True:
        char = text[i:i + 1]
        if char == "{" or char == "[":
            container: dict[str, Any] | list[Any] = {} if char == "{" else []
            i = skip(text, i + 1).end()
            if text[i:i + 1] != ("}" if char == "{" else "]"):
                key, i = _member_key(text, i) if char == "{" else ("", i)
                opened.append((container, key))
                continue
            value, i = container, i + 1
        else:
            value, i = _scalar(text, i)
        # a value is complete: it joins its container, and closes each container that ends after it
        while opened:
            container, key = opened[-1]
            if isinstance(container, list):
                container.append(value)
            else:
                container[key] = value
            i = skip(text, i).end()
            char = text[i:i + 1]
            if char == ",":
                i = skip(text, i + 1).end()
                if isinstance(container, dict):
                    key, i = _member_key(text, i)
                    opened[-1] = (container, key)
                break
            if char != ("]" if isinstance(container, list) else "}"):
                raise json.JSONDecodeError("Expecting ',' delimiter", text, i)
            opened.pop()
            value, i = container, i + 1
        else:
            i = skip(text, i).end()
            if i != len(text):
                raise json.JSONDecodeError("Extra data", text, i)
            return value


def _member_key(text: str, i: int) -> tuple[str, int]:
    """An object member's key at ``i``, and where its value starts."""
    if text[i:i + 1] != '"':
        raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, i)
    key, i = scanstring(text, i + 1, True)
    i = _WHITESPACE.match(text, i).end()
    if text[i:i + 1] != ":":
        raise json.JSONDecodeError("Expecting ':' delimiter", text, i)
    return key, _WHITESPACE.match(text, i + 1).end()


def _scalar(text: str, i: int) -> tuple[Any, int]:
    """The string, literal or number at ``i``, and where it ends."""
    if text[i:i + 1] == '"':
        return scanstring(text, i + 1, True)
    for word, value in _LITERALS:
        if text.startswith(word, i):
            return value, i + len(word)
    number = NUMBER_RE.match(text, i)
    if number:
        integer, fraction, exponent = number.groups()
        if fraction or exponent:
            return Decimal(integer + (fraction or "") + (exponent or "")), number.end()
        return _integer(integer), number.end()
    for name in _CONSTANTS:
        if text.startswith(name, i):
            _refuse_constant(name)
    raise json.JSONDecodeError("Expecting value", text, i)


def _ordered_keys(obj: dict[Any, Any]) -> Iterator[str]:
    """An object's keys in canonical order: by UTF-8 length, then by UTF-8 bytes, which is code
    point order, str's own (sorted in C: no Python call per key)."""
    try:
        return map(_SECOND, sorted(zip(map(len, map(str.encode, obj)), obj)))
    except TypeError:
        bad = next(key for key in obj if not isinstance(key, str))
        raise UnrepresentableJSON(f"object key {bad!r} is not a string") from None
    except UnicodeEncodeError as exc:
        raise UnrepresentableJSON("string holds a lone surrogate, which UTF-8 cannot encode") from exc


def _refuse_cycle(outer: list[tuple[Any, Any, Any, Any]]) -> None:
    """Raise if a container encloses itself: checked at depths 1024, 2048, ..., so a cycle is
    found by twice its length and a deep document costs its depth once more in all."""
    if len({id(container) for *_, container in outer}) < len(outer):
        raise UnrepresentableJSON("a container holds itself")


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UnrepresentableJSON("string holds a lone surrogate, which UTF-8 cannot encode") from exc


def _string(text: str) -> str:
    if not text.isascii():  # only non-ASCII text can hold a lone surrogate
        _utf8(text)
    if _NEEDS_ESCAPE.search(text) is None:  # most text: nothing to escape (nor U+0000)
        return '"' + text + '"'
    if "\x00" in text:
        raise UnrepresentableJSON("string holds U+0000, which PostgreSQL text cannot store")
    # one regex pass: a loop over the characters took ~0.5 ms per 10 kB message, this ~0.03 ms
    return '"' + _NEEDS_ESCAPE.sub(_escape, text) + '"'


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    return _SHORT_ESCAPES.get(ch) or "\\u%04x" % ord(ch)


def _decimal(number: Decimal) -> str:
    """PostgreSQL's trim_scale(numeric)::text: plain digits, no exponent or trailing zeros.

    A number beyond numeric's range (more than NUMERIC_INTEGER_DIGITS before the point or
    NUMERIC_FRACTION_DIGITS after it) raises UnrepresentableJSON, before its digits are written
    out: PostgreSQL would refuse it (22003), and 1E+1000000000 would take a gigabyte.
    """
    sign, digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)
    coefficient = "".join(map(str, digits)).lstrip("0")
    if not coefficient:
        return "0"
    if exponent < 0:  # drop trailing fractional zeros (the coefficient has a non-zero digit)
        zeros = min(len(coefficient) - len(coefficient.rstrip("0")), -exponent)
        if zeros:
            coefficient, exponent = coefficient[:-zeros], exponent + zeros
    if len(coefficient) + exponent > NUMERIC_INTEGER_DIGITS or -exponent > NUMERIC_FRACTION_DIGITS:
        raise UnrepresentableJSON(f"{number:.6E} is beyond PostgreSQL numeric's range (up to {NUMERIC_INTEGER_DIGITS} "
                                  f"digits before the point, {NUMERIC_FRACTION_DIGITS} after it)")
    if exponent >= 0:
        text = coefficient + "0" * exponent
    else:
        point = len(coefficient) + exponent
        if point > 0:
            text = coefficient[:point] + "." + coefficient[point:]
        else:
            text = "0." + "0" * (-point) + coefficient
    return "-" + text if sign else text


def genesis_hash(conversation_id: str) -> bytes:
    ident = conversation_id.encode("utf-8")
    return hashlib.sha256(GENESIS_TAG + len(ident).to_bytes(4, "big") + ident).digest()


def _event_prefix(tag: bytes, conversation_id: str, seq: int, kind: str, prev_hash: bytes) -> bytes:
    ident = conversation_id.encode("utf-8")
    kind_bytes = kind.encode("utf-8")
    return (tag + len(ident).to_bytes(4, "big") + ident + seq.to_bytes(8, "big", signed=True)
            + len(kind_bytes).to_bytes(4, "big") + kind_bytes + prev_hash)


def event_hash(conversation_id: str, seq: int, kind: str, prev_hash: bytes, canonical: str) -> bytes:
    """The chain hash of one v1 event (appended before migration 0007), given its payload's canonical text."""
    return hashlib.sha256(_event_prefix(EVENT_TAG, conversation_id, seq, kind, prev_hash)
                          + canonical.encode("utf-8")).digest()


def payload_digest(salt: bytes, canonical: str) -> bytes:
    """The salted digest a v2 event's hash binds instead of its payload."""
    return hashlib.sha256(PAYLOAD_TAG_V2 + salt + canonical.encode("utf-8")).digest()


def event_hash_v2(conversation_id: str, seq: int, kind: str, prev_hash: bytes, digest: bytes) -> bytes:
    """The chain hash of one v2 event, given its payload digest (which survives erasure)."""
    return hashlib.sha256(_event_prefix(EVENT_TAG_V2, conversation_id, seq, kind, prev_hash) + digest).digest()


# What an erased event keeps of its payload (sql/030's pgctx.erasure_kept_fields): the ids the
# side-effect ledger derives a call and its status from, never arguments, results or error texts.
ERASURE_KEPT_FIELDS: dict[str, tuple[str, ...]] = {
    "tool_call": ("call_id", "tool", "effect", "idempotency_key"),
    "tool_result": ("call_id", "outcome", "request_id"),
    "status_query": ("call_id", "outcome", "request_id"),
}
ERASURE_KEPT_TAG = b"pgctx:erasure-kept:v1"


def _kept_value(value: Any) -> bool:
    """A string or a JSON number (jsonb_typeof 'string' or 'number'): what an erased event may keep."""
    return isinstance(value, (str, int, float, Decimal)) and not isinstance(value, bool)


def erased_payload(erasure_seq: int, kind: str, payload: Any) -> dict[str, Any]:
    """sql/030's pgctx.erased_payload: the marker and the fields of ``payload`` its kind keeps.
    An erased payload is its own erased payload (how an erased row is checked without its old one)."""
    fields = ERASURE_KEPT_FIELDS.get(kind, ())
    kept = {k: v for k, v in payload.items() if k in fields and _kept_value(v)} if isinstance(payload, dict) else {}
    return {**kept, "pgctx_erased": erasure_seq}


def erasure_kept_digest(kept: dict[str, Any]) -> str | None:
    """sql/030's pgctx.erasure_kept_digest: the kept_digest an erasure event records over
    ``{str(seq): fields kept}`` of the events it erased that keep any; None when none does."""
    if not kept:
        return None
    return hashlib.sha256(ERASURE_KEPT_TAG + canonical_json(kept).encode("utf-8")).hexdigest()
