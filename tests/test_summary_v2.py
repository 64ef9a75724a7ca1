"""Summary schema_version 2 on real PostgreSQL: its own SQL rules (bounded tool state, collapsed
writes, subjects, the user's words), and the built-in summarizer's rules (pgctx/summarizers.py
docstring): which value is current, contradictions and their settlement, the user's words, the
goal, the agent's offers, and a size that follows the live state, not the history.

The rules shared with version 1 are tested for both versions in tests/test_folds.py."""

from __future__ import annotations

import copy
import dataclasses

import psycopg
import pytest

import pgctx
from pgctx import errors
from pgctx.fold_procedures import fold_request
from pgctx.summarizers import BuiltinSummarizer, binding, row_detail
from pgctx.tokens import Budget
from tests.events import EAGER

CID = "v2"


def add(conn, *events, cid: str = CID) -> list[int]:
    return pgctx.append_many(conn, cid, [{"kind": k, "payload": p} for k, p in events])


def write_call(n: int, order: str = "10086", outcome: str = "succeeded", **result) -> list[tuple[str, dict]]:
    call = {"tool": "update_order", "call_id": f"w{n}", "idempotency_key": f"k{n}", "effect": "write",
            "arguments": {"order_id": order, "note": f"n{n}"}}
    answer = {"call_id": f"w{n}", "outcome": outcome, **({"request_id": f"r{n}"} if outcome == "succeeded" else {})}
    if result:
        answer["result"] = result
    return [("tool_call", call), ("tool_result", answer)]


def read_call(n: int, tool: str = "lookup", subject: dict | None = None, **result) -> list[tuple[str, dict]]:
    return [("tool_call", {"tool": tool, "call_id": f"{tool}-{n}", "effect": "read",
                           "arguments": subject or {"order_id": "10086"}}),
            ("tool_result", {"call_id": f"{tool}-{n}", "outcome": "succeeded", "result": result})]


def folded(conn, cid: str = CID) -> dict:
    """Fold everything foldable (as a forced fold() does) with the built-in summarizer; the committed
    summary. Its candidates are weighed as 0 tokens: these conversations are a few short events,
    smaller than any summary, and what is tested here is the summary, not the rule that a fold makes
    the context smaller (PC121, tests/test_fold_fidelity.py)."""
    boundary = conn.execute("SELECT pgctx.fold_boundary(%s)", (cid,)).fetchone()[0]
    request = fold_request(conn, cid, boundary)
    version = pgctx.prepare_fold(conn, cid, expected_version=request.base_version, expected_cursor=request.from_seq,
                                 new_cursor=boundary, summary=BuiltinSummarizer().summarize(request), tokens=0)
    pgctx.commit_fold(conn, cid, version)
    return pgctx.committed_fold(conn, cid).summary


def facts(summary: dict, key: str) -> list[tuple]:
    return [(f["value"], f.get("subject"), f["authority"], f.get("previous_value")) for f in summary["facts"]
            if f["key"] == key and f["status"] == "active"]


def candidate(conn, cid: str = CID) -> tuple[dict, dict]:
    """The built-in candidate of the committed cursor+1..head, and the fold arguments to prepare it."""
    request = fold_request(conn, cid)
    fold = dict(expected_version=request.base_version, expected_cursor=request.from_seq, new_cursor=request.to_seq,
                tokens=0)  # (weighed as 0 tokens, as in folded())
    return BuiltinSummarizer().summarize(request), fold


# --------------------------------------------------------------------------------------------
# the SQL rules of version 2


