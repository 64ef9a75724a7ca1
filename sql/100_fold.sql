-- 100: validating, preparing, committing and discarding folds.
--
-- Invariants enforced here (every rule is SQL, so psql and Python candidates are checked alike):
--   * prepare_fold accepts a candidate only if ALL of these hold, else it raises the SQLSTATE of
--     the first rule broken, naming what is wrong (pgctx.fold_violations lists every problem):
--       PC100 expected_version is the committed version (else someone folded first);
--       PC101 the range starts at the committed cursor + 1 and is not empty;
--       PC102 the new cursor is not beyond the head;
--       PC110 the chain verifies from the committed cursor (its hash unchanged) to the head
--             wherever that covers the new range (a fold never covers a broken chain);
--       PC103 the boundary splits no atomic unit: a tool call and its results, an approval and
--             the goal event it scopes (payload.scopes_event; a goal an earlier fold covered no
--             longer binds a later approval to it), a retracted event and its retraction (200);
--       PC104/PC105 the summary is valid against its registered schema_version;
--       PC106 every fact and completed action cites source_event_ids, and every cited id is a
--             folded event (1 .. new cursor);
--       PC107 tool state agrees with the events: a call's status is exactly its derived status
--             (a timeout is never `succeeded`, a failure nothing but `failed`), and nothing is
--             `succeeded` that the events do not show succeeded;
--       PC108 every must-keep item is there (pgctx.must_keep): each call of the range with its
--             status, the request id of every successful write and every failure reason, each
--             identifier the tools used, every unanswered approval (of the whole history) and
--             unresolved call as a pending action, the omitted range and last_event_id; and every
--             call the previous summary tracked as unresolved, or as a write with a request id,
--             is still tracked with its status as derived now;
--       PC119 nothing in the summary cites an erased event (190) as a source (a call whose
--             events were erased is still derived and kept, 080: its tool_state entry cites
--             what is left, and pending need not cite its erased call event);
--       PC109 a fact confirmed by a user or a tool is not overridden by a new value unless the
--             new value cites a user or tool event of this range (article 七.4); a fact whose
--             value another active fact of its key and subject keeps is not overridden;
--       PC120 nothing of the range is hidden from the context: the summary cites each of the
--             newest 12 user messages of the range that are not bare acknowledgements
--             (pgctx.acknowledgement), an active fact of each key declared in the range (the
--             newest fact or correction per key and subject, not the model's) cites it or a later
--             event, and a range that had content (messages, tool results, facts, approvals) is
--             not folded into a summary that cites none of it;
--       PC121 the fold makes the working context smaller: the summary's tokens (the client's
--             count, or pgctx.estimated_tokens), the evidence the context would keep raw beside
--             it (pinned_evidence, 170, with the evidence the checkpoint would record, 165) and
--             the events left unfolded sum to less than the committed fold's do now; capacity,
--             risk and forced folds alike (a fold that cannot shrink the context is not made;
--             the events stay raw). The one exception: an event from before the range that a
--             risk found in it brings back raw (a folded reading it contradicts) is not counted.
--     Every rule applies to every registered schema_version; where version 2 differs it is said
--     (080: bounded tool state). For version 2 also: user_requests cite user events (PC106), a
--     tool_state entry's subject is the call's (PC107), the writes collapsed beyond the horizon are
--     summarized as one completed action per tool and status, and a per-tool completed action of
--     the previous summary stays (PC108).
--   * Folds of one conversation can be serialized: prepare_fold, commit_fold and recover take the
--     conversation's fold lock (a transaction-scoped advisory lock, pgctx.fold_lock_key) shared,
--     and pgctx.serialize_folds (160) takes it exclusive for a whole read-summarize-prepare-commit
--     round, so a serialized round cannot be overtaken by any other prepare or commit.
--   * A PREPARED candidate is always based on the committed fold: prepare and commit serialize
--     on the conversation's fold_heads row, and a commit discards every other candidate.
--   * commit_fold is the compare-and-swap of 090; losing a race is PC100, never an overwrite,
--     and the loser's candidate is DISCARDED with the reason.

-- The summary a fold on base_version continues from, and its token count: that checkpoint's, or
-- for a branch's first fold (version 0) its source's fold at the fork point. The count is the one
-- stored with it, estimated where it was stored without one (pgctx.estimated_tokens: before 0013,
-- from psql).
-- plpgsql so its plans are kept for the session (every fold and working context reads it).
CREATE OR REPLACE FUNCTION pgctx.base_fold(conversation_id text, base_version integer,
                                           OUT summary jsonb, OUT tokens bigint)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET jit = off
SET enable_seqscan = off AS $$
DECLARE
    source         text := base_fold.conversation_id;
    source_version integer := base_version;
BEGIN
    IF base_version <= 0 THEN
        -- two lookups, each of one conversation: a join of a branch to its source's checkpoint
        -- crosses shards on Citus (scaling.md)
        SELECT b.forked_from, b.fork_version INTO source, source_version
          FROM pgctx.conversations b WHERE b.conversation_id = base_fold.conversation_id;
    END IF;
    SELECT k.summary, coalesce(k.tokens, pgctx.estimated_tokens(k.summary))::bigint INTO summary, tokens
      FROM pgctx.checkpoints k WHERE k.conversation_id = source AND k.version = source_version;
    tokens := coalesce(tokens, 0);
END
$$;

COMMENT ON FUNCTION pgctx.base_fold(text, integer) IS
    'The summary a fold on base_version continues from (that checkpoint''s, or for a branch''s first fold its source''s at the fork point; NULL when there is none) and its token count (stored, else estimated; 0 for none).';

CREATE OR REPLACE FUNCTION pgctx.base_summary(conversation_id text, base_version integer) RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET jit = off
SET enable_seqscan = off AS $$
BEGIN
    RETURN (SELECT f.summary FROM pgctx.base_fold(base_summary.conversation_id, base_summary.base_version) f);
END
$$;

