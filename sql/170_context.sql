-- 170: the raw events of a working context (article 一.2, 五, 八).
--
-- Invariants enforced here:
--   * The working context is the committed summary plus every event after its cursor: no
--     unfolded event is ever left out (dropping raw history the summary does not cover would
--     lose it; when it does not fit, the answer is a fold, not a trim).
--   * Evidence stays raw beside the summary, never instead of it (pgctx.pinned_evidence, for any
--     checkpoint: the working context's, and prepare_fold's measure of a candidate): the events
--     of every risk the fold recorded (165) that is still live at the head, the events of calls
--     its summary still tracks as planned, running or unknown (a call folded while it waited stays
--     raw here until answered, 160), and the call of every result that arrived
--     after its call was folded (a tool output is never shown without its call).
--   * The context uses its budget: asked to fill `fill` tokens, the newest folded events follow
--     (section folded, newest first while the summary's stored tokens, the unfolded events and they
--     fit in `fill`; pinned evidence among them is returned again). The evidence is not counted:
--     the caller may show the oldest of it shortened (a share of B), or in place in the run.
--     The summary still covers them: it is their raw text that is kept while there is room. The
--     caller keeps whole units (a call with its result, an approval with its goal) and counts
--     exactly; this bound only stops the read.
--   * Asked to fill, the folded tool results the summary's active tool facts rest on come back
--     raw (section recalled, with their calls) when the unfolded events name the fact's subject
--     again: the newest reading about what the agent is working on now, which the newest folded
--     events may not reach; the caller places them first in what is left of `fill`, while they
--     fit. Found from the summary and the unfolded events, then by primary key.
--   * The view leaves out retracted events, retraction and clear events, and everything up to
--     the last clear; after a clear the fold does not cover, no summary, no evidence and no
--     folded events (200).
--   * Cost grows with the unfolded range, the last fold's range and the tokens asked for, not
--     with the history.

-- What the working context of a fold at fold_cursor (its summary and its recorded evidence)
-- keeps raw beside the summary, as of the head: (seq, kind, payload, tokens, why, chain hash).
CREATE OR REPLACE FUNCTION pgctx.pinned_evidence(conversation_id text, fold_cursor bigint, fold_summary jsonb,
                                                 fold_evidence jsonb)
RETURNS TABLE (seq bigint, kind text, payload jsonb, tokens integer, reason text, hash bytea)
-- plpgsql, not sql: its plans are kept for the session; this runs on every turn of every agent.
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET plan_cache_mode = force_generic_plan
SET jit = off
SET enable_seqscan = off AS $$
#variable_conflict use_column
DECLARE
    head       bigint;
    cleared    bigint;
    part_ids   text[];
    part_after bigint[];
    part_upto  bigint[];
    retracted  bigint[];
    answer_seqs  bigint[];
    answer_calls text[];
    call_seqs  bigint[];
    risk_seqs  bigint[];
    risk_why   text[];
    pinned_seqs bigint[];
    pinned_why text[];
