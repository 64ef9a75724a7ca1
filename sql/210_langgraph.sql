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
--     saver goes through pgctx.langgraph_checkpoints / pgctx.langgraph_writes.
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

-- The pending writes of a checkpoint that count (no tombstone after them), oldest first (part
-- 'writes'), and the message events they name (part 'message': a write of messages appends them
-- as message events and names them, as a checkpoint's delta does).
DROP FUNCTION IF EXISTS pgctx.langgraph_writes(text, text, text);
CREATE FUNCTION pgctx.langgraph_writes(thread_id text, ns text, checkpoint_id text)
RETURNS TABLE (part text, seq bigint, payload jsonb)
LANGUAGE sql STABLE AS $$
    WITH w AS MATERIALIZED (
        SELECT w.seq, w.payload FROM pgctx.events w
         WHERE w.conversation_id = thread_id AND w.kind = 'lg_writes'
           AND w.payload->>'ns' = ns AND (w.payload->>'checkpoint_id') COLLATE "C" = checkpoint_id COLLATE "C"
           AND w.seq > pgctx.langgraph_deleted_at(thread_id, ns, checkpoint_id)
    )
    SELECT 'writes', w.seq, w.payload FROM w
    UNION ALL
    SELECT 'message', e.seq, e.payload
      FROM w
     CROSS JOIN LATERAL jsonb_array_elements(w.payload->'writes') AS x(write)
     CROSS JOIN LATERAL jsonb_array_elements(x.write->3) AS r(ref)
      JOIN pgctx.events e ON e.conversation_id = thread_id AND e.seq = pgctx.langgraph_ref(w.seq, r.ref)
     WHERE x.write->>2 IN ('lg:message', 'lg:messages')
     ORDER BY 2
$$;

COMMENT ON FUNCTION pgctx.langgraph_writes(text, text, text) IS
    'The pending writes (lg_writes events) of a LangGraph checkpoint that no tombstone covers, oldest first, and the message events they name.';

-- Everything a checkpoint's channel values are rebuilt from: each channel's record chain (the
-- record, then its base's, ...: depth 0 is the checkpoint's own) and the events the records name
-- (part 'value': an lg_channel; part 'message': a message event of a delta).
CREATE OR REPLACE FUNCTION pgctx.langgraph_parts(thread_id text, checkpoint_seq bigint)
RETURNS TABLE (channel text, part text, depth integer, seq bigint, payload jsonb)
LANGUAGE sql STABLE AS $$
    WITH RECURSIVE chain (channel, depth, holder, rec) AS (
        SELECT c.key, 0, k.seq, c.value
          FROM pgctx.events k, jsonb_each(k.payload->'channels') AS c
         WHERE k.conversation_id = thread_id AND k.seq = checkpoint_seq AND k.kind = 'lg_checkpoint'
        UNION ALL
        SELECT ch.channel, ch.depth + 1, b.seq, b.payload->'channels'->ch.channel
          FROM chain ch
          JOIN pgctx.events b ON b.conversation_id = thread_id
                             AND b.seq = pgctx.langgraph_ref(ch.holder, ch.rec->'base')
         WHERE ch.rec ? 'base'
    )
    SELECT ch.channel, 'record', ch.depth, ch.holder, ch.rec FROM chain ch
    UNION ALL
    SELECT ch.channel, 'value', ch.depth, e.seq, e.payload
      FROM chain ch
      JOIN pgctx.events e ON e.conversation_id = thread_id AND e.seq = pgctx.langgraph_ref(ch.holder, ch.rec->'at')
     WHERE ch.rec ? 'at'
    UNION ALL
    SELECT ch.channel, 'message', ch.depth, e.seq, e.payload
      FROM chain ch
     CROSS JOIN LATERAL jsonb_array_elements(ch.rec->'add') AS a(ref)
      JOIN pgctx.events e ON e.conversation_id = thread_id AND e.seq = pgctx.langgraph_ref(ch.holder, a.ref)
     WHERE ch.rec ? 'add'
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
    pgctx.langgraph_parts(text, bigint)
    TO pgctx_app, pgctx_auditor;
GRANT SELECT ON pgctx.langgraph_checkpoints, pgctx.langgraph_threads TO pgctx_app, pgctx_auditor;
