"""pgctx as LangGraph's checkpointer (``pip install 'pgctx[langgraph]'``).

:class:`PgctxSaver` (sync) and :class:`AsyncPgctxSaver` (async) implement LangGraph's
``BaseCheckpointSaver`` on pgctx's event log, with the constructors of LangGraph's own
``PostgresSaver`` / ``AsyncPostgresSaver``, so existing code switches by changing one import.

* A thread is one conversation (``conversation_id = thread_id``); its namespaces live in it.
  Every checkpoint, channel value, batch of pending writes and tombstone is a hash-chained event
  (kinds ``lg_*``, sql/210_langgraph.sql), so ``pgctx verify``, digests, bundles, erasure and the
  DBA views cover LangGraph threads.
* A put writes only what changed: a channel not in ``new_versions`` is referenced, not written
  again; a channel whose value is a list of messages with unique ids (``MessagesState``'s
  ``messages``, the ``add_messages`` reducer, ``RemoveMessage`` included) is stored as the step's
  delta: the ids it dropped and the messages it added or changed in place, each one event of its
  own (``user`` / ``assistant`` + one ``tool_call`` per call / ``tool_result`` / ``system`` in the
  root namespace, so :func:`pgctx.fold` folds a graph's conversation). A list that is not the
  parent's with messages dropped, changed in place or appended (a reorder) is stored whole.
* ``delete_thread``, ``prune`` and ``delete_for_runs`` append a tombstone (``lg_delete``) that
  every read honours (the rule is SQL: ``pgctx.langgraph_checkpoints``, per thread
  ``pgctx.langgraph_thread_checkpoints``); the data stays in the
  log until :func:`pgctx.erase` removes it.
* :func:`folded_messages` / :func:`afolded_messages` give a graph node its working context as
  LangChain messages: the committed summary, the evidence pgctx keeps raw, and the state's
  messages the summary does not cover.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import random
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
import psycopg
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
    get_serializable_checkpoint_metadata,
    writes_sort_key,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.types import TASKS
from psycopg_pool import AsyncConnectionPool, ConnectionPool

from pgctx import db
from pgctx.errors import PgctxError
from pgctx.eventlog import _json, event_tokens
from pgctx.fold_loop import ATTEMPTS, FoldResult, _fold
from pgctx.messages import erasure_of, evidence_note, summary_message, task_message
from pgctx.schema import migrate
from pgctx.summarizers import BuiltinSummarizer, Summarizer
from pgctx.tokens import Budget, TokenCounter

log = logging.getLogger("pgctx.langgraph")

# the pgctx kind of a message of the root namespace, by LangChain message type
MESSAGE_KINDS = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool_result"}
# message classes stored as their non-default fields in JSON (others go through the serde)
MESSAGE_CLASSES = {cls.__name__: cls for cls in (HumanMessage, AIMessage, SystemMessage, ToolMessage)}
# What a saver remembers of the threads it writes, to compute a put's delta without reading its
# parent: per (thread, namespace) its newest checkpoint's records and message lists, for at most
# CACHE_THREADS threads holding at most CACHE_MESSAGES messages in all (the references keep those
# messages in memory after a run ends: the bound is what a service pays for the cache).
CACHE_THREADS = 256
CACHE_MESSAGES = 50_000
STORED_SIZE = 4096  # message events a saver remembers, so a write and a put of one message share one
_MISSING = object()

# Every read of checkpoints names its thread and goes through pgctx.langgraph_thread_checkpoints
# (live ones, newest first): one conversation per statement, so on Citus each is routed to the
# thread's shard (the view pgctx.langgraph_checkpoints is for DBAs). A read across threads first
# finds the threads (_THREADS, _RUN_THREADS: a plain query of the log), then reads each.
_LATEST = ("SELECT seq, payload FROM pgctx.langgraph_thread_checkpoints(%s, ns => %s, checkpoint => %s, newest => 1)")
# as text, parsed by orjson: psycopg's json.loads of every row was a third of a get_tuple at 1,000
# messages (1,500 rows: 18.6 against 10.8 ms for the query and its decoding)
_PARTS = ("SELECT channel, part, depth, seq, payload::text FROM pgctx.langgraph_parts(%s, %s)"
          " UNION ALL SELECT NULL, part, 0, seq, payload::text FROM pgctx.langgraph_writes(%s, %s, %s)")
# a checkpoint's pending writes alone: a pre-v4 child's sends (_pending_sends)
_WRITES = "SELECT part, seq, payload::text FROM pgctx.langgraph_writes(%s, %s, %s)"
_HAS_THREAD = ("SELECT EXISTS (SELECT 1 FROM pgctx.langgraph_thread_checkpoints(%s, newest => 1))")
_ALL_LIVE = ("SELECT checkpoint_ns, checkpoint_id, seq, payload FROM pgctx.langgraph_thread_checkpoints(%s)"
             " ORDER BY checkpoint_ns, checkpoint_id")
# What keep_latest decides on: every live checkpoint (per namespace newest first), with what it
# needs of each namespace's head (parent and version: a pre-v4 head's sends are its parent's
# writes; the root checkpoint a subgraph call started from), and the checkpoint ids whose pending
# writes count, as pgctx.langgraph_writes decides (an id without a live checkpoint among them is a
# step whose writes were saved before its checkpoint, or after its checkpoint was deleted): its
# newest write event is newer than the newest tombstone covering it. Cost: one
# langgraph_deleted_at per checkpoint id with writes, paid by the prune, not by the reads; each in
# a statement of its own (a function reading the events, called in a query of them, is a nested
# distributed read on Citus: scaling.md).
_PRUNE_LIVE = ("SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, (payload->'checkpoint'->>'v')::int,"
               " payload->'metadata'->'parents'->>'' FROM pgctx.langgraph_thread_checkpoints(%s)")
_PRUNE_WRITES = ("SELECT payload->>'ns', payload->>'checkpoint_id', max(seq) FROM pgctx.events"
                 " WHERE conversation_id = %s AND kind = 'lg_writes' AND payload ? 'checkpoint_id' GROUP BY 1, 2")
_DELETED_AT = "SELECT pgctx.langgraph_deleted_at(%s, %s, %s)"
_LIST = ("SELECT seq, payload FROM pgctx.langgraph_thread_checkpoints(%s, ns => %s, checkpoint => %s, before => %s,"
         " metadata => %s, newest => %s)")
_THREADS = ("SELECT DISTINCT conversation_id FROM pgctx.events WHERE kind = 'lg_checkpoint'"
            " AND (%s::jsonb IS NULL OR payload->'metadata' @> %s::jsonb) ORDER BY 1")
_RUN_THREADS = ("SELECT DISTINCT conversation_id FROM pgctx.events WHERE kind = 'lg_checkpoint'"
                " AND payload->'metadata'->>'run_id' = ANY (%s) ORDER BY 1")
_RUN_CHECKPOINTS = ("SELECT checkpoint_ns, checkpoint_id FROM pgctx.langgraph_thread_checkpoints(%s, run_ids => %s)"
                    " ORDER BY checkpoint_id")
_MESSAGE_SEQS = ("SELECT payload->'lg'->>'id', max(seq) FROM pgctx.events WHERE conversation_id = %s"
                 " AND payload ? 'lg' AND payload->'lg'->>'id' = ANY (%s) GROUP BY 1")
_TOMBSTONE_CHUNK = 500  # checkpoints named per tombstone: a payload stays far below the size limit


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def _parse(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # an integer beyond 64 bits, which orjson refuses
        return json.loads(text)


def _config(thread_id: str, ns: str, checkpoint_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}}


def _has_id(m: Any) -> bool:
    return isinstance(m, BaseMessage) and isinstance(m.id, str) and bool(m.id)


def _message_list(value: Any) -> list[BaseMessage] | None:
    """``value`` if it is a non-empty list of messages with unique string ids (delta-storable)."""
    if not isinstance(value, list) or not value or not all(_has_id(m) for m in value):
        return None
    return value if len({m.id for m in value}) == len(value) else None


def message_delta(before: list[BaseMessage], after: list[BaseMessage]
                  ) -> tuple[list[str], list[BaseMessage], list[BaseMessage]] | None:
    """(ids dropped, messages changed in place, messages appended) turning ``before`` into
    ``after``, or None when ``after`` is not ``before`` with messages dropped, changed in place and
    appended."""
    now = {m.id for m in after}
    dropped = [m.id for m in before if m.id not in now]
    kept = [m for m in before if m.id in now]
    if [m.id for m in after[:len(kept)]] != [m.id for m in kept]:
        return None
    changed = [new for old, new in zip(kept, after) if new is not old and new != old]
    return dropped, changed, after[len(kept):]


def appended_messages(before: list[BaseMessage], after: Any, ids: frozenset[str]) -> list[BaseMessage] | None:
    """What add_messages does on nearly every step, checked in O(new messages) plus one identity
    pass: ``after`` is ``before``'s very objects, then new messages with ids not in ``ids`` (the
    ids of ``before``) nor repeated. The new messages, or None."""
    if not isinstance(after, list) or len(after) < len(before) or not all(a is b for a, b in zip(before, after)):
        return None
    new = after[len(before):]
    new_ids = {m.id for m in new if _has_id(m)}
    return new if len(new_ids) == len(new) and ids.isdisjoint(new_ids) else None


def apply_delta(before: list[BaseMessage], dropped: Sequence[str], added: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The inverse of :func:`message_delta`: drop, replace by id in place, append."""
    return replay(before, [(dropped, added)])