def test_tool_state_keeps_unresolved_calls_the_newest_12_writes_and_3_reads(conn):
    add(conn, ("user", {"text": "update order 10086"}), *write_call(0, outcome="timeout"))  # unknown, oldest
    for n in range(1, 16):
        add(conn, *write_call(n), *read_call(n, status=f"s{n}"))
    v2 = pgctx.must_keep(conn, CID, 0, 63)
    kept, collapsed = set(v2["tool_calls"]), set(v2["collapsed"])
    assert kept == {"w0", *(f"w{n}" for n in range(4, 16)), *(f"lookup-{n}" for n in range(13, 16))}
    assert collapsed == {*(f"w{n}" for n in range(1, 4)), *(f"lookup-{n}" for n in range(1, 13))}
    assert v2["tool_calls"]["w0"]["status"] == "unknown" and v2["tool_calls"]["w15"]["subject"] == "order_id=10086"
    assert len(pgctx.must_keep(conn, CID, 0, 63, schema_version=1)["tool_calls"]) == 31  # version 1 keeps all
    # the built-in candidate passes: the collapsed writes are one completed action with their count
    summary, fold = candidate(conn)
    assert set(summary["tool_state"]) == kept
    assert summary["completed_actions"] == [{"action": "update_order x3 earlier", "status": "succeeded",
                                             "tool": "update_order", "count": 3,
                                             "source_event_ids": [12, 13]}]  # w3, the newest of them
    assert pgctx.fold_violations(conn, CID, base_version=0, base_cursor=0, new_cursor=63, summary=summary) == []



def _writes_and_reads(conn) -> None:
    add(conn, ("user", {"text": "update order 10086"}), *write_call(0, outcome="timeout"))  # unknown, oldest
    for n in range(1, 7):
        add(conn, *write_call(n), *read_call(n))


def test_a_smaller_horizon_keeps_fewer_resolved_calls_and_never_an_unresolved_one(conn):
    _writes_and_reads(conn)
    for horizon, writes, reads in ((12, 6, 3), (4, 4, 1), (2, 2, 0), (0, 0, 0)):
        keep = pgctx.must_keep(conn, CID, 0, 27, horizon=horizon)
        kept = set(keep["tool_calls"])
        assert "w0" in kept, horizon  # unresolved: kept whatever the horizon
        assert kept - {"w0"} == {f"w{n}" for n in range(7 - writes, 7)} | {f"lookup-{n}" for n in range(7 - reads, 7)}
        assert set(keep["collapsed"]) == ({f"w{n}" for n in range(1, 7)} | {f"lookup-{n}" for n in range(1, 7)}) - kept
    assert pgctx.must_keep(conn, CID, 0, 27) == pgctx.must_keep(conn, CID, 0, 27, horizon=12)  # None: the default


def test_a_negative_horizon_is_refused_through_sql_and_python(conn):
    _writes_and_reads(conn)
    with pytest.raises(errors.InvalidFoldHorizon):
        pgctx.must_keep(conn, CID, 0, 27, horizon=-1)
    summary, fold = candidate(conn)
    with pytest.raises(errors.InvalidFoldHorizon):
        pgctx.prepare_fold(conn, CID, summary=summary, horizon=-1, **fold)
    with pytest.raises(psycopg.Error) as raw:
        conn.execute("SELECT pgctx.fold_violations(%s, 0, 0, 27, '{}', 2, NULL, -1)", (CID,))
    assert raw.value.sqlstate == "PC122"
    conn.rollback()
    assert conn.execute("SELECT count(*) FROM pgctx.checkpoints").fetchone()[0] == 0  # nothing stored


def test_a_fold_is_validated_and_recovered_with_the_horizon_it_was_prepared_for(conn):
    _writes_and_reads(conn)
    request = fold_request(conn, CID, horizon=2)
    assert request.horizon == 2 and set(request.must_keep["tool_calls"]) == {"w0", "w5", "w6"}
    summary = BuiltinSummarizer().summarize(request)
    fold = dict(expected_version=0, expected_cursor=0, new_cursor=request.to_seq, summary=summary, tokens=0)
    # checked with the default horizon, the calls it collapsed are missing
    assert any(state == "PC108" for state, _ in pgctx.fold_violations(
        conn, CID, base_version=0, base_cursor=0, new_cursor=request.to_seq, summary=summary, tokens=0))
    with pytest.raises(errors.MustKeepMissing):
        pgctx.prepare_fold(conn, CID, **fold)
    version = pgctx.prepare_fold(conn, CID, horizon=2, **fold)
    assert conn.execute("SELECT horizon FROM pgctx.checkpoints WHERE version = %s", (version,)).fetchone()[0] == 2
    # the folder is gone before its commit: recovery re-checks it by its own horizon, and commits it
    report = pgctx.recover(conn, CID)
    assert [p["action"] for p in report["prepared"]] == ["committed"]
    assert pgctx.committed_fold(conn, CID).version == version


