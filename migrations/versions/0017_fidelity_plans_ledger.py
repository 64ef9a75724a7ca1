"""Issue 23's fifth round, issue 25's stable plans and issue 27's erased ledger, one migration
(every file applied again, as in 0011; stored formats are unchanged but for what an erasure made
from now on keeps, below: existing rows stay valid, readable and verifiable):

- The working context recalls the readings of what the agent turns back to: pgctx.context_events
  (170) returns, asked to fill, the folded tool results the summary's active tool facts rest on
  when the unfolded events name the fact's subject again, with their calls (section recalled).
- A fold must cite the newest 12 user requests of its range, not 3 (PC120: must_keep in 080,
  fold_violations in 100).
- Plans that do not depend on first-seen statistics (issue 25, item 5): a client event key is
  unique through a partial unique index of the events that have one, events_event_key (030),
  instead of the constraint UNIQUE (conversation_id, event_key), whose index, holding every
  event, was a candidate for every read of a conversation and read a whole conversation in plans
  made on small tables; every function an agent turn runs sets enable_seqscan = off (080 says
  why), and the per-turn reads that a plan made on small tables could stretch over the history
  (fold_triggers' range, pinned_evidence's answers after the fold, fold_boundary's approvals after
  it) read their range by primary key. Building the index reads the log once and holds appends
  meanwhile, unless it was built CONCURRENTLY beforehand (docs/dba.md).
- The side-effect ledger survives erasure (issue 27, item 6): an erased tool_call keeps its call
  id, tool, effect and idempotency key, an erased answer its call id, outcome and request id
  (030's pgctx.erased_payload, the one UPDATE the events trigger allows; an erasure event records
  a kept_digest over them, which verify_chain checks); tool_calls and side_effects list an erased
  call with its status (content_erased, erased_seqs), and the views built on them are recreated
  (140, 150). Events erased before this migration keep the bare marker and read as before.

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
