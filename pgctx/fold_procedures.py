"""Folds as stored procedures: thin calls of sql/100_fold.sql and sql/110_recover.sql.

Every rule (continuity, atomic units, schema, sources, tool consistency, must-keep items,
compare-and-swap) is enforced in SQL; these functions pass values and map errors.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from psycopg.types.json import Jsonb
from pydantic import BaseModel

from pgctx import arguments, db
from pgctx.canonical import transport_json
from pgctx.errors import ConversationNotFound
from pgctx.summarizers import Event, FoldRequest
from pgctx.summary import SCHEMA_VERSION, dump, json_schema
from pgctx.tokens import Budget


def _jsonb(value: dict[str, Any] | None) -> Jsonb | None:
    return None if value is None else Jsonb(value, dumps=transport_json)


@dataclass(frozen=True)
class CommittedFold:
    """A conversation's committed fold: version 0 before the first, at cursor 0 (or a branch's fork
    point, continuing from its source's summary)."""

    version: int
    cursor: int
    summary: dict[str, Any] | None


def committed_fold(conn: db.Connectable, conversation_id: str) -> CommittedFold:
    arguments.text("conversation_id", conversation_id)
    return db.run(conn, _committed_fold(conversation_id))


def _committed_fold(conversation_id: str) -> db.Op[CommittedFold]:
    rows = yield db.Query(db.COMMITTED_FOLD, (conversation_id,))
    if not rows or rows[0][0] is None:
        raise ConversationNotFound.of(conversation_id)
    return CommittedFold(*rows[0])


def prepare_fold(
    conn: db.Connectable,
    conversation_id: str,
    *,
    expected_version: int,
    expected_cursor: int,
    new_cursor: int,
    summary: BaseModel | dict[str, Any],
    schema_version: int = SCHEMA_VERSION,
    summarizer: str | None = None,
    tokens: int | None = None,
    horizon: int | None = None,
) -> int:
    """Validate and store a candidate summary PREPARED; returns its version.

    ``tokens`` is the summary's token count as the working context shows it (see
    :func:`pgctx.fold_loop.summary_tokens`), stored for the fold policy and weighed by the rule that
    a fold makes the context smaller (PC121); None: the database estimates it from the summary's
    JSON (``pgctx.estimated_tokens``: bytes / 4). ``horizon`` is the one the candidate's must-keep
    items were derived with (``FoldRequest.horizon``; None: the default, 12)."""
    arguments.text("conversation_id", conversation_id)
    params = (conversation_id, expected_version, expected_cursor, new_cursor, _jsonb(dump(summary)),
              schema_version, summarizer, tokens, horizon)
    return db.run(conn, db.first(db.Query(db.PREPARE_FOLD, params)))


def commit_fold(conn: db.Connectable, conversation_id: str, version: int) -> int:
    """Compare-and-swap commit of a PREPARED fold; returns the new cursor (FoldConflict if it lost)."""
    arguments.text("conversation_id", conversation_id)
    return db.run(conn, db.first(db.Query(db.COMMIT_FOLD, (conversation_id, version))))


def discard_fold(conn: db.Connectable, conversation_id: str, version: int, reason: str) -> None:
    db.run(conn, db.rows(db.Query(db.DISCARD_FOLD, (conversation_id, version, reason))))


def recover(conn: db.Connectable, conversation_id: str, *, full_check: bool = False) -> dict[str, Any]:
    """pgctx.recover: deterministic, idempotent; returns its report (``changed`` False on a rerun).

    The chain is verified from the last point recovery verified; ``full_check`` verifies it from
    genesis, which also finds edits below that point that left the stored hashes alone.
    """
    arguments.text("conversation_id", conversation_id)
    return db.run(conn, db.first(db.Query(db.RECOVER, (conversation_id, full_check))))


def must_keep(conn: db.Connectable, conversation_id: str, from_seq: int, to_seq: int,
              previous: dict[str, Any] | None = None, schema_version: int = SCHEMA_VERSION,
              horizon: int | None = None) -> dict[str, Any]:
    """What a summary (of ``schema_version``) of events from_seq+1..to_seq continuing ``previous``
    must keep (derived in SQL; ``horizon``: the resolved writes kept in full, None: 12)."""
    return db.run(conn, db.first(db.Query(db.MUST_KEEP, (conversation_id, from_seq, to_seq, _jsonb(previous),
                                                         schema_version, horizon))))


