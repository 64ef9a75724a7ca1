-- 000: the pgctx schema and its roles.
--
-- Invariants enforced here:
--   * The database encoding is UTF8. Hashes are computed over the bytes PostgreSQL holds, and the
--     offline verifier reproduces them as UTF-8; any other server encoding would make SQL and
--     Python disagree, so installation refuses it (PC012).
--   * Three NOLOGIN group roles exist: pgctx_app (agents: append and read, nothing else),
--     pgctx_auditor (read-only, every tenant) and pgctx_eraser (erasure and retention, every
--     tenant, granted by a DBA; 190). Login roles are granted one of them. Roles are
--     cluster-wide, so creating them tolerates another database (or a concurrent migration)
--     having created them first.
--   * The roles own nothing: every object below is owned by whoever runs the migration.

DO $$
BEGIN
    IF pg_catalog.getdatabaseencoding() <> 'UTF8' THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC012',
            MESSAGE = format('pgctx needs a UTF8 database; this one is %s', pg_catalog.getdatabaseencoding()),
            HINT = 'CREATE DATABASE ... ENCODING ''UTF8'' TEMPLATE template0';
    END IF;
END
$$;

CREATE SCHEMA IF NOT EXISTS pgctx;
REVOKE ALL ON SCHEMA pgctx FROM PUBLIC;

DO $$
DECLARE
    r text;
BEGIN
    FOREACH r IN ARRAY ARRAY['pgctx_app', 'pgctx_auditor', 'pgctx_eraser'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = r) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN NOINHERIT', r);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
                -- another database's migration created it between our check and now
                NULL;
            END;
        END IF;
    END LOOP;
END
$$;

COMMENT ON SCHEMA pgctx IS
    'pgctx: hash-chained agent event log and verified summary checkpoints. See README.md.';
