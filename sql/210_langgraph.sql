-- 210: LangGraph threads on the event log (pgctx.integrations.langgraph, the PgctxSaver).
--
-- Invariants enforced here:
--   * A LangGraph thread is one conversation (conversation_id = thread_id) and every checkpoint
--     namespace of it lives in that conversation (payload ns). What the saver stores is events
--     appended by the ordinary paths, so the chain, tenancy, verify, digests, bundles, erasure and
--     the DBA views cover LangGraph threads as they cover every conversation:
--       lg_checkpoint  {ns, checkpoint_id, parent_id, checkpoint, metadata, channels}: one per put;
--                      channels maps each channel to a record {[at][, base][, add][, drop]}
--                      (at: its whole value; base, add, drop: a delta of messages; {}: empty);
--       lg_channel     {ns, channel, type, data}: one channel value, written only when it changed;
--       lg_writes      {ns, checkpoint_id, task_id, task_path, writes}: one per put_writes; a
--                      write [idx, channel, type, data] of messages has type lg:message(s) and
--                      data the refs of the message events appended with it;
--       lg_delete      a tombstone (the log keeps what it hides): {scope: 'thread'} (delete_thread,
--                      prune 'delete'), {scope: 'all_but', keep: [{ns, checkpoint_id}]} (prune
--                      'keep_latest') or {scope: 'checkpoints', checkpoints: [{ns, checkpoint_id}]}
--                      (delete_for_runs); it covers the events before it;
--       lg_message     a message of a channel that is not a user/assistant/system/tool message
--                      (those are ordinary user, assistant, tool_call, tool_result, system events).
--   * References in a record are seqs of the same conversation: a negative number is relative to
--     the seq of the event holding the record (what a put writes in the same batch), a positive one
--     absolute. pgctx.langgraph_ref resolves them; nothing else interprets a record in SQL.
--   * Which checkpoints are live is decided here, for the saver and for psql alike: an
--     lg_checkpoint event is live when it is the newest event for its (ns, checkpoint_id) (a put
--     of the same id again replaces it), it is not erased (pgctx.erase: its content is gone) and
--     no lg_delete event after it covers it. Pending writes count when no such tombstone follows
--     them (an erased write has no checkpoint id left to be found by). Every read of the
--     saver goes through pgctx.langgraph_thread_checkpoints (the rule of the view
--     pgctx.langgraph_checkpoints, per thread) and pgctx.langgraph_writes.
--   * Cost: a read finds its checkpoint and writes through events_langgraph (an index over these
--     kinds only, so other appends pay one predicate) and its tombstones through
--     events_langgraph_delete; a record's chain is walked by primary key (langgraph_parts).

INSERT INTO pgctx.event_kinds (kind, description) VALUES
    ('lg_checkpoint', 'a LangGraph checkpoint: {ns, checkpoint_id, parent_id, checkpoint, metadata, channels} (pgctx.integrations.langgraph)'),
    ('lg_channel',    'a LangGraph channel value, serialized by the saver''s serde: {ns, channel, type, data}'),
    ('lg_writes',     'LangGraph pending writes of one task: {ns, checkpoint_id, task_id, task_path, writes}'),
    ('lg_delete',     'LangGraph checkpoints deleted (delete_thread, prune, delete_for_runs): a tombstone every read honours'),
    ('lg_message',    'a LangGraph message that is not a user, assistant, system or tool message: {lg}')
ON CONFLICT (kind) DO UPDATE SET description = excluded.description;

CREATE INDEX IF NOT EXISTS events_langgraph ON pgctx.events
    (conversation_id, (payload->>'ns'), (payload->>'checkpoint_id') COLLATE "C", seq)
    WHERE kind IN ('lg_checkpoint', 'lg_writes');
CREATE INDEX IF NOT EXISTS events_langgraph_delete ON pgctx.events (conversation_id, seq) WHERE kind = 'lg_delete';
-- the folding helper finds the seq of each message of a graph's state by its id
CREATE INDEX IF NOT EXISTS events_langgraph_message ON pgctx.events (conversation_id, (payload->'lg'->>'id'))
    WHERE payload ? 'lg';
-- delete_for_runs names runs, not threads
CREATE INDEX IF NOT EXISTS events_langgraph_run ON pgctx.events ((payload->'metadata'->>'run_id'))
    WHERE kind = 'lg_checkpoint';

