"""pgctx as the session store of the OpenAI Agents SDK (``pip install 'pgctx[agents]'``).

:class:`PgctxSession` implements the SDK's ``Session`` protocol (``agents.memory.session``) on a
pgctx conversation: an append-only, hash-chained log whose reads are the working context.

* ``add_items`` appends one event per item, in one statement (all or nothing): messages become
  ``user`` / ``assistant`` / ``system`` events (``developer`` is a ``system`` event), a
  ``function_call`` a ``tool_call`` (idempotency key = its call id, so :func:`pgctx.reconcile`
  works for SDK tools), a ``function_call_output`` a ``tool_result``, and every other item type an
  ``sdk_item`` event. Each event keeps the original item, so it comes back equal as JSON.
* ``get_items`` first folds when the fold policy says a fold is due (the check is one cheap
  statement when nothing is due: sql/160's fast path), so the check runs once per turn, however
  many batches the runner added, and no context is served without it; with ``background_folds``
  the check runs in a task after each ``add_items`` instead. It returns, once a fold has
  committed, one leading system item (the task and the summary, as pgctx renders them for the
  model) and the risk evidence kept raw, then the unfolded items; before that, exactly the items
  added. ``limit`` keeps the summary and returns
  the latest ``limit`` raw items, dropping an output whose call falls outside them.
* :meth:`PgctxSession.tool_hooks` gives run hooks that record each function call before its
  tool runs (the SDK itself stores a call only with its output), so a process killed mid-tool
  leaves the call in the log, where :func:`pgctx.recover` makes it ``unknown`` and
  :func:`pgctx.reconcile` asks the service by its idempotency key (the call id).
* ``pop_item`` retracts the newest raw item (``pgctx.retract_last``) and ``clear_session``
  appends a ``clear`` event (``pgctx.clear_view``): the working view changes, the log keeps
  everything (sql/200_session_view.sql).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from agents.items import TResponseInputItem, _output_item_to_input_item
from agents.lifecycle import RunHooks
from agents.memory.session_settings import SessionSettings, coerce_session_settings, resolve_session_limit
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

import pgctx
from pgctx import db
from pgctx.canonical import canonical_json
from pgctx.errors import ConversationNotFound, EventKeyConflict, InvalidPayload, PayloadTooLarge, PgctxError
from pgctx.eventlog import max_payload_op
from pgctx.messages import erasure_of, event_message, evidence_note, summary_message, task_message, to_input_items
from pgctx.summarizers import Summarizer
from pgctx.tokens import Budget

log = logging.getLogger("pgctx.openai_agents")

MESSAGE_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}
SDK_KIND = "sdk_item"
# what the SDK's default failure_error_function returns to the model
SDK_TOOL_ERROR = "An error occurred while running the tool."
OUTCOMES = ("succeeded", "failed", "cancelled", "timeout")


def _text(content: Any) -> str:
    """The text of a message's content: a string, or the text of its parts."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "\n".join(p["text"] for p in parts if isinstance(p, Mapping) and isinstance(p.get("text"), str))


def _outcome(output: Any) -> dict[str, Any]:
    """A function_call_output's outcome: what a pgctx-aware tool said ({"outcome": ...} as JSON),
    failed for the SDK's error message, succeeded otherwise."""
    if isinstance(output, str):
        try:
            said = json.loads(output)
        except ValueError:
            said = None
        if isinstance(said, dict) and said.get("outcome") in OUTCOMES:
            return {k: said[k] for k in ("outcome", "request_id", "error") if k in said}
        if output.startswith(SDK_TOOL_ERROR):
            return {"outcome": "failed", "error": output}
    return {"outcome": "succeeded"}


