"""The hash-chained, append-only event log: schema, roles, errors, canonical form, events,
append functions, verification, privileges and row-level security.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from alembic import op

from pgctx.schema import apply_sql_files

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

FILES = [
    "000_schema.sql",
    "001_errors.sql",
    "010_canonical.sql",
    "020_conversations.sql",
    "030_events.sql",
    "040_append.sql",
    "050_verify.sql",
    "060_security.sql",
]


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, FILES)


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
