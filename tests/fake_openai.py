"""A local HTTP server speaking enough of the OpenAI API for the real ``openai`` client.

The OpenAI API cannot be reached from the test machines, and mocking the ``openai`` library would
test our assumptions about it instead of the library itself. So the tests point the real client
at this server, which answers ``POST /v1/responses`` (a Responses API ``response`` object) and
``POST /v1/chat/completions`` (a ``chat.completion`` object) from a per-test script:

    fake.plan(status(429), ok({"task": ...}))   # first request rate limited, the retry answered

Each request takes the next planned answer, on whichever endpoint it arrives; the same answer is
rendered in that endpoint's format. Every request is recorded (path, parsed JSON body, headers)
so tests can assert what the client sent. ``function_call(name, args, call_id)`` answers a Responses
API request with a function call instead of a message (what an agent's model does to call a tool);
``compacted(*items)`` answers ``POST /v1/responses/compact``. ``fake.responses_api = False`` makes ``/v1/responses`` answer 404
without taking an answer, as OpenAI-compatible servers without the Responses API do.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RESPONSES = "/v1/responses"
_ids = itertools.count(1)  # response and message ids, distinct as the API's are
CHAT = "/v1/chat/completions"
COMPACT = "/v1/responses/compact"


@dataclass(frozen=True)
class Answer:
    """One planned reply. Build them with the functions below, not directly."""

    kind: str  # "ok" | "raw" | "refusal" | "empty" | "status" | "sleep" | "items"
    text: str = ""  # the model's output text (ok, raw), or the refusal text
    finish: str = "stop"  # why the model stopped: "stop", "length" or "content_filter"
    code: int = 200  # the HTTP status (status)
    message: str = ""  # the error message in the body (status)
    seconds: float = 0.0  # the delay (sleep)
    then: Answer | None = None  # what is sent after the delay (sleep)
    items: tuple[dict[str, Any], ...] = ()  # the output items (items: the Responses API only)


def ok(obj: Any) -> Answer:
    """The model answers ``obj`` as its JSON output."""
    return Answer("ok", text=json.dumps(obj))


def raw(text: str) -> Answer:
    """The model answers ``text`` verbatim (say, something that is not JSON)."""
    return Answer("raw", text=text)


def cut_off(text: str, finish: str) -> Answer:
    """The model stopped early (``finish``: "length" or "content_filter") after writing ``text``:
    Chat Completions says so in ``finish_reason``, the Responses API by an incomplete status."""
    return Answer("raw", text=text, finish=finish)


def empty() -> Answer:
    """A reply with no output: no message in the Responses API, null content in Chat Completions."""
    return Answer("empty")


def refusal(text: str) -> Answer:
    """The model declines, in the API's refusal form."""
    return Answer("refusal", text=text)


def status(code: int, message: str = "planned failure") -> Answer:
    """An HTTP error with an OpenAI-style error body and ``retry-after-ms: 1``.

    The header makes the client's retry wait 1 ms instead of its exponential backoff (0.5 s and
    up), which keeps retry tests fast; the client reads it before ``retry-after``.
    """
    return Answer("status", code=code, message=message)


def function_call(name: str, arguments: dict[str, Any], call_id: str) -> Answer:
    """The model calls a function tool (a Responses API ``function_call`` output item)."""
    return Answer("items", items=({"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name,
                                   "arguments": json.dumps(arguments), "status": "completed"},))


def compacted(*items: dict[str, Any]) -> Answer:
    """``POST /v1/responses/compact`` answers with these output items (the compacted history)."""
    return Answer("items", items=items)


def sleep(seconds: float, then: Answer) -> Answer:
    """Wait ``seconds`` before sending ``then``: with a shorter client timeout, the client gives
    up first, and ``then`` (a good answer) shows it was the delay that failed the call."""
    return Answer("sleep", seconds=seconds, then=then)


@dataclass(frozen=True)
class Received:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]  # names lower-cased