def item_event(item: Mapping[str, Any]) -> dict[str, Any]:
    """The pgctx event ``{"kind", "payload"}`` of one SDK input item (the item kept inside)."""
    item = dict(item)
    kind = item.get("type")
    role = MESSAGE_ROLES.get(item.get("role")) if kind in (None, "message") else None
    if role is not None:
        content = item.get("content")
        if isinstance(content, str):  # the text is stored once
            return {"kind": role, "payload": {"text": content, "item": {k: v for k, v in item.items() if k != "content"}}}
        return {"kind": role, "payload": {"text": _text(content), "item": item}}
    if kind == "function_call":
        try:
            arguments = json.loads(item.get("arguments") or "{}")
        except (TypeError, ValueError):
            arguments = {}
        return {"kind": "tool_call", "payload": {
            "tool": item.get("name"), "call_id": item.get("call_id"), "idempotency_key": item.get("call_id"),
            "arguments": arguments if isinstance(arguments, dict) else {}, "item": item}}
    if kind == "function_call_output":
        return {"kind": "tool_result", "payload": {"call_id": item.get("call_id"), **_outcome(item.get("output")),
                                                   "item": item}}
    return {"kind": SDK_KIND, "payload": {"item": item}}


def call_key(call_id: Any) -> str:
    """The event key of a function call recorded before its tool ran."""
    return f"sdk-call:{call_id}"


def event_item(kind: str, payload: Mapping[str, Any], seq: int | None = None) -> dict[str, Any]:
    """The SDK item of an event: the item it was added as, or (an event pgctx or other code
    appended, or an erased one) the input item pgctx renders for it."""
    original = payload.get("item")
    if isinstance(original, dict) and erasure_of(dict(payload)) is None:
        if kind in ("user", "assistant", "system") and "content" not in original:
            return {**original, "content": payload.get("text", "")}
        return dict(original)
    return to_input_items([event_message(kind, dict(payload), seq)])[0]


# What the runner needs of the items it reads back. Not the SDK's TypedDicts: the SDK itself stores
# items outside them (OpenAIResponsesCompactionSession drops an assistant message's id).
_NEEDS = {"message": ("role", "content"), "function_call": ("call_id", "name", "arguments"),
          "function_call_output": ("call_id", "output")}


def _missing(item: Mapping[str, Any]) -> str | None:
    kind = item.get("type", "message")
    if not isinstance(kind, str):
        return "a string type"
    absent = [k for k in _NEEDS.get(kind, ()) if k not in item]
    if kind == "function_call" and not isinstance(item.get("arguments", ""), str):
        absent.append("arguments as a JSON string")
    return ", ".join(absent) or None


def _checked(items: Sequence[Any], max_payload: int) -> list[dict[str, Any]]:
    """The events of a batch, refusing (before anything is written) an item the SDK would not
    accept, one PostgreSQL cannot store, or one over the size limit, naming it."""
    events = []
    for i, item in enumerate(items):
        where = f"item {i} ({item.get('type') or item.get('role') if isinstance(item, Mapping) else type(item).__name__})"
        if not isinstance(item, Mapping):
            raise InvalidPayload(f"{where} is not an input item of the Agents SDK (a mapping)")
        missing = _missing(item)
        if missing:
            raise InvalidPayload(f"{where} is not an input item of the Agents SDK: it needs {missing}")
        event = item_event(item)
        try:
            size = len(canonical_json(event["payload"]).encode())
        except PgctxError as exc:
            raise type(exc)(f"{where}: {exc}") from exc
        if size > max_payload:
            raise PayloadTooLarge(f"{where} is {size} bytes as stored; the limit is {max_payload}")
        events.append(event)
    return events


