-- 110: recovery (article 十一, 十二).
--
-- Invariants enforced here:
--   * recover(conversation_id) is deterministic and idempotent: the same state gives the same
--     actions, and a second run finds nothing to do ("changed": false) and writes nothing.
--   * It verifies the chain from the last point recovery verified (from genesis the first time,
--     when that point no longer matches, with full_check, or while a break stands), and records
--     the new verified point when it moved, and how far a run from genesis reached. The report says
--     which seqs this run checked and, for a run that resumed, up to where earlier runs verified
--     and when the chain was last verified from genesis: an incremental run's "ok" covers only
--     its range. Stated limit: an edit below the last verified point that leaves the stored
--     hashes alone is found by full_check (or `pgctx verify`), not by the incremental run.
--   * A break, once found, stands (pgctx.chain_breaks) until the chain verifies from genesis
--     again: every run, incremental or full, verifies from genesis while it stands and reports
--     it in needs_human, with how to resolve it. Nothing but a whole chain clears it.
--   * Every PREPARED fold is re-checked (still based on the committed fold, chain intact over
--     its range, chain hash at its cursor unchanged, schema registered, checksum, and every
--     fold rule of 100 again) and committed — the oldest valid one — or discarded with the reason.
--   * If the chain is broken inside the committed fold's range, the committed fold falls back to
--     the newest COMMITTED checkpoint before the break whose chain hash still matches (or to
--     nothing folded), with the reason recorded, and the report says a human must look.
--   * It takes the conversation's fold lock shared (100), so it never commits a candidate behind
--     the back of a serialized fold.
--   * Calls still running when recover runs were interrupted by the restart: one `recovery`
--     event is appended, which makes them `unknown` (never `failed`), and every unknown call is
--     listed with its idempotency key for a status query. Nothing here re-runs a tool. On an
--     abandoned branch too: it refuses appends, but not this record.
--   * It acts only on what it verified: the events that decide an action (from the first call it
--     would mark interrupted on, and the range of every PREPARED fold) are verified by this run
--     even when they lie below the last verified point, and with the chain broken no call is
--     marked (the report says why), since what decides it may be the edit.

