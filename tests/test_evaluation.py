"""pgctx.evaluate / pgctx eval on real PostgreSQL: the replay, the report, the baselines at equal
tokens, what a refused event or a malformed file does, and the shipped suite's targets."""

from __future__ import annotations

import json
import subprocess
import sys

import psycopg
import pytest

import pgctx
from pgctx import baselines, evaluation
from pgctx.evaluation import EVAL_BUDGET, evaluate, format_report
from pgctx.evaluation.trajectory import PROBE_CLASSES, TrajectoryError
from tests.test_trajectory import HEADER, write

LOG = "\n".join(f"scan {i}: parcel seen at hub {i % 7}, conveyor {i % 5}, weight 18.{i % 10} kg" for i in range(40))


def long_story(trajectory_id: str = "long-story") -> list[dict]:
    """A user who allows changes to order 10086 only, then 30 tracking turns with long logs."""
    lines: list[dict] = [{**HEADER, "id": trajectory_id,
                          "tools": [{"tool": "track", "effect": "read", "identifier_args": ["order_id"]}]}]
    seq = 0

    def event(kind: str, payload: dict) -> int:
        nonlocal seq
        seq += 1
        lines.append({"type": "event", "kind": kind, "payload": payload, "seq": seq})
        return seq

    rule = event("user", {"text": "Only order 10086 may be changed. Where is it?"})
    lines.append({"type": "decision", "id": "early", "probes": [{"probe": "constraint", "seq": rule, "text": "only order 10086"}]})
    for n in range(30):
        event("tool_call", {"tool": "track", "call_id": f"c{n}", "arguments": {"order_id": "10086"}})
        event("tool_result", {"call_id": f"c{n}", "outcome": "succeeded",
                              "result": {"eta": f"2026-09-{2 + n // 10:02d} 1{n % 10}:00"}, "log": LOG})
        event("assistant", {"text": f"Update {n}: still on its way."})
        event("user", {"text": "And now?"})
    lines.append({"type": "decision", "id": "late", "probes": [
        {"probe": "constraint", "seq": rule, "text": "only order 10086"},
        {"probe": "fact", "key": "eta", "subject": "order_id=10086", "value": "2026-09-04 19:00",
         "superseded": ["2026-09-04 18:00"]},
        {"probe": "next_call", "tool": "track", "arguments": {"order_id": "10086"}}]})
    return lines


def test_a_replay_judges_pgctx_and_both_baselines_at_equal_tokens(dsn, tmp_path):
    report = evaluate(dsn, [write(tmp_path / "t.jsonl", *long_story())])
    (result,) = report.results
    assert report.systems == ("pgctx", "last_messages", "trim_messages")  # langchain-core is installed (dev)
    assert (result.events, len(result.decisions), len(result.probes)) == (121, 2, 4)
    early, late = result.decisions
    # early: the history fits, nothing is folded, the context is the raw history
    assert early.compression == pytest.approx(1.0, abs=0.05)
    # late: folded far down, and the buried scope is still there, where trimming lost it
    assert late.compression > 10 and late.context_tokens <= EVAL_BUDGET.input_limit
    verdicts = {(p.decision, p.probe): {s: v.passed for s, v in p.verdicts.items()} for p in result.probes}
    assert verdicts[("early", "constraint")] == dict.fromkeys(report.systems, True)
    # pgctx's context fills its budget (late.fill): at that many tokens trimming keeps the newest
    # readings too, but not the scope the user set at the start, which the summary kept
    assert late.fill > 0.7 and late.folded_tokens > 0
    assert verdicts[("late", "constraint")] == {"pgctx": True, "last_messages": False, "trim_messages": False}
    for probe in ("fact", "next_call"):
        assert verdicts[("late", probe)] == dict.fromkeys(report.systems, True), probe
    assert result.pass_rate("pgctx") == 1.0 and result.pass_rate("last_messages") == 0.75
    assert sum(result.folds.values()) == result.summarizer_calls > 0  # one summarizer call per fold...
    assert result.fold_calls > 2 * result.summarizer_calls  # ...and not one per turn (fold() is called every turn)
    assert result.summarizer_calls <= result.fold_allowance == result.crossings  # no risk here, nothing forced
    assert result.refused == {} and result.error is None and result.summary_tokens > 0
    # the database holds what was replayed, verifiable
    with psycopg.connect(dsn) as conn:
        (cid,) = conn.execute("SELECT conversation_id FROM pgctx.conversations").fetchone()
        assert cid.startswith("eval-long-story-") and pgctx.verify(conn, cid).ok

    out = report.to_json()
    assert out["trajectories"] == 1 and out["pgctx"]["pass_rate"] == 1.0
    assert out["pgctx"]["compression_median"] == result.compression and out["last_messages"]["pass_rate"] == 0.75
    assert out["pgctx"]["fill_mean"] == pytest.approx((early.fill + late.fill) / 2)
    assert set(out["pgctx"]["by_class"]) == {"constraint", "fact", "next_call"}
    table = format_report(report)
    assert "long-story" in table and "100.0%" in table and "median" in table


