"""Bad input at scale: what every append path does with extreme or malformed JSON (issue 15).

Each input goes through every path a caller has, as the application role: ``pgctx.append`` and
``pgctx.append_many`` (Python values), SQL ``pgctx.append_event`` and ``pgctx.append_events``
(JSON text cast to jsonb), a plain INSERT (text cast to json, then to the jsonb column), and COPY
of the text into a staging table read by ``pgctx.payload_from_text`` (the role may not COPY into
the log itself: 0A000, row-level security). An input is either stored in its documented canonical
form, on every path, and then verifies both in the database (``pgctx.verify``) and offline from an
exported bundle (``pgctx.verify_bundle``) with the same report; or it is refused with its
SQLSTATE on each path, and the log is as it was.
"""

from __future__ import annotations

import re
import string
import sys
from itertools import islice, product
from typing import Any

import psycopg
import pytest
from hypothesis import given, settings

import pgctx
from pgctx import errors
from pgctx.canonical import canonical_json, loads
from tests.test_canonical import documents, messy_json
from tests.test_eventlog import counts
from tests.test_tamper import export

DEEP = 10_000  # levels; PostgreSQL parses about 13,000 (objects) at its default max_stack_depth of 2MB
# beyond any max_stack_depth a server can set under the usual 8 MB stack rlimit (about 55,000)
TOO_DEEP = 60_000
CONTROL = [*range(0x01, 0x20), 0x7F]
SHORT = {0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"}  # the escapes jsonb prints


def nested(depth: int, opening: str, closing: str, inner: str = "1") -> str:
    return opening * depth + inner + closing * depth


def keys(n: int) -> list[str]:
    """n distinct three-character keys: 100,000 of them fit the 1 MiB payload limit."""
    return ["".join(k) for k in islice(product(string.ascii_letters + string.digits + "_-", repeat=3), n)]


def controls() -> str:
    """An object with each control character as the value of its code point's hex."""
    return "{" + ", ".join(f'"{c:04x}": "' + "\\u%04x" % c + '"' for c in CONTROL) + "}"


def controls_stored() -> str:
    """What jsonb prints for controls(): the short escapes, \\u00xx for the rest, U+007F as itself."""
    return "{" + ", ".join(f'"{c:04x}": "' + (chr(c) if c == 0x7F else SHORT.get(c, "\\u%04x" % c)) + '"'
                           for c in CONTROL) + "}"


# --- the paths ----------------------------------------------------------------------------------
# Each appends one 'user' event with the input to conversation cid and returns its seq. `text` is
# the JSON text the SQL paths send; `value` what the Python paths send (loads(text): what pgctx
# sees of the text).


def python_append(c: psycopg.Connection, cid: str, text: str, value: Any) -> int:
    return pgctx.append(c, cid, "user", value)


def python_append_many(c: psycopg.Connection, cid: str, text: str, value: Any) -> int:
    return pgctx.append_many(c, cid, [{"kind": "user", "payload": value}])[0]


def sql_append_event(c: psycopg.Connection, cid: str, text: str, value: Any) -> int:
    return c.execute("SELECT pgctx.append_event(%s, 'user', %s::jsonb)", (cid, text)).fetchone()[0]


def sql_append_events(c: psycopg.Connection, cid: str, text: str, value: Any) -> int:
    return c.execute("SELECT seq FROM pgctx.append_events(%s, ('[{\"kind\": \"user\", \"payload\": ' || %s || '}]')::jsonb)",
                     (cid, text)).fetchone()[0]


def sql_insert(c: psycopg.Connection, cid: str, text: str, value: Any) -> int:
    # through json, which keeps the text as given (duplicate keys too), to the jsonb column
    return c.execute("INSERT INTO pgctx.events (conversation_id, kind, payload) VALUES (%s, 'user', %s::json)"
                     " RETURNING seq", (cid, text)).fetchone()[0]


def copy_staging(c: psycopg.Connection, cid: str, text: str, value: Any) -> int:
    with c.transaction():
        c.execute("CREATE TEMP TABLE IF NOT EXISTS staging (payload text) ON COMMIT DELETE ROWS")
        with c.cursor().copy("COPY staging (payload) FROM STDIN") as copy:
            copy.write_row((text,))
        return c.execute("INSERT INTO pgctx.events (conversation_id, kind, payload)"
                         " SELECT %s, 'user', pgctx.payload_from_text(payload) FROM staging RETURNING seq",
                         (cid,)).fetchone()[0]


PATHS = [python_append, python_append_many, sql_append_event, sql_append_events, sql_insert, copy_staging]
PYTHON = (python_append, python_append_many)


# --- stored -------------------------------------------------------------------------------------

STORED = [
    pytest.param('{"d": ' + nested(DEEP, '{"d": ', "}") + "}",
                 '{"d": ' + nested(DEEP, '{"d": ', "}") + "}", id="objects-10000-deep"),
    pytest.param('{"d":' + nested(DEEP, "[", "]") + "}", '{"d": ' + nested(DEEP, "[", "]") + "}", id="arrays-10000-deep"),
    pytest.param("{" + ",".join(f'"{k}":0' for k in reversed(keys(100_000))) + "}",
                 "{" + ", ".join(f'"{k}": 0' for k in sorted(keys(100_000))) + "}", id="100k-keys"),
    pytest.param('{"n": 1e400}', '{"n": 1' + "0" * 400 + "}", id="1e400"),
    pytest.param('{"n": -1e400}', '{"n": -1' + "0" * 400 + "}", id="-1e400"),
    pytest.param('{"n": 1e-400}', '{"n": 0.' + "0" * 399 + "1}", id="1e-400"),
    pytest.param('{"n": 18446744073709551616}', '{"n": 18446744073709551616}', id="2^64"),
    pytest.param('{"n": 9007199254740993}', '{"n": 9007199254740993}', id="2^53+1"),
    pytest.param('{"n": -0, "m": -0.0, "e": -0e7}', '{"e": 0, "m": 0, "n": 0}', id="-0"),
    # more digits than Python's int() and str() convert (4,300): read as Decimal
    pytest.param('{"n": 1e5000}', '{"n": 1' + "0" * 5000 + "}", id="1e5000"),
    # numeric's range, to the digit: 131072 digits before the point, 16383 after it
    pytest.param('{"n": 1e131071}', '{"n": 1' + "0" * 131071 + "}", id="1e131071"),
    pytest.param('{"n": 1e-16383}', '{"n": 0.' + "0" * 16382 + "1}", id="1e-16383"),
    # U+0001..U+001F escaped (the five short escapes, the rest as \u00xx), U+007F as itself
    pytest.param(controls(), controls_stored(), id="control-characters"),
    # a key given twice keeps its last value, in jsonb and in pgctx.loads alike
    pytest.param('{"a": 1, "b": 0, "a": {"x": 2}}', '{"a": {"x": 2}, "b": 0}', id="duplicate-keys"),
]


@pytest.mark.parametrize("text, canonical", STORED)
def test_extreme_input_is_stored_canonically_on_every_path_and_verifies_offline(conn, roles, connect_as, tmp_path,
                                                                                 text, canonical):
    app = connect_as(roles.app)
    value = loads(text)
    seqs = [path(app, "c", text, value) for path in PATHS]
    stored = conn.execute("SELECT payload::text FROM pgctx.events WHERE conversation_id = 'c' ORDER BY seq").fetchall()
    assert seqs == list(range(1, len(PATHS) + 1))
    for path, (payload,) in zip(PATHS, stored):
        assert payload == canonical, path.__name__
    online = pgctx.verify(conn, "c")
    bundle = tmp_path / "c.jsonl"
    with open(bundle, "w", encoding="utf-8") as out:
        pgctx.export_bundle(conn, "c", out)
    offline = pgctx.verify_bundle(bundle)
    assert online.ok and online.checked == len(PATHS)
    assert (offline.ok, offline.checked, offline.reason, offline.head_hash) == (True, online.checked, online.reason,
                                                                                 online.head_hash)


def test_a_python_integer_beyond_str_conversion_is_stored_exactly(conn, roles, connect_as):
    """An int of 5,001 digits, which str() refuses (sys.get_int_max_str_digits), as numeric holds it."""
    seq = pgctx.append(connect_as(roles.app), "c", "user", {"n": 10**5000})
    row = conn.execute("SELECT payload::text FROM pgctx.events WHERE conversation_id = 'c' AND seq = %s", (seq,))
    assert row.fetchone()[0] == '{"n": 1' + "0" * 5000 + "}"
    assert pgctx.verify_bundle(export(conn, "c")).ok


def test_the_depth_limit_is_the_servers_setting_and_a_stored_payload_verifies_under_a_lower_one(conn):
    """Only parsing recurses in PostgreSQL: printing and verifying a stored payload do not."""
    text = '{"d": ' + nested(DEEP, "[", "]") + "}"
    conn.execute("SELECT pgctx.append_event('c', 'user', %s::jsonb)", (text,))
    conn.execute("SET max_stack_depth = '500kB'")  # a superuser's setting
    with pytest.raises(psycopg.errors.StatementTooComplex):
        conn.execute("SELECT pgctx.append_event('c', 'user', %s::jsonb)", (text,))
    assert pgctx.verify(conn, "c").ok
    assert pgctx.verify_bundle(export(conn, "c")).ok


def test_the_offline_verifier_finds_a_change_at_the_innermost_level(conn):
    """It reads the whole 10,000-deep payload, not just its surface."""
    pgctx.append(conn, "c", "user", loads('{"d": ' + nested(DEEP, "[", "]", '"x"') + "}"))
    lines = export(conn, "c")
    assert pgctx.verify_bundle(lines).ok
    lines[1] = lines[1].replace(b'"x"', b'"y"')
    report = pgctx.verify_bundle(lines)
    assert (report.ok, report.first_bad_seq) == (False, 1)


@pytest.mark.parametrize("stored, rewritten, ok", [
    ('{"a": {"x": 2}, "b": 0}', '{"a": 1, "a": {"x": 2}, "b": 0}', True),  # the last "a" is the stored one
    ('{"a": {"x": 2}, "b": 0}', '{"a": {"x": 2}, "b": 0, "a": 1}', False),
])
def test_the_offline_verifier_reads_duplicate_keys_as_jsonb_does(conn, stored, rewritten, ok):
    conn.execute("SELECT pgctx.append_event('c', 'user', %s::jsonb)", (stored,))
    lines = export(conn, "c")
    assert stored.encode() in lines[1]
    assert pgctx.verify_bundle([lines[0], lines[1].replace(stored.encode(), rewritten.encode())]).ok is ok


def test_the_canonical_form_and_parser_go_deeper_than_the_database():
    """Several times the depth the database accepts, arrays in objects in arrays: no recursion limit."""
    half = TOO_DEEP // 2
    text = '{"d": ' + nested(half, "[", "]", '{"d": ' + nested(half, '{"d": ', "}") + "}") + "}"
    assert canonical_json(loads(text)) == text


def test_malformed_deep_text_is_a_bundle_error(conn):
    pgctx.append(conn, "c", "user", {"text": "x"})
    header, _ = export(conn, "c")
    with pytest.raises(errors.BundleError):
        pgctx.verify_bundle([header, ('{"seq": 1, "payload": ' + nested(TOO_DEEP, "[", "]", "1,") + "}").encode()])


def test_a_container_that_holds_itself_is_refused():
    loop: list[Any] = []
    loop.append({"again": loop})
    with pytest.raises(errors.UnrepresentableJSON):
        canonical_json({"loop": loop})


@settings(max_examples=100, deadline=None)
@given(doc=documents)
def test_the_deep_parser_reads_what_json_reads(doc):
    """Deeper than the recursion limit, where json's C parser gives up and pgctx.loads keeps its own
    stack, a document reads as json reads it at the surface: the same types, digits and key order."""
    depth = sys.getrecursionlimit() + 100
    text = messy_json(doc)
    value = loads(nested(depth, " [ ", "\n]", text))
    for _ in range(depth):
        (value,) = value
    assert repr(value) == repr(loads(text))
    deep_bytes = nested(depth, "[", "]", text).encode("utf-8")  # bytes, decoded as json.loads decodes them
    assert canonical_json(loads(deep_bytes)) == nested(depth, "[", "]", canonical_json(doc))


# --- refused ------------------------------------------------------------------------------------


def everywhere(sqlstate: str) -> dict:
    return {path: sqlstate for path in PATHS}


REFUSED = [
    pytest.param('{"text": "' + "x" * 10_000_000 + '"}', everywhere("PC004"), id="10MB-string"),
    # 200,000 characters, 1.2 MB once escaped: the limit is on the canonical form
    pytest.param('{"text": "' + "\\u0001" * 200_000 + '"}', everywhere("PC004"), id="escapes-over-1MiB"),
    pytest.param('{"a": "\\u0000"}', {**everywhere("22P05"), **dict.fromkeys(PYTHON, "PC007"), copy_staging: "PC007"},
                 id="U+0000"),
    pytest.param('{"\\u0000": 1}', {**everywhere("22P05"), **dict.fromkeys(PYTHON, "PC007"), copy_staging: "PC007"},
                 id="U+0000-key"),
    pytest.param('{"n": 1e131072}', {**everywhere("22003"), **dict.fromkeys(PYTHON, "PC007"), copy_staging: "PC007"},
                 id="1e131072"),
    pytest.param('{"n": 1e-16384}', {**everywhere("22003"), **dict.fromkeys(PYTHON, "PC007"), copy_staging: "PC007"},
                 id="1e-16384"),
    pytest.param('{"d": ' + nested(TOO_DEEP, "[", "]") + "}", everywhere("54001"), id=f"arrays-{TOO_DEEP}-deep"),
    pytest.param('{"d": ' + nested(TOO_DEEP, '{"d": ', "}") + "}", everywhere("54001"), id=f"objects-{TOO_DEEP}-deep"),
    # text only (no JSON value has it): a raw control character in a string
    *(pytest.param(f'{{"a": "{chr(c)}"}}', {p: "PC007" if p is copy_staging else "22P02" for p in PATHS if p not in PYTHON},
                   id=f"raw-U+{c:04X}") for c in (0x01, 0x0A, 0x1F)),
]


@pytest.mark.parametrize("text, expected", REFUSED)
def test_bad_input_is_refused_with_its_sqlstate_on_every_path_and_changes_nothing(conn, roles, connect_as,
                                                                                    text, expected):
    app = connect_as(roles.app)
    pgctx.append(app, "c", "user", {"text": "before"})
    before = counts(conn), pgctx.verify(conn, "c").head_hash
    value = loads(text) if set(PYTHON) & set(expected) else None
    got = {}
    for path in expected:
        with pytest.raises((errors.PgctxError, psycopg.Error)) as info:
            path(app, "c", text, value)
        got[path] = info.value.sqlstate
        if path in PYTHON:  # the Python exception of the code: pgctx's own, or psycopg's for PostgreSQL's
            assert type(info.value) is (errors.BY_SQLSTATE.get(got[path]) or psycopg.errors.lookup(got[path]))
        assert (counts(conn), pgctx.verify(conn, "c").head_hash) == before, path.__name__
    assert got == expected


INVALID_UTF8 = [b"\xff\xfe", b"\xc0\xaf", b"\xed\xa0\x80", b"\x80", b"caf\xe9"]  # stray, overlong, surrogate, continuation, LATIN1


@pytest.mark.parametrize("raw", INVALID_UTF8, ids=lambda b: b.hex())
def test_bytes_that_are_not_utf8_are_refused_by_copy_and_change_nothing(conn, roles, connect_as, raw):
    app = connect_as(roles.app)
    pgctx.append(app, "c", "user", {"text": "before"})
    before = counts(conn)
    line = b'c\tuser\t{"text": "' + raw + b'"}\n'

    def copy(c: psycopg.Connection, statement: str, data: bytes) -> str:
        with pytest.raises(psycopg.Error) as info, c.transaction(), c.cursor().copy(statement) as cp:
            cp.write(data)
        return info.value.sqlstate

    app.execute("CREATE TEMP TABLE staging (conversation_id text, kind text, payload text)")
    app.execute("CREATE TEMP TABLE staging_bytes (payload bytea)")
    got = {
        "app COPY into pgctx.events": copy(app, "COPY pgctx.events (conversation_id, kind, payload) FROM STDIN", line),
        "app COPY into a staging table": copy(app, "COPY staging FROM STDIN", line),
        "owner COPY into pgctx.events": copy(conn, "COPY pgctx.events (conversation_id, kind, payload) FROM STDIN", line),
    }
    # as bytes, the COPY succeeds; converting them to text is what refuses them
    with app.cursor().copy("COPY staging_bytes FROM STDIN") as cp:
        cp.write_row((b'{"text": "' + raw + b'"}',))
    with pytest.raises(psycopg.Error) as info:
        app.execute("INSERT INTO pgctx.events (conversation_id, kind, payload)"
                    " SELECT 'c', 'user', pgctx.payload_from_text(convert_from(payload, 'UTF8')) FROM staging_bytes")
    got["app INSERT from bytea staging"] = info.value.sqlstate
    assert got == {"app COPY into pgctx.events": "0A000",  # row-level security refuses COPY FROM first
                   "app COPY into a staging table": "22021", "owner COPY into pgctx.events": "22021",
                   "app INSERT from bytea staging": "22021"}
    assert counts(conn) == before
    assert app.execute("SELECT count(*) FROM staging").fetchone()[0] == 0


# --- read back ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ['{"d": ' + nested(DEEP, "[", "]") + "}", '{"n": 1e5000}'], ids=["10000-deep", "1e5000"])
def test_a_stored_extreme_payload_can_be_read_back_into_a_working_context(conn, text):
    conn.execute("SELECT pgctx.append_event('c', 'user', %s::jsonb)", (text,))
    (event,) = pgctx.build_context(conn, "c").events
    assert canonical_json(event[2]) == canonical_json(loads(text))


WRONG_ARGUMENTS = [
    (lambda c: pgctx.append(c, 123, "user", {"text": "x"}), "conversation_id must be a str, got int 123"),
    (lambda c: pgctx.append(c, "c", 5, {"text": "x"}), "kind must be a str, got int 5"),
    (lambda c: pgctx.append(c, "c", "user", {"text": "x"}, event_key=5), "event_key must be a str or None, got int 5"),
    (lambda c: pgctx.append_many(c, 7, [{"kind": "user", "payload": {}}]), "conversation_id must be a str"),
    (lambda c: pgctx.verify(c, 5), "conversation_id must be a str, got int 5"),
    (lambda c: pgctx.fold(c, "c", budget=1000), "budget must be a pgctx.Budget"),
    (lambda c: pgctx.build_context(c, "c", budget=1000), "budget must be a pgctx.Budget"),
    (lambda c: pgctx.build_context(c, "c", current_message=["hi"]), "current_message must be a str or None"),
    (lambda c: pgctx.recover(c, None), "conversation_id must be a str, got NoneType"),
    (lambda c: pgctx.erase(c, "c", reason=None), "reason must be a str, got NoneType"),
    (lambda c: pgctx.append("host=db dbname=app", "c", "user", {}), "conn must be a psycopg connection or pool, "
                                                                     "got str: connect first"),
    (lambda c: pgctx.fold("host=db dbname=app", "c"), "only pgctx.migrate takes a DSN"),
    (lambda c: pgctx.take_digest(object()), "conn must be a psycopg connection or pool, got object"),
]


@pytest.mark.parametrize("call, says", WRONG_ARGUMENTS, ids=[s[:40] for _, s in WRONG_ARGUMENTS])
def test_an_argument_of_the_wrong_type_is_a_type_error_naming_it_before_any_sql(conn, call, says):
    # (reaching the server, these were UndefinedFunction, e.g. no append_event(smallint, ...), or an
    # AttributeError from inside pgctx)
    with pytest.raises(TypeError, match=re.escape(says)):
        call(conn)
    assert conn.execute("SELECT count(*) FROM pgctx.events").fetchone()[0] == 0


def test_a_payload_over_the_limit_is_refused_before_it_is_counted_or_sent(conn, monkeypatch):
    # 200 MiB took 12.6 s to be refused: tokenized, sent, parsed and canonicalized first
    from pgctx import eventlog

    limit = conn.execute("SELECT pgctx.max_payload_bytes()").fetchone()[0]
    monkeypatch.setattr(eventlog, "event_tokens", lambda *a: pytest.fail("counted before the size check"))
    with pytest.raises(errors.PayloadTooLarge, match=f"the limit is {limit}"):
        pgctx.append(conn, "big", "user", {"text": "x" * limit})
    assert conn.execute("SELECT count(*) FROM pgctx.events").fetchone()[0] == 0
    # at the limit exactly it is counted and stored, as the server measures it
    monkeypatch.undo()
    at_limit = {"text": "x" * (limit - len('{"text": ""}'))}
    assert pgctx.append(conn, "big", "user", at_limit) == 1
