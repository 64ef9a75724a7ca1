"""Summary schema_version 1, frozen: the model whose JSON Schema sql/071_summary_v1.sql registered.

Checkpoints of version 1 stay valid, readable and verifiable; this module keeps the model so
that the registered schema stays reproducible (tests/test_folds.py compares them). New summaries
are version 2 (:mod:`pgctx.summary`), which reuses the parts below that did not change.

Status fields are finite sets that include ``unknown``: a timeout is ``unknown``, never
``failed``.
"""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

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