-- A break recovery found, until the chain verifies whole again. Tenanted and under row-level
-- security like verified_points (150); written only by recover.
CREATE TABLE IF NOT EXISTS pgctx.chain_breaks (
    conversation_id  text PRIMARY KEY,
    seq              bigint NOT NULL,
    reason           text NOT NULL,
    tenant           text,
    found_at         timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE pgctx.chain_breaks IS
    'Chain breaks recovery found and that still stand: every recovery run reports them until the chain verifies from genesis again.';

-- The last recovery run that verified the chain from genesis (up to genesis_seq, at genesis_at):
-- what an incremental run's report gives as the age of the part it did not check.
ALTER TABLE pgctx.verified_points ADD COLUMN IF NOT EXISTS genesis_seq bigint;
ALTER TABLE pgctx.verified_points ADD COLUMN IF NOT EXISTS genesis_at timestamptz;

CREATE OR REPLACE FUNCTION pgctx.recheck_prepared(cp pgctx.checkpoints, head pgctx.fold_heads, chain_ok boolean,
                                                  first_bad_seq bigint) RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    problem text;
BEGIN
    IF cp.base_version <> head.version OR cp.base_cursor <> head.cursor THEN
        RETURN format('prepared on version %s (cursor %s) but version %s (cursor %s) is committed',
                      cp.base_version, cp.base_cursor, head.version, head.cursor);
    ELSIF NOT chain_ok AND first_bad_seq <= cp.cursor THEN
        RETURN format('the chain is broken at seq %s, inside its range', first_bad_seq);
    ELSIF NOT EXISTS (SELECT 1 FROM pgctx.events e WHERE e.conversation_id = cp.conversation_id
                         AND e.seq = cp.cursor AND e.hash = cp.chain_hash) THEN
        RETURN format('the chain hash at its cursor %s changed', cp.cursor);
    ELSIF NOT EXISTS (SELECT 1 FROM pgctx.summary_schemas s WHERE s.schema_version = cp.schema_version) THEN
        RETURN format('schema_version %s is not registered', cp.schema_version);
    ELSIF cp.checksum <> pgctx.checkpoint_checksum(cp.schema_version, cp.cursor, cp.chain_hash, cp.summary) THEN
        RETURN 'its checksum does not match its content';
    END IF;
    SELECT v.sqlstate || ': ' || v.message INTO problem
      FROM pgctx.fold_violations(cp.conversation_id, cp.base_version, cp.base_cursor, cp.cursor,
                                 cp.summary, cp.schema_version, cp.tokens, cp.horizon) v
     LIMIT 1;
    RETURN problem;
END
$$;

COMMENT ON FUNCTION pgctx.recheck_prepared(pgctx.checkpoints, pgctx.fold_heads, boolean, bigint) IS
    'Why recovery must discard a PREPARED checkpoint (NULL if it may be committed): no longer based on the committed fold, chain broken in its range or changed at its cursor, schema unregistered, checksum mismatch, or the first fold rule of 100 it now breaks.';

CREATE OR REPLACE FUNCTION pgctx.recover(conversation_id text, full_check boolean DEFAULT false) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    head        pgctx.fold_heads%ROWTYPE;
    verified    pgctx.verified_points%ROWTYPE;
    standing    pgctx.chain_breaks%ROWTYPE;
    resume      boolean;
    start_seq   bigint;
    chain       record;
    cp          pgctx.checkpoints%ROWTYPE;
    problem     text;
    fallback    pgctx.checkpoints%ROWTYPE;
    prepared    jsonb := '[]'::jsonb;
    needs_human jsonb := '[]'::jsonb;
    actions     jsonb := '[]'::jsonb;
    interrupted jsonb;
    recovery_seq bigint;
    recovery_hash bytea;
    last_recovery bigint;
    conv        pgctx.conversations%ROWTYPE;
    acts_from   bigint;
    verify_from bigint;
    from_hash   bytea;
BEGIN
    -- the fold lock shared, as prepare_fold and commit_fold take it: recovery commits candidates too
    PERFORM pg_advisory_xact_lock_shared(pgctx.fold_lock_key(conversation_id));
    head := pgctx.lock_fold_head(conversation_id);
    -- 0. what this run may act on, read first so that the chain check covers it: the calls still
    --    running (step 4) and the PREPARED folds (step 2); acts_from is the seq after which
    --    every event that decides those actions lies
    SELECT max(e.seq) INTO last_recovery FROM pgctx.events e
     WHERE e.conversation_id = recover.conversation_id AND e.kind = 'recovery';
    SELECT jsonb_agg(jsonb_build_object('call_id', t.call_id, 'seq', t.call_seq) ORDER BY t.call_seq),
           min(t.call_seq) - 1
      INTO interrupted, acts_from
      FROM pgctx.tool_calls(conversation_id, coalesce(last_recovery, 0), NULL) t
     WHERE t.status = 'running';
    SELECT least(acts_from, min(c.base_cursor)) INTO acts_from FROM pgctx.checkpoints c
     WHERE c.conversation_id = recover.conversation_id AND c.phase = 'PREPARED';
    -- 1. the chain, from the last point recovery verified, or from acts_from where that is lower
    --    (a superuser's edit below the verified point was acted on unseen); from genesis the
    --    first time, with full_check, or while a break found earlier stands (so that every run
    --    reports it)
    SELECT * INTO standing FROM pgctx.chain_breaks b WHERE b.conversation_id = recover.conversation_id;
    SELECT * INTO verified FROM pgctx.verified_points v WHERE v.conversation_id = recover.conversation_id;
    resume := NOT full_check AND standing.conversation_id IS NULL AND verified.seq IS NOT NULL;
    verify_from := least(verified.seq, acts_from);
    from_hash := verified.hash;
    IF resume AND verify_from < verified.seq THEN
        -- from the stored hash at verify_from, and only while the verified point still stands (its
        -- hash binds every event before it: a rewrite that recomputed the hashes changes it)
        SELECT e.hash INTO from_hash FROM pgctx.events e
         WHERE e.conversation_id = recover.conversation_id AND e.seq = verify_from;
        resume := from_hash IS NOT NULL AND EXISTS (
            SELECT 1 FROM pgctx.events e WHERE e.conversation_id = recover.conversation_id
               AND e.seq = verified.seq AND e.hash = verified.hash);
    END IF;
    IF resume THEN
        SELECT * INTO chain FROM pgctx.verify_chain(conversation_id, from_seq => verify_from,
                                                    from_hash => from_hash);
        -- a break: look again from genesis, so that the break recorded (and fallen back past) is
        -- the first one, and a second run finds the same, not one below the resume point
        resume := chain.ok;
    END IF;
    IF NOT resume THEN
        SELECT * INTO chain FROM pgctx.verify_chain(conversation_id);
    END IF;
    SELECT CASE WHEN resume THEN verify_from ELSE c.base_seq END INTO start_seq
      FROM pgctx.conversations c WHERE c.conversation_id = recover.conversation_id;
    -- written when the point moved, or a run from genesis reached further than the last one did
    -- (not again for the same seq: a second run writes nothing, so the time recorded is that of
    -- the first run from genesis to reach it)
    IF chain.ok AND (verified.seq IS DISTINCT FROM chain.head_seq
                     OR (NOT resume AND verified.genesis_seq IS DISTINCT FROM chain.head_seq)) THEN
        INSERT INTO pgctx.verified_points AS v (conversation_id, seq, hash, tenant, genesis_seq, genesis_at)
        VALUES (conversation_id, chain.head_seq, chain.head_hash, head.tenant,
                CASE WHEN NOT resume THEN chain.head_seq END, CASE WHEN NOT resume THEN now() END)
        ON CONFLICT ON CONSTRAINT verified_points_pkey DO UPDATE
           SET seq = excluded.seq, hash = excluded.hash, verified_at = excluded.verified_at,
               genesis_seq = coalesce(excluded.genesis_seq, v.genesis_seq),
               genesis_at = coalesce(excluded.genesis_at, v.genesis_at);
        IF verified.seq IS DISTINCT FROM chain.head_seq THEN
            actions := actions || to_jsonb(format('chain verified up to seq %s', chain.head_seq));
        END IF;
    END IF;
    IF chain.ok AND standing.conversation_id IS NOT NULL THEN
        DELETE FROM pgctx.chain_breaks b WHERE b.conversation_id = recover.conversation_id;
        actions := actions || to_jsonb(format('the chain break at seq %s (found %s) is resolved: the chain verifies from genesis',
                                              standing.seq, standing.found_at));
    ELSIF NOT chain.ok AND (standing.seq, standing.reason) IS DISTINCT FROM (chain.first_bad_seq, chain.reason) THEN
        INSERT INTO pgctx.chain_breaks AS b (conversation_id, seq, reason, tenant)
        VALUES (conversation_id, chain.first_bad_seq, chain.reason, head.tenant)
        ON CONFLICT ON CONSTRAINT chain_breaks_pkey DO UPDATE
           SET seq = excluded.seq, reason = excluded.reason, found_at = excluded.found_at;
        actions := actions || to_jsonb(format('chain break at seq %s recorded', chain.first_bad_seq));
    END IF;

    -- 2. PREPARED folds, oldest first: commit the first that still passes, discard the others
    FOR cp IN SELECT * FROM pgctx.checkpoints c
               WHERE c.conversation_id = recover.conversation_id AND c.phase = 'PREPARED' ORDER BY c.version LOOP
        SELECT * INTO cp FROM pgctx.checkpoints c
         WHERE c.conversation_id = cp.conversation_id AND c.version = cp.version;
        CONTINUE WHEN cp.phase <> 'PREPARED';  -- retired by a commit earlier in this loop
        problem := pgctx.recheck_prepared(cp, head, chain.ok, chain.first_bad_seq);
        IF problem IS NULL THEN
            UPDATE pgctx.checkpoints c SET phase = 'COMMITTED'
             WHERE c.conversation_id = cp.conversation_id AND c.version = cp.version;
            SELECT * INTO head FROM pgctx.fold_heads h WHERE h.conversation_id = recover.conversation_id;
            prepared := prepared || jsonb_build_object('version', cp.version, 'cursor', cp.cursor, 'action', 'committed');
        ELSE
            UPDATE pgctx.checkpoints c SET phase = 'DISCARDED', discard_reason = 'recovery: ' || problem
             WHERE c.conversation_id = cp.conversation_id AND c.version = cp.version;
            prepared := prepared || jsonb_build_object('version', cp.version, 'cursor', cp.cursor,
                                                       'action', 'discarded', 'reason', problem);
        END IF;
    END LOOP;
    IF jsonb_array_length(prepared) > 0 THEN
        actions := actions || to_jsonb(format('%s prepared fold(s) resolved', jsonb_array_length(prepared)));
    END IF;

    -- 3. a break inside the committed range: fall back to the newest checkpoint before it
    IF NOT chain.ok THEN
        IF head.version > 0 AND chain.first_bad_seq <= head.cursor THEN
            SELECT * INTO fallback FROM pgctx.checkpoints c
             WHERE c.conversation_id = recover.conversation_id AND c.phase = 'COMMITTED'
               AND c.cursor < chain.first_bad_seq
               AND EXISTS (SELECT 1 FROM pgctx.events e WHERE e.conversation_id = c.conversation_id
                              AND e.seq = c.cursor AND e.hash = c.chain_hash)
             ORDER BY c.version DESC LIMIT 1;
            UPDATE pgctx.fold_heads h
               SET version = coalesce(fallback.version, 0),
                   cursor = coalesce(fallback.cursor,
                                     (SELECT c.base_seq FROM pgctx.conversations c
                                       WHERE c.conversation_id = recover.conversation_id)),
                   checksum = fallback.checksum,
                   fallback_reason = format('chain broken at seq %s (%s); version %s (cursor %s) covered it',
                                            chain.first_bad_seq, chain.reason, head.version, head.cursor)
             WHERE h.conversation_id = recover.conversation_id;
            actions := actions || to_jsonb(format('committed fold fell back from version %s to %s',
                                                  head.version, coalesce(fallback.version, 0)));
            SELECT * INTO head FROM pgctx.fold_heads h WHERE h.conversation_id = recover.conversation_id;
        END IF;
        needs_human := needs_human || to_jsonb(format(
            'the chain is broken at seq %s: %s. Folds stop before it (the committed fold is version %s, cursor %s); a human must inspect the history (compare it with an exported digest: pgctx verify --against). It stands, and every recovery run reports it, until the chain verifies from genesis again: restore the original rows (from a backup or an exported bundle) and run recover; to carry on meanwhile, fork the conversation at its committed fold (pgctx.fork_conversation).',
            chain.first_bad_seq, chain.reason, head.version, head.cursor));
    END IF;

    -- 4. calls the restart interrupted become unknown (one recovery event), with the chain whole
    --    over what decides them (step 1); list every unknown call
    IF interrupted IS NOT NULL AND NOT chain.ok THEN
        needs_human := needs_human || to_jsonb(format(
            '%s running call(s) (first at seq %s) were not marked unknown: the chain is broken at seq %s, so what says they are still running is not verified. Recovery marks them once the chain verifies again.',
            jsonb_array_length(interrupted), interrupted->0->>'seq', chain.first_bad_seq));
    ELSIF interrupted IS NOT NULL THEN
        -- chained here under the head row lock, not through the row trigger: an abandoned branch
        -- refuses appends, not the record that the calls interrupted there have an unknown outcome
        SELECT * INTO conv FROM pgctx.conversations c WHERE c.conversation_id = recover.conversation_id FOR UPDATE;
        recovery_seq := pgctx.append_chained(conv, 'recovery', jsonb_build_object('interrupted_calls', interrupted));
        SELECT e.hash INTO recovery_hash FROM pgctx.events e
         WHERE e.conversation_id = recover.conversation_id AND e.seq = recovery_seq;
        IF chain.ok THEN
            -- the new event links to the head just verified: the verified point moves with it (and
            -- so does the reach of this run from genesis), so that a second run finds nothing to do
            UPDATE pgctx.verified_points v SET seq = recovery_seq, hash = recovery_hash, verified_at = now(),
                   genesis_seq = CASE WHEN resume THEN v.genesis_seq ELSE recovery_seq END
             WHERE v.conversation_id = recover.conversation_id;
        END IF;
        actions := actions || to_jsonb(format('%s running call(s) marked unknown by recovery event seq %s',
                                              jsonb_array_length(interrupted), recovery_seq));
    END IF;

    RETURN jsonb_build_object(
        'conversation_id', conversation_id,
        'changed', jsonb_array_length(actions) > 0,
        'actions', actions,
        'chain', jsonb_build_object(
            'ok', chain.ok, 'checked', chain.checked, 'first_bad_seq', chain.first_bad_seq,
            'reason', chain.reason, 'head_seq', chain.head_seq, 'from_genesis', NOT resume,
            -- the seqs this run read (the bad one included); NULL when there was nothing new
            'checked_seqs', CASE WHEN chain.checked > 0
                                 THEN jsonb_build_array(start_seq + 1, start_seq + chain.checked) END,
            -- a run that resumed vouches for its range only: what earlier runs verified, and when
            'verified_before', CASE WHEN resume THEN jsonb_build_object(
                'up_to_seq', verified.seq, 'at', verified.verified_at,
                'from_genesis_up_to_seq', verified.genesis_seq, 'from_genesis_at', verified.genesis_at) END),
        'committed', jsonb_build_object('version', head.version, 'cursor', head.cursor,
                                        'fallback_reason', head.fallback_reason),
        'prepared', prepared,
        'recovery_event_seq', recovery_seq,
        'unknown_side_effects', coalesce((
            SELECT jsonb_agg(jsonb_build_object('call_id', t.call_id, 'tool', t.tool, 'effect', t.effect,
                                                'idempotency_key', t.idempotency_key, 'seq', t.call_seq)
                             ORDER BY t.call_seq)
              FROM pgctx.tool_calls(conversation_id, 0, NULL) t WHERE t.status = 'unknown'), '[]'),
        'needs_human', needs_human
    );
END
$$;

COMMENT ON FUNCTION pgctx.recover(text, boolean) IS
    'Deterministic, idempotent recovery: verify the chain, resolve PREPARED folds, fall back past a break, mark interrupted calls unknown; returns a report.';
