-- 080: tool calls, their derived status, and what a fold must keep.
--
-- Event conventions (payload fields pgctx reads; anything else is carried along untouched):
--   tool_call    {tool, call_id, arguments, idempotency_key, effect: read|write|irreversible}
--   tool_result  {call_id, outcome: succeeded|failed|cancelled|timeout, request_id, error}
--   status_query {call_id, outcome: succeeded|failed|not_performed|unknown, request_id, error}
--                (the tool service's answer about an unknown call, asked by idempotency key)
--   approval     {approval_id, status: requested|granted|denied, scopes_event: seq of the goal}
--   recovery     {}  (the agent restarted; calls still without a result become unknown)
--
-- Invariants enforced here:
--   * A call's status is derived, never guessed: the latest answer decides (succeeded, failed,
--     cancelled); a timeout, an unknown answer, or a call left without a result across a
--     recovery is `unknown`, never `failed`; a call without an answer is `running`. A status
--     query saying the service did not act (`not_performed`) makes the call `failed`, the only
--     state in which a retry is safe.
--   * A call's effect comes from its payload, else the tool registry, else `write` (an
--     undeclared tool is assumed to change something).
--   * A call's subject is its identifier arguments as 'name=value' pairs (sorted by name): the
--     registry's identifier_args, else the arguments named id or *_id.
--   * What a summary covering events from_seq+1..to_seq must keep (article 七.2) is derived
--     here from those events (from the last clear in the range on, ignoring the previous summary
--     when there is one, 200): identifiers the tools used, the status (and request id, failure
--     reason) of every call touched by the range, approvals still unanswered, and the omitted
--     range. Cost grows with the range, not with the history (indexes below).
--   * Bounded tool state (schema_version 2 and later): a summary grows with the live state, not
--     with the history. Every unresolved call (planned, running, unknown) is always kept; of the
--     resolved calls the range touched or the previous summary tracked, the newest by call seq
--     are kept with their exact status, request id and failure reason (the horizon: by default 12
--     writes and irreversible calls and 3 reads, whose results live on as facts; a fold for a small
--     window asks for fewer, `horizon` writes and a quarter as many reads, and the checkpoint
--     records the horizon it was validated with, 090), and the others are listed as
--     "collapsed": a summary may drop them from tool_state, and collapses the writes among them
--     into one completed action per tool and status (their request ids stay in the events and
--     pgctx.side_effects). Version 1 keeps every call of the range and every write with a request
--     id, forever, as it always did.
--   * Erasure (190) does not hide a call: an erased tool_call, tool_result or status_query keeps
--     the call id, tool, effect and idempotency key, or the outcome and request id (030), so the
--     call keeps its derived status in tool_calls, must_keep, side_effects and recovery, without
--     its arguments, subject, identifiers or error. must_keep lists its erased seqs ("erased"),
--     which a summary must not cite (PC119): its tool_state entry cites what is left, an
--     unresolved one is kept by tool_state alone (pending cannot cite its erased call event,
--     100), and a resolved call beyond the horizon with nothing left to cite is not collapsed.

