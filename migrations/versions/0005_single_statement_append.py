"""Cheaper single-event appends: the events trigger advances the head row with one UPDATE that
locks it, checks the append is allowed and returns the new event's seq and links (the head row
now keeps the head event's prev_hash for that); no statement trigger; the head row's rules are
checked by its guard triggers instead of CHECK constraints, which PostgreSQL re-plans on every
UPDATE; checked_payload returns a named composite type and converts a payload to text once;
trailing zeros trimmed by a text rewrite; verify_chain hashes in its query; open_approvals and
checkpoint_checksum inlined into their callers (folds ~3% faster).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from alembic import op

from pgctx.schema import apply_sql_files

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

FILES = [
    "001_errors.sql",  # PC011 also covers a conversation row created off its genesis
    "010_canonical.sql",  # may_need_trim: canonical_payload's test, shared with checked_payload
    "020_conversations.sql",  # head_prev_hash; guards instead of CHECK constraints; insert guard
    "030_events.sql",  # events_chain advances the head itself; events_advance_head dropped
    "040_append.sql",  # append_events moves the head (and its prev_hash) itself
    "050_verify.sql",  # verify_chain recomputes each hash in its query
    "060_security.sql",  # grant of may_need_trim
    "080_tool_state.sql",  # open_approvals without SET clauses, inlined into must_keep
    "090_checkpoints.sql",  # checkpoint_checksum not STRICT, so it is inlined
]


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, FILES)


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
