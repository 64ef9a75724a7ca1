"""Erasure without losing verifiability: chain format v2 (each new event binds a salted digest
of its payload, so erasing payload and salt leaves a hash that verifies); the erasure event and
the one UPDATE of events allowed (an erasure it records); verify_chain checks and reports
erasures; folds may not cite erased events (PC119); erase_events, erase_conversation,
erase_tenant for the pgctx_eraser role; retention policies and erase_expired. Retraction and
clear events (pgctx.retract_last, pgctx.clear_view: a session store's pop_item and
clear_session), known to the working context, the fold boundary and must-keep; the sdk_item kind.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from alembic import op

from pgctx.schema import apply_sql_files

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

FILES = [
    "000_schema.sql",  # the pgctx_eraser role
    "001_errors.sql",  # PC017-PC019, PC119
    "010_canonical.sql",  # new_salt, payload_digest, event_hash_v2
    "030_events.sql",  # salt, payload_digest, erased_in; v2 hashes; the erasure kind and the erasure UPDATE
    "040_append.sql",  # append_events chains v2; append_chained
    "050_verify.sql",  # verify_chain checks and reports erasures (and returns erased)
    "060_security.sql",  # grants of the new functions and verify_chain again
    "080_tool_state.sql",  # must_keep starts over at a clear
    "090_checkpoints.sql",  # a commit never folds an event retracted since it was prepared
    "100_fold.sql",  # PC119: a candidate cites no erased event; PC103 for retractions; clears
    "160_fold_triggers.sql",  # the fold boundary keeps a retracted event with its retraction
    "170_context.sql",  # the view leaves out retracted and cleared events
    "190_erasure.sql",  # the erase functions, their policies, retention
    "200_session_view.sql",  # retract_last, clear_view
]


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, FILES)


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
