-- 160: when a fold is due, where it may end, and with which evidence (article 三, 四, 八).
--
-- Invariants enforced here:
--   * Why a fold is due is derived from the events, never from the model: a capacity trigger
--     when the committed summary's and the unfolded history's stored token counts exceed the
--     caller's threshold (αB, see pgctx.Budget), structural triggers from the event kinds (a tool
--     chain completed, a subtask ended, a topic switch, a phase change such as planning ->
--     execution, a fact confirmed or corrected, an approval answered, branches merged) and risk
--     triggers (an irreversible side effect, a permission or identity conclusion, contradictory
--     tool results, an unknown outcome, a failed verification, a restart recovery). Each comes
--     with its reason and the seqs of its evidence.
--   * Contradictions are found within one call (its answers disagree) and across calls: the
--     newest reading of a result field about some identifiers (the call's identifier arguments),
--     by a read, and the newest earlier reading of that field by another tool disagree (a write's
--     result that differs from an earlier read is this agent's own change). The earlier reading
--     may lie in the range examined or be folded: the summary the range continues carries the
--     last reading per tool, field and subject (its active facts by a tool), so a reading after a
--     fold contradicts one before it. A result whose one member is an object ({"product":
--     {...}}, a record wrapped in its type's name) is read as that record (pgctx.result_record),
--     so {"item": {"price": "24.00"}} and {"product": {"price": "26.50"}} about one SKU disagree.
--     Stated limit: a reading the summary dropped (its size cap) is not compared, nor fields
--     nested deeper. Once found, the contradiction's evidence (both events, the folded one
--     included) stays pinned until a later reading settles it (165).
--   * Whether a fold is due, and where it ends, is the policy of fold_status (below): a raw tail
--     stays unfolded, structural and risk triggers wait for a floor, and a fold must make the
--     context smaller. Under the floor and the capacity threshold nothing can be due, and
--     fold_status answers from indexed reads of the committed fold, the unfolded range's stored
--     token counts and the evidence, computing no trigger and no boundary.
--   * A fold boundary keeps atomic units whole: fold_boundary never ends a fold between a tool
--     call and its result and never separates an approval from the goal it scopes. A call still
--     waiting for its result may be folded: the summary tracks it as unresolved (080: always kept)
--     and the working context keeps it raw beside the summary until it is answered, when its
--     result brings it back beside the result (170). (Before this revision the fold stopped
--     before it: a call awaiting an approval the user left open kept every later event unfolded,
--     and the context over its budget.) It returns the committed cursor when no event can be
--     folded yet.
--   * Cost grows with the unfolded range, not with the history (primary key range scans and the
--     tool indexes of 080).

INSERT INTO pgctx.event_kinds (kind, description) VALUES
    ('permission',   'a conclusion about permissions or identity (who the user is, what they may do)'),
    ('verification', 'the result of a verification step: {ok: true|false, what}')
ON CONFLICT (kind) DO UPDATE SET description = excluded.description;

CREATE OR REPLACE FUNCTION pgctx.result_record(result jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pgctx, pg_temp AS $$
    -- a result object whose one member is an object is that object; any other object is itself;
    -- anything else has no fields ('{}'). pgctx.facts.result_fields reads results the same way.
    SELECT CASE WHEN jsonb_typeof(result) <> 'object' THEN '{}'::jsonb
                WHEN (SELECT count(*) FROM jsonb_object_keys(result)) = 1
                     AND jsonb_typeof((SELECT v FROM jsonb_each(result) AS e(k, v))) = 'object'
                THEN (SELECT v FROM jsonb_each(result) AS e(k, v))
                ELSE result END
$$;
COMMENT ON FUNCTION pgctx.result_record(jsonb) IS
    'The record a tool result states fields of: the result object, or the object that is its one member (a record wrapped in its type''s name: {"product": {...}}); ''{}'' for a result that is no object. Contradictions compare its fields (fold_triggers, risk_live).';

-- Before 0006 fold_triggers took no summary token count and named no risk identity.
DROP FUNCTION IF EXISTS pgctx.fold_triggers(text, bigint, bigint, bigint);
-- Before 0013 it took no previous summary (contradictions were found within the range only).
DROP FUNCTION IF EXISTS pgctx.fold_triggers(text, bigint, bigint, bigint, bigint);

CREATE OR REPLACE FUNCTION pgctx.fold_triggers(conversation_id text, capacity bigint DEFAULT NULL,
                                               from_seq bigint DEFAULT NULL, to_seq bigint DEFAULT NULL,
                                               summary_tokens bigint DEFAULT NULL, previous jsonb DEFAULT NULL)
RETURNS TABLE (trigger_class text, reason text, evidence bigint[], risk jsonb)
-- plpgsql with a generic plan kept for the session (see tool_calls): every fold reads it twice
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET plan_cache_mode = force_generic_plan
SET jit = off
SET enable_seqscan = off AS $$
#variable_conflict use_column
DECLARE
    carried jsonb := previous;
    range_lo bigint := from_seq;
    range_hi bigint;
    range_calls jsonb;
BEGIN
    -- the committed fold and the range's tool calls in statements of their own, passed into the
    -- query below: functions that read the tables, called inside a query of them, are nested
    -- distributed execution on Citus
    IF from_seq IS NULL THEN  -- the committed fold's range (and its summary's readings)
        SELECT f.cursor, coalesce(carried, f.summary) INTO range_lo, carried
          FROM pgctx.committed_fold(fold_triggers.conversation_id) f;
    END IF;
    SELECT jsonb_agg(t) INTO range_calls FROM pgctx.tool_calls(fold_triggers.conversation_id, range_lo, to_seq) t;
    -- the range's end too: the range below is read with both its ends as values, so that the
    -- primary key bounds the read in any plan (joined to a row holding them, a plan made on small
    -- tables read the whole conversation and filtered it: 080, plans that do not depend on
    -- first-seen statistics); NULL, and no range, for no such conversation
    range_hi := to_seq;
    IF range_hi IS NULL THEN
        SELECT c.head_seq INTO range_hi FROM pgctx.conversations c
         WHERE c.conversation_id = fold_triggers.conversation_id;
    END IF;
    RETURN QUERY
    WITH bounds AS MATERIALIZED (
        -- the committed fold (its summary and token count read too) only when no from_seq is given
        SELECT range_lo AS lo,
               range_hi AS hi,
               coalesce(fold_triggers.summary_tokens,
                        CASE WHEN from_seq IS NULL THEN
                            (SELECT k.tokens FROM pgctx.checkpoints k  -- correlated: see 170 (fold)
                              WHERE k.conversation_id = c.conversation_id
                                AND k.version = (SELECT h.version FROM pgctx.fold_heads h
                                                  WHERE h.conversation_id = c.conversation_id)) END, 0) AS s
          FROM pgctx.conversations c
         WHERE c.conversation_id = fold_triggers.conversation_id
    ), range AS MATERIALIZED (
        SELECT e.seq, e.kind, e.payload, e.tokens
          FROM pgctx.events e
         WHERE e.conversation_id = fold_triggers.conversation_id AND e.seq > range_lo AND e.seq <= range_hi
    ), calls AS MATERIALIZED (
        SELECT t.* FROM bounds b,  -- (none for no such conversation)
               jsonb_to_recordset(range_calls) AS t(call_id text, tool text, effect text, idempotency_key text,
                                                    call_seq bigint, result_seq bigint, answer_seq bigint,
                                                    outcome text, request_id text, error text, status text,
                                                    identifiers text[], subject text, arguments jsonb)
    ), size AS (
        SELECT b.s, coalesce(sum(r.tokens), 0) AS h, count(r.seq) FILTER (WHERE r.tokens IS NULL) AS uncounted
          FROM bounds b LEFT JOIN range r ON true GROUP BY b.s
    ), readings AS MATERIALIZED (
        -- what successful results say about identifiers: (seq, tool, effect, identifiers, field, value);
        -- a read's field that repeats the call's own argument echoes the request, it observes nothing
        -- (a write's confirms the change)
        SELECT r.seq, c.tool, c.effect, c.identifiers, f.key AS field, f.value
          FROM range r
          JOIN calls c ON c.call_id = r.payload->>'call_id'
         CROSS JOIN LATERAL jsonb_each(pgctx.result_record(r.payload->'result')) AS f(key, value)
         WHERE r.kind = 'tool_result' AND r.payload->>'outcome' = 'succeeded'
           AND cardinality(c.identifiers) > 0 AND jsonb_typeof(f.value) IN ('string', 'number', 'boolean')
           AND (c.effect <> 'read' OR c.arguments->f.key IS DISTINCT FROM f.value)
        UNION ALL
        -- and the readings the summary the range continues carries (its facts by a tool about a
        -- subject, at their newest source): a reading in the range can contradict one folded before
        SELECT (SELECT max(x.id::bigint) FROM jsonb_array_elements_text(k.f->'source_event_ids') AS x(id)),
               k.f->>'authority', 'read',
               ARRAY(SELECT btrim(split_part(p, '=', 2)) FROM unnest(string_to_array(k.f->>'subject', ',')) AS p),
               k.f->>'key', k.f->'value'
          FROM jsonb_array_elements(CASE jsonb_typeof(carried->'facts') WHEN 'array' THEN carried->'facts'
                                         ELSE '[]' END) AS k(f)
         WHERE k.f->>'status' = 'active' AND k.f->>'authority' NOT IN ('user', 'model')
           AND k.f->>'confidence' = 'confirmed' AND jsonb_typeof(k.f->'subject') = 'string'
           AND jsonb_typeof(k.f->'value') IN ('string', 'number', 'boolean')
           AND position('.' IN k.f->>'key') = 0
    )
    SELECT 'capacity',
           CASE WHEN s.s > 0 THEN format('summary and evidence plus unfolded history are %s + %s = %s tokens, over the threshold %s',
                                         s.s, s.h, s.s + s.h, capacity)
                ELSE format('unfolded history is %s tokens, over the threshold %s', s.h, capacity) END
           || CASE WHEN s.uncounted > 0 THEN format(' (%s events have no token count)', s.uncounted) ELSE '' END,
           '{}'::bigint[], NULL::jsonb
      FROM size s WHERE capacity IS NOT NULL AND s.s + s.h > capacity
    UNION ALL
    -- structural: the end of a unit of work is a natural, cheap place to fold
    SELECT 'structural', format('tool chain completed: %s call(s) answered, none waiting', count(*)),
           ARRAY[max(c.answer_seq)], NULL::jsonb
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
           ARRAY[r.seq], NULL::jsonb
      FROM range r
     WHERE r.kind IN ('subtask_end', 'topic_switch', 'phase_change', 'fact', 'correction', 'branch_merge')
        OR (r.kind = 'approval' AND r.payload->>'status' IN ('granted', 'denied'))
    UNION ALL
    -- risk: fold now, and keep the evidence raw beside the summary (never instead of it) for as
    -- long as the risk is live (pgctx.risk_live, 165); risk names what it is about
    SELECT 'risk', format('irreversible side effect: %s (call %s)', c.tool, c.call_id),
           array_remove(ARRAY[c.call_seq, c.answer_seq], NULL), jsonb_build_object('risk', 'irreversible', 'call_id', c.call_id)
      FROM calls c WHERE c.effect = 'irreversible'
    UNION ALL
    SELECT 'risk', format('unknown outcome: %s (call %s) - ask the service by idempotency key %s', c.tool,
                          c.call_id, coalesce(c.idempotency_key, '(none)')),
           array_remove(ARRAY[c.call_seq, c.answer_seq], NULL), jsonb_build_object('risk', 'unknown', 'call_id', c.call_id)
      FROM calls c WHERE c.status = 'unknown'
    UNION ALL
    SELECT 'risk', format('contradictory results for call %s: %s', a.call_id, string_agg(DISTINCT a.outcome, ' vs ')),
           array_agg(a.seq ORDER BY a.seq), jsonb_build_object('risk', 'contradiction', 'call_id', a.call_id)
      FROM (SELECT r.seq, r.payload->>'call_id' AS call_id, r.payload->>'outcome' AS outcome
              FROM range r
             WHERE r.kind IN ('tool_result', 'status_query')
               AND r.payload->>'outcome' IN ('succeeded', 'failed', 'cancelled', 'not_performed')) a
     GROUP BY a.call_id
    HAVING count(DISTINCT CASE a.outcome WHEN 'not_performed' THEN 'failed' ELSE a.outcome END) > 1
    UNION ALL
    -- across calls: the newest reading of a field about some identifiers, by a read, and the newest
    -- earlier reading of it by another tool, disagree (a later reading by any tool settles it; a
    -- write's result is a change this agent made, not a contradiction)
    SELECT 'risk', format('contradictory results about %s: %s says %s = %s (seq %s), %s says %s (seq %s)',
                          array_to_string(b.identifiers, ', '), a.tool, b.field, a.value #>> '{}', a.seq,
                          b.tool, b.value #>> '{}', b.seq),
           ARRAY[a.seq, b.seq], jsonb_build_object('risk', 'conflict', 'identifiers', to_jsonb(b.identifiers),
                                                   'field', b.field)
      FROM readings b
     CROSS JOIN LATERAL (SELECT x.* FROM readings x
                          WHERE x.field = b.field AND x.identifiers && b.identifiers AND x.seq < b.seq
                            AND x.tool <> b.tool
                          ORDER BY x.seq DESC LIMIT 1) a
     WHERE a.value <> b.value AND b.effect = 'read'
       AND NOT EXISTS (SELECT 1 FROM readings y
                        WHERE y.field = b.field AND y.identifiers && b.identifiers AND y.seq > b.seq)
    UNION ALL
    SELECT 'risk',
           CASE r.kind
               WHEN 'permission' THEN 'permission or identity conclusion' || coalesce(': ' || left(r.payload->>'text', 80), '')
               WHEN 'verification' THEN 'verification failed' || coalesce(': ' || left(r.payload->>'what', 80), '')
               WHEN 'recovery' THEN 'restart recovery'
           END,
           ARRAY[r.seq],
           CASE r.kind
               WHEN 'permission' THEN jsonb_build_object('risk', 'permission')
               WHEN 'verification' THEN jsonb_build_object('risk', 'verification', 'what', r.payload->>'what')
               WHEN 'recovery' THEN jsonb_build_object('risk', 'recovery', 'calls', coalesce(
                   (SELECT jsonb_agg(i->>'call_id') FROM jsonb_array_elements(
                        CASE jsonb_typeof(r.payload->'interrupted_calls') WHEN 'array'
                             THEN r.payload->'interrupted_calls' ELSE '[]' END) i), '[]'))
           END
      FROM range r
     WHERE r.kind IN ('permission', 'recovery')
        OR (r.kind = 'verification' AND r.payload->'ok' = 'false'::jsonb);
END
$$;

COMMENT ON FUNCTION pgctx.fold_triggers(text, bigint, bigint, bigint, bigint, jsonb) IS
    'Why a fold of from_seq+1..to_seq (default: committed cursor+1..head) is due: capacity (summary_tokens -- default the committed summary''s; fold_status passes it with the evidence kept raw -- plus the stored tokens of the range over capacity), structural and risk triggers, each with its reason and evidence seqs; risk: what a risk trigger is about (for pgctx.risk_live). previous: the summary the range continues (default, without from_seq: the committed one), whose tool readings a reading of the range may contradict.';

-- The largest cursor in (committed cursor, upto] at which a fold keeps every atomic unit whole.
CREATE OR REPLACE FUNCTION pgctx.fold_boundary(conversation_id text, upto bigint DEFAULT NULL) RETURNS bigint
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET jit = off
SET enable_seqscan = off AS $$
DECLARE
    lo       bigint;
    boundary bigint;
    earlier  bigint;
BEGIN
    -- the committed fold in a statement of its own: a function that reads the tables, called from
    -- a query of them, is nested distributed execution on Citus (scaling.md)
    SELECT f.cursor INTO lo FROM pgctx.committed_fold(fold_boundary.conversation_id) f;
    SELECT least(coalesce(upto, c.head_seq), c.head_seq) INTO boundary
      FROM pgctx.conversations c
     WHERE c.conversation_id = fold_boundary.conversation_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'PC014',
            MESSAGE = format('no conversation %L (or not visible to role %s)', fold_boundary.conversation_id, session_user);
    END IF;
    -- Moving the boundary back can strand another call's result beyond it; repeat until stable
    -- (each round moves it back at least one event, so this ends).
    LOOP
        EXIT WHEN boundary <= lo;
        -- the calls in a statement of their own: not inside a query of the log (Citus, scaling.md)
        SELECT min(t.call_seq) - 1 INTO earlier
          FROM pgctx.tool_calls(fold_boundary.conversation_id, lo, boundary) t
         WHERE t.call_seq > lo
           AND t.result_seq > boundary;
        -- (the approvals after the boundary: the events after it by primary key, filtered by kind
        -- outside the subquery, which OFFSET 0 keeps whole; asked for "approvals after a seq", a
        -- plan may read every approval of the conversation through events_approval instead: 080)
        SELECT least(earlier, min(x.seq) - 1) INTO earlier
          FROM (SELECT (e.payload->>'scopes_event')::bigint AS seq
                  FROM (SELECT a.kind, a.payload FROM pgctx.events a
                         WHERE a.conversation_id = fold_boundary.conversation_id AND a.seq > boundary OFFSET 0) e
                 WHERE e.kind = 'approval' AND jsonb_typeof(e.payload->'scopes_event') = 'number'
                   AND (e.payload->>'scopes_event')::numeric > lo
                   AND (e.payload->>'scopes_event')::numeric <= boundary
                UNION ALL  -- a retracted event stays with its retraction (200)
                SELECT (r.payload->>'seq')::bigint
                  FROM pgctx.events r
                 WHERE r.conversation_id = fold_boundary.conversation_id AND r.kind = 'retraction'
                   AND r.seq > boundary AND (r.payload->>'seq')::bigint > lo
                   AND (r.payload->>'seq')::bigint <= boundary) x;
        EXIT WHEN earlier IS NULL;
        boundary := earlier;
    END LOOP;
    RETURN greatest(boundary, lo);
END
$$;

COMMENT ON FUNCTION pgctx.fold_boundary(text, bigint) IS
    'The largest cursor <= upto (default head) that splits no tool call from its result (a call still waiting may be folded) and keeps approvals with their goals and retracted events with their retractions; the committed cursor if none.';

-- Before 0006 fold_status took only the capacity, and decided nothing.
DROP FUNCTION IF EXISTS pgctx.fold_status(text, bigint);

-- The fold policy (article 三, 五), one round trip for a fold's first step: the committed fold,
-- the head, the unfolded tokens, the triggers, where a fold may end, and whether it is due. With
-- S the committed summary's tokens, E the tokens of the evidence the working context keeps raw
-- beside it (170: live risks, unresolved calls), H the unfolded history's, C = capacity (αB),
-- F = floor and T = tail (all in tokens, from pgctx.Budget); S + E + H is what the working
-- context holds besides the system rules and the current message:
--   * A fold leaves the newest events raw: the newest events whose tokens sum to at most T, and
--     at least the newest event; boundary is the largest unit-safe cursor before them (NULL T:
--     no tail). full_boundary is the largest unit-safe cursor overall (what a forced fold uses).
--   * Due when something lies before the tail to fold, and
--       capacity: S + E + H > C (the context must shrink: the fold is tried, and the exact rule
--         below says whether it may commit); or
--       risk or structural: a risk or structural trigger fired, S + E + H > F, and the fold would
--         make the context smaller (below).
--     A fold cannot shrink E (it shrinks when risks settle), but it can fold H down to the tail.
--     A history under the floor is never folded unless forced (NULL F: no floor). Structural
--     triggers mark good places to fold; they do not make every turn fold.
--   * "Would make the context smaller": the events the fold covers hold more tokens than the
--     committed summary (S), an estimate (a new summary may grow, folded risks stay pinned as
--     evidence) that spares a summarizer call where a fold is only worthwhile. prepare_fold holds
--     every candidate to the exact rule (PC121, 100), capacity and forced folds too: one that would
--     not shrink the context is refused, and the events stay raw.
--   * reason says why it is due or not ('not due: ...'); triggers are every trigger that fired.
CREATE OR REPLACE FUNCTION pgctx.fold_status(conversation_id text, capacity bigint DEFAULT NULL,
    floor bigint DEFAULT NULL, tail bigint DEFAULT NULL,
    OUT version integer, OUT cursor bigint, OUT head_seq bigint, OUT boundary bigint,
    OUT unfolded_tokens bigint, OUT triggers jsonb, OUT summary_tokens bigint, OUT fold_tokens bigint,
    OUT full_boundary bigint, OUT due boolean, OUT reason text, OUT evidence_tokens bigint)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET jit = off
SET enable_seqscan = off AS $$
DECLARE
    raw_from       bigint;
    size           bigint;
    classes        text[];
    recorded       jsonb;
    smaller        boolean;
BEGIN
    -- the committed fold, the head and the summary's tokens in statements of their own, each of
    -- one conversation (nested or cross-shard reads on Citus otherwise: scaling.md)
    SELECT f.version, f.cursor INTO version, cursor FROM pgctx.committed_fold(fold_status.conversation_id) f;
    SELECT c.head_seq INTO head_seq
      FROM pgctx.conversations c
     WHERE c.conversation_id = fold_status.conversation_id;
    IF NOT FOUND THEN
        version := NULL;
        cursor := NULL;
        RETURN;  -- every column NULL: no such conversation (or not visible)
    END IF;
    summary_tokens := pgctx.base_summary_tokens(fold_status.conversation_id, version);
    SELECT coalesce(sum(e.tokens), 0) INTO unfolded_tokens FROM pgctx.events e
     WHERE e.conversation_id = fold_status.conversation_id AND e.seq > cursor;
    -- the working context's own definition of its evidence (170), so the two never disagree
    SELECT k.evidence INTO recorded FROM pgctx.checkpoints k
     WHERE k.conversation_id = fold_status.conversation_id AND k.version = fold_status.version AND k.phase = 'COMMITTED';
    SELECT coalesce(sum(x.tokens), 0) INTO evidence_tokens
      FROM pgctx.pinned_evidence(fold_status.conversation_id, cursor,
                                 pgctx.base_summary(fold_status.conversation_id, version), recorded) x;
    size := summary_tokens + evidence_tokens + unfolded_tokens;
    IF floor IS NOT NULL AND size <= floor AND (capacity IS NULL OR size <= capacity) AND head_seq > cursor THEN
        -- nothing can be due: structural and risk triggers wait for the floor, capacity for the
        -- threshold. What a turn pays for the check is then these few indexed reads, not a
        -- derivation of the unfolded range's calls: the triggers, the boundaries and fold_tokens are
        -- not computed (NULL); fold(force => true) passes no floor, so it gets them all
        due := false;
        reason := format('not due: summary, evidence and history (%s tokens) are under the floor %s that structural '
                         'and risk triggers wait for', size, floor);
        RETURN;
    END IF;
    SELECT coalesce(jsonb_agg(jsonb_build_object('class', t.trigger_class, 'reason', t.reason,
                                                 'evidence', to_jsonb(t.evidence))), '[]'),
           coalesce(array_agg(DISTINCT t.trigger_class), '{}')
      INTO triggers, classes
      FROM pgctx.fold_triggers(fold_status.conversation_id, capacity, cursor, head_seq,
                               summary_tokens + evidence_tokens,
                               pgctx.base_summary(fold_status.conversation_id, version)) t;

    full_boundary := pgctx.fold_boundary(fold_status.conversation_id);
    boundary := full_boundary;
    IF tail IS NOT NULL THEN
        SELECT min(x.seq) INTO raw_from
          FROM (SELECT e.seq, sum(coalesce(e.tokens, 0)) OVER (ORDER BY e.seq DESC) AS cum
                  FROM pgctx.events e
                 WHERE e.conversation_id = fold_status.conversation_id AND e.seq > cursor) x
         WHERE x.cum <= tail;
        raw_from := least(coalesce(raw_from, head_seq), head_seq);
        IF raw_from - 1 < full_boundary THEN
            boundary := pgctx.fold_boundary(fold_status.conversation_id, raw_from - 1);
        END IF;
    END IF;
    SELECT coalesce(sum(e.tokens), 0) INTO fold_tokens FROM pgctx.events e
     WHERE e.conversation_id = fold_status.conversation_id AND e.seq > cursor AND e.seq <= boundary;

    smaller := fold_tokens > summary_tokens;
    due := false;
    IF head_seq <= cursor THEN
        reason := 'nothing to fold: no events after the committed cursor';
    ELSIF full_boundary <= cursor THEN
        reason := format('no boundary after cursor %s keeps atomic units whole (a call and its result, an approval '
                         'and its goal, a retracted event and its retraction)', cursor);
    ELSIF cardinality(classes) = 0 THEN
        reason := 'not due: no capacity, structural or risk trigger';
    ELSIF boundary <= cursor THEN
        reason := format('not due: all %s unfolded tokens are in the raw tail (the newest %s tokens, at least the '
                         'newest event)', unfolded_tokens, tail);
    ELSIF 'capacity' = ANY (classes) THEN
        due := true;
        reason := format('due: capacity (%s tokens over the threshold %s)', size, capacity);
    ELSIF 'risk' = ANY (classes) AND (floor IS NULL OR size > floor) AND smaller THEN
        due := true;
        reason := 'due: risk';
    ELSIF 'structural' = ANY (classes) AND (floor IS NULL OR size > floor) AND smaller THEN
        due := true;
        reason := 'due: structural';
    ELSIF NOT smaller AND (floor IS NULL OR size > floor) THEN
        reason := format('not due: folding %s tokens into a summary of %s would not make the context smaller',
                         fold_tokens, summary_tokens);
    ELSE
        reason := format('not due: summary, evidence and history (%s tokens) are under the floor %s that structural and risk triggers wait for',
                         size, floor);
    END IF;
END
$$;

COMMENT ON FUNCTION pgctx.fold_status(text, bigint, bigint, bigint) IS
    'The fold policy: committed fold, head, where a fold may end (leaving the raw tail), unfolded, summary and evidence tokens, the triggers, and whether a fold is due, with the reason (capacity, floor and tail in tokens). Under both the floor and the capacity threshold nothing can be due, and triggers, boundary, full_boundary and fold_tokens are NULL: not computed.';

-- fold() serializes a conversation's folds after repeated compare-and-swap conflicts: a
-- transaction-scoped advisory lock (released at commit or rollback, so it works behind a
-- transaction-mode pooler and cannot leak past a crashed client).
-- It takes the fold lock exclusive, while prepare_fold, commit_fold and recover take it shared
-- (100), so no other folder prepares or commits until the serialized one has finished.
CREATE OR REPLACE FUNCTION pgctx.serialize_folds(conversation_id text) RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
    SELECT pg_advisory_xact_lock(pgctx.fold_lock_key(conversation_id))
$$;

COMMENT ON FUNCTION pgctx.serialize_folds(text) IS
    'Take the conversation''s fold lock exclusive until the transaction ends, so no other prepare, commit or recovery of its folds runs meanwhile: what fold() does after repeated compare-and-swap conflicts. Transaction-scoped, so it works behind a transaction-mode pooler and cannot outlive a crashed client.';
