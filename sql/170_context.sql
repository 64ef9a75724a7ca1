-- 170: the raw events of a working context (article 一.2, 八).
--
-- Invariants enforced here:
--   * The working context is the committed summary plus every event after its cursor: no
--     unfolded event is ever left out (dropping raw history the summary does not cover would
--     lose it; when it does not fit, the answer is a fold, not a trim).
--   * Evidence stays raw beside the summary, never instead of it: the events of every risk the
--     committed fold recorded (165) that is still live at the head, the events of calls the
--     summary still tracks as running or unknown, and the call of every result that arrived after
--     its call was folded (a tool output is never shown without its call).
--   * The view leaves out retracted events, retraction and clear events, and everything up to
--     the last clear; after a clear the fold does not cover, no summary and no evidence (200).
--   * Cost grows with the unfolded range and the last fold's range, not with the history.

CREATE OR REPLACE FUNCTION pgctx.context_events(conversation_id text)
RETURNS TABLE (section text, seq bigint, kind text, payload jsonb, tokens integer, reason text)
-- plpgsql, not sql: a plpgsql function keeps its query plan for the session, where a (non-inlined)
-- sql function is planned on every call; this runs on every turn of every agent (~0.6 ms saved).
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET plan_cache_mode = force_generic_plan
SET jit = off AS $$
DECLARE
    fold_version integer;
    fold_cursor  bigint;
    fold_summary jsonb;
    cleared_at   bigint;
    part_ids     text[];
    part_after   bigint[];
    part_upto    bigint[];
BEGIN
    -- what the query below reads from other functions, each in a statement of its own: a function
    -- that reads the tables, called inside a query of them, is nested distributed execution on
    -- Citus. (A STABLE function's statements all see its caller's snapshot: still one snapshot.)
    SELECT f.version, f.cursor, f.summary INTO fold_version, fold_cursor, fold_summary
      FROM pgctx.committed_fold(context_events.conversation_id) f;
    cleared_at := pgctx.last_clear(context_events.conversation_id, 9223372036854775807);
    SELECT array_agg(l.conversation_id), array_agg(l.after_seq), array_agg(l.upto_seq)
      INTO part_ids, part_after, part_upto
      FROM pgctx.lineage(context_events.conversation_id) l;
    RETURN QUERY
    WITH fold AS MATERIALIZED (
        -- the checkpoint by a correlated subquery: both primary key columns are then index
        -- conditions in any plan (as a join, the generic plan, costed on conversations with one or
        -- two checkpoints, scanned every checkpoint of the conversation: 1.2 ms at 5,000 folds)
        SELECT fold_version AS version, fold_cursor AS cursor, fold_summary AS summary,
               (SELECT k.evidence FROM pgctx.checkpoints k
                 WHERE k.conversation_id = context_events.conversation_id AND k.version = fold_version
                   AND k.phase = 'COMMITTED') AS evidence,
               (SELECT c.head_seq FROM pgctx.conversations c
                 WHERE c.conversation_id = context_events.conversation_id) AS head,
               cleared_at AS cleared,
               ARRAY(SELECT (r.payload->>'seq')::bigint FROM pgctx.events r
                      WHERE r.conversation_id = context_events.conversation_id AND r.kind = 'retraction'
                        AND r.seq > fold_cursor) AS retracted
    ), unfolded AS MATERIALIZED (
        SELECT e.seq, e.kind, e.payload, e.tokens
          FROM pgctx.events e, fold f
         WHERE e.conversation_id = context_events.conversation_id AND e.seq > greatest(f.cursor, f.cleared)
           AND e.kind NOT IN ('retraction', 'clear') AND e.seq <> ALL (f.retracted)
    ), parts AS MATERIALIZED (
        -- a branch's folded history may be stored under its source (080 lineage)
        SELECT * FROM pgctx.lineage_parts(part_ids, part_after, part_upto)
    ), pinned AS (
        -- the call of a result that came after the call was folded
        SELECT c.seq, 'call of the result at seq ' || a.seq AS reason
          FROM unfolded a, fold f
         CROSS JOIN LATERAL (SELECT e.seq FROM parts p
                               JOIN pgctx.events e ON e.conversation_id = p.conversation_id
                                    AND e.kind = 'tool_call' AND e.payload->>'call_id' = a.payload->>'call_id'
                                    AND e.seq > p.after_seq AND (p.upto_seq IS NULL OR e.seq <= p.upto_seq)
                              ORDER BY e.seq + 0 LIMIT 1) c  -- + 0: see 080 (call id lookups)
         WHERE a.kind IN ('tool_result', 'status_query') AND c.seq <= f.cursor
        UNION ALL
        -- risks the committed fold recorded that are still live (entries from before 0006: {seq, reason})
        SELECT s.v::bigint, l.x->>'reason'
          FROM fold f
         CROSS JOIN LATERAL (SELECT x FROM jsonb_array_elements(coalesce(f.evidence, '[]')) AS x
                              WHERE NOT (x ? 'risk')
                                 OR pgctx.risk_live(context_events.conversation_id, x->'risk',
                                                    ARRAY(SELECT jsonb_array_elements_text(x->'seqs')::bigint),
                                                    f.head)) l
         CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN l.x ? 'seqs' THEN l.x->'seqs'
                                                           ELSE jsonb_build_array(l.x->'seq') END) AS s(v)
        UNION ALL
        -- calls the summary still tracks as unresolved
        SELECT s.id::bigint, format('call %s is %s', t.k, t.v->>'status')
          FROM fold f, jsonb_each(coalesce(f.summary->'tool_state', '{}')) AS t(k, v),
               jsonb_array_elements_text(t.v->'source_event_ids') AS s(id)
         WHERE t.v->>'status' IN ('running', 'unknown')
    )
    -- (after a clear the fold does not cover: version 0, no summary)
    SELECT 'summary'::text, f.cursor, 'summary'::text,
           CASE WHEN f.version IS NULL OR f.cleared <= f.cursor THEN jsonb_build_object('version', f.version, 'summary', f.summary)
                ELSE jsonb_build_object('version', 0, 'summary', NULL) END,
           NULL::integer, NULL::text
      FROM fold f
    UNION ALL
    SELECT 'evidence', e.seq, e.kind, e.payload, e.tokens, p.reasons
      FROM (SELECT pinned.seq, string_agg(DISTINCT pinned.reason, '; ') AS reasons
              FROM pinned, fold f WHERE pinned.seq <= f.cursor AND f.cleared <= f.cursor GROUP BY pinned.seq) p
      JOIN parts l ON p.seq > l.after_seq AND (l.upto_seq IS NULL OR p.seq <= l.upto_seq)
      JOIN pgctx.events e ON e.conversation_id = l.conversation_id AND e.seq = p.seq
    UNION ALL
    SELECT 'events', u.seq, u.kind, u.payload, u.tokens, NULL::text FROM unfolded u
    ORDER BY 2;
END
$$;

COMMENT ON FUNCTION pgctx.context_events(text) IS
    'A working context''s parts, from one snapshot: the committed fold (section summary: {version, summary} at seq = its cursor), every event after the cursor (section events) and the evidence pinned beside the summary (section evidence, with the reason).';
