-- 150: privileges and row-level security for folds.
--
-- Invariants enforced here:
--   * pgctx_app reads fold state and changes it only through prepare_fold, commit_fold,
--     discard_fold, recover, declare_tool, fork_conversation and confirm_mainline (SECURITY
--     DEFINER, search_path pinned); it has no
--     INSERT, UPDATE or DELETE on checkpoints, fold_heads, verified_points or chain_breaks. Retention
--     (prune_checkpoints) is the owner's. pgctx_auditor only reads.
--   * The fold tables carry their conversation's tenant and are under the same forced
--     row-level security as the log; the definer functions also check tenancy explicitly
--     (lock_fold_head), because RLS does not bind a superuser owner.

REVOKE ALL ON ALL TABLES IN SCHEMA pgctx FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA pgctx FROM PUBLIC;

GRANT SELECT ON pgctx.checkpoints, pgctx.fold_heads, pgctx.verified_points, pgctx.chain_breaks, pgctx.tools, pgctx.summary_schemas,
                pgctx.conversation_status, pgctx.fold_history, pgctx.side_effects, pgctx.chain_health,
                pgctx.branches
    TO pgctx_app, pgctx_auditor;

GRANT EXECUTE ON FUNCTION
    pgctx.prepare_fold(text, integer, bigint, bigint, jsonb, integer, text, integer, integer),
    pgctx.commit_fold(text, integer),
    pgctx.discard_fold(text, integer, text),
    pgctx.recover(text, boolean),
    pgctx.declare_tool(text, text, text[], text),
    pgctx.fork_conversation(text, bigint, text),
    pgctx.confirm_mainline(text)
    TO pgctx_app;
GRANT EXECUTE ON FUNCTION
    pgctx.fold_violations(text, integer, bigint, bigint, jsonb, integer, integer, integer),
    pgctx.must_keep(text, bigint, bigint, jsonb, integer, integer),
    pgctx.acknowledgement(text),
    pgctx.message_text(text, jsonb),
    pgctx.subject_text(jsonb),
    pgctx.base_summary_tokens(text, integer),
    pgctx.fold_events(text, bigint, bigint),
    pgctx.estimated_tokens(jsonb),
    pgctx.fold_lock_key(text),
    pgctx.base_summary(text, integer),
    pgctx.base_fold(text, integer),
    pgctx.committed_fold(text),
    pgctx.tool_calls(text, bigint, bigint, text[]),
    pgctx.open_approvals(text, bigint),
    pgctx.summary_schema_error(integer, jsonb),
    pgctx.json_schema_error(jsonb, jsonb, jsonb, text),
    pgctx.json_schema_jsonpath(jsonb, jsonb, text, integer, text),
    pgctx.json_schema_accepts(jsonb, jsonpath, jsonb),
    pgctx.json_type_matches(jsonb, jsonb),
    pgctx.checkpoint_checksum(integer, bigint, bytea, jsonb)
    TO pgctx_app, pgctx_auditor;

ALTER TABLE pgctx.checkpoints ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgctx.checkpoints FORCE ROW LEVEL SECURITY;
ALTER TABLE pgctx.fold_heads ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgctx.fold_heads FORCE ROW LEVEL SECURITY;
ALTER TABLE pgctx.verified_points ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgctx.verified_points FORCE ROW LEVEL SECURITY;
ALTER TABLE pgctx.chain_breaks ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgctx.chain_breaks FORCE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS checkpoints_read ON pgctx.checkpoints;
CREATE POLICY checkpoints_read ON pgctx.checkpoints FOR SELECT USING (pgctx.tenant_visible(tenant));
DROP POLICY IF EXISTS checkpoints_write ON pgctx.checkpoints;
CREATE POLICY checkpoints_write ON pgctx.checkpoints FOR ALL
    USING (pgctx.tenant_member(tenant)) WITH CHECK (pgctx.tenant_member(tenant));
DROP POLICY IF EXISTS fold_heads_read ON pgctx.fold_heads;
CREATE POLICY fold_heads_read ON pgctx.fold_heads FOR SELECT USING (pgctx.tenant_visible(tenant));
DROP POLICY IF EXISTS fold_heads_write ON pgctx.fold_heads;
CREATE POLICY fold_heads_write ON pgctx.fold_heads FOR ALL
    USING (pgctx.tenant_member(tenant)) WITH CHECK (pgctx.tenant_member(tenant));
DROP POLICY IF EXISTS verified_points_read ON pgctx.verified_points;
CREATE POLICY verified_points_read ON pgctx.verified_points FOR SELECT USING (pgctx.tenant_visible(tenant));
DROP POLICY IF EXISTS verified_points_write ON pgctx.verified_points;
CREATE POLICY verified_points_write ON pgctx.verified_points FOR ALL
    USING (pgctx.tenant_member(tenant)) WITH CHECK (pgctx.tenant_member(tenant));
DROP POLICY IF EXISTS chain_breaks_read ON pgctx.chain_breaks;
CREATE POLICY chain_breaks_read ON pgctx.chain_breaks FOR SELECT USING (pgctx.tenant_visible(tenant));
DROP POLICY IF EXISTS chain_breaks_write ON pgctx.chain_breaks;
CREATE POLICY chain_breaks_write ON pgctx.chain_breaks FOR ALL
    USING (pgctx.tenant_member(tenant)) WITH CHECK (pgctx.tenant_member(tenant));