@pytest.mark.parametrize(("window", "horizon"), [(256, 0), (512, 1), (1024, 3), (2048, 6), (4096, 12), (128_000, 12)])
def test_the_default_horizon_follows_the_window(window, horizon):
    assert Budget(window=window).horizon == horizon


def test_fold_in_a_small_window_collapses_what_its_horizon_leaves_out(conn):
    _writes_and_reads(conn)
    small = Budget(window=1024, alpha=0.2, raw_tail=0.01)  # horizon 3: a fold is due, and leaves no tail
    done = pgctx.fold(conn, CID, budget=small)
    assert done.committed, done.reason
    summary = pgctx.committed_fold(conn, CID).summary
    assert set(summary["tool_state"]) == {"w0", "w4", "w5", "w6"}  # unresolved, and the newest 3 writes
    assert {(a["tool"], a["count"]) for a in summary["completed_actions"]} == {("update_order", 3)}
    assert conn.execute("SELECT horizon FROM pgctx.checkpoints WHERE version = %s", (done.version,)).fetchone()[0] == 3

def test_collapsed_writes_must_be_summarized_and_stay_summarized(conn):
    add(conn, ("user", {"text": "update order 10086"}))
    for n in range(14):
        add(conn, *write_call(n))
    summary, fold = candidate(conn)
    without = {**summary, "completed_actions": []}
    with pytest.raises(errors.MustKeepMissing, match="collapse 2 succeeded call"):
        pgctx.prepare_fold(conn, CID, summary=without, **fold)
    wrong = copy.deepcopy(summary)
    wrong["tool_state"]["w0"] = {"tool": "update_order", "effect": "write", "status": "failed", "source_event_ids": [2, 3]}
    with pytest.raises(errors.ToolStateContradiction, match=r"tool_state\[w0\] says failed"):
        pgctx.prepare_fold(conn, CID, summary=wrong, **fold)
    pgctx.commit_fold(conn, CID, pgctx.prepare_fold(conn, CID, summary=summary, **fold))
    add(conn, ("user", {"text": "thanks"}))
    later, fold = candidate(conn)
    assert [a["count"] for a in later["completed_actions"]] == [2]  # carried
    with pytest.raises(errors.MustKeepMissing, match="drops the per-tool action of update_order"):
        pgctx.prepare_fold(conn, CID, summary={**later, "completed_actions": []}, **fold)


def test_subjects_and_the_users_words_are_checked(conn):
    add(conn, ("user", {"text": "please only touch order 10086"}), *write_call(1), ("assistant", {"text": "done"}))
    summary, fold = candidate(conn)
    assert summary["user_requests"] == [{"text": "please only touch order 10086", "source_event_ids": [1]}]
    bad_subject = copy.deepcopy(summary)
    bad_subject["tool_state"]["w1"]["subject"] = "order_id=10087"
    with pytest.raises(errors.ToolStateContradiction, match="says subject order_id=10087 but the call is about order_id=10086"):
        pgctx.prepare_fold(conn, CID, summary=bad_subject, **fold)
    for requests, message in (([{"text": "done", "source_event_ids": [4]}], "event 4, which is not a user message"),
                              ([{"text": "please only touch order 10086", "source_event_ids": []}], "no source_event_ids"),
                              ([{"text": "later", "source_event_ids": [9]}], "outside the folded events")):
        with pytest.raises(errors.SourceCoverage, match=message):
            pgctx.prepare_fold(conn, CID, summary={**summary, "user_requests": requests}, **fold)


# --------------------------------------------------------------------------------------------
# the built-in summarizer: which value is current (rule 3)