COMMENT ON FUNCTION pgctx.base_summary(text, integer) IS
    'The summary a fold on base_version continues from (pgctx.base_fold); NULL when there is none.';

CREATE OR REPLACE FUNCTION pgctx.base_summary_tokens(conversation_id text, base_version integer) RETURNS bigint
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET jit = off
SET enable_seqscan = off AS $$
BEGIN
    RETURN (SELECT f.tokens FROM pgctx.base_fold(base_summary_tokens.conversation_id,
                                                 base_summary_tokens.base_version) f);
END
$$;

COMMENT ON FUNCTION pgctx.base_summary_tokens(text, integer) IS
    'The token count of the summary a fold on base_version continues from (pgctx.base_fold): stored, else estimated; 0 when there is none.';

-- The events a fold of after_seq+1..upto_seq reads, as [[seq, kind, payload, tokens], ...] in seq
-- order (NULL for none): what the summarizer is given. A function, so the statement that reads a
-- fold's input beside pgctx.fold_status and pgctx.must_keep names no table: on Citus a query of
-- pgctx.events is sent whole to the conversation's shard, those functions with it, and their reads
-- there would be distributed queries from a query on a shard (refused).
CREATE OR REPLACE FUNCTION pgctx.fold_events(conversation_id text, after_seq bigint, upto_seq bigint) RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET jit = off AS $$
BEGIN
    RETURN (SELECT jsonb_agg(jsonb_build_array(e.seq, e.kind, e.payload, e.tokens) ORDER BY e.seq)
              FROM pgctx.events e
             WHERE e.conversation_id = fold_events.conversation_id AND e.seq > after_seq AND e.seq <= upto_seq);
END
$$;

COMMENT ON FUNCTION pgctx.fold_events(text, bigint, bigint) IS
    'The events of a fold of after_seq+1..upto_seq, [[seq, kind, payload, tokens], ...] in seq order: the summarizer''s input.';

-- A client that gives no count of a summary or an event (psql): its canonical JSON's bytes over 4,
-- which is more than the compact lines the working context shows for the same summary
-- (pgctx.messages) for text in Latin scripts. prepare_fold stores it as the checkpoint's count, and
-- weighs events appended without a count by it (PC121).
CREATE OR REPLACE FUNCTION pgctx.estimated_tokens(summary jsonb) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ceil(octet_length(summary::text) / 4.0)::integer
$$;

COMMENT ON FUNCTION pgctx.estimated_tokens(jsonb) IS
    'The token count prepare_fold stores for a summary whose client gave none, and weighs an event appended without one by: its JSON bytes / 4.';

-- The committed fold a new fold builds on (version 0 and the start cursor before the first).
-- plpgsql keeps its plan for the session: every fold and working context reads this.
CREATE OR REPLACE FUNCTION pgctx.committed_fold(conversation_id text,
                                                OUT version integer, OUT cursor bigint, OUT summary jsonb)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET jit = off
SET enable_seqscan = off AS $$
DECLARE
    found_row record;
BEGIN
    SELECT coalesce(h.version, 0) AS v, coalesce(h.cursor, c.base_seq) AS c
      INTO found_row
      FROM pgctx.conversations c
      LEFT JOIN pgctx.fold_heads h ON h.conversation_id = c.conversation_id
     WHERE c.conversation_id = committed_fold.conversation_id;
    version := found_row.v;
    cursor := found_row.c;
    -- read after the query, not inside it: a function that reads the tables again from inside a
    -- query of them is nested distributed execution on Citus (scaling.md)
    IF found_row.v IS NOT NULL THEN
        summary := pgctx.base_summary(committed_fold.conversation_id, found_row.v);
    END IF;
END
$$;

COMMENT ON FUNCTION pgctx.committed_fold(text) IS
    'The committed fold a new fold builds on: version, cursor and summary (version 0 and the start cursor, 0 or a branch''s fork point, before the first fold).';

-- The advisory lock key of a conversation's folds.
CREATE OR REPLACE FUNCTION pgctx.fold_lock_key(conversation_id text) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT hashtextextended('pgctx:fold:' || conversation_id, 0)
$$;

COMMENT ON FUNCTION pgctx.fold_lock_key(text) IS
    'The advisory lock key of a conversation''s folds: prepare_fold, commit_fold and recover take it shared, serialize_folds and erasure exclusive.';

-- Before 0013 fold_violations took no token count (and did not weigh the context), nor a horizon.
DROP FUNCTION IF EXISTS pgctx.fold_violations(text, integer, bigint, bigint, jsonb, integer);
DROP FUNCTION IF EXISTS pgctx.fold_violations(text, integer, bigint, bigint, jsonb, integer, integer);

