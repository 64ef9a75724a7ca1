-- 070: registered summary schemas and the JSON Schema validator.
--
-- Invariants enforced here:
--   * Every summary a checkpoint holds is valid against the JSON Schema registered for its
--     schema_version (prepare_fold calls pgctx.summary_schema_error); an unregistered version is
--     PC105. The registered schema of version 1 is the pydantic model pgctx.summary.Summary
--     (071_summary_v1.sql; a test proves they are equal), so SQL and Python cannot disagree on
--     what is valid.
--   * The validator implements exactly the JSON Schema subset the model uses: type (one type or
--     a list), enum, const, properties, required, additionalProperties (false or a schema),
--     items, anyOf, local $ref into $defs; title, description and default are annotations.
--     Registering a schema that uses any other keyword is refused (PC114), so no rule is ever
--     silently ignored.
--   * Registered schemas never change (a new shape is a new schema_version).
--   * Each schema is also compiled, when registered, into a strict-mode jsonpath predicate and a
--     list of closed objects' key sets (fast_check, fast_closed: generated columns, so they always
--     are the compilation of the stored schema). They are only a shortcut for accepting: together
--     they accept exactly the values json_schema_error accepts (tests/test_schema_fast_path.py
--     checks the two agree on generated schemas and values); otherwise, or when the schema cannot
--     be compiled, json_schema_error runs and names the error.

CREATE TABLE IF NOT EXISTS pgctx.summary_schemas (
    schema_version  integer PRIMARY KEY CHECK (schema_version >= 1),
    schema          jsonb NOT NULL,
    registered_at   timestamptz NOT NULL DEFAULT now()
);