def replay(start: list[BaseMessage], deltas: Iterable[tuple[Sequence[str], Sequence[BaseMessage]]]) -> list[BaseMessage]:
    """``start`` with every delta applied in turn, in one pass (a read replays every delta since
    the channel's last whole value: one list and one index, not a copy per delta)."""
    out = list(start)
    where = {m.id: i for i, m in enumerate(out)}
    for dropped, added in deltas:
        if dropped:
            gone = set(dropped)
            out = [m for m in out if m.id not in gone]
            where = {m.id: i for i, m in enumerate(out)}
        for m in added:
            if m.id in where:
                out[where[m.id]] = m
            else:
                where[m.id] = len(out)
                out.append(m)
    return out


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "\n".join(p if isinstance(p, str) else str(p.get("text", "")) for p in parts
                     if isinstance(p, str) or (isinstance(p, Mapping) and "text" in p))


@dataclass
class _State:
    """What a put needs of its parent: its event seq, channel versions, channel records (absolute
    refs) and the message lists of its message channels."""

    checkpoint_id: str
    seq: int
    versions: ChannelVersions
    records: dict[str, dict[str, Any]]
    messages: dict[str, list[BaseMessage]] = field(default_factory=dict)
    ids: dict[str, frozenset[str]] = field(default_factory=dict)  # of each message list

    @classmethod
    def of(cls, checkpoint_id: str, seq: int, versions: ChannelVersions, records: dict[str, dict[str, Any]],
           messages: dict[str, list[BaseMessage]], ids: dict[str, frozenset[str]] | None = None) -> _State:
        ids = dict(ids or {})
        for channel, msgs in messages.items():
            if channel not in ids:
                ids[channel] = frozenset(m.id for m in msgs)  # type: ignore[misc]
        return cls(checkpoint_id, seq, versions, records, messages, ids)

    def weight(self) -> int:
        return sum(len(msgs) for msgs in self.messages.values())


class _Cache:
    """A small thread-safe LRU map: at most ``size`` entries and, with ``weight``, at most
    ``max_weight`` in all (the newest entry is kept whatever its weight)."""

    def __init__(self, size: int, max_weight: int | None = None, weight: Any = None) -> None:
        self.size = size
        self.max_weight = max_weight
        self._weight = weight
        self._total = 0
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            if key in self._items:
                self._total -= self._weigh(self._items[key])
            self._items[key] = value
            self._items.move_to_end(key)
            self._total += self._weigh(value)
            while len(self._items) > self.size or (
                    self.max_weight is not None and self._total > self.max_weight and len(self._items) > 1):
                self._total -= self._weigh(self._items.popitem(last=False)[1])

    def _weigh(self, value: Any) -> int:
        return self._weight(value) if self._weight else 0

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._total = 0

    def update(self, other: _Cache) -> None:
        for key, value in list(other._items.items()):
            self.put(key, value)


def _resolve(holder: int, ref: int) -> int:
    return holder + ref if ref < 0 else ref


def _absolute(holder: int, record: dict[str, Any]) -> dict[str, Any]:
    out = dict(record)
    for name in ("at", "base"):
        if name in out:
            out[name] = _resolve(holder, out[name])
    if "add" in out:
        out["add"] = [_resolve(holder, r) for r in out["add"]]
    return out


