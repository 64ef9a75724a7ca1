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
SET jit = off AS $$
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

-- Rows of pgctx.lineage read before a query and passed into it as arrays (a function that reads
-- the tables, called inside a query of them, is nested distributed execution on Citus). ROWS 1,
-- as lineage: unnest's estimate (100) gave tool_calls and context_events plans that scanned the
-- log (bench/ab.py context: 1.29x). PL/pgSQL, so the estimate holds: a SQL function would be
-- inlined, estimate and all. Reads no table: on Citus it is an immutable table expression.
CREATE OR REPLACE FUNCTION pgctx.lineage_parts(ids text[], after_seqs bigint[], upto_seqs bigint[])
RETURNS TABLE (conversation_id text, after_seq bigint, upto_seq bigint)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 1 AS $$
BEGIN
    RETURN QUERY SELECT * FROM unnest(ids, after_seqs, upto_seqs);
END
$$;

COMMENT ON FUNCTION pgctx.lineage_parts(text[], bigint[], bigint[]) IS
    'Rows of pgctx.lineage read earlier and passed in as arrays, as a table a query can join (reading the lineage inside that query would be nested distributed execution on Citus); ROWS 1 keeps the plans on index lookups.';

-- Before 0006 tool_calls returned no subject or arguments. Its row type changes, so the old function goes,
-- and with it the two views built on it (side_effects, conversation_status: 140 recreates them,
-- 150 grants them again; migration 0006 runs both after this file). Only that old shape is
-- dropped, so running this file again changes nothing.
DO $$
BEGIN
    IF to_regprocedure('pgctx.tool_calls(text, bigint, bigint, text[])') IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM pg_proc p
                        WHERE p.oid = to_regprocedure('pgctx.tool_calls(text, bigint, bigint, text[])')
                          AND 'arguments' = ANY (p.proargnames)) THEN
        DROP FUNCTION pgctx.tool_calls(text, bigint, bigint, text[]) CASCADE;
    END IF;
END
$$;

-- Every call made in from_seq+1..upto, or answered there, and the calls named in also_calls, with
-- their status as of upto. Calls and answers are looked up across the conversation's lineage.
CREATE OR REPLACE FUNCTION pgctx.tool_calls(conversation_id text, from_seq bigint DEFAULT 0, upto bigint DEFAULT NULL,
                                            also_calls text[] DEFAULT '{}')
RETURNS TABLE (call_id text, tool text, effect text, idempotency_key text, call_seq bigint,
               result_seq bigint, answer_seq bigint, outcome text, request_id text, error text,
               status text, identifiers text[], subject text, arguments jsonb)
-- plpgsql with a generic plan kept for the session: a fold calls this several times and
-- planning (~0.5 ms) cost more than running it; the plan is index lookups whatever the range.
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET plan_cache_mode = force_generic_plan
SET jit = off AS $$
#variable_conflict use_column
DECLARE
    part_ids   text[];
    part_after bigint[];
    part_upto  bigint[];
