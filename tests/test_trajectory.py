"""The trajectory format (pgctx.evaluation.trajectory, docs/eval.md): every malformed file is refused with the
file, the line and the field, before anything is evaluated. No database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pgctx.evaluation.trajectory import DecisionStep, EventStep, TrajectoryError, load, load_all, suite_dir

HEADER = {"pgctx_trajectory": 1, "id": "tiny", "title": "a tiny one", "exercises": ["the format"],
          "tools": [{"tool": "lookup", "effect": "read", "identifier_args": ["order_id"]}]}
EVENT = {"type": "event", "kind": "user", "payload": {"text": "where is 10086?"}, "seq": 1}
DECISION = {"type": "decision", "id": "d1", "probes": [{"probe": "constraint", "seq": 1, "text": "10086"}]}


def write(path: Path, *lines) -> Path:
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n",
                    encoding="utf-8")
    return path


def refused(path: Path) -> TrajectoryError:
    with pytest.raises(TrajectoryError) as caught:
        load_all([path])
    return caught.value


def test_a_valid_file_loads_with_its_steps_and_lines(tmp_path):
    t = load(write(tmp_path / "t.jsonl", HEADER, EVENT, "", DECISION))
    assert t.id == "tiny" and t.header.tools[0].identifier_args == ["order_id"]
    assert [(n, type(s)) for n, s in t.steps] == [(2, EventStep), (4, DecisionStep)]
    assert t.decisions[0].probes[0].text == "10086"


CASES = {
    "not JSON": (["{"], 2, None, "not JSON"),
    "bad header field": ([], 1, "pgctx_trajectory", None),
    "unknown step type": ([{"type": "rewind"}], 2, "(line)", None),
    "unknown probe class": ([{**DECISION, "probes": [{"probe": "vibes"}]}], 2, "probes.0", None),
    "probe field of the wrong type": ([{**DECISION, "probes": [{"probe": "constraint", "seq": "one", "text": "x"}]}],
                                      2, "probes.0.seq", None),
    "extra field": ([{**EVENT, "colour": "red"}], 2, "colour", None),
    "tool_state naming two calls": ([{**DECISION, "probes": [{"probe": "tool_state", "call_id": "c1",
                                                             "idempotency_key": "k1", "status": "unknown"}]}],
                                    2, "probes.0", "exactly one"),
    "a float argument value": ([{**DECISION, "probes": [{"probe": "next_call", "tool": "t",
                                                        "arguments": {"amount": 12.5}}]}], 2, "probes.0.arguments.amount", None),
    "a recovery event by hand": ([{"type": "event", "kind": "recovery", "payload": {}}], 2, "(line)", "recover"),
    "switch to an unknown branch": ([{"type": "switch", "branch": "b"}], 2, "branch", "no branch"),
    "fork twice": ([{"type": "fork", "branch": "b"}, {"type": "fork", "branch": "b"}], 3, "branch", "already"),
}


@pytest.mark.parametrize("steps, line, field, message", CASES.values(), ids=CASES.keys())
def test_a_malformed_file_names_its_line_and_field(tmp_path, steps, line, field, message):
    header = {**HEADER, "pgctx_trajectory": 2} if field == "pgctx_trajectory" else HEADER
    error = refused(write(tmp_path / "bad.jsonl", header, *steps, DECISION))
    assert (error.line, error.field) == (line, field), error
    assert error.path == str(tmp_path / "bad.jsonl") and str(error).startswith(f"{error.path}, line {line}")
    if message:
        assert message in str(error)


def test_a_file_without_a_decision_or_empty_is_refused(tmp_path):
    assert "no decision point" in str(refused(write(tmp_path / "a.jsonl", HEADER, EVENT)))
    (tmp_path / "b.jsonl").write_text("\n", encoding="utf-8")
    assert "empty file" in str(refused(tmp_path / "b.jsonl"))
    (tmp_path / "c.jsonl").write_bytes(b"\xff\xfe")
    assert "not UTF-8" in str(refused(tmp_path / "c.jsonl"))
    assert "cannot read" in str(refused(tmp_path / "missing.jsonl"))


def test_one_bad_file_of_a_set_evaluates_nothing_and_names_itself(tmp_path):
    write(tmp_path / "1_good.jsonl", HEADER, EVENT, DECISION)
    write(tmp_path / "2_bad.jsonl", {**HEADER, "id": "other"}, {"type": "event"}, DECISION)
    error = refused(tmp_path)
    assert error.path.endswith("2_bad.jsonl") and error.line == 2


def test_ids_are_unique_and_tools_declared_alike_across_a_set(tmp_path):
    write(tmp_path / "a.jsonl", HEADER, EVENT, DECISION)
    write(tmp_path / "b.jsonl", HEADER, EVENT, DECISION)
    assert "also used by" in str(refused(tmp_path))
    other = {**HEADER, "id": "other", "tools": [{"tool": "lookup", "effect": "write"}]}
    write(tmp_path / "b.jsonl", other, EVENT, DECISION)
    error = refused(tmp_path)
    assert "declared differently" in str(error) and error.field == "tools"


def test_no_files_found_names_where_it_looked(tmp_path):
    assert str(tmp_path) in str(refused(tmp_path))
    with pytest.raises(TrajectoryError) as caught:
        load_all([])
    assert "(no path)" in str(caught.value)


def test_the_shipped_suite_is_the_default():
    assert [t.path for t in load_all()] == [str(p) for p in sorted(suite_dir().glob("*.jsonl"))]
