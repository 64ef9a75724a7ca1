"""The structured summary a fold commits (article section 六), as a pydantic model: schema_version 2.

Its JSON Schema is registered in the database per ``schema_version`` (sql/072_summary_v2.sql;
version 1, :mod:`pgctx.summary_v1`, stays registered and valid), and pgctx.prepare_fold validates
every candidate against the registered schema in SQL, so a candidate from psql and one from
Python are held to the same rules. A test proves the registered schema equals :func:`json_schema`.

Version 2 extends version 1's models (:mod:`pgctx.summary_v1`). What it adds, so that a summary keeps what the next decision needs and stays
bounded (docs/guarantees.md, "Summaries"):

- ``facts`` may hold a short list of scalars, and name their ``subject`` (the identifiers they are
  about, e.g. ``order_id=10086``), so two orders' delivery dates are two facts;
- ``user_requests``: what the user said that still binds the agent, verbatim, with sources;
- ``constraints`` cite their sources (an authorization's approval and the goal it scopes);
- ``task`` cites the event that set the goal;
- ``tool_state`` entries name their ``subject``; resolved calls beyond the horizon leave it and
  are collapsed into per-tool ``completed_actions`` (``tool``, ``count``); their request ids stay
  in the events and ``pgctx.side_effects``.

Status fields are finite sets that include ``unknown``: a timeout is ``unknown``, never
``failed``.
"""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, Field

from pgctx import summary_v1
from pgctx.summary_v1 import ActionStatus, Decision, EventRange, Pending, Scalar, TaskStatus, _Strict

SCHEMA_VERSION = 2

Value = Union[Scalar, list[Scalar]]

__all__ = ["SCHEMA_VERSION", "ActionStatus", "Action", "Decision", "EventRange", "Fact", "Pending", "Statement",
           "Summary", "Task", "TaskStatus", "ToolCallState", "Value", "cited", "dump", "json_schema"]


class Task(summary_v1.Task):
    source_event_ids: list[int] = Field(default_factory=list, description="the event that set the goal")


class Fact(summary_v1.Fact):
    value: Value
    subject: Optional[str] = Field(default=None, description="what it is about, e.g. 'order_id=10086'")
    previous_value: Value = None


class ToolCallState(summary_v1.ToolCallState):
    subject: Optional[str] = Field(default=None, description="the call's identifier arguments, e.g. 'order_id=10086'")


class Action(summary_v1.Action):
    tool: Optional[str] = Field(default=None, description="set on the per-tool entry that collapses older calls")
    count: Optional[int] = Field(default=None, description="how many calls a per-tool entry collapses")


class Statement(_Strict):
    text: str
    source_event_ids: list[int]


class Summary(_Strict):
    schema_version: Literal[2]
    task: Task
    facts: list[Fact]
    decisions: list[Decision]
    tool_state: dict[str, ToolCallState] = Field(description="keyed by tool call id")
    completed_actions: list[Action]
    pending: list[Pending]
    constraints: list[Statement]
    user_requests: list[Statement] = Field(description="the user's own words that still bind the agent, newest first")
    open_questions: list[str]
    omitted_event_range: EventRange
    last_event_id: int


MODELS: dict[int, type[BaseModel]] = {1: summary_v1.Summary, 2: Summary}


def json_schema(version: int = SCHEMA_VERSION) -> dict[str, Any]:
    """The JSON Schema registered for a schema_version."""
    return MODELS[version].model_json_schema(by_alias=True)


def cited(value: Any) -> list[int]:
    """Every event seq a summary (or any part of one) cites in its source_event_ids."""
    if isinstance(value, dict):
        return list(value.get("source_event_ids") or ()) + [i for v in value.values() for i in cited(v)]
    if isinstance(value, list):
        return [i for v in value for i in cited(v)]
    return []


def dump(summary: BaseModel | dict[str, Any]) -> dict[str, Any]:
    """A summary as the JSON object pgctx stores (aliases; optional fields only when set)."""
    if isinstance(summary, BaseModel):
        # exclude_unset, not exclude_none: a required field may hold null (a fact's value)
        return summary.model_dump(by_alias=True, mode="json", exclude_unset=True)
    return summary
