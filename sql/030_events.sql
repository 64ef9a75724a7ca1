-- 030: the append-only, hash-chained event log.
--
-- Invariants enforced here, for every insert path (pgctx.append_event, pgctx.append_events,
-- plain INSERT, and COPY by the owner: PostgreSQL refuses COPY FROM under row-level security):
--   * seq is 1, 2, 3... per conversation with no gap and no reuse; callers cannot choose seq,
--     prev_hash, hash, tenant or created_at (the trigger overwrites them).
--   * hash = pgctx.event_hash(id, seq, kind, prev_hash, canonical payload) and prev_hash is the
--     hash of seq-1 (the conversation's genesis for seq 1), computed here, in the database.
--   * Appends to one conversation serialize on its head row (SELECT ... FOR UPDATE); appends to
--     different conversations touch different rows and never wait on each other. Under
--     REPEATABLE READ / SERIALIZABLE a concurrent append surfaces as a serialization failure
--     (40001) for the caller to retry, never as a fork: the head row is updated by every append
--     statement, so a stale snapshot cannot lock it.
--   * The conversation id (PC001), kind (PC002), payload type (PC003) and size (PC004), client
--     event key (PC013) and tenant (PC008/PC010) are checked, each with its own SQLSTATE.
--   * A client event key is unique per conversation: the same key with the same kind and
--     payload writes nothing (the statement inserts no row); a different kind or payload is
--     PC005.
--   * UPDATE, DELETE and TRUNCATE are refused (PC006) by triggers marked ENABLE ALWAYS, so
--     replica mode does not skip them.
--   * The one path that does not go through the row trigger is pgctx.append_events (040), which
--     applies these same rules to a whole batch under one head lock and inserts rows it chained
--     itself; the trigger's WHEN clause lets only that function's rows through (see below).

CREATE TABLE IF NOT EXISTS pgctx.event_kinds (
    kind        text PRIMARY KEY CHECK (kind ~ '^[a-z][a-z0-9_]{0,62}$'),
    description text NOT NULL
);

INSERT INTO pgctx.event_kinds (kind, description) VALUES
    ('user',         'a user message'),
    ('assistant',    'an assistant message'),
    ('system',       'a system rule or instruction'),
    ('tool_call',    'a tool call: tool, call id, arguments, idempotency key, effect class'),
    ('tool_result',  'the result of a tool call: call id, outcome, request id or error'),
    ('approval',     'a human approval or authorization and the scope it grants'),
    ('correction',   'a correction of an earlier fact or instruction'),
    ('fact',         'a fact confirmed by the user or a tool, with its authority'),
    ('subtask_end',  'a subtask finished'),
    ('topic_switch', 'the user switched topic'),
    ('phase_change', 'the task moved between phases, e.g. planning to execution'),
    ('memory',       'a long-term memory read, with its source'),
    ('status_query', 'the answer of a tool service to a status query for an unknown side effect'),
    ('branch_merge', 'branches of the conversation were merged or a mainline confirmed'),
    ('recovery',     'the agent restarted and recovered from a checkpoint')
ON CONFLICT (kind) DO UPDATE SET description = excluded.description;

COMMENT ON TABLE pgctx.event_kinds IS 'The kinds an event may have; extend with INSERT (as the owner).';

CREATE TABLE IF NOT EXISTS pgctx.events (
    conversation_id  text NOT NULL,
    seq              bigint NOT NULL CHECK (seq >= 1),
    kind             text NOT NULL,
    payload          jsonb NOT NULL,
    event_key        text,
    tenant           regrole,
    prev_hash        bytea NOT NULL,
    hash             bytea NOT NULL,
    tokens           integer CHECK (tokens >= 0),
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (conversation_id, seq),
    UNIQUE (conversation_id, event_key)
);
-- No foreign key to conversations: the chain trigger creates and locks the conversation row on
-- every insert path, which is the check a foreign key would repeat on each row.

COMMENT ON TABLE pgctx.events IS
    'Append-only, hash-chained event log. INSERT (conversation_id, kind, payload[, event_key, tenant]); the trigger fills the rest.';

-- The conversation's head row, created if missing, locked FOR UPDATE; tenancy and abandoned
-- branches checked: what every append does first (events_chain per row, append_events per batch).
-- The checks every appended event passes, each with its SQLSTATE, and its canonical payload:
-- events_chain calls it per row, append_events per element (040). known: the kind is one of
-- pgctx.event_kinds (the caller looks it up its own way). No SET search_path, as
-- lock_conversation: its callers are definer functions that pin it.
CREATE OR REPLACE FUNCTION pgctx.checked_payload(kind text, known boolean, payload jsonb, event_key text)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    canonical jsonb;
BEGIN
    IF NOT coalesce(known, false) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC002',
            MESSAGE = format('unknown event kind %L', kind),
            HINT = 'SELECT kind FROM pgctx.event_kinds lists the kinds';
    END IF;
    IF jsonb_typeof(payload) IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC003',
            MESSAGE = format('payload must be a JSON object, got %s', coalesce(jsonb_typeof(payload), 'NULL'));
    END IF;
    IF event_key IS NOT NULL AND octet_length(event_key) NOT BETWEEN 1 AND 200 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC013',
            MESSAGE = format('event key must be 1 to 200 bytes, got %s', octet_length(event_key));
    END IF;
    canonical := pgctx.canonical_payload(payload);
    IF octet_length(canonical::text) > pgctx.max_payload_bytes() THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC004',
            MESSAGE = format('payload is %s bytes in canonical form; the limit is %s',
                             octet_length(canonical::text), pgctx.max_payload_bytes());
    END IF;
    RETURN canonical;
END
$$;

-- No SET search_path on purpose (as json_schema_error, 070): saving and restoring the setting on
-- every call cost the single-event append measurably. It is not SECURITY DEFINER, is executable
-- only by the owner, schema-qualifies what it calls, and its callers (events_chain,
-- append_events) are definer functions that pin the path.
CREATE OR REPLACE FUNCTION pgctx.lock_conversation(conversation_id text, tenant regrole)
RETURNS pgctx.conversations
LANGUAGE plpgsql AS $$
DECLARE
    conv pgctx.conversations%ROWTYPE;
BEGIN
    SELECT * INTO conv FROM pgctx.conversations c
     WHERE c.conversation_id = lock_conversation.conversation_id FOR UPDATE;
    IF NOT FOUND THEN
        IF tenant IS NULL THEN
            tenant := pgctx.caller_tenant();
        ELSIF NOT EXISTS (SELECT 1 FROM pgctx.tenants t WHERE t.tenant = lock_conversation.tenant) THEN
            RAISE EXCEPTION USING
                ERRCODE = 'PC008',
                MESSAGE = format('%s is not a registered tenant', tenant),
                HINT = 'SELECT pgctx.register_tenant(role) as the schema owner';
        END IF;
        IF NOT pgctx.tenant_member(tenant) THEN
            RAISE EXCEPTION USING
                ERRCODE = 'PC010',
                MESSAGE = format('role %s is not a member of tenant %s', session_user, tenant);
        END IF;
        INSERT INTO pgctx.conversations AS c (conversation_id, tenant, genesis_hash, head_hash)
        VALUES (lock_conversation.conversation_id, tenant,
                pgctx.genesis_hash(lock_conversation.conversation_id), pgctx.genesis_hash(lock_conversation.conversation_id))
        ON CONFLICT ON CONSTRAINT conversations_pkey DO NOTHING;
        SELECT * INTO conv FROM pgctx.conversations c
         WHERE c.conversation_id = lock_conversation.conversation_id FOR UPDATE;
        IF NOT FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = 'PC010',
                MESSAGE = format('conversation %s belongs to another tenant', lock_conversation.conversation_id);
        END IF;
    END IF;
    -- Checked explicitly (not only by RLS): when the owner is a superuser, RLS does not apply
    -- inside the SECURITY DEFINER functions that call this, and another tenant's conversation
    -- must be refused with its own code rather than look like a new one.
    IF NOT pgctx.tenant_member(conv.tenant) OR (tenant IS NOT NULL AND tenant IS DISTINCT FROM conv.tenant) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC010',
            MESSAGE = format('conversation %s belongs to another tenant', lock_conversation.conversation_id);
    END IF;
    IF conv.branch_status = 'abandoned' THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC016',
            MESSAGE = format('conversation %s is an abandoned branch: another branch was confirmed as mainline',
                             lock_conversation.conversation_id);
    END IF;
    RETURN conv;
END
$$;
CREATE OR REPLACE FUNCTION pgctx.events_chain() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    conv       pgctx.conversations%ROWTYPE;
    canonical  text;
    prior      record;
BEGIN
    IF NOT pgctx.valid_conversation_id(NEW.conversation_id) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC001',
            MESSAGE = 'invalid conversation id: 1 to 256 bytes, no control characters, no surrounding spaces',
            DETAIL = format('got %L', left(NEW.conversation_id, 300));
    END IF;
    NEW.payload := pgctx.checked_payload(NEW.kind, EXISTS (SELECT 1 FROM pgctx.event_kinds k WHERE k.kind = NEW.kind),
                                         NEW.payload, NEW.event_key);
    canonical := NEW.payload::text;

    -- The head row is the per-conversation lock (created if missing; tenancy checked).
    conv := pgctx.lock_conversation(NEW.conversation_id, NEW.tenant);
    NEW.tenant := conv.tenant;

    IF NEW.event_key IS NOT NULL THEN
        SELECT kind, payload INTO prior FROM pgctx.events
         WHERE conversation_id = NEW.conversation_id AND event_key = NEW.event_key;
        IF FOUND THEN
            IF prior.kind = NEW.kind AND prior.payload = NEW.payload THEN
                RETURN NULL;  -- already appended: idempotent, write nothing
            END IF;
            RAISE EXCEPTION USING
                ERRCODE = 'PC005',
                MESSAGE = format('event key %L already names a different event in conversation %s',
                                 NEW.event_key, NEW.conversation_id);
        END IF;
    END IF;

    -- The previous link is the last event, read under the head lock. A volatile trigger
    -- function sees rows inserted earlier by the same statement, so a multi-row INSERT chains
    -- row by row while the head row itself is updated once, after the statement.
    SELECT seq, hash INTO prior FROM pgctx.events
     WHERE conversation_id = NEW.conversation_id ORDER BY seq DESC LIMIT 1;
    IF FOUND THEN
        NEW.seq := prior.seq + 1;
        NEW.prev_hash := prior.hash;
    ELSE
        NEW.seq := conv.base_seq + 1;  -- 1, or the first seq after a branch's fork point
        NEW.prev_hash := conv.genesis_hash;
    END IF;
    NEW.hash := pgctx.event_hash(NEW.conversation_id, NEW.seq, NEW.kind, NEW.prev_hash, canonical);
    NEW.created_at := now();
    RETURN NEW;
END
$$;

-- One head update per statement (not per row): a 100-row INSERT ... SELECT moves the head
-- once, instead of leaving 100 row versions of the head in one transaction.
CREATE OR REPLACE FUNCTION pgctx.events_advance_head() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
BEGIN
    UPDATE pgctx.conversations c
       SET head_seq = n.seq, head_hash = n.hash
      FROM (SELECT DISTINCT ON (conversation_id) conversation_id, seq, hash
              FROM appended ORDER BY conversation_id, seq DESC) n
     WHERE c.conversation_id = n.conversation_id;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION pgctx.events_refuse_change() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
BEGIN
    RAISE EXCEPTION USING
        ERRCODE = 'PC006',
        MESSAGE = format('%s on pgctx.events refused: the event log is append-only', TG_OP),
        HINT = 'Record a correction event instead of editing history.';
END
$$;

-- Rows pgctx.append_events chained itself (040) skip the row trigger: only rows that arrive
-- with a hash, inserted as the role installing this schema (the owner of append_events, a
-- SECURITY DEFINER function) while pgctx.chained_by says so. An application role cannot insert a
-- hash at all (column privileges, 060) nor run as the owner; the owner's own plain INSERT, which
-- does not set pgctx.chained_by, is chained here like any other.
DO $do$
BEGIN
    EXECUTE format($t$
        CREATE OR REPLACE TRIGGER events_chain
            BEFORE INSERT ON pgctx.events
            FOR EACH ROW
            WHEN (NEW.hash IS NULL OR current_user <> %L
                  OR current_setting('pgctx.chained_by', true) IS DISTINCT FROM 'append_events')
            EXECUTE FUNCTION pgctx.events_chain()$t$, current_user);
END
$do$;
CREATE OR REPLACE TRIGGER events_advance_head
    AFTER INSERT ON pgctx.events
    REFERENCING NEW TABLE AS appended
    FOR EACH STATEMENT EXECUTE FUNCTION pgctx.events_advance_head();
CREATE OR REPLACE TRIGGER events_refuse_change
    BEFORE UPDATE OR DELETE ON pgctx.events
    FOR EACH ROW EXECUTE FUNCTION pgctx.events_refuse_change();
CREATE OR REPLACE TRIGGER events_refuse_truncate
    BEFORE TRUNCATE ON pgctx.events
    FOR EACH STATEMENT EXECUTE FUNCTION pgctx.events_refuse_change();

ALTER TABLE pgctx.events ENABLE ALWAYS TRIGGER events_chain;
ALTER TABLE pgctx.events ENABLE ALWAYS TRIGGER events_advance_head;
ALTER TABLE pgctx.events ENABLE ALWAYS TRIGGER events_refuse_change;
ALTER TABLE pgctx.events ENABLE ALWAYS TRIGGER events_refuse_truncate;