CREATE TABLE IF NOT EXISTS pgctx.tools (
    tool             text PRIMARY KEY,
    effect           text NOT NULL CHECK (effect IN ('read', 'write', 'irreversible')),
    identifier_args  text[] NOT NULL DEFAULT '{}',
    description      text,
    declared_at      timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE pgctx.tools IS
    'Tool registry: effect class and which arguments are identifiers a summary must keep. Undeclared tools count as writes whose *_id/id arguments are identifiers.';

CREATE OR REPLACE FUNCTION pgctx.declare_tool(tool text, effect text, identifier_args text[] DEFAULT '{}',
                                              description text DEFAULT NULL) RETURNS text
LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
    INSERT INTO pgctx.tools AS t (tool, effect, identifier_args, description)
    VALUES (tool, effect, identifier_args, description)
    ON CONFLICT (tool) DO UPDATE
       SET effect = excluded.effect, identifier_args = excluded.identifier_args,
           description = excluded.description, declared_at = excluded.declared_at;
    SELECT tool;
$$;

COMMENT ON FUNCTION pgctx.declare_tool(text, text, text[], text) IS
    'Declare (or redeclare) a tool in the registry: its effect class (read, write, irreversible) and the arguments that identify what it acts on, which a summary must keep; returns the tool. An undeclared tool counts as a write.';

-- Calls and their answers are found by call id, recoveries by seq, without scanning history. The
-- events of a range are read by primary key into a materialized CTE first and filtered by kind
-- there: asked for "tool events with seq in a range", the planner read every tool event of the
-- conversation through events_call_id, whose seq comes after the call id.
--
-- A lookup by call id orders by "seq + 0", not seq: ordering by the bare column lets the planner
-- walk an index in seq order and filter on the call id (a LIMIT 1 that reads a long
-- conversation's history when call ids repeat across conversations); with the expression it
-- reads the call's few events through events_call_id and sorts them.
--
-- The functions that run on every fold or turn also SET jit = off: over a long history their
-- plans are estimated past jit_above_cost, and compiling them (tens to hundreds of ms) costs far
-- more than running them (a few ms of index lookups).
--
-- Plans that do not depend on the statistics they were first made with: a session keeps its
-- plans (generic ones, for the statements of functions with plan_cache_mode = force_generic_plan
-- and, after five calls, for most others), so one planned while the tables were empty or small
-- keeps reading as it did then after the log has grown, until an ANALYZE invalidates it (measured:
-- seq scans of the whole log, 23,000 buffers a turn at 14,000 events, where 260 do;
-- docs/benchmarks.md). So every function a turn runs (an append and its triggers, fold_status
-- with nothing due, context_events and their helpers; tests/test_stale_plans.py) reads one
-- conversation only through an index on its key whatever the statistics say:
--   * SET enable_seqscan = off: the planner takes a seq scan only where no index applies (none of
--     these statements), so a small table's statistics cannot make one of the plan;
--   * a read of a seq range has the primary key as its one usable index: the other indexes of
--     the log are partial (a key lookup's, 030, included), and a range read filtered by kind reads
--     the range by primary key into a materialized CTE and filters there (above);
--   * a lookup that has an index of its own (a call id, a clear, a retraction, a milestone, an
--     event key) names that index's columns, so that index costs at most what the primary key
--     does under any statistics, and wins a tie (the planner keeps the newest index: the primary
--     key is the oldest, and stays so through a dump and restore).
-- What this costs: ~0.2 us per call of one more setting; a turn's reads measured no slower
-- (bench/ab_statements.py, docs/benchmarks.md).
CREATE INDEX IF NOT EXISTS events_call_id ON pgctx.events (conversation_id, (payload->>'call_id'), seq)
    WHERE kind IN ('tool_call', 'tool_result', 'status_query');
CREATE INDEX IF NOT EXISTS events_recovery ON pgctx.events (conversation_id, seq) WHERE kind = 'recovery';
CREATE INDEX IF NOT EXISTS events_approval ON pgctx.events (conversation_id, (payload->>'approval_id'), seq)
    WHERE kind = 'approval';

-- A conversation's history and where each part of it is stored: its own events after base_seq,
-- and for a branch its source's events up to the fork point (recursively). A call made before a
-- fork and answered on the branch is one call of the branch's history.
-- One lookup of one conversation per step (a loop, not a recursive query): each reads a single
-- conversation's row, which on Citus is a single-shard query, where a recursive query over the
-- table is refused (scaling.md); a conversation that is not a branch is one step.
CREATE OR REPLACE FUNCTION pgctx.lineage(of_conversation text)
RETURNS TABLE (conversation_id text, after_seq bigint, upto_seq bigint)
-- ROWS 1: nearly every conversation is not a branch. The default estimate (1000) multiplied the
-- cost of every lookup joined to it past jit_above_cost: ~40 ms of JIT per tool_calls call.
-- plpgsql keeps the plan for the session (a sql function is planned on every call).
LANGUAGE plpgsql STABLE ROWS 1
SET search_path = pg_catalog, pgctx, pg_temp
SET plan_cache_mode = force_generic_plan
SET jit = off
SET enable_seqscan = off AS $$
DECLARE
    part   text := of_conversation;
    source text;
BEGIN
    upto_seq := NULL;
    WHILE part IS NOT NULL LOOP
        SELECT c.base_seq, c.forked_from INTO after_seq, source
          FROM pgctx.conversations c WHERE c.conversation_id = part;
        EXIT WHEN NOT FOUND;
        conversation_id := part;
        RETURN NEXT;
        upto_seq := after_seq;
        part := source;
    END LOOP;
END
$$;

COMMENT ON FUNCTION pgctx.lineage(text) IS
    'Where a conversation''s history is stored: (conversation_id, after_seq, upto_seq) for itself and, for a branch, each source up to its fork point.';

-- Before 0015 the lineage's rows were passed to queries that joined them to the log
-- (lineage_parts): with two parts on two shards, Citus cannot plan that join (scaling.md).
DROP FUNCTION IF EXISTS pgctx.lineage_parts(text[], bigint[], bigint[]);

-- The events that decide some calls' status, wherever they lie in a history whose parts
-- (pgctx.lineage's rows, read by the caller in a statement of its own) are passed as arrays, each
-- part's range being after_seq+1..upto_seq (NULL: to its head): per call id, its first tool_call
-- up to `upto` (role 'call', with its payload), and with answers, per part, its latest
-- tool_result or status_query after that call up to `upto` (role 'answer': the caller takes the
-- newest; payload: only its outcome, request_id and error, since a result's payload can be large
-- and every copy of it costs) and its first tool_result after the call at any time (role
-- 'result', no payload: the caller takes the oldest). Each a
-- lookup by call id (events_call_id, "seq + 0": see the index comment above), so the cost grows
-- with the calls, not with the history, even when call ids repeat. One query of one conversation
-- per part and pass, so on Citus each goes to that part's shard (a branch's source may live on
-- another worker), where one query joining the parts to the log is refused ("Limit clause is
-- currently unsupported when a lateral subquery references a column from complex subqueries").
-- Reads only; the caller holds the snapshot (a STABLE function's statements see its caller's).
-- erased: whether the event's content was erased (190; what it keeps is in its payload, 030).
-- Before this revision call_events returned no erased column: that shape goes (its one caller,
-- tool_calls, is replaced below).
DO $$
BEGIN
    IF to_regprocedure('pgctx.call_events(text[], bigint[], bigint[], text[], bigint, boolean)') IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM pg_proc p
                        WHERE p.oid = to_regprocedure('pgctx.call_events(text[], bigint[], bigint[], text[], bigint, boolean)')
                          AND 'erased' = ANY (p.proargnames)) THEN
        DROP FUNCTION pgctx.call_events(text[], bigint[], bigint[], text[], bigint, boolean);
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgctx.call_events(ids text[], after_seqs bigint[], upto_seqs bigint[], call_ids text[],
                                             upto bigint DEFAULT NULL, answers boolean DEFAULT true)
RETURNS TABLE (call_id text, role text, seq bigint, kind text, payload jsonb, erased boolean)
-- Generic plans kept for the session, as tool_calls' (planning these lookups for each call's
-- values cost more than running them). Its callers turn JIT off and pin the search path.
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off AS $$
#variable_conflict use_column
DECLARE
    bound      bigint := coalesce(upto, 9223372036854775807);
    wanted     text[] := ARRAY(SELECT DISTINCT c FROM unnest(call_ids) AS c WHERE c IS NOT NULL);
    found_ids  text[] := '{}'::text[];
    found_seqs bigint[] := '{}'::bigint[];
    found_payloads jsonb[] := '{}'::jsonb[];
    found_erased   boolean[] := '{}'::boolean[];
BEGIN
    IF cardinality(wanted) = 0 THEN
        RETURN;
    END IF;
    -- 1. each call's first tool_call: the parts in seq order (lineage lists the conversation
    --    first, its sources after), a call found in one part not looked for in the next
    FOR i IN REVERSE coalesce(cardinality(ids), 0) .. 1 LOOP
        EXIT WHEN cardinality(found_ids) = cardinality(wanted);
        SELECT found_ids || coalesce(array_agg(t.id), '{}'), found_seqs || coalesce(array_agg(x.seq), '{}'),
               found_payloads || coalesce(array_agg(x.payload), '{}'),
               found_erased || coalesce(array_agg(x.erased_in IS NOT NULL), '{}')
          INTO found_ids, found_seqs, found_payloads, found_erased
          FROM unnest(wanted) AS t(id)
         CROSS JOIN LATERAL (SELECT e.seq, e.payload, e.erased_in FROM pgctx.events e
                              WHERE e.conversation_id = ids[i] AND e.kind = 'tool_call' AND e.payload->>'call_id' = t.id
                                AND e.seq > after_seqs[i] AND e.seq <= least(coalesce(upto_seqs[i], bound), bound)
                              ORDER BY e.seq + 0 LIMIT 1) x
         WHERE t.id <> ALL (found_ids);
    END LOOP;
    RETURN QUERY SELECT f.id, 'call'::text, f.seq, 'tool_call'::text, f.payload, f.erased
                   FROM unnest(found_ids, found_seqs, found_payloads, found_erased) AS f(id, seq, payload, erased);
    IF NOT answers OR cardinality(found_ids) = 0 THEN
        RETURN;
    END IF;
    -- 2. per part, after each call: its latest answer up to bound, and its first result ever
    FOR i IN 1 .. coalesce(cardinality(ids), 0) LOOP
        RETURN QUERY
            SELECT f.id, 'answer'::text, a.seq, a.kind,
                   jsonb_build_object('outcome', a.payload->'outcome', 'request_id', a.payload->'request_id',
                                      'error', a.payload->'error'),
                   a.erased_in IS NOT NULL
              FROM unnest(found_ids, found_seqs) AS f(id, seq)
             CROSS JOIN LATERAL (SELECT e.seq, e.kind, e.payload, e.erased_in FROM pgctx.events e
                                  WHERE e.conversation_id = ids[i] AND e.kind IN ('tool_result', 'status_query')
                                    AND e.payload->>'call_id' = f.id
                                    AND e.seq > greatest(after_seqs[i], f.seq)
                                    AND e.seq <= least(coalesce(upto_seqs[i], bound), bound)
                                  ORDER BY e.seq + 0 DESC LIMIT 1) a
            UNION ALL
            SELECT f.id, 'result'::text, r.seq, 'tool_result'::text, NULL::jsonb, NULL::boolean
              FROM unnest(found_ids, found_seqs) AS f(id, seq)
             CROSS JOIN LATERAL (SELECT e.seq FROM pgctx.events e
                                  WHERE e.conversation_id = ids[i] AND e.kind = 'tool_result'
                                    AND e.payload->>'call_id' = f.id
                                    AND e.seq > greatest(after_seqs[i], f.seq)
                                    AND e.seq <= coalesce(upto_seqs[i], 9223372036854775807)
                                  ORDER BY e.seq + 0 LIMIT 1) r;
    END LOOP;
END
$$;

COMMENT ON FUNCTION pgctx.call_events(text[], bigint[], bigint[], text[], bigint, boolean) IS
    'The events deciding some calls'' status across a history''s parts (pgctx.lineage''s rows as arrays): per call id its first tool_call up to upto (role call, its payload) and, with answers, per part its latest answer after it up to upto (role answer: outcome, request_id, error) and its first result ever (role result); erased: whether the call''s or answer''s content was erased. Lookups by call id, one single-conversation query per part.';

-- Before 0006 tool_calls returned no subject or arguments, and before this revision no
-- erased_seqs. Its row type changes, so an old function goes, and with it the two views built on
-- it (side_effects, conversation_status: 140 recreates them, 150 grants them again; a migration
-- re-applying every file runs both after this file). Only an old shape is dropped, so running
-- this file again changes nothing.
DO $$
BEGIN
    IF to_regprocedure('pgctx.tool_calls(text, bigint, bigint, text[])') IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM pg_proc p
                        WHERE p.oid = to_regprocedure('pgctx.tool_calls(text, bigint, bigint, text[])')
                          AND 'erased_seqs' = ANY (p.proargnames)) THEN
        DROP FUNCTION pgctx.tool_calls(text, bigint, bigint, text[]) CASCADE;
    END IF;
