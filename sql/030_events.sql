-- 030: the append-only, hash-chained event log.
--
-- Invariants enforced here, for every insert path (pgctx.append_event, pgctx.append_events,
-- plain INSERT, and COPY by the owner: PostgreSQL refuses COPY FROM under row-level security):
--   * seq is 1, 2, 3... per conversation with no gap and no reuse; callers cannot choose seq,
--     prev_hash, hash, salt, payload_digest, erased_in or created_at (refused, 42501, unless the
--     caller may UPDATE the log: the owner and superusers, whose values the trigger overwrites),
--     and the tenant is the conversation's (a caller may name it, to be checked).
--   * hash = pgctx.event_hash_v2(id, seq, kind, prev_hash, payload_digest) with payload_digest =
--     pgctx.payload_digest(salt, canonical payload) and a fresh random salt (chain format v2, 010),
--     and prev_hash is the hash of seq-1 (the conversation's genesis for seq 1), computed here, in
--     the database. Events appended before 0007 keep their v1 hash (no salt, no payload_digest).
--   * Appends to one conversation serialize on its head row (row lock of its UPDATE); appends to
--     different conversations touch different rows and never wait on each other. Under
--     REPEATABLE READ / SERIALIZABLE a concurrent append surfaces as a serialization failure
--     (40001) for the caller to retry, never as a fork: the head row is updated by every append,
--     so a stale snapshot cannot lock it.
--   * The head row moves with every row: each row of a multi-row INSERT (or COPY) chains from the
--     row before it. Stated cost: every such update leaves a row version that the next row's
--     lookup of the head walks until the transaction ends, so one statement of n rows costs
--     O(n^2) (measured: 49 us/row at 1,000 rows, 222 us/row at 20,000); append_events, which
--     moves the head once per call, is the bulk path (~20 us/row, flat).
--   * The conversation id (PC001), kind (PC002), payload type (PC003) and size (PC004), client
--     event key (PC013), tenant (PC008/PC010) and branch (PC016) are checked, each with its own
--     SQLSTATE; the payload before the conversation and the kind (which the head UPDATE checks).
--   * A client event key is unique per conversation: the same key with the same kind and
--     payload writes nothing (the statement inserts no row); a different kind or payload is
--     PC005.
--   * DELETE and TRUNCATE are refused (PC006) by triggers marked ENABLE ALWAYS, so replica mode
--     does not skip them. The one UPDATE allowed is an erasure (190): the payload becomes
--     exactly pgctx.erased_payload(N, kind, old payload) (the marker {"pgctx_erased": N} plus,
--     for a tool_call, tool_result or status_query, the ledger's ids the old payload held,
--     unchanged: below), salt and tokens become NULL and erased_in = N, the seq of an erasure
--     event of the same conversation that lists this event; nothing else changes, an erased
--     event stays erased, and an erasure event is never erased. Anything else is PC006.
--   * Erasure, retraction and clear events are written only by their functions (190
--     pgctx.erase_*, 200 pgctx.retract_last and pgctx.clear_view), which check what they record
--     and chain them with pgctx.append_chained (040); every append path refuses those kinds (PC018).
--   * The one path that does not go through the row trigger is pgctx.append_events (040), which
--     applies these same rules to a whole batch under one head lock and inserts rows it chained
--     itself; the trigger's WHEN clause lets through rows that arrive with a hash, which only the
--     owner (and superusers) can send (see below).

CREATE TABLE IF NOT EXISTS pgctx.event_kinds (
    kind        text PRIMARY KEY CHECK (kind ~ '^[a-z][a-z0-9_]{0,62}$'),
    description text NOT NULL
);

-- pgctx.is_event_kind(kind): the table compiled into an inlinable SQL function, so an append
-- tests its kind against an array constant instead of running a query (the lookup was a
-- subquery of the head row's UPDATE, ~5% of a single-event append). A statement trigger rewrites
-- it whenever the table changes, so the table stays the one place kinds are declared; replacing
-- the function invalidates every cached plan that inlined it.
-- Distributed (Citus, pgctx.distribute): event_kinds is a reference table, so the trigger fires on
-- each node's placement of it. It reads the table it fires on (TG_RELID: the placement there, the
-- table itself on one server) and compiles the function on that node only, DDL propagation off for
-- that one statement: propagating it from a shard is refused ("cannot execute a distributed query
-- from a query on a shard"), and every node compiles its own from the same rows anyway.
CREATE OR REPLACE FUNCTION pgctx.compile_event_kinds() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    kinds       text[];
    propagation text := current_setting('citus.enable_ddl_propagation', true);  -- NULL without Citus
BEGIN
    EXECUTE format('SELECT array_agg(k.kind ORDER BY k.kind) FROM %s k', TG_RELID::regclass) INTO kinds;
    IF propagation IS NOT NULL THEN
        PERFORM set_config('citus.enable_ddl_propagation', 'off', true);
    END IF;
    EXECUTE format('CREATE OR REPLACE FUNCTION pgctx.is_event_kind(kind text) RETURNS boolean'
                   ' LANGUAGE sql IMMUTABLE PARALLEL SAFE AS %L',
                   format('SELECT coalesce(kind = ANY (%L::text[]), false)', coalesce(kinds, '{}')));
    IF propagation IS NOT NULL THEN
        PERFORM set_config('citus.enable_ddl_propagation', propagation, true);
    END IF;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION pgctx.compile_event_kinds() IS
    'Statement trigger on pgctx.event_kinds: rewrites pgctx.is_event_kind with the table''s kinds as an array constant, so the table stays the one place kinds are declared while an append tests its kind without a query.';

-- TRUNCATE has a trigger of its own: Citus does not carry ENABLE ALWAYS over to its placements for
-- a trigger that includes TRUNCATE.
CREATE OR REPLACE TRIGGER event_kinds_compile
    AFTER INSERT OR UPDATE OR DELETE ON pgctx.event_kinds
    FOR EACH STATEMENT EXECUTE FUNCTION pgctx.compile_event_kinds();
CREATE OR REPLACE TRIGGER event_kinds_compile_truncate
    AFTER TRUNCATE ON pgctx.event_kinds
    FOR EACH STATEMENT EXECUTE FUNCTION pgctx.compile_event_kinds();
ALTER TABLE pgctx.event_kinds ENABLE ALWAYS TRIGGER event_kinds_compile;
ALTER TABLE pgctx.event_kinds ENABLE ALWAYS TRIGGER event_kinds_compile_truncate;

-- (Also what first compiles pgctx.is_event_kind: the statement trigger fires even when every
-- row already exists.)
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
    ('recovery',     'the agent restarted and recovered from a checkpoint'),
    ('erasure',      'events of this conversation were erased: which seqs, by whom, when and why (written by pgctx.erase_*)'),
    ('retraction',   'an earlier event leaves the working view: {seq} (written by pgctx.retract_last)'),
    ('clear',        'the working view restarts empty; the history stays (written by pgctx.clear_view)'),
    ('sdk_item',     'an OpenAI Agents SDK item pgctx does not interpret, kept as {item}')
ON CONFLICT (kind) DO UPDATE SET description = excluded.description;

COMMENT ON TABLE pgctx.event_kinds IS 'The kinds an event may have; extend with INSERT (as the owner).';

-- (Created by the INSERT above, through event_kinds_compile; a comment survives its CREATE OR
-- REPLACE on every later compile.)
COMMENT ON FUNCTION pgctx.is_event_kind(text) IS
    'Whether kind is listed in pgctx.event_kinds: generated by pgctx.compile_event_kinds from the table (an array constant an append tests without a query); never edit it, change the table.';

CREATE TABLE IF NOT EXISTS pgctx.events (
    conversation_id  text NOT NULL,
    seq              bigint NOT NULL CHECK (seq >= 1),
    kind             text NOT NULL,
    payload          jsonb NOT NULL,
    event_key        text,
    tenant           text,
    prev_hash        bytea NOT NULL,
    hash             bytea NOT NULL,
    tokens           integer CHECK (tokens >= 0),
    created_at       timestamptz NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);
-- Chain format v2 (010) and erasure (190): the random salt of the payload digest (NULL for v1
-- events and once erased), the digest the hash binds (NULL for v1 events; kept when erased), and
-- the seq of the erasure event that erased the event (NULL while it holds its content).
ALTER TABLE pgctx.events
    ADD COLUMN IF NOT EXISTS salt bytea,
    ADD COLUMN IF NOT EXISTS payload_digest bytea,
    ADD COLUMN IF NOT EXISTS erased_in bigint;

-- No default for created_at (before 0010: now()): the trigger tells a time the caller chose, which
-- it refuses (below), from none by NULL.
ALTER TABLE pgctx.events ALTER COLUMN created_at DROP DEFAULT;

-- A client event key is unique per conversation: a partial unique index, of the events that have
-- a key (before 0017: the table constraint UNIQUE (conversation_id, event_key), whose index held a
-- NULL entry for every event). Partial so that only a lookup by key can use it: with the whole
-- table in it, it was a candidate for every query of one conversation (its first column), and on
-- tables that were empty or small when a session planned, a read of a seq range (fold_status's
-- unfolded tokens, the head row guard's check of the head event) picked it over the primary key
-- (the two cost the same there, and the planner keeps the newer index) and then read the whole
-- conversation, for as long as the session kept that plan (measured: 520 buffers instead of 13 at
-- 6,000 events; docs/benchmarks.md). A key lookup (conversation_id = ... AND event_key = ...)
-- implies event_key IS NOT NULL, so it still uses this index; NULL keys never conflicted anyway.
-- Existing installations: `pgctx migrate` builds it (appends wait meanwhile) unless it exists
-- already (docs/dba.md: build it CONCURRENTLY first), then drops the constraint.
CREATE UNIQUE INDEX IF NOT EXISTS events_event_key ON pgctx.events (conversation_id, event_key)
    WHERE event_key IS NOT NULL;
ALTER TABLE pgctx.events DROP CONSTRAINT IF EXISTS events_conversation_id_event_key_key;

-- Erasure events and erased events, found without reading the log (verify_chain, 190).
CREATE INDEX IF NOT EXISTS events_erasure ON pgctx.events (conversation_id, seq)
    WHERE kind = 'erasure' OR erased_in IS NOT NULL;

-- Retractions and clears (200), found without reading the log; and where the view starts over.
CREATE INDEX IF NOT EXISTS events_view ON pgctx.events (conversation_id, seq) WHERE kind IN ('retraction', 'clear');

-- No foreign key to conversations: the chain trigger creates and locks the conversation row on
-- every insert path, which is the check a foreign key would repeat on each row.

COMMENT ON TABLE pgctx.events IS
    'Append-only, hash-chained event log. INSERT (conversation_id, kind, payload[, event_key, tenant]); the trigger fills the rest.';

-- Before 0005 checked_payload also took the kind; the kind is now checked where it is looked up.
DROP FUNCTION IF EXISTS pgctx.checked_payload(text, boolean, jsonb, text);

-- The checks every appended payload passes, each with its SQLSTATE, and its canonical value and
-- text (computed once: the hash and the size limit both need the text). events_chain calls it
-- per row, append_events per element (040). It returns a named composite type: a function with
-- OUT parameters rebuilds its row descriptor from pg_proc on every call (measured: ~5% of a
-- 100-event append_events). No SET search_path, as lock_conversation: its callers are definer
-- functions that pin it.
DO $$
BEGIN
    IF to_regtype('pgctx.canonical_payload_forms') IS NULL THEN
        CREATE TYPE pgctx.canonical_payload_forms AS (canonical jsonb, canonical_text text);
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgctx.checked_payload(payload jsonb, event_key text)
RETURNS pgctx.canonical_payload_forms
LANGUAGE plpgsql STABLE AS $$
DECLARE
    forms pgctx.canonical_payload_forms;
BEGIN
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
    -- pgctx.canonical_payload, converting the value to text once
    forms.canonical := payload;
    forms.canonical_text := payload::text;
    IF pgctx.may_need_trim(forms.canonical_text) THEN
        forms.canonical := pgctx.trim_numbers(payload);
        forms.canonical_text := forms.canonical::text;
    END IF;
    IF octet_length(forms.canonical_text) > pgctx.max_payload_bytes() THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC004',
            MESSAGE = format('payload is %s bytes in canonical form; the limit is %s',
                             octet_length(forms.canonical_text), pgctx.max_payload_bytes());
    END IF;
    RETURN forms;
END
$$;

COMMENT ON FUNCTION pgctx.checked_payload(jsonb, text) IS
    'The checks every appended payload passes (a JSON object, PC003; event key length, PC013; canonical size, PC004) and its canonical value and text, computed once for the hash and the size limit. Used by every append path.';

-- An event of a reserved kind appended other than by its function: the one place PC018 is raised.
DROP FUNCTION IF EXISTS pgctx.refuse_erasure_kind();
CREATE OR REPLACE FUNCTION pgctx.refuse_reserved_kind(kind text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION USING
        ERRCODE = 'PC018',
        MESSAGE = format('events of kind %s are written only by %s', kind,
                         CASE kind WHEN 'erasure' THEN 'pgctx.erase_events, erase_conversation and erase_tenant'
                                   WHEN 'retraction' THEN 'pgctx.retract_last'
                                   ELSE 'pgctx.clear_view' END);
END
$$;

COMMENT ON FUNCTION pgctx.refuse_reserved_kind(text) IS
    'Raises PC018 for an erasure, retraction or clear event appended other than by its own function (which checks what such an event records): the one place that code is raised.';

-- An event kind that is not in pgctx.event_kinds: the one place PC002 is raised.
CREATE OR REPLACE FUNCTION pgctx.refuse_unknown_kind(kind text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION USING
        ERRCODE = 'PC002',
        MESSAGE = format('unknown event kind %L', kind),
        HINT = 'SELECT kind FROM pgctx.event_kinds lists the kinds';
END
$$;

COMMENT ON FUNCTION pgctx.refuse_unknown_kind(text) IS
    'Raises PC002 for a kind not in pgctx.event_kinds: the one place that code is raised, shared by the events trigger and append_events.';

-- The conversation's head row, created if missing, locked FOR UPDATE; tenancy and abandoned
-- branches checked, each with its SQLSTATE: append_events' first step, and the events trigger's
-- when its head UPDATE finds no row it may advance (a new conversation, or a refused append).
-- No SET search_path on purpose (as json_schema_error, 070): saving and restoring the setting on
-- every call cost the single-event append measurably. It is not SECURITY DEFINER, is executable
-- only by the owner, schema-qualifies what it calls, and its callers (events_chain,
-- append_events, 200's retract_last and clear_view) are definer functions that pin the path and
-- turn seq scans off (080: plans that do not depend on first-seen statistics), which its reads
-- are then planned with.
CREATE OR REPLACE FUNCTION pgctx.lock_conversation(conversation_id text, tenant text)
RETURNS pgctx.conversations
LANGUAGE plpgsql AS $$
DECLARE
    conv pgctx.conversations%ROWTYPE;
BEGIN
    tenant := pgctx.tenant_name(tenant);
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

COMMENT ON FUNCTION pgctx.lock_conversation(text, text) IS
    'The conversation''s head row, created at its genesis if missing and locked FOR UPDATE (the lock that serializes appends to one conversation), with tenancy (PC008, PC010) and abandoned branches (PC016) refused. Owner only; its callers pin the search path.';

-- One statement does the common append: the UPDATE of the head row takes its lock, checks the
-- append is allowed there (tenant, branch, kind) and moves the head one step, computing the new
-- hash from the head it locked; RETURNING gives the event its seq, links and tenant. Under READ
-- COMMITTED an UPDATE that waited for another append re-reads the head it now holds, so the
-- chain cannot fork. When no row qualifies (a new conversation, or a refused append),
-- lock_conversation creates the row or raises the refusal's own SQLSTATE, the kind is checked,
-- and the UPDATE runs once more. An event key is looked up under the head lock, so two appends
-- with one key cannot both miss it. (Measured, bench/ab.py append: one UPDATE instead of a
-- SELECT ... FOR UPDATE, a kind lookup and an UPDATE is ~7% of a single-event transaction.)
-- The head row's guard does not run for this UPDATE (pg_trigger_depth() > 0, 020): the event it
-- points to is inserted by this same statement, after this trigger.
CREATE OR REPLACE FUNCTION pgctx.events_chain() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp
SET enable_seqscan = off AS $$
DECLARE
    checked  pgctx.canonical_payload_forms;
    prior    record;
    tenant   text;
BEGIN
    -- what a caller may not choose (see the trigger below); the owner's and superusers' values
    -- are overwritten, but for a row they chained by hand (it arrives with its hash: kept as it is)
    IF (NEW.seq, NEW.prev_hash, NEW.hash, NEW.salt, NEW.payload_digest, NEW.erased_in, NEW.created_at)
       IS DISTINCT FROM (NULL, NULL, NULL, NULL, NULL, NULL, NULL) THEN
        IF NOT has_table_privilege(session_user, TG_RELID, 'UPDATE') THEN
            RAISE EXCEPTION USING
                ERRCODE = 'insufficient_privilege',
                MESSAGE = 'permission denied: pgctx assigns seq, prev_hash, hash, salt, payload_digest, erased_in and created_at',
                HINT = 'INSERT (conversation_id, kind, payload[, event_key, tenant, tokens]) only';
        ELSIF NEW.hash IS NOT NULL THEN
            NEW.created_at := coalesce(NEW.created_at, now());  -- the column has no default
            RETURN NEW;
        END IF;
    END IF;
    IF NOT pgctx.valid_conversation_id(NEW.conversation_id) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC001',
            MESSAGE = 'invalid conversation id: 1 to 256 bytes, no control characters, no surrounding spaces',
            DETAIL = format('got %L', left(NEW.conversation_id, 300));
    END IF;
    checked := pgctx.checked_payload(NEW.payload, NEW.event_key);
    NEW.payload := checked.canonical;
    IF NEW.kind IN ('erasure', 'retraction', 'clear') THEN
        PERFORM pgctx.refuse_reserved_kind(NEW.kind);
    END IF;
    NEW.salt := pgctx.new_salt();
    NEW.payload_digest := pgctx.payload_digest(NEW.salt, checked.canonical_text);
    NEW.erased_in := NULL;

    IF NEW.event_key IS NOT NULL THEN
        PERFORM pgctx.lock_conversation(NEW.conversation_id, NEW.tenant);
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

    FOR attempt IN 1..2 LOOP
        UPDATE pgctx.conversations c
           SET head_seq = c.head_seq + 1,
               head_prev_hash = c.head_hash,
               head_hash = pgctx.event_hash_v2(c.conversation_id, c.head_seq + 1, NEW.kind, c.head_hash,
                                               NEW.payload_digest)
         WHERE c.conversation_id = NEW.conversation_id
           AND (NEW.tenant IS NULL OR NEW.tenant = c.tenant OR pgctx.tenant_name(NEW.tenant) = c.tenant)
           AND c.branch_status IS DISTINCT FROM 'abandoned'
           AND pgctx.is_event_kind(NEW.kind)
        RETURNING c.head_seq, c.head_prev_hash, c.head_hash, c.tenant
             INTO NEW.seq, NEW.prev_hash, NEW.hash, tenant;  -- (all NULL when no row: not NEW.tenant)
        -- The tenant is checked on what the UPDATE returns, not in its WHERE clause (a STABLE
        -- function of a column there is refused by Citus): a non-member's UPDATE is undone by the
        -- refusal lock_conversation raises below, with the statement.
        IF FOUND AND pgctx.tenant_member(tenant) THEN
            NEW.tenant := tenant;
            NEW.created_at := now();
            RETURN NEW;
        END IF;
        EXIT WHEN attempt = 2;
        PERFORM pgctx.lock_conversation(NEW.conversation_id, NEW.tenant);
        IF NOT pgctx.is_event_kind(NEW.kind) THEN
            PERFORM pgctx.refuse_unknown_kind(NEW.kind);
        END IF;
    END LOOP;
    -- Only if the head row's policies and lock_conversation's checks disagreed.
    RAISE EXCEPTION USING
        ERRCODE = 'internal_error',
        MESSAGE = format('conversation %s: the head row could not be advanced', NEW.conversation_id);
END
$$;

COMMENT ON FUNCTION pgctx.events_chain() IS
    'BEFORE INSERT trigger on pgctx.events: checks the row (id, payload, kind, key, tenant, branch), refuses a caller''s values for the columns pgctx assigns, and chains it: one UPDATE of the head row locks it, gives the event its seq and prev_hash and computes its hash, so a plain INSERT gets the guarantees of append_event.';

DROP TRIGGER IF EXISTS events_advance_head ON pgctx.events;
DROP FUNCTION IF EXISTS pgctx.events_advance_head();

-- What an erased event keeps of its payload (190, article 十二): the identifiers the side-effect
-- ledger and recovery derive a call and its status from (080, 140), never its content. A
-- tool_call keeps call_id, tool, effect and idempotency_key (not its arguments); a tool_result or
-- status_query keeps call_id, outcome and request_id (not its result, error text or authority).
-- Only a string or number is kept (an object or array could hold content). Every other kind
-- keeps nothing. Personal data must stay out of these fields, as out of ids and event keys.
-- Before this rule an erased event kept nothing: {"pgctx_erased": N} is still exactly what this
-- function makes of such a row, so rows erased before it verify (050) and read as they did.
CREATE OR REPLACE FUNCTION pgctx.erasure_kept_fields(kind text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE kind WHEN 'tool_call' THEN '{call_id,tool,effect,idempotency_key}'::text[]
                     WHEN 'tool_result' THEN '{call_id,outcome,request_id}'::text[]
                     WHEN 'status_query' THEN '{call_id,outcome,request_id}'::text[]
                     ELSE '{}'::text[] END
$$;

COMMENT ON FUNCTION pgctx.erasure_kept_fields(text) IS
    'The payload fields an erased event of this kind keeps (string or number values only): tool_call call_id, tool, effect, idempotency_key; tool_result and status_query call_id, outcome, request_id; nothing for other kinds.';

-- Before this revision the marker alone was erased_payload(bigint).
DROP FUNCTION IF EXISTS pgctx.erased_payload(bigint);

-- What an erased event's payload becomes: the marker naming the erasure event (its seq) and the
-- kept fields of the payload it had. Idempotent: an erased payload is its own erased payload,
-- which is how verify_chain (050) and the bundle verifier check an erased row without its old
-- payload. PL/pgSQL: a SQL function whose body has a FROM is not inlined, and Citus cannot plan a
-- SQL function's parameters (scaling.md); the erasure's UPDATE calls it with the row's columns
-- (IMMUTABLE: Citus evaluates no STABLE function with column references in an UPDATE).
CREATE OR REPLACE FUNCTION pgctx.erased_payload(erasure_seq bigint, kind text, payload jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN coalesce((SELECT jsonb_object_agg(f.key, f.value)
                       FROM jsonb_each(CASE jsonb_typeof(payload) WHEN 'object' THEN payload ELSE '{}' END) AS f
                      WHERE f.key = ANY (pgctx.erasure_kept_fields(kind))
                        AND jsonb_typeof(f.value) IN ('string', 'number')), '{}'::jsonb)
           || jsonb_build_object('pgctx_erased', erasure_seq);
END
$$;

COMMENT ON FUNCTION pgctx.erased_payload(bigint, text, jsonb) IS
    'What an erased event''s payload becomes: {"pgctx_erased": seq of the erasure event} plus the fields of the old payload its kind keeps (pgctx.erasure_kept_fields: a call''s ids, an answer''s outcome and request id), so the erased row names the event that records why and the side-effect ledger still sees the call. An erased payload is its own erased payload.';

-- What binds the kept fields to the chain: an erased event's hash binds its payload digest, which
-- no longer covers what its payload now holds, so the erasure event (chained like any event, and
-- never erased) records SHA-256('pgctx:erasure-kept:v1' || canonical {seq: kept fields}) over
-- the events it erased that keep any field, as "kept_digest" (absent when none keeps any, as in
-- every erasure before this rule). verify_chain (050) and the bundle verifier recompute it, so an
-- edited call id or outcome of an erased event is caught like an edited payload. NULL for '{}'.
CREATE OR REPLACE FUNCTION pgctx.erasure_kept_digest(kept jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN kept IS NOT NULL AND kept <> '{}'::jsonb
                THEN encode(sha256('\x70676374783a657261737572652d6b6570743a7631'::bytea  -- 'pgctx:erasure-kept:v1'
                                   || convert_to(pgctx.canonical_text(kept), 'UTF8')), 'hex') END
$$;

COMMENT ON FUNCTION pgctx.erasure_kept_digest(jsonb) IS
    'The kept_digest an erasure event records: hex SHA-256(''pgctx:erasure-kept:v1'' || canonical {seq: fields kept}) over the events it erased that keep fields; NULL when none does.';

-- Whether the erasure event at erasure_seq of a conversation lists seq: an earlier event, inside
-- one of its ranges ("seqs": [[from, to], ...]); the erasure event itself is never erased.
-- PL/pgSQL: a SQL function whose body has a FROM is not inlined as a scalar, and Citus cannot
-- plan a SQL function's parameters (scaling.md).
CREATE OR REPLACE FUNCTION pgctx.erasure_lists(conversation_id text, erasure_seq bigint, seq bigint)
RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
    RETURN (SELECT seq < erasure_seq AND EXISTS (
            SELECT 1 FROM pgctx.events x, jsonb_array_elements(x.payload->'seqs') r
             WHERE x.conversation_id = erasure_lists.conversation_id AND x.seq = erasure_seq
               AND x.kind = 'erasure' AND x.erased_in IS NULL
               AND erasure_lists.seq BETWEEN (r->>0)::bigint AND (r->>1)::bigint));
END
$$;

COMMENT ON FUNCTION pgctx.erasure_lists(text, bigint, bigint) IS
    'Whether the erasure event at erasure_seq of a conversation lists seq (an earlier event inside one of its ranges): the condition under which the events trigger allows an erasure UPDATE, and verify_chain accepts an erased row.';

CREATE OR REPLACE FUNCTION pgctx.events_refuse_change() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.erased_in IS NULL AND OLD.kind <> 'erasure'
       AND NEW.erased_in IS NOT NULL
       AND NEW.payload = pgctx.erased_payload(NEW.erased_in, OLD.kind, OLD.payload)
       AND NEW.salt IS NULL AND NEW.tokens IS NULL
       AND (NEW.conversation_id, NEW.seq, NEW.kind, NEW.event_key, NEW.tenant, NEW.prev_hash, NEW.hash,
            NEW.payload_digest, NEW.created_at)
           IS NOT DISTINCT FROM
           (OLD.conversation_id, OLD.seq, OLD.kind, OLD.event_key, OLD.tenant, OLD.prev_hash, OLD.hash,
            OLD.payload_digest, OLD.created_at)
       AND pgctx.erasure_lists(NEW.conversation_id, NEW.erased_in, NEW.seq) THEN
        RETURN NEW;  -- an erasure recorded in the chain (190)
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = 'PC006',
        MESSAGE = format('%s on pgctx.events refused: the event log is append-only (an event changes only by erasure)', TG_OP),
        HINT = 'Record a correction event instead of editing history; erase content with pgctx.erase_events.';
END
$$;

COMMENT ON FUNCTION pgctx.events_refuse_change() IS
    'Trigger on pgctx.events: refuses UPDATE, DELETE and TRUNCATE (PC006), except the one UPDATE an erasure recorded in the chain makes (payload to its marker and the fields its kind keeps, unchanged; salt and tokens NULL, erased_in set, nothing else changed).';

-- Rows that arrive with their hash skip the row trigger: those are the rows pgctx.append_events
-- chained itself (040), inserted as the schema owner (it is SECURITY DEFINER). Whatever such a row
-- claims, verify_chain recomputes its hash and link and compares the head.
-- pgctx_app may INSERT into the table (a whole-table grant, 060: Citus does not carry column
-- grants to its shards), so SQL holds what the column list did: a row without a hash that names
-- seq, prev_hash, salt, payload_digest, erased_in or created_at is refused (42501, as a column
-- privilege was), and a row with a hash skips the trigger only when the current user is the owner
-- (whose name, the role running this file, is written into the WHEN clause); any other role's row
-- with a hash reaches events_chain, which accepts it only from a session that may UPDATE the log
-- (the owner's or a superuser's, who stand outside what in-database checks can hold anyway:
-- invariant 9; nobody is granted UPDATE, 060) and refuses it otherwise (42501).
-- The WHEN clause is these comparisons because PostgreSQL re-reads and re-plans a trigger's WHEN
-- clause for every statement (measured with callgrind: a clause that also named a setting cost
-- ~10% of a single-event INSERT), and a second row trigger holding the test cost append_events 8%
-- (bench/ab.py batch) even when its WHEN clause let every row through.
-- Stated limit: after the schema changes owner, append_events' rows are refused until the new
-- owner runs `pgctx migrate` (which writes the new name here); it fails closed.
DO $$
BEGIN
    EXECUTE format($t$
        CREATE OR REPLACE TRIGGER events_chain
            BEFORE INSERT ON pgctx.events
            FOR EACH ROW
            WHEN (NEW.hash IS NULL OR NEW.created_at IS NULL OR CURRENT_USER <> %L)
            EXECUTE FUNCTION pgctx.events_chain()$t$, current_user);
END
$$;
CREATE OR REPLACE TRIGGER events_refuse_change
    BEFORE UPDATE OR DELETE ON pgctx.events
    FOR EACH ROW EXECUTE FUNCTION pgctx.events_refuse_change();
CREATE OR REPLACE TRIGGER events_refuse_truncate
    BEFORE TRUNCATE ON pgctx.events
    FOR EACH STATEMENT EXECUTE FUNCTION pgctx.events_refuse_change();

ALTER TABLE pgctx.events ENABLE ALWAYS TRIGGER events_chain;
ALTER TABLE pgctx.events ENABLE ALWAYS TRIGGER events_refuse_change;
ALTER TABLE pgctx.events ENABLE ALWAYS TRIGGER events_refuse_truncate;
