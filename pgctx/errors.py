"""pgctx exceptions: one class per SQLSTATE of class PC (see sql/001_errors.sql).

The single translation boundary is :func:`translated`: every call into the database goes through
it, and a PostgreSQL error whose SQLSTATE is one of ours becomes the matching exception, raised
``from`` the original psycopg error. Nothing here parses message text.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import psycopg


class PgctxError(Exception):
    """Base class of every pgctx error. ``sqlstate`` is the PostgreSQL code, when there is one."""

    sqlstate: str | None = None

    def __init__(self, message: str, *, detail: str | None = None, hint: str | None = None):
        super().__init__(message)
        self.detail = detail
        self.hint = hint


class InvalidConversationId(PgctxError):
    sqlstate = "PC001"


class UnknownEventKind(PgctxError):
    sqlstate = "PC002"


class InvalidPayload(PgctxError):
    sqlstate = "PC003"


class PayloadTooLarge(PgctxError):
    sqlstate = "PC004"


class EventKeyConflict(PgctxError):
    sqlstate = "PC005"


class AppendOnlyViolation(PgctxError):
    sqlstate = "PC006"


class UnrepresentableJSON(PgctxError, ValueError):
    sqlstate = "PC007"


class UnknownTenant(PgctxError):
    sqlstate = "PC008"


class AmbiguousTenant(PgctxError):
    sqlstate = "PC009"


class TenantDenied(PgctxError):
    sqlstate = "PC010"


class ConversationImmutable(PgctxError):
    sqlstate = "PC011"


class UnsupportedEncoding(PgctxError):
    sqlstate = "PC012"


class InvalidEventKey(PgctxError):
    sqlstate = "PC013"


class ConversationNotFound(PgctxError):
    sqlstate = "PC014"

    @classmethod
    def of(cls, conversation_id: str) -> ConversationNotFound:
        """The error for a conversation the caller cannot see, raised on the Python side."""
        return cls(f"no conversation {conversation_id!r} (or not visible to this role)")


class InvalidVerifyRange(PgctxError):
    sqlstate = "PC015"


class BranchAbandoned(PgctxError):
    sqlstate = "PC016"


class InvalidErasure(PgctxError):
    sqlstate = "PC017"


class ReservedEventKind(PgctxError):
    sqlstate = "PC018"


class InvalidRetentionPolicy(PgctxError):
    sqlstate = "PC019"


class FoldConflict(PgctxError):
    sqlstate = "PC100"


class FoldNotContinuous(PgctxError):
    sqlstate = "PC101"


class FoldBeyondHead(PgctxError):
    sqlstate = "PC102"


class FoldSplitsUnit(PgctxError):
    sqlstate = "PC103"


class SummarySchemaViolation(PgctxError):
    sqlstate = "PC104"


class UnknownSchemaVersion(PgctxError):
    sqlstate = "PC105"


class SourceCoverage(PgctxError):
    sqlstate = "PC106"


class ToolStateContradiction(PgctxError):
    sqlstate = "PC107"


class MustKeepMissing(PgctxError):
    sqlstate = "PC108"


class UnsupportedOverride(PgctxError):
    sqlstate = "PC109"


class ChainBroken(PgctxError):
    sqlstate = "PC110"


class FoldNotFound(PgctxError):
    sqlstate = "PC111"


class IllegalPhaseTransition(PgctxError):
    sqlstate = "PC112"


class CheckpointRetention(PgctxError):
    sqlstate = "PC113"


class InvalidSummarySchema(PgctxError):
    sqlstate = "PC114"


class InvalidRetention(PgctxError):
    sqlstate = "PC115"


class ForkNotAtFold(PgctxError):
    sqlstate = "PC116"


class ConversationExists(PgctxError):
    sqlstate = "PC117"


class NotABranch(PgctxError):
    sqlstate = "PC118"


class CitesErasedEvent(PgctxError):
    sqlstate = "PC119"


class FoldHidesContent(PgctxError):
    sqlstate = "PC120"


class FoldGrowsContext(PgctxError):
    sqlstate = "PC121"


class InvalidFoldHorizon(PgctxError):
    sqlstate = "PC122"


class BundleError(PgctxError):
    """An audit bundle or digest file is malformed (raised by the offline tools, no SQLSTATE)."""


class SummarizerFailed(PgctxError):
    """The summarizer gave no usable candidate; nothing was prepared or committed (no SQLSTATE).

    ``reason`` is one of: ``timeout``, ``rate_limited``, ``server_error``, ``connection``,
    ``malformed`` (not JSON / not the schema's shape), ``refusal`` (the model declined),
    ``probe_mismatch`` (the counterfactual probe disagreed with the database), ``error`` (other).
    """

    def __init__(self, message: str, *, reason: str, detail: str | None = None, hint: str | None = None):
        super().__init__(message, detail=detail, hint=hint)
        self.reason = reason


class ProbeMismatch(SummarizerFailed):
    """The counterfactual probe's answers, given only the candidate, contradict the database."""

    def __init__(self, message: str, *, mismatches: list[str]):
        super().__init__(message, reason="probe_mismatch", detail="; ".join(mismatches))
        self.mismatches = mismatches


class ContextOverBudget(PgctxError):
    """The mandatory parts of a working context exceed the budget; ``over_by`` tokens (no SQLSTATE:
    build_context writes nothing)."""

    def __init__(self, message: str, *, over_by: int, detail: str | None = None, hint: str | None = None):
        super().__init__(message, detail=detail, hint=hint)
        self.over_by = over_by


class TokenizerUnavailable(PgctxError):
    """The token encoding for the configured model cannot be loaded (no SQLSTATE; never guessed)."""


class SchemaNotInstalled(PgctxError):
    """The database has no pgctx schema, or one older than this pgctx lacking what a call needs (no
    SQLSTATE of ours: the statement met PostgreSQL's 3F000 or 42P01, kept as ``detail``)."""


BY_SQLSTATE: dict[str, type[PgctxError]] = {
    cls.sqlstate: cls
    for cls in PgctxError.__subclasses__()
    if cls.sqlstate is not None
}


# What a pgctx statement meets on a database without pgctx's objects: no schema pgctx (a function
# of it, 3F000) or no such table or view (42P01). pgctx's statements name only its own schema and
# pg_catalog, so either means the schema is missing or older than the code.
_NOT_INSTALLED = frozenset({"3F000", "42P01"})


@contextlib.contextmanager
def translated(api: bool = False) -> Iterator[None]:
    """Re-raise a psycopg error carrying a pgctx SQLSTATE as its pgctx exception; with ``api`` (a
    call of pgctx's API, not a migration) a missing schema as :class:`SchemaNotInstalled`."""
    try:
        yield
    except psycopg.Error as exc:
        if api and exc.sqlstate in _NOT_INSTALLED:
            raise SchemaNotInstalled(
                "this database has no pgctx schema, or an older one than this pgctx: run `pgctx migrate` "
                "(pgctx.migrate(conn)) first", detail=exc.diag.message_primary) from exc
        cls = BY_SQLSTATE.get(exc.sqlstate or "")
        if cls is None:
            raise
        diag = exc.diag
        raise cls(diag.message_primary or str(exc), detail=diag.message_detail, hint=diag.message_hint) from exc