BEGIN
    -- what the query below reads from other functions, each in a statement of its own: a function
    -- that reads the tables, called inside a query of them, is nested distributed execution on
    -- Citus. (A STABLE function's statements all see its caller's snapshot: still one snapshot.)
    SELECT c.head_seq INTO head FROM pgctx.conversations c
     WHERE c.conversation_id = pinned_evidence.conversation_id;
    cleared := pgctx.last_clear(pinned_evidence.conversation_id, 9223372036854775807);
    IF head IS NULL OR cleared > fold_cursor THEN
        RETURN;  -- after a clear the fold does not cover, nothing is pinned (200)
    END IF;
    SELECT array_agg(l.conversation_id), array_agg(l.after_seq), array_agg(l.upto_seq)
      INTO part_ids, part_after, part_upto
      FROM pgctx.lineage(pinned_evidence.conversation_id) l;
    retracted := ARRAY(SELECT (r.payload->>'seq')::bigint FROM pgctx.events r
                        WHERE r.conversation_id = pinned_evidence.conversation_id AND r.kind = 'retraction'
                          AND r.seq > fold_cursor);
    -- the results and status answers after the fold (not retracted), each with its call's first
    -- tool_call in the conversation's own events (by call id: events_call_id, "+ 0": see 080).
    -- The events after the fold by primary key, filtered by kind outside the subquery, which
    -- OFFSET 0 keeps whole (see 080): asked for "results after a seq", a plan may read every tool
    -- event of the conversation through events_call_id instead, which a generic plan does where
    -- tool events are a small share of the log.
    SELECT array_agg(a.seq ORDER BY a.seq), array_agg(a.payload->>'call_id' ORDER BY a.seq),
           array_agg(c.seq ORDER BY a.seq)
      INTO answer_seqs, answer_calls, call_seqs
      FROM (SELECT r.seq, r.kind, r.payload FROM pgctx.events r
             WHERE r.conversation_id = pinned_evidence.conversation_id AND r.seq > greatest(fold_cursor, cleared)
            OFFSET 0) a
      LEFT JOIN LATERAL (SELECT e.seq FROM pgctx.events e
                          WHERE e.conversation_id = pinned_evidence.conversation_id AND e.kind = 'tool_call'
                            AND e.payload->>'call_id' = a.payload->>'call_id' AND e.seq > part_after[1]
                          ORDER BY e.seq + 0 LIMIT 1) c ON true
     WHERE a.kind IN ('tool_result', 'status_query') AND a.seq <> ALL (retracted);
    -- for a branch, the call may have been made in a source's part (earlier seqs): one
    -- conversation per statement, the newest source first, so the oldest part holding the call
    -- decides (as 080 call_events finds a call)
    FOR i IN 2 .. coalesce(cardinality(part_ids), 0) LOOP
        EXIT WHEN answer_seqs IS NULL;
        SELECT array_agg(coalesce(x.seq, c.seq) ORDER BY c.ord) INTO call_seqs
          FROM unnest(answer_calls, call_seqs) WITH ORDINALITY AS c(id, seq, ord)
          LEFT JOIN LATERAL (SELECT e.seq FROM pgctx.events e
                              WHERE e.conversation_id = part_ids[i] AND e.kind = 'tool_call' AND e.payload->>'call_id' = c.id
                                AND e.seq > part_after[i] AND e.seq <= part_upto[i]
                              ORDER BY e.seq + 0 LIMIT 1) x ON true;  -- + 0: see 080 (call id lookups)
    END LOOP;
    -- the recorded risks still live at the head (entries from before 0006: {seq, reason}); this
    -- statement reads the log only through risk_live
    SELECT array_agg(s.v::bigint), array_agg(live.why) INTO risk_seqs, risk_why
      FROM (SELECT x.e, x.e->>'reason' AS why FROM jsonb_array_elements(coalesce(fold_evidence, '[]')) AS x(e)
             WHERE NOT (x.e ? 'risk')
                OR pgctx.risk_live(pinned_evidence.conversation_id, x.e->'risk',
                                   ARRAY(SELECT jsonb_array_elements_text(x.e->'seqs')::bigint), head)) live
     CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN live.e ? 'seqs' THEN live.e->'seqs'
                                                       ELSE jsonb_build_array(live.e->'seq') END) AS s(v);
    -- what is pinned and why, in a statement that reads no table
    WITH pinned AS (
        -- the call of a result that came after the call was folded
        SELECT a.call_seq AS seq, 'call of the result at seq ' || a.seq AS reason
          FROM unnest(answer_seqs, call_seqs) AS a(seq, call_seq)
         WHERE a.call_seq <= fold_cursor
        UNION ALL
        SELECT r.seq, r.why FROM unnest(risk_seqs, risk_why) AS r(seq, why)
        UNION ALL
        -- calls the summary still tracks as unresolved
        SELECT s.id::bigint, format('call %s is %s', t.k, t.v->>'status')
          FROM jsonb_each(coalesce(fold_summary->'tool_state', '{}')) AS t(k, v),
               jsonb_array_elements_text(t.v->'source_event_ids') AS s(id)
         WHERE t.v->>'status' IN ('planned', 'running', 'unknown')
    )
    SELECT array_agg(g.seq ORDER BY g.seq), array_agg(g.reasons ORDER BY g.seq) INTO pinned_seqs, pinned_why
      FROM (SELECT x.seq, string_agg(DISTINCT x.reason, '; ') AS reasons
              FROM pinned x WHERE x.seq <= fold_cursor GROUP BY x.seq) g;
    -- the pinned events by primary key, one part of the history per statement (a branch's folded
    -- history may be stored under its source, on Citus on another worker), the parts in seq order
    FOR i IN REVERSE coalesce(cardinality(part_ids), 0) .. 1 LOOP
        EXIT WHEN pinned_seqs IS NULL;
        RETURN QUERY
        SELECT e.seq, e.kind, e.payload, e.tokens, p.reasons, e.hash
          FROM pgctx.events e
          JOIN unnest(pinned_seqs, pinned_why) AS p(seq, reasons) ON p.seq = e.seq
         WHERE e.conversation_id = part_ids[i] AND e.seq = ANY (pinned_seqs)
           AND e.seq > part_after[i] AND (part_upto[i] IS NULL OR e.seq <= part_upto[i])
         ORDER BY e.seq;
    END LOOP;
