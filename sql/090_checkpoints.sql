-- 090: checkpoints (folds), their phases, and each conversation's committed fold.
--
-- Invariants enforced here (by triggers, so they hold for psql as well as for the functions):
--   * A checkpoint is inserted PREPARED and moves PREPARED -> COMMITTED or PREPARED -> DISCARDED,
--     nothing else (PC112). Only the phase, decided_at and discard_reason change on that move; a
--     COMMITTED or DISCARDED row never changes again.
--   * A checkpoint covers base_cursor+1 .. cursor of the committed fold it was prepared on
--     (base_version, base_cursor), records the chain hash of the event at its cursor, and its
--     checksum is SHA-256('pgctx:checkpoint:v1' || canonical({schema_version, cursor,
--     chain_hash (hex), summary})), derived by the insert trigger (an inserter that supplies one
--     must supply exactly that).
--   * Moving to COMMITTED is a compare-and-swap: allowed only while the conversation's committed
--     fold is still (base_version, base_cursor), and it advances pgctx.fold_heads (version,
--     cursor, checksum) in the same transaction; every other PREPARED candidate of the
--     conversation becomes DISCARDED ("superseded"), so a lost race can never commit later.
--   * fold_heads is the CAS row: it moves forward only to a COMMITTED checkpoint, or back only
--     through recovery's fallback to an older COMMITTED checkpoint, with the reason recorded.
--     Its row lock serializes prepare and commit per conversation without blocking appends
--     (appends lock pgctx.conversations, a different row).
--   * Deleting a checkpoint is retention (pgctx.prune_checkpoints): never a PREPARED one, never
--     the committed one, never one a branch continues from (its summary is the branch's until the
--     branch folds, and again if the branch falls back to its fork point), unless the branch's
--     history holds an erased event (erasure removes the summaries built on it) (PC113).

CREATE TABLE IF NOT EXISTS pgctx.checkpoints (
    conversation_id  text NOT NULL,
    version          integer NOT NULL CHECK (version >= 1),
    phase            text NOT NULL CHECK (phase IN ('PREPARED', 'COMMITTED', 'DISCARDED')),
    base_version     integer NOT NULL CHECK (base_version >= 0),
    base_cursor      bigint NOT NULL CHECK (base_cursor >= 0),
    cursor           bigint NOT NULL,
    chain_hash       bytea NOT NULL,
    schema_version   integer NOT NULL,
    summary          jsonb NOT NULL,
    checksum         bytea NOT NULL,
    summarizer       text,
    tenant           text,
    prepared_at      timestamptz NOT NULL DEFAULT now(),
    prepared_by      name NOT NULL DEFAULT session_user,
    decided_at       timestamptz,
    discard_reason   text,
    PRIMARY KEY (conversation_id, version),
    CHECK (cursor > base_cursor),
    CHECK ((phase = 'PREPARED') = (decided_at IS NULL)),
    CHECK ((phase = 'DISCARDED') = (discard_reason IS NOT NULL))
);

COMMENT ON TABLE pgctx.checkpoints IS
    'Folds: a validated summary of events 1..cursor. PREPARED -> COMMITTED | DISCARDED; committed rows never change.';

CREATE INDEX IF NOT EXISTS checkpoints_prepared ON pgctx.checkpoints (conversation_id) WHERE phase = 'PREPARED';

-- The client's token count of the summary as the working context shows it (pgctx.tokens), like
-- events.tokens: fold_status weighs the committed summary against the history with it. Not part
-- of the checksum; NULL when the preparer gave none (counted as 0).
-- The column and its check apart, the check by name (the one PostgreSQL gives it): Citus refuses an
-- ADD COLUMN with a constraint on a distributed table, IF NOT EXISTS or not.
ALTER TABLE pgctx.checkpoints ADD COLUMN IF NOT EXISTS tokens integer;
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint
                    WHERE conrelid = 'pgctx.checkpoints'::regclass AND conname = 'checkpoints_tokens_check') THEN
        ALTER TABLE pgctx.checkpoints ADD CONSTRAINT checkpoints_tokens_check CHECK (tokens >= 0);
    END IF;