@dataclass
class FakeOpenAI:
    """The server; use it through :func:`running`, which starts and stops it."""

    responses_api: bool = True
    requests: list[Received] = field(default_factory=list)
    unplanned: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._plan: collections.deque[Answer] = collections.deque()
        self._lock = threading.Lock()
        # set on stop(), so a handler still sleeping for a timeout test returns at once
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        # handler threads are daemons: stop() must not wait for a client that went away
        self._server.daemon_threads = True
        # shutdown() waits for the serve loop's next poll: 0.5 s by default, per test
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.01},
                                        name="fake-openai", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def plan(self, *answers: Answer) -> None:
        with self._lock:
            self._plan.extend(answers)

    @property
    def pending(self) -> int:
        """Planned answers not yet taken."""
        with self._lock:
            return len(self._plan)

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def _next(self, received: Received) -> Answer | None:
        path = received.path
        with self._lock:
            self.requests.append(received)
            if path == RESPONSES and not self.responses_api:
                return None
            if not self._plan:
                self.unplanned.append(path)
                return Answer("status", code=599, message="fake_openai: no answer planned")
            return self._plan.popleft()


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path not in (RESPONSES, CHAT, COMPACT):
                self._send(404, _error(f"no route {self.path}", "invalid_request_error"))
                return
            headers = {name.lower(): value for name, value in self.headers.items()}
            answer = fake._next(Received(self.path, body, headers))
            if answer is None:
                self._send(404, _error("Not Found", "invalid_request_error"))
                return
            if answer.kind == "sleep":
                fake._stopping.wait(answer.seconds)
                assert answer.then is not None
                answer = answer.then
            if answer.kind == "status":
                self._send(answer.code, _error(answer.message, "planned_error"), {"retry-after-ms": "1"})
            elif self.path == RESPONSES:
                self._send(200, _response(body, answer))
            elif self.path == COMPACT:
                self._send(200, _compaction(answer))
            else:
                self._send(200, _chat_completion(body, answer))

        def _send(self, code: int, obj: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(obj).encode()
            try:
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and closed the connection: nobody to answer

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler


def _error(message: str, type_: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": None, "code": None}}


def _response(request: dict[str, Any], answer: Answer) -> dict[str, Any]:
    """A Responses API ``response`` object (required fields of openai.types.responses.Response)."""
    if answer.kind == "refusal":
        content = {"type": "refusal", "refusal": answer.text}
    else:
        content = {"type": "output_text", "text": answer.text, "annotations": []}
    status, incomplete = "completed", None
    if answer.finish != "stop":
        status = "incomplete"
        incomplete = {"reason": "max_output_tokens" if answer.finish == "length" else answer.finish}
    message = {"type": "message", "id": f"msg_{next(_ids)}", "role": "assistant", "status": status, "content": [content]}
    output = list(answer.items) if answer.kind == "items" else [] if answer.kind == "empty" else [message]
    return {
        "id": f"resp_{next(_ids)}", "object": "response", "created_at": time.time(), "status": status,
        "model": request.get("model", ""), "error": None, "incomplete_details": incomplete,
        "output": output,
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
    }


def _compaction(answer: Answer) -> dict[str, Any]:
    """What ``responses.compact`` returns: the compacted history as output items."""
    return {"id": f"cmp_{next(_ids)}", "object": "response.compaction", "created_at": int(time.time()),
            "context_compression": "enabled", "output": list(answer.items),
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                      "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}}


def _chat_completion(request: dict[str, Any], answer: Answer) -> dict[str, Any]:
    """A ``chat.completion`` object; a refusal is ``message.refusal`` with no content."""
    if answer.kind == "refusal":
        message = {"role": "assistant", "content": None, "refusal": answer.text}
    else:
        message = {"role": "assistant", "content": answer.text or None, "refusal": None}
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
        "model": request.get("model", ""),
        "choices": [{"index": 0, "finish_reason": answer.finish, "message": message, "logprobs": None}],
    }


@contextlib.contextmanager
def running() -> Iterator[FakeOpenAI]:
    """A started server, stopped on exit. On a clean exit every planned answer must have been
    taken and no request may have arrived unplanned, so a test cannot pass on a miscounted
    exchange."""
    fake = FakeOpenAI()
    fake.start()
    try:
        yield fake
    finally:
        fake.stop()
    assert not fake.unplanned, f"requests with no planned answer: {fake.unplanned}"
    assert fake.pending == 0, f"{fake.pending} planned answer(s) never requested"