END
$$;

COMMENT ON FUNCTION pgctx.pinned_evidence(text, bigint, jsonb, jsonb) IS
    'The events a working context keeps raw beside the summary of a fold at fold_cursor (its summary and recorded evidence), as of the head: live risks, unresolved calls, the calls of results that came after them; with why and each event''s chain hash.';

-- Before 0013 context_events took no fill and returned no hash.
DROP FUNCTION IF EXISTS pgctx.context_events(text);

CREATE OR REPLACE FUNCTION pgctx.context_events(conversation_id text, fill bigint DEFAULT 0)
RETURNS TABLE (section text, seq bigint, kind text, payload jsonb, tokens integer, reason text, hash bytea)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET plan_cache_mode = force_generic_plan
SET jit = off
SET enable_seqscan = off AS $$
#variable_conflict use_column
DECLARE
    fold_version  integer;
    fold_cursor   bigint;
    fold_summary  jsonb;
    fold_evidence jsonb;
    cleared_at    bigint;
    retracted     bigint[];
    pinned        bigint[] := '{}'::bigint[];
    used          bigint := 0::bigint;
    said          text[] := '{}'::text[];
    recall        bigint[];
    recall_why    text[];
    recall_calls  text[];
    part_ids      text[];
    part_after    bigint[];
    part_upto     bigint[];
    e             record;