END
$$;

-- The horizon the candidate was validated with (pgctx.must_keep: the resolved calls a summary
-- keeps in full; NULL: the default, as for every checkpoint before 0013), so recovery re-checks a
-- PREPARED fold by the rules it was prepared under. Not part of the checksum: it is how the
-- summary was checked, not what it says. (No CHECK: must_keep refuses a negative one, PC122.)
ALTER TABLE pgctx.checkpoints ADD COLUMN IF NOT EXISTS horizon integer;

CREATE TABLE IF NOT EXISTS pgctx.fold_heads (
    conversation_id  text PRIMARY KEY,
    version          integer NOT NULL DEFAULT 0,
    cursor           bigint NOT NULL DEFAULT 0,
    checksum         bytea,
    tenant           text,
    committed_at     timestamptz,
    fallback_reason  text
);

COMMENT ON TABLE pgctx.fold_heads IS
    'Each conversation''s committed fold (version, cursor, checksum): the compare-and-swap row. Version 0 / cursor 0 = nothing folded.';

-- Last point of the chain recovery verified, to resume from.
CREATE TABLE IF NOT EXISTS pgctx.verified_points (
    conversation_id  text PRIMARY KEY,
    seq              bigint NOT NULL,
    hash             bytea NOT NULL,
    tenant           text,
    verified_at      timestamptz NOT NULL DEFAULT now()
);

CREATE OR REPLACE FUNCTION pgctx.checkpoint_checksum(schema_version integer, cursor bigint, chain_hash bytea,
                                                     summary jsonb) RETURNS bytea
-- Not STRICT, the NULL case spelled out instead: a STRICT SQL function is inlined only when its
-- body is strict, and jsonb_build_object is not; not inlined, it was planned on every call.
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN schema_version IS NOT NULL AND cursor IS NOT NULL AND chain_hash IS NOT NULL
                     AND summary IS NOT NULL
                THEN sha256('\x70676374783a636865636b706f696e743a7631'::bytea      -- 'pgctx:checkpoint:v1'
                            || convert_to(pgctx.canonical_text(jsonb_build_object(
                                   'schema_version', schema_version, 'cursor', cursor,
                                   'chain_hash', encode(chain_hash, 'hex'), 'summary', summary)), 'UTF8'))
           END
$$;

COMMENT ON FUNCTION pgctx.checkpoint_checksum(integer, bigint, bytea, jsonb) IS
    'A checkpoint''s checksum: SHA-256 of ''pgctx:checkpoint:v1'' and the canonical JSON of {schema_version, cursor, chain_hash (hex), summary}, binding the summary to the chain at its cursor. NULL if any part is NULL.';

-- A branch that continues from checkpoint version of conversation_id (NULL if none): forked at
-- it, with no erased event in the history it inherited (erasure removes the summaries built on
-- erased content, so such a branch no longer continues from it). The source's own row first: a
-- conversation never forked reads no other conversation's rows; then one conversation per
-- statement (a join across the lineage crosses shards on Citus, docs/scaling.md).
CREATE OR REPLACE FUNCTION pgctx.branch_continuing_from(conversation_id text, version integer) RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    branch  record;
    part    record;
    erased  boolean;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pgctx.conversations c
                    WHERE c.conversation_id = branch_continuing_from.conversation_id AND c.family IS NOT NULL) THEN
        RETURN NULL;
    END IF;
    FOR branch IN SELECT b.conversation_id, b.base_seq FROM pgctx.conversations b
                   WHERE b.forked_from = branch_continuing_from.conversation_id
                     AND b.fork_version = branch_continuing_from.version
                   ORDER BY b.conversation_id LOOP
        erased := false;
        FOR part IN SELECT * FROM pgctx.lineage(branch_continuing_from.conversation_id) LOOP
            erased := EXISTS (SELECT 1 FROM pgctx.events e
                               WHERE e.conversation_id = part.conversation_id AND e.seq > part.after_seq
                                 AND e.seq <= least(part.upto_seq, branch.base_seq) AND e.erased_in IS NOT NULL);
            EXIT WHEN erased;
        END LOOP;
        IF NOT erased THEN
            RETURN branch.conversation_id;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION pgctx.branch_continuing_from(text, integer) IS
    'A branch that continues from this checkpoint (forked at it, nothing it inherited erased), or NULL: retention keeps that checkpoint.';

