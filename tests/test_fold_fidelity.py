"""A fold never hides or grows, and the working context uses its budget (issue 23; article 五, 十八).

- PC120: a candidate that hides what it folds (the newest user requests of its range, a fact
  declared in it, or everything: a hollow summary) is refused in SQL, for psql and fold() alike,
  and nothing changes;
- PC121: a candidate that would not make summary + evidence + unfolded events smaller is refused,
  forced folds too; fold() says so instead of committing;
- build_context fills what the summary, the evidence and the unfolded events leave of B with the
  newest folded events, in whole units, at 256, 1k, 4k and 16k windows; ``fill=0`` does not;
- evidence over its share of B is shown as pinned notes that name the seq and the chain hash;
- a reading after a fold that contradicts one before it is a risk, and both stay raw;
- small windows (2k, 4k, 8k) work end to end with the default reservations.

Every expectation is recomputed from the events and the returned context, with an independent
token counter, never taken from pgctx's own accounting.
"""

from __future__ import annotations

import psycopg
import pytest
from psycopg.types.json import Jsonb

import pgctx
from pgctx.canonical import canonical_json
from pgctx.errors import ContextOverBudget, FoldHidesContent
from pgctx.fold_procedures import fold_request
from pgctx.messages import event_message
from pgctx.summary import SCHEMA_VERSION
from pgctx.tokens import Budget, TokenCounter
from tests.events import LOG

CID = "fidelity-1"
COUNTER = TokenCounter("o200k_base")


def tokens(kind: str, payload: dict) -> int:
    return COUNTER.message_tokens(event_message(kind, payload))


def state(conn) -> tuple:
    """Everything a refused fold must leave as it was."""
    return (conn.execute("SELECT version, phase, cursor, summary FROM pgctx.checkpoints WHERE conversation_id = %s"
                         " ORDER BY version", (CID,)).fetchall(),
            conn.execute("SELECT version, cursor FROM pgctx.fold_heads WHERE conversation_id = %s", (CID,)).fetchall(),
            conn.execute("SELECT seq, hash FROM pgctx.events WHERE conversation_id = %s ORDER BY seq", (CID,)).fetchall())


def empty_summary(last: int) -> dict:
    return {"schema_version": SCHEMA_VERSION, "task": {"goal": "", "status": "running", "source_event_ids": []},
            "facts": [], "decisions": [], "tool_state": {}, "completed_actions": [], "pending": [], "constraints": [],
            "user_requests": [], "open_questions": [], "omitted_event_range": {"from": 1, "to": last},
            "last_event_id": last}


def chat(conn, turns: int, cid: str = CID) -> int:
    """A chat of ``turns`` user requests and answers (no tools); returns the head."""
    for i in range(turns):
        pgctx.append(conn, cid, "user", {"text": f"please check parcel PX-{1000 + i} and tell me where it is now"})
        pgctx.append(conn, cid, "assistant", {"text": f"Parcel PX-{1000 + i} left the Lyon hub this morning and "
                                                      f"should arrive tomorrow before noon."})
    return 2 * turns


def sql_prepare(conn, summary: dict, new_cursor: int, tokens: int | None = None) -> int:
    return conn.execute("SELECT pgctx.prepare_fold(%s, 0, 0, %s, %s, %s, tokens => %s)",
                        (CID, new_cursor, Jsonb(summary), SCHEMA_VERSION, tokens)).fetchone()[0]


def refused_in_sql(conn, code: str, summary: dict, new_cursor: int, tokens: int | None = None) -> str:
    before = state(conn)
    with pytest.raises(psycopg.Error) as caught:
        sql_prepare(conn, summary, new_cursor, tokens)
    assert caught.value.sqlstate == code, caught.value
    assert state(conn) == before, "a refused candidate changed something"
    return caught.value.diag.message_primary


class Fixed:
    """A summarizer that returns one candidate, whatever it is asked."""

    id = "fixed"

    def __init__(self, make):
        self.make = make

    def summarize(self, request):
        return self.make(request)


# --------------------------------------------------------------------------------------------
# PC120: a fold never hides what it folds


