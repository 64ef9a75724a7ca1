"""Trajectories: recorded agent conversations with the probes a working context must satisfy.

A trajectory is a JSON Lines file (docs/eval.md has the full reference). Line 1 is the header;
every later line is one step, in order:

- ``{"type": "event", "kind": ..., "payload": {...}}`` appends an event to the current
  conversation (optionally ``"seq"``: the seq the author expects it to get, checked on replay);
- ``{"type": "decision", "id": ..., "probes": [...]}`` is a decision point: the agent is about to
  act, and the working context built now must satisfy every probe;
- ``{"type": "recover"}`` runs ``pgctx.recover`` (the agent restarted): a call still running
  becomes ``unknown`` through one appended ``recovery`` event;
- ``{"type": "fork", "branch": name}`` folds what is unfolded and forks the current conversation
  at its committed fold boundary; ``{"type": "switch", "branch": name}`` sends the following steps
  to that branch (``"main"`` is the original); ``{"type": "confirm_mainline", "branch": name}``.

Probes (``"probe"`` names the class; :mod:`pgctx.evaluation.probes` judges them, exactly as documented):

- ``fact``: ``key`` (and optionally ``subject``, e.g. ``"order_id=10086"``) has ``value`` as its
  active value, and none of ``superseded`` is presented as active;
- ``tool_state``: the call (``call_id`` or ``idempotency_key``) has ``status`` (and
  ``request_id``): an ``unknown`` call that reads as failed or succeeded fails;
- ``next_call``: every argument value the next call of ``tool`` needs appears in the context;
- ``pending``: an approval (``approval_id``) or call (``call_id``) is shown as still open;
- ``constraint``: what the user said or allowed at event ``seq`` (containing ``text``) is there;
- ``evidence``: the events ``seqs`` are in the context raw.

:func:`load` reads and validates a file; any problem is a :class:`TrajectoryError` naming the
file, the line and the field, and nothing is evaluated.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

import pydantic
from pydantic import BaseModel, ConfigDict, Field, model_validator

from pgctx.errors import PgctxError
from pgctx.summary import ActionStatus

FORMAT_VERSION = 1
Scalar = Union[str, int, float, bool, None]
Value = Union[Scalar, list[Scalar]]


class TrajectoryError(PgctxError):
    """A trajectory file that cannot be evaluated: ``path``, ``line`` (1-based) and ``field`` say where."""

    def __init__(self, message: str, *, path: str, line: int | None = None, field: str | None = None):
        where = path + (f", line {line}" if line else "") + (f", field {field}" if field else "")
        super().__init__(f"{where}: {message}")
        self.path, self.line, self.field = path, line, field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Tool(_Strict):
    """A tool the trajectory's agent uses, declared with pgctx.declare_tool before replay."""

    tool: str
    effect: Literal["read", "write", "irreversible"]
    identifier_args: list[str] = []
    description: Optional[str] = None


class Header(_Strict):
    pgctx_trajectory: Literal[1]
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,62}$")
    title: str
    exercises: list[str] = Field(min_length=1, description="what the trajectory tests, one item each")
    description: str = ""
    tools: list[Tool] = []
    # the context window (tokens) it is played in, instead of the run's; an eighth of it is kept for
    # the answer and nothing else is reserved, as in the suite's 4,096-token window (docs/eval.md)
    window: Optional[int] = Field(default=None, ge=64, le=1_048_576)


class _Probe(_Strict):
    why: str = ""  # what the author wants this probe to show

    def _exactly_one(self, *names: str) -> None:
        if sum(getattr(self, name) is not None for name in names) != 1:
            raise ValueError(f"name exactly one of {' and '.join(names)}")


class FactProbe(_Probe):
    probe: Literal["fact"]
    key: str
    subject: Optional[str] = None
    value: Value
    superseded: list[Value] = []


class ToolStateProbe(_Probe):
    probe: Literal["tool_state"]
    call_id: Optional[str] = None
    idempotency_key: Optional[str] = None
    status: ActionStatus
    request_id: Optional[str] = None

    @model_validator(mode="after")
    def _one_name(self) -> ToolStateProbe:
        self._exactly_one("call_id", "idempotency_key")
        return self


class NextCallProbe(_Probe):
    probe: Literal["next_call"]
    tool: str
    # values are searched as text: write an amount as it appears ("905.00"); a float would be
    # searched in Python's spelling, which the stored canonical form need not share
    arguments: dict[str, Union[str, int]] = Field(min_length=1)


class PendingProbe(_Probe):
    probe: Literal["pending"]
    approval_id: Optional[str] = None
    call_id: Optional[str] = None

    @model_validator(mode="after")
    def _one_name(self) -> PendingProbe:
        self._exactly_one("approval_id", "call_id")
        return self


class ConstraintProbe(_Probe):
    probe: Literal["constraint"]
    seq: int = Field(ge=1)
    text: str = Field(min_length=1)


class EvidenceProbe(_Probe):
    probe: Literal["evidence"]
    seqs: list[int] = Field(min_length=1)


Probe = Annotated[Union[FactProbe, ToolStateProbe, NextCallProbe, PendingProbe, ConstraintProbe, EvidenceProbe],
                  Field(discriminator="probe")]
PROBE_CLASSES = ("fact", "tool_state", "next_call", "pending", "constraint", "evidence")