CREATE OR REPLACE FUNCTION pgctx.checkpoints_guard() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    head     pgctx.fold_heads%ROWTYPE;
    checksum bytea;
    branch   text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.phase <> 'PREPARED' OR NEW.decided_at IS NOT NULL THEN
            RAISE EXCEPTION USING ERRCODE = 'PC112',
                MESSAGE = format('a checkpoint is created PREPARED, not %s', NEW.phase);
        END IF;
        -- the checksum is derived here; one given by the inserter must be that one
        checksum := pgctx.checkpoint_checksum(NEW.schema_version, NEW.cursor, NEW.chain_hash, NEW.summary);
        IF NEW.checksum IS NOT NULL AND NEW.checksum <> checksum THEN
            RAISE EXCEPTION USING ERRCODE = 'PC112',
                MESSAGE = format('checkpoint %s of %s: checksum does not match its content', NEW.version, NEW.conversation_id);
        END IF;
        NEW.checksum := checksum;
        RETURN NEW;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT * INTO head FROM pgctx.fold_heads WHERE conversation_id = OLD.conversation_id;
        IF OLD.phase = 'PREPARED' OR OLD.version = head.version THEN
            RAISE EXCEPTION USING ERRCODE = 'PC113',
                MESSAGE = format('checkpoint %s of %s is %s and cannot be removed',
                                 OLD.version, OLD.conversation_id,
                                 CASE WHEN OLD.phase = 'PREPARED' THEN 'PREPARED (discard it first)'
                                      ELSE 'the committed fold' END);
        END IF;
        -- A branch continuing from it, asked here for every deletion, from any client. Not on a
        -- Citus shard: there the trigger fires on the shard (pgctx.checkpoints_<shard id>, not
        -- pgctx.checkpoints), and the branches live on other shards, which a trigger on a shard
        -- cannot read ("cannot execute a distributed query from a query on a shard"). On Citus the
        -- functions that remove checkpoints (prune_checkpoints, erase) ask before they delete, on
        -- the node asked; a plain DELETE there is not guarded for branches (docs/scaling.md).
        IF TG_RELID = 'pgctx.checkpoints'::regclass THEN
            branch := pgctx.branch_continuing_from(OLD.conversation_id, OLD.version);
            IF branch IS NOT NULL THEN
                RAISE EXCEPTION USING ERRCODE = 'PC113',
                    MESSAGE = format('checkpoint %s of %s cannot be removed: branch %s continues from it',
                                     OLD.version, OLD.conversation_id, branch);
            END IF;
        END IF;
        RETURN OLD;
    ELSIF TG_OP = 'TRUNCATE' THEN
        RAISE EXCEPTION USING ERRCODE = 'PC113', MESSAGE = 'TRUNCATE of pgctx.checkpoints refused; use pgctx.prune_checkpoints';
    END IF;

    -- UPDATE: only PREPARED -> COMMITTED | DISCARDED, and only the decision columns.
    IF OLD.phase <> 'PREPARED' OR NEW.phase NOT IN ('COMMITTED', 'DISCARDED')
       OR (NEW.conversation_id, NEW.version, NEW.base_version, NEW.base_cursor, NEW.cursor, NEW.chain_hash,
           NEW.schema_version, NEW.summary, NEW.checksum, NEW.summarizer, NEW.tenant, NEW.prepared_at, NEW.prepared_by,
           NEW.tokens)
          IS DISTINCT FROM
          (OLD.conversation_id, OLD.version, OLD.base_version, OLD.base_cursor, OLD.cursor, OLD.chain_hash,
           OLD.schema_version, OLD.summary, OLD.checksum, OLD.summarizer, OLD.tenant, OLD.prepared_at, OLD.prepared_by,
           OLD.tokens) THEN
        RAISE EXCEPTION USING ERRCODE = 'PC112',
            MESSAGE = format('checkpoint %s of %s: %s -> %s is not a legal change (only PREPARED -> COMMITTED | DISCARDED)',
                             OLD.version, OLD.conversation_id, OLD.phase, NEW.phase);
    END IF;
    NEW.decided_at := now();
    IF NEW.phase = 'COMMITTED' THEN
        -- compare-and-swap against the committed fold, under its row lock
        SELECT * INTO head FROM pgctx.fold_heads WHERE conversation_id = NEW.conversation_id FOR UPDATE;
        IF coalesce(head.version, 0) <> NEW.base_version OR coalesce(head.cursor, 0) <> NEW.base_cursor THEN
            RAISE EXCEPTION USING ERRCODE = 'PC100',
                MESSAGE = format('fold conflict: checkpoint %s of %s was prepared on version %s (cursor %s) but version %s (cursor %s) is committed',
                                 NEW.version, NEW.conversation_id, NEW.base_version, NEW.base_cursor,
                                 coalesce(head.version, 0), coalesce(head.cursor, 0));
        END IF;
        -- a retraction appended since it was prepared may name an event it folds (200); read
        -- after the fold head's lock, which retract_last takes too
        IF EXISTS (SELECT 1 FROM pgctx.events r WHERE r.conversation_id = NEW.conversation_id
                      AND r.kind = 'retraction' AND r.seq > NEW.cursor
                      AND (r.payload->>'seq')::bigint > NEW.base_cursor AND (r.payload->>'seq')::bigint <= NEW.cursor) THEN
            RAISE EXCEPTION USING ERRCODE = 'PC103',
                MESSAGE = format('checkpoint %s of %s folds an event retracted after seq %s since it was prepared',
                                 NEW.version, NEW.conversation_id, NEW.cursor);
        END IF;
        IF NOT EXISTS (SELECT 1 FROM pgctx.events e WHERE e.conversation_id = NEW.conversation_id
                          AND e.seq = NEW.cursor AND e.hash = NEW.chain_hash) THEN
            RAISE EXCEPTION USING ERRCODE = 'PC110',
                MESSAGE = format('checkpoint %s of %s: the chain hash at seq %s changed since it was prepared',
                                 NEW.version, NEW.conversation_id, NEW.cursor);
        END IF;
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION pgctx.checkpoints_guard() IS
    'Trigger on pgctx.checkpoints: inserted PREPARED with its checksum derived; PREPARED -> COMMITTED (a compare-and-swap against the fold head) or DISCARDED only, nothing else changed (PC112, PC100, PC103, PC110); no removal of a PREPARED or the committed checkpoint or of one a branch continues from, no TRUNCATE (PC113).';

