-- 120: branches (article 十三: concurrent alternatives are kept apart until the user chooses).
--
-- Invariants enforced here:
--   * fork_conversation(source, at_seq, new_id) starts a branch whose chain continues from the
--     source's hash at at_seq: its genesis is that hash, its first event is seq at_seq + 1, and
--     its first fold continues from the source's committed fold. A fork is taken only at the
--     source's committed fold boundary (PC116), so nothing between the source's summary and the
--     branch's first event is ever left unfolded. A fork of a branch at its own fork point (before
--     its first fold) is a fork of that branch's source there: the same history and summary.
--   * The source and its forks form a family. Branches stay separate: no event moves between
--     them. confirm_mainline(id) marks that branch mainline and every other open member of the
--     family abandoned, and records the decision as a branch_merge event in the mainline's log;
--     an abandoned branch refuses appends (PC016; recovery still records its interrupted calls,
--     110) and never becomes mainline again. Nothing is merged silently.

-- A conversation's branches, looked up by retention (090: a checkpoint a branch continues from is
-- kept) and erasure; partial, as nearly no conversation is a branch.
CREATE INDEX IF NOT EXISTS conversations_forked_from ON pgctx.conversations (forked_from)
    WHERE forked_from IS NOT NULL;

CREATE OR REPLACE FUNCTION pgctx.fork_conversation(source text, at_seq bigint, new_id text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    head    pgctx.fold_heads%ROWTYPE := pgctx.lock_fold_head(source);
    src     pgctx.conversations%ROWTYPE;
    at_hash bytea;
    fork_of text;
    at_version integer;
BEGIN
    SELECT * INTO STRICT src FROM pgctx.conversations c WHERE c.conversation_id = source FOR UPDATE;
    IF NOT pgctx.valid_conversation_id(new_id) THEN
        RAISE EXCEPTION USING ERRCODE = 'PC001',
            MESSAGE = 'invalid conversation id: 1 to 256 bytes, no control characters, no surrounding spaces',
            DETAIL = format('got %L', left(new_id, 300));
    END IF;
    IF src.branch_status = 'abandoned' THEN
        RAISE EXCEPTION USING ERRCODE = 'PC016',
            MESSAGE = format('conversation %s is an abandoned branch and cannot be forked', source);
    END IF;
    IF at_seq IS NULL OR at_seq < 1 OR at_seq <> head.cursor THEN
        RAISE EXCEPTION USING ERRCODE = 'PC116',
            MESSAGE = format('fork %s at its committed fold boundary (seq %s), not at seq %s', source, head.cursor, at_seq),
            HINT = 'fold the source up to the seq to fork at first';
    END IF;
    IF at_seq = src.base_seq THEN
        -- a branch before its first fold, at its own fork point: that seq is its source's (the
        -- branch holds none of its events), and so is the fold it continues from, so this is a
        -- fork of its source there, the same history (and what a fold of it continues from)
        at_hash := src.genesis_hash;
        fork_of := src.forked_from;
        at_version := src.fork_version;
    ELSE
        SELECT e.hash INTO STRICT at_hash FROM pgctx.events e WHERE e.conversation_id = source AND e.seq = at_seq;
        fork_of := source;
        at_version := head.version;
    END IF;
    INSERT INTO pgctx.conversations AS c (conversation_id, tenant, genesis_hash, head_seq, head_hash, base_seq,
                                          forked_from, fork_version, family, branch_status)
    VALUES (new_id, src.tenant, at_hash, at_seq, at_hash, at_seq, fork_of, at_version,
            coalesce(src.family, source), 'open')
    ON CONFLICT (conversation_id) DO NOTHING;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'PC117', MESSAGE = format('conversation %s already exists', new_id);
    END IF;
    UPDATE pgctx.conversations c
       SET family = coalesce(c.family, source), branch_status = coalesce(c.branch_status, 'open')
     WHERE c.conversation_id = source AND (c.family IS NULL OR c.branch_status IS NULL);
    RETURN new_id;
END
$$;