def test_the_allowance_of_summarizer_calls_catches_a_policy_that_folds_every_turn(dsn, tmp_path):
    """With no floor and no tail every answered tool call makes a fold due (the policy the issue
    started from): S + H never drops under the floor again, so there is one crossing, and the
    calls exceed the allowance."""
    eager = pgctx.Budget(**{**EVAL_BUDGET.__dict__, "structural_floor": 0.0, "raw_tail": 0.0})
    (result,) = evaluate(dsn, [write(tmp_path / "t.jsonl", *long_story())], budget=eager).results
    assert result.crossings == 1 and result.summarizer_calls > 10 * result.fold_allowance


def test_a_turn_that_overruns_the_budget_is_folded_before_its_decision(dsn, tmp_path):
    """The agent calls the model again within a turn (a decision after a burst of tool results,
    no user message between): a service folds before building that context, as before every
    model call, so the context fits instead of failing every probe as over budget."""
    lines: list[dict] = [{**HEADER, "id": "one-long-turn", "window": 512,
                          "tools": [{"tool": "track", "effect": "read", "identifier_args": ["order_id"]}]}]
    lines.append({"type": "event", "kind": "user", "payload": {"text": "Only order 10086 may be changed. Track it."},
                  "seq": 1})
    for n in range(8):
        lines.append({"type": "event", "kind": "tool_call", "seq": 2 + 2 * n,
                      "payload": {"tool": "track", "call_id": f"c{n}", "arguments": {"order_id": "10086"}}})
        lines.append({"type": "event", "kind": "tool_result", "seq": 3 + 2 * n,
                      "payload": {"call_id": f"c{n}", "outcome": "succeeded", "result": {"hub": f"hub-{n}"},
                                  "log": LOG[:300]}})
    lines.append({"type": "decision", "id": "mid-turn", "probes": [
        {"probe": "constraint", "seq": 1, "text": "only order 10086"},
        {"probe": "fact", "key": "hub", "subject": "order_id=10086", "value": "hub-7", "superseded": ["hub-6"]},
        {"probe": "next_call", "tool": "track", "arguments": {"order_id": "10086"}}]})
    (result,) = evaluate(dsn, [write(tmp_path / "t.jsonl", *lines)]).results
    (decision,) = result.decisions
    assert decision.history_tokens > pgctx.Budget(window=512).history_budget  # the turn alone overruns B
    assert sum(result.folds.values()) >= 1 and decision.compression > 1  # folded before the decision
    assert [p.verdicts["pgctx"].why for p in result.probes if not p.verdicts["pgctx"].passed] == []


def test_a_refused_event_or_a_replay_mismatch_stops_that_trajectory_only(dsn, tmp_path):
    good = write(tmp_path / "1.jsonl", *long_story("good"))
    bad_kind = long_story("bad-kind")
    bad_kind[5] = {**bad_kind[5], "kind": "telepathy"}
    wrong_seq = long_story("wrong-seq")
    wrong_seq[3] = {**wrong_seq[3], "seq": 7}
    report = evaluate(dsn, [good, write(tmp_path / "2.jsonl", *bad_kind), write(tmp_path / "3.jsonl", *wrong_seq)])
    errors = {r.id: r.error for r in report.results}
    assert errors["good"] is None and report.results[0].pass_rate("pgctx") == 1.0
    assert errors["bad-kind"]["line"] == 6 and errors["bad-kind"]["sqlstate"] == "PC002"
    assert errors["wrong-seq"]["line"] == 4 and errors["wrong-seq"]["sqlstate"] == "TrajectoryError"
    assert "expects 7" in errors["wrong-seq"]["message"]
    assert not report.passed(0.0)  # an error fails the run whatever the pass rate


