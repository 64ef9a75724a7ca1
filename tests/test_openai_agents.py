"""pgctx as the session store of the OpenAI Agents SDK (pgctx/integrations/openai_agents.py),
tested with the real SDK: its Session protocol, its scripted model (agents.testing) driving
Runner.run, and its own SQLiteSession as the reference for what get_items returns."""

from __future__ import annotations

import asyncio
import json
import threading
import typing

import psycopg
import pytest
from agents import Agent, Runner, SQLiteSession, function_tool, set_tracing_disabled
from agents.items import TResponseInputItem
from agents.memory.session import Session
from agents.memory.session_settings import SessionSettings
from agents.testing import ScriptedModel, assistant_message, function_call
from psycopg_pool import AsyncConnectionPool

import pgctx
from pgctx.fold_procedures import fold_request
from pgctx.summarizers import BuiltinSummarizer
from pgctx.errors import FoldSplitsUnit, InvalidPayload, PayloadTooLarge, SummarizerFailed, UnrepresentableJSON
from pgctx.integrations.openai_agents import PgctxSession
from tests.events import pasted
from tests.processes import kill_when_it_says

set_tracing_disabled(True)

# One valid item of every member of the SDK's TResponseInputItem union (openai 3.x).
FN_TOOL = {"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {}}, "strict": False}
EXAMPLES = {
 "EasyInputMessageParam": {"role": "user", "content": "Hello"},
 "Message": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello"}]},
 "ResponseOutputMessageParam": {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
     "content": [{"type": "output_text", "text": "Hi!", "annotations": []}]},
 "ResponseFileSearchToolCallParam": {"type": "file_search_call", "id": "fs_1", "queries": ["q"], "status": "completed"},
 "ResponseComputerToolCallParam": {"type": "computer_call", "id": "cu_1", "call_id": "call_cu", "pending_safety_checks": [],
     "status": "completed", "action": {"type": "click", "button": "left", "x": 1, "y": 2}},
 "ComputerCallOutput": {"type": "computer_call_output", "call_id": "call_cu",
     "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"}},
 "ResponseFunctionWebSearchParam": {"type": "web_search_call", "id": "ws_1", "status": "completed",
     "action": {"type": "search", "query": "weather"}},
 "ResponseFunctionToolCallParam": {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
 "FunctionCallOutput": {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
 "ToolSearchCall": {"type": "tool_search_call", "call_id": "ts_1", "arguments": {"query": "weather"}},
 "ResponseToolSearchOutputItemParamParam": {"type": "tool_search_output", "call_id": "ts_1", "tools": [FN_TOOL]},
 "AdditionalTools": {"type": "additional_tools", "role": "developer", "tools": [FN_TOOL]},
 "ResponseConfigurationUpdateItemParamParam": {"type": "configuration_update"},
 "ResponseReasoningItemParam": {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "thinking"}]},
 "ResponseCompactionItemParamParam": {"type": "compaction", "encrypted_content": "gAAAAA-opaque"},
 "ImageGenerationCall": {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": "iVBORw0KGgo="},
 "ResponseCodeInterpreterToolCallParam": {"type": "code_interpreter_call", "id": "ci_1", "code": "print(1)", "container_id": "cntr_1",
     "outputs": [{"type": "logs", "logs": "1\n"}], "status": "completed"},
 "LocalShellCall": {"type": "local_shell_call", "id": "ls_1", "call_id": "call_ls", "status": "completed",
     "action": {"type": "exec", "command": ["ls"], "env": {}}},
 "LocalShellCallOutput": {"type": "local_shell_call_output", "id": "call_ls", "output": "{\"stdout\":\"a\"}"},
 "ShellCall": {"type": "shell_call", "call_id": "call_sh", "action": {"commands": ["ls"]}},
 "ShellCallOutput": {"type": "shell_call_output", "call_id": "call_sh",
     "output": [{"stdout": "a\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]},
 "ApplyPatchCall": {"type": "apply_patch_call", "call_id": "call_ap", "status": "completed",
     "operation": {"type": "create_file", "path": "a.txt", "diff": "+hello\n"}},
 "ApplyPatchCallOutput": {"type": "apply_patch_call_output", "call_id": "call_ap", "status": "completed"},
 "McpListTools": {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "srv",
     "tools": [{"name": "echo", "input_schema": {"type": "object"}}]},
 "McpApprovalRequest": {"type": "mcp_approval_request", "id": "mcpr_1", "server_label": "srv", "name": "echo", "arguments": "{}"},
 "McpApprovalResponse": {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
 "McpCall": {"type": "mcp_call", "id": "mcp_1", "server_label": "srv", "name": "echo", "arguments": "{}"},
 "ResponseCustomToolCallOutputParam": {"type": "custom_tool_call_output", "call_id": "call_ct", "output": "done"},
 "ResponseCustomToolCallParam": {"type": "custom_tool_call", "call_id": "call_ct", "name": "grammar_tool", "input": "raw text"},
 "CompactionTrigger": {"type": "compaction_trigger"},
 "ItemReference": {"type": "item_reference", "id": "msg_1"},
 "Program": {"type": "program", "id": "prog_1", "call_id": "call_prog", "code": "x=1", "fingerprint": "fp"},
 "ProgramOutput": {"type": "program_output", "id": "progo_1", "call_id": "call_prog", "result": "ok", "status": "completed"},
}

SMALL = pgctx.Budget(window=1200, fixed_input=0, output=0, reasoning=0, margin=0, structural_floor=0.3, raw_tail=0.2)


def run(coro):
    return asyncio.run(coro)


async def session_on(dsn: str, sid: str, **options) -> PgctxSession:
    return await PgctxSession.from_dsn(sid, dsn, **options)


def test_the_session_is_the_sdks_session_protocol():
    assert isinstance(PgctxSession("s", AsyncConnectionPool("", open=False)), Session)


def test_every_item_type_round_trips_equal_as_json(dsn):
    members = {m.__name__ for m in typing.get_args(TResponseInputItem)}
    assert members == set(EXAMPLES), "an item type of the installed SDK has no example here"
    items = list(EXAMPLES.values())

    async def main():
        async with await session_on(dsn, "all-types") as s:
            await s.add_items(items[:10])
            await s.add_items(items[10:])
            return await s.get_items(), await s.get_items(limit=3)

    got, last3 = run(main())
    assert json.loads(json.dumps(got)) == items
    assert last3 == items[-3:]
    with psycopg.connect(dsn) as conn:
        kinds = [k for (k,) in conn.execute("SELECT kind FROM pgctx.events WHERE conversation_id = 'all-types' ORDER BY seq")]
        assert kinds[:3] == ["user", "user", "assistant"] and "tool_call" in kinds and "sdk_item" in kinds
        call = conn.execute("SELECT payload FROM pgctx.events WHERE conversation_id = 'all-types' AND kind = 'tool_call'"
                            ).fetchone()[0]
        assert (call["tool"], call["call_id"], call["arguments"], call["idempotency_key"]) == (
            "get_weather", "call_1", {"city": "Paris"}, "call_1")
        assert pgctx.verify(conn, "all-types").ok


@function_tool
def get_weather(city: str) -> str:
    """Return the weather for a city."""
    return f"sunny in {city}"


def script() -> list:
    return [
        [function_call("get_weather", {"city": "Paris"}, call_id="call_1")],
        [assistant_message("It is sunny in Paris.", item_id="msg_1")],
        [assistant_message("You asked about Paris.", item_id="msg_2")],
    ]


async def two_runs(session) -> list:
    agent = Agent(name="a", instructions="be brief", model=ScriptedModel(script()), tools=[get_weather])
    first = await Runner.run(agent, "Weather in Paris?", session=session)
    second = await Runner.run(agent, "What did I ask?", session=session)
    assert (first.final_output, second.final_output) == ("It is sunny in Paris.", "You asked about Paris.")
    return await session.get_items()


def test_a_runner_sees_the_same_items_as_with_the_sdks_sqlite_session(dsn):
    async def main():
        reference = await two_runs(SQLiteSession("ref", ":memory:"))
        async with await session_on(dsn, "runner") as s:
            ours = await two_runs(s)
        async with await session_on(dsn, "runner") as again:  # a restart: a new object, the same id
            restarted = await again.get_items()
        return reference, ours, restarted

    reference, ours, restarted = run(main())
    assert ours == reference and restarted == reference
    with psycopg.connect(dsn) as conn:
        assert [r[0] for r in conn.execute("SELECT status FROM pgctx.side_effects WHERE conversation_id = 'runner'")] == [
            "succeeded"]


def turn(i: int) -> list[dict]:
    words = " ".join(f"word{i}_{j}" for j in range(40))
    return [{"role": "user", "content": f"Turn {i}: ship order {1000 + i} to Berlin. {words}"},
            {"type": "function_call", "call_id": f"c{i}", "name": "lookup_order",
             "arguments": json.dumps({"order_id": str(1000 + i)})},
            {"type": "function_call_output", "call_id": f"c{i}", "output": f"order {1000 + i}: packed"},
            {"role": "assistant", "content": f"Order {1000 + i} is packed."}]


def test_reads_are_the_folded_working_context_within_the_budget(dsn):
    async def main():
        async with await session_on(dsn, "long", budget=SMALL) as s:
            sizes = []
            for i in range(30):
                await s.add_items(turn(i))
                items = await s.get_items()
                sizes.append(sum(SMALL.counter().message_tokens(
                    {"role": "system", "content": json.dumps(x)}) for x in items))
            return s.last_fold, await s.get_items(), await s.get_items(limit=3), sizes

    fold, items, last3, sizes = run(main())
    assert fold is not None and fold.version >= 2
    assert items[0]["role"] == "system" and items[0]["content"].startswith("Task: ")
    assert "[summary v" in items[0]["content"]
    added = [x for i in range(30) for x in turn(i)]
    raw = [x for x in items if x.get("role") != "system"]
    assert raw and raw == added[-len(raw):]  # the raw tail is the items as added
    assert max(sizes[10:]) < 2 * SMALL.input_limit  # bounded however long it grows
    # limit keeps the summary and the latest raw items, never an output without its call
    assert last3[0] == items[0] and last3[-1] == added[-1]
    kept = [x for x in last3 if x.get("role") != "system"]
    calls = {x["call_id"] for x in kept if x.get("type") == "function_call"}
    assert all(x["call_id"] in calls for x in kept if x.get("type") == "function_call_output")
    with psycopg.connect(dsn) as conn:
        assert pgctx.verify(conn, "long").ok
        assert conn.execute("SELECT count(*) FROM pgctx.events WHERE conversation_id = 'long'").fetchone()[0] == 120


def test_the_fold_is_checked_once_per_turn_when_a_context_is_read(dsn, monkeypatch):
    # the runner adds a turn in two batches and reads once: one fold check, at the read, so what
    # the turn made due is folded before the context is served
    checks = []
    fold = pgctx.fold

    def counted(*args, **kwargs):
        checks.append(args[1])
        return fold(*args, **kwargs)

    monkeypatch.setattr(pgctx, "fold", counted)

    async def main():
        async with await session_on(dsn, "once", budget=SMALL) as s:
            served = []
            for i in range(12):
                await s.add_items(turn(i)[:3])
                await s.add_items(turn(i)[3:])
                assert len(checks) == i
                served.append(await s.get_items())
                assert len(checks) == i + 1
            return served

    served = run(main())
    with psycopg.connect(dsn) as conn:
        committed = pgctx.committed_fold(conn, "once")
    assert committed.version >= 1
    # every read came after the check: a fold the turn made due is in what was served next
    assert "[summary v" in served[-1][0]["content"]


def test_pop_item_and_clear_session_change_the_view_not_the_log(dsn):
    async def main():
        async with await session_on(dsn, "pop") as s:
            await s.add_items(turn(1))
            popped = await s.pop_item()
            after_pop = await s.get_items()
            await s.clear_session()
            cleared = await s.get_items()
            empty_pop = await s.pop_item()
            await s.add_items(turn(2)[:1])
            return popped, after_pop, cleared, empty_pop, await s.get_items()

    popped, after_pop, cleared, empty_pop, last = run(main())
    assert popped == turn(1)[3] and after_pop == turn(1)[:3]
    assert (cleared, empty_pop, last) == ([], None, turn(2)[:1])
    with psycopg.connect(dsn) as conn:
        assert [k for (k,) in conn.execute("SELECT kind FROM pgctx.events WHERE conversation_id = 'pop' ORDER BY seq")] == [
            "user", "tool_call", "tool_result", "assistant", "retraction", "clear", "user"]
        assert pgctx.verify(conn, "pop").ok


def test_retraction_and_clear_in_sql(conn):
    """What pop_item and clear_session call, through psql: only their functions write those kinds."""
    pgctx.append_many(conn, "v", [{"kind": "user", "payload": {"text": "a"}}, {"kind": "user", "payload": {"text": "b"}}])
    assert conn.execute("SELECT seq, payload->>'text' FROM pgctx.retract_last('v')").fetchall() == [(2, "b")]
    assert conn.execute("SELECT seq, payload->>'text' FROM pgctx.retract_last('v')").fetchall() == [(1, "a")]
    assert conn.execute("SELECT seq FROM pgctx.retract_last('v')").fetchall() == []  # nothing left to retract
    for kind in ("retraction", "clear"):
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("SELECT pgctx.append_event('v', %s, '{\"seq\": 1}')", (kind,))
        assert refused.value.sqlstate == "PC018"
    assert conn.execute("SELECT count(*) FROM pgctx.context_events('v') WHERE section = 'events'").fetchone()[0] == 0


def test_a_fold_keeps_a_retracted_event_with_its_retraction(conn):
    pgctx.append_many(conn, "r", [{"kind": "user", "payload": pasted(f"m{i}")} for i in range(1, 5)])
    conn.execute("SELECT * FROM pgctx.retract_last('r')")  # seq 4, retracted at seq 5
    assert conn.execute("SELECT pgctx.fold_boundary('r', 4)").fetchone()[0] == 3
    problems = pgctx.fold_violations(conn, "r", base_version=0, base_cursor=0, new_cursor=4,
                                     summary={"schema_version": 2})
    assert ("PC103", "boundary 4 splits event 4 from its retraction (seq 5)") in problems
    folded = pgctx.fold(conn, "r", force=True)
    assert folded.committed and folded.cursor == 5
    assert "m4\\n" not in json.dumps(pgctx.committed_fold(conn, "r").summary)  # retracted: not carried


def test_a_commit_never_folds_an_event_retracted_since_it_was_prepared(conn):
    pgctx.append_many(conn, "rc", [{"kind": "user", "payload": pasted(f"m{i}")} for i in range(1, 5)])
    request = fold_request(conn, "rc")
    version = pgctx.prepare_fold(conn, "rc", expected_version=0, expected_cursor=0, new_cursor=4,
                                 summary=BuiltinSummarizer().summarize(request))
    conn.execute("SELECT * FROM pgctx.retract_last('rc')")  # event 4, which the candidate folds
    with pytest.raises(FoldSplitsUnit, match="retracted"):
        pgctx.commit_fold(conn, "rc", version)
    assert pgctx.committed_fold(conn, "rc").version == 0


def test_a_fold_after_a_clear_starts_over(conn):
    pgctx.append_many(conn, "c", [{"kind": "user", "payload": pasted("order 4711 to Berlin")},
                                  {"kind": "assistant", "payload": {"text": "ok"}}])
    assert pgctx.fold(conn, "c", force=True).committed
    conn.execute("SELECT pgctx.clear_view('c')")
    ctx = pgctx.build_context(conn, "c")
    assert ctx.summary is None and ctx.messages == []
    pgctx.append(conn, "c", "user", pasted("new topic: invoice 99"))
    assert pgctx.fold(conn, "c", force=True).committed
    summary = json.dumps(pgctx.committed_fold(conn, "c").summary)
    assert "4711" not in summary and "invoice 99" in summary


@pytest.mark.parametrize("bad, error, words", [
    ({"role": "user", "content": "nul \u0000 here"}, UnrepresentableJSON, "item 1 (user)"),
    ({"role": "user", "content": "x" * 1_100_000}, PayloadTooLarge, "item 1 (user)"),
    ({"type": "function_call", "name": "f"}, InvalidPayload, "item 1 (function_call)"),
    ("not an item", InvalidPayload, "item 1 (str)"),
])
def test_a_bad_item_is_refused_by_name_and_the_batch_writes_nothing(dsn, bad, error, words):
    async def main():
        async with await session_on(dsn, "bad") as s:
            with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
                await s.add_items([{"role": "user", "content": "fine"}, bad])
            return await s.get_items()

    assert run(main()) == []


class Failing:
    id = "failing/1"

    def summarize(self, request):
        raise SummarizerFailed("the model is down", reason="server_error")


def test_a_failed_fold_loses_nothing_and_never_blocks_the_run(dsn, caplog):
    async def main():
        async with await session_on(dsn, "fail", budget=SMALL, summarizer=Failing()) as s:
            for i in range(12):
                await s.add_items(turn(i))
            served = len(await s.get_items())  # the read checks the fold, which fails: served anyway
            lenient = (s.fold_error, served)
        async with await session_on(dsn, "fail", budget=SMALL, summarizer=Failing(), strict=True) as s:
            await s.add_items(turn(12))  # stored: the fold is checked when a context is read
            with pytest.raises(SummarizerFailed):
                await s.get_items()
        async with await session_on(dsn, "fail", budget=SMALL, summarizer=Failing()) as s:
            return lenient, len(await s.get_items())

    (error, served), after = run(main())
    assert isinstance(error, SummarizerFailed) and served == 48 and after == 52
    assert "fold of session fail failed" in caplog.text


def test_background_folds_commit_one_winner(dsn):
    async def main():
        async with await session_on(dsn, "bg", budget=SMALL, background_folds=True) as s:
            for i in range(20):
                await s.add_items(turn(i))
            await s.wait_for_folds()
            return s.last_fold

    fold = run(main())
    assert fold is not None and fold.version >= 1
    with psycopg.connect(dsn) as conn:
        assert pgctx.verify(conn, "bg").ok
        assert conn.execute("SELECT count(*) FROM pgctx.fold_heads WHERE conversation_id = 'bg'").fetchone()[0] == 1


class Gated(BuiltinSummarizer):
    """The built-in summarizer, its first call held until the test lets it go."""

    def __init__(self) -> None:
        super().__init__()
        self.gate, self.calls = threading.Event(), 0

    def summarize(self, request):
        self.calls += 1
        assert self.gate.wait(30), "the test never opened the gate"
        return super().summarize(request)


def test_a_background_fold_folds_again_after_the_turns_that_came_while_it_ran(dsn):
    # The first fold's range is read before turns 2..19 arrive; without another round the
    # session would end with a fold due and nothing left to trigger it.
    summarizer = Gated()

    async def main():
        async with await session_on(dsn, "bg-again", budget=SMALL, summarizer=summarizer,
                                    background_folds=True) as s:
            for i in range(20):
                await s.add_items(turn(i))
            summarizer.gate.set()
            await s.wait_for_folds()

    run(main())
    assert summarizer.calls >= 2
    with psycopg.connect(dsn) as conn:
        after = pgctx.fold(conn, "bg-again", budget=SMALL, summarizer=summarizer)
        assert not after.committed and after.policy.startswith("not due"), after


def test_session_settings_limit_is_the_default_limit(dsn):
    async def main():
        async with await session_on(dsn, "lim", session_settings=SessionSettings(limit=2)) as s:
            await s.add_items(turn(1))
            return await s.get_items(), await s.get_items(limit=4)

    two, four = run(main())
    assert two == turn(1)[3:]  # the output's call is outside the limit, so the output is left out too
    assert four == turn(1)


def test_session_settings_are_normalized_as_the_sdks_sessions_do(dsn, tmp_path):
    async def main():
        sqlite = SQLiteSession("s", str(tmp_path / "s.db"), session_settings={"limit": 2})
        async with await session_on(dsn, "lim-dict", session_settings={"limit": 2}) as s:
            await s.add_items(turn(1))
            await sqlite.add_items(turn(1))
            ours = (s.session_settings, await s.get_items())
        async with await session_on(dsn, "lim-none") as s:
            default = s.session_settings
        return ours, (sqlite.session_settings, await sqlite.get_items()), default

    ours, theirs, default = run(main())
    assert ours[0] == theirs[0] == SessionSettings(limit=2)  # a dict is coerced, as SQLiteSession does
    # the one deliberate difference (integrations.md): an output whose call is outside the limit is left out
    assert theirs[1] == turn(1)[2:] and ours[1] == turn(1)[3:]
    assert default == SessionSettings() == SQLiteSession("d").session_settings
    with pytest.raises(TypeError, match="Unknown session settings: limt"):
        PgctxSession("x", None, session_settings={"limt": 2})


def test_an_empty_session_pops_none_and_clears_as_the_sdks_do(dsn):
    async def main():
        sqlite = SQLiteSession("empty")
        async with await session_on(dsn, "never-used") as s:
            popped = (await s.pop_item(), await sqlite.pop_item())
            await s.clear_session()
            await sqlite.clear_session()
            return popped, await s.get_items(), await sqlite.get_items()

    assert run(main()) == ((None, None), [], [])
    with psycopg.connect(dsn) as conn:  # nothing was written for it
        assert conn.execute("SELECT count(*) FROM pgctx.conversations WHERE conversation_id = 'never-used'"
                            ).fetchone()[0] == 0


def test_a_session_used_from_another_event_loop_says_so_at_once(dsn):
    # one session shared by threads that each run their own loop: the pool belongs to the first
    # loop, and from another one psycopg would wait forever
    loop = asyncio.new_event_loop()
    session = loop.run_until_complete(PgctxSession.from_dsn("loops", dsn))
    loop.run_until_complete(session.add_items(turn(1)))
    seen = []

    def other_thread():
        try:
            asyncio.run(asyncio.wait_for(session.get_items(), 30))
        except Exception as exc:
            seen.append(exc)

    thread = threading.Thread(target=other_thread)
    thread.start()
    thread.join(60)
    try:
        assert len(seen) == 1 and isinstance(seen[0], RuntimeError), seen
        assert "other than the one it was first used in" in str(seen[0])
        assert loop.run_until_complete(session.get_items()) == turn(1)  # on its own loop it goes on
    finally:
        loop.run_until_complete(session.close())
        loop.close()


def test_a_runner_through_the_real_openai_client_folds_mid_conversation(dsn):
    from agents import OpenAIResponsesModel
    from openai import AsyncOpenAI

    from tests.fake_openai import function_call as called, raw, running

    with running() as fake:
        client = AsyncOpenAI(base_url=fake.base_url, api_key="test-key", max_retries=0)
        agent = Agent(name="a", instructions="be brief", tools=[get_weather],
                      model=OpenAIResponsesModel(model="gpt-4.1", openai_client=client))

        async def main():
            async with await session_on(dsn, "http", budget=SMALL) as s:
                for i in range(8):
                    fake.plan(called("get_weather", {"city": f"City{i}"}, f"call_{i}"),
                              raw(f"It is sunny in City{i}. " + " ".join(f"detail{i}_{j}" for j in range(60))))
                    await Runner.run(agent, f"Weather in City{i}? " + " ".join(f"ask{i}_{j}" for j in range(60)),
                                     session=s, hooks=s.tool_hooks())
                return s.last_fold, await s.get_items()

        fold, items = run(main())
        last_input = fake.requests[-1].body["input"]
    assert fold is not None and fold.version >= 1
    assert items[0]["role"] == "system" and "[summary v" in items[0]["content"]
    # the model was sent the folded context: the summary first, not the whole history
    assert last_input[0]["role"] == "system" and "[summary v" in last_input[0]["content"]
    assert not any(x.get("role") == "user" and "ask0_0" in str(x.get("content")) for x in last_input)
    assert not any(x.get("call_id") == "call_0" for x in last_input)
    assert last_input[-1]["type"] == "function_call_output" and last_input[-1]["output"] == "sunny in City7"
    with psycopg.connect(dsn) as conn:
        assert pgctx.verify(conn, "http").ok
        assert conn.execute("SELECT count(*) FROM pgctx.side_effects WHERE conversation_id = 'http'"
                            " AND status = 'succeeded'").fetchone()[0] == 8


KILLED_RUN = """
import asyncio, sys, time
from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, function_call
from pgctx.integrations.openai_agents import PgctxSession
set_tracing_disabled(True)

@function_tool
def refund(order_id: str) -> str:
    \"\"\"Refund an order.\"\"\"
    print("tool started", flush=True)
    time.sleep(600)
    return "refunded"

async def main():
    async with await PgctxSession.from_dsn("killed", sys.argv[1]) as s:
        model = ScriptedModel([[function_call("refund", {"order_id": "10086"}, call_id="call_r")]])
        await Runner.run(Agent(name="a", model=model, tools=[refund]), "refund 10086", session=s, hooks=s.tool_hooks())

asyncio.run(main())
"""


def test_a_tool_call_killed_before_its_output_becomes_unknown_and_is_reconciled(dsn):
    kill_when_it_says("tool started", KILLED_RUN, dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:
        assert conn.execute("SELECT status FROM pgctx.side_effects WHERE conversation_id = 'killed'").fetchall() == [
            ("running",)]
        report = pgctx.recover(conn, "killed")
        assert [(u["call_id"], u["idempotency_key"]) for u in report["unknown_side_effects"]] == [("call_r", "call_r")]
        asked = []
        [resolution] = pgctx.reconcile(conn, "killed", lambda call: asked.append(call.idempotency_key)
                                       or {"outcome": "not_performed"})
        assert asked == ["call_r"] and resolution.retry_allowed
        assert conn.execute("SELECT status, retry_safe FROM pgctx.side_effects WHERE conversation_id = 'killed'"
                            ).fetchall() == [("failed", True)]

    async def reopened():
        async with await session_on(dsn, "killed") as s:
            return await s.get_items()

    items = run(reopened())
    assert items[0] == {"role": "user", "content": "refund 10086"}
    assert items[1]["type"] == "function_call" and items[1]["call_id"] == "call_r"


def test_tool_hooks_keep_the_items_the_sdk_stores(dsn):
    async def main():
        reference = await two_runs(SQLiteSession("ref", ":memory:"))
        async with await session_on(dsn, "hooked") as s:
            agent = Agent(name="a", model=ScriptedModel(script()), tools=[get_weather])
            await Runner.run(agent, "Weather in Paris?", session=s, hooks=s.tool_hooks())
            await Runner.run(agent, "What did I ask?", session=s, hooks=s.tool_hooks())
            return reference, await s.get_items()

    reference, ours = run(main())
    assert ours == reference
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM pgctx.events WHERE conversation_id = 'hooked' AND kind = 'tool_call'"
                            ).fetchone()[0] == 1  # recorded once, before the tool ran


def test_the_sdks_compaction_session_works_over_it_and_the_log_keeps_everything(dsn):
    from agents.memory import OpenAIResponsesCompactionSession
    from openai import AsyncOpenAI

    from tests.fake_openai import compacted, running

    kept = [{"type": "compaction", "id": "cmp_item", "encrypted_content": "opaque"},
            {"type": "message", "id": "msg_k", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "Order 1003 is packed.", "annotations": []}]}]
    with running() as fake:
        fake.plan(compacted(*kept))
        client = AsyncOpenAI(base_url=fake.base_url, api_key="test-key", max_retries=0)

        async def main():
            async with await session_on(dsn, "compacted") as s:
                await s.add_items(turn(1) + turn(2) + turn(3))
                wrapper = OpenAIResponsesCompactionSession("compacted", s, client=client, model="gpt-4.1")
                await wrapper.run_compaction({"compaction_mode": "input", "force": True})
                return await s.get_items(), await wrapper.get_items()

        items, through_wrapper = run(main())
        assert fake.paths() == ["/v1/responses/compact"]
    # what the SDK stored: the compacted output, the assistant message without its id (no reasoning)
    assert items == [kept[0], {k: v for k, v in kept[1].items() if k != "id"}] and items == through_wrapper
    with psycopg.connect(dsn) as conn:
        kinds = [k for (k,) in conn.execute("SELECT kind FROM pgctx.events WHERE conversation_id = 'compacted' ORDER BY seq")]
        assert kinds[:12] == [k for _ in range(3) for k in ("user", "tool_call", "tool_result", "assistant")]
        assert kinds[12:] == ["clear", "sdk_item", "assistant"]  # the history stays; the view restarted
        assert pgctx.verify(conn, "compacted").ok


def test_on_a_single_async_connection(dsn):
    async def main():
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as aconn:
            s = PgctxSession("one-conn", aconn)
            await two_runs(s)
            with pytest.raises(ValueError, match="AsyncConnectionPool"):
                PgctxSession("x", aconn, background_folds=True)
            return await s.get_items()

    items = run(main())
    assert [i.get("type", i.get("role")) for i in items] == [
        "user", "function_call", "function_call_output", "message", "user", "message"]
