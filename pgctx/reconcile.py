"""pgctx.reconcile: resolve side effects whose outcome is unknown by asking the service (article 十二).

A call is recorded (with its idempotency key) before it is made, so after a timeout or a crash
the database knows which calls may or may not have acted: pgctx.side_effects lists them as
``unknown``. reconcile asks the application's resolver about each, by idempotency key, and
records the service's answer as a ``status_query`` event whose authority is the tool service.
The SQL derivation then settles the call: succeeded, failed, or ``not_performed`` (failed,
and the only answer under which a retry is safe). pgctx never re-runs a tool, and never
guesses: a resolver that cannot tell answers ``unknown`` and the call stays unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pgctx import arguments, db
from pgctx.eventlog import append_op
from pgctx.tokens import TokenCounter, default_counter

OUTCOMES = ("succeeded", "failed", "not_performed", "unknown")


@dataclass(frozen=True)
class UnknownCall:
    """What a resolver is asked about."""

    conversation_id: str
    call_id: str
    tool: str
    effect: str
    idempotency_key: str | None
    call_seq: int


@dataclass(frozen=True)
class Resolution:
    call_id: str
    outcome: str  # the service's answer
    seq: int  # the status_query event recording it
    retry_allowed: bool  # only when the service says it did not act (as pgctx.side_effects.retry_safe)


Resolver = Callable[[UnknownCall], Any]  # returns {"outcome", "request_id"?, "error"?}; may be async


def reconcile(conn: db.Connectable, conversation_id: str, resolver: Resolver, *,
              counter: TokenCounter | None = None) -> list[Resolution]:
    """Ask ``resolver`` about every unknown call of the conversation and record each answer.

    The resolver gets an :class:`UnknownCall` and returns a dict with ``outcome`` (one of
    succeeded, failed, not_performed, unknown) and optionally ``request_id``, ``error`` and
    ``authority`` (default: the tool's name). An awaitable on async connections.
    """
    arguments.text("conversation_id", conversation_id)
    return db.run(conn, _reconcile(conversation_id, resolver, counter or default_counter()))


def _reconcile(conversation_id: str, resolver: Resolver, counter: TokenCounter) -> db.Op[list[Resolution]]:
    calls = [UnknownCall(conversation_id, *r) for r in (yield db.Query(db.UNKNOWN_CALLS, (conversation_id,)))]
    resolved = []
    for call in calls:
        answer = yield db.Call(resolver, (call,))
        if not isinstance(answer, dict) or answer.get("outcome") not in OUTCOMES:
            raise ValueError(f"resolver answered {answer!r} for call {call.call_id}; "
                             f"outcome must be one of {', '.join(OUTCOMES)}")
        payload = {"call_id": call.call_id, "idempotency_key": call.idempotency_key,
                   "authority": str(answer.get("authority") or call.tool), "outcome": answer["outcome"]}
        payload.update({k: answer[k] for k in ("request_id", "error") if answer.get(k) is not None})
        payload = {k: v for k, v in payload.items() if v is not None}
        seq = yield from append_op(conversation_id, "status_query", payload, counter=counter)
        resolved.append(Resolution(call.call_id, answer["outcome"], seq, answer["outcome"] == "not_performed"))
    return resolved
