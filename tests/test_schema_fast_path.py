"""The schema fast path: each registered summary schema compiled to one jsonpath predicate.

summary_schema_error accepts a summary as soon as the compiled predicate (summary_schemas.fast_check)
holds, and only otherwise runs the exact validator (json_schema_error) for its message. So the
predicate must never hold for a value the exact validator refuses. These tests generate schemas of
the whole supported subset and values near them, and require the two to agree exactly: sound (the
predicate accepts nothing invalid) and complete (it accepts what is valid, so the fast path is taken).
"""

from __future__ import annotations

import copy
import json

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pgctx
from tests.events import call, result

KEYS = ["a", "b", "c", 'q"k', "é"]
TYPES = ["string", "number", "integer", "boolean", "null", "object", "array"]
ENUM_VALUES = st.one_of(st.sampled_from(["x", "y", 'z"\\', "\u2028", ""]), st.integers(-3, 3),
                        st.sampled_from([1.5, -0.25, True, False, None]))

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([2.0, 1.5, -0.0, 1e20, 2**60]),
                    st.sampled_from(["x", "y", "", "1", "true", 'z"\\']))
ANY_VALUE = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)), max_leaves=8)


def schemas(defs: list[str]):
    """Strategy for schemas of the supported subset; $ref points at one of ``defs``."""
    type_keyword = st.one_of(st.sampled_from(TYPES), st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True))
    leaves = st.one_of(
        st.fixed_dictionaries({"type": type_keyword}),
        st.fixed_dictionaries({"enum": st.lists(ENUM_VALUES, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"type": st.just("string"), "enum": st.lists(st.sampled_from(["x", "y", ""]), min_size=1,
                                                                            max_size=2)}),
        st.fixed_dictionaries({"const": ENUM_VALUES}),
        st.just({}),
        *([st.sampled_from(defs).map(lambda d: {"$ref": f"#/$defs/{d}"})] if defs else []),
    )

    def composite(inner):
        properties = st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)

        @st.composite
        def objects(draw):
            props = draw(properties)
            sch = {"properties": props, "title": "T"}
            if draw(st.booleans()):
                sch["type"] = "object"
            sch["required"] = draw(st.lists(st.sampled_from(KEYS), max_size=2, unique=True))
            extra = draw(st.sampled_from(["absent", "false", "true", "schema"]))
            if extra == "false":
                sch["additionalProperties"] = False
            elif extra == "true":
                sch["additionalProperties"] = True
            elif extra == "schema":
                sch["additionalProperties"] = draw(inner)
            return sch

        return st.one_of(
            objects(),
            st.fixed_dictionaries({"type": st.just("array"), "items": inner}),
            st.fixed_dictionaries({"items": inner}),
            st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
            st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=2), "type": type_keyword}),
        )

    return st.recursive(leaves, composite, max_leaves=6)


@st.composite
def root_schemas(draw):
    """A schema with non-recursive $defs (each def only refers to defs defined before it)."""
    defs: dict = {}
    for name in ("D0", "D1")[: draw(st.integers(0, 2))]:
        defs[name] = draw(schemas(list(defs)))
    sch = draw(schemas(list(defs)))
    if defs:
        sch = {**sch, "$defs": defs}
    return sch


def near(draw, sch: dict, root: dict, depth: int = 0):
    """A value built to fit sch where it can (so valid values are common), sometimes not."""
    if depth > 6 or draw(st.integers(0, 9)) == 0:
        return draw(ANY_VALUE)
    if "$ref" in sch:
        return near(draw, root["$defs"][sch["$ref"].split("/")[-1]], root, depth + 1)
    if "anyOf" in sch:
        return near(draw, draw(st.sampled_from(sch["anyOf"])), root, depth + 1)
    if "const" in sch:
        return sch["const"]
    if "enum" in sch:
        return draw(st.sampled_from(sch["enum"]))
    types = sch.get("type", draw(st.sampled_from(TYPES)))
    kind = draw(st.sampled_from(types)) if isinstance(types, list) else types
    if kind == "object" or "properties" in sch:
        props = sch.get("properties", {})
        value = {k: near(draw, s, root, depth + 1) for k, s in props.items() if draw(st.integers(0, 4))}
        for k in sch.get("required", []):
            if k not in value and draw(st.integers(0, 4)):
                value[k] = near(draw, props.get(k, {}), root, depth + 1)
        if draw(st.integers(0, 3)) == 0:
            extra = draw(st.sampled_from(KEYS))
            if extra not in value:
                value[extra] = near(draw, sch["additionalProperties"], root, depth + 1) \
                    if isinstance(sch.get("additionalProperties"), dict) else draw(ANY_VALUE)
        return value
    if kind == "array":
        return [near(draw, sch.get("items", {}), root, depth + 1) for _ in range(draw(st.integers(0, 3)))]
    return draw({"string": st.sampled_from(["x", "y", ""]), "number": st.sampled_from([1.5, 3, -0.25]),
                 "integer": st.sampled_from([0, 7, 2.0, -(2**70)]), "boolean": st.booleans(),
                 "null": st.none()}[kind])


