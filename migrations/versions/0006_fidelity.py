"""Fidelity: summary schema_version 2 (facts with subjects and short lists, the user's binding
words, cited constraints, bounded tool state collapsed per tool); the fold policy in
fold_status (a raw tail left unfolded, structural and risk triggers waiting for a floor, folds
only when they make the context smaller); risk evidence pinned while its risk is live, and
contradictions found across calls; each checkpoint's token count; the fold lock that lets a
serialized folder exclude every other prepare and commit.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from alembic import op

from pgctx.schema import apply_sql_files

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

FILES = [
    "072_summary_v2.sql",  # schema_version 2 registered
    "080_tool_state.sql",  # tool_calls names each call's subject (its views dropped: 140 recreates them); must_keep per version
    "090_checkpoints.sql",  # checkpoints.tokens
    "100_fold.sql",  # version 2's rules; prepare_fold takes tokens; the shared fold lock
    "110_recover.sql",  # recover takes the fold lock shared
    "140_views.sql",  # side_effects (with subject) and conversation_status again
    "150_fold_security.sql",  # grants of the new signatures and the views
    "160_fold_triggers.sql",  # risk identities, contradictions across calls, the fold policy in fold_status
    "165_fold_evidence.sql",  # evidence carried while live (pgctx.risk_live)
    "170_context.sql",  # the context pins every live risk of the committed fold
    "180_context_security.sql",  # grants of the new signatures
]


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, FILES)


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
