-- 165: the risk evidence of a fold, and how long it stays raw beside the summary (article 三.3,
-- 八: summary + evidence, never summary instead of evidence).
--
-- Invariants enforced here:
--   * Every checkpoint records, when it is inserted, the risks still live at its cursor: those of
--     the range it folds (pgctx.fold_triggers) and those of the fold it continues that are still
--     live. Each entry is {risk, reason, seqs}: what the risk is about, why, and the events to keep
--     raw; one entry per risk (seqs merged). The working context keeps those events raw for as
--     long as their risk is live at the head (170), not only until the next fold.
--   * A risk is live (pgctx.risk_live), as of a seq, until:
--       irreversible side effect: a later subtask_end or topic_switch (the work it belonged to is
--         over);
--       unknown outcome: the call's derived status is no longer unknown or running (reconciled);
--       restart recovery: every call it interrupted is resolved;
--       contradiction within a call: a later answer to that call;
--       contradiction across calls: a later successful result, by any tool, reporting the field
--         about one of the identifiers (a newer reading settles it), or a later correction of the
--         field by the user (key = the field; its subject, if any, names one of the identifiers as
--         'name=value' or 'value');
--       permission or identity conclusion: a later permission event;
--       failed verification: a later successful verification of the same thing.
--   * It is derived, never supplied: an inserted value is replaced, and it never changes
--     afterwards (a committed checkpoint never changes, and neither does its evidence). On a
--     Citus shard a branch's is derived by prepare_fold instead (its source may be on another
--     worker, which the trigger cannot read there): inserted by the owner, it is taken as given.
--     Checkpoints prepared before this column existed have NULL (no evidence recorded); those
--     prepared before 0006 hold [{seq, reason}] entries, pinned while their fold is the committed
--     one and not carried further. Stated limit: a branch's first fold does not carry its
--     source fold's evidence (the unresolved calls its summary tracks stay pinned, 170).
--   * Cost: a few index lookups per live risk; the later events a liveness test reads are those
--     after the risk's newest seq (a contradiction across calls reads the calls made since).

ALTER TABLE pgctx.checkpoints ADD COLUMN IF NOT EXISTS evidence jsonb;

COMMENT ON COLUMN pgctx.checkpoints.evidence IS
    'Risks live at the cursor, derived at insert: [{"risk": {...}, "reason": "risk: ...", "seqs": [n, ...]}] (before 0006: [{"seq", "reason"}]; NULL: prepared before it was recorded).';

-- The events that close an irreversible side effect, supersede a permission conclusion or settle
-- a verification or a contradiction (a correction), found without reading everything after the risk.
CREATE INDEX IF NOT EXISTS events_milestones ON pgctx.events (conversation_id, seq)
    WHERE kind IN ('subtask_end', 'topic_switch', 'permission', 'verification', 'correction');

CREATE OR REPLACE FUNCTION pgctx.risk_live(conversation_id text, risk jsonb, seqs bigint[], upto bigint)
RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET jit = off
SET enable_seqscan = off AS $$
DECLARE
    newest bigint := (SELECT max(s) FROM unnest(seqs) AS s);
    calls  jsonb;