def verdicts(conn, sch: dict, values: list) -> list[tuple]:
    """(exact validator's error, fast path's verdict) per value, in one statement."""
    return conn.execute(
        """SELECT pgctx.json_schema_error(%(s)s::jsonb, v, %(s)s::jsonb),
                  pgctx.json_schema_accepts(v, c.pred::jsonpath, c.closed)
             FROM jsonb_array_elements(%(v)s::jsonb) WITH ORDINALITY AS t(v, i),
                  pgctx.json_schema_jsonpath(%(s)s::jsonb, %(s)s::jsonb) AS c
            ORDER BY i""",
        {"s": json.dumps(sch), "v": json.dumps(values)},
    ).fetchall()


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_compiled_predicate_agrees_with_the_exact_validator(conn, data):
    sch = data.draw(root_schemas())
    values = [near(data.draw, sch, sch) for _ in range(8)]
    compiled = conn.execute("SELECT pred FROM pgctx.json_schema_jsonpath(%s::jsonb, %s::jsonb)",
                            (json.dumps(sch), json.dumps(sch))).fetchone()[0]
    assert compiled is not None, sch  # the generated subset is all expressible
    for value, (error, fast) in zip(values, verdicts(conn, sch, values)):
        assert fast is not None, (sch, value, compiled)  # never unknown
        assert fast == (error is None), (sch, value, error, compiled)


# A closed object below a property of an anyOf alternative (found by the test above in CI): the
# compiler gave it a place and moved its key set to the closed list, which anyOf alternatives drop.
CLOSED_UNDER_ANYOF = {"anyOf": [{"properties": {"c": {"$ref": "#/$defs/D0"}}}],
                      "$defs": {"D0": {"properties": {"b": {}}, "required": [], "additionalProperties": False}}}


@pytest.mark.parametrize("value, valid", [({"c": {"b": 1}}, True), ({"c": {"a": None}}, False),
                                          ({"c": {"b": 1, "a": 2}}, False), ({"d": {"a": 1}}, True)])
def test_a_closed_object_inside_any_of_keeps_its_key_set(conn, value, valid):
    [(error, fast)] = verdicts(conn, CLOSED_UNDER_ANYOF, [value])
    assert (error is None, fast) == (valid, valid)


def summary_mutations():
    """Edits at any depth of a valid summary: drop a key, add one, change a type or a status."""
    replacement = st.one_of(ANY_VALUE, st.sampled_from(["succeeded", "unknown", "active", "confirmed", "later"]))
    return st.lists(st.tuples(st.sampled_from(["drop", "add", "set"]), st.integers(0, 10**6), replacement),
                    min_size=1, max_size=3)


