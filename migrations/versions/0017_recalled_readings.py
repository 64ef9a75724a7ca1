"""The working context recalls the readings of what the agent turns back to (issue 23):
pgctx.context_events (170) returns, asked to fill, the folded tool results the summary's active
tool facts rest on when the unfolded events name the fact's subject again, with their calls
(section recalled); a fold must cite the newest 12 user requests of its range, not 3 (PC120,
must_keep in 080, fold_violations in 100). Every file is applied again, as in 0011. Stored formats are unchanged:
existing rows stay valid, readable and verifiable.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07
"""

from alembic import op

from pgctx.schema import apply_sql_files, sql_files

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, [f.name for f in sql_files()])


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
