"""Recovery acts only on what it verified (issue 27): pgctx.recover (110) verifies the events that
decide its actions, the first running call's onward and every PREPARED fold's range, even below
the last verified point, and marks no call unknown while the chain is broken; chain_health (140)
says which of its columns is current (state); verify_chain (050) reports erased 0, not NULL, on a
broken chain. Every file is
applied again, as in 0011. Stored formats are unchanged: existing rows stay valid, readable and
verifiable.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04
"""

from alembic import op

from pgctx.schema import apply_sql_files, sql_files

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, [f.name for f in sql_files()])


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