class EventStep(_Strict):
    type: Literal["event"]
    kind: str
    payload: dict[str, Any]
    seq: Optional[int] = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _not_written_by_pgctx(self) -> EventStep:
        if self.kind in ("recovery", "branch_merge"):
            raise ValueError(f"{self.kind} events are appended by pgctx itself: use a "
                             f"{'recover' if self.kind == 'recovery' else 'confirm_mainline'} step")
        return self


class DecisionStep(_Strict):
    type: Literal["decision"]
    id: str
    probes: list[Probe] = Field(min_length=1)
    note: str = ""


class RecoverStep(_Strict):
    type: Literal["recover"]


class ForkStep(_Strict):
    type: Literal["fork"]
    branch: str


class SwitchStep(_Strict):
    type: Literal["switch"]
    branch: str


class ConfirmStep(_Strict):
    type: Literal["confirm_mainline"]
    branch: str


Step = Annotated[Union[EventStep, DecisionStep, RecoverStep, ForkStep, SwitchStep, ConfirmStep],
                 Field(discriminator="type")]
_STEP = pydantic.TypeAdapter(Step)


@dataclass(frozen=True)
class Trajectory:
    path: str
    header: Header
    steps: list[tuple[int, Any]]  # (line number, step)

    @property
    def id(self) -> str:
        return self.header.id

    @property
    def events(self) -> list[EventStep]:
        return [s for _, s in self.steps if isinstance(s, EventStep)]

    @property
    def decisions(self) -> list[DecisionStep]:
        return [s for _, s in self.steps if isinstance(s, DecisionStep)]


def _field(error: dict[str, Any]) -> str:
    # the discriminator's value and the union member's type are noise in a location:
    # "probes.0.fact.value" -> "probes.0.value", "arguments.amount.str" -> "arguments.amount"
    return ".".join(str(p) for p in error["loc"] if p not in _NOISE and "[" not in str(p)) or "(line)"


_STEP_TYPES = ("event", "decision", "recover", "fork", "switch", "confirm_mainline")
_NOISE = frozenset((*PROBE_CLASSES, *_STEP_TYPES, "str", "int", "float", "bool", "none", "list", "dict"))


def _invalid(path: str, line: int, exc: pydantic.ValidationError) -> TrajectoryError:
    first = exc.errors()[0]
    return TrajectoryError(first["msg"], path=path, line=line, field=_field(first))


def parse(lines: Iterable[str], path: str = "<trajectory>") -> Trajectory:
    """A trajectory from its lines; TrajectoryError on the first problem."""
    header: Header | None = None
    steps: list[tuple[int, Any]] = []
    branches = {"main"}
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TrajectoryError(f"not JSON: {exc.msg} (column {exc.colno})", path=path, line=number) from None
        if header is None:
            try:
                header = Header.model_validate(value)
            except pydantic.ValidationError as exc:
                raise _invalid(path, number, exc) from None
            continue
        try:
            step = _STEP.validate_python(value)
        except pydantic.ValidationError as exc:
            raise _invalid(path, number, exc) from None
        if isinstance(step, ForkStep):
            if step.branch in branches:
                raise TrajectoryError(f"branch {step.branch!r} already exists", path=path, line=number,
                                      field="branch")
            branches.add(step.branch)
        elif isinstance(step, (SwitchStep, ConfirmStep)) and step.branch not in branches:
            raise TrajectoryError(f"no branch {step.branch!r} was forked before this line", path=path,
                                  line=number, field="branch")
        steps.append((number, step))
    if header is None:
        raise TrajectoryError("empty file: the first line must be the trajectory header", path=path)
    if not any(isinstance(s, DecisionStep) for _, s in steps):
        raise TrajectoryError("no decision point: nothing would be judged", path=path)
    return Trajectory(path, header, steps)


def load(path: str | Path) -> Trajectory:
    """Read and validate one trajectory file."""
    name = str(path)
    try:
        with open(path, encoding="utf-8") as fh:
            return parse(fh, name)
    except OSError as exc:
        raise TrajectoryError(f"cannot read: {exc.strerror}", path=name) from None
    except UnicodeDecodeError as exc:
        raise TrajectoryError(f"not UTF-8: {exc.reason}", path=name) from None


def suite_dir() -> Path:
    """The trajectories shipped with pgctx (``pgctx eval`` with no path runs them)."""
    return Path(__file__).resolve().parent / "suite"


def load_all(paths: Iterable[str | Path] | None = None) -> list[Trajectory]:
    """Every trajectory of ``paths`` (files, or directories of ``*.jsonl``), default the shipped
    suite; all are validated before any is returned, so one bad file evaluates nothing."""
    places = [suite_dir()] if paths is None else [Path(p) for p in paths]
    files: list[Path] = []
    for p in places:
        files += sorted(p.glob("*.jsonl")) if p.is_dir() else [p]
    if not files:
        raise TrajectoryError("no trajectory files (*.jsonl) found", path=", ".join(map(str, places)) or "(no path)")
    loaded = [load(f) for f in files]
    seen: dict[str, str] = {}
    tools: dict[str, tuple[Tool, str]] = {}
    for t in loaded:
        if t.id in seen:
            raise TrajectoryError(f"trajectory id {t.id!r} is also used by {seen[t.id]}", path=t.path, line=1,
                                  field="id")
        seen[t.id] = t.path
        for tool in t.header.tools:  # one registry (pgctx.tools) holds them all
            other = tools.setdefault(tool.tool, (tool, t.path))
            if (other[0].effect, other[0].identifier_args) != (tool.effect, tool.identifier_args):
                raise TrajectoryError(f"tool {tool.tool!r} is declared differently in {other[1]}", path=t.path,
                                      line=1, field="tools")
    return loaded