def test_corrections_writes_and_readings_supersede_keeping_the_previous_value(conn):
    add(conn, ("user", {"text": "when does order 10086 arrive?"}),
        *read_call(1, delivery_date="2026-09-02", status="shipped"),
        *read_call(2, delivery_date="2026-09-03", status="shipped"))                    # the same tool: a newer reading
    assert facts(folded(conn), "delivery_date") == [("2026-09-03", "order_id=10086", "lookup", "2026-09-02")]
    add(conn, ("correction", {"key": "delivery_date", "value": "2026-09-05", "authority": "user"}))
    assert facts(folded(conn), "delivery_date") == [("2026-09-05", None, "user", "2026-09-03")]
    add(conn, *write_call(3, delivery_date="2026-09-06"))                               # our own change
    assert facts(folded(conn), "delivery_date") == [("2026-09-06", "order_id=10086", "update_order", "2026-09-05")]
    # another order's date is another fact
    add(conn, *read_call(4, subject={"order_id": "20086"}, delivery_date="2026-10-01"))
    assert sorted(facts(folded(conn), "delivery_date")) == [
        ("2026-09-06", "order_id=10086", "update_order", "2026-09-05"), ("2026-10-01", "order_id=20086", "lookup", None)]


def test_two_tools_that_disagree_are_a_contradiction_until_a_later_reading(conn):
    add(conn, ("user", {"text": "is sku A in stock?"}),
        *read_call(1, tool="check_stock", subject={"sku_id": "A", "store_id": "S1"}, in_stock=3),
        *read_call(2, tool="warehouse", subject={"sku_id": "A"}, in_stock=0))
    summary = folded(conn)
    assert sorted(facts(summary, "in_stock")) == [(0, "sku_id=A", "warehouse", None), (3, "sku_id=A, store_id=S1", "check_stock", None)]
    assert summary["open_questions"] == ["contradiction about in_stock [sku_id=A]: check_stock says 3 (#3), warehouse says 0 (#5)"]
    # the database found it too, and keeps both results raw while it is live
    ctx = pgctx.build_context(conn, CID)
    assert {3, 5} <= {seq for seq, _ in ctx.evidence}
    add(conn, ("user", {"text": "count it please"}), *read_call(3, tool="audit", subject={"sku_id": "A"}, in_stock=0))
    settled = folded(conn)
    assert facts(settled, "in_stock") == [(0, "sku_id=A", "audit", 3)] and settled["open_questions"] == []
    assert not {3, 5} & {seq for seq, _ in pgctx.build_context(conn, CID).evidence}  # settled: no longer pinned


def test_what_the_model_inferred_never_overrides_a_confirmed_value(conn):
    add(conn, ("user", {"text": "what is my phone number on file?"}),
        *read_call(1, tool="get_customer", subject={"customer_id": "C1"}, phone="+44 7700 900412"),
        ("fact", {"key": "phone", "value": "+44 7700 900124", "authority": "model", "confidence": "inferred"}))
    summary = folded(conn)
    assert facts(summary, "phone") == [("+44 7700 900412", "customer_id=C1", "get_customer", None)]
    assert summary["open_questions"] == ["phone: the model inferred '+44 7700 900124' (#4), but get_customer "
                                         "confirmed '+44 7700 900412' (#3); the confirmed value stands"]
    add(conn, ("fact", {"key": "eta", "value": "noon", "authority": "model", "confidence": "inferred"}))
    assert [(f["value"], f["confidence"]) for f in folded(conn)["facts"] if f["key"] == "eta"] == [("noon", "inferred")]


def test_what_a_result_restates_or_echoes_is_no_fact_but_a_writes_confirmation_is(conn):
    add(conn, ("user", {"text": "fetch the log of 2024-06-03 and move the date"}),
        ("tool_call", {"tool": "fetch_log", "call_id": "f1", "effect": "read",
                       "arguments": {"order_id": "10086", "day": "2024-06-03"}}),
        ("tool_result", {"call_id": "f1", "outcome": "succeeded",
                         "result": {"order_id": "10086", "day": "2024-06-03", "lines": 40}, "log": "x " * 300}),
        ("tool_call", {"tool": "set_date", "call_id": "s1", "effect": "write", "idempotency_key": "ks1",
                       "arguments": {"order_id": "10086", "delivery_date": "2026-09-05"}}),
        ("tool_result", {"call_id": "s1", "outcome": "succeeded", "request_id": "r-s1",
                         "result": {"order_id": "10086", "delivery_date": "2026-09-05"}}))
    keys = {f["key"]: f["value"] for f in folded(conn)["facts"]}
    assert keys == {"lines": 40, "delivery_date": "2026-09-05"}  # no order_id (the subject), no day (an echo), no log


