"""What the stateful fuzz found: retention keeps a checkpoint a branch continues from
(pgctx.branch_continuing_from, used by the checkpoints guard, PC113, and by prune_checkpoints: 090,
130; an index of branches by source, 120); a fork of a branch at its own fork point is a fork of
its source there (120: it failed with an untyped error); a branch's digest at its fork point
anchors its verification, an anchor before it is PC015 (050); recover records the calls
interrupted on an abandoned branch (110, through append_chained, 040) and moves how far a run from
genesis reached past the recovery event it wrote. Every file is applied again, as in 0011 (the new
function's privileges come from the security files). The stored formats are unchanged: existing
rows stay valid.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from alembic import op

from pgctx.schema import apply_sql_files

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

FILES = [
    "000_schema.sql",
    "001_errors.sql",
    "010_canonical.sql",
    "015_tenant_names.sql",
    "020_conversations.sql",
    "030_events.sql",
    "040_append.sql",
    "050_verify.sql",
    "060_security.sql",
    "070_summary_schema.sql",
    "071_summary_v1.sql",
    "072_summary_v2.sql",
    "080_tool_state.sql",
    "090_checkpoints.sql",
    "100_fold.sql",
    "110_recover.sql",
    "120_branches.sql",
    "130_retention.sql",
    "140_views.sql",
    "150_fold_security.sql",
    "160_fold_triggers.sql",
    "165_fold_evidence.sql",
    "170_context.sql",
    "180_context_security.sql",
    "190_erasure.sql",
    "200_session_view.sql",
    "210_langgraph.sql",
]


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, FILES)


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