def test_a_hollow_summary_is_refused_in_sql_and_through_fold(conn):
    head = chat(conn, 30)
    message = refused_in_sql(conn, "PC120", empty_summary(head), head, tokens=1)
    assert "hides user message" in message or "hollow" in message
    before = state(conn)
    with pytest.raises(FoldHidesContent):
        pgctx.fold(conn, CID, force=True, summarizer=Fixed(lambda r: empty_summary(r.to_seq)))
    assert state(conn) == before


def test_a_range_of_answers_only_cannot_be_folded_hollow(conn):
    # no user request in the range: the hollow rule still holds (the agent's answers had content)
    for i in range(6):
        pgctx.append(conn, CID, "assistant", {"text": f"Status report {i}: the carrier confirmed pickup {i}."})
    violations = pgctx.fold_violations(conn, CID, base_version=0, base_cursor=0, new_cursor=6,
                                       summary=empty_summary(6), tokens=1)
    assert [c for c, _ in violations] == ["PC120"]
    assert "hollow summary" in violations[0][1]
    # the built-in summarizer keeps what the agent said rather than fold it away
    done = pgctx.fold(conn, CID, force=True)
    assert done.committed, done


def test_a_range_of_one_read_whose_facts_the_bound_dropped_still_folds_citing_it(conn):
    pgctx.append(conn, CID, "user", {"text": "is the front door locked?"})
    pgctx.append(conn, CID, "assistant", {"text": f"Let me check. The hub's log:\n{LOG}"})
    assert pgctx.fold(conn, CID, force=True).committed
    pgctx.append(conn, CID, "tool_call", {"tool": "get_state", "call_id": "g1", "effect": "read",
                                          "arguments": {"entity_id": "lock.front_door"}})
    pgctx.append(conn, CID, "tool_result", {"call_id": "g1", "outcome": "succeeded",
                                            "result": {"state": "locked", "last_changed": "07:42", "log": LOG[:900]}})
    tiny = Budget(window=4096, fixed_input=0, output=0, margin=0, summary_share=0.01, raw_tail=0)
    done = pgctx.fold(conn, CID, budget=tiny, force=True)
    assert done.committed, done  # not refused as hollow (PC120): the result's first fields are kept
    assert "get_state said: state = locked; last_changed = 07:42" in [
        d["decision"] for d in pgctx.committed_fold(conn, CID).summary["decisions"]]


def test_the_newest_user_requests_of_the_range_must_be_cited(conn):
    head = chat(conn, 14)  # user messages at 1, 3, ..., 27
    keep = pgctx.must_keep(conn, CID, 0, head)
    assert keep["requests"] == list(range(5, 28, 2)) and keep["acknowledgements"] == []  # the newest 12
    cites = empty_summary(head)
    cites["user_requests"] = [{"text": f"check PX-{1000 + (seq - 1) // 2}", "source_event_ids": [seq]}
                              for seq in range(27, 5, -2)]
    message = refused_in_sql(conn, "PC120", cites, head, tokens=1)
    assert message.startswith("the summary hides user message 5 ") and "newest 12 user messages" in message
    cites["decisions"] = [{"decision": "checked PX-1002", "status": "active", "source_event_ids": [5]}]
    # (1 and 3, older than the newest 12, may go uncited)
    assert pgctx.fold_violations(conn, CID, base_version=0, base_cursor=0, new_cursor=head, summary=cites,
                                 tokens=1) == []


def test_bare_acknowledgements_need_not_be_kept(conn):
    pgctx.append(conn, CID, "user", {"text": "where is parcel PX-77?"})
    pgctx.append(conn, CID, "assistant", {"text": "In Lyon; it arrives tomorrow."})
    pgctx.append(conn, CID, "user", {"text": "thanks!"})
    pgctx.append(conn, CID, "user", {"text": "Got it"})
    keep = pgctx.must_keep(conn, CID, 0, 4)
    assert keep["requests"] == [1] and keep["acknowledgements"] == [3, 4]
    assert conn.execute("SELECT pgctx.acknowledgement('thanks'), pgctx.acknowledgement('thanks, now cancel it')"
                        ).fetchone() == (True, False)


