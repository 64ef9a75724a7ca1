-- 190: erasing conversation content, and retention (article 十: the chain still shows a missing
-- or reordered event after content is erased; 十五: history needs a retention policy).
--
-- Invariants enforced here:
--   * Only members of pgctx_eraser (granted by a DBA) and the schema owner erase: the functions
--     are SECURITY DEFINER and executable by pgctx_eraser alone (and the owner); pgctx_app and
--     pgctx_auditor are refused (42501) and nothing changes. An eraser acts on every tenant.
--   * pgctx.erase_events(conversation, seqs, reason), in one transaction, holding the
--     conversation's head row lock (so appends wait, then chain after it: no gap) and its fold
--     lock exclusive (so no fold is prepared or committed meanwhile):
--       1. appends one erasure event S to the conversation's own chain, chained like any event:
--          {seqs: [[from, to], ...], count, reason, erased_by (session_user), erased_at (UTC),
--          checkpoints_removed: {conversation: [versions]}, kept_digest}: no erased content;
--          kept_digest (only when some erased event keeps ids) binds what step 2 keeps (030);
--       2. erases each listed event: payload -> pgctx.erased_payload(S, kind, payload), the marker
--          {"pgctx_erased": S} plus, for a tool_call, tool_result or status_query, the ledger's
--          ids (call_id, tool, effect, idempotency_key; call_id, outcome, request_id), salt and
--          tokens -> NULL, erased_in -> S (the only UPDATE the events trigger allows, 030: S must
--          list it and the kept ids must be the old payload's);
--       3. removes every checkpoint whose summary or evidence may hold erased content: of the
--          conversation, those whose cursor is at or after the first erased seq (PREPARED ones of
--          the conversation are discarded first), the committed fold falling back to the newest
--          COMMITTED checkpoint before it, or to nothing folded, with the reason recorded; of every
--          branch whose history includes an erased event (forked at or after it, and their
--          branches), all of them, and the branch's fold head returns to its fork point.
--     Tool state, side effects and pinned evidence are derived from events and checkpoints, so
--     they lose the erased content with them; the side-effect ledger keeps every call (article
--     十二): an erased call keeps its id, tool, effect, idempotency key, status and request id,
--     is marked content_erased in pgctx.side_effects (140), and an unknown one is still listed
--     by recovery for a status query by its idempotency key (080, 110). Already erased events are skipped; a seq that is
--     not an event of the conversation (for a branch: at or before its fork point, which belongs
--     to its source), an erasure event, no seqs or an empty reason is PC017 and nothing changes.
--     When every listed event is already erased nothing is written (erased 0).
--   * What stays, by design: each event's kind, seq, links, hash, payload digest, event key and
--     created_at; the conversation id (inside every hash); a tool event's call id, tool name,
--     effect, idempotency key, outcome and request id (never arguments, results, error texts);
--     the erasure's reason. Keep personal data out of ids (call ids, idempotency keys and request
--     ids included), tool names, event keys and reasons. Events erased before tool events kept
--     ids hold the marker alone: they stay valid (050), and their calls stay out of the ledger.
--   * Physically: the old row versions stay in the table files until VACUUM, and in WAL, base
--     backups and replicas until those age out (README, docs/guarantees.md).
--   * Retention: pgctx.retention_policy holds, globally (tenant NULL) or per tenant (overriding
--     the global one), after how many idle days a conversation is erased; idle = since its newest
--     event that is not an erasure. pgctx.expired_conversations lists what pgctx.erase_expired
--     would erase (a dry run); erase_expired erases them, one erasure per conversation.

-- The caller may erase: a member of pgctx_eraser that is not also an application login, or
-- the schema owner. Row-level security lets such a caller see and change every tenant's rows,
-- for the erase functions (an eraser has no table privileges, so only through them); a login
-- that is both pgctx_app and pgctx_eraser would otherwise read across tenants.
CREATE OR REPLACE FUNCTION pgctx.erasing() RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    -- schema-qualified, operator too: inlined into policies in the caller's session (see 020)
    SELECT (pg_catalog.pg_has_role(session_user, 'pgctx_eraser', 'USAGE')
            AND NOT pg_catalog.pg_has_role(session_user, 'pgctx_app', 'USAGE'))
        OR pg_catalog.pg_has_role(session_user, (SELECT n.nspowner FROM pg_catalog.pg_namespace n
                                                  WHERE n.nspname OPERATOR(pg_catalog.=) 'pgctx'::name), 'USAGE')
$$;