CREATE OR REPLACE FUNCTION pgctx.langgraph_ref(holder bigint, ref jsonb) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN ref::bigint < 0 THEN holder + ref::bigint ELSE ref::bigint END
$$;

COMMENT ON FUNCTION pgctx.langgraph_ref(bigint, jsonb) IS
    'The seq a LangGraph record''s reference names: negative = relative to the holding event''s seq, positive = absolute.';

-- The seq of the newest tombstone covering (ns, checkpoint_id) in a thread, 0 if none.
-- PL/pgSQL: a SQL function whose body has a FROM is not inlined as a scalar, and Citus cannot
-- plan a SQL function's parameters (scaling.md).
CREATE OR REPLACE FUNCTION pgctx.langgraph_deleted_at(thread_id text, ns text, checkpoint_id text) RETURNS bigint
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
    RETURN (SELECT coalesce(max(t.seq), 0) FROM pgctx.events t
         WHERE t.conversation_id = thread_id AND t.kind = 'lg_delete'
           AND CASE t.payload->>'scope'
                   WHEN 'thread' THEN true
                   WHEN 'all_but' THEN NOT t.payload->'keep' @> jsonb_build_array(jsonb_build_object('ns', ns, 'checkpoint_id', checkpoint_id))
                   ELSE t.payload->'checkpoints' @> jsonb_build_array(jsonb_build_object('ns', ns, 'checkpoint_id', checkpoint_id))
               END);
END
$$;

COMMENT ON FUNCTION pgctx.langgraph_deleted_at(text, text, text) IS
    'The seq of the newest lg_delete tombstone covering a LangGraph checkpoint (0: none).';

-- Every lg_checkpoint event with whether it is live (and, if not, why): the saver reads the live
-- ones; a DBA sees deleted and replaced ones too.
CREATE OR REPLACE VIEW pgctx.langgraph_checkpoints WITH (security_invoker = true) AS
SELECT e.conversation_id AS thread_id,
       e.payload->>'ns' AS checkpoint_ns,
       (e.payload->>'checkpoint_id') COLLATE "C" AS checkpoint_id,  -- uuid6 ids: byte order is time order
       e.payload->>'parent_id' AS parent_checkpoint_id,
       e.seq,
       e.payload->'metadata'->>'run_id' AS run_id,
       e.payload->'metadata'->>'source' AS source,
       (e.payload->'metadata'->>'step')::bigint AS step,
       e.created_at,
       d.deleted_in,
       n.replaced_in,
       e.erased_in,
       d.deleted_in IS NULL AND n.replaced_in IS NULL AND e.erased_in IS NULL AS live,
       e.payload
  FROM pgctx.events e
 CROSS JOIN LATERAL (SELECT nullif(pgctx.langgraph_deleted_at(e.conversation_id, e.payload->>'ns',
                                                              e.payload->>'checkpoint_id'), 0)) AS t(at)
 CROSS JOIN LATERAL (SELECT CASE WHEN t.at > e.seq THEN t.at END) AS d(deleted_in)
 CROSS JOIN LATERAL (SELECT min(r.seq) FROM pgctx.events r
                      WHERE r.conversation_id = e.conversation_id AND r.kind = 'lg_checkpoint'
                        AND r.payload->>'ns' = e.payload->>'ns'
                        AND (r.payload->>'checkpoint_id') COLLATE "C" = (e.payload->>'checkpoint_id') COLLATE "C"
                        AND r.seq > e.seq) AS n(replaced_in)
 WHERE e.kind = 'lg_checkpoint';

COMMENT ON VIEW pgctx.langgraph_checkpoints IS
    'Every LangGraph checkpoint stored in pgctx: thread, namespace, id, parent, run, step, and whether it is live (deleted_in: the tombstone of delete_thread/prune/delete_for_runs; replaced_in: a later put of the same id; erased_in: the erasure that removed it).';

