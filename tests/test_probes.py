"""The fidelity judge (pgctx.evaluation.probes, docs/eval.md) on hand-made contexts: each rule passes what it
should and fails what it should. No database: a View is what a model would see."""

from __future__ import annotations

import pytest

from pgctx.messages import event_message
from pgctx.evaluation.probes import View, answer_status, judge, text_of
from pgctx.evaluation.trajectory import ConstraintProbe, EvidenceProbe, FactProbe, NextCallProbe, PendingProbe, ToolStateProbe

CALL = (10, "tool_call", {"tool": "update_delivery_date", "call_id": "c1", "idempotency_key": "k1",
                          "arguments": {"order_id": "10086", "date": "2026-09-03"}})
TIMEOUT = (11, "tool_result", {"call_id": "c1", "outcome": "timeout", "error": "no answer"})
SUCCEEDED = (11, "tool_result", {"call_id": "c1", "outcome": "succeeded", "request_id": "r1",
                                 "result": {"delivery_date": "2026-09-03", "slot": {"from": "09:00"}}})


def raw(*events) -> View:
    """A baseline's view: raw events only, and their text."""
    return View(None, list(events), text_of(event_message(k, p) for _, k, p in events))


def fact(key, value, *sources, subject=None, authority="order_service", confidence="confirmed", status="active"):
    f = {"key": key, "value": value, "authority": authority, "confidence": confidence,
         "source_event_ids": list(sources), "status": status}
    return {**f, "subject": subject} if subject else f


def summarized(*facts, tool_state=None, pending=(), **more) -> dict:
    return {"facts": list(facts), "tool_state": tool_state or {}, "pending": list(pending), **more}


def fact_probe(**fields) -> FactProbe:
    return FactProbe(probe="fact", **fields)


# --------------------------------------------------------------------------------------------
# fact


def test_fact_from_a_raw_result_field_dotted_or_last_component():
    view = raw(CALL, SUCCEEDED)
    assert judge(fact_probe(key="delivery_date", value="2026-09-03"), view).passed
    assert judge(fact_probe(key="slot.from", value="09:00"), view).passed
    assert judge(fact_probe(key="from", value="09:00"), view).passed
    assert not judge(fact_probe(key="slot", value="09:00"), view).passed  # an object is no value
    assert judge(fact_probe(key="delivery_date", value="2026-09-03", subject="order_id=10086"), view).passed
    wrong = judge(fact_probe(key="delivery_date", value="2026-09-03", subject="order_id=10087"), view)
    assert not wrong.passed and wrong.why == "nothing states delivery_date"


def test_a_result_whose_call_is_not_raw_states_nothing_about_a_subject():
    view = raw(SUCCEEDED)
    assert judge(fact_probe(key="delivery_date", value="2026-09-03"), view).passed
    assert not judge(fact_probe(key="delivery_date", value="2026-09-03", subject="order_id=10086"), view).passed


def test_only_successful_answers_state_facts():
    failed = (11, "tool_result", {"call_id": "c1", "outcome": "failed", "result": {"delivery_date": "2026-09-03"}})
    assert not judge(fact_probe(key="delivery_date", value="2026-09-03"), raw(CALL, failed)).passed


def test_subject_pairs_compare_exactly_not_as_substrings():
    view = View(summarized(fact("status", "shipped", 4, subject="order_id=20417")), [], "")
    assert judge(fact_probe(key="status", value="shipped", subject="order_id=20417"), view).passed
    assert not judge(fact_probe(key="status", value="shipped", subject="order_id=2041"), view).passed


def test_the_newest_statement_wins_across_raw_and_summary():
    correction = (20, "correction", {"key": "delivery_date", "value": "2026-09-05", "authority": "user"})
    old = fact("delivery_date", "2026-09-03", 11)
    view = View(summarized(old), [correction], "")
    assert judge(fact_probe(key="delivery_date", value="2026-09-05", superseded=["2026-09-03"]), view).passed
    # the summary's older value is history once a newer raw event states the current one...
    newer = View(summarized(old), [correction], "")
    assert judge(fact_probe(key="delivery_date", value="2026-09-05"), newer).passed
    # ...but a summary presenting the superseded value as active, with nothing newer, fails
    stale = View(summarized(old, fact("delivery_date", "2026-09-05", 20, authority="user")), [], "")
    verdict = judge(fact_probe(key="delivery_date", value="2026-09-05", superseded=["2026-09-03"]), stale)
    assert not verdict.passed and "superseded" in verdict.why


