"""The fold API: per-event token counts on append, fold triggers and boundaries, the working
context's events, tool calls across a branch's lineage, and their privileges.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from alembic import op

from pgctx.schema import apply_sql_files

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

FILES = [
    "040_append.sql",  # append_event gains its tokens argument (replacing the old signature)
    "060_security.sql",  # and its grant
    "080_tool_state.sql",  # tool calls across a branch's lineage; plans kept, no JIT; events_tool_seq
    "100_fold.sql",  # committed_fold keeps its plan
    "160_fold_triggers.sql",
    "165_fold_evidence.sql",
    "170_context.sql",
    "180_context_security.sql",
]


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, FILES)


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