-- The compiled form of a schema, for the fast path: pred, a jsonpath predicate that holds
-- exactly when the value at path x is valid against sch, except for the key sets of closed
-- objects (additionalProperties false) at definite places, which closed lists instead as
-- [jsonpath of those objects, [allowed keys]] (a key set is tested far faster with the jsonb
-- "-" operator than with jsonpath's keyvalue(), which builds an object per member). At depth 0
-- pred is the whole strict-mode jsonpath; below it a part ('' when sch constrains nothing). A
-- NULL pred means sch cannot be expressed (a $ref cycle, an enum or const holding an object or
-- array). loc is the absolute place of x, NULL inside anyOf (no definite place: closed objects
-- there are tested in pred).
-- Strict mode, because lax mode unwraps arrays (a filter over [[1]] would see 1). Every
-- comparison, accessor and method is guarded (a type test or a key test before it; && and ||
-- short-circuit), so no part is ever unknown: inside a filter an unknown would count as "no
-- bad item". A key test is (exists(x."k")) is unknown, true in strict mode exactly when the key
-- is missing. The locators are strict too, each step guarded by a filter on the type (and the
-- key), so they find exactly the values at that place, and never fail.
CREATE OR REPLACE FUNCTION pgctx.json_schema_jsonpath(sch jsonb, root jsonb, x text DEFAULT '$',
                                                      depth integer DEFAULT 0, loc text DEFAULT '$',
                                                      OUT pred text, OUT closed jsonb)
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    parts  text[] := '{}'::text[];
    alts   text[];
    obj    text[] := '{}'::text[];
    r      record;
    k      text;
    v      jsonb;
    names  text;
    extra  jsonb := sch->'additionalProperties';
BEGIN
    closed := '[]';
    IF depth > 32 THEN
        RETURN;  -- a recursive $ref (pred NULL): the exact validator handles it
    ELSIF depth = 0 THEN
        r := pgctx.json_schema_jsonpath(sch, root, x, 1, loc);
        pred := 'strict ' || CASE r.pred WHEN '' THEN 'exists($)' ELSE r.pred END;
        closed := r.closed;
        RETURN;
    END IF;
    IF sch ? '$ref' THEN
        r := pgctx.json_schema_jsonpath(root -> '$defs' -> split_part(sch->>'$ref', '/', 3), root, x, depth + 1, loc);
        pred := r.pred;
        closed := r.closed;
        RETURN;
    END IF;
    IF sch ? 'type' THEN
        SELECT array_agg(CASE t WHEN 'integer' THEN format('(%s.type() == "number" && %s.floor() == %s)', x, x, x)
                                ELSE format('%s.type() == %s', x, to_json(t)) END)
          INTO alts
          FROM jsonb_array_elements_text(CASE jsonb_typeof(sch->'type') WHEN 'array' THEN sch->'type'
                                         ELSE jsonb_build_array(sch->'type') END) AS a(t);
        parts := parts || ('(' || array_to_string(alts, ' || ') || ')');
    END IF;
    IF sch ? 'anyOf' THEN
        alts := '{}';
        FOR v IN SELECT a FROM jsonb_array_elements(sch->'anyOf') AS t(a) LOOP
            r := pgctx.json_schema_jsonpath(v, root, x, depth + 1, NULL);
            IF r.pred IS NULL THEN
                RETURN;
            END IF;
            alts := alts || r.pred;
        END LOOP;
        IF array_position(alts, '') IS NULL THEN  -- else one alternative allows anything
            parts := parts || ('(' || array_to_string(alts, ' || ') || ')');
        END IF;
    END IF;
    -- const and enum: a list of allowed scalars each
    FOR v IN SELECT jsonb_build_array(sch->'const') WHERE sch ? 'const' UNION ALL SELECT sch->'enum' WHERE sch ? 'enum' LOOP
        SELECT array_agg(CASE WHEN e = 'null' THEN format('%s.type() == "null"', x)
                              WHEN e IN ('true', 'false') THEN format('(%s.type() == "boolean" && %s == %s)', x, x, e)
                              WHEN e ~ '^"' THEN format('(%s.type() == "string" && %s == %s)', x, x, e)
                              WHEN e ~ '^-?[0-9]+(\.[0-9]+)?$' THEN format('(%s.type() == "number" && %s == %s)', x, x, e)
                         END)
          INTO alts
          FROM (SELECT t.e::text FROM jsonb_array_elements(v) AS t(e)) AS l(e);
        IF alts IS NULL OR array_position(alts, NULL) IS NOT NULL THEN
            RETURN;  -- an empty list, or an object or array value (jsonb prints no exponents)
        END IF;
        parts := parts || ('(' || array_to_string(alts, ' || ') || ')');
    END LOOP;
    -- object keywords, which apply to objects only
    FOR k IN SELECT q FROM jsonb_array_elements_text(coalesce(sch->'required', '[]')) AS t(q) LOOP
        obj := obj || format('!((exists(%s.%s)) is unknown)', x, to_json(k));
    END LOOP;
    FOR k, v IN SELECT p.k, p.v FROM jsonb_each(coalesce(sch->'properties', '{}')) AS p(k, v) LOOP
        -- (inside anyOf loc is NULL, and stays NULL below: format() would read it as '')
        r := pgctx.json_schema_jsonpath(v, root, format('%s.%s', x, to_json(k)), depth + 1,
                                         CASE WHEN loc IS NOT NULL THEN
                                             format('%s ? (@.type() == "object" && !((exists(@.%s)) is unknown)).%s',
                                                    loc, to_json(k), to_json(k)) END);
        IF r.pred IS NULL THEN
            RETURN;  -- pred is still NULL: not expressible
        ELSIF r.pred <> '' THEN
            obj := obj || format('((exists(%s.%s)) is unknown || %s)', x, to_json(k), r.pred);
        END IF;
        closed := closed || r.closed;
    END LOOP;
    SELECT string_agg(format('@.key == %s', to_json(p.k)), ' || ') INTO names
      FROM jsonb_object_keys(coalesce(sch->'properties', '{}')) AS p(k);
    IF extra = 'false'::jsonb AND loc IS NOT NULL THEN
        -- a closed object at a definite place: its key set is tested apart
        closed := closed || jsonb_build_array(jsonb_build_array(
                      'strict ' || loc,
                      (SELECT coalesce(jsonb_agg(p.k), '[]') FROM jsonb_object_keys(coalesce(sch->'properties', '{}')) AS p(k))));
    ELSIF extra = 'false'::jsonb THEN
        obj := obj || format('!exists(%s.keyvalue() ? (%s))', x,
                             coalesce('!(' || names || ')', '@.key.type() == "string"'));
    ELSIF jsonb_typeof(extra) = 'object' AND names IS NULL THEN
        -- every member is an additional one: test the values directly (no keyvalue objects built)
        r := pgctx.json_schema_jsonpath(extra, root, '@', depth + 1, loc || ' ? (@.type() == "object").*');
        IF r.pred IS NULL THEN
            RETURN;  -- pred is still NULL: not expressible
        ELSIF r.pred <> '' THEN
            obj := obj || format('!exists(%s.* ? (!(%s)))', x, r.pred);
        END IF;
        closed := closed || r.closed;
    ELSIF jsonb_typeof(extra) = 'object' THEN
        -- members outside properties must match the schema (no definite place for them)
        r := pgctx.json_schema_jsonpath(extra, root, '@.value', depth + 1, NULL);
        IF r.pred IS NULL THEN
            RETURN;  -- pred is still NULL: not expressible
        ELSIF r.pred <> '' THEN
            obj := obj || format('!exists(%s.keyvalue() ? (!(%s) && !(%s)))', x, names, r.pred);
        END IF;
    END IF;
    IF cardinality(obj) > 0 THEN
        parts := parts || format('(%s.type() != "object" || (%s))', x, array_to_string(obj, ' && '));
    END IF;
    IF sch ? 'items' THEN
        r := pgctx.json_schema_jsonpath(sch->'items', root, '@', depth + 1, loc || ' ? (@.type() == "array")[*]');
        IF r.pred IS NULL THEN
            RETURN;  -- pred is still NULL: not expressible
        ELSIF r.pred <> '' THEN
            parts := parts || format('(%s.type() != "array" || !exists(%s[*] ? (!(%s))))', x, x, r.pred);
        END IF;
        closed := closed || r.closed;
    END IF;
    pred := array_to_string(parts, ' && ');
END
$$;

COMMENT ON FUNCTION pgctx.json_schema_jsonpath(jsonb, jsonb, text, integer, text) IS
    'Compiles a registered summary schema into the fast path: a strict jsonpath predicate and the key sets of its closed objects (the generated columns fast_check and fast_closed); pred NULL when the schema cannot be expressed. Only a shortcut for accepting: json_schema_error stays the judge.';

-- The fast path's verdict: true only when value is valid (the predicate holds and no closed
-- object has a key outside its set); false or NULL means "ask json_schema_error".
CREATE OR REPLACE FUNCTION pgctx.json_schema_accepts(value jsonb, pred jsonpath, closed jsonb) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pgctx, pg_temp AS $$
BEGIN
    RETURN jsonb_path_match(value, pred, silent => true)
       AND NOT EXISTS (SELECT 1
                         FROM jsonb_array_elements(closed) AS c(place)
                        -- each place's path and key set once (OFFSET 0), not once per object found
                        CROSS JOIN LATERAL (SELECT (c.place->>0)::jsonpath AS path,
                                                   ARRAY(SELECT jsonb_array_elements_text(c.place->1)) AS keys
                                            OFFSET 0) p
                        CROSS JOIN LATERAL jsonb_path_query(value, p.path, silent => true) AS o(v)
                        WHERE jsonb_typeof(o.v) = 'object' AND o.v - p.keys <> '{}'::jsonb);
