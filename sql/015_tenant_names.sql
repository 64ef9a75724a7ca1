-- 015: tenants stored by role name (migration 0010).
--
-- Invariants enforced here:
--   * A tenant is stored as its role's name in identifier form (what regrole prints: quoted when
--     the name needs quoting), never as a role OID. OIDs are local to one server: the nodes of a
--     Citus cluster give one role different OIDs, and a dump restored into another cluster would
--     point at whatever role holds the number there. Names are what roles share across nodes and
--     restores; pgctx.tenant_member (020) resolves them with to_regrole on the node that asks.
--   * Upgrading a database of an earlier release (tenant columns of type regrole) converts every
--     such column of schema pgctx in place, each value to the name its role has now, in one
--     transaction with the rest of the migration. What depends on the columns or on functions
--     with regrole in their signature (row-level security policies, views, the retention
--     index, the tenant foreign keys) is dropped first and created again by the files that
--     define it (the first migration to run on such a database applies every file, schema.py);
--     the foreign keys are added back here.
--     On a fresh install there is nothing to convert and this file does nothing.
--   * Stated limits: renaming a tenant role (ALTER ROLE ... RENAME) detaches its conversations
--     from it until it is renamed back; a role created later with a dropped tenant role's name
--     belongs to that tenant (drop a tenant's data with pgctx.erase_tenant before its role). A
--     dropped role whose OID an old release stored converts to the number regrole printed for it,
--     which names no role.

DO $$
DECLARE
    r record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
                    WHERE c.relnamespace = 'pgctx'::regnamespace AND a.atttypid = 'regrole'::regtype
                      AND NOT a.attisdropped) THEN
        RETURN;
    END IF;
    FOR r IN SELECT p.polname, c.oid::regclass AS tab FROM pg_catalog.pg_policy p JOIN pg_catalog.pg_class c ON c.oid = p.polrelid
              WHERE c.relnamespace = 'pgctx'::regnamespace LOOP
        EXECUTE format('DROP POLICY %I ON %s', r.polname, r.tab);
    END LOOP;
    FOR r IN SELECT c.oid::regclass AS view FROM pg_catalog.pg_class c
              WHERE c.relnamespace = 'pgctx'::regnamespace AND c.relkind = 'v' ORDER BY c.oid DESC LOOP
        EXECUTE format('DROP VIEW %s', r.view);  -- newest first: a view over another is newer
    END LOOP;
    DROP INDEX IF EXISTS pgctx.retention_policy_scope;
    ALTER TABLE pgctx.conversations DROP CONSTRAINT IF EXISTS conversations_tenant_fkey;
    ALTER TABLE IF EXISTS pgctx.retention_policy DROP CONSTRAINT IF EXISTS retention_policy_tenant_fkey;
    FOR r IN SELECT p.oid::regprocedure AS fn FROM pg_catalog.pg_proc p
              WHERE p.pronamespace = 'pgctx'::regnamespace
                AND ('regrole'::regtype = ANY (p.proargtypes::oid[]) OR p.prorettype = 'regrole'::regtype
                     OR 'regrole'::regtype = ANY (coalesce(p.proallargtypes, '{}'))) LOOP
        EXECUTE format('DROP FUNCTION %s', r.fn);
    END LOOP;
    FOR r IN SELECT c.oid::regclass AS tab, a.attname FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
              WHERE c.relnamespace = 'pgctx'::regnamespace AND c.relkind = 'r' AND a.atttypid = 'regrole'::regtype
                AND NOT a.attisdropped LOOP
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE text USING %I::text', r.tab, r.attname, r.attname);
    END LOOP;
    ALTER TABLE pgctx.conversations ADD CONSTRAINT conversations_tenant_fkey
        FOREIGN KEY (tenant) REFERENCES pgctx.tenants (tenant);
    IF to_regclass('pgctx.retention_policy') IS NOT NULL THEN  -- (since 0007)
        ALTER TABLE pgctx.retention_policy ADD CONSTRAINT retention_policy_tenant_fkey
            FOREIGN KEY (tenant) REFERENCES pgctx.tenants (tenant);
    END IF;
END
$$;