COMMENT ON FUNCTION pgctx.fork_conversation(text, bigint, text) IS
    'Start a branch of source at its committed fold boundary; the branch chains from the source''s hash there.';

CREATE OR REPLACE FUNCTION pgctx.confirm_mainline(conversation_id text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    conv      pgctx.conversations%ROWTYPE;
    abandoned jsonb;
    member    text;
BEGIN
    SELECT * INTO conv FROM pgctx.conversations c WHERE c.conversation_id = confirm_mainline.conversation_id;
    IF NOT FOUND OR NOT pgctx.tenant_visible(conv.tenant) THEN
        RAISE EXCEPTION USING ERRCODE = 'PC014',
            MESSAGE = format('no conversation %L (or not visible to role %s)', confirm_mainline.conversation_id, session_user);
    ELSIF NOT pgctx.tenant_member(conv.tenant) THEN
        RAISE EXCEPTION USING ERRCODE = 'PC010',
            MESSAGE = format('role %s is not a member of the tenant of conversation %s', session_user, conv.conversation_id);
    ELSIF conv.family IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'PC118',
            MESSAGE = format('conversation %s has no branches', conv.conversation_id);
    END IF;
    -- lock the whole family in one order, so concurrent confirmations serialize without deadlock:
    -- one member at a time, each a single-conversation statement (a FOR UPDATE or an UPDATE of the
    -- whole family crosses shards on Citus, scaling.md). A branch forked meanwhile is not missed:
    -- forking locks its source, a member locked here.
    FOR member IN SELECT c.conversation_id FROM pgctx.conversations c WHERE c.family = conv.family
                   ORDER BY c.conversation_id LOOP
        PERFORM 1 FROM pgctx.conversations c WHERE c.conversation_id = member FOR UPDATE;
    END LOOP;
    SELECT * INTO conv FROM pgctx.conversations c WHERE c.conversation_id = confirm_mainline.conversation_id;
    IF conv.branch_status = 'abandoned' THEN
        RAISE EXCEPTION USING ERRCODE = 'PC016',
            MESSAGE = format('conversation %s is an abandoned branch and cannot become mainline', conv.conversation_id);
    END IF;
    abandoned := '[]';
    FOR member IN SELECT c.conversation_id FROM pgctx.conversations c
                   WHERE c.family = conv.family AND c.conversation_id <> conv.conversation_id AND c.branch_status = 'open'
                   ORDER BY c.conversation_id LOOP
        UPDATE pgctx.conversations c SET branch_status = 'abandoned' WHERE c.conversation_id = member;
        abandoned := abandoned || to_jsonb(member);
    END LOOP;
    IF conv.branch_status = 'mainline' AND abandoned = '[]'::jsonb THEN
        RETURN jsonb_build_object('mainline', conv.conversation_id, 'abandoned', abandoned, 'changed', false);
    END IF;
    UPDATE pgctx.conversations c SET branch_status = 'mainline' WHERE c.conversation_id = conv.conversation_id;
    INSERT INTO pgctx.events (conversation_id, kind, payload)
    VALUES (conv.conversation_id, 'branch_merge',
            jsonb_build_object('mainline', conv.conversation_id, 'abandoned', abandoned, 'family', conv.family));
    RETURN jsonb_build_object('mainline', conv.conversation_id, 'abandoned', abandoned, 'changed', true);
END
$$;

COMMENT ON FUNCTION pgctx.confirm_mainline(text) IS
    'Confirm a branch as mainline: every other open branch of its family is abandoned (kept, never merged), and the decision is logged.';

CREATE OR REPLACE VIEW pgctx.branches WITH (security_invoker = true) AS
SELECT c.family, c.conversation_id, c.branch_status, c.forked_from, c.base_seq AS fork_seq, c.fork_version,
       c.head_seq, c.created_at
  FROM pgctx.conversations c
 WHERE c.family IS NOT NULL;

COMMENT ON VIEW pgctx.branches IS 'Every branch family: which conversation forked from which, where, and its status.';
