"""pgctx on Citus, and tenants by role name. Tenant columns become text (the role's name as regrole
printed it: 015 converts them in place; OIDs differ between the nodes of a cluster and between
clusters); functions taking a tenant take its name. The application role's INSERT on the log is a
whole-table grant (Citus does not carry column grants to shards) and the events triggers refuse
the columns it may not set; events.created_at has no default (the trigger tells a chosen time
from none). event_hash_v2 and genesis_hash are IMMUTABLE (as they are), the head row's tenant is
checked on RETURNING, the event_kinds compile is node-local with its TRUNCATE trigger apart, and
the ON CONFLICT updates take their times from excluded. Every file is applied again, since views,
policies and functions dropped by 015 are created by their own files.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from alembic import op

from pgctx.schema import apply_sql_files

revision = "0010"
down_revision = "0009"
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
