-- 060: privileges and row-level security.
--
-- Invariants enforced here:
--   * Least privilege. pgctx_app owns nothing; it may SELECT the log, INSERT events (the
--     triggers refuse the columns a caller may not choose, 030) and call the append/verify functions. It has no UPDATE,
--     DELETE or TRUNCATE anywhere, cannot disable triggers (that needs ownership) and cannot set
--     session_replication_role (superuser only). pgctx_auditor may only read.
--   * No function is executable by PUBLIC; definer-rights functions pin their search path (a test
--     checks both over the catalog).
--   * Tenants: row-level security, forced so it binds the table owner too, shows a login role
--     only the conversations of tenants it belongs to (plus shared ones, tenant NULL), and lets
--     it append only there. Auditors see every tenant. Superusers bypass RLS (stated limit).

REVOKE ALL ON ALL TABLES IN SCHEMA pgctx FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA pgctx FROM PUBLIC;
ALTER DEFAULT PRIVILEGES IN SCHEMA pgctx REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

GRANT USAGE ON SCHEMA pgctx TO pgctx_app, pgctx_auditor;

GRANT SELECT ON pgctx.events, pgctx.conversations, pgctx.event_kinds, pgctx.tenants,
                pgctx.error_codes, pgctx.chain_heads
    TO pgctx_app, pgctx_auditor;
-- The whole table, not a column list (before 0010: INSERT (conversation_id, kind, payload,
-- event_key, tenant, tokens)): Citus does not carry column grants to its shards. The events
-- triggers refuse the columns a caller may not set (030).
-- Revoked only where a release granted them: Citus refuses any column-list GRANT or REVOKE.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a
                WHERE a.attrelid = 'pgctx.events'::regclass AND a.attacl IS NOT NULL) THEN
        REVOKE INSERT (conversation_id, kind, payload, event_key, tenant, tokens) ON pgctx.events FROM pgctx_app;
    END IF;
END
$$;
GRANT INSERT ON pgctx.events TO pgctx_app;

GRANT EXECUTE ON FUNCTION
    pgctx.append_event(text, text, jsonb, text, text, integer),
    pgctx.append_events(text, jsonb, text),
    pgctx.payload_from_text(text)
    TO pgctx_app;
GRANT EXECUTE ON FUNCTION
    pgctx.verify_chain(text, bigint, bytea, bigint, bytea),
    pgctx.canonical_payload(jsonb),
    pgctx.may_need_trim(text),
    pgctx.canonical_text(jsonb),
    pgctx.trim_numbers(jsonb),
    pgctx.genesis_hash(text),
    pgctx.event_hash(text, bigint, text, bytea, text),
    pgctx.event_hash_v2(text, bigint, text, bytea, bytea),
    pgctx.payload_digest(bytea, text),
    pgctx.erased_payload(bigint, text, jsonb),
    pgctx.erasure_kept_fields(text),
    pgctx.erasure_kept_digest(jsonb),
    pgctx.erasure_lists(text, bigint, bigint),
    pgctx.max_payload_bytes(),
    pgctx.valid_conversation_id(text),
    pgctx.utf8_bytes(text),
    pgctx.tenant_member(text),
    pgctx.tenant_visible(text),
    pgctx.tenant_name(text)
    TO pgctx_app, pgctx_auditor;

ALTER TABLE pgctx.conversations ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgctx.conversations FORCE ROW LEVEL SECURITY;
ALTER TABLE pgctx.events ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgctx.events FORCE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS conversations_read ON pgctx.conversations;
CREATE POLICY conversations_read ON pgctx.conversations FOR SELECT
    USING (pgctx.tenant_visible(tenant));
-- Rows are created and their heads moved only by the events triggers (definer rights), on
-- behalf of session_user: these policies bind that code when the owner is not a superuser.
DROP POLICY IF EXISTS conversations_create ON pgctx.conversations;
CREATE POLICY conversations_create ON pgctx.conversations FOR INSERT
    WITH CHECK (pgctx.tenant_member(tenant));
DROP POLICY IF EXISTS conversations_advance ON pgctx.conversations;
CREATE POLICY conversations_advance ON pgctx.conversations FOR UPDATE
    USING (pgctx.tenant_member(tenant)) WITH CHECK (pgctx.tenant_member(tenant));

DROP POLICY IF EXISTS events_read ON pgctx.events;
CREATE POLICY events_read ON pgctx.events FOR SELECT
    USING (pgctx.tenant_visible(tenant));
DROP POLICY IF EXISTS events_append ON pgctx.events;
CREATE POLICY events_append ON pgctx.events FOR INSERT
    WITH CHECK (pgctx.tenant_member(tenant));
