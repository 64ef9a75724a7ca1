"""The schema fast path's compiler keeps a closed object inside anyOf in its predicate: below a
property of an anyOf alternative it gave the object a place (format() read the NULL place as ''),
so its key set went to the closed list, which anyOf alternatives drop, and the compiled predicate
accepted extra keys the exact validator refuses. The registered summary schemas (1 and 2) compile
to the same checks before and after (no closed object under an anyOf there), so their stored
fast_check / fast_closed stay as they are.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from alembic import op

from pgctx.schema import apply_sql_files

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

FILES = ["070_summary_schema.sql"]


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, FILES)


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
