"""Payload builders for tool events, shared by the fold, context and reconcile tests."""

from __future__ import annotations

from pgctx.tokens import Budget


# A tracking log as a carrier's API returns it: long text, no facts (about 470 tokens). A result
# carrying it is what makes a small scripted conversation worth folding: no fold commits unless it
# makes the working context smaller (PC121), and a summary of a few short events never is.
LOG = "\n".join(f"2026-08-{day:02d} {hour:02d}:{17 * day % 60:02d} parcel scanned at sorting hub {hub} "
                f"(lane {day * hour % 9}, belt {hub[-1]}), next stop {hub[:3]}-{day + hour}"
                for day in range(10, 17) for hour, hub in ((6, "LYS-east"), (14, "CDG-north")))


def call(n: int, tool: str = "update_order", effect: str | None = None, key: bool = True) -> dict:
    """tool_call n: call id call-n, an order id argument (an identifier), idempotency key k-n."""
    payload = {"tool": tool, "call_id": f"call-{n}", "arguments": {"order_id": f"{n}0086"}}
    if effect:
        payload["effect"] = effect
    if key:
        payload["idempotency_key"] = f"k-{n}"
    return payload


def result(n: int, outcome: str = "succeeded", **extra) -> dict:
    """The answer to call-n; a success carries request id req-n, a failure an error; each carries
    the service's log (LOG, below; ``log=None`` for none), which is what makes a conversation of a
    few calls worth folding."""
    payload = {"call_id": f"call-{n}", "outcome": outcome, "log": LOG, **extra}
    if payload["log"] is None:
        del payload["log"]
    if outcome == "succeeded":
        payload.setdefault("request_id", f"req-{n}")
    if outcome == "failed":
        payload.setdefault("error", "rejected")
    return payload


# The fold policy without its floor and raw tail: any trigger makes a fold due, and a fold goes to
# the newest boundary. Tests of triggers, boundaries and evidence use it to fold on a trigger
# (tests/test_fold_policy.py tests the floor and the tail themselves).
EAGER = Budget(structural_floor=0, raw_tail=0)



def pasted(text: str) -> dict:
    """A user message that pastes the carrier's log under ``text``: a conversation that starts with
    one is worth folding however few its other events (PC121)."""
    return {"text": f"{text}\n{LOG}"}