def test_a_fact_declared_in_the_range_must_be_kept(conn):
    pgctx.append(conn, CID, "user", {"text": "ship it to my office please"})
    pgctx.append(conn, CID, "fact", {"key": "address", "value": "12 rue Royale", "subject": {"order_id": "77"}})
    pgctx.append(conn, CID, "correction", {"key": "address", "value": "14 rue Royale", "subject": "order_id=77"})
    pgctx.append(conn, CID, "fact", {"key": "guess", "value": "x", "authority": "model", "confidence": "inferred"})
    keep = pgctx.must_keep(conn, CID, 0, 4)
    # one per key and subject (an object subject is written as pgctx writes subjects), the newest;
    # not the model's guess
    assert keep["facts"] == [{"key": "address", "subject": "order_id=77", "seq": 3}]
    summary = empty_summary(4)
    summary["user_requests"] = [{"text": "ship it to my office please", "source_event_ids": [1]}]
    summary["facts"] = [{"key": "address", "value": "12 rue Royale", "confidence": "confirmed", "authority": "user",
                         "subject": "order_id=77", "source_event_ids": [2], "status": "active"}]
    assert "hides the fact address [order_id=77] stated at seq 3" in refused_in_sql(conn, "PC120", summary, 4, tokens=1)
    summary["facts"][0].update(value="14 rue Royale", source_event_ids=[3])
    assert pgctx.fold_violations(conn, CID, base_version=0, base_cursor=0, new_cursor=4, summary=summary,
                                 tokens=1) == []


# --------------------------------------------------------------------------------------------
# PC121: a fold never grows the context


def test_a_growing_fold_is_refused_in_sql_with_the_figures(conn):
    head = chat(conn, 2)
    unfolded = sum(tokens(k, p) for k, p in conn.execute(
        "SELECT kind, payload FROM pgctx.events WHERE conversation_id = %s", (CID,)).fetchall())
    summary = pgctx.BuiltinSummarizer().summarize(fold_request(conn, CID))
    message = refused_in_sql(conn, "PC121", summary, head, tokens=unfolded)
    assert f"are {unfolded} tokens now and would be {unfolded} after" in message
    # a candidate from psql without a count is weighed by its JSON (bytes / 4)
    message = refused_in_sql(conn, "PC121", summary, head)
    assert "estimated from its JSON" in message
    # one token less than the history: it shrinks, and it commits
    version = sql_prepare(conn, summary, head, tokens=unfolded - 1)
    assert pgctx.commit_fold(conn, CID, version) == head


@pytest.mark.parametrize("window", [1, 15, 64])
def test_forced_folds_in_tiny_budgets_say_why_and_commit_nothing(conn, window):
    chat(conn, 1)
    budget = Budget(window=window, fixed_input=0, output=0, margin=0)
    before = state(conn)
    done = pgctx.fold(conn, CID, budget=budget, force=True)
    assert not done.committed and done.reason.startswith("not committed: folding 1..2 would not make the context "
                                                         "smaller"), done
    assert done.tokens_after == done.tokens_before
    assert state(conn) == before
    # not forced: the policy's reason makes sense at any budget
    idle = pgctx.fold(conn, CID, budget=budget)
    assert not idle.committed and "tail (2 tokens)" not in idle.reason


def test_every_committed_fold_shrinks_the_context(conn):
    budget = Budget(window=2048)
    for i in range(40):
        pgctx.append(conn, CID, "user", {"text": f"track parcel PX-{i} for me"})
        pgctx.append(conn, CID, "tool_call", {"tool": "track", "call_id": f"t-{i}", "effect": "read",
                                              "arguments": {"parcel_id": f"PX-{i}"}})
        pgctx.append(conn, CID, "tool_result", {"call_id": f"t-{i}", "outcome": "succeeded",
                                                "result": {"hub": "Lyon", "eta": f"2026-09-{1 + i % 28:02d}"},
                                                "log": LOG[:400 + 7 * i]})
        done = pgctx.fold(conn, CID, budget=budget)
        if done.committed:
            assert done.tokens_after < done.tokens_before, done
    assert pgctx.committed_fold(conn, CID).version > 1