-- A thread's checkpoints as pgctx.langgraph_checkpoints shows them (live, or why not), for the
-- saver's reads: the thread's tombstones first, then its lg_checkpoint events, each in a
-- statement reading this one conversation. On Citus each is routed to the thread's shard, where
-- the view, calling langgraph_deleted_at per row inside its read of the log, is nested
-- distributed execution there (docs/scaling.md). Filters: a namespace, a checkpoint id, ids
-- before one, metadata containing a document, run ids; live_only (the default) leaves out what
-- is deleted, replaced or erased. Newest first (checkpoint_id, byte order: uuid6 ids are time
-- ordered), at most `newest` rows (NULL: all) per namespace: without ns, namespace after
-- namespace (by name), each newest first (a caller wanting one order across them sorts). A
-- namespace's read walks events_langgraph backwards and stops at `newest` (a generic plan kept
-- for the session: custom plans of this query cost more to plan than to run).
CREATE OR REPLACE FUNCTION pgctx.langgraph_thread_checkpoints(thread_id text, ns text DEFAULT NULL, checkpoint text DEFAULT NULL,
                                                   before text DEFAULT NULL, metadata jsonb DEFAULT NULL,
                                                   run_ids text[] DEFAULT NULL, newest integer DEFAULT NULL,
                                                   live_only boolean DEFAULT true)
RETURNS TABLE (checkpoint_ns text, checkpoint_id text, parent_checkpoint_id text, seq bigint, run_id text,
               source text, step bigint, created_at timestamptz, deleted_in bigint, replaced_in bigint,
               erased_in bigint, live boolean, payload jsonb)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET plan_cache_mode = force_generic_plan
SET jit = off AS $$
#variable_conflict use_column
DECLARE
    tomb_seqs     bigint[];
    tomb_payloads jsonb[];
    space         text;
BEGIN
    IF ns IS NULL THEN
        -- namespace by namespace (the query below, with its namespace an index condition in the
        -- plan kept for the session, walks events_langgraph newest first and stops at `newest`)
        -- (an erased checkpoint has no namespace left: pgctx.langgraph_checkpoints still lists it)
        FOR space IN SELECT DISTINCT e.payload->>'ns' FROM pgctx.events e
                      WHERE e.conversation_id = langgraph_thread_checkpoints.thread_id AND e.kind = 'lg_checkpoint'
                        AND e.payload->>'ns' IS NOT NULL
                      ORDER BY 1 LOOP
            RETURN QUERY SELECT * FROM pgctx.langgraph_thread_checkpoints(thread_id, space, checkpoint, before, metadata,
                                                                         run_ids, newest, live_only);
        END LOOP;
        RETURN;
    END IF;
    SELECT array_agg(t.seq), array_agg(t.payload) INTO tomb_seqs, tomb_payloads
      FROM pgctx.events t
     WHERE t.conversation_id = langgraph_thread_checkpoints.thread_id AND t.kind = 'lg_delete';
    RETURN QUERY
    SELECT x.checkpoint_ns, x.checkpoint_id, x.parent_checkpoint_id, x.seq, x.run_id, x.source, x.step, x.created_at,
           x.deleted_in, x.replaced_in, x.erased_in, x.live, x.payload
      FROM (SELECT e.payload->>'ns' AS checkpoint_ns,
                   (e.payload->>'checkpoint_id') COLLATE "C" AS checkpoint_id,
                   e.payload->>'parent_id' AS parent_checkpoint_id,
                   e.seq, e.payload->'metadata'->>'run_id' AS run_id, e.payload->'metadata'->>'source' AS source,
                   (e.payload->'metadata'->>'step')::bigint AS step, e.created_at,
                   d.deleted_in, n.replaced_in, e.erased_in,
                   d.deleted_in IS NULL AND n.replaced_in IS NULL AND e.erased_in IS NULL AS live,
                   e.payload
              FROM pgctx.events e
             -- the newest tombstone after it that covers it (as langgraph_deleted_at, on the rows read above)
             CROSS JOIN LATERAL (SELECT max(t.seq) FROM unnest(tomb_seqs, tomb_payloads) AS t(seq, payload)
                                  WHERE t.seq > e.seq
                                    AND CASE t.payload->>'scope'
                                            WHEN 'thread' THEN true
                                            WHEN 'all_but' THEN NOT t.payload->'keep' @> jsonb_build_array(jsonb_build_object(
                                                'ns', e.payload->>'ns', 'checkpoint_id', e.payload->>'checkpoint_id'))
                                            ELSE t.payload->'checkpoints' @> jsonb_build_array(jsonb_build_object(
                                                'ns', e.payload->>'ns', 'checkpoint_id', e.payload->>'checkpoint_id'))
                                        END) AS d(deleted_in)
             CROSS JOIN LATERAL (SELECT min(r.seq) FROM pgctx.events r
                                  WHERE r.conversation_id = langgraph_thread_checkpoints.thread_id
                                    AND r.kind = 'lg_checkpoint'
                                    AND r.payload->>'ns' = e.payload->>'ns'
                                    AND (r.payload->>'checkpoint_id') COLLATE "C" = (e.payload->>'checkpoint_id') COLLATE "C"
                                    AND r.seq > e.seq) AS n(replaced_in)
             WHERE e.conversation_id = langgraph_thread_checkpoints.thread_id AND e.kind = 'lg_checkpoint'
               AND e.payload->>'ns' = langgraph_thread_checkpoints.ns
               AND (langgraph_thread_checkpoints.checkpoint IS NULL
                    OR (e.payload->>'checkpoint_id') COLLATE "C" = langgraph_thread_checkpoints.checkpoint COLLATE "C")
               AND (langgraph_thread_checkpoints.before IS NULL
                    OR (e.payload->>'checkpoint_id') COLLATE "C" < langgraph_thread_checkpoints.before COLLATE "C")
               AND (langgraph_thread_checkpoints.metadata IS NULL
                    OR e.payload->'metadata' @> langgraph_thread_checkpoints.metadata)
               AND (langgraph_thread_checkpoints.run_ids IS NULL
                    OR e.payload->'metadata'->>'run_id' = ANY (langgraph_thread_checkpoints.run_ids))) x
     WHERE x.live OR NOT live_only
     ORDER BY x.checkpoint_id DESC, x.checkpoint_ns
     LIMIT newest;