def test_superseded_value_in_the_newest_raw_statement_fails():
    later = (30, "tool_result", {"call_id": "c2", "outcome": "succeeded", "result": {"delivery_date": "2026-09-03"}})
    verdict = judge(fact_probe(key="delivery_date", value="2026-09-05", superseded=["2026-09-03"]), raw(later))
    assert not verdict.passed and "superseded" in verdict.why


def test_model_guesses_and_expired_facts_state_nothing():
    guess = (12, "fact", {"key": "phone", "value": "+44 7700 900124", "authority": "model", "confidence": "inferred"})
    assert not judge(fact_probe(key="phone", value="+44 7700 900124"), raw(guess)).passed
    view = View(summarized(fact("phone", "+44 7700 900124", 12, authority="model"),
                           fact("phone", "+44 7700 900412", 4, status="expired")), [], "")
    assert not judge(fact_probe(key="phone", value="+44 7700 900412"), view).passed
    inferred = View(summarized(fact("phone", "+44 7700 900124", 12, confidence="inferred")), [], "")
    assert not judge(fact_probe(key="phone", value="+44 7700 900124"), inferred).passed


def test_a_raw_fact_of_any_confidence_but_inferred_or_unknown_states_its_value():
    # docs/eval.md: a client's own confidence words ("stated", "explicit") are confirmed, as the
    # summarizer and must_keep read them
    stated = (34, "correction", {"key": "nas_export_path", "value": "/mnt/nas/Photos", "authority": "user",
                                 "confidence": "stated", "supersedes": 27})
    assert judge(fact_probe(key="nas_export_path", value="/mnt/nas/Photos"), raw(stated)).passed
    unknown = (35, "fact", {**stated[2], "confidence": "unknown"})
    assert not judge(fact_probe(key="nas_export_path", value="/mnt/nas/Photos"), raw(unknown)).passed


def test_fact_values_compare_as_json_numbers_equal_across_int_and_float_not_strings():
    view = View(summarized(fact("in_stock", 3, 5)), [], "")
    assert judge(fact_probe(key="in_stock", value=3.0), view).passed
    assert not judge(fact_probe(key="in_stock", value="3"), view).passed
    assert judge(fact_probe(key="tags", value=["a", "b"]), View(summarized(fact("tags", ["a", "b"], 5)), [], "")).passed


# --------------------------------------------------------------------------------------------
# tool_state


@pytest.mark.parametrize("kind, outcome, status", [
    ("tool_result", "succeeded", "succeeded"), ("tool_result", "failed", "failed"),
    ("tool_result", "cancelled", "cancelled"), ("tool_result", "timeout", "unknown"),
    ("status_query", "succeeded", "succeeded"), ("status_query", "not_performed", "failed"),
    ("status_query", "unknown", "unknown"), ("status_query", "cancelled", "unknown"),
])
def test_answer_status_is_derived_as_in_sql(kind, outcome, status):
    assert answer_status(kind, outcome) == status


def test_an_unknown_call_that_reads_as_failed_or_succeeded_fails():
    probe = ToolStateProbe(probe="tool_state", call_id="c1", status="unknown")
    assert judge(probe, raw(CALL, TIMEOUT)).passed
    as_failed = View(summarized(tool_state={"c1": {"status": "failed", "source_event_ids": [10, 11]}}), [], "")
    verdict = judge(probe, as_failed)
    assert not verdict.passed and verdict.why == "reads as failed (summary)"
    assert not judge(probe, raw(CALL, SUCCEEDED)).passed


def test_a_call_without_answer_is_running_or_unknown_after_a_recovery():
    running = ToolStateProbe(probe="tool_state", call_id="c1", status="running")
    unknown = ToolStateProbe(probe="tool_state", call_id="c1", status="unknown")
    assert judge(running, raw(CALL)).passed and not judge(unknown, raw(CALL)).passed
    recovered = raw(CALL, (12, "recovery", {"interrupted_calls": [{"call_id": "c1", "seq": 10}]}))
    assert judge(unknown, recovered).passed