-- After a commit: move the CAS row and retire every other candidate of the conversation.
CREATE OR REPLACE FUNCTION pgctx.checkpoints_committed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
BEGIN
    INSERT INTO pgctx.fold_heads AS h (conversation_id, version, cursor, checksum, tenant, committed_at)
    VALUES (NEW.conversation_id, NEW.version, NEW.cursor, NEW.checksum, NEW.tenant, NEW.decided_at)
    ON CONFLICT (conversation_id) DO UPDATE
       SET version = excluded.version, cursor = excluded.cursor, checksum = excluded.checksum,
           committed_at = excluded.committed_at, fallback_reason = NULL;
    UPDATE pgctx.checkpoints
       SET phase = 'DISCARDED',
           discard_reason = format('superseded: version %s was committed first', NEW.version)
     WHERE conversation_id = NEW.conversation_id AND phase = 'PREPARED' AND version <> NEW.version;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION pgctx.checkpoints_committed() IS
    'After a checkpoint is committed: moves the conversation''s fold head to it and discards every other PREPARED candidate as superseded, in the same transaction, so a lost race can never commit later.';

CREATE OR REPLACE FUNCTION pgctx.fold_heads_guard() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'TRUNCATE') THEN
        RAISE EXCEPTION USING ERRCODE = 'PC113', MESSAGE = format('%s of pgctx.fold_heads refused', TG_OP);
    END IF;
    IF NEW.version = 0 AND NEW.checksum IS NULL
       AND NEW.cursor = (SELECT c.base_seq FROM pgctx.conversations c WHERE c.conversation_id = NEW.conversation_id)
       AND (TG_OP = 'INSERT' OR NEW.fallback_reason IS NOT NULL) THEN
        -- "nothing folded" (cursor 0, or a branch's fork point): the row prepare_fold creates and
        -- locks, or recovery's fallback when no committed checkpoint lies before a break
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.conversation_id IS DISTINCT FROM OLD.conversation_id THEN
        RAISE EXCEPTION USING ERRCODE = 'PC112', MESSAGE = 'a fold head cannot change conversation';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pgctx.checkpoints c
                    WHERE c.conversation_id = NEW.conversation_id AND c.version = NEW.version
                      AND c.phase = 'COMMITTED' AND c.cursor = NEW.cursor AND c.checksum = NEW.checksum)
       OR (TG_OP = 'UPDATE' AND NEW.version < OLD.version AND NEW.fallback_reason IS NULL) THEN
        RAISE EXCEPTION USING ERRCODE = 'PC112',
            MESSAGE = format('fold head of %s may only point at a COMMITTED checkpoint, and move back only as a recorded fallback',
                             NEW.conversation_id);
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION pgctx.fold_heads_guard() IS
    'Trigger on pgctx.fold_heads: the CAS row points only at a COMMITTED checkpoint (or at nothing folded), moves back only as a recorded fallback, and is never deleted or truncated (PC112, PC113).';

