"""Recovery says what it verified, and a break it found stands until the chain is whole again:
pgctx.chain_breaks (110, its row-level security and grants in 150, shown by chain_health in 140),
verified_points.genesis_seq / genesis_at (when a run last verified from genesis). The static
checks' fixes: a comment on every function, explicit casts plpgsql_check asked for, a volatility
and defaults corrected; append_events finds a repeated event key in its batch without copying
what it collected. Every file is applied again: the changed ones drop and re-create functions
(verify_chain, ...) whose grants live in the security files. The stored formats are unchanged:
existing rows stay valid.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from alembic import op

from pgctx.schema import apply_sql_files

revision = "0011"
down_revision = "0010"
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
