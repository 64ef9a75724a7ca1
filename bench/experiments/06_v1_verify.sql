-- Chain format v1's verify_chain (sql/050_verify.sql at d8eedba, the last revision before chain
-- format v2, commit 440cdf2 / migration 0007), for an A/B against the current one:
--     .venv/bin/python bench/ab.py verify d8eedba sql/030_events.sql sql/040_append.sql \
--         bench/experiments/06_v1_verify.sql
-- (database a then appends and verifies v1 chains). The old file cannot be applied as it is on
-- top of the new schema: CREATE OR REPLACE cannot drop the new OUT column erased, so the function
-- is dropped first, which also drops its grants; they are given back as sql/060_security.sql does.
DROP FUNCTION IF EXISTS pgctx.verify_chain(text, bigint, bytea, bigint, bytea);

-- ---- sql/050_verify.sql at d8eedba -------------------------------------------------------------
-- 050: chain verification and heads for external digests.
--
-- Invariants enforced here:
--   * verify_chain recomputes every hash of a conversation in one ordered scan of the primary key
--     (no recursive walk, no sort) and reports the first bad seq with its reason: a
--     genesis that is not the one of the conversation id, a missing seq, a prev_hash that is not the previous event's hash, a hash that does not match
--     the event's content and position, or a head row that disagrees with the last event.
--   * It can resume from a previously verified point (from_seq, and optionally the hash that
--     was verified there) instead of rehashing the whole history.
--   * Stated limit (invariant 9): these checks catch edits by anyone below the table owner; a
--     superuser can rewrite events and recompute every hash. Only a digest kept outside the
--     database proves history against that, so a result is "consistent, unanchored" unless an
--     anchor (anchor_seq, anchor_hash from `pgctx digest`) is given and matches.
--   * Read-only and SECURITY INVOKER: a caller verifies only what row-level security lets it
--     see, and an unknown or invisible conversation is PC014.