END
$$;

COMMENT ON FUNCTION pgctx.langgraph_thread_checkpoints(text, text, text, text, jsonb, text[], integer, boolean) IS
    'One LangGraph thread''s checkpoints as pgctx.langgraph_checkpoints shows them (live by default), per namespace newest first (without ns: namespace after namespace), optionally of one id, ids before one, metadata containing a document, some runs, at most newest per namespace: the saver''s reads, one conversation per statement (routed to its shard on Citus).';

-- The pending writes of a checkpoint that count (no tombstone after them), oldest first (part
-- 'writes'), and the message events they name (part 'message': a write of messages appends them
-- as message events and names them, as a checkpoint's delta does).
-- PL/pgSQL, the tombstone read first (in the query it would be nested distributed execution on
-- Citus, and Citus cannot plan a SQL function's parameters when it reads a distributed table).
DROP FUNCTION IF EXISTS pgctx.langgraph_writes(text, text, text);
CREATE FUNCTION pgctx.langgraph_writes(thread_id text, ns text, checkpoint_id text)
RETURNS TABLE (part text, seq bigint, payload jsonb)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp AS $$
#variable_conflict use_column
DECLARE
    deleted bigint := pgctx.langgraph_deleted_at(thread_id, ns, checkpoint_id);
BEGIN
    RETURN QUERY
    WITH w AS MATERIALIZED (
        SELECT w.seq, w.payload FROM pgctx.events w
         WHERE w.conversation_id = langgraph_writes.thread_id AND w.kind = 'lg_writes'
           AND w.payload->>'ns' = langgraph_writes.ns
           AND (w.payload->>'checkpoint_id') COLLATE "C" = langgraph_writes.checkpoint_id COLLATE "C"
           AND w.seq > deleted
    )
    SELECT 'writes'::text, w.seq, w.payload FROM w
    UNION ALL
    SELECT 'message'::text, e.seq, e.payload
      FROM w
     CROSS JOIN LATERAL jsonb_array_elements(w.payload->'writes') AS x(write)
     CROSS JOIN LATERAL jsonb_array_elements(x.write->3) AS r(ref)
      JOIN pgctx.events e ON e.conversation_id = langgraph_writes.thread_id AND e.seq = pgctx.langgraph_ref(w.seq, r.ref)
     WHERE x.write->>2 IN ('lg:message', 'lg:messages')
     ORDER BY 2;
END
$$;

COMMENT ON FUNCTION pgctx.langgraph_writes(text, text, text) IS
    'The pending writes (lg_writes events) of a LangGraph checkpoint that no tombstone covers, oldest first, and the message events they name.';

-- Everything a checkpoint's channel values are rebuilt from: each channel's record chain (the
-- record, then its base's, ...: depth 0 is the checkpoint's own) and the events the records name
-- (part 'value': an lg_channel; part 'message': a message event of a delta).
-- PL/pgSQL: Citus cannot plan a SQL function's parameters when it reads a distributed table; every
-- read names the thread, so the query is routed to its shard. (Before 0015 LANGUAGE sql.)
CREATE OR REPLACE FUNCTION pgctx.langgraph_parts(thread_id text, checkpoint_seq bigint)
RETURNS TABLE (channel text, part text, depth integer, seq bigint, payload jsonb)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH RECURSIVE chain (channel, depth, holder, rec) AS (
        SELECT c.key, 0, k.seq, c.value
          FROM pgctx.events k, jsonb_each(k.payload->'channels') AS c
         WHERE k.conversation_id = langgraph_parts.thread_id AND k.seq = checkpoint_seq AND k.kind = 'lg_checkpoint'
        UNION ALL
        SELECT ch.channel, ch.depth + 1, b.seq, b.payload->'channels'->ch.channel
          FROM chain ch
          JOIN pgctx.events b ON b.conversation_id = langgraph_parts.thread_id
                             AND b.seq = pgctx.langgraph_ref(ch.holder, ch.rec->'base')
         WHERE ch.rec ? 'base'
    )
    SELECT ch.channel, 'record'::text, ch.depth, ch.holder, ch.rec FROM chain ch
    UNION ALL
    SELECT ch.channel, 'value'::text, ch.depth, e.seq, e.payload
      FROM chain ch
      JOIN pgctx.events e ON e.conversation_id = langgraph_parts.thread_id
                         AND e.seq = pgctx.langgraph_ref(ch.holder, ch.rec->'at')
     WHERE ch.rec ? 'at'
    UNION ALL
    SELECT ch.channel, 'message'::text, ch.depth, e.seq, e.payload
      FROM chain ch
     CROSS JOIN LATERAL jsonb_array_elements(ch.rec->'add') AS a(ref)
      JOIN pgctx.events e ON e.conversation_id = langgraph_parts.thread_id AND e.seq = pgctx.langgraph_ref(ch.holder, a.ref)
     WHERE ch.rec ? 'add';
END
$$;

COMMENT ON FUNCTION pgctx.langgraph_parts(text, bigint) IS
    'What a LangGraph checkpoint''s channel values are rebuilt from: each channel''s record chain and the lg_channel and message events it names.';

-- One row per thread for DBAs: namespaces, checkpoints live and deleted, the last put and tombstone.
CREATE OR REPLACE VIEW pgctx.langgraph_threads WITH (security_invoker = true) AS
SELECT k.thread_id,
       count(DISTINCT k.checkpoint_ns) AS namespaces,
       count(*) FILTER (WHERE k.live) AS live_checkpoints,
       count(*) FILTER (WHERE k.deleted_in IS NOT NULL) AS deleted_checkpoints,
       max(k.created_at) AS last_put_at,
       (SELECT max(t.seq) FROM pgctx.events t WHERE t.conversation_id = k.thread_id AND t.kind = 'lg_delete') AS last_tombstone_seq
  FROM pgctx.langgraph_checkpoints k
 GROUP BY k.thread_id;

COMMENT ON VIEW pgctx.langgraph_threads IS
    'Per LangGraph thread: namespaces, live and deleted checkpoints, last put, last tombstone.';

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA pgctx FROM PUBLIC;
GRANT EXECUTE ON FUNCTION
    pgctx.langgraph_ref(bigint, jsonb),
    pgctx.langgraph_deleted_at(text, text, text),
    pgctx.langgraph_writes(text, text, text),
    pgctx.langgraph_parts(text, bigint),
    pgctx.langgraph_thread_checkpoints(text, text, text, text, jsonb, text[], integer, boolean)
    TO pgctx_app, pgctx_auditor;
GRANT SELECT ON pgctx.langgraph_checkpoints, pgctx.langgraph_threads TO pgctx_app, pgctx_auditor;