END
$$;

COMMENT ON FUNCTION pgctx.json_schema_accepts(jsonb, jsonpath, jsonb) IS
    'The fast path''s verdict on a summary: true only when the compiled predicate holds and no closed object has a key outside its set; false or NULL means ask json_schema_error, which names the error.';

ALTER TABLE pgctx.summary_schemas ADD COLUMN IF NOT EXISTS fast_check jsonpath
    GENERATED ALWAYS AS ((pgctx.json_schema_jsonpath(schema, schema)).pred::jsonpath) STORED;
ALTER TABLE pgctx.summary_schemas ADD COLUMN IF NOT EXISTS fast_closed jsonb
    GENERATED ALWAYS AS ((pgctx.json_schema_jsonpath(schema, schema)).closed) STORED;

COMMENT ON TABLE pgctx.summary_schemas IS
    'JSON Schema of the summary, per schema_version. Candidates are validated against it in SQL.';

-- The first keyword of a schema (at any schema position) that the validator does not implement.
CREATE OR REPLACE FUNCTION pgctx.json_schema_unsupported(sch jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    k    text;
    sub  jsonb;
    bad  text;
BEGIN
    IF jsonb_typeof(sch) <> 'object' THEN
        RETURN 'a schema that is not an object';
    END IF;
    FOR k IN SELECT jsonb_object_keys(sch) LOOP
        IF k NOT IN ('type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'items',
                     'anyOf', '$ref', '$defs', 'title', 'description', 'default') THEN
            RETURN k;
        END IF;
    END LOOP;
    IF sch ? '$ref' AND sch->>'$ref' !~ '^#/\$defs/[A-Za-z0-9_]+$' THEN
        RETURN '$ref ' || (sch->>'$ref');
    END IF;
    FOR sub IN
        SELECT v FROM jsonb_each(coalesce(sch->'properties', '{}')) AS p(k, v)
        UNION ALL SELECT v FROM jsonb_each(coalesce(sch->'$defs', '{}')) AS d(k, v)
        UNION ALL SELECT v FROM jsonb_array_elements(coalesce(sch->'anyOf', '[]')) AS a(v)
        UNION ALL SELECT sch->'items' WHERE sch ? 'items'
        UNION ALL SELECT sch->'additionalProperties' WHERE jsonb_typeof(sch->'additionalProperties') = 'object'
    LOOP
        bad := pgctx.json_schema_unsupported(sub);
        IF bad IS NOT NULL THEN
            RETURN bad;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION pgctx.json_schema_unsupported(jsonb) IS
    'The first keyword of a schema, at any schema position, that the SQL validator does not implement (NULL if none): register_summary_schema refuses such a schema (PC114), so no rule is silently ignored.';

-- No sub-select, so the planner can inline it: types is one type name or an array of them.
CREATE OR REPLACE FUNCTION pgctx.json_type_matches(types jsonb, value jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT types ? jsonb_typeof(value)
        OR (jsonb_typeof(value) = 'number' AND types ? 'integer' AND value::numeric = trunc(value::numeric))
$$;

COMMENT ON FUNCTION pgctx.json_type_matches(jsonb, jsonb) IS
    'Whether a JSON value has one of the JSON Schema types named (a name or an array of them; integer is a number without a fraction). Inlined into json_schema_error''s checks.';

-- NULL when value is valid against sch (root holds the $defs), else the first error, with the
-- JSON path of the offending value.
-- No SET search_path here on purpose: it would make every recursive call save and restore the
-- setting (measured: the bulk of the validation time). The function is not SECURITY DEFINER,
-- schema-qualifies what it calls, and the definer functions that call it pin the path for it.
CREATE OR REPLACE FUNCTION pgctx.json_schema_error(sch jsonb, value jsonb, root jsonb, path text DEFAULT '$')
RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    err   text;
BEGIN
    IF NOT (sch ?| ARRAY['$ref', 'anyOf', 'const', 'enum', 'properties', 'items', 'additionalProperties', 'required']) THEN
        -- a bare type, the most common node: one check and out
        IF sch ? 'type' AND NOT pgctx.json_type_matches(sch->'type', value) THEN
            RETURN format('%s: expected %s, got %s', path, sch->>'type', jsonb_typeof(value));
        END IF;
        RETURN NULL;
    END IF;
    IF sch ? '$ref' THEN
        RETURN pgctx.json_schema_error(root -> '$defs' -> split_part(sch->>'$ref', '/', 3), value, root, path);
    END IF;
    IF sch ? 'anyOf' AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(sch->'anyOf') AS a(alt)
                                      WHERE alt - 'type' <> '{}'::jsonb OR NOT alt ? 'type') THEN
        -- fast path: a union of bare types (what Optional[...] and scalar unions compile to); an
        -- alternative's type may itself be a list
        IF NOT pgctx.json_type_matches((SELECT jsonb_agg(t) FROM jsonb_array_elements(sch->'anyOf') AS a(alt),
                                               jsonb_array_elements(CASE jsonb_typeof(alt->'type') WHEN 'array' THEN alt->'type'
                                                                    ELSE jsonb_build_array(alt->'type') END) AS ts(t)),
                                       value) THEN
            RETURN format('%s: %s matches none of the allowed forms', path, left(value::text, 80));
        END IF;
    ELSIF sch ? 'anyOf' THEN
        IF NOT EXISTS (SELECT 1 FROM jsonb_array_elements(sch->'anyOf') AS a(alt)
                        WHERE pgctx.json_schema_error(alt, value, root, path) IS NULL) THEN
            RETURN format('%s: %s matches none of the allowed forms', path, left(value::text, 80));
        END IF;
    END IF;
    IF sch ? 'type' AND NOT pgctx.json_type_matches(sch->'type', value) THEN
        RETURN format('%s: expected %s, got %s', path, sch->>'type', jsonb_typeof(value));
    END IF;
    IF sch ? 'const' AND value <> sch->'const' THEN
        RETURN format('%s: must be %s, got %s', path, sch->'const', left(value::text, 80));
    END IF;
    IF sch ? 'enum' AND NOT (sch->'enum') @> jsonb_build_array(value) THEN
        RETURN format('%s: %s is not one of %s', path, left(value::text, 80), sch->'enum');
    END IF;
    -- children, set-based: one statement per container rather than a loop of statements
    IF jsonb_typeof(value) = 'object' THEN
        SELECT format('%s: required property %s is missing', path, req.name) INTO err
          FROM jsonb_array_elements_text(coalesce(sch->'required', '[]')) AS req(name)
         WHERE NOT json_schema_error.value ? req.name LIMIT 1;
        IF err IS NULL THEN
            SELECT x.err INTO err
              FROM (SELECT CASE
                           WHEN sch->'properties' ? t.k THEN
                               pgctx.json_schema_error(sch->'properties'->t.k, t.v, root, path || '.' || t.k)
                           WHEN sch->'additionalProperties' = 'false'::jsonb THEN
                               format('%s: unexpected property %s', path, t.k)
                           WHEN jsonb_typeof(sch->'additionalProperties') = 'object' THEN
                               pgctx.json_schema_error(sch->'additionalProperties', t.v, root, format('%s[%s]', path, to_json(t.k)))
                           END AS err
                      FROM jsonb_each(json_schema_error.value) AS t(k, v)) x
             WHERE x.err IS NOT NULL LIMIT 1;
        END IF;
        RETURN err;
    ELSIF jsonb_typeof(value) = 'array' AND sch ? 'items' THEN
        SELECT x.err INTO err
          FROM (SELECT pgctx.json_schema_error(sch->'items', t.v, root, format('%s[%s]', path, t.i - 1)) AS err
                  FROM jsonb_array_elements(json_schema_error.value) WITH ORDINALITY AS t(v, i)) x
         WHERE x.err IS NOT NULL LIMIT 1;
        RETURN err;
    END IF;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION pgctx.json_schema_error(jsonb, jsonb, jsonb, text) IS
    'The exact JSON Schema validator (the subset pgctx registers): NULL when value is valid against sch (root holds the $defs), else the first error with the JSON path of the offending value.';

CREATE OR REPLACE FUNCTION pgctx.summary_schema_error(schema_version integer, summary jsonb) RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    sch    jsonb;
    fast   jsonpath;
    closed jsonb;
BEGIN
    SELECT s.schema, s.fast_check, s.fast_closed INTO sch, fast, closed
      FROM pgctx.summary_schemas s WHERE s.schema_version = summary_schema_error.schema_version;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC105',
            MESSAGE = format('summary schema_version %s is not registered', schema_version),
            HINT = 'SELECT schema_version FROM pgctx.summary_schemas';
    END IF;
    IF pgctx.json_schema_accepts(summary, fast, closed) THEN
        RETURN NULL;  -- valid, checked in one C pass; anything else gets the exact validator's message
    END IF;
    RETURN pgctx.json_schema_error(sch, summary, sch);
END
$$;

COMMENT ON FUNCTION pgctx.summary_schema_error(integer, jsonb) IS
    'NULL when a summary is valid against the schema registered for schema_version (fast path first), else the validator''s first error; PC105 for an unregistered version. What prepare_fold checks a candidate with.';

CREATE OR REPLACE FUNCTION pgctx.register_summary_schema(schema_version integer, schema jsonb) RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    bad      text := pgctx.json_schema_unsupported(schema);
    existing jsonb;
BEGIN
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC114',
            MESSAGE = format('summary schema uses %s, which the SQL validator does not implement', bad);
    END IF;
    SELECT s.schema INTO existing FROM pgctx.summary_schemas s
     WHERE s.schema_version = register_summary_schema.schema_version;
    IF FOUND AND existing <> schema THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC114',
            MESSAGE = format('summary schema_version %s is registered with another schema; register a new version', schema_version);
    END IF;
    INSERT INTO pgctx.summary_schemas (schema_version, schema) VALUES (schema_version, schema)
    ON CONFLICT DO NOTHING;
    RETURN schema_version;
END
$$;

COMMENT ON FUNCTION pgctx.register_summary_schema(integer, jsonb) IS
    'Owner only: register the JSON Schema of a summary schema_version (idempotent for the same schema). Refused (PC114) when it uses a keyword the validator does not implement, or the version is registered with another schema: registered schemas never change.';