END
$$;

-- Every call made in from_seq+1..upto, or answered there, and the calls named in also_calls, with
-- their status as of upto. Calls and answers are looked up across the conversation's lineage.
-- An erased call or answer (190) is still one: its event keeps the call id, tool, effect and
-- idempotency key, or the outcome and request id (030), so the call and its status are derived as
-- before, with no arguments, subject or error; erased_seqs names which of call_seq and answer_seq
-- were erased (empty when neither), which a summary may not cite (PC119) and side_effects shows.
CREATE OR REPLACE FUNCTION pgctx.tool_calls(conversation_id text, from_seq bigint DEFAULT 0, upto bigint DEFAULT NULL,
                                            also_calls text[] DEFAULT '{}')
RETURNS TABLE (call_id text, tool text, effect text, idempotency_key text, call_seq bigint,
               result_seq bigint, answer_seq bigint, outcome text, request_id text, error text,
               status text, identifiers text[], subject text, arguments jsonb, erased_seqs bigint[])
-- plpgsql with a generic plan kept for the session: a fold calls this several times and
-- planning (~0.5 ms) cost more than running it; the plan is index lookups whatever the range.
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET plan_cache_mode = force_generic_plan
SET jit = off
SET enable_seqscan = off AS $$
#variable_conflict use_column
DECLARE
    part_ids   text[];
    part_after bigint[];
    part_upto  bigint[];
    bound      bigint := upto;
    touched    text[] := coalesce(also_calls, '{}');
    recovered  bigint := 0::bigint;
    ev_call    text[];
    ev_role    text[];
    ev_seq     bigint[];
    ev_kind    text[];
    ev_payload jsonb[];
    ev_erased  boolean[];