class _Batch:
    """The events of one append_events call. A reference is an absolute seq (an event appended
    before) or ("batch", index) for one of these; stored, the latter is written relative to the
    event that holds it (seqs are known only once appended)."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.messages: list[tuple[int, BaseMessage]] = []  # (index, message) of the messages appended

    def add(self, events: list[dict[str, Any]]) -> tuple[str, int]:
        """Append ``events``; a reference to the first."""
        self.events += events
        return ("batch", len(self.events) - len(events))

    @staticmethod
    def stored(ref: Any, holder: int) -> int:
        return ref[1] - holder if isinstance(ref, tuple) else ref


class _Store:
    """The saver's logic, written once as pgctx operations (:mod:`pgctx.db`) for both savers."""

    def __init__(self, serde: SerializerProtocol, tenant: str | None, counter: TokenCounter,
                 cache_messages: int = CACHE_MESSAGES) -> None:
        self.serde = serde
        self.tenant = tenant
        self.counter = counter
        self.cache = _Cache(CACHE_THREADS, cache_messages, _State.weight)  # (thread, ns) -> _State
        self.stored = _Cache(STORED_SIZE)  # (thread, message id) -> (seq, message): its message event

    def forget(self) -> None:
        self.cache.clear()
        self.stored.clear()

    # --- encoding --------------------------------------------------------------------------

    def _dump(self, value: Any) -> tuple[str, str | None]:
        kind, data = self.serde.dumps_typed(value)
        return kind, _b64(data)

    def _load(self, kind: str, data: str | None) -> Any:
        return self.serde.loads_typed((kind, _unb64(data)))

    def _message_events(self, m: BaseMessage, ns: str, channel: str, new: bool) -> list[dict[str, Any]]:
        """The events of one message: the message, then, for a new AI message of the root
        namespace, one tool_call event per call (pgctx's ledger of side effects; a message changed
        in place does not call its tools again). A message of a standard class is stored as its
        non-default fields in JSON, others through the serde; a string content once, as the text
        the summarizer reads."""
        text_content = isinstance(m.content, str)
        lg: dict[str, Any] = {"ns": ns, "channel": channel, "id": m.id}
        if MESSAGE_CLASSES.get(type(m).__name__) is type(m):
            lg["class"] = type(m).__name__
            lg["fields"] = m.model_dump(mode="json", exclude_defaults=True,
                                        exclude={"id", "type", "content"} if text_content else {"id", "type"})
        else:
            lg["type"], lg["data"] = self._dump(m.model_copy(update={"content": ""}) if text_content else m)
        if text_content:
            lg["content"] = "text"
        kind = MESSAGE_KINDS.get(m.type, "lg_message") if ns == "" else "lg_message"
        if kind == "tool_result":
            body = {"call_id": getattr(m, "tool_call_id", None),
                    "outcome": "failed" if getattr(m, "status", "success") == "error" else "succeeded",
                    "text": _text(m.content)}
        else:
            body = {"text": _text(m.content)}
        events = [self._event(kind, {**body, "lg": lg}, tokens=kind != "lg_message")]
        if kind == "assistant" and new:
            for call in getattr(m, "tool_calls", None) or []:
                events.append(self._event("tool_call", {
                    "tool": call.get("name"), "call_id": call.get("id"), "arguments": call.get("args") or {},
                    "idempotency_key": call.get("id")}, tokens=True))
        return events

    def _event(self, kind: str, payload: dict[str, Any], *, tokens: bool = False) -> dict[str, Any]:
        shown = {k: v for k, v in payload.items() if k != "lg"}
        return {"kind": kind, "payload": payload,
                "tokens": (event_tokens(kind, shown, self.counter) or 0) if tokens else 0}

    def _message(self, seq: int, payload: dict[str, Any]) -> BaseMessage:
        erased = erasure_of(payload)
        if erased is not None or "lg" not in payload:  # erased (pgctx.erase): its content is gone
            text = f"[message #{seq} erased: its content was removed (erasure at seq {erased})]"
            return AIMessage(content=text, id=f"pgctx-erased-{seq}")
        lg = payload["lg"]
        if "class" in lg:
            fields = {**lg["fields"], "id": lg["id"]}
            if lg.get("content") == "text":
                fields["content"] = payload.get("text", "")
            return MESSAGE_CLASSES[lg["class"]](**fields)
        m = self._load(lg["type"], lg["data"])
        if lg.get("content") == "text":
            m = m.model_copy(update={"content": payload.get("text", "")})
        return m

    def _message_ref(self, batch: _Batch, thread_id: str, m: BaseMessage, ns: str, channel: str, new: bool) -> Any:
        """The message event of ``m``: the one this saver appended for it already (a node's write
        and the checkpoint that takes it into the state carry the same message, in either order:
        LangGraph's background put may overtake the write), or new events in ``batch``."""
        known = self.stored.get((thread_id, m.id))
        if known is not None and (known[1] is m or known[1] == m):
            return known[0]
        ref = batch.add(self._message_events(m, ns, channel, new=new))
        batch.messages.append((ref[1], m))
        return ref

    def _remember(self, thread_id: str, batch: _Batch, rows: list[tuple[Any, ...]]) -> None:
        for index, m in batch.messages:
            self.stored.put((thread_id, m.id), (rows[index][1], m))

    @staticmethod
    def _written_messages(value: Any) -> list[BaseMessage] | None:
        """The messages a write carries, when it carries nothing else: one message, or a list (each
        with an id: one without is given its id by add_messages later, so it is stored as a value)."""
        msgs = value if isinstance(value, list) else [value]
        return msgs if msgs and all(_has_id(m) for m in msgs) else None

    # --- reads -----------------------------------------------------------------------------

    def _live(self, thread_id: str, ns: str, checkpoint_id: str | None) -> db.Op[tuple[Any, Any, Any]]:
        """(True, seq, payload) of the live checkpoint (the newest without an id), or (False, None, None)."""
        rows = yield db.Query(_LATEST, (thread_id, ns, checkpoint_id or None))
        return (True, *rows[0]) if rows else (False, None, None)

    def get(self, thread_id: str, ns: str, checkpoint_id: str | None) -> db.Op[CheckpointTuple | None]:
        found, seq, payload = yield from self._live(thread_id, ns, checkpoint_id)
        if not found:
            return None
        tup, _ = yield from self._rebuild(thread_id, seq, payload, remember=True)
        return tup

    def _rebuild(self, thread_id: str, seq: int, payload: dict[str, Any], remember: bool = False,
                 migrate: bool = True
                 ) -> db.Op[tuple[CheckpointTuple, list[tuple[dict[str, Any], list[tuple[str, Any]]]]]]:
        """The checkpoint tuple of the lg_checkpoint event ``seq``, and its write events that
        count, each with its (channel, value) pairs. ``remember``: it becomes the thread's state in
        the cache (a get_tuple is what a run starts from; a list is not). ``migrate``: a checkpoint
        older than v4 gets its parent's sends as its TASKS channel, as PostgresSaver reads it (a
        copy stores the checkpoint as it was put, not as it is read)."""
        ns, checkpoint_id = payload["ns"], payload["checkpoint_id"]
        rows = yield db.Query(_PARTS, (thread_id, seq, thread_id, ns, checkpoint_id))
        records: dict[str, list[tuple[int, int, dict[str, Any]]]] = {}
        parts: dict[int, dict[str, Any]] = {}
        writes: list[tuple[int, dict[str, Any]]] = []
        for channel, part, depth, part_seq, text in rows:
            part_payload = _parse(text)
            if part == "record":
                records.setdefault(channel, []).append((depth, part_seq, part_payload))
            elif part == "writes":
                writes.append((part_seq, part_payload))
            else:  # a value, or a message of a delta or of a write
                parts[part_seq] = part_payload
        values: dict[str, Any] = {}
        messages: dict[str, list[BaseMessage]] = {}
        for channel, chain in records.items():
            value: Any = _MISSING
            deltas: list[tuple[Sequence[str], list[BaseMessage]]] = []
            for _, holder, rec in sorted(chain, key=lambda r: -r[0]):  # the oldest record first
                # only deltas have a base: the chain is a start (a whole value, an empty channel, a
                # delta from empty, or an erased checkpoint) and the deltas after it
                if rec and "add" in rec:
                    deltas.append((rec.get("drop", []), [self._message(s, parts[s]) for s in
                                                         (_resolve(holder, r) for r in rec["add"])]))
                elif rec and "at" in rec:
                    blob = parts[_resolve(holder, rec["at"])]
                    value = self._load(blob["type"], blob["data"])
            if deltas:
                value = replay(value if isinstance(value, list) else [], deltas)
            if value is not _MISSING:
                values[channel] = value
                if _message_list(value) is not None:
                    messages[channel] = value
        stored = payload["checkpoint"]
        if remember:
            self.cache.put((thread_id, ns), _State.of(
                checkpoint_id, seq, stored["channel_versions"],
                {ch: _absolute(seq, rec) for ch, rec in payload["channels"].items()}, messages))
        checkpoint: dict[str, Any] = {
            "v": stored["v"], "id": checkpoint_id, "ts": stored["ts"], "channel_values": values,
            "channel_versions": stored["channel_versions"], "versions_seen": stored["versions_seen"],
            "updated_channels": stored.get("updated_channels")}
        if stored.get("rest") is not None:
            checkpoint.update(self._load(*stored["rest"]))
        parent = payload.get("parent_id")
        if migrate and stored["v"] < 4 and parent:
            # Before v4 a step's Sends were its parent's TASKS writes, not a channel; LangGraph
            # reads them from the channel now, so the saver moves them there (PostgresSaver's
            # _migrate_pending_sends), at the newest version the checkpoint has. A new dict: the
            # stored versions are what the cache compares a put's with.
            sends = yield from self._pending_sends(thread_id, ns, parent)
            if sends:
                versions = stored["channel_versions"]
                values[TASKS] = sends
                checkpoint["channel_versions"] = {**versions, TASKS: max(versions.values()) if versions
                                                  else next_version(None)}
        loaded = self._loaded_writes(writes, parts)
        return CheckpointTuple(
            config=_config(thread_id, ns, checkpoint_id),
            checkpoint=checkpoint,  # type: ignore[arg-type]
            metadata=payload["metadata"],
            parent_config=_config(thread_id, ns, parent) if parent else None,
            pending_writes=self._pending(loaded)), loaded

    def _loaded_writes(self, writes: list[tuple[int, dict[str, Any]]], parts: dict[int, dict[str, Any]]
                       ) -> list[tuple[dict[str, Any], list[tuple[str, Any]]]]:
        """Each write event (seq, payload) with its (channel, value) pairs."""
        return [(event, [(channel, self._write_value(write_seq, kind, data, parts))
                         for _, channel, kind, data in event["writes"]]) for write_seq, event in writes]

    def _pending_sends(self, thread_id: str, ns: str, checkpoint_id: str) -> db.Op[list[Any]]:
        """The values of the TASKS writes of ``checkpoint_id`` that count, in the order
        PostgresSaver reads them (task path, task id, index), each (task, index) once; only these
        writes are deserialized."""
        writes: list[tuple[int, dict[str, Any]]] = []
        parts: dict[int, dict[str, Any]] = {}
        for part, seq, text in (yield db.Query(_WRITES, (thread_id, ns, checkpoint_id))):
            if part == "writes":
                event = _parse(text)
                writes.append((seq, {**event, "writes": [w for w in event["writes"] if w[1] == TASKS]}))
            else:  # a message a write names
                parts[seq] = _parse(text)
        return [value for _, _, value in self._pending(self._loaded_writes(writes, parts))]

    def _write_value(self, holder: int, kind: str, data: Any, parts: dict[int, dict[str, Any]]) -> Any:
        if kind in ("lg:message", "lg:messages"):  # messages, stored as message events of their own
            msgs = [self._message(_resolve(holder, r), parts[_resolve(holder, r)]) for r in data]
            return msgs[0] if kind == "lg:message" else msgs
        return self._load(kind, data)

    def _pending(self, events: list[tuple[dict[str, Any], list[tuple[str, Any]]]]) -> list[tuple[str, str, Any]]:
        """The writes of a checkpoint: per (task, idx) the first regular write and the last
        special one (ERROR, INTERRUPT, ...), as PostgresSaver keeps them; in writes_sort_key order."""
        kept: dict[tuple[str, int], tuple[str, str, Any]] = {}
        for event, values in events:
            for (idx, *_), (channel, value) in zip(event["writes"], values):
                key = (event["task_id"], idx)
                if idx < 0 or key not in kept:
                    kept[key] = (event.get("task_path", ""), channel, value)
        order = sorted(kept.items(), key=lambda kv: writes_sort_key(kv[1][0], kv[0][0], kv[0][1]))
        return [(task_id, channel, value) for (task_id, _), (_, channel, value) in order]

    def list(self, config: RunnableConfig | None, filter: dict[str, Any] | None, before: RunnableConfig | None,
             limit: int | None) -> db.Op[list[CheckpointTuple]]:
        conf = config["configurable"] if config else {}
        metadata = _json(filter) if filter else None
        before_id = get_checkpoint_id(before) if before is not None else None
        threads = [conf["thread_id"]] if config else [
            t for (t,) in (yield db.Query(_THREADS, (metadata, metadata)))]
        rows = []
        for thread_id in threads:
            found = yield db.Query(_LIST, (thread_id, conf.get("checkpoint_ns"), get_checkpoint_id(config) if config else None,
                                           before_id, metadata, limit))
            rows.extend((payload["checkpoint_id"], thread_id, seq, payload) for seq, payload in found)
        # newest first across the threads and namespaces (ids in byte order), as the function
        # orders each namespace of a thread
        rows.sort(key=lambda row: row[0].encode(), reverse=True)
        rows = rows[:limit] if limit is not None else rows
        rows = [(thread_id, seq, payload) for _, thread_id, seq, payload in rows]
        out = []
        for thread_id, seq, payload in rows:
            out.append((yield from self._rebuild(thread_id, seq, payload))[0])
        return out

    # --- writes ----------------------------------------------------------------------------

    def put(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
            new_versions: ChannelVersions, cache: _Cache | None = None) -> db.Op[RunnableConfig]:
        cache = cache or self.cache
        conf = config["configurable"]
        thread_id, ns, parent_id = conf["thread_id"], conf.get("checkpoint_ns", ""), conf.get("checkpoint_id")
        parent: _State | None = None
        if parent_id:
            parent = next((p for p in (cache.get((thread_id, ns)), self.cache.get((thread_id, ns)))
                           if p is not None and p.checkpoint_id == parent_id), None)
            if parent is None:  # not the thread's newest known here (another process, a fork): read it
                _, seq, payload = yield from self._live(thread_id, ns, parent_id)
                if seq is not None:
                    yield from self._rebuild(thread_id, seq, payload, remember=True)
                    parent = self.cache.get((thread_id, ns))
        batch = _Batch()
        records: dict[str, dict[str, Any]] = {}
        local: set[str] = set()  # channels whose records point into this batch
        new_messages: dict[str, list[BaseMessage]] = {}
        new_ids: dict[str, frozenset[str]] = {}
        values = checkpoint["channel_values"]
        for channel, version in checkpoint["channel_versions"].items():
            prev = parent.records.get(channel) if parent else None
            value = values.get(channel, _MISSING)
            if channel not in new_versions and prev is not None and parent.versions.get(channel) == version:  # type: ignore[union-attr]
                records[channel] = prev
                if channel in parent.messages:  # type: ignore[union-attr]
                    new_messages[channel] = parent.messages[channel]  # type: ignore[union-attr]
                    new_ids[channel] = parent.ids[channel]  # type: ignore[union-attr]
                continue
            if value is _MISSING:
                records[channel] = {}
                continue
            before = parent.messages.get(channel) if parent and prev is not None else None
            new = appended_messages(before, value, parent.ids[channel]) if before is not None else None  # type: ignore[union-attr]
            if new is not None:
                msgs: list[BaseMessage] | None = value
                delta: tuple[list[str], list[BaseMessage], list[BaseMessage]] | None = ([], [], new)
                new_ids[channel] = parent.ids[channel].union(m.id for m in new)  # type: ignore[union-attr,misc]
            else:
                msgs = _message_list(value)
                delta = None
                if msgs is not None:
                    delta = message_delta(before, msgs) if before is not None else ([], [], msgs)
            if delta is not None:
                dropped, changed, appended = delta
                refs: list[Any] = []
                refs = [self._message_ref(batch, thread_id, m, ns, channel, new)
                        for m, new in [(m, False) for m in changed] + [(m, True) for m in appended]]
                record: dict[str, Any] = {"add": refs}
                if before is not None:
                    record["base"] = parent.seq  # type: ignore[union-attr]
                if dropped:
                    record["drop"] = dropped
                new_messages[channel] = msgs  # type: ignore[assignment]
            else:
                kind, data = self._dump(value)
                record = {"at": batch.add([self._event(
                    "lg_channel", {"ns": ns, "channel": channel, "type": kind, "data": data})])}
                if msgs is not None:
                    new_messages[channel] = msgs
            local.add(channel)
            records[channel] = record
        holder = len(batch.events)  # the checkpoint event's index in the batch
        stored_records = {}
        for channel, record in records.items():
            if channel in local:
                record = dict(record)
                if "at" in record:
                    record["at"] = batch.stored(record["at"], holder)
                if "add" in record:
                    record["add"] = [batch.stored(r, holder) for r in record["add"]]
            stored_records[channel] = record
        rest = {k: v for k, v in checkpoint.items() if k not in (
            "v", "id", "ts", "channel_values", "channel_versions", "versions_seen", "updated_channels")}
        batch.add([self._event("lg_checkpoint", {
            "ns": ns, "checkpoint_id": checkpoint["id"], "parent_id": parent_id,
            "checkpoint": {"v": checkpoint["v"], "ts": checkpoint["ts"],
                           "channel_versions": checkpoint["channel_versions"],
                           "versions_seen": checkpoint["versions_seen"],
                           "updated_channels": checkpoint.get("updated_channels"),
                           "rest": list(self._dump(rest)) if rest else None},
            "metadata": get_serializable_checkpoint_metadata(config, metadata),
            "channels": stored_records})])
        rows = yield db.Query(db.APPEND_EVENTS, (thread_id, _json(batch.events), self.tenant))
        self._remember(thread_id, batch, rows)
        seq = rows[-1][1]
        cache.put((thread_id, ns), _State.of(
            checkpoint["id"], seq, checkpoint["channel_versions"], {ch: _absolute(seq, r) for ch, r in stored_records.items()},
            new_messages, new_ids))
        return _config(thread_id, ns, checkpoint["id"])

    def put_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                   task_path: str) -> db.Op[None]:
        """One lg_writes event; a write that carries messages (a node's new messages) appends them
        as message events first and points at them, so the next checkpoint's delta points at the
        same events instead of storing the messages again."""
        conf = config["configurable"]
        thread_id, ns = conf["thread_id"], conf.get("checkpoint_ns", "")
        batch = _Batch()
        stored: list[list[Any]] = []
        for idx, (channel, value) in enumerate(writes):
            msgs = self._written_messages(value)
            if msgs is None:
                stored.append([WRITES_IDX_MAP.get(channel, idx), channel, *self._dump(value)])
                continue
            stored.append([WRITES_IDX_MAP.get(channel, idx), channel,
                           "lg:messages" if isinstance(value, list) else "lg:message",
                           [self._message_ref(batch, thread_id, m, ns, channel, True) for m in msgs]])
        holder = len(batch.events)
        for write in stored:
            if write[2] in ("lg:message", "lg:messages"):
                write[3] = [batch.stored(r, holder) for r in write[3]]
        batch.add([self._event("lg_writes", {"ns": ns, "checkpoint_id": conf["checkpoint_id"],
                                             "task_id": task_id, "task_path": task_path, "writes": stored})])
        rows = yield db.Query(db.APPEND_EVENTS, (thread_id, _json(batch.events), self.tenant))
        self._remember(thread_id, batch, rows)

    def _tombstones(self, thread_id: str, payloads: list[dict[str, Any]]) -> db.Op[None]:
        if payloads:
            events = [self._event("lg_delete", p) for p in payloads]
            yield db.Query(db.APPEND_EVENTS, (thread_id, _json(events), self.tenant))

    def delete_thread(self, thread_id: str) -> db.Op[None]:
        if not (yield db.Query(_HAS_THREAD, (thread_id,)))[0][0]:
            return  # nothing live: no tombstone (and no conversation created)
        yield db.Begin
        yield from self._tombstones(thread_id, [{"scope": "thread"}])
        yield db.Query(db.CLEAR_VIEW, (thread_id,))  # the working view restarts with the thread
        yield db.End

    def prune(self, thread_ids: Sequence[str], strategy: str) -> db.Op[None]:
        if isinstance(thread_ids, str):  # its characters would be pruned as threads (PostgresSaver refuses it too)
            raise TypeError("thread_ids must be a sequence of thread IDs, not a str")
        if strategy not in ("keep_latest", "delete"):
            raise ValueError(f"unknown prune strategy {strategy!r}: 'keep_latest' or 'delete'")
        for thread_id in thread_ids:
            if strategy == "delete":
                yield from self.delete_thread(thread_id)
                continue
            live = yield db.Query(_PRUNE_LIVE, (thread_id,))
            kept = yield from self._kept_by_keep_latest(thread_id, live)
            if any((ns, cid) not in kept for ns, cid, *_ in live):  # else nothing to delete: no tombstone
                yield from self._tombstones(thread_id, [{"scope": "all_but", "keep": [
                    {"ns": ns, "checkpoint_id": cid} for ns, cid in sorted(kept)]}])

    def _kept_by_keep_latest(self, thread_id: str, live: list[tuple[Any, ...]]) -> db.Op[set[tuple[str, str]]]:
        """The (ns, checkpoint id)s a keep_latest tombstone must leave of a thread whose live
        checkpoints are ``live``: what PostgresSaver's keep_latest leaves. Per namespace its newest
        checkpoint, and that one's parent when the head predates v4 and the parent has sends (the
        head reads them from there). A subgraph call's namespace (a task id after ":") goes with the
        root checkpoint the call started from, once that one is saved and not kept; a
        ``checkpointer=True`` subgraph's (no ":") keeps its newest. And every id whose writes count
        but which has no live checkpoint, outside those calls: a run saves a step's writes in the
        background, before its checkpoint, and the tombstone covers the ids it does not name."""
        heads: dict[str, tuple[Any, ...]] = {}
        for row in live:  # newest first per namespace
            heads.setdefault(row[0], row)
        kept: set[tuple[str, str]] = set()
        for ns, (_, cid, parent, v, _) in heads.items():
            kept.add((ns, cid))
            if v < 4 and parent and (yield from self._pending_sends(thread_id, ns, parent)):
                kept.add((ns, parent))
        saved = {(ns, cid) for ns, cid, *_ in live}
        calls = {ns for ns, (*_, root) in heads.items()
                 if ":" in ns and ("", root) in saved and ("", root) not in kept}
        for ns, cid, last in (yield db.Query(_PRUNE_WRITES, (thread_id,))):
            if (ns, cid) not in saved and last > (yield db.Query(_DELETED_AT, (thread_id, ns, cid)))[0][0]:
                kept.add((ns, cid))
        return {(ns, cid) for ns, cid in kept if ns not in calls}

    def delete_for_runs(self, run_ids: Sequence[str]) -> db.Op[None]:
        if not run_ids:
            return
        by_thread: dict[str, list[dict[str, str]]] = {}
        for (thread_id,) in (yield db.Query(_RUN_THREADS, (list(run_ids),))):
            for ns, cid in (yield db.Query(_RUN_CHECKPOINTS, (thread_id, list(run_ids)))):
                by_thread.setdefault(thread_id, []).append({"ns": ns, "checkpoint_id": cid})
        for thread_id, named in by_thread.items():
            yield from self._tombstones(thread_id, [
                {"scope": "checkpoints", "checkpoints": named[i:i + _TOMBSTONE_CHUNK]}
                for i in range(0, len(named), _TOMBSTONE_CHUNK)])

    def copy_thread(self, source: str, target: str) -> db.Op[None]:
        """Every live checkpoint of ``source`` put again on ``target`` (oldest first per namespace,
        so each parent is there before its children and deltas stay deltas), each followed by its
        pending writes that count, put again; one transaction."""
        cache = _Cache(size=1 << 30)  # this copy's own (target's states): merged once it has committed
        records: dict[tuple[str, str], dict[str, Any]] = {}  # the source's records, absolute
        try:
            yield from self._copy(source, target, cache, records)
        except BaseException:
            self.forget()  # it remembered states and message events of a transaction rolled back
            raise
        self.cache.update(cache)

    def _copy(self, source: str, target: str, cache: _Cache, records: dict[tuple[str, str], dict[str, Any]]
              ) -> db.Op[None]:
        yield db.Begin
        for ns, cid, seq, payload in (yield db.Query(_ALL_LIVE, (source,))):
            tup, writes = yield from self._rebuild(source, seq, payload, migrate=False)
            parent = tup.parent_config["configurable"]["checkpoint_id"] if tup.parent_config else None
            config: RunnableConfig = {"configurable": {"thread_id": target, "checkpoint_ns": ns,
                                                       **({"checkpoint_id": parent} if parent else {})}}
            mine = records[(ns, cid)] = {ch: _absolute(seq, r) for ch, r in payload["channels"].items()}
            before = records.get((ns, parent), {}) if parent else {}
            # a channel the source wrote at this checkpoint is written again; the rest is inherited
            changed = {ch: v for ch, v in tup.checkpoint["channel_versions"].items() if before.get(ch) != mine.get(ch)}
            stored = yield from self.put(config, tup.checkpoint, tup.metadata, changed, cache)
            for event, values in writes:
                yield from self.put_writes(stored, values, event["task_id"], event.get("task_path", ""))
        yield db.End