# --------------------------------------------------------------------------------------------
# the user's words, the goal, the agent's offers (rules 4-6)


def test_the_users_words_are_kept_verbatim_newest_first_once_each(conn):
    add(conn, ("user", {"text": "Please have the courier call me before arriving."}), ("user", {"text": "ok"}),
        ("user", {"text": "Where is it now?"}), ("user", {"text": "please have the courier call me before arriving."}))
    assert folded(conn)["user_requests"] == [
        {"text": "please have the courier call me before arriving.", "source_event_ids": [4, 1]},
        {"text": "Where is it now?", "source_event_ids": [3]}]


def test_a_request_said_again_and_again_cites_the_newest_times_the_database_requires(conn):
    asked = add(conn, *[("user", {"text": "Any news on PX-1?"}) for _ in range(14)])
    (entry,) = folded(conn)["user_requests"]  # (prepare_fold refuses it if one of the newest 12 is uncited)
    assert entry["source_event_ids"] == asked[::-1][:12]


def test_binding_words_outlast_small_talk_under_the_cap(conn):
    """The newest 12 requests of the range are required (PC120); of the older ones, under the cap
    of 16, a rule outlasts small talk."""
    add(conn, ("user", {"text": "Never leave the parcel with the neighbours."}),
        *[("user", {"text": f"Any news, round {n}?"}) for n in range(20)])
    kept = [r["text"] for r in folded(conn)["user_requests"]]
    assert len(kept) == 16 and kept[-1] == "Never leave the parcel with the neighbours."
    assert kept[:12] == [f"Any news, round {n}?" for n in range(19, 7, -1)]


def test_a_statement_shortened_to_its_values_does_not_bind_and_goes_before_a_rule():
    from pgctx.summarizers import LITERALS, _tier
    rule, values = {"text": "Never force-push to a shared branch."}, {"text": LITERALS + "4821, e2e-smoke"}
    # ("(values only)" holds the word "only": read as the user's, every shortened statement outranked
    # the rules and pushed the oldest of them out under the cap of 12)
    assert not binding(values["text"][len(LITERALS):]) and binding(rule["text"])
    assert _tier("user_requests", values) < _tier("user_requests", rule)


@pytest.mark.parametrize("rule", [
    "No full rollout until the canary has been clean for 15 minutes.", "Not Monday, I'm out.",
    "Keep it under the 30k yen policy.", "20 max, the room is small.", "Mom can't find out.",
    "Stay within the 400 budget.", "Leave that file exactly where it is.", "Nothing before 10am on any day."])
def test_rules_in_the_users_own_words_bind_and_small_talk_does_not(rule):
    assert binding(rule)
    assert not binding("Not sure, what do you think?") and not binding("No problem, thanks!")


def test_the_goal_follows_a_topic_switch_and_the_agents_offers_are_decisions(conn):
    add(conn, ("user", {"text": "Move order 10086 to Friday."}), ("assistant", {"text": "Shall I book PU-0613-PM?"}),
        ("topic_switch", {"topic": "the invoice"}), ("user", {"text": "Send me the invoice."}))
    summary = folded(conn)
    assert summary["task"] == {"goal": "topic: the invoice", "status": "running", "source_event_ids": [3]}
    assert summary["decisions"] == [
        {"decision": "earlier goal: Move order 10086 to Friday.", "status": "superseded", "source_event_ids": [1]},
        {"decision": "the agent said: Shall I book PU-0613-PM?", "status": "active", "source_event_ids": [2]}]


# --------------------------------------------------------------------------------------------
# bounded size (rule 7)


