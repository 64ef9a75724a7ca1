"""Faster folds and batch appends: each registered summary schema compiled to a jsonpath
predicate that accepts valid summaries in one pass (the exact validator still names every
error); the checkpoint checksum computed once; facts compared by key; append_events chains its
batch itself under one head lock; side_effects says when a retry is safe.

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
    "030_events.sql",  # lock_conversation shared by both append paths; the row trigger lets append_events' rows through
    "040_append.sql",  # append_events chains the batch itself
    "070_summary_schema.sql",  # summary_schemas.fast_check and its use in summary_schema_error
    # (since 0006: the files below call and grant 080's current functions, so 080 comes first)
    "080_tool_state.sql",
    "090_checkpoints.sql",  # the insert trigger derives the checksum (computed once per prepare)
    "100_fold.sql",  # facts compared by key; the checksum left to the trigger; base_summary in plpgsql
    "140_views.sql",  # side_effects.retry_safe
    "150_fold_security.sql",  # grant of the compiler
    "160_fold_triggers.sql",  # fold_triggers reads the committed fold only when no range is given
]


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, FILES)


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
