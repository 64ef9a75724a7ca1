-- 160: when a fold is due, where it may end, and with which evidence (article 三, 四, 八).
--
-- Invariants enforced here:
--   * Why a fold is due is derived from the events, never from the model: a capacity trigger
--     when the unfolded history's stored token counts exceed the caller's threshold (αB, see
--     pgctx.Budget), structural triggers from the event kinds (a tool chain completed, a subtask
--     ended, a topic switch, a phase change such as planning -> execution, a fact confirmed or
--     corrected, an approval answered, branches merged) and risk triggers (an irreversible side
--     effect, a permission or identity conclusion, contradictory tool results, an unknown
--     outcome, a failed verification, a restart recovery). Each comes with its reason and the
--     seqs of its evidence.
--   * A fold boundary keeps atomic units whole: fold_boundary never ends a fold between a tool
--     call and its result, never folds a call still waiting for its result (it stays raw until
--     answered), and never separates an approval from the goal it scopes. It returns the
--     committed cursor when no event can be folded yet.
--   * Cost grows with the unfolded range, not with the history (primary key range scans and the
--     tool indexes of 080).

INSERT INTO pgctx.event_kinds (kind, description) VALUES
    ('permission',   'a conclusion about permissions or identity (who the user is, what they may do)'),
    ('verification', 'the result of a verification step: {ok: true|false, what}')
ON CONFLICT (kind) DO UPDATE SET description = excluded.description;

CREATE OR REPLACE FUNCTION pgctx.fold_triggers(conversation_id text, capacity bigint DEFAULT NULL,
                                               from_seq bigint DEFAULT NULL, to_seq bigint DEFAULT NULL)
RETURNS TABLE (trigger_class text, reason text, evidence bigint[])
-- plpgsql with a generic plan kept for the session (see tool_calls): every fold reads it twice
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET plan_cache_mode = force_generic_plan
SET jit = off AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH bounds AS MATERIALIZED (
        -- the committed fold (its summary read too) only when no from_seq is given
        SELECT coalesce(from_seq, (SELECT f.cursor FROM pgctx.committed_fold(c.conversation_id) f)) AS lo,
               coalesce(to_seq, c.head_seq) AS hi
          FROM pgctx.conversations c
         WHERE c.conversation_id = fold_triggers.conversation_id
    ), range AS MATERIALIZED (
        SELECT e.seq, e.kind, e.payload, e.tokens
          FROM pgctx.events e, bounds b
         WHERE e.conversation_id = fold_triggers.conversation_id AND e.seq > b.lo AND e.seq <= b.hi
    ), calls AS MATERIALIZED (
        SELECT t.* FROM bounds b, pgctx.tool_calls(fold_triggers.conversation_id, b.lo, b.hi) t
    ), size AS (
        SELECT coalesce(sum(r.tokens), 0) AS h, count(*) FILTER (WHERE r.tokens IS NULL) AS uncounted FROM range r
    )
    SELECT 'capacity', format('unfolded history is %s tokens, over the threshold %s%s', s.h, capacity,
                              CASE WHEN s.uncounted > 0 THEN format(' (%s events have no token count)', s.uncounted)
                                   ELSE '' END),
           '{}'::bigint[]
      FROM size s WHERE capacity IS NOT NULL AND s.h > capacity
    UNION ALL
    -- structural: the end of a unit of work is a natural, cheap place to fold
    SELECT 'structural', format('tool chain completed: %s call(s) answered, none waiting', count(*)),
           ARRAY[max(c.answer_seq)]
      FROM calls c
    HAVING count(*) > 0 AND bool_and(c.answer_seq IS NOT NULL)
    UNION ALL
    SELECT 'structural',
           CASE r.kind
               WHEN 'subtask_end' THEN 'subtask ended' || coalesce(': ' || left(r.payload->>'text', 80), '')
               WHEN 'topic_switch' THEN 'topic switched' || coalesce(' to ' || left(r.payload->>'topic', 80), '')
               WHEN 'phase_change' THEN format('phase changed: %s -> %s', coalesce(r.payload->>'from', '?'),
                                               coalesce(r.payload->>'to', '?'))
               WHEN 'fact' THEN 'fact confirmed: ' || coalesce(r.payload->>'key', '?')
               WHEN 'correction' THEN 'fact corrected: ' || coalesce(r.payload->>'key', '?')
               WHEN 'approval' THEN format('approval %s %s', coalesce(r.payload->>'approval_id', ''),
                                           r.payload->>'status')
               WHEN 'branch_merge' THEN 'branches merged'
           END,
           ARRAY[r.seq]
      FROM range r
     WHERE r.kind IN ('subtask_end', 'topic_switch', 'phase_change', 'fact', 'correction', 'branch_merge')
        OR (r.kind = 'approval' AND r.payload->>'status' IN ('granted', 'denied'))
    UNION ALL
    -- risk: fold now, and keep the evidence raw beside the summary (never instead of it)
    SELECT 'risk', format('irreversible side effect: %s (call %s)', c.tool, c.call_id),
           array_remove(ARRAY[c.call_seq, c.answer_seq], NULL)
      FROM calls c WHERE c.effect = 'irreversible'
    UNION ALL
    SELECT 'risk', format('unknown outcome: %s (call %s) - ask the service by idempotency key %s', c.tool,
                          c.call_id, coalesce(c.idempotency_key, '(none)')),
           array_remove(ARRAY[c.call_seq, c.answer_seq], NULL)
      FROM calls c WHERE c.status = 'unknown'
    UNION ALL
    SELECT 'risk', format('contradictory results for call %s: %s', a.call_id, string_agg(DISTINCT a.outcome, ' vs ')),
           array_agg(a.seq ORDER BY a.seq)
      FROM (SELECT r.seq, r.payload->>'call_id' AS call_id, r.payload->>'outcome' AS outcome
              FROM range r
             WHERE r.kind IN ('tool_result', 'status_query')
               AND r.payload->>'outcome' IN ('succeeded', 'failed', 'cancelled', 'not_performed')) a
     GROUP BY a.call_id
    HAVING count(DISTINCT CASE a.outcome WHEN 'not_performed' THEN 'failed' ELSE a.outcome END) > 1
    UNION ALL
    SELECT 'risk',
           CASE r.kind
               WHEN 'permission' THEN 'permission or identity conclusion' || coalesce(': ' || left(r.payload->>'text', 80), '')
               WHEN 'verification' THEN 'verification failed' || coalesce(': ' || left(r.payload->>'what', 80), '')
               WHEN 'recovery' THEN 'restart recovery'
           END,
           ARRAY[r.seq]
      FROM range r
     WHERE r.kind IN ('permission', 'recovery')
        OR (r.kind = 'verification' AND r.payload->'ok' = 'false'::jsonb);
