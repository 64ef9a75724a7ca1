-- 020: tenants and conversations (the head row of each chain).
--
-- Invariants enforced here:
--   * A tenant is a registered PostgreSQL role, stored by name in identifier form (015); a
--     conversation belongs to at most one tenant (NULL = shared by every pgctx_app member) and
--     never changes tenant (PC011).
--   * A conversation row holds its chain's genesis hash and its head (last seq, hash and the
--     head event's prev_hash). It is created with its head at its genesis; the head then moves
--     only forward, only to the seq/hash of an event that exists; id, tenant, genesis, fork point
--     and creation facts never change (PC011); an abandoned branch stays abandoned. Conversations
--     are never deleted or truncated (PC006): they anchor an append-only log.
--   * The head row is the lock every append to the conversation takes (the events trigger's
--     UPDATE of it, 030), so appends to one conversation serialize and appends to different
--     conversations never wait on each other.
--   * Every key is led by conversation_id, so the tables can be distributed by it (Citus).

CREATE TABLE IF NOT EXISTS pgctx.tenants (
    tenant      text PRIMARY KEY,
    created_at  timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE pgctx.tenants IS
    'Roles that are tenants. A login role that is a member (with inherit) of a tenant role sees and appends to that tenant''s conversations.';

CREATE TABLE IF NOT EXISTS pgctx.conversations (
    conversation_id  text PRIMARY KEY,
    tenant           text REFERENCES pgctx.tenants (tenant),
    genesis_hash     bytea NOT NULL,
    head_seq         bigint NOT NULL DEFAULT 0,
    head_hash        bytea NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    created_by       name NOT NULL DEFAULT session_user,
    -- branches (120_branches.sql): a fork's chain continues from its source's hash at base_seq
    base_seq         bigint NOT NULL DEFAULT 0,
    forked_from      text,
    fork_version     integer,
    family           text,
    branch_status    text
);

-- The row's rules are checked by its guard triggers (below) rather than CHECK constraints:
-- PostgreSQL re-reads and re-plans every CHECK of a table for each UPDATE statement, and every
-- append updates this row (measured: ~14 us of a single-event append's ~100 us of CPU).
ALTER TABLE pgctx.conversations
    DROP CONSTRAINT IF EXISTS conversations_head_seq_check,
    DROP CONSTRAINT IF EXISTS conversations_base_seq_check,
    DROP CONSTRAINT IF EXISTS conversations_branch_status_check,
    DROP CONSTRAINT IF EXISTS conversations_check;

-- The head event's prev_hash (NULL before a conversation's first own event). Written by the
-- append that moves the head (030) so that one UPDATE ... RETURNING can both advance the head and
-- hand the new event its link; nothing reads it to decide anything else.
ALTER TABLE pgctx.conversations ADD COLUMN IF NOT EXISTS head_prev_hash bytea;

COMMENT ON TABLE pgctx.conversations IS
    'One row per conversation: its tenant, genesis hash and chain head. Written only by the events triggers.';

-- Conversation ids: printable, trimmed, at most 256 bytes. Shared by the events trigger and the
-- verification functions so both reject the same ids.
CREATE OR REPLACE FUNCTION pgctx.valid_conversation_id(conversation_id text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT conversation_id IS NOT NULL
       AND octet_length(conversation_id) BETWEEN 1 AND 256
       AND conversation_id !~ '[[:cntrl:]]'
       AND conversation_id = btrim(conversation_id)
$$;

COMMENT ON FUNCTION pgctx.valid_conversation_id(text) IS
    'Whether a conversation id is acceptable (1 to 256 bytes, no control characters, no surrounding spaces): the one test the events trigger, append_events and verify_chain share, so all refuse the same ids (PC001).';

-- Row-level security helpers. Tenancy is keyed on session_user (the login role), which no SQL a
-- role runs can change: SET ROLE changes current_user but not session_user, and custom settings
-- are not consulted. Inside SECURITY DEFINER code current_user is the owner, while session_user
-- is still the caller, so the same policies hold for direct SQL and for pgctx's functions.
-- Stated limit: a pool that logs in as one role and SET ROLEs per tenant gets the union of that
-- login role's tenants.
-- A tenant is named the way regrole prints a role (quote_ident of its name), and resolved with
-- to_regrole on the node that asks: NULL, and so no member, for a name that is no role.
-- Schema-qualified calls: PostgreSQL inlines these into the policies, parsing them in the
-- caller's session, whose search path could put a function of its own before pg_catalog's.
CREATE OR REPLACE FUNCTION pgctx.tenant_member(tenant text) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT tenant IS NULL
        OR coalesce(pg_catalog.pg_has_role(session_user, pg_catalog.to_regrole(tenant), 'USAGE'), false)
$$;

COMMENT ON FUNCTION pgctx.tenant_member(text) IS
    'Row-level security helper: whether the login role (session_user, which SET ROLE cannot change) is a member of this tenant (NULL: shared), as appending to and folding its conversations require. Schema-qualified: inlined into policies in the caller''s session.';

CREATE OR REPLACE FUNCTION pgctx.tenant_visible(tenant text) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT tenant IS NULL
        OR coalesce(pg_catalog.pg_has_role(session_user, pg_catalog.to_regrole(tenant), 'USAGE'), false)
        OR pg_catalog.pg_has_role(session_user, 'pgctx_auditor', 'USAGE')
$$;

COMMENT ON FUNCTION pgctx.tenant_visible(text) IS
    'Row-level security helper: whether the login role may read a conversation of this tenant (a member, or pgctx_auditor, which reads every tenant). Schema-qualified: inlined into policies in the caller''s session.';

-- The stored form of a tenant a caller names ('acme', '"Acme"'): the role's name as regrole prints
-- it; a name that is no role stays as given (and is then refused as not a registered tenant).
CREATE OR REPLACE FUNCTION pgctx.tenant_name(role text) RETURNS text
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(pg_catalog.to_regrole(role)::text, role)
$$;

COMMENT ON FUNCTION pgctx.tenant_name(text) IS
    'The stored form of a tenant a caller names: the role''s name as regrole prints it (tenants are stored by name, not OID: 015); a name that is no role stays as given, to be refused as unregistered (PC008).';

-- The tenant a new conversation gets when the caller names none: the single registered tenant
-- the caller belongs to, NULL (shared) if none, and PC009 if several.
CREATE OR REPLACE FUNCTION pgctx.caller_tenant() RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    found text[];
BEGIN
    SELECT array_agg(t.tenant ORDER BY t.tenant) INTO found
      FROM pgctx.tenants t
     WHERE pgctx.tenant_member(t.tenant);
    IF found IS NULL THEN
        RETURN NULL;
    ELSIF cardinality(found) > 1 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC009',
            MESSAGE = format('role %s belongs to several tenants (%s); name one for a new conversation',
                             session_user, array_to_string(found, ', '));
    END IF;
    RETURN found[1];
END
$$;

COMMENT ON FUNCTION pgctx.caller_tenant() IS
    'The tenant a new conversation gets when the caller names none: the one registered tenant the login role belongs to, NULL (shared) if none, PC009 if several (pgctx never guesses between tenants).';

CREATE OR REPLACE FUNCTION pgctx.register_tenant(tenant text) RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    name text := to_regrole(tenant)::text;
BEGIN
    IF name IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_object', MESSAGE = format('role %s does not exist', tenant);
    END IF;
    INSERT INTO pgctx.tenants (tenant) VALUES (name) ON CONFLICT DO NOTHING;
    RETURN name;
END
$$;

COMMENT ON FUNCTION pgctx.register_tenant(text) IS
    'Owner only: declare a role (by name) as a tenant; returns the name as stored. Grant the role to the login roles of that tenant''s services.';

-- Guard: a conversation is created with its head at its genesis (seq 0, or a branch's fork
-- point, whose hash is the branch's genesis); afterwards the only legal changes are the head
-- moving forward to an existing event (what append_events does after its INSERT) and a branch
-- status change.
CREATE OR REPLACE FUNCTION pgctx.conversations_guard() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp
SET enable_seqscan = off AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'TRUNCATE') THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC006',
            MESSAGE = format('%s on pgctx.conversations refused: conversations anchor an append-only log', TG_OP);
    END IF;
    IF NEW.branch_status NOT IN ('open', 'mainline', 'abandoned') THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC011',
            MESSAGE = format('conversation %s: branch status %L is not open, mainline or abandoned',
                             NEW.conversation_id, NEW.branch_status);
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.base_seq < 0 OR (NEW.forked_from IS NULL) <> (NEW.base_seq = 0)
           OR (NEW.head_seq, NEW.head_hash) IS DISTINCT FROM (NEW.base_seq, NEW.genesis_hash)
           OR NEW.head_prev_hash IS NOT NULL THEN
            RAISE EXCEPTION USING
                ERRCODE = 'PC011',
                MESSAGE = format('conversation %s: a new conversation starts with its head at its genesis (seq 0, or a branch''s fork point)',
                                 NEW.conversation_id);
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.conversation_id IS DISTINCT FROM OLD.conversation_id
       OR NEW.tenant IS DISTINCT FROM OLD.tenant
       OR NEW.genesis_hash IS DISTINCT FROM OLD.genesis_hash
       OR NEW.created_at IS DISTINCT FROM OLD.created_at
       OR NEW.created_by IS DISTINCT FROM OLD.created_by
       OR (NEW.base_seq, NEW.forked_from, NEW.fork_version) IS DISTINCT FROM (OLD.base_seq, OLD.forked_from, OLD.fork_version)
       OR (OLD.family IS NOT NULL AND NEW.family IS DISTINCT FROM OLD.family)
       OR (OLD.branch_status = 'abandoned' AND NEW.branch_status IS DISTINCT FROM 'abandoned') THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC011',
            MESSAGE = format('conversation %s: id, tenant, genesis, fork point and creation facts never change, and an abandoned branch stays abandoned',
                             OLD.conversation_id);
    END IF;
    IF (NEW.head_seq, NEW.head_hash, NEW.head_prev_hash)
       IS NOT DISTINCT FROM (OLD.head_seq, OLD.head_hash, OLD.head_prev_hash) THEN
        RETURN NEW;  -- a branch status change
    END IF;
    IF NEW.head_seq < OLD.head_seq
       OR NOT EXISTS (SELECT 1 FROM pgctx.events e
                       WHERE e.conversation_id = NEW.conversation_id AND e.seq = NEW.head_seq
                         AND e.hash = NEW.head_hash AND e.prev_hash = NEW.head_prev_hash) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC011',
            MESSAGE = format('conversation %s: head may only move forward to an appended event (seq %s -> %s)',
                             OLD.conversation_id, OLD.head_seq, NEW.head_seq);
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION pgctx.conversations_guard() IS
    'Trigger on pgctx.conversations: refuses DELETE and TRUNCATE (PC006) and any change but the head moving forward to an appended event or a branch status change (PC011), so a head row anchors its chain whoever writes to it.';

-- ENABLE ALWAYS: the guards fire in replica mode too (session_replication_role = replica), so
-- only the table owner disabling them outright can get past them; see README "stated limits".
-- Updates made inside a trigger skip the row guard: the events trigger moves the head before the
-- event it points to is inserted (030), so the guard's "the head is an existing event" cannot hold
-- yet. Only the owner can UPDATE this table (and could drop the guard anyway); verify_chain
-- checks the head against the last event.
CREATE OR REPLACE TRIGGER conversations_guard_row
    BEFORE UPDATE ON pgctx.conversations
    FOR EACH ROW WHEN (pg_trigger_depth() = 0) EXECUTE FUNCTION pgctx.conversations_guard();
CREATE OR REPLACE TRIGGER conversations_guard_delete
    BEFORE DELETE ON pgctx.conversations
    FOR EACH ROW EXECUTE FUNCTION pgctx.conversations_guard();
CREATE OR REPLACE TRIGGER conversations_guard_insert
    BEFORE INSERT ON pgctx.conversations
    FOR EACH ROW EXECUTE FUNCTION pgctx.conversations_guard();
CREATE OR REPLACE TRIGGER conversations_guard_truncate
    BEFORE TRUNCATE ON pgctx.conversations
    FOR EACH STATEMENT EXECUTE FUNCTION pgctx.conversations_guard();
ALTER TABLE pgctx.conversations ENABLE ALWAYS TRIGGER conversations_guard_row;
ALTER TABLE pgctx.conversations ENABLE ALWAYS TRIGGER conversations_guard_delete;
ALTER TABLE pgctx.conversations ENABLE ALWAYS TRIGGER conversations_guard_insert;
ALTER TABLE pgctx.conversations ENABLE ALWAYS TRIGGER conversations_guard_truncate;
