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
--     anchor (anchor_seq, anchor_hash from `pgctx digest`) is given and matches. A branch's
--     digest taken at its fork point is its genesis (the source's hash there); an anchor before
--     the fork point is the source's to verify (PC015).
--   * Erasure (190) is verified, not excused: an erased event (erased_in set) must hold exactly
--     the marker payload and the fields its kind keeps (pgctx.erased_payload, 030) and no salt,
--     and be listed by the erasure event it names (a later event of the same conversation, itself
--     chained); an event an erasure lists must be erased, and the fields its erased events keep
--     must match the kept_digest it recorded (so they are as bound to the chain as a payload). A v2
--     event's hash is recomputed from its payload digest, erased or not, and its digest from salt
--     and payload while it holds them. A v1 event's hash is over its payload, so once erased only
--     its place in the chain is proven (its stored hash is bound by the next event's hash and by
--     digests), not its kind or content; the report says so. A consistent report names every
--     erasure: "consistent, unanchored; N events erased on DATE by ROLE (erasure at seq S)".
--   * Read-only and SECURITY INVOKER: a caller verifies only what row-level security lets it
--     see, and an unknown or invisible conversation is PC014.

-- 0007 added the erased column.
DROP FUNCTION IF EXISTS pgctx.verify_chain(text, bigint, bytea, bigint, bytea);

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
    OUT anchored boolean,
    OUT erased bigint
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp
-- No JIT: the per-row query carries the erasure events' check (unerased, run for erasure events
-- only), which the planner costs as if it ran for every row (17.5M for 5,000 events), so once
-- the log has statistics every call JIT-compiled ~29 functions: ~190 ms against ~20 ms for the
-- verification itself (bench/ab.py verify-log, bench/results/chain-v2-ab.md).
SET jit = off AS $$
DECLARE
    conv        pgctx.conversations%ROWTYPE;
    start_hash  bytea;
    last_seq    bigint;
    last_hash   bytea;
    prior_seq   bigint;
    prior_hash  bytea;
    ev          record;
    stored      bytea;
    erasures    text;       -- what the report says about the erasures
    v1_erased   bigint;
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
    erased := 0;  -- on every path: a report that stops at a break says 0, not NULL


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
    IF from_seq IS NULL OR from_seq < 0 OR anchor_seq < 1 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC015',
            MESSAGE = format('from_seq must be >= 0 and anchor_seq >= 1 (got %s, %s)', from_seq, anchor_seq);
    ELSIF anchor_seq < conv.base_seq THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC015',
            MESSAGE = format('anchor_seq %s is before the fork point of branch %s (seq %s)',
                             anchor_seq, conv.conversation_id, conv.base_seq),
            HINT = format('seqs up to %s belong to the source %s: verify it against the digest there',
                          conv.base_seq, conv.forked_from);
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
    FOR ev IN SELECT e.seq, e.prev_hash, e.hash, e.erased_in,
                     CASE WHEN e.payload_digest IS NULL                     -- chain format v1
                          THEN e.erased_in IS NOT NULL
                               OR e.hash = pgctx.event_hash(e.conversation_id, e.seq, e.kind, e.prev_hash, e.payload::text)
                          ELSE e.hash = pgctx.event_hash_v2(e.conversation_id, e.seq, e.kind, e.prev_hash, e.payload_digest)
                               AND (e.erased_in IS NOT NULL
                                    OR e.payload_digest = pgctx.payload_digest(e.salt, e.payload::text)) IS TRUE
                     END AS hash_ok,
                     -- (that the erasure lists it is asked in the loop below, in a statement of
                     -- its own: inside this query it would be a read of the log within a read of
                     -- the log, which Citus refuses on a shard)
                     CASE WHEN e.erased_in IS NOT NULL
                          THEN e.salt IS NULL AND e.payload = pgctx.erased_payload(e.erased_in, e.kind, e.payload)
                     END AS erasure_ok,
                     -- an erasure event: the first seq it lists that it did not erase (the
                     -- events_erasure index: a few lookups per erasure, none per other event).
                     -- The lookup names the conversation by the argument, not by e's column: on
                     -- Citus a subquery correlated on the distribution column is planned apart
                     -- and refused ("correlated subqueries are not supported when the FROM clause
                     -- contains a set returning function"); by the argument it is one shard's.
                     CASE WHEN e.kind = 'erasure' AND jsonb_typeof(e.payload->'seqs') = 'array'
                          THEN (SELECT min(q) FROM jsonb_array_elements(e.payload->'seqs') r,
                                       generate_series((r->>0)::bigint, (r->>1)::bigint) q
                                 WHERE NOT EXISTS (SELECT 1 FROM pgctx.events x
                                                    WHERE x.conversation_id = verify_chain.conversation_id AND x.seq = q
                                                      AND x.erased_in = e.seq))
                     END AS unerased,
                     -- an erasure event: whether the fields its erased events keep (030) are the
                     -- ones it recorded (kept_digest; absent when none keeps any). By primary key
                     -- over the seqs it lists, the conversation named by the argument (as above).
                     -- Over what each keeps (its erased_payload), so that anything else an erased
                     -- event holds is reported at that event (erasure_ok), not here: a range
                     -- verified after it (prepare_fold's, recover's) does not fail for it.
                     CASE WHEN e.kind = 'erasure' AND jsonb_typeof(e.payload->'seqs') = 'array'
                          THEN pgctx.erasure_kept_digest(
                                   (SELECT jsonb_object_agg(x.seq::text, k.fields)
                                      FROM jsonb_array_elements(e.payload->'seqs') r,
                                           generate_series((r->>0)::bigint, (r->>1)::bigint) q,
                                           pgctx.events x,
                                           LATERAL (SELECT pgctx.erased_payload(x.erased_in, x.kind, x.payload)
                                                           - 'pgctx_erased' AS fields) k
                                     WHERE x.conversation_id = verify_chain.conversation_id AND x.seq = q
                                       AND x.erased_in = e.seq AND k.fields <> '{}'::jsonb))
                               IS NOT DISTINCT FROM e.payload->>'kept_digest'
                     END AS kept_ok
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
        ELSIF NOT ev.erasure_ok OR (ev.erased_in IS NOT NULL
                                    AND NOT pgctx.erasure_lists(verify_chain.conversation_id, ev.erased_in, ev.seq)) THEN
            first_bad_seq := ev.seq;
            reason := format('seq %s is marked erased by seq %s, but that erasure does not list it or the event still holds content or a salt',
                             ev.seq, ev.erased_in);
        ELSIF ev.unerased IS NOT NULL THEN
            first_bad_seq := ev.unerased;
            reason := format('an erasure lists seq %s, which still holds its content', ev.unerased);
        ELSIF NOT ev.kept_ok THEN
            first_bad_seq := ev.seq;
            reason := format('the ids the events erased by seq %s keep (call ids, outcomes) are not the ones it recorded',
                             ev.seq);
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
        IF anchor_seq = conv.base_seq THEN
            stored := conv.genesis_hash;  -- a branch's digest at its fork point: the source's hash there, checked above
        ELSE
            SELECT e.hash INTO stored FROM pgctx.events e
             WHERE e.conversation_id = verify_chain.conversation_id AND e.seq = anchor_seq;
        END IF;
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
    SELECT coalesce(sum((x.payload->>'count')::bigint), 0)::bigint INTO erased  -- (sum of bigint is numeric)
      FROM pgctx.events x
     WHERE x.conversation_id = verify_chain.conversation_id AND x.kind = 'erasure' AND x.erased_in IS NULL;
    IF erased > 0 THEN
        SELECT string_agg(format('%s %s erased on %s by %s (erasure at seq %s)', x.payload->>'count',
                                 CASE WHEN x.payload->>'count' = '1' THEN 'event' ELSE 'events' END,
                                 left(x.payload->>'erased_at', 10), x.payload->>'erased_by', x.seq), '; ' ORDER BY x.seq)
          INTO erasures
          FROM pgctx.events x
         WHERE x.conversation_id = verify_chain.conversation_id AND x.kind = 'erasure' AND x.erased_in IS NULL;
        SELECT count(*) INTO v1_erased FROM pgctx.events e
         WHERE e.conversation_id = verify_chain.conversation_id AND e.erased_in IS NOT NULL AND e.payload_digest IS NULL;
        reason := reason || '; ' || erasures
                  || CASE WHEN v1_erased > 0
                          THEN format('; %s of them in chain format v1: their place in the chain is proven, their kind and content no longer are',
                                      v1_erased)
                          ELSE '' END;
    END IF;
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