CREATE OR REPLACE FUNCTION pgctx.verify_chain(
    conversation_id text,
    from_seq bigint DEFAULT 0,
    from_hash bytea DEFAULT NULL,
    anchor_seq bigint DEFAULT NULL,
    anchor_hash bytea DEFAULT NULL,
    OUT ok boolean,
    OUT checked bigint,
    OUT first_bad_seq bigint,
    OUT reason text,
    OUT head_seq bigint,
    OUT head_hash bytea,
    OUT anchored boolean
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    conv        pgctx.conversations%ROWTYPE;
    start_hash  bytea;
    last_seq    bigint;
    last_hash   bytea;
    prior_seq   bigint;
    prior_hash  bytea;
    ev          record;
    stored      bytea;
BEGIN
    SELECT * INTO conv FROM pgctx.conversations c WHERE c.conversation_id = verify_chain.conversation_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC014',
            MESSAGE = format('no conversation %L (or not visible to role %s)', verify_chain.conversation_id, session_user);
    END IF;
    head_seq := conv.head_seq;
    head_hash := conv.head_hash;
    anchored := false;

    -- the genesis of a conversation is the hash of its id; a branch's is its source's hash at
    -- the fork point
    IF (conv.forked_from IS NULL AND conv.genesis_hash <> pgctx.genesis_hash(conv.conversation_id))
       OR (conv.forked_from IS NOT NULL AND NOT EXISTS (
               SELECT 1 FROM pgctx.events s WHERE s.conversation_id = conv.forked_from
                  AND s.seq = conv.base_seq AND s.hash = conv.genesis_hash)) THEN
        ok := false; checked := 0; first_bad_seq := conv.base_seq + 1;
        reason := CASE WHEN conv.forked_from IS NULL
                       THEN 'the conversation row''s genesis hash is not the genesis of its id'
                       ELSE format('the branch''s genesis is not the hash of %s at its fork point seq %s',
                                   conv.forked_from, conv.base_seq) END;
        RETURN;
    END IF;
    IF from_seq IS NULL OR from_seq < 0 OR (anchor_seq IS NOT NULL AND anchor_seq < 1) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC015',
            MESSAGE = format('from_seq must be >= 0 and anchor_seq >= 1 (got %s, %s)', from_seq, anchor_seq);
    END IF;
    IF from_seq <= conv.base_seq THEN  -- from the start (a branch starts at its fork point)
        from_seq := conv.base_seq;
        start_hash := conv.genesis_hash;
    ELSE
        SELECT e.hash INTO start_hash FROM pgctx.events e
         WHERE e.conversation_id = verify_chain.conversation_id AND e.seq = from_seq;
        IF NOT FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = 'PC015',
                MESSAGE = format('cannot resume conversation %s at seq %s: no such event', verify_chain.conversation_id, from_seq);
        END IF;
    END IF;
    IF from_hash IS NOT NULL AND from_hash <> start_hash THEN
        ok := false; checked := 0; first_bad_seq := greatest(from_seq, 1);
        reason := format('hash at resume point seq %s differs from the one verified before', from_seq);
        RETURN;
    END IF;

    -- One pass in seq order over the primary key, stopping at the first bad event. A plpgsql
    -- loop, not a window query: the index already delivers seq order, so there is no sort, and
    -- nothing is kept but the previous seq and hash (measured: the window query, which sorted,
    -- ran at about 0.35x of raw sha256 over the payloads). The hash is recomputed by the query,
    -- so no payload is copied into the loop (~5% of verify_chain).
    checked := 0;
    prior_seq := from_seq;
    prior_hash := start_hash;
    FOR ev IN SELECT e.seq, e.prev_hash, e.hash,
                     e.hash = pgctx.event_hash(e.conversation_id, e.seq, e.kind, e.prev_hash, e.payload::text) AS hash_ok
                FROM pgctx.events e
               WHERE e.conversation_id = verify_chain.conversation_id AND e.seq > from_seq
               ORDER BY e.seq LOOP
        checked := checked + 1;
        IF ev.seq <> prior_seq + 1 THEN
            first_bad_seq := prior_seq + 1;
            reason := format('event seq %s is missing (next present is %s)', prior_seq + 1, ev.seq);
        ELSIF ev.prev_hash <> prior_hash THEN
            first_bad_seq := ev.seq;
            reason := format('prev_hash of seq %s is not the hash of seq %s', ev.seq, ev.seq - 1);
        ELSIF NOT ev.hash_ok THEN
            first_bad_seq := ev.seq;
            reason := format('hash of seq %s does not match its content, kind, position or conversation', ev.seq);
        END IF;
        EXIT WHEN first_bad_seq IS NOT NULL;
        prior_seq := ev.seq;
        prior_hash := ev.hash;
    END LOOP;
    last_seq := prior_seq;
    last_hash := prior_hash;

    IF first_bad_seq IS NOT NULL THEN
        ok := false;
        RETURN;
    END IF;

    IF conv.head_seq > last_seq THEN
        ok := false; first_bad_seq := last_seq + 1;
        reason := format('head row records seq %s but the log ends at seq %s (events missing at the tail)',
                         conv.head_seq, last_seq);
        RETURN;
    ELSIF conv.head_seq < last_seq OR conv.head_hash <> last_hash THEN
        ok := false; first_bad_seq := conv.head_seq + 1;
        reason := format('head row (seq %s) does not match the last event (seq %s)', conv.head_seq, last_seq);
        RETURN;
    END IF;

    IF anchor_seq IS NOT NULL THEN
        IF anchor_seq > last_seq THEN
            ok := false; first_bad_seq := last_seq + 1;
            reason := format('history truncated: the digest records seq %s but the log ends at seq %s',
                             anchor_seq, last_seq);
            RETURN;
        END IF;
        SELECT e.hash INTO stored FROM pgctx.events e
         WHERE e.conversation_id = verify_chain.conversation_id AND e.seq = anchor_seq;
        IF stored IS DISTINCT FROM anchor_hash THEN
            ok := false; first_bad_seq := anchor_seq;
            reason := format('history rewritten: hash at seq %s differs from the digest (the change is at or before it)',
                             anchor_seq);
            RETURN;
        END IF;
        anchored := true;
    END IF;

    ok := true;
    reason := CASE WHEN anchored THEN format('consistent, anchored at seq %s', anchor_seq)
                   ELSE 'consistent, unanchored' END;
END
$$;

COMMENT ON FUNCTION pgctx.verify_chain(text, bigint, bytea, bigint, bytea) IS
    'Recompute a conversation''s hash chain; first bad seq and reason. "consistent, unanchored" unless checked against a digest anchor.';

-- Heads for `pgctx digest`: what to keep outside the database.
CREATE OR REPLACE VIEW pgctx.chain_heads WITH (security_invoker = true) AS
SELECT conversation_id, tenant, head_seq, encode(head_hash, 'hex') AS head_hash, created_at
  FROM pgctx.conversations;

COMMENT ON VIEW pgctx.chain_heads IS
    'Each conversation''s chain head (seq, hex hash): export it (pgctx digest) to anchor verification outside the database.';
-- ---- end of sql/050_verify.sql at d8eedba ------------------------------------------------------

REVOKE ALL ON FUNCTION pgctx.verify_chain(text, bigint, bytea, bigint, bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgctx.verify_chain(text, bigint, bytea, bigint, bytea) TO pgctx_app, pgctx_auditor;
