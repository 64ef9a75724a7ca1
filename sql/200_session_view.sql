-- 200: retracting an event from the working view, and clearing the view, on an append-only log
-- (what a session store's pop_item and clear_session mean here: the view changes, the log, the
-- chain and the ledger of side effects keep everything).
--
-- Invariants enforced here (and, for what they change, in 080, 090, 100, 160 and 170):
--   * pgctx.retract_last(id) appends a retraction event {seq} naming the newest event of the
--     working view's raw part — after the committed fold's cursor and the last clear, not itself a
--     retraction, clear or erasure, not retracted before — and returns that event; with no such
--     event it appends nothing and returns no row. pgctx.clear_view(id) appends a clear event {}.
--     These functions are the only way to write those kinds (030: PC018), so no retraction names
--     an event that was folded, cleared, or already retracted.
--   * The working context (170) leaves out retracted events, every retraction and clear event,
--     and everything up to the last clear; when the last clear is after the committed fold's
--     cursor it holds no summary and no evidence either (the view restarts empty).
--   * A retracted event and its retraction are one unit for folds: the fold boundary never falls
--     between them (160), prepare_fold refuses a candidate whose cursor does (PC103, 100), and a
--     commit is refused when a retraction appended since the candidate was prepared names an
--     event the candidate folds (PC103, 090). retract_last locks the fold head first (as
--     prepare and commit do), so it and a commit serialize.
--   * A fold whose range holds a clear starts over after it: must_keep (080) and the fold rules
--     (100) ignore the previous summary and the events up to the last clear in the range, and
--     approvals requested before the last clear. The ledger does not forget: a call made before a
--     clear is still in pgctx.side_effects and reconcile, and a retracted tool call still counts
--     as a call in tool state (a tool that ran has run, whatever the model is shown).
--   * Cost: one index probe (events_view, 030) per working context, fold boundary and must_keep.

-- The newest retractable event of the working view, if any, under the head lock; the retraction
-- is appended for it.
CREATE OR REPLACE FUNCTION pgctx.retract_last(conversation_id text)
RETURNS TABLE (seq bigint, kind text, payload jsonb)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp
SET enable_seqscan = off AS $$
#variable_conflict use_column
DECLARE
    head   pgctx.fold_heads%ROWTYPE := pgctx.lock_fold_head(retract_last.conversation_id);
    conv   pgctx.conversations%ROWTYPE := pgctx.lock_conversation(retract_last.conversation_id, NULL);
    target record;
BEGIN
    SELECT e.seq, e.kind, e.payload INTO target
      FROM pgctx.events e
     WHERE e.conversation_id = retract_last.conversation_id
       AND e.seq > greatest(head.cursor, coalesce((SELECT max(v.seq) FROM pgctx.events v
                                                    WHERE v.conversation_id = retract_last.conversation_id
                                                      AND v.kind = 'clear'), 0))
       AND e.kind NOT IN ('retraction', 'clear', 'erasure')
       AND NOT EXISTS (SELECT 1 FROM pgctx.events r
                        WHERE r.conversation_id = retract_last.conversation_id AND r.kind = 'retraction'
                          AND (r.payload->>'seq')::bigint = e.seq)
     ORDER BY e.seq DESC LIMIT 1;
    IF target.seq IS NULL THEN
        RETURN;
    END IF;
    PERFORM pgctx.append_chained(conv, 'retraction', jsonb_build_object('seq', target.seq));
    RETURN QUERY SELECT target.seq, target.kind, target.payload;
END
$$;

COMMENT ON FUNCTION pgctx.retract_last(text) IS
    'Take the newest raw event out of the working view (a retraction event is appended; the log keeps it); returns it, or no row when the view has none.';

CREATE OR REPLACE FUNCTION pgctx.clear_view(conversation_id text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp
SET enable_seqscan = off AS $$
BEGIN
    RETURN pgctx.append_chained(pgctx.lock_conversation(clear_view.conversation_id, NULL), 'clear', '{}');
END
$$;

COMMENT ON FUNCTION pgctx.clear_view(text) IS
    'Restart the working view empty (a clear event is appended; the history stays for audit); returns its seq.';

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA pgctx FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgctx.retract_last(text), pgctx.clear_view(text) TO pgctx_app;
GRANT EXECUTE ON FUNCTION pgctx.last_clear(text, bigint) TO pgctx_app, pgctx_auditor;  -- (080)