def next_version(current: str | int | None) -> str:
    """A channel's next version: a zero-padded counter (so versions compare as strings) and a
    random fraction, so versions written on two forks of one thread never compare equal (as
    PostgresSaver's, with 12 digits instead of 32 and 6 decimals instead of 16: a version is
    written some ten times per checkpoint)."""
    number = 0 if current is None else current if isinstance(current, int) else int(str(current).split(".")[0])
    return f"{number + 1:012}.{random.random():.6f}"


def _conn_params(conn: psycopg.Connection | psycopg.AsyncConnection) -> dict[str, Any]:
    params = conn.info.get_parameters()
    if conn.info.password:
        params["password"] = conn.info.password
    return params


class PgctxSaver(BaseCheckpointSaver[str]):
    """LangGraph's checkpointer on pgctx, for a psycopg ``Connection`` or ``ConnectionPool``.

    ``PgctxSaver(conn_or_pool, *, serde=None, tenant=None, budget=None, cache_messages=50_000)``:
    ``serde`` is LangGraph's (default ``JsonPlusSerializer``); ``tenant`` the pgctx tenant of new
    threads; ``budget`` counts the tokens stored with message events (default ``pgctx.Budget()``);
    ``cache_messages`` bounds what the saver remembers of its threads' newest states (a put whose
    parent is not remembered reads it first). The async methods run
    the sync ones in a worker thread, so a graph compiled with this saver also runs under
    ``ainvoke``; :class:`AsyncPgctxSaver` is the native async one.
    """

    def __init__(self, conn: psycopg.Connection | ConnectionPool, *, serde: SerializerProtocol | None = None,
                 tenant: str | None = None, budget: Budget | None = None,
                 cache_messages: int = CACHE_MESSAGES) -> None:
        super().__init__(serde=serde)
        if not isinstance(conn, (psycopg.Connection, ConnectionPool)):
            raise TypeError("PgctxSaver needs a psycopg Connection or ConnectionPool (AsyncPgctxSaver takes async ones)")
        self.conn = conn
        self.budget = budget or Budget()
        self._store = _Store(self.serde, tenant, self.budget.counter(), cache_messages)
        self._lock = threading.Lock()  # one connection: one operation at a time (pools lend one each)

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str, **options: Any) -> Iterator[PgctxSaver]:
        """A saver on its own autocommit connection, closed when the block ends."""
        with psycopg.Connection.connect(conn_string, autocommit=True) as conn:
            yield cls(conn, **options)

    def setup(self) -> None:
        """Bring the database's pgctx schema to the newest migration (as the schema owner)."""
        if isinstance(self.conn, ConnectionPool):
            migrate(self.conn)
        else:
            with psycopg.Connection.connect(**_conn_params(self.conn)) as conn:
                migrate(conn)

    def _run(self, op: db.Op[Any]) -> Any:
        if isinstance(self.conn, ConnectionPool):
            return db.run(self.conn, op)
        with self._lock:
            outer = self.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE
            try:
                return db.run(self.conn, op)
            finally:
                if outer:  # what it cached names seqs of the caller's transaction, which may roll back
                    self._store.forget()

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        conf = config["configurable"]
        return self._run(self._store.get(conf["thread_id"], conf.get("checkpoint_ns", ""), get_checkpoint_id(config)))

    def list(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
             before: RunnableConfig | None = None, limit: int | None = None) -> Iterator[CheckpointTuple]:
        yield from self._run(self._store.list(config, filter, before, limit))

    def put(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
            new_versions: ChannelVersions) -> RunnableConfig:
        return self._run(self._store.put(config, checkpoint, metadata, new_versions))

    def put_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                   task_path: str = "") -> None:
        self._run(self._store.put_writes(config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str) -> None:
        self._run(self._store.delete_thread(thread_id))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        self._run(self._store.delete_for_runs(run_ids))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self._run(self._store.copy_thread(source_thread_id, target_thread_id))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self._run(self._store.prune(thread_ids, strategy))

    def get_next_version(self, current: str | None, channel: None = None) -> str:
        return next_version(current)

    # the async interface, on a worker thread
    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await asyncio.to_thread(self.get_tuple, config)

    async def alist(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
                    before: RunnableConfig | None = None, limit: int | None = None) -> AsyncIterator[CheckpointTuple]:
        for item in await asyncio.to_thread(lambda: list(self.list(config, filter=filter, before=before, limit=limit))):
            yield item

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
                   new_versions: ChannelVersions) -> RunnableConfig:
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        await asyncio.to_thread(self.delete_for_runs, run_ids)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await asyncio.to_thread(self.copy_thread, source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await asyncio.to_thread(self.prune, thread_ids, strategy=strategy)


class AsyncPgctxSaver(BaseCheckpointSaver[str]):
    """LangGraph's async checkpointer on pgctx, for a psycopg ``AsyncConnection`` or
    ``AsyncConnectionPool`` (options as :class:`PgctxSaver`). Its sync methods work from other
    threads than the event loop's (as AsyncPostgresSaver's do)."""

    def __init__(self, conn: psycopg.AsyncConnection | AsyncConnectionPool, *,
                 serde: SerializerProtocol | None = None, tenant: str | None = None,
                 budget: Budget | None = None,
                 cache_messages: int = CACHE_MESSAGES) -> None:
        super().__init__(serde=serde)
        if not isinstance(conn, (psycopg.AsyncConnection, AsyncConnectionPool)):
            raise TypeError("AsyncPgctxSaver needs a psycopg AsyncConnection or AsyncConnectionPool")
        self.conn = conn
        self.budget = budget or Budget()
        self._store = _Store(self.serde, tenant, self.budget.counter(), cache_messages)
        self._lock = asyncio.Lock()
        self.loop = asyncio.get_running_loop()

    @classmethod
    @asynccontextmanager
    async def from_conn_string(cls, conn_string: str, **options: Any) -> AsyncIterator[AsyncPgctxSaver]:
        """A saver on its own autocommit connection, closed when the block ends."""
        async with await psycopg.AsyncConnection.connect(conn_string, autocommit=True) as conn:
            yield cls(conn, **options)

    async def setup(self) -> None:
        """Bring the database's pgctx schema to the newest migration (as the schema owner)."""
        if isinstance(self.conn, AsyncConnectionPool):
            target: Any = self.conn.conninfo
        else:
            target = psycopg.conninfo.make_conninfo(**_conn_params(self.conn))
        await asyncio.to_thread(migrate, target)

    async def _run(self, op: db.Op[Any]) -> Any:
        if isinstance(self.conn, AsyncConnectionPool):
            return await db.run(self.conn, op)
        async with self._lock:
            outer = self.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE
            try:
                return await db.run(self.conn, op)
            finally:
                if outer:  # as PgctxSaver._run
                    self._store.forget()

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        conf = config["configurable"]
        return await self._run(self._store.get(conf["thread_id"], conf.get("checkpoint_ns", ""),
                                               get_checkpoint_id(config)))

    async def alist(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
                    before: RunnableConfig | None = None, limit: int | None = None) -> AsyncIterator[CheckpointTuple]:
        for item in await self._run(self._store.list(config, filter, before, limit)):
            yield item

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
                   new_versions: ChannelVersions) -> RunnableConfig:
        return await self._run(self._store.put(config, checkpoint, metadata, new_versions))

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        await self._run(self._store.put_writes(config, writes, task_id, task_path))

    async def adelete_thread(self, thread_id: str) -> None:
        await self._run(self._store.delete_thread(thread_id))

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        await self._run(self._store.delete_for_runs(run_ids))

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await self._run(self._store.copy_thread(source_thread_id, target_thread_id))

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await self._run(self._store.prune(thread_ids, strategy))

    def get_next_version(self, current: str | None, channel: None = None) -> str:
        return next_version(current)

    # the sync interface, from another thread than the event loop's
    def _sync(self, coro: Any) -> Any:
        try:
            if asyncio.get_running_loop() is self.loop:
                coro.close()
                raise asyncio.InvalidStateError(
                    "AsyncPgctxSaver's sync methods are for other threads than its event loop's;"
                    " there, use the async ones (await graph.ainvoke(...), checkpointer.alist(...))")
        except RuntimeError:
            pass
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self._sync(self.aget_tuple(config))

    def list(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
             before: RunnableConfig | None = None, limit: int | None = None) -> Iterator[CheckpointTuple]:
        yield from self._sync(self._run(self._store.list(config, filter, before, limit)))

    def put(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
            new_versions: ChannelVersions) -> RunnableConfig:
        return self._sync(self.aput(config, checkpoint, metadata, new_versions))

    def put_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                   task_path: str = "") -> None:
        self._sync(self.aput_writes(config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str) -> None:
        self._sync(self.adelete_thread(thread_id))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        self._sync(self.adelete_for_runs(run_ids))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self._sync(self.acopy_thread(source_thread_id, target_thread_id))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self._sync(self.aprune(thread_ids, strategy=strategy))


# --- folding for graphs ---------------------------------------------------------------------

def _context(thread_id: str, messages: Sequence[BaseMessage], budget: Budget, summarizer: Summarizer,
             fold: bool, strict: bool) -> db.Op[list[BaseMessage]]:
    if fold:
        try:
            result: FoldResult = yield from _fold(thread_id, summarizer, budget, False, None, ATTEMPTS)
            log.debug("pgctx: fold of thread %s: %s", thread_id, result)
        except PgctxError as exc:
            if strict:
                raise
            log.warning("pgctx: fold of thread %s failed, using the previous summary: %s [%s]",
                        thread_id, exc, exc.sqlstate or type(exc).__name__)
    head: list[BaseMessage] = []
    cursor = 0
    for section, seq, kind, payload, _, reason, _ in (yield db.Query(db.CONTEXT_EVENTS, (thread_id, 0))):
        if section == "summary" and payload["version"]:
            cursor = seq
            summary = payload["summary"]
            head.append(SystemMessage(task_message(summary)["content"] + "\n"
                                      + summary_message(summary, payload["version"], seq)["content"]))
        elif section == "evidence":
            shown = {k: v for k, v in payload.items() if k != "lg"}
            head.append(SystemMessage(evidence_note(kind, shown, seq, reason)["content"]))
    if not cursor:
        return head + list(messages)
    ids = [m.id for m in messages if m.id]
    seqs = dict((yield db.Query(_MESSAGE_SEQS, (thread_id, ids)))) if ids else {}
    keep = {i for i, m in enumerate(messages) if seqs.get(m.id) is None or seqs[m.id] > cursor}
    calls = {c.get("id"): i for i, m in enumerate(messages) for c in (getattr(m, "tool_calls", None) or [])}
    for i in list(keep):  # a tool message comes with the AI message that called it
        call = getattr(messages[i], "tool_call_id", None)
        if messages[i].type == "tool" and call in calls:
            keep.add(calls[call])
    return head + [m for i, m in enumerate(messages) if i in keep]


def folded_messages(saver: PgctxSaver, config: RunnableConfig, messages: Sequence[BaseMessage], *,
                    budget: Budget | None = None, summarizer: Summarizer | None = None, fold: bool = True,
                    strict: bool = False) -> list[BaseMessage]:
    """A graph node's working context: fold the thread when pgctx's policy says a fold is due
    (``budget``, default the saver's; ``summarizer``, default the built-in one), then return the
    committed summary (one system message), the evidence kept raw (system notes), and the
    messages of ``messages`` (the state's) the summary does not cover, in order; a tool message
    always with the AI message that called it. A failed fold is logged and the previous summary
    used (``strict=True`` raises it). The checkpoints keep every message. On a saver with one
    connection the fold holds it, summarizer call included (a pool lends the fold its own)."""
    op = _context(config["configurable"]["thread_id"], messages, budget or saver.budget,
                  summarizer or BuiltinSummarizer(), fold, strict)
    return saver._run(op)


async def afolded_messages(saver: AsyncPgctxSaver | PgctxSaver, config: RunnableConfig,
                           messages: Sequence[BaseMessage], *, budget: Budget | None = None,
                           summarizer: Summarizer | None = None, fold: bool = True,
                           strict: bool = False) -> list[BaseMessage]:
    """:func:`folded_messages` for async graph nodes."""
    if isinstance(saver, PgctxSaver):
        return await asyncio.to_thread(folded_messages, saver, config, messages, budget=budget,
                                       summarizer=summarizer, fold=fold, strict=strict)
    op = _context(config["configurable"]["thread_id"], messages, budget or saver.budget,
                  summarizer or BuiltinSummarizer(), fold, strict)
    return await saver._run(op)
