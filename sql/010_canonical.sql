-- 010: canonical form of a payload and the event hash.
--
-- Invariants enforced here:
--   * One byte string per JSON value ("pgctx canonical JSON v1"), defined as the UTF-8 text that
--     jsonb prints for the value after numbers lose trailing fractional zeros:
--       - objects: keys sorted by UTF-8 byte length, then by bytes (jsonb's own order); duplicate
--         keys keep the last value; "{" key ": " value (", " key ": " value)* "}"; empty is "{}";
--       - arrays: "[" v (", " v)* "]"; empty is "[]";
--       - strings: '"' + UTF-8 text + '"' where only '"', '\', and U+0000..U+001F are escaped:
--         \" \\ \b \f \n \r \t, every other control character as \u00xx (lower-case hex);
--         everything else, U+2028 and astral characters included, is written as itself;
--       - numbers: plain decimal, never an exponent, no trailing fractional zeros, no "-0":
--         1.50 -> 1.5, 1e2 -> 100, 1.0e-3 -> 0.001, -0.0 -> 0; integers of any size exactly;
--       - true, false, null.
--     pgctx stores every payload already in this form (numbers normalised on insert), so the
--     canonical bytes of a stored payload are just payload::text. pgctx/canonical.py reproduces
--     this byte for byte with no database; tests/test_canonical.py proves SQL == Python.
--   * The event hash binds a domain tag, the conversation id, seq, kind, the previous hash and
--     the canonical payload, with length prefixes so no two field splits give the same bytes:
--       hash_i  = SHA-256('pgctx:event:v1'   || u32be(len id) || id || u64be(seq)
--                          || u32be(len kind) || kind || hash_{i-1} || canonical(payload))
--       genesis = SHA-256('pgctx:genesis:v1' || u32be(len id) || id)
--     (lengths in bytes of UTF-8). Because the id is inside every hash and the genesis is per
--     conversation, an event moved to, or a prefix replayed into, another conversation no longer
--     verifies.
--   * Chain format v2 (every event appended since migration 0007) binds a salted digest of the
--     payload instead of the payload, so that erasing the payload and its salt (190) leaves a
--     hash that still verifies and a digest that cannot confirm a guessed text:
--       payload_digest = SHA-256('pgctx:payload:v2' || salt (16 random bytes) || canonical(payload))
--       hash_i = SHA-256('pgctx:event:v2' || u32be(len id) || id || u64be(seq)
--                        || u32be(len kind) || kind || hash_{i-1} || payload_digest)
--     An event is v2 when it has a payload_digest; v1 events keep their v1 hashes forever.
--   * Text that PostgreSQL cannot hold as jsonb (\u0000, lone surrogates, NaN, Infinity, a number
--     beyond numeric's range: over 131072 digits before the point or 16383 after it) is refused
--     with PC007 by pgctx.payload_from_text, for psql users loading JSON text.

-- Bytes are taken with convert_to(x, 'UTF8'), never textsend(x): textsend converts to the
-- *client* encoding, so a LATIN1 session would hash 'é' differently from everyone else. The hash
-- helpers are plain SQL expressions, so the planner inlines them into the events trigger and
-- verify_chain instead of calling them once per row (measured by bench/bench_eventlog.py: roughly
-- half the trigger's CPU cost). convert_to is STABLE, and so are the helpers over payload text.
-- event_hash_v2 and genesis_hash, which the head row's UPDATE and its INSERT compute from column
-- values, are IMMUTABLE, as they are in fact: Citus refuses STABLE functions with column
-- references in an UPDATE (scaling.md), and a function declared IMMUTABLE is inlined only when
-- everything in its body is immutable too. Their text (the id and the kind, short) goes through
-- pgctx.utf8_bytes instead: the database is UTF8 (000), so its text already is UTF-8, and
-- decode(..., 'escape') of it with each backslash doubled gives exactly those bytes
-- (tests/test_canonical.py holds it equal to convert_to on every character class).
CREATE OR REPLACE FUNCTION pgctx.utf8_bytes(value text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT decode(replace(value, '\', '\\'), 'escape')
$$;

COMMENT ON FUNCTION pgctx.utf8_bytes(text) IS
    'The UTF-8 bytes of a text (the database is UTF8), as convert_to(value, ''UTF8'') gives them but IMMUTABLE, so the hashes computed from column values in the head row''s UPDATE stay IMMUTABLE and inlined.';

CREATE OR REPLACE FUNCTION pgctx.max_payload_bytes() RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 1048576 $$;

COMMENT ON FUNCTION pgctx.max_payload_bytes() IS
    'Largest canonical payload pgctx accepts, in bytes (1 MiB). Larger content belongs in object storage, referenced from the payload.';

-- Numbers only: the value with trailing fractional zeros removed from every number (as
-- trim_scale would: 1.50 -> 1.5, 2.000 -> 2, -0.0 -> 0). It rewrites jsonb's text of the value
-- and parses it back: each regex matches either a whole JSON string, which it puts back
-- unchanged, or a number ending in fractional zeros (jsonb prints numbers in plain decimal, and
-- after a number comes ',', ']', '}' or the end), which it trims: first the zeros after a
-- non-zero fraction digit, then an all-zero fraction with its point. (It replaced rebuilding the
-- document with jsonb_each/jsonb_agg and trim_scale in a recursive SQL function: ~105 us for a
-- 200-byte payload holding a 1.0, bench/bench_eventlog.py --diagnose.)
CREATE OR REPLACE FUNCTION pgctx.trim_numbers(value jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT regexp_replace(
               regexp_replace(value::text,
                              '("(?:[^"\\]|\\.)*")|([0-9]\.[0-9]*[1-9])0+(?=[],}]|$)', '\1\2', 'g'),
               '("(?:[^"\\]|\\.)*")|([0-9])\.0+(?=[],}]|$)', '\1\2', 'g')::jsonb
$$;

COMMENT ON FUNCTION pgctx.trim_numbers(jsonb) IS
    'The value with trailing fractional zeros removed from every number (1.50 -> 1.5, -0.0 -> 0), strings untouched: the number rule of pgctx canonical JSON v1.';

-- Whether jsonb's text of a value may hold a number with trailing fractional zeros: jsonb prints
-- numbers without exponents, so such a number shows as digits '.' digits ending in '0' followed by
-- a delimiter. Text without that pattern has nothing to trim (a string that happens to match only
-- costs the slow path, which leaves strings alone).
CREATE OR REPLACE FUNCTION pgctx.may_need_trim(value_text text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT value_text ~ '[0-9]\.[0-9]*0([],} ]|$)'
$$;

COMMENT ON FUNCTION pgctx.may_need_trim(text) IS
    'Whether jsonb''s text of a value may hold a number with trailing fractional zeros: the cheap test that spares nearly every payload trim_numbers.';

-- The canonical value of a payload.
-- Not STRICT: a STRICT SQL function is only inlined when its body is strict, and CASE is not
-- (the CASE already gives NULL for NULL).
CREATE OR REPLACE FUNCTION pgctx.canonical_payload(value jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN pgctx.may_need_trim(value::text)
                THEN pgctx.trim_numbers(value)
                ELSE value END
$$;

COMMENT ON FUNCTION pgctx.canonical_payload(jsonb) IS
    'The canonical value of a payload (pgctx canonical JSON v1: numbers without trailing fractional zeros), the form every payload and summary is stored in, so its text is its canonical bytes.';

CREATE OR REPLACE FUNCTION pgctx.canonical_text(value jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT pgctx.canonical_payload(value)::text
$$;

COMMENT ON FUNCTION pgctx.canonical_text(jsonb) IS
    'pgctx canonical JSON v1 of a value (see sql/010_canonical.sql); for a stored payload it equals payload::text.';

CREATE OR REPLACE FUNCTION pgctx.genesis_hash(conversation_id text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT sha256('\x70676374783a67656e657369733a7631'::bytea      -- 'pgctx:genesis:v1'
                  || int4send(octet_length(conversation_id)) || pgctx.utf8_bytes(conversation_id))
$$;

COMMENT ON FUNCTION pgctx.genesis_hash(text) IS
    'The genesis of a conversation''s chain: SHA-256(''pgctx:genesis:v1'' || u32be(length) || id), so no prefix of one conversation verifies in another.';

-- canonical is the canonical text of the payload (payload::text for a stored payload).
CREATE OR REPLACE FUNCTION pgctx.event_hash(conversation_id text, seq bigint, kind text,
                                            prev_hash bytea, canonical text) RETURNS bytea
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT sha256('\x70676374783a6576656e743a7631'::bytea           -- 'pgctx:event:v1'
                  || int4send(octet_length(conversation_id)) || convert_to(conversation_id, 'UTF8')
                  || int8send(seq)
                  || int4send(octet_length(kind)) || convert_to(kind, 'UTF8')
                  || prev_hash
                  || convert_to(canonical, 'UTF8'))
$$;

COMMENT ON FUNCTION pgctx.event_hash(text, bigint, text, bytea, text) IS
    'Chain format v1 event hash (events appended before 0007): SHA-256 over the tag, id, seq, kind, previous hash and canonical payload text, with length prefixes; verify_chain recomputes it for v1 events.';

-- Parses JSON text into jsonb, turning PostgreSQL's parse errors for values it cannot hold into
-- PC007 so a psql user loading text gets the same typed error as the Python API (which refuses
-- the same values before sending them). Nesting deeper than the server's max_stack_depth allows
-- stays 54001 (statement_too_complex), as on every other path: it depends on a setting, not on
-- the value.
CREATE OR REPLACE FUNCTION pgctx.payload_from_text(json_text text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pgctx, pg_temp AS $$
BEGIN
    RETURN pgctx.canonical_payload(json_text::jsonb);
EXCEPTION
    WHEN untranslatable_character OR invalid_text_representation OR numeric_value_out_of_range THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC007',
            MESSAGE = 'JSON text holds a value PostgreSQL cannot store (\u0000, a lone surrogate, NaN, Infinity or a number beyond numeric''s range) or is not JSON',
            DETAIL = SQLERRM;
END
$$;

COMMENT ON FUNCTION pgctx.payload_from_text(text) IS
    'Parse JSON text into a canonical jsonb payload; text PostgreSQL cannot hold as jsonb (\u0000, lone surrogates, NaN, Infinity, a number beyond numeric''s range) or that is not JSON is PC007, the typed error the Python API gives.';

-- Chain format v2 (see the header). The salt is 16 bytes from gen_random_uuid() (core since
-- PostgreSQL 13, from the server's strong random source; 122 of its bits are random), so no
-- extension is needed.
CREATE OR REPLACE FUNCTION pgctx.new_salt() RETURNS bytea
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
    SELECT uuid_send(gen_random_uuid())
$$;

COMMENT ON FUNCTION pgctx.new_salt() IS
    'A fresh 16-byte random salt for an event''s payload digest (chain format v2), from gen_random_uuid(): erasing the payload and its salt leaves a digest that cannot confirm a guessed text.';

CREATE OR REPLACE FUNCTION pgctx.payload_digest(salt bytea, canonical text) RETURNS bytea
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT sha256('\x70676374783a7061796c6f61643a7632'::bytea          -- 'pgctx:payload:v2'
                  || salt || convert_to(canonical, 'UTF8'))
$$;

COMMENT ON FUNCTION pgctx.payload_digest(bytea, text) IS
    'Chain format v2 payload digest: SHA-256(''pgctx:payload:v2'' || salt || canonical text); the event hash binds it instead of the payload, so erasure keeps the chain verifying.';

CREATE OR REPLACE FUNCTION pgctx.event_hash_v2(conversation_id text, seq bigint, kind text,
                                               prev_hash bytea, payload_digest bytea) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT sha256('\x70676374783a6576656e743a7632'::bytea           -- 'pgctx:event:v2'
                  || int4send(octet_length(conversation_id)) || pgctx.utf8_bytes(conversation_id)
                  || int8send(seq)
                  || int4send(octet_length(kind)) || pgctx.utf8_bytes(kind)
                  || prev_hash
                  || payload_digest)
$$;

COMMENT ON FUNCTION pgctx.event_hash_v2(text, bigint, text, bytea, bytea) IS
    'Chain format v2 event hash: SHA-256 over ''pgctx:event:v2'', the id, seq, kind (length-prefixed), the previous hash and the payload digest. IMMUTABLE and inlined: the head row''s UPDATE computes it.';
