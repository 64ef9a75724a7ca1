-- EXPERIMENT (optional trade-off; not part of the schema): do not run the conversations guard
-- for the head update made by pgctx.events_advance_head itself.
--
-- The guard (a PL/pgSQL row trigger with an index probe into pgctx.events) runs on every head
-- update, i.e. once per appending statement, although the only writer of a head row is the
-- events statement trigger, which moves it to the last event it has just inserted. With
-- WHEN (pg_trigger_depth() = 0) the guard still refuses every direct UPDATE/DELETE/TRUNCATE;
-- only updates issued from inside a trigger skip it. Only the table owner can UPDATE
-- pgctx.conversations at all (pgctx_app may only SELECT), and the owner can disable the guard
-- anyway, so no role gains anything it could not already do.

DROP TRIGGER IF EXISTS conversations_guard_row ON pgctx.conversations;
CREATE TRIGGER conversations_guard_row
    BEFORE UPDATE OR DELETE ON pgctx.conversations
    FOR EACH ROW WHEN (pg_trigger_depth() = 0) EXECUTE FUNCTION pgctx.conversations_guard();
ALTER TABLE pgctx.conversations ENABLE ALWAYS TRIGGER conversations_guard_row;
