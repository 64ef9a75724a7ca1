-- 130: checkpoint retention (article 十五: checkpoints grow without bound unless pruned).
--
-- Invariants enforced here:
--   * prune_checkpoints removes only COMMITTED and DISCARDED checkpoints older than the newest
--     `keep`, never the committed fold, never a PREPARED one and never one a branch continues
--     from (on one server the checkpoints guard refuses those deletions too, PC113; on Citus
--     only this function's own check holds, 090). Events are never pruned.

CREATE OR REPLACE FUNCTION pgctx.prune_checkpoints(conversation_id text, keep integer) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    head    pgctx.fold_heads%ROWTYPE := pgctx.lock_fold_head(conversation_id);
    removed integer := 0;
    v       integer;
BEGIN
    IF keep IS NULL OR keep < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'PC115', MESSAGE = format('keep must be at least 1, got %s', keep);
    END IF;
    -- read first, then one version at a time: asking which a branch continues from inside the
    -- query of checkpoints would be a nested distributed read on Citus (docs/scaling.md). This
    -- check is the one that holds on Citus: the checkpoints guard cannot ask it from a shard (090).
    FOREACH v IN ARRAY ARRAY(
        SELECT c.version FROM pgctx.checkpoints c
         WHERE c.conversation_id = prune_checkpoints.conversation_id
           AND c.phase <> 'PREPARED' AND c.version <> head.version
           AND c.version NOT IN (SELECT k.version FROM pgctx.checkpoints k
                                  WHERE k.conversation_id = prune_checkpoints.conversation_id AND k.phase <> 'PREPARED'
                                  ORDER BY k.version DESC LIMIT keep)
         ORDER BY c.version) LOOP
        CONTINUE WHEN pgctx.branch_continuing_from(conversation_id, v) IS NOT NULL;
        DELETE FROM pgctx.checkpoints c
         WHERE c.conversation_id = prune_checkpoints.conversation_id AND c.version = v;
        removed := removed + 1;
    END LOOP;
    RETURN removed;
END
$$;

COMMENT ON FUNCTION pgctx.prune_checkpoints(text, integer) IS
    'Remove COMMITTED/DISCARDED checkpoints beyond the newest keep; never the committed fold, never PREPARED, never one a branch continues from, never events.';