BEGIN
    -- the lineage in a statement of its own, its rows passed to the query below: a function that
    -- reads the tables, called inside a query of them, is nested distributed execution on Citus
    SELECT array_agg(l.conversation_id), array_agg(l.after_seq), array_agg(l.upto_seq)
      INTO part_ids, part_after, part_upto
      FROM pgctx.lineage(tool_calls.conversation_id) l;
    -- Every read of the log below also names the lineage's ids (= ANY (part_ids)), which the
    -- planner sees as constants: on Citus a query whose reads of the distributed tables are all
    -- filtered to one shard is routed whole to it (for a conversation that is not a branch, its
    -- own); joined by p.cid alone it is a join Citus cannot push down ("cannot push down this
    -- subquery"). On one server the condition is redundant with p.cid (an index condition).
    RETURN QUERY
    WITH bounds AS MATERIALIZED (
        SELECT coalesce(upto, (SELECT c.head_seq FROM pgctx.conversations c
                                WHERE c.conversation_id = tool_calls.conversation_id)) AS upto
    ), stored AS MATERIALIZED (
        SELECT * FROM pgctx.lineage_parts(part_ids, part_after, part_upto)
    ), parts AS MATERIALIZED (
        -- the stored parts of the history up to upto: (conversation, after, through)
        SELECT l.conversation_id AS cid, l.after_seq AS lo, least(coalesce(l.upto_seq, b.upto), b.upto) AS hi
          FROM stored l, bounds b
    ), range AS MATERIALIZED (
        -- the range itself, by primary key (one index range scan per stored part)
        SELECT e.kind, e.payload
          FROM parts p
          JOIN pgctx.events e ON e.conversation_id = p.cid AND e.conversation_id = ANY (part_ids)
               AND e.seq > greatest(p.lo, from_seq) AND e.seq <= p.hi
    ), touched AS (
        SELECT DISTINCT r.payload->>'call_id' AS call_id
          FROM range r
         WHERE r.kind IN ('tool_call', 'tool_result', 'status_query') AND r.payload ? 'call_id'
        UNION
        SELECT unnest(also_calls)
    ), calls AS (
        -- each call by its id (events_call_id), wherever it lies in the history
        SELECT c.seq, c.payload
          FROM touched t
         CROSS JOIN LATERAL (SELECT x.seq, x.payload
                               FROM parts p
                              CROSS JOIN LATERAL (SELECT e.seq, e.payload FROM pgctx.events e
                                                   WHERE e.conversation_id = p.cid AND e.conversation_id = ANY (part_ids)
                                                     AND e.kind = 'tool_call'
                                                     AND e.payload->>'call_id' = t.call_id
                                                     AND e.seq > p.lo AND e.seq <= p.hi
                                                   ORDER BY e.seq + 0 LIMIT 1) x
                              ORDER BY x.seq LIMIT 1) c
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
               WHEN EXISTS (SELECT 1 FROM parts p
                             CROSS JOIN LATERAL (SELECT 1 FROM pgctx.events r
                                                  WHERE r.conversation_id = p.cid AND r.conversation_id = ANY (part_ids)
                                                    AND r.kind = 'recovery'
                                                    AND r.seq > greatest(p.lo, c.seq) AND r.seq <= p.hi
                                                  LIMIT 1) x) THEN 'unknown'
               ELSE 'running'
           END,
           ident.vals,
           ident.subject,
           CASE jsonb_typeof(c.payload->'arguments') WHEN 'object' THEN c.payload->'arguments' ELSE '{}' END
      FROM calls c
      LEFT JOIN pgctx.tools reg ON reg.tool = c.payload->>'tool'
     CROSS JOIN LATERAL (SELECT coalesce(array_agg(a.value #>> '{}' ORDER BY a.key), '{}') AS vals,
                                string_agg(a.key || '=' || (a.value #>> '{}'), ', ' ORDER BY a.key) AS subject
                           FROM jsonb_each(CASE jsonb_typeof(c.payload->'arguments') WHEN 'object'
                                                THEN c.payload->'arguments' ELSE '{}' END) AS a(key, value)
                          WHERE jsonb_typeof(a.value) IN ('string', 'number')
                            AND CASE WHEN cardinality(reg.identifier_args) > 0 THEN a.key = ANY (reg.identifier_args)
                                     ELSE a.key = 'id' OR a.key LIKE '%\_id' END) ident
      LEFT JOIN LATERAL (SELECT x.seq, x.kind, x.payload
                           FROM parts p
                          CROSS JOIN LATERAL (SELECT a.seq, a.kind, a.payload FROM pgctx.events a
                                               WHERE a.conversation_id = p.cid AND a.conversation_id = ANY (part_ids)
                                                 AND a.kind IN ('tool_result', 'status_query')
                                                 AND a.payload->>'call_id' = c.payload->>'call_id'
                                                 AND a.seq > greatest(p.lo, c.seq) AND a.seq <= p.hi
                                               ORDER BY a.seq + 0 DESC LIMIT 1) x
                          ORDER BY x.seq DESC LIMIT 1) ans ON true
      LEFT JOIN LATERAL (SELECT x.seq
                           FROM stored p
                          CROSS JOIN LATERAL (SELECT a.seq FROM pgctx.events a
                                               WHERE a.conversation_id = p.conversation_id AND a.conversation_id = ANY (part_ids)
                                                 AND a.kind = 'tool_result'
                                                 AND a.payload->>'call_id' = c.payload->>'call_id'
                                                 AND a.seq > greatest(p.after_seq, c.seq)
                                                 AND a.seq <= coalesce(p.upto_seq, 9223372036854775807)
                                               ORDER BY a.seq + 0 LIMIT 1) x
                          ORDER BY x.seq LIMIT 1) res ON true
     ORDER BY c.seq;
END
$$;

COMMENT ON FUNCTION pgctx.tool_calls(text, bigint, bigint, text[]) IS
    'Tool calls made or answered in from_seq+1..upto (plus also_calls) with their derived status (unknown, never guessed failed). result_seq: first result at any time (for boundary checks); identifiers and subject: the identifier arguments; arguments: all of them.';

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
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
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
    -- which the newest three that are not bare acknowledgements must be cited (PC120) and the
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
                                       ORDER BY v.seq DESC LIMIT 3) u), '[]'),
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
                           'subject', CASE WHEN schema_version >= 2 THEN t.subject END)))
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
                           'call_seq', t.call_seq, 'answer_seq', t.answer_seq, 'subject', t.subject)))
                  FROM calls t WHERE NOT t.kept), '{}'))
             ELSE '{}'::jsonb END);
END
$$;

COMMENT ON FUNCTION pgctx.must_keep(text, bigint, bigint, jsonb, integer, integer) IS
    'What a summary of schema_version covering from_seq+1..to_seq, continuing from previous, must keep (article 七.2): tool call states, identifiers, open approvals, omitted range; for version 2 also the calls collapsed beyond the horizon (resolved writes kept in full, NULL: 12; reads: a quarter as many).';
