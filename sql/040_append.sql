-- 040: the append functions.
--
-- Invariants enforced here:
--   * append_event is thin: it INSERTs into pgctx.events and so gets exactly the guarantees of
--     030 (a plain INSERT gets the same), as the caller (SECURITY INVOKER): the caller's own
--     privileges and row-level security apply.
--   * append_events applies 030's rules to a whole batch itself (SECURITY DEFINER, executable by
--     pgctx_app only, which may INSERT events anyway): it locks the head once
--     (pgctx.lock_conversation, the same check of tenancy and abandoned branches as the trigger),
--     checks every element's kind, payload and key with the trigger's SQLSTATEs, canonicalises
--     the payloads, chains them in one pass from the head (chain format v2: a fresh salt and the
--     payload digest per event, 010) and inserts the rows already chained.
--     The row trigger lets rows that arrive with a hash through (030); the function then moves
--     the head once. Measured: about twice the trigger path's throughput on 100-event batches.
--   * append_event returns the event's seq; with a client event key that was already used for
--     the same kind and payload it returns the original seq and writes nothing.
--   * tokens (optional, per event) is the client's token count of the event as the working
--     context renders it (pgctx.tokens), stored once so the unfolded history's size is a SUM.
--   * append_events appends a JSON array of {kind, payload[, event_key][, tokens]} in one INSERT
--     statement: one head lock and one head update for the whole batch, seqs contiguous and in
--     array order. It returns (ordinality, seq) for every element, in order; an element whose
--     event key was used before (stored, or earlier in the batch) with the same kind and payload
--     gets that event's seq and writes nothing, with different content it is PC005.

-- Before 0003 append_event had no tokens argument; one signature only, so calls stay unambiguous.
DROP FUNCTION IF EXISTS pgctx.append_event(text, text, jsonb, text, regrole);

