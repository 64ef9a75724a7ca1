"""Audit bundles: a conversation's events exported as JSON lines, verified with no database.

Format (one JSON object per line, UTF-8, lines end with "\\n" only):

* line 1, the header: ``{"format": "pgctx-bundle", "version": 2, "conversation_id", "tenant",
  "genesis_hash", "head_seq", "head_hash", "base_seq", "forked_from", "exported_at"}``;
* then one line per event in seq order: ``{"seq", "kind", "event_key", "prev_hash", "hash",
  "created_at", "salt", "payload_digest", "erased_in", "payload"}``, hashes, salt and digest in
  hex (salt and digest null for a chain format v1 event, salt null once erased; erased_in the seq
  of the erasure event that erased it, or null). ``payload`` is written exactly as PostgreSQL
  prints it, so numbers keep every digit. Version 1 bundles (before erasure existed: no salt,
  digest or erased_in) are read as v1 events.

The verifier recomputes the genesis from the conversation id (a branch's genesis is its source's
hash at the fork point: verify the source's bundle to prove it) and every hash with
:mod:`pgctx.canonical`, the byte-for-byte Python twin of the SQL canonical form, checks erasures
as ``pgctx.verify_chain`` does (an erased event carries the marker and the ids its kind keeps, no
salt, and is listed by its erasure event; every listed event is erased; the kept ids match the
erasure's kept_digest) and reports the first bad seq and, when consistent,
each erasure, in the same words. Payloads are read and canonicalised without recursion, so any
depth the database stores verifies here too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from pgctx import db
from pgctx.canonical import (canonical_json, erased_payload, erasure_kept_digest, event_hash, event_hash_v2,
                             genesis_hash, loads, payload_digest)
from pgctx.errors import BundleError, ConversationNotFound, PgctxError
from pgctx.eventlog import ChainReport

FORMAT = "pgctx-bundle"
VERSION = 2
READABLE = (1, 2)


def export_bundle(conn: db.Connectable, conversation_id: str, out: IO[str]) -> int:
    """Write ``conversation_id``'s bundle to ``out``; returns the number of events written."""
    found, written = False, 0
    with db.transaction(conn) as c, c.cursor(name="pgctx_export") as cur:
        cur.itersize = 1000  # a server-side cursor streams long conversations in pages
        cur.execute(db.EXPORT, (conversation_id,))
        for (tenant, genesis, head_seq, head_hash, base_seq, forked_from,
             seq, kind, event_key, prev_hash, hash_, created_at, salt, digest, erased_in, payload) in cur:
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
                 "hash": hash_, "created_at": created_at.isoformat(), "salt": salt, "payload_digest": digest,
                 "erased_in": erased_in},
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


def _field(record: dict[str, Any], name: str, kind: type, number: int, optional: bool = False) -> Any:
    value = record.get(name)
    if optional and value is None:
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BundleError(f"bundle line {number}: {name!r} must be a {kind.__name__}, got {value!r:.60}")
    return value


def _hex(record: dict[str, Any], name: str, number: int, optional: bool = False) -> bytes | None:
    value = _field(record, name, str, number, optional)
    try:
        return None if value is None else bytes.fromhex(value)
    except ValueError as exc:
        raise BundleError(f"bundle line {number}: {name!r} is not hex") from exc


def _hash_ok(conversation_id: str, seq: int, kind: str, prev: bytes, payload: dict[str, Any],
             salt: bytes | None, digest: bytes | None, erased: bool, stored: bytes) -> bool:
    """verify_chain's hash test (sql/050): v1 over the payload (unprovable once erased), v2 over
    the digest, and the digest over salt and payload while the event holds them."""
    if digest is None:
        return erased or event_hash(conversation_id, seq, kind, prev, canonical_json(payload)) == stored
    return event_hash_v2(conversation_id, seq, kind, prev, digest) == stored and (
        erased or (salt is not None and payload_digest(salt, canonical_json(payload)) == digest))