def test_tool_state_by_idempotency_key_and_request_id():
    assert judge(ToolStateProbe(probe="tool_state", idempotency_key="k1", status="succeeded", request_id="r1"),
                 raw(CALL, SUCCEEDED)).passed
    assert not judge(ToolStateProbe(probe="tool_state", idempotency_key="k1", status="succeeded", request_id="r9"),
                     raw(CALL, SUCCEEDED)).passed
    summary = summarized(tool_state={"c7": {"status": "unknown", "idempotency_key": "k7", "source_event_ids": [3]}})
    assert judge(ToolStateProbe(probe="tool_state", idempotency_key="k7", status="unknown"), View(summary, [], "")).passed
    assert not judge(ToolStateProbe(probe="tool_state", idempotency_key="k8", status="unknown"),
                     View(summary, [], "")).passed


def test_a_raw_answer_newer_than_the_summary_wins():
    summary = summarized(tool_state={"c1": {"status": "unknown", "source_event_ids": [10, 11]}})
    reconciled = (15, "status_query", {"call_id": "c1", "outcome": "succeeded", "request_id": "r1"})
    assert judge(ToolStateProbe(probe="tool_state", call_id="c1", status="succeeded"), View(summary, [reconciled], "")).passed


# --------------------------------------------------------------------------------------------
# next_call, pending, constraint, evidence


def test_next_call_values_are_found_case_insensitively_in_the_text_only():
    view = raw(CALL)
    assert judge(NextCallProbe(probe="next_call", tool="t", arguments={"order_id": "10086", "d": "2026-09-03"}), view).passed
    assert judge(NextCallProbe(probe="next_call", tool="t", arguments={"tool": "UPDATE_DELIVERY_DATE"}), view).passed
    missing = judge(NextCallProbe(probe="next_call", tool="t", arguments={"order_id": "10086", "amount": "12.50"}), view)
    assert not missing.passed and missing.why == "missing amount=12.50"
    # the summary's structure is not searched, only what the model reads
    assert not judge(NextCallProbe(probe="next_call", tool="t", arguments={"x": "SECRET-1"}),
                     View({"facts": [fact("x", "SECRET-1", 1)]}, [], "")).passed


def test_pending_approval_open_until_answered():
    requested = (5, "approval", {"approval_id": "ap-2", "status": "requested"})
    granted = (9, "approval", {"approval_id": "ap-2", "status": "granted"})
    probe = PendingProbe(probe="pending", approval_id="ap-2")
    assert judge(probe, raw(requested)).passed
    assert not judge(probe, raw(requested, granted)).passed
    assert not judge(probe, raw()).passed
    in_summary = View(summarized(pending=[{"action": "await approval ap-2", "blocking": True, "source_event_ids": [5]}]),
                      [], "")
    assert judge(probe, in_summary).passed
    assert not judge(probe, View(in_summary.summary, [granted], "")).passed  # a newer answer closes it


def test_pending_call_open_while_no_definite_answer():
    probe = PendingProbe(probe="pending", call_id="c1")
    assert judge(probe, raw(CALL, TIMEOUT)).passed
    assert not judge(probe, raw(CALL, SUCCEEDED)).passed
    summary = summarized(pending=[{"action": "resolve unknown call c1 by a status query", "blocking": True,
                                   "source_event_ids": [10]}])
    assert judge(probe, View(summary, [], "")).passed


def test_constraint_raw_or_cited_by_an_object_holding_the_text():
    said = (2, "user", {"text": "Only change order 10086, nothing else."})
    probe = ConstraintProbe(probe="constraint", seq=2, text="ONLY CHANGE ORDER 10086")
    assert judge(probe, raw(said)).passed
    cited = {"user_requests": [{"text": "Only change order 10086, nothing else.", "source_event_ids": [2]}]}
    assert judge(probe, View(cited, [], "")).passed
    elsewhere = {"user_requests": [{"text": "Only change order 10086, nothing else.", "source_event_ids": [3]}]}
    assert not judge(probe, View(elsewhere, [], "")).passed  # cites another event
    reworded = {"constraints": [{"text": "scope: a single order", "source_event_ids": [2]}]}
    assert not judge(probe, View(reworded, [], "")).passed  # cites it, without the words


def test_evidence_must_be_raw_every_one():
    assert judge(EvidenceProbe(probe="evidence", seqs=[10, 11]), raw(CALL, TIMEOUT)).passed
    verdict = judge(EvidenceProbe(probe="evidence", seqs=[10, 11]), raw(CALL))
    assert not verdict.passed and verdict.why == "not raw: [11]"
    summary = summarized(tool_state={"c1": {"status": "unknown", "source_event_ids": [10, 11]}})
    assert not judge(EvidenceProbe(probe="evidence", seqs=[10]), View(summary, [], "")).passed  # cited is not raw
