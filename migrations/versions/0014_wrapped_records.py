"""Contradictions between records wrapped in their type's name (issue 23): a tool result whose one
member is an object ({"product": {"price": "26.50"}}) is read as that record by
pgctx.result_record (new, 160), so fold_triggers finds two tools disagreeing about a field of one
SKU when each wraps its record in its own name, and risk_live (165) sees a later reading of the
field settle it. Every file is applied again, as in 0011. Stored formats are unchanged: existing
rows stay valid, readable and verifiable.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04
"""

from alembic import op

from pgctx.schema import apply_sql_files, sql_files

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, [f.name for f in sql_files()])


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
