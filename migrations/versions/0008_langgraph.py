"""LangGraph threads on the event log: the lg_* event kinds of pgctx.integrations.langgraph
(checkpoints, channel values, pending writes, tombstones), their indexes, the rule for which
checkpoints are live (pgctx.langgraph_checkpoints), and the DBA view pgctx.langgraph_threads.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from alembic import op

from pgctx.schema import apply_sql_files

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

FILES = ["210_langgraph.sql"]


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, FILES)


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