def steady(conn, turns: int, cid: str) -> list[int]:
    """A steady workload: five orders in turn, each read, written and confirmed; the summary's
    stored token counts after every fold."""
    sizes = []
    tiny = Budget(window=3_000, fixed_input=0, output=0, reasoning=0, margin=0)
    for n in range(turns):
        order = f"1008{n % 5}"
        add(conn, ("user", {"text": f"Any news on order {order}?" if n % 7 else "Only ever change my own orders."}),
            *read_call(n, subject={"order_id": order}, status=("packed", "shipped", "out")[n % 3], eta=f"day {n % 9}",
                       log="scan " * 200),
            *write_call(n, order=order, confirmed=f"v{n % 4}"), ("assistant", {"text": "Noted."}), cid=cid)
        if pgctx.fold(conn, cid, budget=tiny).committed:
            sizes.append(conn.execute("SELECT tokens FROM pgctx.checkpoints k JOIN pgctx.fold_heads h USING"
                                      " (conversation_id, version) WHERE conversation_id = %s", (cid,)).fetchone()[0])
    return sizes


def test_the_summary_follows_the_live_state_not_the_history(conn):
    short, long = steady(conn, 20, "short"), steady(conn, 200, "long")
    assert len(long) > 5 * len(short) > 0
    assert max(long[-10:]) <= 1.1 * max(short[-3:]), (short, long[-10:])  # 10x the history, the same size
    summary = pgctx.committed_fold(conn, "long").summary
    assert len(summary["tool_state"]) <= 12 + 3 and len(summary["completed_actions"]) == 1
    assert summary["completed_actions"][0]["count"] > 150  # the writes it collapsed, counted
    assert len({f["subject"] for f in summary["facts"] if f.get("subject")}) <= 5  # five orders, five subjects


def test_what_is_used_again_outlasts_what_is_not(conn):
    add(conn, ("user", {"text": "find my booking"}),
        *read_call(1, tool="get_customer", subject={"customer_id": "C1"}, phone="+44 7700 900412"))
    for n in range(2, 30):
        add(conn, *read_call(n, tool="help", subject={"article_id": f"KB-{n}"}, ref=f"REF-{n:04d}"))
    add(conn, ("tool_call", {"tool": "send_sms", "call_id": "sms", "effect": "write", "idempotency_key": "ksms",
                             "arguments": {"phone": "+44 7700 900412", "text": "booked"}}),
        ("tool_result", {"call_id": "sms", "outcome": "succeeded", "request_id": "r-sms"}))
    small = Budget(window=3_000, fixed_input=0, output=0, reasoning=0, margin=0, summary_share=0.1)
    assert pgctx.fold(conn, CID, budget=small, force=True).committed
    summary = pgctx.committed_fold(conn, CID).summary
    kept = [f["key"] for f in summary["facts"]]
    assert "phone" in kept and len(kept) < 28  # the oldest fact, used by the last call, outlasts newer unused ones
    # the used fact moved to the end (used last), followed only by what the write was made with
    assert kept[-2:] == ["phone", "send_sms.text"]


def test_a_listings_row_details_go_before_the_results_own_fields_and_the_rows_ids(conn):
    add(conn, ("user", {"text": "what is the incident's state?"}),
        *read_call(1, tool="get_incident", subject={"incident_id": "INC-1"}, severity="SEV2", page_id="sp_main"),
        *read_call(2, tool="metrics", subject={"service": "checkout"},
                   series=[{"series_id": f"s-{i}", "rps": 400 + i, "p99_ms": 900 + i, "t": f"14:{i:02d}"}
                           for i in range(10)]))
    small = Budget(window=3_000, fixed_input=0, output=0, reasoning=0, margin=0, summary_share=0.1)
    assert pgctx.fold(conn, CID, budget=small, force=True).committed
    kept = {f["key"] for f in pgctx.committed_fold(conn, CID).summary["facts"]}
    # the newest facts are the series' details, yet they go first: what a later call uses stays
    assert {"severity", "page_id"} | {f"series[{i}].series_id" for i in range(10)} <= kept, kept
    assert len([k for k in kept if k.endswith((".rps", ".p99_ms", ".t"))]) < 30, kept  # some details went
    assert [row_detail(k) for k in ("series[3].rps", "albums[2].album_id", "items[0].title", "rows[1].userId",
                                    "severity", "by_year.2018")] == [True, False, False, False, False, False]