COMMENT ON FUNCTION pgctx.erasing() IS
    'Row-level security helper: whether the login role may erase (a pgctx_eraser member that is not also an application login, or the schema owner), which lets the erase functions see and change every tenant''s rows. Schema-qualified: inlined into policies in the caller''s session.';

DROP POLICY IF EXISTS conversations_erase ON pgctx.conversations;
CREATE POLICY conversations_erase ON pgctx.conversations FOR ALL USING (pgctx.erasing()) WITH CHECK (pgctx.erasing());
DROP POLICY IF EXISTS events_erase ON pgctx.events;
CREATE POLICY events_erase ON pgctx.events FOR ALL USING (pgctx.erasing()) WITH CHECK (pgctx.erasing());
DROP POLICY IF EXISTS checkpoints_erase ON pgctx.checkpoints;
CREATE POLICY checkpoints_erase ON pgctx.checkpoints FOR ALL USING (pgctx.erasing()) WITH CHECK (pgctx.erasing());
DROP POLICY IF EXISTS fold_heads_erase ON pgctx.fold_heads;
CREATE POLICY fold_heads_erase ON pgctx.fold_heads FOR ALL USING (pgctx.erasing()) WITH CHECK (pgctx.erasing());

-- The erasure itself; seqs NULL = every event of the conversation.
CREATE OR REPLACE FUNCTION pgctx.erase(conversation_id text, seqs bigint[], reason text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
#variable_conflict use_variable
DECLARE
    conv       pgctx.conversations%ROWTYPE;
    head       pgctx.fold_heads%ROWTYPE;
    fallback   pgctx.checkpoints%ROWTYPE;
    bad        bigint[];
    targets    bigint[];
    ranges     jsonb;
    first_seq  bigint;
    affected   text[];
    frontier   text[];
    removed    jsonb;
    kept       jsonb;
    s          bigint;
    branch     text;
    gone       record;
    why        text;
BEGIN
    IF reason IS NULL OR btrim(reason) = '' THEN
        RAISE EXCEPTION USING ERRCODE = 'PC017', MESSAGE = 'an erasure needs a reason';
    END IF;
    IF seqs IS NOT NULL AND (cardinality(seqs) = 0 OR array_position(seqs, NULL) IS NOT NULL) THEN
        RAISE EXCEPTION USING ERRCODE = 'PC017', MESSAGE = 'an erasure names at least one seq, and no NULL';
    END IF;
    PERFORM pg_advisory_xact_lock(pgctx.fold_lock_key(conversation_id));
    SELECT * INTO conv FROM pgctx.conversations c WHERE c.conversation_id = erase.conversation_id FOR UPDATE;
    -- (explicitly too: row-level security does not bind a superuser owner of this function)
    IF NOT FOUND OR NOT (pgctx.erasing() OR pgctx.tenant_member(conv.tenant)) THEN
        RAISE EXCEPTION USING ERRCODE = 'PC014',
            MESSAGE = format('no conversation %L (or not visible to role %s)', conversation_id, session_user);
    END IF;
    IF seqs IS NOT NULL THEN
        bad := ARRAY(SELECT DISTINCT q FROM unnest(seqs) AS q
                      WHERE q <= conv.base_seq OR q > conv.head_seq
                         OR EXISTS (SELECT 1 FROM pgctx.events e WHERE e.conversation_id = erase.conversation_id
                                       AND e.seq = q AND e.kind = 'erasure')
                      ORDER BY q);
        IF cardinality(bad) > 0 THEN
            RAISE EXCEPTION USING ERRCODE = 'PC017',
                MESSAGE = format('conversation %s: seq %s %s', conversation_id, array_to_string(bad, ', '),
                                 'is not one of its events that can be erased (its own events are seqs '
                                 || conv.base_seq + 1 || '..' || conv.head_seq || ', erasure events excepted)'),
                HINT = CASE WHEN conv.forked_from IS NOT NULL AND bad[1] <= conv.base_seq
                            THEN format('events up to seq %s of a branch belong to its source %s', conv.base_seq, conv.forked_from)
                            ELSE 'an erasure event records an erasure and is never erased itself' END;
        END IF;
    END IF;
    targets := ARRAY(SELECT e.seq FROM pgctx.events e
                      WHERE e.conversation_id = erase.conversation_id AND e.erased_in IS NULL AND e.kind <> 'erasure'
                        AND (seqs IS NULL OR e.seq = ANY (seqs))
                      ORDER BY e.seq);
    IF cardinality(targets) = 0 THEN
        RETURN jsonb_build_object('conversation_id', conversation_id, 'erasure_seq', NULL, 'erased', 0,
                                  'checkpoints_removed', '{}'::jsonb, 'fold_fallback', NULL);
    END IF;
    first_seq := targets[1];
    SELECT jsonb_agg(jsonb_build_array(g.lo, g.hi) ORDER BY g.lo) INTO ranges
      FROM (SELECT min(t.q) AS lo, max(t.q) AS hi
              FROM (SELECT q, q - row_number() OVER (ORDER BY q) AS island FROM unnest(targets) AS q) t
             GROUP BY t.island) g;

    -- the conversation, and every branch whose history includes the first erased event: the
    -- branches forked at or after it, then theirs, a generation per statement (on Citus, branches
    -- live on other workers, and a recursive CTE is refused unless it filters on the distribution
    -- column), the branches in id order (the order their fold locks are taken in)
    frontier := ARRAY(SELECT c.conversation_id FROM pgctx.conversations c
                       WHERE c.forked_from = erase.conversation_id AND c.base_seq >= first_seq);
    affected := '{}';
    WHILE cardinality(frontier) > 0 LOOP
        affected := affected || frontier;
        frontier := ARRAY(SELECT c.conversation_id FROM pgctx.conversations c WHERE c.forked_from = ANY (frontier));
    END LOOP;
    affected := conversation_id || ARRAY(SELECT b FROM unnest(affected) AS b ORDER BY b);
    FOREACH branch IN ARRAY affected[2:] LOOP
        PERFORM pg_advisory_xact_lock(pgctx.fold_lock_key(branch));
    END LOOP;
    SELECT coalesce(jsonb_object_agg(k.conversation_id, k.versions), '{}') INTO removed
      FROM (SELECT k.conversation_id, jsonb_agg(k.version ORDER BY k.version) AS versions
              FROM pgctx.checkpoints k
             WHERE k.conversation_id = ANY (affected)
               AND (k.conversation_id <> erase.conversation_id OR k.cursor >= first_seq)
             GROUP BY k.conversation_id) k;

    -- what the erased events keep for the ledger (030), bound to the chain by the erasure event
    SELECT jsonb_object_agg(k.seq::text, k.fields) INTO kept
      FROM (SELECT e.seq, pgctx.erased_payload(0, e.kind, e.payload) - 'pgctx_erased' AS fields
              FROM pgctx.events e
             WHERE e.conversation_id = erase.conversation_id AND e.seq = ANY (targets)
               AND cardinality(pgctx.erasure_kept_fields(e.kind)) > 0) k
     WHERE k.fields <> '{}'::jsonb;

    -- 1. the erasure event
    s := pgctx.append_chained(conv, 'erasure', jsonb_build_object(
        'seqs', ranges, 'count', cardinality(targets), 'reason', reason, 'erased_by', session_user::text,
        'erased_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        'checkpoints_removed', removed)
        || CASE WHEN kept IS NOT NULL THEN jsonb_build_object('kept_digest', pgctx.erasure_kept_digest(kept))
                ELSE '{}'::jsonb END);

    -- 2. the events
    UPDATE pgctx.events e
       SET payload = pgctx.erased_payload(s, e.kind, e.payload), salt = NULL, tokens = NULL, erased_in = s
     WHERE e.conversation_id = erase.conversation_id AND e.seq = ANY (targets);

    -- 3. the checkpoints built on erased content
    why := format('erasure at seq %s of %s', s, conversation_id);
    UPDATE pgctx.checkpoints k SET phase = 'DISCARDED', discard_reason = why
     WHERE k.conversation_id = ANY (affected) AND k.phase = 'PREPARED';
    SELECT * INTO head FROM pgctx.fold_heads h WHERE h.conversation_id = erase.conversation_id FOR UPDATE;
    IF FOUND AND head.cursor >= first_seq THEN
        SELECT * INTO fallback FROM pgctx.checkpoints k
         WHERE k.conversation_id = erase.conversation_id AND k.phase = 'COMMITTED' AND k.cursor < first_seq
         ORDER BY k.version DESC LIMIT 1;
        UPDATE pgctx.fold_heads h
           SET version = coalesce(fallback.version, 0), cursor = coalesce(fallback.cursor, conv.base_seq),
               checksum = fallback.checksum, committed_at = now(), fallback_reason = why
         WHERE h.conversation_id = erase.conversation_id;
    END IF;
    UPDATE pgctx.fold_heads h
       SET version = 0, cursor = c.base_seq, checksum = NULL, committed_at = now(), fallback_reason = why
      FROM pgctx.conversations c
     WHERE h.conversation_id = ANY (affected[2:]) AND c.conversation_id = h.conversation_id AND h.version <> 0;
    -- no checkpoint a branch still continues from (PC113, as the checkpoints guard refuses): asked
    -- here, one checkpoint per statement, because on Citus the guard runs on the shard and cannot
    -- read the branches on other shards (090)
    FOR gone IN SELECT k.conversation_id, k.version FROM pgctx.checkpoints k
                 WHERE k.conversation_id = ANY (affected)
                   AND (k.conversation_id <> erase.conversation_id OR k.cursor >= first_seq)
                 ORDER BY k.conversation_id, k.version LOOP
        branch := pgctx.branch_continuing_from(gone.conversation_id, gone.version);
        IF branch IS NOT NULL THEN
            RAISE EXCEPTION USING ERRCODE = 'PC113',
                MESSAGE = format('checkpoint %s of %s cannot be removed: branch %s continues from it',
                                 gone.version, gone.conversation_id, branch);
        END IF;
    END LOOP;
    DELETE FROM pgctx.checkpoints k
     WHERE k.conversation_id = ANY (affected)
       AND (k.conversation_id <> erase.conversation_id OR k.cursor >= first_seq);

    RETURN jsonb_build_object(
        'conversation_id', conversation_id, 'erasure_seq', s, 'erased', cardinality(targets), 'seqs', ranges,
        'checkpoints_removed', removed,
        'fold_fallback', CASE WHEN head.cursor >= first_seq
                              THEN jsonb_build_object('version', coalesce(fallback.version, 0),
                                                      'cursor', coalesce(fallback.cursor, conv.base_seq)) END);
END
$$;

COMMENT ON FUNCTION pgctx.erase(text, bigint[], text) IS
    'The erasure behind erase_events and erase_conversation (seqs NULL: every event): appends the erasure event, erases the listed events'' content and removes the checkpoints that may hold it, under the head and fold locks. Owner only: those two are what pgctx_eraser may call.';

CREATE OR REPLACE FUNCTION pgctx.erase_events(conversation_id text, seqs bigint[], reason text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
BEGIN
    IF seqs IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'PC017', MESSAGE = 'erase_events needs the seqs to erase (erase_conversation erases them all)';
    END IF;
    RETURN pgctx.erase(conversation_id, seqs, reason);
END
$$;

COMMENT ON FUNCTION pgctx.erase_events(text, bigint[], text) IS
    'Erase the content of chosen events, recorded by an erasure event in the chain; returns {conversation_id, erasure_seq, erased, seqs, checkpoints_removed, fold_fallback}. pgctx_eraser or the owner.';

CREATE OR REPLACE FUNCTION pgctx.erase_conversation(conversation_id text, reason text) RETURNS jsonb
LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
    SELECT pgctx.erase(conversation_id, NULL, reason)
$$;

COMMENT ON FUNCTION pgctx.erase_conversation(text, text) IS
    'Erase the content of every event of a conversation (its chain, erasure records and heads stay); pgctx_eraser or the owner.';

-- Every conversation of a tenant, in one transaction (conversation by conversation, in id order,
-- so two concurrent tenant erasures take their locks in the same order).
CREATE OR REPLACE FUNCTION pgctx.erase_tenant(tenant text, reason text) RETURNS SETOF jsonb
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    id text;
BEGIN
    tenant := pgctx.tenant_name(tenant);
    IF NOT EXISTS (SELECT 1 FROM pgctx.tenants t WHERE t.tenant = erase_tenant.tenant) THEN
        RAISE EXCEPTION USING ERRCODE = 'PC008', MESSAGE = format('%s is not a registered tenant', tenant);
    END IF;
    FOR id IN SELECT c.conversation_id FROM pgctx.conversations c WHERE c.tenant = erase_tenant.tenant
               ORDER BY c.conversation_id LOOP
        RETURN NEXT pgctx.erase(id, NULL, reason);
    END LOOP;
END
$$;

COMMENT ON FUNCTION pgctx.erase_tenant(text, text) IS
    'Erase every conversation of a tenant in one transaction; one report per conversation. pgctx_eraser or the owner.';

-- Retention.
CREATE TABLE IF NOT EXISTS pgctx.retention_policy (
    tenant      text REFERENCES pgctx.tenants (tenant),
    idle_days   integer NOT NULL CHECK (idle_days >= 1),
    set_by      name NOT NULL DEFAULT session_user,
    set_at      timestamptz NOT NULL DEFAULT now()
);
-- one row per tenant, and one global row (tenant NULL)
CREATE UNIQUE INDEX IF NOT EXISTS retention_policy_scope ON pgctx.retention_policy ((coalesce(tenant, '')));

COMMENT ON TABLE pgctx.retention_policy IS
    'Erase conversations idle for more than idle_days: one global row (tenant NULL) and per-tenant rows that override it. Set with pgctx.set_retention_policy; applied by pgctx.erase_expired.';

-- idle_days NULL removes the policy of that scope.
CREATE OR REPLACE FUNCTION pgctx.set_retention_policy(tenant text, idle_days integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
BEGIN
    tenant := pgctx.tenant_name(tenant);
    IF tenant IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pgctx.tenants t WHERE t.tenant = set_retention_policy.tenant) THEN
        RAISE EXCEPTION USING ERRCODE = 'PC019', MESSAGE = format('%s is not a registered tenant', tenant);
    END IF;
    IF idle_days IS NOT NULL AND idle_days < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'PC019', MESSAGE = format('idle_days must be at least 1, got %s', idle_days);
    END IF;
    DELETE FROM pgctx.retention_policy p WHERE coalesce(p.tenant, '') = coalesce(set_retention_policy.tenant, '');
    IF idle_days IS NOT NULL THEN
        INSERT INTO pgctx.retention_policy (tenant, idle_days) VALUES (tenant, idle_days);
    END IF;
END
$$;

COMMENT ON FUNCTION pgctx.set_retention_policy(text, integer) IS
    'Set (or with idle_days NULL remove) the retention of a tenant, or the global one (tenant NULL). pgctx_eraser or the owner.';

-- What erase_expired would erase as of a time: conversations with content left whose newest
-- non-erasure event is older than their policy allows.
CREATE OR REPLACE FUNCTION pgctx.expired_conversations(as_of timestamptz DEFAULT now())
RETURNS TABLE (conversation_id text, tenant text, last_event_at timestamptz, idle_days integer)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT c.conversation_id, c.tenant, l.at, p.idle_days
      FROM pgctx.conversations c
     CROSS JOIN LATERAL (SELECT coalesce((SELECT r.idle_days FROM pgctx.retention_policy r WHERE r.tenant = c.tenant),
                                         (SELECT r.idle_days FROM pgctx.retention_policy r WHERE r.tenant IS NULL))
                                AS idle_days) p
     CROSS JOIN LATERAL (SELECT (SELECT e.created_at FROM pgctx.events e
                                  WHERE e.conversation_id = c.conversation_id AND e.kind <> 'erasure'
                                  ORDER BY e.seq DESC LIMIT 1) AS at) l
     WHERE p.idle_days IS NOT NULL AND (pgctx.erasing() OR pgctx.tenant_member(c.tenant))
       AND l.at < as_of - make_interval(days => p.idle_days)
       AND EXISTS (SELECT 1 FROM pgctx.events e
                    WHERE e.conversation_id = c.conversation_id AND e.erased_in IS NULL AND e.kind <> 'erasure')
     ORDER BY c.conversation_id;
END
$$;

COMMENT ON FUNCTION pgctx.expired_conversations(timestamptz) IS
    'Dry run of pgctx.erase_expired: conversations idle past their retention policy that still hold content.';

CREATE OR REPLACE FUNCTION pgctx.erase_expired(reason text DEFAULT 'retention policy', as_of timestamptz DEFAULT now())
RETURNS SETOF jsonb
LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
    SELECT pgctx.erase(x.conversation_id, NULL, reason) FROM pgctx.expired_conversations(as_of) x
$$;

COMMENT ON FUNCTION pgctx.erase_expired(text, timestamptz) IS
    'Erase every conversation pgctx.expired_conversations lists (callable from pg_cron); one report per conversation.';

-- (Functions are created executable by PUBLIC; pgctx's never are: a test checks the catalog.)
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA pgctx FROM PUBLIC;
REVOKE ALL ON pgctx.retention_policy FROM PUBLIC;
GRANT SELECT ON pgctx.retention_policy TO pgctx_eraser, pgctx_auditor;
GRANT USAGE ON SCHEMA pgctx TO pgctx_eraser;
GRANT EXECUTE ON FUNCTION
    pgctx.erase_events(text, bigint[], text),
    pgctx.erase_conversation(text, text),
    pgctx.erase_tenant(text, text),
    pgctx.set_retention_policy(text, integer),
    pgctx.expired_conversations(timestamptz),
    pgctx.erase_expired(text, timestamptz)
    TO pgctx_eraser;
-- The policies and the triggers call these as the caller.
GRANT EXECUTE ON FUNCTION pgctx.erasing() TO pgctx_app, pgctx_auditor, pgctx_eraser;