def _erasures_said(records: list[tuple[int, dict[str, Any]]], v1_erased: int) -> str:
    """What a consistent report says about erasures, in verify_chain's words."""
    said = "; ".join(f"{p.get('count')} event{'' if p.get('count') == 1 else 's'} erased on "
                     f"{str(p.get('erased_at'))[:10]} by {p.get('erased_by')} (erasure at seq {seq})" for seq, p in records)
    if v1_erased:
        said += (f"; {v1_erased} of them in chain format v1: their place in the chain is proven, "
                 "their kind and content no longer are")
    return "; " + said


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
    if header.get("format") != FORMAT or header.get("version") not in READABLE:
        raise BundleError(f"not a {FORMAT} file of version {' or '.join(map(str, READABLE))}")
    conversation_id = _field(header, "conversation_id", str, 1)
    head_seq = _field(header, "head_seq", int, 1)
    head_hash = _field(header, "head_hash", str, 1)

    erasures: list[tuple[int, dict[str, Any]]] = []  # (seq, payload) of each erasure event
    erased: dict[int, int] = {}  # erased seq -> the erasure that claims it, until that erasure lists it
    kept: dict[int, dict[str, Any]] = {}  # erased seq -> the ids it keeps (sql/030), if any, until listed
    v1_erased = 0

    def report(ok: bool, checked: int, bad: int | None, reason: str, anchored: bool = False) -> ChainReport:
        if ok and erasures:
            reason += _erasures_said(erasures, v1_erased)
        listed = sum(int(p.get("count") or 0) for _, p in erasures)
        return ChainReport(conversation_id, ok, checked, bad, reason, head_seq, head_hash, anchored, listed)

    if header.get("forked_from") is None:
        prior_seq, prior_hash = 0, genesis_hash(conversation_id)
    else:  # a branch starts from its source's hash at the fork point, which only the source proves
        prior_seq = _field(header, "base_seq", int, 1)
        prior_hash = bytes.fromhex(_field(header, "genesis_hash", str, 1))
    # a branch's digest taken at its fork point holds its genesis, the source's hash there
    hashes = {prior_seq: prior_hash} if header.get("forked_from") is not None else {}
    checked = 0
    for number, line in enumerate(lines, start=2):
        event = _parse(line, number)
        seq = _field(event, "seq", int, number)
        kind = _field(event, "kind", str, number)
        payload = _field(event, "payload", dict, number)
        checked += 1
        stored_prev = _hex(event, "prev_hash", number)
        stored = _hex(event, "hash", number)
        salt = _hex(event, "salt", number, optional=True)
        digest = _hex(event, "payload_digest", number, optional=True)
        erased_in = _field(event, "erased_in", int, number, optional=True)
        if seq != prior_seq + 1:
            return report(False, checked, prior_seq + 1, f"event seq {prior_seq + 1} is missing (next present is {seq})")
        if stored_prev != prior_hash:
            return report(False, checked, seq, f"prev_hash of seq {seq} is not the hash of seq {seq - 1}")
        if not _hash_ok(conversation_id, seq, kind, stored_prev, payload, salt, digest, erased_in is not None, stored):
            return report(False, checked, seq, f"hash of seq {seq} does not match its content, kind, position or conversation")
        if erased_in is not None:
            if salt is not None or payload != erased_payload(erased_in, kind, payload) or erased_in <= seq:
                return report(False, checked, seq, f"seq {seq} is marked erased by seq {erased_in}, but that erasure "
                                                   "does not list it or the event still holds content or a salt")
            erased[seq] = erased_in
            if len(payload) > 1:  # (what it keeps: checked just above to be all it holds)
                kept[seq] = {k: v for k, v in payload.items() if k != "pgctx_erased"}
            v1_erased += digest is None
        if kind == "erasure" and erased_in is None:
            erasures.append((seq, payload))
            listed = [q for lo, hi in payload.get("seqs") or [] for q in range(int(lo), int(hi) + 1)]
            unerased = [q for q in listed if erased.get(q) != seq]
            if unerased:
                return report(False, checked, min(unerased), f"an erasure lists seq {min(unerased)}, which still holds its content")
            # the ids its erased events keep are the ones it recorded (verify_chain's kept_ok)
            if erasure_kept_digest({str(q): kept.pop(q) for q in listed if q in kept}) != payload.get("kept_digest"):
                return report(False, checked, seq, f"the ids the events erased by seq {seq} keep (call ids, outcomes) "
                                                   "are not the ones it recorded")
            for q in listed:
                del erased[q]
        prior_seq, prior_hash = seq, stored
        if anchor_seq == seq:
            hashes[seq] = stored

    if erased:  # erased events that no erasure listed
        seq = min(erased)
        return report(False, checked, seq, f"seq {seq} is marked erased by seq {erased[seq]}, but that erasure "
                                           "does not list it or the event still holds content or a salt")
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
