-- 040: the append functions.
--
-- Invariants enforced here:
--   * append_event and append_events are thin: they INSERT into pgctx.events and so get exactly
--     the guarantees of 030 (a plain INSERT gets the same). They run as the caller (SECURITY
--     INVOKER), so the caller's own privileges and row-level security apply.
--   * append_event returns the event's seq; with a client event key that was already used for
--     the same kind and payload it returns the original seq and writes nothing.
--   * tokens (optional, per event) is the client's token count of the event as the working
--     context renders it (pgctx.tokens), stored once so the unfolded history's size is a SUM.
--   * append_events appends a JSON array of {kind, payload[, event_key][, tokens]} in one INSERT
--     statement: one head lock and one head update for the whole batch, seqs contiguous and in
--     array order. It returns (ordinality, seq) for every element, in order.

-- Before 0003 append_event had no tokens argument; one signature only, so calls stay unambiguous.
DROP FUNCTION IF EXISTS pgctx.append_event(text, text, jsonb, text, regrole);

CREATE OR REPLACE FUNCTION pgctx.append_event(
    conversation_id text,
    kind text,
    payload jsonb,
    event_key text DEFAULT NULL,
    tenant regrole DEFAULT NULL,
    tokens integer DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    new_seq bigint;
BEGIN
    INSERT INTO pgctx.events (conversation_id, kind, payload, event_key, tenant, tokens)
    VALUES (append_event.conversation_id, append_event.kind, append_event.payload,
            append_event.event_key, append_event.tenant, append_event.tokens)
    RETURNING events.seq INTO new_seq;
    IF new_seq IS NULL THEN
        -- the trigger recognised a repeat of an existing event key: report the original seq
        SELECT e.seq INTO STRICT new_seq FROM pgctx.events e
         WHERE e.conversation_id = append_event.conversation_id
           AND e.event_key = append_event.event_key;
    END IF;
    RETURN new_seq;
END
$$;

COMMENT ON FUNCTION pgctx.append_event(text, text, jsonb, text, regrole, integer) IS
    'Append one event; returns its seq. Same event_key and content again returns the original seq.';

CREATE OR REPLACE FUNCTION pgctx.append_events(
    conversation_id text,
    events jsonb,
    tenant regrole DEFAULT NULL
) RETURNS TABLE (ordinality bigint, seq bigint)
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp AS $$
BEGIN
    IF jsonb_typeof(events) IS DISTINCT FROM 'array'
       OR EXISTS (SELECT 1 FROM jsonb_array_elements(events) AS t(e)
                   WHERE jsonb_typeof(e) <> 'object'
                      OR (e ? 'tokens' AND jsonb_typeof(e->'tokens') NOT IN ('number', 'null'))) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC003',
            MESSAGE = 'events must be a JSON array of objects {"kind": ..., "payload": {...}, "event_key": ..., "tokens": n}';
    END IF;
    RETURN QUERY
    WITH input AS (
        SELECT t.i, t.e->>'kind' AS kind, t.e->'payload' AS payload, t.e->>'event_key' AS event_key,
               (t.e->>'tokens')::integer AS tokens
          FROM jsonb_array_elements(events) WITH ORDINALITY AS t(e, i)
    ), appended AS (
        INSERT INTO pgctx.events (conversation_id, kind, payload, event_key, tenant, tokens)
        SELECT append_events.conversation_id, input.kind, input.payload, input.event_key,
               append_events.tenant, input.tokens
          FROM input ORDER BY input.i
        RETURNING events.seq, events.event_key
    )
    -- Rows without a key are all new, and the trigger numbers them in array order: zip their
    -- ordinalities with their seqs, both sorted. (Joining two row_number() subqueries instead
    -- made the planner re-sort `appended` once per element: measured O(n^2).)
    SELECT z.i, z.seq
      FROM unnest((SELECT array_agg(input.i ORDER BY input.i) FROM input WHERE input.event_key IS NULL),
                  (SELECT array_agg(a.seq ORDER BY a.seq) FROM appended a WHERE a.event_key IS NULL))
           AS z(i, seq)
    UNION ALL
    SELECT input.i, coalesce(a.seq, old.seq)
      FROM input
      LEFT JOIN appended a ON a.event_key = input.event_key
      LEFT JOIN pgctx.events old
             ON old.conversation_id = append_events.conversation_id
            AND old.event_key = input.event_key
     WHERE input.event_key IS NOT NULL
    ORDER BY 1;
END
$$;

COMMENT ON FUNCTION pgctx.append_events(text, jsonb, regrole) IS
    'Append a JSON array of {kind, payload[, event_key][, tokens]} in one statement; returns (ordinality, seq) per element.';