BEGIN
    -- Each read below is a statement of its own reading one conversation, the rows passed on: on
    -- Citus a branch's parts may live on different workers, a function that reads the tables
    -- called inside a query of them is nested distributed execution, and a query joining parts
    -- on two shards is refused (scaling.md). One snapshot still: a STABLE function's statements
    -- see its caller's.
    SELECT array_agg(l.conversation_id), array_agg(l.after_seq), array_agg(l.upto_seq)
      INTO part_ids, part_after, part_upto
      FROM pgctx.lineage(tool_calls.conversation_id) l;
    IF bound IS NULL THEN
        SELECT c.head_seq INTO bound FROM pgctx.conversations c WHERE c.conversation_id = tool_calls.conversation_id;
    END IF;
    -- A branch's sources' parts first (its source's events up to the fork point: on Citus perhaps
    -- on another worker), one statement per part: the calls the range from_seq+1..bound touched in
    -- each part (its own too: a call made on the source may be answered on the branch) and the
    -- newest recovery, then those calls' events in the sources, through call_events. The
    -- conversation's own part is read by the query below, a query of this one conversation: for a
    -- conversation that is not a branch, that query is all there is (index lookups, as before 0015).
    IF cardinality(part_ids) > 1 THEN
        FOR i IN 1 .. cardinality(part_ids) LOOP
            -- (by primary key into a materialized CTE, filtered by kind there: see the index comment above)
            WITH range AS MATERIALIZED (
                SELECT CASE WHEN r.kind IN ('tool_call', 'tool_result', 'status_query') THEN r.payload->>'call_id' END AS call_id
                  FROM pgctx.events r
                 WHERE r.conversation_id = part_ids[i]
                   AND r.seq > greatest(part_after[i], from_seq) AND r.seq <= least(coalesce(part_upto[i], bound), bound)
            )
            SELECT touched || ARRAY(SELECT DISTINCT r.call_id FROM range r WHERE r.call_id IS NOT NULL),
                   greatest(recovered, (SELECT max(r.seq) FROM pgctx.events r
                                         WHERE r.conversation_id = part_ids[i] AND r.kind = 'recovery'
                                           AND r.seq > part_after[i] AND r.seq <= least(coalesce(part_upto[i], bound), bound)))
              INTO touched, recovered;
        END LOOP;
        SELECT array_agg(x.call_id), array_agg(x.role), array_agg(x.seq), array_agg(x.kind), array_agg(x.payload),
               array_agg(x.erased)
          INTO ev_call, ev_role, ev_seq, ev_kind, ev_payload, ev_erased
          FROM pgctx.call_events(part_ids[2:], part_after[2:], part_upto[2:], touched, bound) x;
    END IF;
    RETURN QUERY
    WITH src AS MATERIALIZED (
        -- what the sources hold: each call's first tool_call there, and after it per part the latest
        -- answer up to bound and the first result
        SELECT * FROM unnest(ev_call, ev_role, ev_seq, ev_kind, ev_payload, ev_erased) AS x(call_id, role, seq, kind, payload, erased)
    ), range AS MATERIALIZED (
        -- the conversation's own part of the range, by primary key (filtered by kind below: see
        -- the index comment above)
        SELECT r.kind, r.payload FROM pgctx.events r
         WHERE r.conversation_id = tool_calls.conversation_id
           AND r.seq > greatest(part_after[1], from_seq) AND r.seq <= bound
    ), wanted AS (
        SELECT DISTINCT t.id
          FROM (SELECT r.payload->>'call_id' FROM range r
                 WHERE r.kind IN ('tool_call', 'tool_result', 'status_query') AND r.payload ? 'call_id'
                UNION ALL
                SELECT unnest(touched)) AS t(id)
         WHERE t.id IS NOT NULL
    ), recovery AS (
        SELECT greatest(recovered, (SELECT max(r.seq) FROM pgctx.events r
                                     WHERE r.conversation_id = tool_calls.conversation_id AND r.kind = 'recovery'
                                       AND r.seq > part_after[1] AND r.seq <= bound)) AS seq
    ), calls AS (
        -- each call by its id (events_call_id), wherever it lies in the history: the first
        SELECT t.id AS call_id, x.seq, x.payload, x.erased
          FROM wanted t
         CROSS JOIN LATERAL (SELECT s.seq, s.payload, s.erased FROM src s WHERE s.call_id = t.id AND s.role = 'call'
                             UNION ALL
                             (SELECT e.seq, e.payload, e.erased_in IS NOT NULL FROM pgctx.events e
                               WHERE e.conversation_id = tool_calls.conversation_id AND e.kind = 'tool_call'
                                 AND e.payload->>'call_id' = t.id AND e.seq > part_after[1] AND e.seq <= bound
                               ORDER BY e.seq + 0 LIMIT 1)
                             ORDER BY 1 LIMIT 1) x
    )
    SELECT c.payload->>'call_id',
           c.payload->>'tool',
           coalesce(c.payload->>'effect', reg.effect, 'write'),
           c.payload->>'idempotency_key',
           c.seq,
           res.seq,
           ans.seq,
           ans.payload->>'outcome',
           ans.payload->>'request_id',
           ans.payload->>'error',
           CASE
               WHEN ans.kind = 'tool_result' THEN
                   CASE ans.payload->>'outcome' WHEN 'succeeded' THEN 'succeeded' WHEN 'failed' THEN 'failed'
                                                WHEN 'cancelled' THEN 'cancelled' ELSE 'unknown' END
               WHEN ans.kind = 'status_query' THEN
                   CASE ans.payload->>'outcome' WHEN 'succeeded' THEN 'succeeded' WHEN 'failed' THEN 'failed'
                                                WHEN 'not_performed' THEN 'failed' ELSE 'unknown' END
               WHEN (SELECT v.seq FROM recovery v) > c.seq THEN 'unknown'
               ELSE 'running'
           END,
           ident.vals,
           ident.subject,
           CASE jsonb_typeof(c.payload->'arguments') WHEN 'object' THEN c.payload->'arguments' ELSE '{}' END,
           array_remove(ARRAY[CASE WHEN c.erased THEN c.seq END, CASE WHEN ans.erased THEN ans.seq END], NULL)
      FROM calls c
      LEFT JOIN pgctx.tools reg ON reg.tool = c.payload->>'tool'
     CROSS JOIN LATERAL (SELECT coalesce(array_agg(a.value #>> '{}' ORDER BY a.key), '{}') AS vals,
                                string_agg(a.key || '=' || (a.value #>> '{}'), ', ' ORDER BY a.key) AS subject
                           FROM jsonb_each(CASE jsonb_typeof(c.payload->'arguments') WHEN 'object'
                                                THEN c.payload->'arguments' ELSE '{}' END) AS a(key, value)
                          WHERE jsonb_typeof(a.value) IN ('string', 'number')
                            AND CASE WHEN cardinality(reg.identifier_args) > 0 THEN a.key = ANY (reg.identifier_args)
                                     ELSE a.key = 'id' OR a.key LIKE '%\_id' END) ident
      -- the latest answer up to bound (the conversation's own, else the sources' newest)
      LEFT JOIN LATERAL (SELECT x.seq, x.kind, x.payload, x.erased
                           FROM ((SELECT a.seq, a.kind, a.payload, a.erased_in IS NOT NULL AS erased FROM pgctx.events a
                                   WHERE a.conversation_id = tool_calls.conversation_id
                                     AND a.kind IN ('tool_result', 'status_query')
                                     AND a.payload->>'call_id' = c.call_id
                                     AND a.seq > greatest(part_after[1], c.seq) AND a.seq <= bound
                                   ORDER BY a.seq + 0 DESC LIMIT 1)
                                 UNION ALL
                                 SELECT s.seq, s.kind, s.payload, s.erased FROM src s WHERE s.call_id = c.call_id AND s.role = 'answer') x
                          ORDER BY x.seq DESC LIMIT 1) ans ON true
      -- the first result at any time (the sources' oldest, else the conversation's own)
      LEFT JOIN LATERAL (SELECT x.seq
                           FROM ((SELECT a.seq FROM pgctx.events a
                                   WHERE a.conversation_id = tool_calls.conversation_id AND a.kind = 'tool_result'
                                     AND a.payload->>'call_id' = c.call_id AND a.seq > greatest(part_after[1], c.seq)
                                   ORDER BY a.seq + 0 LIMIT 1)
                                 UNION ALL
                                 SELECT s.seq FROM src s WHERE s.call_id = c.call_id AND s.role = 'result') x
                          ORDER BY x.seq LIMIT 1) res ON true
     ORDER BY c.seq;
END
$$;

COMMENT ON FUNCTION pgctx.tool_calls(text, bigint, bigint, text[]) IS
    'Tool calls made or answered in from_seq+1..upto (plus also_calls) with their derived status (unknown, never guessed failed). result_seq: first result at any time (for boundary checks); identifiers and subject: the identifier arguments; arguments: all of them; erased_seqs: which of call_seq and answer_seq had their content erased (the call id, tool, effect, idempotency key, outcome and request id stay).';

-- Approvals requested by to_seq and not answered by then (events_approval: cost grows with the
-- number of approvals, not with the history).
CREATE OR REPLACE FUNCTION pgctx.open_approvals(conversation_id text, to_seq bigint)
RETURNS TABLE (approval_id text, seq bigint)
-- No SET clauses, so PostgreSQL inlines it into the query of its caller (must_keep, which turns
-- JIT off and pins the search path; everything here is schema-qualified): with them it was parsed,
-- planned and run as a query of its own on every call.
LANGUAGE sql STABLE AS $$
    SELECT r.payload->>'approval_id', r.seq
      FROM pgctx.events r
     WHERE r.conversation_id = open_approvals.conversation_id AND r.kind = 'approval'
       AND r.seq <= to_seq AND r.payload->>'status' = 'requested'
       AND NOT EXISTS (SELECT 1 FROM pgctx.events a
                        WHERE a.conversation_id = open_approvals.conversation_id AND a.kind = 'approval'
                          AND a.payload->>'approval_id' = r.payload->>'approval_id'
                          AND a.seq > r.seq AND a.seq <= to_seq
                          AND a.payload->>'status' IN ('granted', 'denied'))
     ORDER BY r.seq
$$;

COMMENT ON FUNCTION pgctx.open_approvals(text, bigint) IS
    'Approvals requested by to_seq and not granted or denied by then: pending actions a summary must keep (must_keep). Inlined into its caller''s query.';

-- The seq of the last clear at or before upto (0 if none): where a view or a fold starts over
-- (200). Here, not in 200: must_keep below calls it.
-- PL/pgSQL: a SQL function whose body has a FROM is not inlined as a scalar, and Citus cannot
-- plan a SQL function's parameters (scaling.md).
CREATE OR REPLACE FUNCTION pgctx.last_clear(conversation_id text, upto bigint) RETURNS bigint
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET enable_seqscan = off AS $$
BEGIN
    RETURN (SELECT coalesce(max(v.seq), 0) FROM pgctx.events v
         WHERE v.conversation_id = last_clear.conversation_id AND v.kind = 'clear' AND v.seq <= upto);
END
$$;

COMMENT ON FUNCTION pgctx.last_clear(text, bigint) IS
    'The seq of the conversation''s last clear event at or before upto (0 if none): where the working view and a fold start over (200).';

-- A fact event's subject as pgctx writes subjects ('name=value, ...', names in byte order, as
-- tool_calls writes a call's): a string as it is, an object {"name": value, ...} in that form
-- (pgctx.facts.subject_text is the same rule in Python), anything else none.
-- PL/pgSQL: a SQL function with a subquery is not inlined, and Citus cannot plan a non-inlined SQL
-- function's parameters (scaling.md); must_keep calls this on every fold.
CREATE OR REPLACE FUNCTION pgctx.subject_text(subject jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN CASE jsonb_typeof(subject)
               WHEN 'string' THEN subject #>> '{}'
               WHEN 'object' THEN (SELECT string_agg(p.k || '=' || CASE jsonb_typeof(p.v) WHEN 'string' THEN p.v #>> '{}'
                                                                    ELSE pgctx.canonical_text(p.v) END,
                                                     ', ' ORDER BY p.k COLLATE "C")
                                     FROM jsonb_each(subject) AS p(k, v))
           END;
END
$$;

COMMENT ON FUNCTION pgctx.subject_text(jsonb) IS
    'A fact event''s subject as pgctx writes subjects (''name=value, ...''): a string as it is, an object in that form, names in byte order.';

-- The text of a user, assistant or system event: its text, or, as chat APIs call it, a string
-- content (pgctx.messages.message_text is the same rule in Python); NULL for anything else.
CREATE OR REPLACE FUNCTION pgctx.message_text(kind text, payload jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN kind NOT IN ('user', 'assistant', 'system') THEN NULL
                WHEN jsonb_typeof(payload->'text') = 'string' THEN payload->>'text'
                WHEN jsonb_typeof(payload->'content') = 'string' THEN payload->>'content'
           END
$$;

COMMENT ON FUNCTION pgctx.message_text(text, jsonb) IS
    'The text of a user, assistant or system event: payload.text, else a string payload.content; NULL otherwise.';

-- A user message that is a bare acknowledgement ("ok", "thanks", "got it"): no request of its own, so
-- a summary need not keep it (must_keep below; the built-in summarizer skips what it lists).
CREATE OR REPLACE FUNCTION pgctx.acknowledgement(text text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT text ~* '^\W*(ok(ay)?|thanks?( you)?|thx|great|cool|nice|yes|no|sure|got it|perfect|fine|good)\W*$'
           OR btrim(text) = ''
$$;

COMMENT ON FUNCTION pgctx.acknowledgement(text) IS
    'Whether a user message is a bare acknowledgement (ok, thanks, yes, got it, ...) or empty: not a request a summary must keep.';

-- Before 0006 must_keep took no schema_version (it derived version 1's items).
DROP FUNCTION IF EXISTS pgctx.must_keep(text, bigint, bigint, jsonb);

-- What any summary of schema_version covering from_seq+1..to_seq must keep, as one JSON document
-- (also what the Python layer hands the summarizer model). With the previous summary it also
-- re-derives the calls that summary tracked (a running call the restart interrupted turns
-- unknown here): for version 1, those unresolved or writes with a request id, which stay
-- tracked; for version 2, all of them, which stay tracked while unresolved or within the
-- horizon (see the header). "collapsed" lists, for version 2, the resolved calls beyond it.
-- PL/pgSQL, one statement: Citus cannot plan a non-inlined SQL function's parameters.
-- Before this revision must_keep had no horizon (it was always 12 writes and 3 reads).
DROP FUNCTION IF EXISTS pgctx.must_keep(text, bigint, bigint, jsonb, integer);

CREATE OR REPLACE FUNCTION pgctx.must_keep(conversation_id text, from_seq bigint, to_seq bigint,
                                           previous jsonb DEFAULT NULL, schema_version integer DEFAULT 2,
                                           horizon integer DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET jit = off AS $$
#variable_conflict use_column
DECLARE
    cleared bigint := pgctx.last_clear(must_keep.conversation_id, to_seq);
    writes  integer := coalesce(horizon, 12);  -- NULL: the default horizon (and every checkpoint before it)
    said    jsonb;
BEGIN
    IF writes < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'PC122',
            MESSAGE = format('a fold horizon is a number of resolved calls to keep, at least 0, not %s', horizon);
    END IF;
    -- the range's events a summary takes content from: after the last clear, neither retracted
    -- (a retraction is folded with its event: 200) nor erased. Of them: the user's messages, of
    -- which the newest 12 that are not bare acknowledgements must be cited (PC120: as many as a
    -- summary's user_requests keep; with 3, ranges of many short requests left the older ones
    -- neither cited nor raw) and the
    -- acknowledgements need not be; and the newest fact or correction declared per key and subject
    -- (not the model's), which an active fact of the key must cite, or a later event (PC120).
    -- (A statement of its own: read with the calls below, it would be nested reads on Citus.)
    WITH viewed AS MATERIALIZED (
        SELECT e.seq, e.kind, e.payload,
               e.kind = 'user' AND pgctx.acknowledgement(coalesce(pgctx.message_text(e.kind, e.payload), '')) AS ack
          FROM pgctx.events e
         WHERE e.conversation_id = must_keep.conversation_id AND e.seq > greatest(from_seq, cleared)
           AND e.seq <= to_seq AND e.kind IN ('user', 'fact', 'correction') AND e.erased_in IS NULL
           AND NOT EXISTS (SELECT 1 FROM pgctx.events r
                            WHERE r.conversation_id = must_keep.conversation_id AND r.kind = 'retraction'
                              AND r.seq > e.seq AND r.seq <= to_seq AND (r.payload->>'seq')::bigint = e.seq)
    )
    SELECT jsonb_build_object(
        'requests', coalesce((SELECT jsonb_agg(u.seq ORDER BY u.seq)
                                FROM (SELECT v.seq FROM viewed v WHERE v.kind = 'user' AND NOT v.ack
                                       ORDER BY v.seq DESC LIMIT 12) u), '[]'),
        'acknowledgements', coalesce((SELECT jsonb_agg(v.seq ORDER BY v.seq) FROM viewed v
                                       WHERE v.kind = 'user' AND v.ack), '[]'),
        'facts', coalesce((
            SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object('key', d.k, 'subject', d.subj, 'seq', d.seq))
                             ORDER BY d.seq)
              FROM (SELECT DISTINCT ON (v.payload->>'key', pgctx.subject_text(v.payload->'subject'))
                           v.seq, v.payload->>'key' AS k, pgctx.subject_text(v.payload->'subject') AS subj
                      FROM viewed v
                     WHERE v.kind IN ('fact', 'correction') AND v.payload ? 'key' AND v.payload ? 'value'
                       AND coalesce(v.payload->>'authority', 'user') <> 'model'
                       AND coalesce(v.payload->>'confidence', 'confirmed') NOT IN ('inferred', 'unknown')
                     ORDER BY v.payload->>'key', pgctx.subject_text(v.payload->'subject'), v.seq DESC) d), '[]'))
      INTO said;
    RETURN (
        WITH reset AS (
            -- a clear in the range: the summary starts over after it (200), and approvals asked
            -- before the last clear are not the view's any more
            SELECT cleared AS at
        ), carried AS (
            SELECT coalesce(array_agg(t.k), '{}') AS ids
              FROM reset, jsonb_each(coalesce((CASE WHEN reset.at <= from_seq THEN previous END)->'tool_state', '{}')) AS t(k, v)
             WHERE schema_version >= 2
                OR t.v->>'status' IN ('running', 'unknown')
                OR (t.v->>'effect' <> 'read' AND t.v->>'request_id' IS NOT NULL)
        ), derived AS MATERIALIZED (
            SELECT t.*, t.status IN ('planned', 'running', 'unknown') AS unresolved
              FROM reset, carried, pgctx.tool_calls(must_keep.conversation_id, greatest(from_seq, reset.at), to_seq, carried.ids) t
        ), calls AS MATERIALIZED (
            -- kept: unresolved, or within the horizon (version 2), or any (version 1)
            SELECT d.*, (schema_version < 2 OR d.unresolved
                         OR row_number() OVER (PARTITION BY d.unresolved, d.effect = 'read' ORDER BY d.call_seq DESC)
                            <= CASE WHEN d.effect = 'read' THEN writes / 4 ELSE writes END) AS kept
              FROM derived d
        )
        SELECT jsonb_build_object(
            'omitted_event_range', jsonb_build_object('from', 1, 'to', to_seq),
            'last_event_id', to_seq,
            'tool_calls', coalesce((
                SELECT jsonb_object_agg(t.call_id, jsonb_strip_nulls(jsonb_build_object(
                           'tool', t.tool, 'status', t.status, 'effect', t.effect,
                           'idempotency_key', t.idempotency_key, 'request_id', t.request_id, 'error', t.error,
                           'call_seq', t.call_seq, 'answer_seq', t.answer_seq, 'result_seq', t.result_seq,
                           'subject', CASE WHEN schema_version >= 2 THEN t.subject END,
                           'erased', CASE WHEN cardinality(t.erased_seqs) > 0 THEN to_jsonb(t.erased_seqs) END)))
                  FROM calls t WHERE t.kept), '{}'),
            'identifiers', coalesce((
                SELECT jsonb_agg(DISTINCT i) FROM reset, calls t, unnest(t.identifiers) i
                 WHERE t.kept AND t.call_seq > greatest(from_seq, reset.at)), '[]'),
            'open_approvals', coalesce((
                SELECT jsonb_agg(jsonb_build_object('approval_id', a.approval_id, 'seq', a.seq) ORDER BY a.seq)
                  FROM reset, pgctx.open_approvals(must_keep.conversation_id, to_seq) a WHERE a.seq > reset.at), '[]')
        ) || said || CASE WHEN schema_version >= 2 THEN jsonb_build_object('collapsed', coalesce((
                SELECT jsonb_object_agg(t.call_id, jsonb_strip_nulls(jsonb_build_object(
                           'tool', t.tool, 'status', t.status, 'effect', t.effect, 'request_id', t.request_id,
                           'call_seq', t.call_seq, 'answer_seq', t.answer_seq, 'subject', t.subject,
                           'erased', CASE WHEN cardinality(t.erased_seqs) > 0 THEN to_jsonb(t.erased_seqs) END)))
                  FROM calls t
                 -- a resolved call whose every event was erased leaves nothing to cite: it is not
                 -- collapsed into an action (side_effects still lists it)
                 WHERE NOT t.kept
                   AND NOT (t.call_seq = ANY (t.erased_seqs)
                            AND (t.answer_seq IS NULL OR t.answer_seq = ANY (t.erased_seqs)))), '{}'))
             ELSE '{}'::jsonb END);
END
$$;

COMMENT ON FUNCTION pgctx.must_keep(text, bigint, bigint, jsonb, integer, integer) IS
    'What a summary of schema_version covering from_seq+1..to_seq, continuing from previous, must keep (article 七.2): tool call states, identifiers, open approvals, omitted range; for version 2 also the calls collapsed beyond the horizon (resolved writes kept in full, NULL: 12; reads: a quarter as many).';
