-- 165: the risk evidence of a fold, fixed when the fold is prepared (article 八: summary +
-- evidence, never summary instead of evidence).
--
-- Invariants enforced here:
--   * Every checkpoint records, when it is inserted, the events behind the risk triggers of the
--     range it folds (pgctx.fold_triggers): [{seq, reason}], or [] when none fired. The working
--     context keeps them raw beside the summary without re-deriving them on every turn.
--   * It is derived, never supplied: an inserted value is replaced, and it never changes
--     afterwards (a committed checkpoint never changes, and neither does its evidence).
--     Checkpoints prepared before this column existed have NULL: no evidence recorded.

ALTER TABLE pgctx.checkpoints ADD COLUMN IF NOT EXISTS evidence jsonb;

COMMENT ON COLUMN pgctx.checkpoints.evidence IS
    'Risk evidence of the folded range, derived at insert: [{"seq": n, "reason": "risk: ..."}] (NULL: prepared before it was recorded).';

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
    SELECT coalesce(jsonb_agg(jsonb_build_object('seq', x.seq, 'reason', x.reason) ORDER BY x.seq), '[]')
      INTO NEW.evidence
      FROM (SELECT s.seq, string_agg(DISTINCT 'risk: ' || t.reason, '; ') AS reason
              FROM pgctx.fold_triggers(NEW.conversation_id, NULL, NEW.base_cursor, NEW.cursor) t,
                   unnest(t.evidence) AS s(seq)
             WHERE t.trigger_class = 'risk'
             GROUP BY s.seq) x;
    RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER checkpoints_evidence
    BEFORE INSERT OR UPDATE ON pgctx.checkpoints
    FOR EACH ROW EXECUTE FUNCTION pgctx.checkpoints_evidence();
ALTER TABLE pgctx.checkpoints ENABLE ALWAYS TRIGGER checkpoints_evidence;