CREATE OR REPLACE TRIGGER checkpoints_guard
    BEFORE INSERT OR UPDATE OR DELETE ON pgctx.checkpoints
    FOR EACH ROW EXECUTE FUNCTION pgctx.checkpoints_guard();
CREATE OR REPLACE TRIGGER checkpoints_guard_truncate
    BEFORE TRUNCATE ON pgctx.checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION pgctx.checkpoints_guard();
CREATE OR REPLACE TRIGGER checkpoints_committed
    AFTER UPDATE OF phase ON pgctx.checkpoints
    FOR EACH ROW WHEN (NEW.phase = 'COMMITTED' AND OLD.phase = 'PREPARED')
    EXECUTE FUNCTION pgctx.checkpoints_committed();
CREATE OR REPLACE TRIGGER fold_heads_guard
    BEFORE INSERT OR UPDATE OR DELETE ON pgctx.fold_heads
    FOR EACH ROW EXECUTE FUNCTION pgctx.fold_heads_guard();
CREATE OR REPLACE TRIGGER fold_heads_guard_truncate
    BEFORE TRUNCATE ON pgctx.fold_heads
    FOR EACH STATEMENT EXECUTE FUNCTION pgctx.fold_heads_guard();

ALTER TABLE pgctx.checkpoints ENABLE ALWAYS TRIGGER checkpoints_guard;
ALTER TABLE pgctx.checkpoints ENABLE ALWAYS TRIGGER checkpoints_guard_truncate;
ALTER TABLE pgctx.checkpoints ENABLE ALWAYS TRIGGER checkpoints_committed;
ALTER TABLE pgctx.fold_heads ENABLE ALWAYS TRIGGER fold_heads_guard;
ALTER TABLE pgctx.fold_heads ENABLE ALWAYS TRIGGER fold_heads_guard_truncate;