BEGIN
    -- each read in a statement of its own (nested distributed execution on Citus otherwise)
    SELECT f.version, f.cursor, f.summary INTO fold_version, fold_cursor, fold_summary
      FROM pgctx.committed_fold(context_events.conversation_id) f;
    IF fold_version IS NULL THEN  -- no such conversation (or not visible): the summary row says so
        RETURN QUERY SELECT 'summary'::text, NULL::bigint, 'summary'::text,
                            jsonb_build_object('version', NULL, 'summary', NULL), NULL::integer, NULL::text, NULL::bytea;
        RETURN;
    END IF;
    cleared_at := pgctx.last_clear(context_events.conversation_id, 9223372036854775807);
    -- (after a clear the fold does not cover: version 0, no summary)
    RETURN QUERY SELECT 'summary'::text, fold_cursor, 'summary'::text,
                        CASE WHEN cleared_at <= fold_cursor THEN jsonb_build_object('version', fold_version, 'summary', fold_summary)
                             ELSE jsonb_build_object('version', 0, 'summary', NULL) END,
                        NULL::integer, NULL::text, NULL::bytea;
    -- the checkpoint by primary key: both key columns are index conditions in any plan
    SELECT k.evidence INTO fold_evidence FROM pgctx.checkpoints k
     WHERE k.conversation_id = context_events.conversation_id AND k.version = fold_version AND k.phase = 'COMMITTED';
    FOR e IN SELECT * FROM pgctx.pinned_evidence(context_events.conversation_id, fold_cursor, fold_summary,
                                                 fold_evidence) LOOP
        pinned := pinned || e.seq;
        section := 'evidence'; seq := e.seq; kind := e.kind; payload := e.payload; tokens := e.tokens;
        reason := e.reason; hash := e.hash;
        RETURN NEXT;
    END LOOP;
    -- retracted events are out of the view, folded or not (a retraction names an unfolded event,
    -- and a fold keeps the two together: 200)
    retracted := ARRAY(SELECT (r.payload->>'seq')::bigint FROM pgctx.events r
                        WHERE r.conversation_id = context_events.conversation_id AND r.kind = 'retraction'
                          AND r.seq > cleared_at);
    FOR e IN SELECT u.seq, u.kind, u.payload, u.tokens FROM pgctx.events u
              WHERE u.conversation_id = context_events.conversation_id AND u.seq > greatest(fold_cursor, cleared_at)
                AND u.kind NOT IN ('retraction', 'clear') AND u.seq <> ALL (retracted)
              ORDER BY u.seq LOOP
        used := used + coalesce(e.tokens, 0);
        said := said || e.payload::text;
        section := 'events'; seq := e.seq; kind := e.kind; payload := e.payload; tokens := e.tokens;
        reason := NULL; hash := NULL;
        RETURN NEXT;
    END LOOP;
    IF fill <= 0 OR cleared_at >= fold_cursor THEN
        RETURN;
    END IF;
    used := used + pgctx.base_summary_tokens(context_events.conversation_id, fold_version);
    SELECT array_agg(l.conversation_id), array_agg(l.after_seq), array_agg(l.upto_seq)
      INTO part_ids, part_after, part_upto
      FROM pgctx.lineage(context_events.conversation_id) l;
    -- recalled: the folded tool result each active tool fact of the summary rests on (its newest
    -- source), when the unfolded events name its subject again (every value of it, 4 characters or
    -- more), the subject named last first, at most 8 of them; read from the summary and the
    -- unfolded events already read, then by primary key: what the next action about that subject
    -- rests on, raw, which the newest folded events may not reach
    WITH facts AS (
        SELECT src.seq, f.value->>'subject' AS subject
          FROM jsonb_array_elements(CASE WHEN jsonb_typeof(fold_summary->'facts') = 'array'
                                         THEN fold_summary->'facts' ELSE '[]'::jsonb END) AS f(value)
         CROSS JOIN LATERAL (SELECT max(x.v::bigint) AS seq
                               FROM jsonb_array_elements_text(f.value->'source_event_ids') AS x(v)) src
         WHERE f.value->>'status' = 'active' AND coalesce(f.value->>'authority', '') NOT IN ('', 'user', 'model')
           AND f.value->>'subject' IS NOT NULL AND src.seq <= fold_cursor AND src.seq > cleared_at
           AND src.seq <> ALL (pinned)
    ), named AS (
        SELECT facts.seq, min(facts.subject) AS subject, max(t.ord) AS last
          FROM facts
         CROSS JOIN LATERAL unnest(said) WITH ORDINALITY AS t(txt, ord)
         WHERE NOT EXISTS (SELECT 1 FROM regexp_split_to_table(facts.subject, ',\s*') AS p(pair)
                            WHERE length(substr(p.pair, strpos(p.pair, '=') + 1)) < 4
                               OR strpos(t.txt, substr(p.pair, strpos(p.pair, '=') + 1)) = 0)
         GROUP BY facts.seq
         ORDER BY max(t.ord) DESC, facts.seq DESC
         LIMIT 8
    )
    SELECT array_agg(n.seq), array_agg('about ' || n.subject || ', named again after the fold')
      INTO recall, recall_why
      FROM named n;
    -- the results by primary key, one part of the history per statement (as pinned_evidence),
    -- then the call of each, by call id (a result is never shown without its call)
    FOR i IN REVERSE coalesce(cardinality(part_ids), 0) .. 1 LOOP
        EXIT WHEN recall IS NULL;
        FOR e IN SELECT r.seq, r.kind, r.payload, r.tokens, w.why, r.hash
                   FROM pgctx.events r
                   JOIN unnest(recall, recall_why) AS w(seq, why) ON w.seq = r.seq
                  WHERE r.conversation_id = part_ids[i] AND r.seq = ANY (recall)
                    AND r.seq > part_after[i] AND (part_upto[i] IS NULL OR r.seq <= part_upto[i])
                    AND r.kind IN ('tool_result', 'status_query') AND r.seq <> ALL (retracted) LOOP
            recall_calls := array_append(recall_calls, e.payload->>'call_id');
            section := 'recalled'; seq := e.seq; kind := e.kind; payload := e.payload; tokens := e.tokens;
            reason := e.why; hash := e.hash;
            RETURN NEXT;
        END LOOP;
    END LOOP;
    FOR i IN REVERSE coalesce(cardinality(part_ids), 0) .. 1 LOOP
        EXIT WHEN recall_calls IS NULL;
        RETURN QUERY
        SELECT 'recalled'::text, c.seq, c.kind, c.payload, c.tokens, 'the call of a recalled result'::text, c.hash
          FROM unnest(recall_calls) AS k(call_id)
          CROSS JOIN LATERAL (SELECT x.seq, x.kind, x.payload, x.tokens, x.hash FROM pgctx.events x
                               WHERE x.conversation_id = part_ids[i] AND x.kind = 'tool_call'
                                 AND x.payload->>'call_id' = k.call_id AND x.seq > part_after[i]
                                 AND (part_upto[i] IS NULL OR x.seq <= part_upto[i])
                               ORDER BY x.seq + 0 LIMIT 1) c;  -- + 0: see 080 (call id lookups)
    END LOOP;
    -- the newest folded events while they fit, across the lineage (newest part first); an erased
    -- event has no stored count: its marker is a short note
    <<parts>>
    FOR i IN 1 .. coalesce(cardinality(part_ids), 0) LOOP
        FOR e IN SELECT f.seq, f.kind, f.payload, f.tokens FROM pgctx.events f
                  WHERE f.conversation_id = part_ids[i] AND f.seq > greatest(part_after[i], cleared_at)
                    AND f.seq <= least(coalesce(part_upto[i], fold_cursor), fold_cursor)
                  ORDER BY f.seq DESC LOOP
            CONTINUE WHEN e.kind IN ('retraction', 'clear') OR e.seq = ANY (retracted);
            -- pinned evidence is returned here too, so that the caller can show it in place when
            -- the run of folded events reaches it
            used := used + coalesce(e.tokens, 24);
            EXIT parts WHEN used > fill;
            section := 'folded'; seq := e.seq; kind := e.kind; payload := e.payload; tokens := e.tokens;
            reason := NULL; hash := NULL;
            RETURN NEXT;
        END LOOP;
    END LOOP;
END
$$;

COMMENT ON FUNCTION pgctx.context_events(text, bigint) IS
    'A working context''s parts, from one snapshot: the committed fold (section summary: {version, summary} at seq = its cursor), the evidence pinned beside the summary (section evidence, with the reason and chain hash), every event after the cursor (section events), and, asked to fill tokens, the folded tool results the summary''s facts about a subject named again after the cursor rest on, with their calls (section recalled, with why), and the newest folded events while summary, evidence, events and they fit (section folded, newest first).';
