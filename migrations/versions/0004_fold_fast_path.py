"""Faster folds: each registered summary schema compiled to a jsonpath predicate that accepts
valid summaries in one pass (the exact validator still names every error).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from alembic import op

from pgctx.schema import apply_sql_files

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

FILES = [
    "070_summary_schema.sql",  # summary_schemas.fast_check and its use in summary_schema_error
    "150_fold_security.sql",  # grant of the compiler
]


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, FILES)


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
