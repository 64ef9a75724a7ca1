"""What the stateful fuzz found: retention keeps a checkpoint a branch continues from
(pgctx.branch_continuing_from, used by the checkpoints guard, PC113, and by prune_checkpoints: 090,
130; an index of branches by source, 120); a fork of a branch at its own fork point is a fork of
its source there (120: it failed with an untyped error); a branch's digest at its fork point
anchors its verification, an anchor before it is PC015 (050); recover records the calls
interrupted on an abandoned branch (110, through append_chained, 040) and moves how far a run from
genesis reached past the recovery event it wrote. Every file is applied again, as in 0011 (the new
function's privileges come from the security files). The stored formats are unchanged: existing
rows stay valid.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from alembic import op

from pgctx.schema import apply_sql_files, sql_files

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # every file, as 0011 listed them: the schema files are written to be applied again whole
    apply_sql_files(op.get_bind().connection.dbapi_connection, [f.name for f in sql_files()])


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
