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

CREATE TABLE IF NOT EXISTS pgctx.summary_schemas (
    schema_version  integer PRIMARY KEY CHECK (schema_version >= 1),
    schema          jsonb NOT NULL,
    registered_at   timestamptz NOT NULL DEFAULT now()
);

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

-- No sub-select, so the planner can inline it: types is one type name or an array of them.
CREATE OR REPLACE FUNCTION pgctx.json_type_matches(types jsonb, value jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT types ? jsonb_typeof(value)
        OR (jsonb_typeof(value) = 'number' AND types ? 'integer' AND value::numeric = trunc(value::numeric))
$$;

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
                                      WHERE alt - 'type' <> '{}'::jsonb) THEN
        -- fast path: a union of bare types (what Optional[...] and scalar unions compile to)
        IF NOT pgctx.json_type_matches((SELECT jsonb_agg(alt->'type') FROM jsonb_array_elements(sch->'anyOf') AS a(alt)),
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

CREATE OR REPLACE FUNCTION pgctx.summary_schema_error(schema_version integer, summary jsonb) RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    sch jsonb;
BEGIN
    SELECT s.schema INTO sch FROM pgctx.summary_schemas s WHERE s.schema_version = summary_schema_error.schema_version;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC105',
            MESSAGE = format('summary schema_version %s is not registered', schema_version),
            HINT = 'SELECT schema_version FROM pgctx.summary_schemas';
    END IF;
    RETURN pgctx.json_schema_error(sch, summary, sch);
END
$$;

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
