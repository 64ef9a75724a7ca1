"""Checks of the public API's arguments, made before any SQL is sent.

A value of the wrong type would otherwise reach the server and come back as an UndefinedFunction
(``append(conn, 123, ...)``: there is no append_event(smallint, ...)) or fail deep inside as an
AttributeError (``fold(..., budget=1000)``). Each check raises a TypeError naming the argument.
"""

from __future__ import annotations

from typing import Any

from pgctx.tokens import Budget


def text(name: str, value: Any, *, optional: bool = False) -> None:
    """``value`` is a str (or None, when ``optional``)."""
    if isinstance(value, str) or (optional and value is None):
        return
    raise TypeError(f"{name} must be a str{' or None' if optional else ''}, got {type(value).__name__} {value!r:.60}")


def budget(value: Any) -> Budget:
    """``value`` as a Budget: None is the default Budget()."""
    if value is None:
        return Budget()
    if not isinstance(value, Budget):
        raise TypeError(f"budget must be a pgctx.Budget (e.g. pgctx.Budget(window=16_384)), got "
                        f"{type(value).__name__} {value!r:.60}")
    return value