# --------------------------------------------------------------------------------------------
# the working context uses its budget


def long_conversation(conn, cid: str = CID, turns: int = 60, log: int = 200) -> None:
    """Turns of a question, a lookup and its answer with a log of about ``log`` characters, and a reply."""
    for i in range(turns):
        pgctx.append(conn, cid, "user", {"text": f"what is the status of order O-{5000 + i}?"})
        pgctx.append(conn, cid, "tool_call", {"tool": "lookup", "call_id": f"c-{i}", "effect": "read",
                                              "arguments": {"order_id": f"O-{5000 + i}"}})
        pgctx.append(conn, cid, "tool_result", {"call_id": f"c-{i}", "outcome": "succeeded",
                                                "result": {"status": "packed", "bin": f"B-{i % 7}"},
                                                "log": LOG[: log // 2 + log * (i % 9) // 8]})
        pgctx.append(conn, cid, "assistant", {"text": f"O-{5000 + i} is packed in bin B-{i % 7}."})


def raw_tokens(ctx) -> dict[int, int]:
    return {seq: tokens(kind, payload) for seq, kind, payload in ctx.events}


def test_a_folded_reading_comes_back_raw_when_its_subject_is_named_again(conn):
    """The agent turns back to an order looked up long ago: the summary keeps its facts, and the
    lookup they rest on (with its call) comes back raw in the fill, ahead of the newest folded
    events, where trimming to the same tokens would not reach it; an order nobody names again
    does not, and recalled readings take at most a quarter of the room left to fill."""
    conn.execute("SELECT pgctx.declare_tool('lookup', 'read', ARRAY['order_id'])")
    budget = Budget(window=4096, fixed_input=0, output=512, margin=0)
    long_conversation(conn, turns=30, log=400)  # turn i: user 4i+1, call 4i+2, result 4i+3, reply 4i+4
    assert pgctx.fold(conn, CID, budget=budget, force=True).committed
    quiet = pgctx.build_context(conn, CID, budget=budget)
    pgctx.append(conn, CID, "user", {"text": "And O-5003: is it still in the same bin?"})
    ctx = pgctx.build_context(conn, CID, budget=budget)
    call_seq, result_seq = 4 * 3 + 2, 4 * 3 + 3
    raw = {seq for seq, _, _ in ctx.events}
    assert {call_seq, result_seq} <= raw and {call_seq, result_seq} <= set(ctx.folded)
    assert result_seq not in {seq for seq, _, _ in quiet.events}  # not before the order was named again
    run = [seq for seq in ctx.folded if seq > result_seq]
    assert min(run) > 4 * 4 and max(run) == ctx.cursor  # far older than the newest folded events
    ids = [m["tool_calls"][0]["id"] for m in ctx.messages if m.get("tool_calls")]
    outputs = [m["tool_call_id"] for m in ctx.messages if m["role"] == "tool"]
    assert "c-3" in ids and ids == outputs  # the reading right after its call
    rows = conn.execute("SELECT seq, reason FROM pgctx.context_events(%s, %s) WHERE section = 'recalled'",
                        (CID, budget.history_budget)).fetchall()
    assert (result_seq, "about order_id=O-5003, named again after the fold") in rows
    assert (call_seq, "the call of a recalled result") in rows
    assert ctx.total_tokens <= budget.input_limit
    recalled = sum(tokens(kind, payload) for seq, kind, payload in ctx.events if seq in (call_seq, result_seq))
    assert recalled <= (budget.history_budget - sum(ctx.sections[s] for s in ("task", "summary", "evidence", "events"))) // 4


@pytest.mark.parametrize("window", [256, 1024, 4096, 16384])
def test_the_context_fills_its_budget_with_the_newest_folded_events(conn, window):
    budget = Budget(window=window, fixed_input=0, output=window // 8, margin=0)
    long_conversation(conn, turns=20 if window < 4096 else 120, log=window // 8)
    done = pgctx.fold(conn, CID, budget=budget, force=True)
    assert done.committed, done
    ctx = pgctx.build_context(conn, CID, budget=budget)
    small = pgctx.build_context(conn, CID, budget=budget, fill=0)
    assert ctx.folded and not small.folded
    assert small.sections["folded"] == 0 and ctx.sections["folded"] > 0
    assert ctx.total_tokens <= budget.input_limit
    # the folded events shown are the newest run ending at the cursor, less answers whose call
    # did not fit: every folded seq between the oldest shown and the cursor is there, but those
    assert max(ctx.folded) == ctx.cursor
    rows = conn.execute("SELECT seq, kind, payload FROM pgctx.events WHERE conversation_id = %s AND seq >= %s"
                        " AND seq <= %s ORDER BY seq", (CID, min(ctx.folded), ctx.cursor)).fetchall()
    missing = [(seq, kind) for seq, kind, _ in rows if seq not in ctx.folded]
    assert all(kind == "tool_result" for _, kind in missing) and len(missing) <= 1, missing
    # it stops only where the next older event does not fit in what B leaves (counting the answer
    # left out at the run's start, if its call did not fit)
    history = sum(ctx.sections[s] for s in ("task", "summary", "evidence", "folded", "events"))
    before = conn.execute("SELECT kind, payload FROM pgctx.events WHERE conversation_id = %s AND seq < %s"
                          " ORDER BY seq DESC LIMIT 2", (CID, min(ctx.folded))).fetchall()
    if before and before[0][0] == "tool_result":
        history += tokens(*before.pop(0))
    if before:
        assert history + tokens(*before[0]) > budget.history_budget
    # and the raw text a call and its output: paired
    calls = [m["tool_calls"][0]["id"] for m in ctx.messages if m.get("tool_calls")]
    outputs = [m["tool_call_id"] for m in ctx.messages if m["role"] == "tool"]
    assert calls == outputs


def test_the_context_is_never_poorer_than_trimming_beyond_the_summarys_room(conn):
    budget = Budget(window=4096, fixed_input=0, output=512, margin=0)
    long_conversation(conn, turns=80)
    assert pgctx.fold(conn, CID, budget=budget, force=True).committed
    ctx = pgctx.build_context(conn, CID, budget=budget)
    history = conn.execute("SELECT seq, kind, payload FROM pgctx.events WHERE conversation_id = %s ORDER BY seq DESC",
                           (CID,)).fetchall()
    room = budget.history_budget - ctx.sections["task"] - ctx.sections["summary"] - ctx.sections["evidence"]
    kept, used = [], 0  # what trimming to the room the summary leaves would keep
    for seq, kind, payload in history:
        used += tokens(kind, payload)
        if used > room:
            break
        kept.append(seq)
    shown = {seq for seq, _, _ in ctx.events}
    lost = [seq for seq in kept if seq not in shown]
    # at most the one answer whose call trimming cuts off at the edge
    assert len(lost) <= 1, lost


def test_evidence_over_its_share_is_a_pinned_note_with_its_hash(conn):
    budget = Budget(window=4096, fixed_input=0, output=512, margin=0, evidence_share=0.05, raw_tail=0)
    pgctx.append(conn, CID, "user", {"text": "refund order 10086"})
    pgctx.append(conn, CID, "tool_call", {"tool": "refund", "call_id": "r-1", "effect": "irreversible",
                                          "idempotency_key": "k-r1", "arguments": {"order_id": "10086"}})
    pgctx.append(conn, CID, "tool_result", {"call_id": "r-1", "outcome": "timeout", "log": LOG})
    pgctx.append(conn, CID, "assistant", {"text": f"The refund timed out; I will ask the service by key k-r1. "
                                                  f"What it logged:\n{LOG}"})
    assert pgctx.fold(conn, CID, budget=budget, force=True).committed
    ctx = pgctx.build_context(conn, CID, budget=budget, fill=0)
    assert ctx.noted, ctx.sections
    hashes = dict(conn.execute("SELECT seq, hash FROM pgctx.events WHERE conversation_id = %s", (CID,)).fetchall())
    notes = [m["content"] for m in ctx.messages if "pinned evidence shortened" in (m.get("content") or "")]
    for seq in ctx.noted:
        assert any(f"#{seq} " in n and hashes[seq].hex()[:16] in n for n in notes), notes
        assert seq not in {s for s, _, _ in ctx.events}  # a note is not the raw event
    assert ctx.sections["evidence"] <= budget.evidence_limit + max(len(n) for n in notes)
    # with the whole budget to fill, the run of folded events shows the evidence raw, in place
    full = pgctx.build_context(conn, CID, budget=budget)
    assert not full.noted and {2, 3} <= set(full.folded)



def test_evidence_shorter_than_its_note_stays_raw_and_the_longer_is_cut_further_before_a_refusal(conn):
    budget = Budget(window=4096, fixed_input=0, output=512, margin=0, evidence_share=0, raw_tail=0)
    pgctx.append(conn, CID, "user", {"text": "refund order 10086"})
    pgctx.append(conn, CID, "tool_call", {"tool": "refund", "call_id": "r", "effect": "irreversible",
                                          "arguments": {"order_id": "10086", "reason": LOG}})  # 2: a long call
    pgctx.append(conn, CID, "tool_result", {"call_id": "r", "outcome": "succeeded"})           # 3: a tiny result
    pgctx.append(conn, CID, "assistant", {"text": f"Refunded. What the service logged:\n{LOG}"})  # (folds away)
    assert pgctx.fold(conn, CID, budget=budget, force=True).committed
    ctx = pgctx.build_context(conn, CID, budget=budget, fill=0)
    assert ctx.noted == [2]  # the result is shorter raw than any note of it would be
    evidence = [m["content"] for m in ctx.messages if (m.get("content") or "").startswith("[tool_result #3")]
    assert evidence == ['[tool_result #3, kept raw: risk: irreversible side effect: refund] '
                        '{"call_id": "r", "outcome": "succeeded"}']
    # a window too small for the call's note as its share leaves it: cut to its seq, reason and
    # chain hash, not refused
    note = next(m["content"] for m in ctx.messages if (m.get("content") or "").startswith("[tool_call #2"))
    tight = Budget(window=ctx.total_tokens - 20, fixed_input=0, output=0, margin=0, evidence_share=0, raw_tail=0)
    small = pgctx.build_context(conn, CID, budget=tight, fill=0)
    cut = next(m["content"] for m in small.messages if (m.get("content") or "").startswith("[tool_call #2"))
    assert small.total_tokens <= tight.input_limit and len(cut) < len(note) and cut.endswith("...")
    assert conn.execute("SELECT hash FROM pgctx.events WHERE seq = 2").fetchone()[0].hex()[:16] in cut



def test_many_pieces_of_evidence_over_any_share_are_one_note_of_their_seqs_not_a_refusal(conn):
    budget = Budget(window=4096, fixed_input=0, output=512, margin=0, raw_tail=0)
    pgctx.append(conn, CID, "user", {"text": "delete the 30 merged branches"})
    for n in range(30):  # 2..61: an irreversible delete each, live evidence while the work goes on
        pgctx.append(conn, CID, "tool_call", {"tool": "delete_branch", "call_id": f"d{n}", "effect": "irreversible",
                                              "arguments": {"branch_id": f"feature/{n}-{LOG[:60]}"}})
        pgctx.append(conn, CID, "tool_result", {"call_id": f"d{n}", "outcome": "succeeded", "log": LOG[:400]})
    pgctx.append(conn, CID, "assistant", {"text": "Deleted all 30. The logs:\n" + "\n".join([LOG] * 8)})  # (folds away)
    assert pgctx.fold(conn, CID, budget=budget, force=True).committed
    ctx = pgctx.build_context(conn, CID, budget=budget, fill=0)
    evidence = {seq for seq, _ in ctx.evidence}
    assert evidence == set(range(2, 62))
    tight = Budget(window=ctx.sections["task"] + ctx.sections["summary"] + 200, fixed_input=0, output=0, margin=0,
                   raw_tail=0)
    small = pgctx.build_context(conn, CID, budget=tight, fill=0)
    assert small.total_tokens <= tight.input_limit
    [note] = [m["content"] for m in small.messages if "pinned evidence shortened to its seqs" in (m.get("content") or "")]
    shortened = sorted(set(small.noted))
    assert len(shortened) > 1 and set(shortened) <= evidence
    raw = {seq for seq, _, _ in small.events}
    assert evidence == set(shortened) | (raw & evidence)  # every piece either raw or in the note
    assert note.startswith(f"[pinned evidence shortened to its seqs, #{shortened[0]}-") and "delete_branch (x" in note

def test_in_the_smallest_windows_raw_evidence_joins_one_note_of_its_seqs_before_a_refusal(conn):
    budget = Budget(window=4096, fixed_input=0, output=512, margin=0, raw_tail=0)
    pgctx.append(conn, CID, "user", {"text": "post the maintenance notice"})
    key = "maintenance-notice-2026-12-04-platform-announce"
    pgctx.append(conn, CID, "tool_call", {"tool": "chat_post_message", "call_id": "p1", "effect": "write",
                                          "idempotency_key": key, "arguments": {"channel": "C1"}})
    pgctx.append(conn, CID, "tool_result", {"call_id": "p1", "outcome": "timeout"})  # 2, 3: unknown, short, raw
    pgctx.append(conn, CID, "assistant", {"text": f"It timed out; I will ask by key {key}. {LOG}"})
    assert pgctx.fold(conn, CID, budget=budget, force=True).committed
    ctx = pgctx.build_context(conn, CID, budget=budget, fill=0)
    assert {seq for seq, _ in ctx.evidence} == {2, 3} and not ctx.noted  # raw: a note of each is no shorter
    terse = COUNTER.message_tokens({"role": "system", "content": "[pinned evidence shortened to its seqs, #2-3: "
                                                                 "what the summary's open calls and risks rest on]"})
    tight = Budget(window=ctx.total_tokens - ctx.sections["evidence"] + terse + 2, fixed_input=0, output=0, margin=0,
                   raw_tail=0)
    small = pgctx.build_context(conn, CID, budget=tight, fill=0)
    assert small.total_tokens <= tight.input_limit and sorted(small.noted) == [2, 3]
    [note] = [m["content"] for m in small.messages if "pinned evidence shortened" in (m.get("content") or "")]
    assert note == "[pinned evidence shortened to its seqs, #2-3: what the summary's open calls and risks rest on]"
    assert "p1 chat_post_message" in next(m["content"] for m in small.messages if "[summary" in m["content"])
    with pytest.raises(ContextOverBudget):  # below that, a refusal that says by how much
        pgctx.build_context(conn, CID, budget=Budget(window=tight.window - 10, fixed_input=0, output=0, margin=0,
                                                     raw_tail=0), fill=0)


# --------------------------------------------------------------------------------------------
# a contradiction across a fold boundary


def wrapped(name: str | None, record: dict) -> dict:
    return {name: record} if name else record


@pytest.mark.parametrize("before, after", [(None, None), ("item", "product")],
                         ids=["fields", "records-wrapped-in-their-names"])
def test_a_reading_after_a_fold_contradicts_one_before_it(conn, before, after):
    for tool in ("warehouse_stock", "shop_stock"):
        conn.execute("SELECT pgctx.declare_tool(%s, 'read', ARRAY['sku'])", (tool,))
    pgctx.append(conn, CID, "user", {"text": "how many units of SKU-9 are left?"})
    pgctx.append(conn, CID, "tool_call", {"tool": "warehouse_stock", "call_id": "w-1", "arguments": {"sku": "SKU-9"}})
    pgctx.append(conn, CID, "tool_result", {"call_id": "w-1", "outcome": "succeeded",
                                            "result": wrapped(before, {"units": 12}), "log": LOG})
    assert pgctx.fold(conn, CID, force=True).committed
    committed = pgctx.committed_fold(conn, CID)
    assert any(f["key"] == "units" and f["value"] == 12 for f in committed.summary["facts"])
    seq = pgctx.append(conn, CID, "tool_call", {"tool": "shop_stock", "call_id": "s-1", "arguments": {"sku": "SKU-9"}})
    answer = pgctx.append(conn, CID, "tool_result", {"call_id": "s-1", "outcome": "succeeded",
                                                     "result": wrapped(after, {"units": 3}), "log": LOG})
    # (and a lookup of something else, so that a fold of the range shrinks the context though both
    # readings stay raw)
    pgctx.append(conn, CID, "tool_call", {"tool": "carrier_log", "call_id": "l-1", "effect": "read",
                                          "arguments": {"route": "LYS-CDG"}})
    pgctx.append(conn, CID, "tool_result", {"call_id": "l-1", "outcome": "succeeded", "log": LOG})
    risks = conn.execute("SELECT evidence, risk FROM pgctx.fold_triggers(%s) WHERE trigger_class = 'risk'",
                         (CID,)).fetchall()
    assert ([3, answer], {"risk": "conflict", "field": "units", "identifiers": ["SKU-9"]}) in \
        [(list(e), r) for e, r in risks], risks
    assert seq == answer - 1
    pgctx.append(conn, CID, "assistant", {"text": "The two systems disagree about SKU-9: 12 or 3 units."})
    assert pgctx.fold(conn, CID, force=True).committed
    ctx = pgctx.build_context(conn, CID, fill=0)
    assert {3, answer} <= {s for s, _ in ctx.evidence}
    assert {3, answer} <= {s for s, _, _ in ctx.events}


# --------------------------------------------------------------------------------------------
# small windows, and budgets that name what is wrong


@pytest.mark.parametrize("window", [2048, 4096, 8192])
def test_small_windows_work_end_to_end_with_the_default_reservations(conn, window):
    budget = Budget(window=window)
    assert budget.history_budget > window // 2
    long_conversation(conn, turns=70)
    committed = 0
    for _ in range(3):
        done = pgctx.fold(conn, CID, budget=budget)
        committed += done.committed
    assert committed >= 1
    ctx = pgctx.build_context(conn, CID, budget=budget, system="You track orders.", current_message="and O-5069?")
    assert ctx.total_tokens <= budget.input_limit


def test_budget_reservations_scale_and_errors_name_the_fix():
    assert (Budget().fixed_input, Budget().output, Budget().margin) == (2000, 4096, 2000)
    small = Budget(window=4096)
    assert (small.fixed_input, small.output, small.margin, small.history_budget) == (256, 512, 256, 3072)
    with pytest.raises(ValueError, match=r"B = window 4096 - fixed_input 2000 - output 4096 - reasoning 0 - margin "
                                         r"2000 = -4000; with these reservations the smallest window is 8097"):
        Budget(window=4096, fixed_input=2000, output=4096, margin=2000)
    for bad in (dict(window="16k"), dict(window=16384.5), dict(window=True), dict(output=1.5),
                dict(alpha="high"), dict(model=4)):
        with pytest.raises(TypeError, match=next(iter(bad))):
            Budget(**bad)
    with pytest.raises(ValueError, match="Budget.margin must be >= 0"):
        Budget(margin=-1)


def test_build_context_refuses_a_bad_fill(conn):
    chat(conn, 1)
    for bad in (-1, 1.5, "all", True):
        with pytest.raises(TypeError, match="fill"):
            pgctx.build_context(conn, CID, fill=bad)


def test_declared_facts_in_any_client_shape_are_kept_valid(conn):
    """A fact event as clients write them (a confidence outside the summary's set, an object as its
    subject or value): the built-in summary stays valid against its schema, and keeps the fact."""
    pgctx.append(conn, CID, "user", {"text": "the refund goes to my other card, ending 4242; here is the log:\n" + LOG})
    pgctx.append(conn, CID, "fact", {"key": "refund_card", "value": {"last4": "4242", "brand": "visa"},
                                     "subject": {"order_id": 77}, "confidence": "explicit"})
    done = pgctx.fold(conn, CID, force=True)
    assert done.committed, done
    (fact,) = [f for f in pgctx.committed_fold(conn, CID).summary["facts"] if f["key"] == "refund_card"]
    assert (fact["confidence"], fact["subject"], fact["value"]) == (
        "confirmed", "order_id=77", canonical_json({"last4": "4242", "brand": "visa"}))