CREATE OR REPLACE FUNCTION pgctx.fold_violations(
    conversation_id text,
    base_version integer,
    base_cursor bigint,
    new_cursor bigint,
    summary jsonb,
    schema_version integer,
    tokens integer DEFAULT NULL,
    horizon integer DEFAULT NULL
) RETURNS TABLE (sqlstate text, message text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    head_seq   bigint;
    previous   jsonb;
    base       jsonb;
    cited      jsonb;
    viewed_from bigint;
    size_before bigint;
    size_after  bigint;
    detail      text;
    recorded    jsonb;
    shown       bigint[];
    schema_err text;
    part_ids   text[];
    part_after bigint[];
    part_upto  bigint[];
    erased_parts integer[] := '{}'::integer[];
    cited_seqs bigint[];
    erased_part integer;
    keep       jsonb;
    call       record;
    claimed    jsonb;
    item       record;
    leaves     text;
BEGIN
    SELECT c.head_seq INTO head_seq FROM pgctx.conversations c WHERE c.conversation_id = fold_violations.conversation_id;
    IF new_cursor <= base_cursor THEN
        RETURN QUERY SELECT 'PC101', format('empty range: new cursor %s is not after the committed cursor %s', new_cursor, base_cursor);
        RETURN;
    END IF;
    IF new_cursor > head_seq THEN
        RETURN QUERY SELECT 'PC102', format('new cursor %s is beyond the head (seq %s)', new_cursor, head_seq);
        RETURN;
    END IF;

    previous := pgctx.base_summary(conversation_id, base_version);
    base := previous;
    keep := pgctx.must_keep(conversation_id, base_cursor, new_cursor, previous, schema_version, horizon);
    viewed_from := greatest(base_cursor, pgctx.last_clear(conversation_id, new_cursor));
    IF viewed_from > base_cursor THEN
        previous := NULL;  -- the range holds a clear: the summary starts over after it (200)
    END IF;

    -- atomic units: a call folded without its existing result; an approval split from its goal
    RETURN QUERY
        SELECT 'PC103', format('boundary %s splits tool call %s (seq %s) from its result (seq %s)',
                               new_cursor, t.key, t.value->>'call_seq', t.value->>'result_seq')
          FROM jsonb_each(keep->'tool_calls') AS t
         WHERE (t.value->>'call_seq')::bigint > base_cursor AND (t.value->>'result_seq')::bigint > new_cursor;
    RETURN QUERY
        SELECT 'PC103', format('boundary %s splits approval (seq %s) from the goal it scopes (seq %s)',
                               new_cursor, e.seq, e.payload->>'scopes_event')
          FROM pgctx.events e
         WHERE e.conversation_id = fold_violations.conversation_id AND e.kind = 'approval'
           AND e.seq > base_cursor AND jsonb_typeof(e.payload->'scopes_event') = 'number'
           -- a goal an earlier fold covered is not this fold's to keep with its approval (as fold_boundary)
           AND (e.payload->>'scopes_event')::numeric > base_cursor
           AND ((e.seq <= new_cursor) <> ((e.payload->>'scopes_event')::numeric <= new_cursor));
    RETURN QUERY
        SELECT 'PC103', format('boundary %s splits event %s from its retraction (seq %s)',
                               new_cursor, r.payload->>'seq', r.seq)
          FROM pgctx.events r
         WHERE r.conversation_id = fold_violations.conversation_id AND r.kind = 'retraction'
           AND r.seq > new_cursor AND (r.payload->>'seq')::bigint > base_cursor
           AND (r.payload->>'seq')::bigint <= new_cursor;
    schema_err := pgctx.summary_schema_error(schema_version, summary);
    IF schema_err IS NOT NULL THEN
        RETURN QUERY SELECT 'PC104', 'summary violates schema_version ' || schema_version || ': ' || schema_err;
        RETURN;  -- the remaining rules read the summary's structure
    END IF;

    -- erased content (190): a candidate cites no erased event, in any section. Only looked for
    -- when the history holds an erased event (one index probe per part of the lineage). The
    -- lineage is read in a statement of its own, then one conversation per statement (on Citus a
    -- branch's source may live on another worker: a query joining the parts is refused there).
    SELECT array_agg(l.conversation_id), array_agg(l.after_seq), array_agg(l.upto_seq)
      INTO part_ids, part_after, part_upto
      FROM pgctx.lineage(fold_violations.conversation_id) l;
    FOR i IN REVERSE coalesce(cardinality(part_ids), 0) .. 1 LOOP  -- the parts in seq order
        IF EXISTS (SELECT 1 FROM pgctx.events e
                    WHERE e.conversation_id = part_ids[i] AND e.erased_in IS NOT NULL
                      AND e.seq > part_after[i] AND (part_upto[i] IS NULL OR e.seq <= part_upto[i])) THEN
            erased_parts := erased_parts || i;
        END IF;
    END LOOP;
    IF cardinality(erased_parts) > 0 THEN
        cited_seqs := ARRAY(SELECT DISTINCT (s.id)::numeric::bigint
                         FROM jsonb_path_query(summary, 'lax $.**.source_event_ids[*]') AS s(id)
                        WHERE jsonb_typeof(s.id) = 'number' AND (s.id)::numeric = trunc((s.id)::numeric)
                          AND abs((s.id)::numeric) < 9223372036854775807);
        FOREACH erased_part IN ARRAY erased_parts LOOP
            RETURN QUERY
                SELECT 'PC119', format('the summary cites event %s, whose content was erased (erasure at seq %s of %s)',
                                       e.seq, e.erased_in, e.conversation_id)
                  FROM pgctx.events e
                 WHERE e.conversation_id = part_ids[erased_part] AND e.seq = ANY (cited_seqs) AND e.erased_in IS NOT NULL
                   AND e.seq > part_after[erased_part]
                   AND (part_upto[erased_part] IS NULL OR e.seq <= part_upto[erased_part])
                 ORDER BY e.seq;
        END LOOP;
    END IF;

    -- sources
    RETURN QUERY
        SELECT 'PC106', format('%s has no source_event_ids', p.path)
          FROM (SELECT format('facts[%s] (%s)', i - 1, f->>'key') AS path, f AS item
                  FROM jsonb_array_elements(summary->'facts') WITH ORDINALITY AS a(f, i)
                UNION ALL
                SELECT format('completed_actions[%s] (%s)', i - 1, f->>'action'), f
                  FROM jsonb_array_elements(summary->'completed_actions') WITH ORDINALITY AS a(f, i)) p
         WHERE jsonb_array_length(p.item->'source_event_ids') = 0;
    RETURN QUERY
        SELECT DISTINCT 'PC106', format('%s cites event %s, outside the folded events 1..%s', s.section, s.id, new_cursor)
          FROM (SELECT 'facts' AS section, jsonb_array_elements(f->'source_event_ids') AS id
                  FROM jsonb_array_elements(summary->'facts') f
                UNION ALL SELECT 'decisions', jsonb_array_elements(f->'source_event_ids')
                  FROM jsonb_array_elements(summary->'decisions') f
                UNION ALL SELECT 'completed_actions', jsonb_array_elements(f->'source_event_ids')
                  FROM jsonb_array_elements(summary->'completed_actions') f
                UNION ALL SELECT 'pending', jsonb_array_elements(f->'source_event_ids')
                  FROM jsonb_array_elements(summary->'pending') f
                UNION ALL SELECT 'tool_state', jsonb_array_elements(f->'source_event_ids')
                  FROM jsonb_each(summary->'tool_state') AS t(k, f)
                -- version 2's statements and task (version 1 constraints are strings: no ids)
                UNION ALL SELECT 'constraints', jsonb_array_elements(f->'source_event_ids')
                  FROM jsonb_array_elements(summary->'constraints') f WHERE jsonb_typeof(f) = 'object'
                UNION ALL SELECT 'user_requests', jsonb_array_elements(f->'source_event_ids')
                  FROM jsonb_array_elements(coalesce(summary->'user_requests', '[]')) f
                UNION ALL SELECT 'task', jsonb_array_elements(coalesce(summary->'task'->'source_event_ids', '[]'))) s
         WHERE s.id::numeric < 1 OR s.id::numeric > new_cursor;
    -- the user's words are cited from user messages
    RETURN QUERY
        SELECT 'PC106', format('user_requests[%s] has no source_event_ids', a.i - 1)
          FROM jsonb_array_elements(coalesce(summary->'user_requests', '[]')) WITH ORDINALITY AS a(f, i)
         WHERE jsonb_array_length(a.f->'source_event_ids') = 0;
    RETURN QUERY
        SELECT DISTINCT 'PC106', format('user_requests cites event %s, which is not a user message', e.seq)
          FROM jsonb_array_elements(coalesce(summary->'user_requests', '[]')) AS a(f),
               jsonb_array_elements(a.f->'source_event_ids') AS s(id)
          JOIN pgctx.events e ON e.conversation_id = fold_violations.conversation_id
                             AND e.seq = s.id::bigint AND s.id::numeric BETWEEN 1 AND new_cursor
         WHERE e.kind <> 'user';

    -- tool state: every call touched by the range or carried from the previous summary, as derived
    FOR call IN SELECT key AS call_id, value AS derived FROM jsonb_each(keep->'tool_calls') LOOP
        claimed := summary->'tool_state'->call.call_id;
        IF claimed IS NULL THEN
            RETURN QUERY SELECT 'PC108', format('tool_state misses call %s (%s, %s)%s', call.call_id,
                                                call.derived->>'tool', call.derived->>'status',
                                                CASE WHEN (call.derived->>'call_seq')::bigint <= base_cursor
                                                     THEN ', which the previous summary tracked' ELSE '' END);
            CONTINUE;
        END IF;
        IF claimed->>'effect' <> call.derived->>'effect' THEN
            RETURN QUERY SELECT 'PC107', format('tool_state[%s] says effect %s but the call is %s', call.call_id,
                                                claimed->>'effect', call.derived->>'effect');
        END IF;
        IF claimed ? 'subject' AND claimed->>'subject' IS DISTINCT FROM call.derived->>'subject' THEN
            RETURN QUERY SELECT 'PC107', format('tool_state[%s] says subject %s but the call is about %s', call.call_id,
                                                claimed->>'subject', coalesce(call.derived->>'subject', 'nothing'));
        END IF;
        IF claimed->>'status' <> call.derived->>'status' THEN
            RETURN QUERY SELECT 'PC107', format('tool_state[%s] says %s but the events say %s%s', call.call_id,
                                                claimed->>'status', call.derived->>'status',
                                                coalesce(' (answer at seq ' || (call.derived->>'answer_seq') || ')', ''));
        END IF;
        IF call.derived->>'status' = 'succeeded' AND call.derived->>'effect' <> 'read'
           AND call.derived ? 'request_id'
           AND claimed->>'request_id' IS DISTINCT FROM call.derived->>'request_id' THEN
            RETURN QUERY SELECT 'PC108', format('tool_state[%s] must keep request_id %s of the successful write',
                                                call.call_id, call.derived->>'request_id');
        END IF;
        IF call.derived ? 'error' AND claimed->>'error' IS DISTINCT FROM call.derived->>'error' THEN
            RETURN QUERY SELECT 'PC108', format('tool_state[%s] must keep the failure reason %L',
                                                call.call_id, call.derived->>'error');
        END IF;
        -- (an erased call event cannot be cited, PC119: its tool_state entry, required above,
        -- keeps the unresolved call then)
        IF call.derived->>'status' IN ('running', 'unknown')
           AND NOT coalesce(call.derived->'erased' @> (call.derived->'call_seq'), false) AND NOT EXISTS (
               SELECT 1 FROM jsonb_array_elements(summary->'pending') p
                WHERE p->'source_event_ids' @> to_jsonb((call.derived->>'call_seq')::bigint)) THEN
            RETURN QUERY SELECT 'PC108', format('call %s is %s: pending must list it (citing seq %s)',
                                                call.call_id, call.derived->>'status', call.derived->>'call_seq');
        END IF;
    END LOOP;

    -- calls collapsed beyond the horizon (version 2) may stay in tool_state, with their status
    RETURN QUERY
        SELECT 'PC107', format('tool_state[%s] says %s but the events say %s', t.k, t.v->>'status', c.v->>'status')
          FROM jsonb_each(summary->'tool_state') AS t(k, v)
          JOIN jsonb_each(coalesce(keep->'collapsed', '{}')) AS c(k, v) ON c.k = t.k
         WHERE t.v->>'status' IS DISTINCT FROM c.v->>'status';
    -- the writes among them are summarized per tool and status, and per-tool actions stay
    RETURN QUERY
        SELECT 'PC108', format('completed_actions must collapse %s %s call(s) of %s (e.g. %s) into an action with tool %s and status %s',
                               count(*), c.v->>'status', c.v->>'tool', min(c.k), c.v->>'tool', c.v->>'status')
          FROM jsonb_each(coalesce(keep->'collapsed', '{}')) AS c(k, v)
         WHERE c.v->>'effect' <> 'read' AND NOT (summary->'tool_state' ? c.k)
           AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(summary->'completed_actions') a
                            WHERE a->>'tool' = c.v->>'tool' AND a->>'status' = c.v->>'status')
         GROUP BY c.v->>'tool', c.v->>'status';
    RETURN QUERY
        SELECT 'PC108', format('completed_actions drops the per-tool action of %s (%s) the previous summary had',
                               p->>'tool', p->>'status')
          FROM jsonb_array_elements(coalesce(previous->'completed_actions', '[]')) p
         WHERE p->>'tool' IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(summary->'completed_actions') a
                            WHERE a->>'tool' = p->>'tool' AND a->>'status' = p->>'status');

    -- nothing claimed succeeded that the events do not show succeeded
    RETURN QUERY
        SELECT 'PC107', format('tool_state[%s] says succeeded but no such call is in the folded events', t.k)
          FROM jsonb_each(summary->'tool_state') AS t(k, v)
         WHERE t.v->>'status' = 'succeeded'
           AND NOT (keep->'tool_calls' ? t.k) AND NOT (coalesce(keep->'collapsed', '{}') ? t.k)
           AND NOT coalesce(previous->'tool_state'->t.k->>'status' = 'succeeded', false);
    RETURN QUERY
        SELECT DISTINCT 'PC107', format('completed_actions[%s] (%s) is succeeded but cites call %s, which is %s',
                                        a.i - 1, a.f->>'action', t.call_id, t.status)
          FROM jsonb_array_elements(summary->'completed_actions') WITH ORDINALITY AS a(f, i)
          JOIN (SELECT * FROM jsonb_each(keep->'tool_calls')
                UNION ALL SELECT * FROM jsonb_each(coalesce(keep->'collapsed', '{}'))) AS c(call_id, v)
            ON (a.f->'source_event_ids') @> (c.v->'call_seq')
               OR (c.v ? 'answer_seq' AND (a.f->'source_event_ids') @> (c.v->'answer_seq'))
          CROSS JOIN LATERAL (SELECT c.call_id, c.v->>'status' AS status) t
         WHERE a.f->>'status' = 'succeeded' AND t.status <> 'succeeded';

    -- calls the previous summary tracked as unresolved (or, for version 1, as a write with a
    -- request id) stay tracked even where their events are not this conversation's (a branch's
    -- source)
    RETURN QUERY
        SELECT 'PC108', format('tool_state drops call %s, which the previous summary tracked as %s%s', t.k,
                               t.v->>'status', coalesce(' with request_id ' || (t.v->>'request_id'), ''))
          FROM jsonb_each(coalesce(previous->'tool_state', '{}')) AS t(k, v)
         WHERE NOT (summary->'tool_state' ? t.k) AND NOT (keep->'tool_calls' ? t.k)
           AND NOT (coalesce(keep->'collapsed', '{}') ? t.k)
           AND (t.v->>'status' IN ('running', 'unknown')
                OR (schema_version < 2 AND t.v->>'effect' <> 'read' AND t.v->>'request_id' IS NOT NULL));
    -- and no call of the previous summary changes without an answer
    RETURN QUERY
        SELECT 'PC107', format('tool_state[%s] changed from %s to %s without an answer in this range',
                               t.k, t.v->>'status', summary->'tool_state'->t.k->>'status')
          FROM jsonb_each(coalesce(previous->'tool_state', '{}')) AS t(k, v)
         WHERE summary->'tool_state' ? t.k AND NOT (keep->'tool_calls' ? t.k)
           AND NOT (coalesce(keep->'collapsed', '{}') ? t.k)
           AND (summary->'tool_state'->t.k->>'status' IS DISTINCT FROM t.v->>'status'
                OR summary->'tool_state'->t.k->>'request_id' IS DISTINCT FROM t.v->>'request_id');

    -- identifiers the tools used appear somewhere in the summary (its text leaves, read once)
    IF jsonb_array_length(keep->'identifiers') > 0 THEN
        -- (filtered inside the path, so no container is copied out)
        SELECT string_agg(leaf.v #>> '{}', E'\n') INTO leaves
          FROM jsonb_path_query(summary, 'strict $.** ? (@.type() == "string" || @.type() == "number")') AS leaf(v);
        RETURN QUERY
            SELECT 'PC108', format('identifier %s used by the tools appears nowhere in the summary', i.ident)
              FROM jsonb_array_elements_text(keep->'identifiers') AS i(ident)
             WHERE position(i.ident IN coalesce(leaves, '')) = 0;
    END IF;

    -- unanswered approvals are pending
    RETURN QUERY
        SELECT 'PC108', format('approval %s (seq %s) is unanswered: pending must list it', a->>'approval_id', a->>'seq')
          FROM jsonb_array_elements(keep->'open_approvals') AS a
         WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(summary->'pending') p
                            WHERE (p->'source_event_ids') @> (a->'seq'));

    IF summary->'omitted_event_range' <> keep->'omitted_event_range' THEN
        RETURN QUERY SELECT 'PC108', format('omitted_event_range must be %s, got %s',
                                            keep->'omitted_event_range', summary->'omitted_event_range');
    END IF;
    IF summary->'last_event_id' <> keep->'last_event_id' THEN
        RETURN QUERY SELECT 'PC108', format('last_event_id must be %s, got %s', new_cursor, summary->'last_event_id');
    END IF;

    -- nothing the range held is hidden (article 十七: a summary is not the only record, but the
    -- context shows nothing else of a folded event): the newest user requests of the range are
    -- cited, the newest declared fact per key and subject is kept, and a range that had content is
    -- not folded into a summary that cites none of it
    SELECT coalesce(jsonb_agg(DISTINCT c.id), '[]') INTO cited
      FROM jsonb_path_query(summary, 'lax $.**.source_event_ids[*]') AS c(id) WHERE jsonb_typeof(c.id) = 'number';
    RETURN QUERY
        SELECT 'PC120', format('the summary hides user message %s of the folded range: nothing in it cites that event '
                               '(a fold keeps the newest %s user messages of its range that are not bare '
                               'acknowledgements)', r.seq, 12)
          FROM jsonb_array_elements(coalesce(keep->'requests', '[]')) AS r(seq)
         WHERE NOT cited @> jsonb_build_array(r.seq);
    RETURN QUERY
        SELECT 'PC120', format('the summary hides the fact %s%s stated at seq %s: no active fact of that key cites it or a later event',
                               d->>'key', coalesce(' [' || (d->>'subject') || ']', ''), d->>'seq')
          FROM jsonb_array_elements(coalesce(keep->'facts', '[]')) AS d
         WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(summary->'facts') AS f
                            WHERE f->>'key' = d->>'key' AND f->>'status' = 'active'
                              AND (d->>'subject' IS NULL OR f->>'subject' IS NULL OR f->>'subject' = d->>'subject')
                              AND EXISTS (SELECT 1 FROM jsonb_array_elements(f->'source_event_ids') AS s(id)
                                           WHERE jsonb_typeof(s.id) = 'number' AND s.id::numeric >= (d->>'seq')::numeric));
    RETURN QUERY
        SELECT 'PC120', format('hollow summary: it cites none of the %s events of the folded range %s..%s that had '
                               'content (messages, tool results, facts, approvals)', count(*), viewed_from + 1, new_cursor)
          FROM pgctx.events e
         WHERE e.conversation_id = fold_violations.conversation_id AND e.seq > viewed_from AND e.seq <= new_cursor
           AND e.erased_in IS NULL
           AND NOT EXISTS (SELECT 1 FROM pgctx.events r
                            WHERE r.conversation_id = fold_violations.conversation_id AND r.kind = 'retraction'
                              AND r.seq > e.seq AND r.seq <= new_cursor AND (r.payload->>'seq')::bigint = e.seq)
           AND (e.kind IN ('tool_result', 'status_query', 'fact', 'correction', 'approval', 'permission')
                OR btrim(coalesce(pgctx.message_text(e.kind, e.payload), '')) <> '')
        HAVING count(*) > 0
           AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(cited) AS c(id)
                            WHERE c.id::numeric > viewed_from AND c.id::numeric <= new_cursor);

    -- the fold makes the working context smaller: summary + evidence kept raw + unfolded events,
    -- after against before (each as the working context counts it: 170); a candidate or an event
    -- with no count (written from psql) is weighed by pgctx.estimated_tokens. The one exception:
    -- an event from before the range that a risk the fold found brings back raw (a reading the
    -- range contradicts) is not held against it: the risk needs it, the fold did not add it.
    -- (each read in a statement of its own: nested distributed execution on Citus otherwise)
    SELECT k.evidence INTO recorded FROM pgctx.checkpoints k
     WHERE k.conversation_id = fold_violations.conversation_id AND k.version = fold_violations.base_version
       AND k.phase = 'COMMITTED';
    SELECT coalesce(array_agg(p.seq), '{}'), coalesce(sum(coalesce(p.tokens, pgctx.estimated_tokens(p.payload))), 0)
      INTO shown, size_before
      FROM pgctx.pinned_evidence(fold_violations.conversation_id, fold_violations.base_cursor, base, recorded) p;
    size_before := size_before + pgctx.base_summary_tokens(fold_violations.conversation_id, fold_violations.base_version);
    SELECT size_before + coalesce(sum(coalesce(e.tokens, pgctx.estimated_tokens(e.payload))), 0) INTO size_before
      FROM pgctx.events e
     WHERE e.conversation_id = fold_violations.conversation_id AND e.seq > fold_violations.base_cursor;
    recorded := pgctx.fold_evidence(fold_violations.conversation_id, fold_violations.base_version,
                                    fold_violations.base_cursor, new_cursor);
    SELECT coalesce(sum(coalesce(p.tokens, pgctx.estimated_tokens(p.payload))), 0) INTO size_after
      FROM pgctx.pinned_evidence(fold_violations.conversation_id, new_cursor, summary, recorded) p
     WHERE p.seq > fold_violations.base_cursor OR p.seq = ANY (shown);
    detail := format('summary %s, evidence %s', coalesce(fold_violations.tokens, pgctx.estimated_tokens(summary)),
                     size_after);
    size_after := size_after + coalesce(fold_violations.tokens, pgctx.estimated_tokens(summary));
    SELECT size_after + coalesce(sum(coalesce(e.tokens, pgctx.estimated_tokens(e.payload))), 0) INTO size_after
      FROM pgctx.events e
     WHERE e.conversation_id = fold_violations.conversation_id AND e.seq > new_cursor;
    IF size_after >= size_before THEN
        RETURN QUERY SELECT 'PC121', format('folding %s..%s would not make the context smaller: summary, evidence and '
                                            'unfolded events are %s tokens now and would be %s after (%s%s)',
                                            base_cursor + 1, new_cursor, size_before, size_after, detail,
                                            CASE WHEN fold_violations.tokens IS NULL
                                                 THEN '; the summary''s count estimated from its JSON' ELSE '' END);
    END IF;

    -- a confirmed fact keeps its value unless a user or tool event of this range says otherwise:
    -- when no active fact of the same key and subject keeps the old value, each that holds another
    -- value must cite one, unless the previous summary already held that value for that key and
    -- subject (a value carried over, or kept beside a rival's as a contradiction, overrides nothing).
    -- (keys extracted first, so the join compares text, not every pair of fact documents)
    FOR item IN
        WITH old AS MATERIALIZED (
            SELECT o.f->>'key' AS k, o.f->>'subject' AS subj, o.f AS f
              FROM jsonb_array_elements(coalesce(previous->'facts', '[]')) AS o(f)
             WHERE o.f->>'status' = 'active' AND o.f->>'authority' <> 'model' AND o.f->>'confidence' = 'confirmed'
        ), new AS MATERIALIZED (
            SELECT n.f->>'key' AS k, n.f->>'subject' AS subj, n.f AS f
              FROM jsonb_array_elements(summary->'facts') AS n(f)
             WHERE n.f->>'status' = 'active'
        ), prior AS MATERIALIZED (
            SELECT p.f->>'key' AS k, p.f->>'subject' AS subj, p.f->'value' AS v
              FROM jsonb_array_elements(coalesce(previous->'facts', '[]')) AS p(f)
             WHERE p.f->>'status' = 'active'
        )
        SELECT old.f AS old, new.f AS new
          FROM old JOIN new ON new.k = old.k AND new.subj IS NOT DISTINCT FROM old.subj
         WHERE new.f->'value' <> old.f->'value'
           AND NOT EXISTS (SELECT 1 FROM new kept WHERE kept.k = old.k AND kept.subj IS NOT DISTINCT FROM old.subj
                                                   AND kept.f->'value' = old.f->'value')
           AND NOT EXISTS (SELECT 1 FROM prior WHERE prior.k = new.k AND prior.subj IS NOT DISTINCT FROM new.subj
                                                 AND prior.v = new.f->'value')
    LOOP
        IF NOT EXISTS (SELECT 1 FROM pgctx.events e, jsonb_array_elements(item.new->'source_event_ids') AS s(id)
                        WHERE e.conversation_id = fold_violations.conversation_id
                          AND e.seq = s.id::bigint AND e.seq > base_cursor
                          AND e.kind IN ('user', 'tool_result', 'status_query', 'correction', 'fact', 'approval')) THEN
            RETURN QUERY SELECT 'PC109',
                format('fact %s: %s (confirmed by %s) overridden by %s without a user or tool event of this range',
                       item.old->>'key', item.old->'value', item.old->>'authority', item.new->'value');
        END IF;
    END LOOP;
END
$$;

COMMENT ON FUNCTION pgctx.fold_violations(text, integer, bigint, bigint, jsonb, integer, integer, integer) IS
    'Every reason prepare_fold would refuse this candidate (empty = acceptable), each with its SQLSTATE; tokens: the client''s count of the summary (NULL: estimated from its JSON); horizon: must_keep''s (NULL: the default).';

-- Lock (creating if needed) the conversation's CAS row; checks the caller may fold it.
CREATE OR REPLACE FUNCTION pgctx.lock_fold_head(conversation_id text) RETURNS pgctx.fold_heads
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    conv pgctx.conversations%ROWTYPE;
    head pgctx.fold_heads%ROWTYPE;
BEGIN
    SELECT * INTO conv FROM pgctx.conversations c WHERE c.conversation_id = lock_fold_head.conversation_id;
    IF NOT FOUND OR NOT pgctx.tenant_visible(conv.tenant) THEN
        RAISE EXCEPTION USING ERRCODE = 'PC014',
            MESSAGE = format('no conversation %L (or not visible to role %s)', lock_fold_head.conversation_id, session_user);
    END IF;
    IF NOT pgctx.tenant_member(conv.tenant) THEN
        RAISE EXCEPTION USING ERRCODE = 'PC010',
            MESSAGE = format('role %s is not a member of the tenant of conversation %s', session_user, conv.conversation_id);
    END IF;
    INSERT INTO pgctx.fold_heads (conversation_id, cursor, tenant) VALUES (conv.conversation_id, conv.base_seq, conv.tenant)
    ON CONFLICT DO NOTHING;
    SELECT * INTO STRICT head FROM pgctx.fold_heads h WHERE h.conversation_id = conv.conversation_id FOR UPDATE;
    RETURN head;
END
$$;

COMMENT ON FUNCTION pgctx.lock_fold_head(text) IS
    'The conversation''s fold head (its compare-and-swap row), created if missing and locked FOR UPDATE, after checking the caller may see (PC014) and fold (PC010) the conversation: prepare and commit serialize on it without blocking appends.';

-- Before 0006 prepare_fold took no token count.
DROP FUNCTION IF EXISTS pgctx.prepare_fold(text, integer, bigint, bigint, jsonb, integer, text);
DROP FUNCTION IF EXISTS pgctx.prepare_fold(text, integer, bigint, bigint, jsonb, integer, text, integer);

CREATE OR REPLACE FUNCTION pgctx.prepare_fold(
    conversation_id text,
    expected_version integer,
    expected_cursor bigint,
    new_cursor bigint,
    summary jsonb,
    schema_version integer,
    summarizer text DEFAULT NULL,
    tokens integer DEFAULT NULL,
    horizon integer DEFAULT NULL
) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    head      pgctx.fold_heads%ROWTYPE;
    chain     record;
    committed_hash bytea;
    problems  text[];
    first_state   text;
    first_message text;
    canonical jsonb := pgctx.canonical_payload(summary);
    at_cursor bytea;
    new_version integer;
    evidence  jsonb;
BEGIN
    -- the fold lock first (shared: only a serialized folder holds it exclusive), then the CAS row
    PERFORM pg_advisory_xact_lock_shared(pgctx.fold_lock_key(conversation_id));
    head := pgctx.lock_fold_head(conversation_id);
    IF expected_version <> head.version THEN
        RAISE EXCEPTION USING ERRCODE = 'PC100',
            MESSAGE = format('fold conflict: expected version %s of %s but version %s is committed',
                             expected_version, conversation_id, head.version);
    END IF;
    IF expected_cursor <> head.cursor THEN
        RAISE EXCEPTION USING ERRCODE = 'PC101',
            MESSAGE = format('range must start at the committed cursor + 1 = %s, not %s', head.cursor + 1, expected_cursor + 1);
    END IF;

    -- Verify the chain from the committed fold's cursor (whose hash must still be the one the
    -- committed checkpoint recorded) to the head: a fold never covers a broken chain, and the
    -- cost is the unfolded tail, not the history. Edits below the committed cursor are recovery's
    -- business (pgctx.recover verifies from genesis, or from its own last verified point).
    SELECT c.chain_hash INTO committed_hash FROM pgctx.checkpoints c
     WHERE c.conversation_id = prepare_fold.conversation_id AND c.version = head.version;
    SELECT * INTO chain FROM pgctx.verify_chain(conversation_id, from_seq => head.cursor, from_hash => committed_hash);
    IF NOT chain.ok AND chain.first_bad_seq <= new_cursor THEN
        RAISE EXCEPTION USING ERRCODE = 'PC110',
            MESSAGE = format('cannot fold %s up to seq %s: chain broken at seq %s: %s',
                             conversation_id, new_cursor, chain.first_bad_seq, chain.reason),
            HINT = 'SELECT pgctx.recover(conversation_id) reports what needs a human';
    END IF;

    SELECT array_agg(v.sqlstate || ': ' || v.message), (array_agg(v.sqlstate))[1], (array_agg(v.message))[1]
      INTO problems, first_state, first_message
      FROM pgctx.fold_violations(conversation_id, head.version, head.cursor, new_cursor, canonical, schema_version,
                                 tokens, horizon) v;
    IF problems IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = first_state, MESSAGE = first_message,
            DETAIL = array_to_string(problems, E'\n');
    END IF;

    SELECT e.hash INTO STRICT at_cursor FROM pgctx.events e
     WHERE e.conversation_id = prepare_fold.conversation_id AND e.seq = new_cursor;
    SELECT coalesce(max(c.version), 0) + 1 INTO new_version FROM pgctx.checkpoints c
     WHERE c.conversation_id = prepare_fold.conversation_id;
    -- A branch's evidence is derived here too and inserted with it: on Citus the insert trigger
    -- fires on the conversation's shard, and a branch's history (its source's part) may live on
    -- another worker, which a trigger there cannot read; the trigger then keeps this value (165).
    -- On one server the trigger derives it again, whatever is inserted: the same value.
    IF EXISTS (SELECT 1 FROM pgctx.conversations c
                WHERE c.conversation_id = prepare_fold.conversation_id AND c.forked_from IS NOT NULL) THEN
        evidence := pgctx.fold_evidence(conversation_id, head.version, head.cursor, new_cursor);
    END IF;
    -- the checksum is left to the insert trigger, which derives it (computing it here too would
    -- only have the trigger recompute it to compare)
    INSERT INTO pgctx.checkpoints (conversation_id, version, phase, base_version, base_cursor, cursor, chain_hash,
                                   schema_version, summary, summarizer, tenant, tokens, horizon, evidence)
    VALUES (conversation_id, new_version, 'PREPARED', head.version, head.cursor, new_cursor, at_cursor,
            schema_version, canonical, summarizer, head.tenant, coalesce(tokens, pgctx.estimated_tokens(canonical)),
            horizon, evidence);
    RETURN new_version;
END
$$;

COMMENT ON FUNCTION pgctx.prepare_fold(text, integer, bigint, bigint, jsonb, integer, text, integer, integer) IS
    'Validate a candidate summary of events expected_cursor+1..new_cursor and store it PREPARED (tokens: the client''s count of it as the working context shows it; NULL: estimated from its JSON, pgctx.estimated_tokens; horizon: the resolved calls must_keep keeps in full, NULL: the default, recorded for recovery''s re-check); returns its version.';

-- Under the conversation's fold-head lock (and its tenancy checks), the checkpoint or PC111.
CREATE OR REPLACE FUNCTION pgctx.locked_checkpoint(conversation_id text, version integer) RETURNS pgctx.checkpoints
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    cp pgctx.checkpoints%ROWTYPE;
BEGIN
    PERFORM pgctx.lock_fold_head(conversation_id);  -- the lock and its checks; the row is not needed
    SELECT * INTO cp FROM pgctx.checkpoints c
     WHERE c.conversation_id = locked_checkpoint.conversation_id AND c.version = locked_checkpoint.version;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'PC111',
            MESSAGE = format('conversation %s has no checkpoint version %s', conversation_id, version);
    END IF;
    RETURN cp;
END
$$;

COMMENT ON FUNCTION pgctx.locked_checkpoint(text, integer) IS
    'A checkpoint of the conversation, read under its fold head''s lock (so with the tenancy checks of lock_fold_head), or PC111: what commit_fold and discard_fold act on.';

CREATE OR REPLACE FUNCTION pgctx.commit_fold(conversation_id text, version integer) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    cp pgctx.checkpoints%ROWTYPE;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(pgctx.fold_lock_key(conversation_id));  -- as prepare_fold
    cp := pgctx.locked_checkpoint(conversation_id, version);
    IF cp.phase = 'DISCARDED' THEN
        RAISE EXCEPTION USING ERRCODE = 'PC100',
            MESSAGE = format('fold conflict: checkpoint %s of %s was discarded: %s', version, conversation_id, cp.discard_reason);
    ELSIF cp.phase = 'COMMITTED' THEN
        RAISE EXCEPTION USING ERRCODE = 'PC112',
            MESSAGE = format('checkpoint %s of %s is already committed', version, conversation_id);
    END IF;
    UPDATE pgctx.checkpoints c SET phase = 'COMMITTED'
     WHERE c.conversation_id = commit_fold.conversation_id AND c.version = commit_fold.version;
    RETURN cp.cursor;
END
$$;

COMMENT ON FUNCTION pgctx.commit_fold(text, integer) IS
    'Compare-and-swap: commit a PREPARED checkpoint if the committed fold is still the one it was prepared on; returns the new cursor.';

CREATE OR REPLACE FUNCTION pgctx.discard_fold(conversation_id text, version integer, reason text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    cp pgctx.checkpoints%ROWTYPE := pgctx.locked_checkpoint(conversation_id, version);
BEGIN
    -- a COMMITTED or DISCARDED checkpoint cannot change: the guard raises PC112
    UPDATE pgctx.checkpoints c SET phase = 'DISCARDED', discard_reason = coalesce(nullif(reason, ''), 'discarded')
     WHERE c.conversation_id = cp.conversation_id AND c.version = cp.version;
END
$$;

COMMENT ON FUNCTION pgctx.discard_fold(text, integer, text) IS
    'Discard a PREPARED checkpoint with a reason (a COMMITTED or DISCARDED one cannot change: PC112).';
