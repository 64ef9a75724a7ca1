"""sql_statements: the schema files split into the statements the migrations send one by one.

(That a database migrated statement by statement has the same catalog as before is
test_migrations.py's comparison of alembic's schema with the sql/ files'.)
"""

from __future__ import annotations

import re

import psycopg
import pytest

from pgctx import errors
from pgctx.schema import apply_sql_files, sql_statements, sql_files

# What may stand between two statements: whitespace and comments (the shipped files nest none).
GAP = re.compile(r"(?:\s+|--[^\n]*|/\*.*?\*/)*", re.DOTALL)


@pytest.mark.parametrize("path", sql_files(), ids=lambda p: p.name)
def test_every_shipped_file_is_its_statements_and_the_comments_between(path):
    text = path.read_text(encoding="utf-8")
    statements = sql_statements(text)
    assert statements
    at = 0
    for statement in statements:
        assert sql_statements(statement) == [statement]  # one whole, non-empty statement
        found = text.index(statement, at)
        assert GAP.fullmatch(text, at, found), f"text dropped before {statement[:60]!r}"
        at = found + len(statement)
    assert GAP.fullmatch(text, at), "text dropped after the last statement"
    assert all(s.endswith(";") for s in statements)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SELECT 'a;b'; SELECT 'it''s; here';", ["SELECT 'a;b';", "SELECT 'it''s; here';"]),
        (r"SELECT E'\';' ; SELECT E'x\\'; SELECT 'c:\'; SELECT 1", [r"SELECT E'\';' ;", r"SELECT E'x\\';", r"SELECT 'c:\';", "SELECT 1"]),
        ('SELECT 1 AS "a;b", 2 AS "q"";"; SELECT 3;', ['SELECT 1 AS "a;b", 2 AS "q"";";', "SELECT 3;"]),
        ("SELECT $$;$$; SELECT $fn$ ; $fn$;", ["SELECT $$;$$;", "SELECT $fn$ ; $fn$;"]),
        # a different tag inside a dollar body is plain text; so is the body's own "$$" inside $body$
        ("DO $body$ BEGIN PERFORM $$;$$; PERFORM $x$;$x$; END $body$; SELECT 2;",
         ["DO $body$ BEGIN PERFORM $$;$$; PERFORM $x$;$x$; END $body$;", "SELECT 2;"]),
        ("CREATE FUNCTION f(int) RETURNS int LANGUAGE sql AS $$SELECT $1; $$; SELECT $1, $2;SELECT 3",
         ["CREATE FUNCTION f(int) RETURNS int LANGUAGE sql AS $$SELECT $1; $$;", "SELECT $1, $2;", "SELECT 3"]),
        ("SELECT a$b$c FROM t; SELECT 1", ["SELECT a$b$c FROM t;", "SELECT 1"]),  # "$" inside an identifier
        ("SELECT 1; -- a; b\nSELECT 2 -- c;\n;", ["SELECT 1;", "SELECT 2 -- c;\n;"]),
        ("/* a; /* nested; */ still; */ SELECT 1; /**/SELECT/* ; */2;", ["SELECT 1;", "SELECT/* ; */2;"]),
        ("  -- only a comment;\n /* and ; this */ ;; \n", []),
        ("SELECT 1;;  SELECT 2 ", ["SELECT 1;", "SELECT 2"]),  # the final statement without semicolon
        ("SELECT '€;'; SELECT $é$;$é$", ["SELECT '€;';", "SELECT $é$;$é$"]),
    ],
)
def test_tricky_statements_split_at_top_level_semicolons_only(text, expected):
    assert sql_statements(text) == expected


@pytest.mark.parametrize("text", ["SELECT 'open; SELECT 2;", "SELECT $$ ; SELECT 2;", "/* /* */ SELECT 1;",
                                  'SELECT "open;', "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END;"])
def test_what_cannot_be_split_safely_is_refused(text):
    with pytest.raises(ValueError):
        sql_statements(text)


def test_a_failing_statement_names_its_file_and_line(conn, tmp_path, monkeypatch):
    (tmp_path / "999_broken.sql").write_text("SELECT 1;\n-- fine so far\nSELECT 2;\n\nSELECT pgctx.no_such_function();\n")
    monkeypatch.setattr("pgctx.schema.sql_dir", lambda: tmp_path)
    with pytest.raises(psycopg.errors.UndefinedFunction) as caught:
        apply_sql_files(conn, ["999_broken.sql"])
    assert caught.value.__notes__ == ["in sql/999_broken.sql, the statement at line 5"]

    # a pgctx error keeps its class, and gets the note too
    (tmp_path / "998_domain.sql").write_text("SELECT pgctx.append_event('c', 'no such kind', '{}');\n")
    with pytest.raises(errors.UnknownEventKind) as caught:
        apply_sql_files(conn, ["998_domain.sql"])
    assert caught.value.__notes__ == ["in sql/998_domain.sql, the statement at line 1"]
