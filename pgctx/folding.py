"""pgctx.fold: the main path of article 十六, as a thin client of the SQL state machine.

1. One query reads the committed fold, the head, the boundary a fold may end at (atomic units
   whole, calls still waiting left raw), the unfolded tokens H and the triggers (capacity when
   H > αB, structural, risk), all derived in SQL (sql/160_fold_triggers.sql).
2. Unless forced, nothing happens when no trigger fired.
3. The summarizer gets the previous summary, only the new events and the must-keep items.
4. The candidate is prepared (every rule is checked in SQL) and committed with compare-and-swap.
   A lost race re-reads and tries again, up to ``attempts`` times; the last attempt holds a
   transaction-scoped lock on the conversation's folds (pgctx.serialize_folds) so concurrent
   folders queue instead of spinning.

Nothing is committed unless the database accepted the candidate: a summarizer failure raises
:class:`~pgctx.errors.SummarizerFailed`, a refused candidate raises the SQL refusal's typed
exception; in both cases the committed summary and every event are as they were.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from pgctx import db
from pgctx.errors import ConversationNotFound, FoldConflict, PgctxError, SummarizerFailed
from pgctx.folds import CommittedFold, _jsonb, make_request, summary_schema
from pgctx.messages import summary_message, task_message
from pgctx.summarizers import BuiltinSummarizer, FoldRequest, Summarizer
from pgctx.summary import SCHEMA_VERSION, dump
from pgctx.tokens import Budget, TokenCounter

ATTEMPTS = 3


@dataclass(frozen=True)
class Trigger:
    cls: str  # capacity | structural | risk
    reason: str
    evidence: tuple[int, ...] = ()


@dataclass(frozen=True)
class FoldResult:
    """What pgctx.fold did. ``committed`` False with ``reason`` when there was nothing to do."""

    committed: bool
    reason: str
    version: int  # the committed version after the call
    cursor: int
    previous_version: int
    previous_cursor: int
    triggers: tuple[Trigger, ...] = ()
    tokens_before: int = 0  # summary + unfolded events, before
    tokens_after: int = 0  # summary + unfolded events, after
    attempts: int = 0  # rounds of read-summarize-prepare-commit (more than 1 after a lost race)
    summarizer: str | None = None
    conflicts: list[str] = field(default_factory=list)


def fold(conn: db.Connectable, conversation_id: str, *, summarizer: Summarizer | None = None,
         budget: Budget | None = None, force: bool = False, probe: Any = None,
         attempts: int = ATTEMPTS) -> FoldResult:
    """Fold a conversation's unfolded events into its summary if a fold is due (or ``force``).

    ``summarizer`` defaults to the built-in deterministic one; ``budget`` (default
    :class:`pgctx.Budget`) sets the capacity threshold αB and the token counter; ``probe``, when
    given, is a counterfactual probe (``check(request, candidate)``) run before preparing.
    On an AsyncConnection or async pool this returns an awaitable.
    """
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    return db.run(conn, _fold(conversation_id, summarizer or BuiltinSummarizer(), budget or Budget(),
                              force, probe, attempts))


def _fold(conversation_id: str, summarizer: Summarizer, budget: Budget, force: bool, probe: Any,
          attempts: int) -> db.Op[FoldResult]:
    counter = budget.counter()
    conflicts: list[str] = []
    for attempt in range(1, attempts + 1):
        serialized = attempt == attempts and attempts > 1
        if serialized:
            # Last try: queue behind other folders of this conversation instead of racing them.
            yield db.Begin
            yield db.Query(db.SERIALIZE_FOLDS, (conversation_id,))
        try:
            # (re-)read: after a lost race the base, the triggers and the boundary have moved
            committed, head, boundary, unfolded, triggers, request = yield from _status(conversation_id, budget, force)
            version, cursor = committed.version, committed.cursor
            before = summary_tokens(counter, committed.summary, version, cursor) + unfolded
            seen = dict(previous_version=version, previous_cursor=cursor, triggers=triggers, tokens_before=before,
                        summarizer=summarizer.id, attempts=attempt, conflicts=conflicts)
            if request is None:  # the database found no fold due (no trigger and not forced, or no boundary)
                if not triggers and not force:
                    why = "not due: no capacity, structural or risk trigger"
                    if conflicts:  # the fold this call meant to make was made by another folder
                        why = f"not due after a concurrent fold committed version {version}: no trigger left"
                else:
                    why = ("nothing to fold: no events after the committed cursor" if head <= cursor else
                           f"no boundary after cursor {cursor} keeps atomic units whole "
                           "(a tool call is still waiting for its result)")
                if serialized:
                    yield db.End
                return FoldResult(False, why, version, cursor, tokens_after=before, **seen)
            candidate = yield from _summarize(summarizer, request)
            if probe is not None:
                yield db.Call(probe.check, (request, candidate))
            prepared = yield from db.first(db.Query(db.PREPARE_FOLD, (
                conversation_id, request.base_version, request.from_seq, request.to_seq, _jsonb(candidate),
                SCHEMA_VERSION, summarizer.id)))
            new_cursor = yield from db.first(db.Query(db.COMMIT_FOLD, (conversation_id, prepared)))
            if serialized:
                yield db.End
        except FoldConflict as exc:
            if serialized:
                yield db.End  # keep what the database recorded (the candidate was discarded)
            conflicts.append(str(exc))
            if attempt == attempts:
                raise
            continue
        # the events after the new cursor are the ones that were unfolded and not folded now
        after_unfolded = unfolded - sum(e.tokens or 0 for e in request.events)
        after = summary_tokens(counter, candidate, prepared, new_cursor) + after_unfolded
        return FoldResult(True, "committed", prepared, new_cursor, tokens_after=after, **seen)
    raise AssertionError("unreachable")


def _status(conversation_id: str, budget: Budget, force: bool) -> db.Op[tuple[Any, ...]]:
    """The committed fold, head, boundary, unfolded tokens, triggers and, if a fold is due, its request."""
    rows = yield db.Query(db.FOLD_STATUS, dict(c=conversation_id, capacity=budget.threshold, force=force))
    if not rows or rows[0][0] is None:
        raise ConversationNotFound.of(conversation_id)
    version, cursor, head, boundary, unfolded, triggers, summary, keep, events = rows[0]
    committed = CommittedFold(version, cursor, summary)
    parsed = tuple(Trigger(t["class"], t["reason"], tuple(t["evidence"] or ())) for t in triggers)
    request = None if keep is None else make_request(conversation_id, committed, boundary, keep, events,
                                                     summary_schema())
    return committed, head, boundary, unfolded, parsed, request


def _summarize(summarizer: Summarizer, request: FoldRequest) -> db.Op[dict[str, Any]]:
    try:
        candidate = yield db.Call(summarizer.summarize, (request,))
    except PgctxError:
        raise
    except Exception as exc:  # a custom summarizer's own failure: say so, commit nothing
        raise SummarizerFailed(f"summarizer {summarizer.id} failed: {type(exc).__name__}", reason="error") from exc
    if isinstance(candidate, BaseModel):
        return dump(candidate)
    if not isinstance(candidate, dict):
        raise SummarizerFailed(f"summarizer {summarizer.id} returned {type(candidate).__name__}, not a summary",
                               reason="malformed")
    return candidate


def summary_tokens(counter: TokenCounter, summary: dict[str, Any] | None, version: int, cursor: int) -> int:
    """Tokens of a summary as the working context shows it: task state and summary (0 for none)."""
    if not summary:
        return 0
    return (counter.message_tokens(task_message(summary))
            + counter.message_tokens(summary_message(summary, version, cursor)))
