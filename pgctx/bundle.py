"""Audit bundles: a conversation's events exported as JSON lines, verified with no database.

Format (one JSON object per line, UTF-8, lines end with "\\n" only):

* line 1, the header: ``{"format": "pgctx-bundle", "version": 1, "conversation_id", "tenant",
  "genesis_hash", "head_seq", "head_hash", "base_seq", "forked_from", "exported_at"}``;
* then one line per event in seq order: ``{"seq", "kind", "event_key", "prev_hash", "hash",
  "created_at", "payload"}``, hashes in hex. ``payload`` is written exactly as PostgreSQL prints
  it, so numbers keep every digit.

The verifier recomputes the genesis from the conversation id (a branch's genesis is its source's
hash at the fork point: verify the source's bundle to prove it) and every hash with
:mod:`pgctx.canonical`, the byte-for-byte Python twin of the SQL canonical form, and reports the
first bad seq the way ``pgctx.verify_chain`` does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from pgctx import db
from pgctx.canonical import canonical_json, event_hash, genesis_hash, loads
from pgctx.errors import BundleError, ConversationNotFound, PgctxError
from pgctx.eventlog import ChainReport

FORMAT = "pgctx-bundle"
VERSION = 1


def export_bundle(conn: db.Connectable, conversation_id: str, out: IO[str]) -> int:
    """Write ``conversation_id``'s bundle to ``out``; returns the number of events written."""
    found, written = False, 0
    with db.transaction(conn) as c, c.cursor(name="pgctx_export") as cur:
        cur.itersize = 1000  # a server-side cursor streams long conversations in pages
        cur.execute(db.EXPORT, (conversation_id,))
        for (tenant, genesis, head_seq, head_hash, base_seq, forked_from,
             seq, kind, event_key, prev_hash, hash_, created_at, payload) in cur:
            if not found:
                found = True
                header = {
                    "format": FORMAT,
                    "version": VERSION,
                    "conversation_id": conversation_id,
                    "tenant": tenant,
                    "genesis_hash": genesis,
                    "head_seq": head_seq,
                    "head_hash": head_hash,
                    "base_seq": base_seq,
                    "forked_from": forked_from,
                    "exported_at": datetime.now(timezone.utc).isoformat(),
                }
                out.write(json.dumps(header, ensure_ascii=False) + "\n")
            if seq is None:  # a conversation row with no events (only a tampered log has one)
                continue
            head = json.dumps(
                {"seq": seq, "kind": kind, "event_key": event_key, "prev_hash": prev_hash,
                 "hash": hash_, "created_at": created_at.isoformat()},
                ensure_ascii=False,
            )
            out.write(head[:-1] + ', "payload": ' + payload + "}\n")
            written += 1
    if not found:
        raise ConversationNotFound.of(conversation_id)
    return written


def _lines(source: str | Path | Iterable[bytes]) -> Iterable[bytes]:
    if isinstance(source, (str, Path)):
        with open(source, "rb") as fh:
            # split on b"\n" only: U+2028 and friends may legally sit inside JSON strings
            for line in fh.read().split(b"\n"):
                if line.strip():
                    yield line
    else:
        yield from (line for line in source if line.strip())


def _parse(line: bytes, number: int) -> dict[str, Any]:
    try:
        value = loads(line.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, PgctxError):
            raise
        raise BundleError(f"bundle line {number} is not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise BundleError(f"bundle line {number} is not a JSON object")
    return value


def _field(record: dict[str, Any], name: str, kind: type, number: int) -> Any:
    value = record.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BundleError(f"bundle line {number}: {name!r} must be a {kind.__name__}, got {value!r:.60}")
    return value


def verify_bundle(
    source: str | Path | Iterable[bytes],
    *,
    anchor_seq: int | None = None,
    anchor_hash: str | None = None,
) -> ChainReport:
    """Verify a bundle file (or its lines as bytes) offline; optionally against a digest anchor."""
    lines = iter(_lines(source))
    try:
        header = _parse(next(lines), 1)
    except StopIteration:
        raise BundleError("bundle is empty") from None
    if header.get("format") != FORMAT or header.get("version") != VERSION:
        raise BundleError(f"not a {FORMAT} v{VERSION} file")
    conversation_id = _field(header, "conversation_id", str, 1)
    head_seq = _field(header, "head_seq", int, 1)
    head_hash = _field(header, "head_hash", str, 1)

    def report(ok: bool, checked: int, bad: int | None, reason: str, anchored: bool = False) -> ChainReport:
        return ChainReport(conversation_id, ok, checked, bad, reason, head_seq, head_hash, anchored)

    if header.get("forked_from") is None:
        prior_seq, prior_hash = 0, genesis_hash(conversation_id)
    else:  # a branch starts from its source's hash at the fork point, which only the source proves
        prior_seq = _field(header, "base_seq", int, 1)
        prior_hash = bytes.fromhex(_field(header, "genesis_hash", str, 1))
    hashes: dict[int, bytes] = {}
    checked = 0
    for number, line in enumerate(lines, start=2):
        event = _parse(line, number)
        seq = _field(event, "seq", int, number)
        kind = _field(event, "kind", str, number)
        payload = _field(event, "payload", dict, number)
        checked += 1
        try:
            stored_prev = bytes.fromhex(_field(event, "prev_hash", str, number))
            stored = bytes.fromhex(_field(event, "hash", str, number))
        except ValueError as exc:
            raise BundleError(f"bundle line {number}: a hash is not hex") from exc
        if seq != prior_seq + 1:
            return report(False, checked, prior_seq + 1, f"event seq {prior_seq + 1} is missing (next present is {seq})")
        if stored_prev != prior_hash:
            return report(False, checked, seq, f"prev_hash of seq {seq} is not the hash of seq {seq - 1}")
        computed = event_hash(conversation_id, seq, kind, stored_prev, canonical_json(payload))
        if computed != stored:
            return report(False, checked, seq, f"hash of seq {seq} does not match its content, kind, position or conversation")
        prior_seq, prior_hash = seq, stored
        if anchor_seq == seq:
            hashes[seq] = stored

    if head_seq != prior_seq or head_hash != prior_hash.hex():
        return report(False, checked, min(head_seq, prior_seq) + 1,
                      f"header records head seq {head_seq} but the events end at seq {prior_seq}")
    if anchor_seq is not None:
        if anchor_seq > prior_seq:
            return report(False, checked, prior_seq + 1,
                          f"history truncated: the digest records seq {anchor_seq} but the log ends at seq {prior_seq}")
        if anchor_hash is None or hashes.get(anchor_seq, b"").hex() != anchor_hash.lower():
            return report(False, checked, anchor_seq,
                          f"history rewritten: hash at seq {anchor_seq} differs from the digest (the change is at or before it)")
        return report(True, checked, None, f"consistent, anchored at seq {anchor_seq}", anchored=True)
    return report(True, checked, None, "consistent, unanchored")
