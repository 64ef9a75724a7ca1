"""pgctx.fold: the main path of article 十六, as a thin client of the SQL state machine.

1. One query reads the committed fold, the head, the unfolded tokens, the triggers (capacity,
   structural, risk) and the policy's verdict: whether a fold is due and where it ends, leaving
   the raw tail (``pgctx.fold_status``, sql/160_fold_triggers.sql; the knobs are
   :class:`pgctx.Budget`'s). When one is due, the same query reads what the summarizer needs.
2. Unless forced, nothing happens when no fold is due; a forced fold goes to the boundary nearest
   the head (no tail).
3. The summarizer gets the previous summary, only the new events and the must-keep items.
4. The candidate is prepared (every rule is checked in SQL, and its token count stored) and
   committed with compare-and-swap. A lost race re-reads: when the other fold covered what this
   one meant to fold, or none is due any more, it returns saying so; otherwise it tries again,
   up to ``attempts`` times. So is a unit completed under it: a call the request folded while it
   was waiting, whose result another session appended before the prepare, leaves the candidate's
   boundary splitting it (PC103). The last attempt holds the conversation's fold lock exclusive
   (pgctx.serialize_folds) across its read, summarizer call, prepare and commit, and every
   prepare and commit takes that lock shared, so the last attempt cannot lose a race to another
   prepare or commit, from fold() or from psql: under any number of concurrent folders fold()
   commits or says why it did not, and raises FoldConflict only with ``attempts=1`` (or if the
   table owner commits a checkpoint by a plain UPDATE meanwhile, which takes no lock).

No fold, forced or not, commits unless it makes summary + evidence + unfolded events smaller: the
database refuses one that would not (PC121), and fold() then returns ``committed`` False saying so
(the summarizer was called; the policy's estimate in step 1 avoids most such calls).

Nothing is committed unless the database accepted the candidate: a summarizer failure raises
:class:`~pgctx.errors.SummarizerFailed`, a refused candidate raises the SQL refusal's typed
exception; in both cases the committed summary and every event are as they were.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from pgctx import arguments, db
from pgctx.errors import (
    ConversationNotFound, FoldConflict, FoldGrowsContext, FoldSplitsUnit, IllegalPhaseTransition, PgctxError,
    SummarizerFailed,
)
from pgctx.fold_procedures import CommittedFold, _jsonb, make_request, summary_schema
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
    tokens_before: int = 0  # summary + evidence kept raw + unfolded events, before
    tokens_after: int = 0  # the same, after
    attempts: int = 0  # rounds of read-summarize-prepare-commit (more than 1 after a lost race)
    summarizer: str | None = None
    conflicts: list[str] = field(default_factory=list)
    policy: str = ""  # the fold policy's verdict (pgctx.fold_status.reason), or "forced"


def fold(conn: db.Connectable, conversation_id: str, *, summarizer: Summarizer | None = None,
         budget: Budget | None = None, force: bool = False, probe: Any = None,
         attempts: int = ATTEMPTS) -> FoldResult:
    """Fold a conversation's unfolded events into its summary if a fold is due (or ``force``).

    ``summarizer`` defaults to the built-in deterministic one; ``budget`` (default
    :class:`pgctx.Budget`) sets the policy (capacity threshold αB, structural floor, raw tail)
    and the token counter; ``probe``, when given, is a counterfactual probe
    (``check(request, candidate)``) run before preparing.
    On an AsyncConnection or async pool this returns an awaitable.
    """
    arguments.text("conversation_id", conversation_id)
    budget = arguments.budget(budget)
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    return db.run(conn, _fold(conversation_id, summarizer or BuiltinSummarizer(), budget,
                              force, probe, attempts))


@dataclass(frozen=True)
class _Status:
    committed: CommittedFold
    head: int
    unfolded: int
    summary_tokens: int  # the committed summary's tokens as stored (checkpoints.tokens): not re-rendered to count
    evidence: int  # tokens of the evidence kept raw beside the summary
    triggers: tuple[Trigger, ...]
    reason: str
    request: FoldRequest | None  # set when a fold is due (or forced) and there is a range to fold


def _fold(conversation_id: str, summarizer: Summarizer, budget: Budget, force: bool, probe: Any,
          attempts: int) -> db.Op[FoldResult]:
    counter = budget.counter()
    conflicts: list[str] = []
    meant = 0  # the cursor the last attempt meant to reach
    for attempt in range(1, attempts + 1):
        serialized = attempt == attempts and attempts > 1
        if serialized:
            # Last try: exclude every other prepare and commit of this conversation until done.
            yield db.Begin
            yield db.Query(db.SERIALIZE_FOLDS, (conversation_id,))
        try:
            # (re-)read: after a lost race the base, the triggers and the boundary have moved
            status = yield from _status(conversation_id, budget, force)
            committed, request = status.committed, status.request
            before = status.summary_tokens + status.evidence + status.unfolded
            seen = dict(previous_version=committed.version, previous_cursor=committed.cursor,
                        triggers=status.triggers, tokens_before=before, summarizer=summarizer.id, attempts=attempt,
                        conflicts=conflicts, policy="forced" if force else status.reason)
            if request is None or (conflicts and committed.cursor >= meant):
                if serialized:
                    yield db.End
                why = status.reason
                if conflicts:  # the fold this call meant to make was made, or made unnecessary, by another folder
                    why = (f"covered: a concurrent fold committed version {committed.version} up to event "
                           f"{committed.cursor}" if committed.cursor >= meant else
                           f"{why} (re-read after a concurrent change; committed version {committed.version})")
                return FoldResult(False, why, committed.version, committed.cursor, tokens_after=before, **seen)
            meant = request.to_seq
            candidate = yield from _summarize(summarizer, request)
            if probe is not None:
                yield db.Call(probe.check, (request, candidate))
            tokens = summary_tokens(counter, candidate, request.base_version + 1, request.to_seq)
            try:
                prepared = yield from db.first(db.Query(db.PREPARE_FOLD, (
                    conversation_id, request.base_version, request.from_seq, request.to_seq, _jsonb(candidate),
                    SCHEMA_VERSION, summarizer.id, tokens, request.horizon)))
            except FoldGrowsContext as exc:
                # the policy's estimate let it through; the exact rule (PC121) says it would not
                # shrink the context: nothing is stored, the events stay raw
                if serialized:
                    yield db.End
                return FoldResult(False, f"not committed: {exc}", committed.version, committed.cursor,
                                  tokens_after=before, **seen)
            try:
                new_cursor = yield from db.first(db.Query(db.COMMIT_FOLD, (conversation_id, prepared)))
            except IllegalPhaseTransition:
                # Already COMMITTED: a recover() (another worker's restart) re-checked this
                # candidate between the prepare and the commit and committed it. The fold this
                # call made is committed, once. (Not when serialized: recover waits for the lock.)
                new_cursor = request.to_seq
            if serialized:
                yield db.End
        except (FoldConflict, FoldSplitsUnit) as exc:
            # FoldSplitsUnit: the boundary was whole when read (sql/160 fold_boundary) and an
            # append has since completed a unit across it (a result, a retraction): re-read
            if serialized:
                yield db.End  # keep what the database recorded (the candidate was discarded)
            conflicts.append(str(exc))
            if attempt == attempts:
                raise
            continue
        # the events after the new cursor are the ones that were unfolded and not folded now; the
        # evidence is the new fold's (some folded events may have become evidence)
        after_unfolded = status.unfolded - sum(e.tokens or 0 for e in request.events)
        evidence = yield from db.first(db.Query(db.EVIDENCE_TOKENS, (conversation_id,)))
        if (prepared, new_cursor) != (request.base_version + 1, request.to_seq):  # a discarded candidate took a version
            tokens = summary_tokens(counter, candidate, prepared, new_cursor)
        after = tokens + evidence + after_unfolded
        return FoldResult(True, "committed", prepared, new_cursor, tokens_after=after, **seen)
    raise AssertionError("unreachable")


def _status(conversation_id: str, budget: Budget, force: bool) -> db.Op[_Status]:
    """The committed fold, head, unfolded tokens, triggers, the policy's reason and, if a fold is
    due (or forced), its request."""
    # a forced fold weighs every trigger (no floor), so fold_status computes them and the boundary
    rows = yield db.Query(db.FOLD_STATUS, dict(c=conversation_id, capacity=budget.threshold,
                                               floor=None if force else budget.floor,
                                               tail=budget.tail, force=force, sv=SCHEMA_VERSION,
                                               hz=budget.horizon))
    if not rows or rows[0][0] is None:
        raise ConversationNotFound.of(conversation_id)
    version, cursor, head, unfolded, evidence, triggers, _due, reason, stored, summary, hi, keep, events = rows[0]
    committed = CommittedFold(version, cursor, summary)  # (summary None unless a fold is due or forced)
    # (no triggers computed: under the floor and the threshold nothing can be due, sql/160)
    parsed = tuple(Trigger(t["class"], t["reason"], tuple(t["evidence"] or ())) for t in triggers or ())
    request = None if keep is None else make_request(conversation_id, committed, hi, keep, events,
                                                     summary_schema(), budget, budget.horizon)
    return _Status(committed, head, unfolded, stored, evidence, parsed, reason, request)


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
