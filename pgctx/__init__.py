"""pgctx: an LLM agent's context summary as verifiable, recoverable state in PostgreSQL.

The event log's rules live in SQL (see sql/); these functions are thin calls of it.
"""

from pgctx.bundle import export_bundle, verify_bundle
from pgctx.canonical import canonical_json
from pgctx.digest import take_digest, verify_against_digest
from pgctx.errors import PgctxError
from pgctx.eventlog import ChainReport, append, append_many, verify
from pgctx.schema import migrate

__all__ = [
    "ChainReport",
    "PgctxError",
    "append",
    "append_many",
    "canonical_json",
    "export_bundle",
    "migrate",
    "take_digest",
    "verify",
    "verify_against_digest",
    "verify_bundle",
]
