"""OpenAISummarizer and CounterfactualProbe, through the real ``openai`` client.

The client talks HTTP to tests/fake_openai.py, a local server speaking the OpenAI API, so what is
tested is the library's real behaviour (request shape, retries, timeouts, status errors, parsing)
and our handling of it. No database: FoldRequest is built directly here.
"""

from __future__ import annotations

import copy
import json
import socket
from collections.abc import Callable, Iterator
from typing import Any

import openai
import pytest

from pgctx.errors import ProbeMismatch, SummarizerFailed
from pgctx.openai_summarizer import SYSTEM_PROMPT, OpenAISummarizer
from pgctx.probe import PROBE_PROMPT, CounterfactualProbe
from pgctx.summarizers import BuiltinSummarizer, Event, FoldRequest
from pgctx.summary import Summary, dump
from tests.fake_openai import (
    CHAT, RESPONSES, FakeOpenAI, cut_off, empty, ok, raw, refusal, running, sleep, status,
)

# something only the conversation holds: it must reach the model, and no error message
SECRET = "SECRET-ADDRESS-88 Rue du Test"
GOAL = "把订单 10086 改成明天送达"

PREVIOUS = {  # the committed summary of events 1..2, of schema_version 1 (a fold continues older versions)
    "schema_version": 1, "task": {"goal": GOAL, "status": "running"},
    "facts": [{"key": "order_id", "value": "10086", "confidence": "confirmed", "authority": "user",
               "source_event_ids": [1], "status": "active"}],
    "decisions": [], "tool_state": {}, "completed_actions": [], "pending": [],
    "constraints": [], "open_questions": [], "omitted_event_range": {"from": 1, "to": 2}, "last_event_id": 2,
}
EVENTS = [
    Event(3, "tool_call", {"tool": "update_delivery_date", "call_id": "call-1", "idempotency_key": "k-10086",
                           "arguments": {"order_id": "10086", "date": "2026-09-02"}}),
    Event(4, "tool_result", {"call_id": "call-1", "outcome": "timeout"}),
    Event(5, "approval", {"approval_id": "ap-1", "status": "requested"}),
    Event(6, "user", {"text": f"deliver to {SECRET}"}),
]
MUST_KEEP = {  # what pgctx.must_keep derives for these events
    "omitted_event_range": {"from": 1, "to": 6}, "last_event_id": 6,
    "tool_calls": {"call-1": {"tool": "update_delivery_date", "effect": "write", "status": "unknown",
                              "idempotency_key": "k-10086", "call_seq": 3, "answer_seq": 4, "result_seq": 4,
                              "subject": "order_id=10086"}},
    "identifiers": ["10086"],
    "open_approvals": [{"approval_id": "ap-1", "seq": 5}],
    "collapsed": {},
}
REQUEST = FoldRequest("order-10086", from_seq=2, to_seq=6, previous_summary=PREVIOUS, events=EVENTS,
                      must_keep=MUST_KEEP, schema={})

# The model's answer in the wire shape, carrying what BuiltinSummarizer derives for REQUEST: so
# the converted Summary must equal the builtin candidate, nulls dropped and bookkeeping filled in.
WIRE = {
    "task": {"goal": GOAL, "status": "waiting_for_approval", "source_event_ids": []},
    "facts": [{"key": "order_id", "value": "10086", "confidence": "confirmed", "authority": "user",
               "source_event_ids": [1], "status": "active", "subject": None,
               "observed_at": None, "valid_until": None, "previous_value": None}],
    "decisions": [],
    "tool_state": [{"call_id": "call-1", "tool": "update_delivery_date", "effect": "write", "status": "unknown",
                    "source_event_ids": [3, 4], "subject": "order_id=10086", "request_id": None,
                    "idempotency_key": "k-10086", "error": None}],
    "completed_actions": [],
    "pending": [
        {"action": "resolve unknown call call-1 (update_delivery_date) by a status query", "blocking": True,
         "source_event_ids": [3]},
        {"action": "await approval ap-1", "blocking": True, "source_event_ids": [5]},
    ],
    "constraints": [],
    "user_requests": [{"text": f"deliver to {SECRET}", "source_event_ids": [6]}],
    "open_questions": [],
}
EXPECTED = BuiltinSummarizer().summarize(REQUEST)


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    with running() as fake:
        yield fake