def test_a_malformed_file_evaluates_nothing(dsn, tmp_path):
    write(tmp_path / "1.jsonl", *long_story("first"))
    write(tmp_path / "2.jsonl", HEADER, {"type": "decision", "id": "d", "probes": []})
    with pytest.raises(TrajectoryError) as caught:
        evaluate(dsn, [tmp_path])
    assert caught.value.path.endswith("2.jsonl") and caught.value.line == 2 and caught.value.field == "probes"
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM pgctx.events").fetchone() == (0,)


def test_baselines_keep_whole_messages_and_never_an_output_without_its_call():
    history = [(1, "user", {"text": "hi"}, 5), (2, "tool_call", {"tool": "t", "call_id": "a", "arguments": {}}, 8),
               (3, "tool_result", {"call_id": "a", "outcome": "succeeded"}, 8), (4, "assistant", {"text": "ok"}, 5),
               (5, "user", {"text": "again"}, 5), (6, "status_query", {"call_id": "a", "outcome": "succeeded"}, 8)]
    assert [e[0] for e in baselines.last_messages(history, 26)] == [4, 5]  # 3 and 6 fit, but their call does not
    assert [e[0] for e in baselines.last_messages(history, 38)] == [2, 3, 4, 5, 6]
    assert [e[0] for e in baselines.last_messages(history, 39)] == [1, 2, 3, 4, 5, 6]
    assert [e[0] for e in baselines.last_messages(history, 4)] == []
    # LangChain's trim_messages(strategy="last", start_on="human"): starts at a user message
    assert [e[0] for e in baselines.trim_messages(history, 26)] == [5, 6]
    assert [e[0] for e in baselines.trim_messages(history, 1000)] == [1, 2, 3, 4, 5, 6]


def pgctx_eval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pgctx.cli", "eval", *args], capture_output=True, text=True,
                          timeout=300)


