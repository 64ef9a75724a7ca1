"""A fold never hides or grows, and the working context uses its budget (issue 23): prepare_fold
refuses a candidate that hides what it folds (PC120: the newest user requests of the range, the
facts declared in it, or everything) or that would not make the working context smaller (PC121;
fold_violations takes the summary's token count; a candidate without one is weighed, and stored,
with pgctx.estimated_tokens); must_keep lists the requests to cite, the acknowledgements and the
declared facts (080); the evidence a context keeps raw is pgctx.pinned_evidence, for any
checkpoint (170), and a checkpoint's recorded evidence pgctx.fold_evidence (165);
context_events(id, fill) adds the newest folded events while they fit, and each evidence row's
chain hash (170); must_keep, fold_violations and prepare_fold take a horizon (the resolved calls
a summary keeps in full, for small windows; PC122 below 0), which checkpoints record in a new
nullable column (090) for recovery's re-check. Every file is applied again, as in 0011. Stored
formats are unchanged: existing rows stay valid, readable and verifiable (checkpoints keep the
token counts they have; their horizon is NULL, the default they were validated with).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03
"""

from alembic import op

from pgctx.schema import apply_sql_files, sql_files

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, [f.name for f in sql_files()])


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
