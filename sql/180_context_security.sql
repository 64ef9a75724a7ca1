-- 180: privileges for fold triggers and the working context.
--
-- Invariants enforced here:
--   * Reading why a fold is due, where it may end and what a working context holds is open to
--     the application and the auditor (row-level security on the events still applies: these
--     functions run as the caller). Only the application may take the fold serialization lock.

REVOKE ALL ON FUNCTION
    pgctx.fold_triggers(text, bigint, bigint, bigint, bigint, jsonb),
    pgctx.fold_boundary(text, bigint),
    pgctx.fold_status(text, bigint, bigint, bigint),
    pgctx.risk_live(text, jsonb, bigint[], bigint),
    pgctx.context_events(text, bigint),
    pgctx.pinned_evidence(text, bigint, jsonb, jsonb),
    pgctx.fold_evidence(text, integer, bigint, bigint),
    pgctx.serialize_folds(text),
    pgctx.lineage(text),
    pgctx.call_events(text[], bigint[], bigint[], text[], bigint, boolean),
    pgctx.checkpoints_evidence(),
    pgctx.result_record(jsonb)
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION
    pgctx.fold_triggers(text, bigint, bigint, bigint, bigint, jsonb),
    pgctx.fold_boundary(text, bigint),
    pgctx.fold_status(text, bigint, bigint, bigint),
    pgctx.risk_live(text, jsonb, bigint[], bigint),
    pgctx.context_events(text, bigint),
    pgctx.pinned_evidence(text, bigint, jsonb, jsonb),
    pgctx.fold_evidence(text, integer, bigint, bigint),
    pgctx.lineage(text),
    pgctx.call_events(text[], bigint[], bigint[], text[], bigint, boolean),
    pgctx.result_record(jsonb)
    TO pgctx_app, pgctx_auditor;
GRANT EXECUTE ON FUNCTION pgctx.serialize_folds(text) TO pgctx_app;