class PgctxSession:
    """An Agents SDK session stored in pgctx (see the module docstring).

    ``conn`` is a psycopg ``AsyncConnection`` or ``AsyncConnectionPool``; ``budget`` and
    ``summarizer`` are :func:`pgctx.fold`'s (default: ``pgctx.Budget()``, the built-in
    summarizer). A fold that fails or is refused is logged and loses nothing (the session keeps
    serving the previous summary and the raw tail); ``strict=True`` raises it instead.
    ``background_folds=True`` folds in a task so a turn never waits on the summarizer (a pool
    only: a fold's last attempt holds a transaction open across the summarizer call); turns
    added while it runs get another round.
    """

    def __init__(self, session_id: str, conn: AsyncConnection | AsyncConnectionPool, *,
                 budget: Budget | None = None, summarizer: Summarizer | None = None,
                 session_settings: SessionSettings | dict[str, Any] | None = None, tenant: str | None = None,
                 strict: bool = False, background_folds: bool = False) -> None:
        if background_folds and not isinstance(conn, AsyncConnectionPool):
            raise ValueError("background_folds needs an AsyncConnectionPool")
        self.session_id = session_id
        # as the SDK's own sessions: a dict is coerced (an unknown key is a TypeError), None is the defaults
        self.session_settings = (coerce_session_settings(session_settings) if session_settings is not None
                                 else SessionSettings())
        self.conn = conn
        self.budget = budget or Budget()
        self.summarizer = summarizer
        self.tenant = tenant
        self.strict = strict
        self.background_folds = background_folds
        self.last_fold: pgctx.FoldResult | None = None
        self.fold_error: PgctxError | None = None
        self._counter = self.budget.counter()
        self._fold_task: asyncio.Task[None] | None = None
        self._fold_pending = False  # events were appended since the background fold began
        self._owned_pool: AsyncConnectionPool | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop its connections belong to

    @classmethod
    async def from_dsn(cls, session_id: str, dsn: str, **options: Any) -> PgctxSession:
        """A session on its own pool of ``dsn`` (closed by :meth:`close` or ``async with``)."""
        pool = AsyncConnectionPool(dsn, min_size=1, max_size=4, open=False, kwargs={"autocommit": True})
        await pool.open()
        session = cls(session_id, pool, **options)
        session._owned_pool, session._loop = pool, asyncio.get_running_loop()
        return session

    async def __aenter__(self) -> PgctxSession:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def close(self) -> None:
        """Wait for a background fold, then close the pool :meth:`from_dsn` opened."""
        await self.wait_for_folds()
        if self._owned_pool is not None:
            await self._owned_pool.close()

    async def wait_for_folds(self) -> None:
        if self._fold_task is not None:
            await self._fold_task

    # --- the Session protocol ------------------------------------------------------------

    def _on_its_loop(self) -> None:
        """A psycopg async connection or pool belongs to the event loop it was opened in; used from
        another loop (another thread's asyncio.run), it waits forever. Say so at once instead."""
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = loop
        elif loop is not self._loop:
            raise RuntimeError(f"PgctxSession {self.session_id!r} is used from an event loop other than the one it "
                               "was first used in; its psycopg connections belong to that loop: open one session "
                               "(and pool) per event loop or thread")

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        self._on_its_loop()
        if not self.background_folds:
            await self._fold()  # what the items added since the last read made due, before serving them
        # the summary, evidence and unfolded items (no folded items beside them: fill 0)
        rows = await db.run(self.conn, db.rows(db.Query(db.CONTEXT_EVENTS, (self.session_id, 0))))
        head: list[dict[str, Any]] = []
        raw: list[dict[str, Any]] = []
        for section, seq, kind, payload, _, reason, _ in rows:
            if section == "summary" and payload["version"]:
                summary = payload["summary"]
                text = task_message(summary)["content"] + "\n" + summary_message(summary, payload["version"], seq)["content"]
                head.append({"role": "system", "content": text})
            elif section == "evidence":
                head.append({"role": "system", "content": evidence_note(kind, payload, seq, reason)["content"]})
            elif section == "events":
                raw.append(event_item(kind, payload, seq))
        limit = resolve_session_limit(limit, self.session_settings)
        if limit is not None and limit >= 0:
            raw = raw[len(raw) - min(limit, len(raw)):]
            calls = {i.get("call_id") for i in raw if "call_id" in i and not str(i.get("type", "")).endswith("_output")}
            raw = [i for i in raw if not (str(i.get("type", "")).endswith("_output") and i.get("call_id") not in calls)]
        return head + raw  # type: ignore[return-value]

    async def _limit(self) -> int:
        return await db.run(self.conn, max_payload_op())

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        self._on_its_loop()
        events = _checked(items, await self._limit())
        calls = [call_key(e["payload"]["call_id"]) for e in events if e["kind"] == "tool_call"]
        if calls:  # calls the tool hooks recorded before they ran are in the log already
            recorded = {k for (k,) in await db.run(self.conn, db.rows(db.Query(
                "SELECT event_key FROM pgctx.events WHERE conversation_id = %s AND event_key = ANY (%s)",
                (self.session_id, calls))))}
            events = [e for e in events if e["kind"] != "tool_call" or call_key(e["payload"]["call_id"]) not in recorded]
        if not events:
            return
        await pgctx.append_many(self.conn, self.session_id, events, tenant=self.tenant, counter=self._counter)
        if self.background_folds:
            self._fold_pending = True
            if self._fold_task is None or self._fold_task.done():
                self._fold_task = asyncio.create_task(self._fold_in_background())

    async def pop_item(self) -> TResponseInputItem | None:
        self._on_its_loop()
        try:
            rows = await db.run(self.conn, db.rows(db.Query(db.RETRACT_LAST, (self.session_id,))))
        except ConversationNotFound:
            return None  # nothing stored yet: an empty session, as the SDK's sessions answer it
        if not rows or rows[0][0] is None:
            return None
        seq, kind, payload = rows[0]
        return event_item(kind, payload, seq)  # type: ignore[return-value]

    async def clear_session(self) -> None:
        self._on_its_loop()
        if not await db.run(self.conn, db.rows(db.Query(db.HEAD_SEQ, (self.session_id,)))):
            return  # nothing stored yet: already clear (a clear event would create the conversation)
        await db.run(self.conn, db.rows(db.Query(db.CLEAR_VIEW, (self.session_id,))))

    def tool_hooks(self) -> RunHooks[Any]:
        """Run hooks (``Runner.run(..., hooks=session.tool_hooks())``) that record each function
        call in this session before its tool runs."""
        return _RecordCalls(self)

    async def _record_call(self, item: dict[str, Any]) -> None:
        [event] = _checked([item], await self._limit())
        try:
            await pgctx.append(self.conn, self.session_id, event["kind"], event["payload"],
                               event_key=call_key(item.get("call_id")), tenant=self.tenant, counter=self._counter)
        except EventKeyConflict:
            pass  # recorded before with other metadata: the first record stands

    # --- folding -------------------------------------------------------------------------

    async def _fold_in_background(self) -> None:
        # A fold reads its range when it starts: the events appended while it ran were not in
        # it, and the fold it decided on may not have shrunk the context without them (PC121).
        # So it folds again until a round starts with nothing new, rather than leave a due fold
        # to the next turn, which may never come.
        while self._fold_pending:
            self._fold_pending = False
            await self._fold()

    async def _fold(self) -> None:
        try:
            self.last_fold = await pgctx.fold(self.conn, self.session_id, summarizer=self.summarizer,
                                              budget=self.budget)
            self.fold_error = None
        except ConversationNotFound:
            pass  # nothing stored yet: nothing to fold
        except PgctxError as exc:
            self.fold_error = exc
            log.warning("pgctx: fold of session %s failed, serving the previous summary: %s [%s]",
                        self.session_id, exc, exc.sqlstate or type(exc).__name__)
            if self.strict:
                raise


class _RecordCalls(RunHooks[Any]):
    def __init__(self, session: PgctxSession) -> None:
        self.session = session

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        call = getattr(context, "tool_call", None)
        if call is not None:
            item = dict(_output_item_to_input_item(call))
            if item.get("status") is None:
                item.pop("status", None)  # as the SDK stores it
            await self.session._record_call(item)