def containers(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from containers(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from containers(v, path + (i,))


def mutate(summary: dict, edits) -> dict:
    out = copy.deepcopy(summary)
    for op, pick, replacement in edits:
        places = [(p, v) for p, v in containers(out) if isinstance(v, (dict, list)) and (v or op == "add")]
        path, target = places[pick % len(places)]
        if isinstance(target, dict):
            keys = list(target)
            if op == "drop" and keys:
                del target[keys[pick % len(keys)]]
            elif op == "add":
                target["extra" if pick % 2 else "status"] = replacement
            elif keys:
                target[keys[pick % len(keys)]] = replacement
        elif target:
            if op == "drop":
                del target[pick % len(target)]
            elif op == "add":
                target.append(replacement)
            else:
                target[pick % len(target)] = replacement
    return out


def as_version_1(summary: dict) -> dict:
    """A version 2 summary in version 1's shape (what version 2 added, dropped)."""
    v1 = copy.deepcopy(summary)
    v1.update(schema_version=1, constraints=[c["text"] for c in v1["constraints"]])
    del v1["user_requests"], v1["task"]["source_event_ids"]
    for item in (*v1["facts"], *v1["tool_state"].values()):
        item.pop("subject", None)
    for action in v1["completed_actions"]:
        action.pop("tool", None), action.pop("count", None)
    return v1


@pytest.fixture(params=[1, 2], ids=lambda v: f"v{v}")
def valid_summary(conn, request) -> tuple[int, dict]:
    """A committed summary with facts, tool states of several statuses, pending; in the shape of each
    registered version."""
    pgctx.append_many(conn, "fast", [
        {"kind": "user", "payload": {"text": "where is order 10086?"}},
        {"kind": "tool_call", "payload": call(1, "lookup_order", effect="read")},
        {"kind": "tool_result", "payload": result(1, result={"status": "shipped"})},
        {"kind": "fact", "payload": {"key": "order_id", "value": "10086", "authority": "user"}},
        {"kind": "tool_call", "payload": call(2, "refund", effect="write")},
        {"kind": "tool_result", "payload": result(2, "timeout")},
        {"kind": "tool_call", "payload": call(3, "cancel", effect="irreversible")},
        {"kind": "tool_result", "payload": result(3, "failed", error="already shipped")},
        {"kind": "tool_call", "payload": call(4, "update_order", effect="write")},
        {"kind": "tool_result", "payload": result(4)},
    ])
    assert pgctx.fold(conn, "fast", force=True).committed
    summary = conn.execute("SELECT summary FROM pgctx.checkpoints WHERE conversation_id = 'fast'").fetchone()[0]
    assert summary["facts"] and len(summary["tool_state"]) == 4 and summary["pending"]
    assert summary["schema_version"] == 2
    return request.param, (as_version_1(summary) if request.param == 1 else summary)


def test_each_version_is_compiled_and_accepts_a_valid_summary(conn, valid_summary):
    version, valid_summary = valid_summary
    fast, = conn.execute("SELECT fast_check FROM pgctx.summary_schemas WHERE schema_version = %s",
                         (version,)).fetchone()
    assert fast is not None
    assert conn.execute("SELECT pgctx.summary_schema_error(%s, %s::jsonb)",
                        (version, json.dumps(valid_summary))).fetchone()[0] is None
    assert conn.execute("SELECT pgctx.json_schema_accepts(%s::jsonb, fast_check, fast_closed)"
                        " FROM pgctx.summary_schemas WHERE schema_version = %s",
                        (json.dumps(valid_summary), version)).fetchone()[0] is True
    # the closed objects of the version are tested by key set, at their places in the summary
    closed = conn.execute("SELECT fast_closed FROM pgctx.summary_schemas WHERE schema_version = %s",
                          (version,)).fetchone()[0]
    assert len(closed) >= 4 and all(place.startswith("strict $") for place, _ in closed)
    found = conn.execute("SELECT count(*) FROM jsonb_array_elements(%s::jsonb) AS c(p),"
                         " jsonb_path_query(%s::jsonb, (c.p->>0)::jsonpath)", (json.dumps(closed), json.dumps(valid_summary)))
    objects = 2 + len(valid_summary["facts"]) + len(valid_summary["tool_state"])  # at least: summary, task, ...
    assert found.fetchone()[0] >= objects


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=summary_mutations())
def test_each_versions_predicate_agrees_on_edited_summaries(conn, valid_summary, edits):
    version, valid_summary = valid_summary
    value = mutate(valid_summary, edits)
    error, fast = conn.execute(
        """SELECT pgctx.json_schema_error(schema, %(v)s::jsonb, schema),
                  pgctx.json_schema_accepts(%(v)s::jsonb, fast_check, fast_closed)
             FROM pgctx.summary_schemas WHERE schema_version = %(version)s""",
        {"v": json.dumps(value), "version": version}).fetchone()
    assert fast == (error is None), (edits, error)


@pytest.mark.parametrize("sch, why", [
    ({"$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}, "$ref": "#/$defs/N"},
     "recursive $ref"),
    ({"type": "object", "properties": {"p": {"enum": [{"a": 1}, "x"]}}}, "enum of an object"),
    ({"type": "object", "properties": {"p": {"const": [1, 2]}}}, "const of an array"),
])
def test_a_schema_it_cannot_express_uses_the_exact_validator(conn, sch, why):
    pgctx_version = 900
    conn.execute("SELECT pgctx.register_summary_schema(%s, %s::jsonb)", (pgctx_version, json.dumps(sch)))
    assert conn.execute("SELECT fast_check FROM pgctx.summary_schemas WHERE schema_version = %s",
                        (pgctx_version,)).fetchone()[0] is None, why
    bad = {"next": {"next": 3}} if "N" in json.dumps(sch) else {"p": "y"}
    good = {"next": {"next": {}}} if "N" in json.dumps(sch) else {}
    check = "SELECT pgctx.summary_schema_error(%s, %s::jsonb)"
    assert conn.execute(check, (pgctx_version, json.dumps(good))).fetchone()[0] is None
    assert conn.execute(check, (pgctx_version, json.dumps(bad))).fetchone()[0] is not None


def test_a_schema_that_constrains_nothing_is_stored_as_always_true(conn):
    conn.execute("SELECT pgctx.register_summary_schema(901, '{\"title\": \"anything\"}')")
    assert conn.execute("SELECT fast_check::text FROM pgctx.summary_schemas WHERE schema_version = 901"
                        ).fetchone()[0] == "strict exists ($)"
    assert conn.execute("SELECT pgctx.summary_schema_error(901, '[1, {}]')").fetchone()[0] is None


def test_nobody_can_store_a_predicate_that_is_not_the_compiled_schema(conn):
    with pytest.raises(psycopg.Error) as info:
        conn.execute("UPDATE pgctx.summary_schemas SET fast_check = 'exists($)' WHERE schema_version = 1")
    assert info.value.sqlstate == "428C9"  # generated column: only DEFAULT
    # an owner who edits a schema in place gets its predicate recompiled with it
    conn.execute("UPDATE pgctx.summary_schemas SET schema = '{\"type\": \"array\"}' WHERE schema_version = 1")
    assert conn.execute("SELECT fast_check::text FROM pgctx.summary_schemas WHERE schema_version = 1"
                        ).fetchone()[0] == 'strict ($.type() == "array")'
