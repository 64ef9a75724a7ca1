"""pgctx: an LLM agent's context summary as verifiable, recoverable state in PostgreSQL.

The event log's rules live in SQL (see sql/); these functions are thin calls of it.
"""

from pgctx.branches import confirm_mainline, fork_conversation
from pgctx.bundle import export_bundle, verify_bundle
from pgctx.canonical import canonical_json
from pgctx.digest import take_digest, verify_against_digest
from pgctx.errors import PgctxError
from pgctx.eventlog import ChainReport, append, append_many, verify
from pgctx.folds import (
    CommittedFold,
    commit_fold,
    committed_fold,
    discard_fold,
    fold_violations,
    must_keep,
    prepare_fold,
    recover,
)
from pgctx.schema import migrate
from pgctx.summary import Summary

__all__ = [
    "ChainReport",
    "CommittedFold",
    "PgctxError",
    "Summary",
    "append",
    "append_many",
    "canonical_json",
    "commit_fold",
    "confirm_mainline",
    "committed_fold",
    "discard_fold",
    "fold_violations",
    "fork_conversation",
    "must_keep",
    "prepare_fold",
    "recover",
    "export_bundle",
    "migrate",
    "take_digest",
    "verify",
    "verify_against_digest",
    "verify_bundle",
]
