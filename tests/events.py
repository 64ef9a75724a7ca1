"""Payload builders for tool events, shared by the fold, context and reconcile tests."""

from __future__ import annotations

from pgctx.tokens import Budget


def call(n: int, tool: str = "update_order", effect: str | None = None, key: bool = True) -> dict:
    """tool_call n: call id call-n, an order id argument (an identifier), idempotency key k-n."""
    payload = {"tool": tool, "call_id": f"call-{n}", "arguments": {"order_id": f"{n}0086"}}
    if effect:
        payload["effect"] = effect
    if key:
        payload["idempotency_key"] = f"k-{n}"
    return payload


def result(n: int, outcome: str = "succeeded", **extra) -> dict:
    """The answer to call-n; a success carries request id req-n, a failure an error."""
    payload = {"call_id": f"call-{n}", "outcome": outcome, **extra}
    if outcome == "succeeded":
        payload.setdefault("request_id", f"req-{n}")
    if outcome == "failed":
        payload.setdefault("error", "rejected")
    return payload


# The fold policy without its floor and raw tail: any trigger makes a fold due, and a fold goes to
# the newest boundary. Tests of triggers, boundaries and evidence use it to fold on a trigger
# (tests/test_fold_policy.py tests the floor and the tail themselves).
EAGER = Budget(structural_floor=0, raw_tail=0)
