"""pgctx: an LLM agent's context summary as verifiable, recoverable state in PostgreSQL.

The event log's rules live in SQL (see sql/); these functions are thin calls of it.
"""

from pgctx.branches import confirm_mainline, fork_conversation
from pgctx.bundle import export_bundle, verify_bundle
from pgctx.canonical import canonical_json
from pgctx.context import WorkingContext, build_context
from pgctx.digest import take_digest, verify_against_digest
from pgctx.distribute import distribute  # the function: import the module's other names from pgctx.distribute
from pgctx.erasure import erase
from pgctx.errors import PgctxError
from pgctx.eventlog import ChainReport, append, append_many, verify
from pgctx.fold_loop import FoldResult, Trigger, fold
from pgctx.fold_procedures import (
    CommittedFold,
    commit_fold,
    committed_fold,
    discard_fold,
    fold_violations,
    must_keep,
    prepare_fold,
    recover,
)
from pgctx.reconcile import Resolution, UnknownCall, reconcile
from pgctx.schema import Migrated, migrate
from pgctx.summarizers import BuiltinSummarizer, FoldRequest
from pgctx.summary import Summary
from pgctx.tokens import Budget, TokenCounter


def __getattr__(name: str):
    # the openai client is imported only by those who use it (it is slow to import)
    if name == "OpenAISummarizer":
        from pgctx.openai_summarizer import OpenAISummarizer

        return OpenAISummarizer
    if name == "CounterfactualProbe":
        from pgctx.probe import CounterfactualProbe

        return CounterfactualProbe
    if name == "evaluate":  # the evaluation harness imports this package itself
        from pgctx.evaluation import evaluate

        return evaluate
    raise AttributeError(f"module 'pgctx' has no attribute {name!r}")


__all__ = [
    "Budget",
    "BuiltinSummarizer",
    "ChainReport",
    "CommittedFold",
    "CounterfactualProbe",
    "FoldRequest",
    "FoldResult",
    "OpenAISummarizer",
    "PgctxError",
    "Resolution",
    "Summary",
    "TokenCounter",
    "Trigger",
    "UnknownCall",
    "WorkingContext",
    "append",
    "append_many",
    "build_context",
    "evaluate",
    "fold",
    "reconcile",
    "canonical_json",
    "commit_fold",
    "confirm_mainline",
    "committed_fold",
    "discard_fold",
    "distribute",
    "erase",
    "fold_violations",
    "fork_conversation",
    "must_keep",
    "prepare_fold",
    "recover",
    "export_bundle",
    "Migrated",
    "migrate",
    "take_digest",
    "verify",
    "verify_against_digest",
    "verify_bundle",
]
