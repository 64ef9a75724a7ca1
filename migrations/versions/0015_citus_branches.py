"""Branches, checkpoint removal and the LangGraph saver on a Citus cluster (issue 24).

* A branch's history is read one conversation per statement, so a branch whose source lives on
  another worker works there: pgctx.lineage_parts goes; tool_calls (080) reads the conversation's
  own part in its query and a branch's sources through pgctx.call_events (new, 080), one query
  per part; pinned_evidence (170) and fold_violations (100) loop over the parts.
* The checkpoints guard (090) asks whether a branch continues from a checkpoint only when it fires
  on pgctx.checkpoints itself (always on one server); on a Citus shard it cannot read the branches
  on other shards, so prune_checkpoints (130) and erase (190) ask before they delete.
* prepare_fold (100) derives a branch's evidence and inserts it; the insert trigger (165) keeps it
  on a Citus shard, where it cannot read the branch's source, and derives it everywhere else.
* The LangGraph saver reads per thread through pgctx.langgraph_thread_checkpoints (new, 210);
  langgraph_writes and langgraph_parts are PL/pgSQL.

Every file is applied again, as in 0011. Stored formats are unchanged: existing rows stay valid,
readable and verifiable.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04
"""

from alembic import op

from pgctx.schema import apply_sql_files, sql_files

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    apply_sql_files(op.get_bind().connection.dbapi_connection, [f.name for f in sql_files()])


def downgrade() -> None:
    raise NotImplementedError("pgctx migrations are forward-only: the event log is append-only")