def test_the_command_line_prints_json_and_exits_by_min_pass(dsn, tmp_path):
    path = str(write(tmp_path / "t.jsonl", *long_story()))
    done = pgctx_eval(path, "--dsn", dsn, "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["trajectories"], out["pgctx"]["pass_rate"], out["last_messages"]["pass_rate"]) == (1, 1.0, 0.75)
    assert out["pgctx"]["compression_median"] > 10 and 0 < out["pgctx"]["fill_mean"] <= 1
    assert "[1/1] long-story: pgctx 100.0%" in done.stderr  # progress
    assert pgctx_eval(path, "--dsn", dsn, "--min-pass", "1.0").returncode == 0
    # a probe nothing in the history satisfies: below a minimum of 1.0, exit 1
    unknowable = long_story("unknowable")
    unknowable[-1]["probes"].append({"probe": "fact", "key": "nobody_said_this", "value": "x"})
    strict = pgctx_eval(str(write(tmp_path / "u.jsonl", *unknowable)), "--dsn", dsn, "--min-pass", "1.0")
    assert strict.returncode == 1 and "below --min-pass" in strict.stderr, strict.stdout
    broken = pgctx_eval(str(write(tmp_path / "b.jsonl", HEADER, "{")), "--dsn", dsn)
    assert broken.returncode == 2 and "b.jsonl, line 2" in broken.stderr and "not JSON" in broken.stderr


def test_without_langchain_core_the_trim_messages_baseline_is_skipped_and_said_so(dsn, tmp_path):
    """sys.modules[name] = None is how Python marks a module as absent: find_spec finds nothing."""
    path = str(write(tmp_path / "t.jsonl", *long_story()))
    code = ("import sys; sys.modules['langchain_core'] = None; from pgctx.cli import main; "
            f"sys.argv = ['pgctx', 'eval', {path!r}, '--dsn', {dsn!r}]; main()")
    table = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert table.returncode == 0, table.stderr
    assert "trim_msgs" not in table.stdout and "trim_messages skipped: " in table.stdout
    done = subprocess.run([sys.executable, "-c", code.replace("]; main()", ", '--json']; main()")],
                          capture_output=True, text=True, timeout=300)
    out = json.loads(done.stdout)
    assert out["trim_messages"] == {"skipped": evaluation.TRIM_SKIPPED} and out["last_messages"]["pass_rate"] == 0.75
    assert all("trim_messages" not in t for t in out["per_trajectory"])


def test_the_shipped_suite_keeps_every_probe_and_beats_trimming_on_every_class(dsn):
    """The issue's targets, on the shipped suite with the built-in summarizer (docs/eval.md)."""
    report = evaluate(dsn)
    assert len(report.results) >= 12 and all(r.events >= 100 and r.history_tokens >= 20_000 for r in report.results)
    failed = [(r.id, p.decision, p.probe, p.verdicts["pgctx"].why) for r in report.results for p in r.probes
              if not p.verdicts["pgctx"].passed]
    assert failed == []
    assert report.compression_median() >= 10
    assert not any(r.refused or r.error for r in report.results)
    assert report.pass_rate("last_messages") <= 0.7  # trimming at equal tokens loses at least 30%
    for cls in PROBE_CLASSES:
        assert report.pass_rate("pgctx", cls) >= report.pass_rate("last_messages", cls), cls
        assert report.pass_rate("pgctx", cls) >= report.pass_rate("trim_messages", cls), cls
    for r in report.results:  # one summarizer call per fold: per threshold crossing or risk event, not per turn
        assert r.summarizer_calls == sum(r.folds.values()) <= r.fold_allowance, r.id
        assert set(r.folds) <= {"capacity", "structural", "risk", "forced"}, r.folds
    calls, turns = (sum(getattr(r, a) for r in report.results) for a in ("summarizer_calls", "fold_calls"))
    assert calls < turns / 2, (calls, turns)


def test_asking_a_model_the_probes_questions_given_only_the_context(dsn, tmp_path):
    """--ask, through the real openai client and a local server speaking the API (tests/fake_openai.py)."""
    from pgctx.evaluation.asking import ASK_PROMPT, ProbeAsker
    from tests.fake_openai import ok, running

    with running() as fake:
        fake.plan(ok({"answers": [{"id": "0", "answer": "Yes"}]}),  # early: the scope binds
                  ok({"answers": [{"id": "0", "answer": "yes"}, {"id": "1", "answer": "2026-09-04 18:00"},
                                  {"id": "2", "answer": "order_id=10086"}]}))  # late: one stale value
        asker = ProbeAsker("test-model", base_url=fake.base_url, timeout=5, max_retries=0)
        report = evaluate(dsn, [write(tmp_path / "t.jsonl", *long_story())], ask=asker)
        asked = [p.verdicts["pgctx_asked"] for p in report.results[0].probes]
        assert [v.passed for v in asked] == [True, True, False, True]
        assert asked[2].why == "answered '2026-09-04 18:00'"
        assert report.pass_rate("pgctx_asked") == 0.75 and report.pass_rate("pgctx") == 1.0
        assert report.to_json()["pgctx_asked"]["by_class"] == {"constraint": 1.0, "fact": 0.0, "next_call": 1.0}
        assert "asked" in format_report(report)
        # what the model was given: the context and the questions, never the expected answers
        body = fake.requests[-1].body
        system, user = (m["content"] for m in body["input"])
        sent = json.loads(user)
        assert system == ASK_PROMPT and "[summary v" in sent["context"]
        assert [q["question"] for q in sent["questions"]] == [
            'Does what the user said or allowed about "only order 10086" still bind you (yes or no)?',
            "What is the current value of eta for order_id=10086?",
            "The next call is track. Which values should its arguments order_id have?"]
        assert "2026-09-04 19:00" in sent["context"] and "2026-09-04 19:00" not in json.dumps(sent["questions"])
