"""Folds: the summary schema and its SQL validator, tool state and must-keep derivation,
checkpoints with PREPARED/COMMITTED/DISCARDED phases and compare-and-swap commit, recovery,
branches, retention, DBA views, and their privileges.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from alembic import op

from pgctx.schema import apply_sql_files

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

FILES = [
    "070_summary_schema.sql",
    "071_summary_v1.sql",
    "080_tool_state.sql",
    "090_checkpoints.sql",
    "100_fold.sql",
    "110_recover.sql",
    "120_branches.sql",
    "130_retention.sql",
    "140_views.sql",
    "150_fold_security.sql",
]


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, FILES)


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