END
$$;

COMMENT ON FUNCTION pgctx.fold_triggers(text, bigint, bigint, bigint) IS
    'Why a fold of from_seq+1..to_seq (default: committed cursor+1..head) is due: capacity (stored tokens over capacity), structural and risk triggers, each with its reason and evidence seqs.';

-- The largest cursor in (committed cursor, upto] at which a fold keeps every atomic unit whole.
CREATE OR REPLACE FUNCTION pgctx.fold_boundary(conversation_id text, upto bigint DEFAULT NULL) RETURNS bigint
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET jit = off AS $$
DECLARE
    lo       bigint;
    boundary bigint;
    earlier  bigint;
BEGIN
    SELECT f.cursor, least(coalesce(upto, c.head_seq), c.head_seq) INTO lo, boundary
      FROM pgctx.conversations c, pgctx.committed_fold(c.conversation_id) f
     WHERE c.conversation_id = fold_boundary.conversation_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'PC014',
            MESSAGE = format('no conversation %L (or not visible to role %s)', fold_boundary.conversation_id, session_user);
    END IF;
    -- Moving the boundary back can strand another call's result beyond it; repeat until stable
    -- (each round moves it back at least one event, so this ends).
    LOOP
        EXIT WHEN boundary <= lo;
        SELECT min(x.seq) - 1 INTO earlier
          FROM (SELECT t.call_seq AS seq
                  FROM pgctx.tool_calls(fold_boundary.conversation_id, lo, boundary) t
                 WHERE t.call_seq > lo
                   AND ((t.result_seq IS NULL AND t.status IN ('planned', 'running')) OR t.result_seq > boundary)
                UNION ALL
                SELECT (e.payload->>'scopes_event')::bigint
                  FROM pgctx.events e
                 WHERE e.conversation_id = fold_boundary.conversation_id AND e.kind = 'approval'
                   AND e.seq > boundary AND jsonb_typeof(e.payload->'scopes_event') = 'number'
                   AND (e.payload->>'scopes_event')::numeric > lo
                   AND (e.payload->>'scopes_event')::numeric <= boundary) x;
        EXIT WHEN earlier IS NULL;
        boundary := earlier;
    END LOOP;
    RETURN greatest(boundary, lo);
END
$$;

COMMENT ON FUNCTION pgctx.fold_boundary(text, bigint) IS
    'The largest cursor <= upto (default head) that splits no tool call from its result, folds no call still waiting, and keeps approvals with their goals; the committed cursor if none.';

-- One round trip for a fold's first step: the committed fold, the head, where a fold could end,
-- the unfolded tokens and the triggers.
CREATE OR REPLACE FUNCTION pgctx.fold_status(conversation_id text, capacity bigint DEFAULT NULL,
    OUT version integer, OUT cursor bigint, OUT head_seq bigint, OUT boundary bigint,
    OUT unfolded_tokens bigint, OUT triggers jsonb)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET jit = off AS $$
    SELECT f.version, f.cursor, c.head_seq, pgctx.fold_boundary(c.conversation_id),
           (SELECT coalesce(sum(e.tokens), 0) FROM pgctx.events e
             WHERE e.conversation_id = c.conversation_id AND e.seq > f.cursor),
           coalesce((SELECT jsonb_agg(jsonb_build_object('class', t.trigger_class, 'reason', t.reason,
                                                         'evidence', to_jsonb(t.evidence)))
                       FROM pgctx.fold_triggers(c.conversation_id, capacity, f.cursor, c.head_seq) t), '[]')
      FROM pgctx.conversations c, pgctx.committed_fold(c.conversation_id) f
     WHERE c.conversation_id = fold_status.conversation_id
$$;

COMMENT ON FUNCTION pgctx.fold_status(text, bigint) IS
    'A conversation''s committed fold, head, foldable boundary, unfolded tokens and fold triggers (capacity given in tokens).';

-- fold() serializes a conversation's folds after repeated compare-and-swap conflicts: a
-- transaction-scoped advisory lock (released at commit or rollback, so it works behind a
-- transaction-mode pooler and cannot leak past a crashed client).
CREATE OR REPLACE FUNCTION pgctx.serialize_folds(conversation_id text) RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
    SELECT pg_advisory_xact_lock(hashtextextended('pgctx:fold:' || conversation_id, 0))
$$;