CREATE OR REPLACE FUNCTION pgctx.append_event(
    conversation_id text,
    kind text,
    payload jsonb,
    event_key text DEFAULT NULL,
    tenant text DEFAULT NULL,
    tokens integer DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp
SET enable_seqscan = off AS $$
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

COMMENT ON FUNCTION pgctx.append_event(text, text, jsonb, text, text, integer) IS
    'Append one event; returns its seq. Same event_key and content again returns the original seq.';

CREATE OR REPLACE FUNCTION pgctx.append_events(
    conversation_id text,
    events jsonb,
    tenant text DEFAULT NULL
) RETURNS TABLE (ordinality bigint, seq bigint)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp
-- Generic plans: with custom ones PostgreSQL planned the INSERT again for every call, copying the
-- batch's arrays into the plan as constants (~10k instructions per event, bench/instructions.py).
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off AS $$
#variable_conflict use_variable
DECLARE
    conv      pgctx.conversations%ROWTYPE;
    r         record;
    prior     record;
    checked   pgctx.canonical_payload_forms;
    out_seq   bigint[] := '{}'::bigint[];
    at        integer;   -- where a key repeats in this batch
    a_seq     bigint[] := '{}'::bigint[];
    a_kind    text[] := '{}'::text[];
    a_payload jsonb[] := '{}'::jsonb[];
    a_key     text[] := '{}'::text[];
    a_tokens  integer[] := '{}'::integer[];
    a_prev    bytea[] := '{}'::bytea[];
    a_hash    bytea[] := '{}'::bytea[];
    a_salt    bytea[] := '{}'::bytea[];
    a_digest  bytea[] := '{}'::bytea[];
    salt      bytea;
    digest    bytea;
    last_seq  bigint;
    last_hash bytea;
BEGIN
    IF jsonb_typeof(events) IS DISTINCT FROM 'array'
       OR EXISTS (SELECT 1 FROM jsonb_array_elements(events) AS t(e)
                   WHERE jsonb_typeof(e) <> 'object'
                      OR (e ? 'tokens' AND jsonb_typeof(e->'tokens') NOT IN ('number', 'null'))) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC003',
            MESSAGE = 'events must be a JSON array of objects {"kind": ..., "payload": {...}, "event_key": ..., "tokens": n}';
    END IF;
    IF NOT pgctx.valid_conversation_id(conversation_id) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC001',
            MESSAGE = 'invalid conversation id: 1 to 256 bytes, no control characters, no surrounding spaces',
            DETAIL = format('got %L', left(conversation_id, 300));
    END IF;
    IF jsonb_array_length(events) = 0 THEN
        RETURN;
    END IF;
    conv := pgctx.lock_conversation(conversation_id, tenant);
    last_seq := conv.head_seq;
    last_hash := conv.head_hash;
    FOR r IN SELECT t.e->>'kind' AS kind, t.e->'payload' AS payload, t.e->>'event_key' AS key,
                    (t.e->>'tokens')::integer AS tokens
               FROM jsonb_array_elements(events) WITH ORDINALITY AS t(e, i) ORDER BY t.i LOOP
        IF NOT pgctx.is_event_kind(r.kind) THEN
            PERFORM pgctx.refuse_unknown_kind(r.kind);
        ELSIF r.kind IN ('erasure', 'retraction', 'clear') THEN
            PERFORM pgctx.refuse_reserved_kind(r.kind);
        END IF;
        checked := pgctx.checked_payload(r.payload, r.key);
        r.payload := checked.canonical;
        IF r.key IS NOT NULL THEN
            -- a key used before (earlier in this batch, or stored): same content is the same event
            -- (array_position over the batch's keys: a jsonb map of them, rebuilt on every key,
            -- made a keyed batch quadratic, 5.7 s for 4,000 events)
            at := array_position(a_key, r.key);
            IF at IS NOT NULL THEN
                SELECT a_seq[at] AS seq, a_kind[at] AS kind, a_payload[at] AS payload INTO prior;
            ELSE
                SELECT e.seq, e.kind, e.payload INTO prior FROM pgctx.events e
                 WHERE e.conversation_id = append_events.conversation_id AND e.event_key = r.key;
            END IF;
            IF prior.seq IS NOT NULL THEN
                IF prior.kind = r.kind AND prior.payload = r.payload THEN
                    out_seq := out_seq || prior.seq;
                    CONTINUE;
                END IF;
                RAISE EXCEPTION USING ERRCODE = 'PC005',
                    MESSAGE = format('event key %L already names a different event in conversation %s', r.key, conversation_id);
            END IF;
        END IF;
        a_prev := a_prev || last_hash;
        last_seq := last_seq + 1;
        salt := pgctx.new_salt();
        digest := pgctx.payload_digest(salt, checked.canonical_text);
        last_hash := pgctx.event_hash_v2(conversation_id, last_seq, r.kind, last_hash, digest);
        a_salt := a_salt || salt;
        a_digest := a_digest || digest;
        out_seq := out_seq || last_seq;
        a_seq := a_seq || last_seq;
        a_kind := a_kind || r.kind;
        a_payload := a_payload || r.payload;
        a_key := a_key || r.key;
        a_tokens := a_tokens || r.tokens;
        a_hash := a_hash || last_hash;
    END LOOP;
    IF cardinality(a_seq) > 0 THEN
        INSERT INTO pgctx.events (conversation_id, seq, kind, payload, event_key, tenant, prev_hash, hash, tokens,
                                  created_at, salt, payload_digest)
        SELECT conversation_id, x.s, x.k, x.p, x.key, conv.tenant, x.prev, x.h, x.t, now(), x.salt, x.digest
          FROM unnest(a_seq, a_kind, a_payload, a_key, a_tokens, a_prev, a_hash, a_salt, a_digest)
               AS x(s, k, p, key, t, prev, h, salt, digest);
        UPDATE pgctx.conversations c
           SET head_seq = last_seq, head_prev_hash = a_prev[cardinality(a_prev)], head_hash = last_hash
         WHERE c.conversation_id = append_events.conversation_id;
    END IF;
    RETURN QUERY SELECT o.o::bigint, o.s FROM unnest(out_seq) WITH ORDINALITY AS o(s, o);
END
$$;

COMMENT ON FUNCTION pgctx.append_events(text, jsonb, text) IS
    'Append a JSON array of {kind, payload[, event_key][, tokens]} in one statement; returns (ordinality, seq) per element.';

-- One event of a reserved kind (erasure, retraction, clear), or recovery's record of interrupted
-- calls (which an abandoned branch takes too), appended by the function that owns it, as the owner, after it has locked the head (conv is the row it locked) and checked
-- what the event records: chained like append_events chains a batch (chain format v2), inserted
-- with its hash (the row trigger lets it through), the head moved. Returns its seq.
CREATE OR REPLACE FUNCTION pgctx.append_chained(conv pgctx.conversations, kind text, payload jsonb) RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pgctx, pg_temp
SET enable_seqscan = off AS $$
DECLARE
    checked pgctx.canonical_payload_forms := pgctx.checked_payload(payload, NULL);
    salt    bytea := pgctx.new_salt();
    digest  bytea := pgctx.payload_digest(salt, checked.canonical_text);
    s       bigint := conv.head_seq + 1;
    h       bytea := pgctx.event_hash_v2(conv.conversation_id, s, kind, conv.head_hash, digest);
BEGIN
    INSERT INTO pgctx.events (conversation_id, seq, kind, payload, tenant, prev_hash, hash, created_at, salt, payload_digest)
    VALUES (conv.conversation_id, s, kind, checked.canonical, conv.tenant, conv.head_hash, h, now(), salt, digest);
    UPDATE pgctx.conversations c SET head_seq = s, head_prev_hash = conv.head_hash, head_hash = h
     WHERE c.conversation_id = conv.conversation_id;
    RETURN s;
END
$$;

COMMENT ON FUNCTION pgctx.append_chained(pgctx.conversations, text, jsonb) IS
    'Append one event of a reserved kind (erasure, retraction, clear), or recovery''s record of interrupted calls, for the function that owns the kind, after it locked the head row (conv) and checked what the event records: chained as append_events chains, inserted with its hash, head moved; returns its seq. Owner only.';