@pytest.fixture(autouse=True)
def no_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Never a real key: with base_url and no key, the summarizer must use its placeholder."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def summarizer(fake: FakeOpenAI, **options: Any) -> OpenAISummarizer:
    return OpenAISummarizer(**{"base_url": fake.base_url, "timeout": 1.0, "max_retries": 0, **options})


def probe(fake: FakeOpenAI, **options: Any) -> CounterfactualProbe:
    return CounterfactualProbe(**{"base_url": fake.base_url, "timeout": 1.0, "max_retries": 0, **options})


def sent(fake: FakeOpenAI, index: int = -1) -> tuple[str, dict[str, Any]]:
    """The system prompt and the decoded JSON user message of a recorded request."""
    body = fake.requests[index].body
    messages = body["input"] if fake.requests[index].path == RESPONSES else body["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    return messages[0]["content"], json.loads(messages[1]["content"])


def failure(run: Callable[[], object]) -> SummarizerFailed:
    with pytest.raises(SummarizerFailed) as caught:
        run()
    return caught.value


def edited(edit: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    wire = copy.deepcopy(WIRE)
    edit(wire)
    return wire


# -- the summarizer ---------------------------------------------------------------------------

def test_a_good_answer_via_responses_is_the_expected_summary(fake_openai):
    fake_openai.plan(ok(WIRE))
    s = summarizer(fake_openai)
    result = s.summarize(REQUEST)
    assert s.id == "openai:gpt-4o-mini"
    assert isinstance(result, Summary)
    assert dump(result) == EXPECTED
    assert fake_openai.paths() == [RESPONSES]
    # no key given: the placeholder went out, so local servers that ignore keys work
    assert fake_openai.requests[0].headers["authorization"] == "Bearer pgctx-no-key"


def test_the_request_is_the_incremental_update_for_the_named_model(fake_openai):
    fake_openai.plan(ok(WIRE))
    summarizer(fake_openai, model="my-local-model").summarize(REQUEST)
    body = fake_openai.requests[0].body
    assert body["model"] == "my-local-model"
    assert body["temperature"] == 0
    system, update = sent(fake_openai)
    assert system == SYSTEM_PROMPT
    assert update == {
        "previous_summary": PREVIOUS,
        "folded_range": {"from": 3, "to": 6},
        "new_events": [{"seq": e.seq, "kind": e.kind, "payload": e.payload} for e in EVENTS],
        "must_keep": MUST_KEEP,
    }
    # strict structured output, with tool state as a list (strict mode has no open-keyed objects)
    fmt = body["text"]["format"]
    assert (fmt["type"], fmt["strict"], fmt["name"]) == ("json_schema", True, "WireSummary")
    assert fmt["schema"]["properties"]["tool_state"]["type"] == "array"


def test_temperature_none_leaves_it_to_the_server(fake_openai):
    fake_openai.plan(ok(WIRE))
    summarizer(fake_openai, temperature=None).summarize(REQUEST)
    assert "temperature" not in fake_openai.requests[0].body


def test_without_a_responses_api_it_falls_back_to_chat_completions_and_remembers(fake_openai):
    fake_openai.responses_api = False
    fake_openai.plan(ok(WIRE), ok(WIRE))
    s = summarizer(fake_openai)
    assert dump(s.summarize(REQUEST)) == EXPECTED
    assert dump(s.summarize(REQUEST)) == EXPECTED
    # one 404 on /responses, then Chat Completions only
    assert fake_openai.paths() == [RESPONSES, CHAT, CHAT]
    body = fake_openai.requests[1].body
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"] == fake_openai.requests[0].body["input"]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True


def test_a_429_then_an_answer_succeeds_through_the_clients_retry(fake_openai):
    fake_openai.plan(status(429), ok(WIRE))
    assert dump(summarizer(fake_openai, max_retries=1).summarize(REQUEST)) == EXPECTED
    assert fake_openai.paths() == [RESPONSES, RESPONSES]
    assert fake_openai.requests[1].headers["x-stainless-retry-count"] == "1"


def test_429_every_time_is_rate_limited_after_max_retries_plus_one_requests(fake_openai):
    fake_openai.plan(status(429), status(429), status(429))
    error = failure(lambda: summarizer(fake_openai, max_retries=2).summarize(REQUEST))
    assert error.reason == "rate_limited"
    assert len(fake_openai.requests) == 3
    assert "HTTP 429" in str(error) and "openai:gpt-4o-mini" in str(error)
    assert isinstance(error.__cause__, openai.RateLimitError)


def test_a_500_is_a_server_error(fake_openai):
    fake_openai.plan(status(500))
    error = failure(lambda: summarizer(fake_openai).summarize(REQUEST))
    assert error.reason == "server_error"
    assert "HTTP 500" in str(error)
    assert isinstance(error.__cause__, openai.InternalServerError)


def test_an_answer_slower_than_the_timeout_is_a_timeout(fake_openai):
    # the late answer is a good one: only the delay can fail the call
    fake_openai.plan(sleep(2.0, ok(WIRE)))
    error = failure(lambda: summarizer(fake_openai, timeout=0.3).summarize(REQUEST))
    assert error.reason == "timeout"
    assert isinstance(error.__cause__, openai.APITimeoutError)


def test_nothing_listening_is_a_connection_failure():
    with socket.socket() as s:  # a port that was free a moment ago and now has no listener
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    s = OpenAISummarizer(base_url=f"http://127.0.0.1:{port}/v1", timeout=1.0, max_retries=0)
    error = failure(lambda: s.summarize(REQUEST))
    assert error.reason == "connection"
    assert type(error.__cause__) is openai.APIConnectionError


@pytest.mark.parametrize("responses_api", [True, False], ids=["responses", "chat.completions"])
def test_output_that_is_not_json_is_malformed(fake_openai, responses_api):
    fake_openai.responses_api = responses_api
    fake_openai.plan(raw("not json{"))
    error = failure(lambda: summarizer(fake_openai).summarize(REQUEST))
    assert error.reason == "malformed"


@pytest.mark.parametrize("responses_api", [True, False], ids=["responses", "chat.completions"])
def test_an_empty_reply_is_malformed(fake_openai, responses_api):
    fake_openai.responses_api = responses_api
    fake_openai.plan(empty())
    error = failure(lambda: summarizer(fake_openai).summarize(REQUEST))
    assert error.reason == "malformed"
    assert "no structured output" in str(error)


@pytest.mark.parametrize("finish, says", [("length", "cut off at the token limit"),
                                          ("content_filter", "stopped by the content filter")])
@pytest.mark.parametrize("responses_api", [True, False], ids=["responses", "chat.completions"])
def test_output_stopped_early_is_malformed(fake_openai, responses_api, finish, says):
    fake_openai.responses_api = responses_api
    fake_openai.plan(cut_off(json.dumps(WIRE)[:40], finish))
    error = failure(lambda: summarizer(fake_openai).summarize(REQUEST))
    assert error.reason == "malformed"
    # Chat Completions names the cause (finish_reason); the Responses API's partial text fails to parse
    assert (says if not responses_api else "does not fit the WireSummary schema") in str(error)


@pytest.mark.parametrize("edit", [
    lambda w: w["tool_state"][0].update(status="done"),
    lambda w: w.pop("task"),
    lambda w: w.update(mood="confident"),
    lambda w: w["tool_state"].append(dict(w["tool_state"][0])),
], ids=["tool status 'done'", "task missing", "unknown field", "a call listed twice"])
def test_json_outside_the_schema_is_malformed(fake_openai, edit):
    fake_openai.plan(ok(edited(edit)))
    error = failure(lambda: summarizer(fake_openai).summarize(REQUEST))
    assert error.reason == "malformed"


@pytest.mark.parametrize("responses_api", [True, False], ids=["responses", "chat.completions"])
def test_a_refusal_is_a_refusal(fake_openai, responses_api):
    fake_openai.responses_api = responses_api
    fake_openai.plan(refusal("I can't help with that."))
    error = failure(lambda: summarizer(fake_openai).summarize(REQUEST))
    assert error.reason == "refusal"


@pytest.mark.parametrize("answer, reason", [
    (status(400, message=f"invalid input near '{SECRET}'"), "error"),
    (ok(edited(lambda w: w["task"].update(status=SECRET))), "malformed"),
    (raw(f"Sure! The customer lives at {SECRET}"), "malformed"),
], ids=["error body echoing the input", "schema violation quoting it", "non-JSON prose quoting it"])
def test_error_messages_carry_no_conversation_content(fake_openai, answer, reason):
    fake_openai.plan(answer)
    error = failure(lambda: summarizer(fake_openai).summarize(REQUEST))
    assert error.reason == reason
    assert SECRET in json.dumps(fake_openai.requests[0].body, ensure_ascii=False)  # it was sent...
    assert SECRET not in str(error) and SECRET not in (error.detail or "")  # ...and is not repeated


# -- the counterfactual probe -----------------------------------------------------------------

def answers(call_status: str | None = "unknown", open_ids: tuple[str, ...] = ("ap-1",)) -> dict[str, Any]:
    calls = [] if call_status is None else [{"call_id": "call-1", "status": call_status}]
    return {"call_statuses": calls, "open_approval_ids": list(open_ids)}


@pytest.mark.parametrize("responses_api", [True, False], ids=["responses", "chat.completions"])
def test_probe_passes_a_summary_whose_answers_match_the_database(fake_openai, responses_api):
    fake_openai.responses_api = responses_api
    fake_openai.plan(ok(answers()))
    assert probe(fake_openai).check(REQUEST, EXPECTED) is None
    system, asked = sent(fake_openai)
    assert system == PROBE_PROMPT
    # the summary and the questions only: no events, no must-keep answers
    assert asked == {"summary": EXPECTED, "questions": ["What is the status of tool call call-1?",
                                                        "Which approvals are still open?"]}


def test_probe_takes_a_summary_model_as_well_as_a_dict(fake_openai):
    fake_openai.plan(ok(answers()))
    probe(fake_openai).check(REQUEST, Summary.model_validate(EXPECTED))
    assert sent(fake_openai)[1]["summary"] == EXPECTED


@pytest.mark.parametrize("reply, mismatches", [
    (answers("succeeded"), ["call call-1: summary implies succeeded, database says unknown"]),
    (answers("not_in_summary"), ["call call-1: summary does not mention it, database says unknown"]),
    (answers(None), ["call call-1: the probe gave no answer, database says unknown"]),
    (answers(open_ids=()), ["approval ap-1: summary does not show it open, database says open"]),
    (answers("failed", open_ids=("ap-1", "ap-9")), ["call call-1: summary implies failed, database says unknown",
                                                    "approval ap-9: summary implies open, database says not open"]),
], ids=["unknown read as succeeded", "call not in summary", "call unanswered", "open approval missing",
        "guessed failed and a phantom approval"])
def test_probe_lists_every_contradiction(fake_openai, reply, mismatches):
    fake_openai.plan(ok(reply))
    with pytest.raises(ProbeMismatch) as caught:
        probe(fake_openai).check(REQUEST, EXPECTED)
    assert caught.value.mismatches == mismatches
    assert caught.value.reason == "probe_mismatch"


def test_probe_transport_failures_map_as_for_the_summarizer(fake_openai):
    fake_openai.plan(status(503))
    error = failure(lambda: probe(fake_openai).check(REQUEST, EXPECTED))
    assert not isinstance(error, ProbeMismatch)
    assert error.reason == "server_error"
    assert "probe openai:gpt-4o-mini" in str(error)