def fold_violations(
    conn: db.Connectable,
    conversation_id: str,
    *,
    base_version: int,
    base_cursor: int,
    new_cursor: int,
    summary: BaseModel | dict[str, Any],
    schema_version: int = SCHEMA_VERSION,
    tokens: int | None = None,
    horizon: int | None = None,
) -> list[tuple[str, str]]:
    """Every (sqlstate, message) prepare_fold would refuse this candidate for; empty if none
    (``tokens`` and ``horizon`` as for prepare_fold)."""
    params = (conversation_id, base_version, base_cursor, new_cursor, _jsonb(dump(summary)), schema_version, tokens,
              horizon)
    return db.run(conn, db.rows(db.Query(db.FOLD_VIOLATIONS, params)))


def fold_request(conn: db.Connectable, conversation_id: str, new_cursor: int | None = None,
                 schema_version: int = SCHEMA_VERSION, horizon: int | None = None) -> FoldRequest:
    """What a summarizer needs to fold the committed cursor+1 .. new_cursor (default: the head),
    its must-keep items derived with ``horizon`` (None: the default; pass the request's to
    prepare_fold)."""
    return db.run(conn, fold_request_op(conversation_id, new_cursor, schema_version, horizon))


def fold_request_op(conversation_id: str, new_cursor: int | None = None,
                    schema_version: int = SCHEMA_VERSION, horizon: int | None = None) -> db.Op[FoldRequest]:
    # one transaction, so the committed fold, the head and what the request reads agree
    yield db.Begin
    rows = yield db.Query(db.COMMITTED_FOLD, (conversation_id,))
    heads = yield db.Query(db.HEAD_SEQ, (conversation_id,))
    if not rows or rows[0][0] is None or not heads:
        raise ConversationNotFound.of(conversation_id)
    version, cursor, summary = rows[0]
    (head,) = heads[0]
    request = yield from fold_input_op(conversation_id, CommittedFold(version, cursor, summary),
                                       head if new_cursor is None else new_cursor, schema_version, horizon)
    yield db.End
    return request


def fold_input_op(conversation_id: str, base: CommittedFold, to_seq: int,
                  schema_version: int = SCHEMA_VERSION, horizon: int | None = None) -> db.Op[FoldRequest]:
    """The request for folding base.cursor+1 .. to_seq onto the committed fold ``base``.

    One statement: the events and the must-keep items (derived in SQL from base's summary, read
    there by version). Both are functions of immutable events, so they agree with ``base`` even
    when another fold commits meanwhile (that fold's commit then makes this one's a conflict).
    """
    keep, events = db.one((yield db.Query(db.FOLD_INPUT, dict(c=conversation_id, lo=base.cursor, hi=to_seq,
                                                              v=base.version, sv=schema_version,
                                                              hz=horizon))))
    schema = summary_schema() if schema_version == SCHEMA_VERSION else \
        (yield from db.first(db.Query(db.SUMMARY_SCHEMA, (schema_version,))))
    return make_request(conversation_id, base, to_seq, keep, events, schema, horizon=horizon)


def make_request(conversation_id: str, base: CommittedFold, to_seq: int, keep: dict[str, Any],
                 events: list[list[Any]] | None, schema: dict[str, Any], budget: Budget | None = None,
                 horizon: int | None = None) -> FoldRequest:
    """A FoldRequest from what db.FOLD_INPUT (or db.FOLD_STATUS) read."""
    return FoldRequest(conversation_id, base.cursor, to_seq, base.summary, [Event(*e) for e in events or ()], keep,
                       schema, base_version=base.version, budget=budget, horizon=horizon)


def summary_schema() -> dict[str, Any]:
    """The JSON Schema of this package's SCHEMA_VERSION, as the database registered it
    (tests/test_folds.py::test_registered_schema_is_the_model_schema). Generated once (~2 ms);
    each request gets its own copy (parsed from the cached text: 5x faster than deepcopy), which
    its summarizer may change."""
    return json.loads(_registered_schema_text())


@functools.cache
def _registered_schema_text() -> str:
    return json.dumps(json_schema(SCHEMA_VERSION))