BEGIN
    CASE risk->>'risk'
        WHEN 'irreversible' THEN
            RETURN NOT EXISTS (SELECT 1 FROM pgctx.events e
                                WHERE e.conversation_id = risk_live.conversation_id
                                  AND e.kind IN ('subtask_end', 'topic_switch')
                                  AND e.seq > newest AND e.seq <= upto);
        WHEN 'unknown', 'recovery' THEN
            RETURN EXISTS (SELECT 1 FROM pgctx.tool_calls(risk_live.conversation_id, upto, upto,
                                                          CASE WHEN risk ? 'calls'
                                                               THEN ARRAY(SELECT jsonb_array_elements_text(risk->'calls'))
                                                               ELSE ARRAY[risk->>'call_id'] END) t
                            WHERE t.status IN ('planned', 'running', 'unknown'));
        WHEN 'contradiction' THEN
            RETURN NOT EXISTS (SELECT 1 FROM pgctx.events e
                                WHERE e.conversation_id = risk_live.conversation_id
                                  AND e.kind IN ('tool_result', 'status_query')
                                  AND e.payload->>'call_id' = risk->>'call_id'
                                  AND e.seq > newest AND e.seq <= upto);
        WHEN 'conflict' THEN
            -- the calls in a statement of their own (a read of the tables inside the query below
            -- would be nested distributed execution on Citus)
            calls := (SELECT jsonb_agg(t) FROM pgctx.tool_calls(risk_live.conversation_id, newest, upto) t);
            RETURN NOT EXISTS (SELECT 1 FROM jsonb_to_recordset(calls) AS t(call_id text, effect text, identifiers text[],
                                                                            arguments jsonb)
                                 JOIN pgctx.events r ON r.conversation_id = risk_live.conversation_id
                                      AND r.kind = 'tool_result' AND r.payload->>'call_id' = t.call_id
                                      AND r.seq > newest AND r.seq <= upto
                                WHERE r.payload->>'outcome' = 'succeeded'
                                  AND pgctx.result_record(r.payload->'result') ? (risk->>'field')
                                  AND (t.effect <> 'read' OR t.arguments->(risk->>'field')
                                       IS DISTINCT FROM pgctx.result_record(r.payload->'result')->(risk->>'field'))
                                  AND t.identifiers && ARRAY(SELECT jsonb_array_elements_text(risk->'identifiers')))
               AND NOT EXISTS (SELECT 1 FROM pgctx.events e
                                WHERE e.conversation_id = risk_live.conversation_id AND e.kind = 'correction'
                                  AND e.seq > newest AND e.seq <= upto
                                  AND e.payload->>'key' = risk->>'field'
                                  AND (e.payload->>'subject' IS NULL
                                       OR regexp_replace(e.payload->>'subject', '^[^=]*=', '')
                                          IN (SELECT jsonb_array_elements_text(risk->'identifiers'))));
        WHEN 'permission' THEN
            RETURN NOT EXISTS (SELECT 1 FROM pgctx.events e
                                WHERE e.conversation_id = risk_live.conversation_id AND e.kind = 'permission'
                                  AND e.seq > newest AND e.seq <= upto);
        WHEN 'verification' THEN
            RETURN NOT EXISTS (SELECT 1 FROM pgctx.events e
                                WHERE e.conversation_id = risk_live.conversation_id AND e.kind = 'verification'
                                  AND e.seq > newest AND e.seq <= upto
                                  AND e.payload->'ok' = 'true'::jsonb
                                  AND e.payload->>'what' IS NOT DISTINCT FROM risk->>'what');
        ELSE
            RETURN false;
    END CASE;
END
$$;

COMMENT ON FUNCTION pgctx.risk_live(text, jsonb, bigint[], bigint) IS
    'Whether a risk (an evidence entry''s risk, with its seqs) is still live as of seq upto; the rules are in sql/165_fold_evidence.sql.';

-- The evidence a fold of base_cursor+1..fold_cursor onto checkpoint base_version records: the base
-- fold's risks still live at fold_cursor and the risks of the folded range, one entry per risk.
-- Its own function so that prepare_fold can weigh a candidate's evidence before storing it (100).
CREATE OR REPLACE FUNCTION pgctx.fold_evidence(conversation_id text, base_version integer, base_cursor bigint,
                                               fold_cursor bigint) RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
SET jit = off AS $$
DECLARE
    previous jsonb := pgctx.base_summary(fold_evidence.conversation_id, fold_evidence.base_version);
    base     jsonb;
    found    jsonb;
