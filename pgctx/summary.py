"""The structured summary a fold commits (article section 六), as a pydantic model.

Its JSON Schema is registered in the database per ``schema_version`` (sql/071_summary_v1.sql),
and pgctx.prepare_fold validates every candidate against the registered schema in SQL, so a
candidate from psql and one from Python are held to the same rules. A test proves the registered
schema equals :func:`json_schema`.

Status fields are finite sets that include ``unknown``: a timeout is ``unknown``, never
``failed``.
"""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1

ActionStatus = Literal["planned", "running", "succeeded", "failed", "cancelled", "unknown"]
TaskStatus = Literal[
    "planned", "running", "waiting_for_user_confirmation", "waiting_for_approval", "blocked",
    "succeeded", "failed", "cancelled", "unknown",
]
Scalar = Union[str, int, float, bool, None]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Task(_Strict):
    goal: str
    status: TaskStatus


class Fact(_Strict):
    key: str
    value: Scalar
    confidence: Literal["confirmed", "inferred", "unknown"]
    authority: str = Field(description="who established it: 'user', 'model', or the tool/service name")
    source_event_ids: list[int]
    status: Literal["active", "expired"]
    observed_at: Optional[str] = None
    valid_until: Optional[str] = None
    previous_value: Scalar = None


class Decision(_Strict):
    decision: str
    status: Literal["active", "superseded", "rejected"]
    source_event_ids: list[int]


class ToolCallState(_Strict):
    tool: str
    effect: Literal["read", "write", "irreversible"]
    status: ActionStatus
    source_event_ids: list[int]
    request_id: Optional[str] = None
    idempotency_key: Optional[str] = None
    error: Optional[str] = None


class Action(_Strict):
    action: str
    status: ActionStatus
    source_event_ids: list[int]


class Pending(_Strict):
    action: str
    blocking: bool
    source_event_ids: list[int]


class EventRange(_Strict):
    from_: int = Field(alias="from")
    to: int


class Summary(_Strict):
    schema_version: Literal[1]
    task: Task
    facts: list[Fact]
    decisions: list[Decision]
    tool_state: dict[str, ToolCallState] = Field(description="keyed by tool call id")
    completed_actions: list[Action]
    pending: list[Pending]
    constraints: list[str]
    open_questions: list[str]
    omitted_event_range: EventRange
    last_event_id: int


def json_schema() -> dict[str, Any]:
    """The JSON Schema registered for schema_version 1."""
    return Summary.model_json_schema(by_alias=True)


def dump(summary: Summary | dict[str, Any]) -> dict[str, Any]:
    """A summary as the JSON object pgctx stores (aliases; optional fields only when set)."""
    if isinstance(summary, Summary):
        # exclude_unset, not exclude_none: a required field may hold null (a fact's value)
        return summary.model_dump(by_alias=True, mode="json", exclude_unset=True)
    return summary