def test_eager_folds_of_a_long_conversation_stay_within_the_summary_share(conn):
    b = Budget(window=4_000, fixed_input=0, output=0, reasoning=0, margin=0, structural_floor=0, raw_tail=0)
    for n in range(40):
        add(conn, ("user", {"text": f"check order A-{n:03d} for me"}),
            *read_call(n, subject={"order_id": f"A-{n:03d}"}, status="ok", eta=f"2026-09-{1 + n % 28:02d}"))
        pgctx.fold(conn, CID, budget=b)
    stored = conn.execute("SELECT max(tokens) FROM pgctx.checkpoints WHERE conversation_id = %s", (CID,)).fetchone()[0]
    assert 0 < stored <= b.summary_limit
    assert EAGER.summary_limit > b.summary_limit  # (the default share, for scale)


def test_the_same_values_said_again_are_one_entry_citing_each_time_in_a_small_summary(conn):
    """Under the size bound a request goes to the values the user typed; "check CLM-7" asked three
    times in different words is then one entry citing each time (PC120 still finds each of the
    newest requests cited), and the room goes to what the tools said."""
    asked = [add(conn, ("user", {"text": text}))[0] for text in
             ("Please check claim CLM-7 for me.", "Any news on CLM-7?", "Look at CLM-7 again, please.")]
    add(conn, *read_call(1, subject={"claim_id": "CLM-7"}, adjuster="Mbeki", deductible="905.00"))
    request = fold_request(conn, CID, conn.execute("SELECT pgctx.fold_boundary(%s)", (CID,)).fetchone()[0])
    small = dataclasses.replace(request, budget=Budget(window=384, fixed_input=0, output=48, reasoning=0, margin=0))
    summary = BuiltinSummarizer().summarize(small)
    # (the first request is the goal's words: the text says them once, in the task message)
    assert summary["user_requests"] == [{"text": "(values only) CLM-7", "source_event_ids": asked[:0:-1]},
                                        {"text": "Please check claim CLM-7 for me.", "source_event_ids": asked[:1]}]
    assert {f["key"]: f["value"] for f in summary["facts"]} == {"adjuster": "Mbeki", "deductible": "905.00"}
    version = pgctx.prepare_fold(conn, CID, expected_version=small.base_version, expected_cursor=small.from_seq,
                                 new_cursor=small.to_seq, summary=summary, tokens=0)
    pgctx.commit_fold(conn, CID, version)


def test_the_goal_is_not_said_twice_in_the_summarys_text():
    from pgctx.messages import summary_message, task_message
    rule = "Keep the subrogation file separate from the payment file."
    summary = {"task": {"goal": rule, "status": "running"},
               "user_requests": [{"text": "Any news?", "source_event_ids": [4]}, {"text": rule, "source_event_ids": [1]}]}
    assert rule in task_message(summary)["content"]
    text = summary_message(summary, 1, 4)["content"]
    assert rule not in text and "- #1: (the task above)" in text and "- #4: Any news?" in text


def test_the_same_authorization_granted_again_is_one_constraint(conn):
    def grant(n: int, order: str) -> tuple[str, dict]:
        return ("approval", {"approval_id": f"ap-{n}", "status": "granted", "granted_by": "user",
                             "scope": {"order_id": order}})
    add(conn, ("user", {"text": "you may change my orders"}), grant(1, "10086"), grant(2, "20086"), grant(3, "10086"),
        ("permission", {"text": "the caller owns both orders"}), ("permission", {"text": "the caller owns both orders"}))
    assert folded(conn)["constraints"] == [
        {"text": "permission: the caller owns both orders", "source_event_ids": [6]},
        {"text": 'authorized by user: {"order_id": "10086"} (approval ap-3)', "source_event_ids": [4]},
        {"text": 'authorized by user: {"order_id": "20086"} (approval ap-2)', "source_event_ids": [3]}]