BEGIN
    -- the base fold's evidence, and the risks still live and new, each in a statement of its own:
    -- risk_live and fold_triggers read the tables, and inside a query of them they would be
    -- nested distributed execution on Citus
    SELECT b.evidence INTO base FROM pgctx.checkpoints b
     WHERE b.conversation_id = fold_evidence.conversation_id AND b.version = fold_evidence.base_version;
    SELECT jsonb_agg(x.e) INTO base
      FROM jsonb_array_elements(coalesce(base, '[]')) AS x(e)
     WHERE x.e ? 'risk'
       AND pgctx.risk_live(fold_evidence.conversation_id, x.e->'risk',
                           ARRAY(SELECT jsonb_array_elements_text(x.e->'seqs')::bigint), fold_cursor);
    SELECT jsonb_agg(jsonb_build_object('risk', t.risk, 'reason', 'risk: ' || t.reason, 'seqs', to_jsonb(t.evidence)))
      INTO found
      FROM pgctx.fold_triggers(fold_evidence.conversation_id, NULL, fold_evidence.base_cursor, fold_cursor,
                               previous => previous) t
     WHERE t.trigger_class = 'risk';
    RETURN (
        WITH entries AS (
            -- the base fold's risks still live at the new cursor
            SELECT x.e->'risk' AS risk, x.e->>'reason' AS reason, x.e->'seqs' AS seqs, 0 AS fresh
              FROM jsonb_array_elements(coalesce(base, '[]')) AS x(e)
            UNION ALL
            -- and those of the folded range
            SELECT x.e->'risk', x.e->>'reason', x.e->'seqs', 1
              FROM jsonb_array_elements(coalesce(found, '[]')) AS x(e)
        ), seqs AS (
            SELECT en.risk, s.v::bigint AS seq FROM entries en, jsonb_array_elements_text(en.seqs) AS s(v)
        )
        SELECT coalesce(jsonb_agg(jsonb_build_object('risk', g.risk, 'reason', g.reason, 'seqs', g.seqs)
                                  ORDER BY (g.seqs->>0)::bigint, g.reason), '[]')
          FROM (SELECT r.risk, r.reason,
                       (SELECT jsonb_agg(DISTINCT q.seq ORDER BY q.seq) FROM seqs q WHERE q.risk = r.risk) AS seqs
                  FROM (SELECT en.risk, (array_agg(en.reason ORDER BY en.fresh DESC))[1] AS reason
                          FROM entries en GROUP BY en.risk) r) g);
END
$$;

COMMENT ON FUNCTION pgctx.fold_evidence(text, integer, bigint, bigint) IS
    'The evidence a fold of base_cursor+1..fold_cursor onto checkpoint base_version records: the base fold''s risks still live at fold_cursor and the folded range''s, [{risk, reason, seqs}] (what checkpoints_evidence stores).';

CREATE OR REPLACE FUNCTION pgctx.checkpoints_evidence() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp
SET jit = off AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.evidence IS DISTINCT FROM OLD.evidence THEN
            RAISE EXCEPTION USING ERRCODE = 'PC112',
                MESSAGE = format('checkpoint %s of %s: its evidence is derived and never changes',
                                 OLD.version, OLD.conversation_id);
        END IF;
        RETURN NEW;
    END IF;
    -- On a Citus shard (the trigger fires on pgctx.checkpoints_<shard id>, not on
    -- pgctx.checkpoints) a branch's history may lie on other shards, which a trigger there cannot
    -- read ("cannot execute a distributed query from a query on a shard"): a branch's evidence is
    -- then the one prepare_fold derived and inserted (100; docs/scaling.md). Everywhere else it is
    -- derived here, whatever was inserted. (The conversation's own row is on this shard.)
    IF TG_RELID <> 'pgctx.checkpoints'::regclass
       AND EXISTS (SELECT 1 FROM pgctx.conversations c
                    WHERE c.conversation_id = NEW.conversation_id AND c.forked_from IS NOT NULL) THEN
        RETURN NEW;
    END IF;
    NEW.evidence := pgctx.fold_evidence(NEW.conversation_id, NEW.base_version, NEW.base_cursor, NEW.cursor);
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION pgctx.checkpoints_evidence() IS
    'Trigger on pgctx.checkpoints: derives a new checkpoint''s evidence (the base fold''s risks still live at its cursor and those of the folded range, with their seqs) and refuses any later change of it (PC112): evidence is derived, never supplied.';

CREATE OR REPLACE TRIGGER checkpoints_evidence
    BEFORE INSERT OR UPDATE ON pgctx.checkpoints
    FOR EACH ROW EXECUTE FUNCTION pgctx.checkpoints_evidence();
ALTER TABLE pgctx.checkpoints ENABLE ALWAYS TRIGGER checkpoints_evidence;
