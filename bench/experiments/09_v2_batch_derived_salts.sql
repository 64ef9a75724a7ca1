-- Experiment: append_events (sql/040_append.sql as of commit e4f119e) drawing one random key per
-- call instead of one gen_random_uuid() per event, each event's salt derived from it:
--     salt_i = first 16 bytes of SHA-256(batch_key || u64be(seq_i)), batch_key = pgctx.new_salt()
-- batch_key lives only in the function's variables, so a salt erased with its payload (190) is
-- not recoverable from the salts of the batch's other events (that would take a preimage of
-- SHA-256 or the 122 random bits of the key). Only the salt's source changes: the row, the
-- digest and the hash are computed as in sql/. Measured as database a of
--     .venv/bin/python bench/ab.py batch REV bench/experiments/09_v2_batch_derived_salts.sql --cpu --analyze
-- (b/a - 1 is what the per-event gen_random_uuid() costs over one sha256() per event); see
-- bench/results/chain-v2-ab.md.

CREATE OR REPLACE FUNCTION pgctx.append_events(
    conversation_id text,
    events jsonb,
    tenant regrole DEFAULT NULL
) RETURNS TABLE (ordinality bigint, seq bigint)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp
-- Generic plans: with custom ones PostgreSQL planned the INSERT again for every call, copying the
-- batch's arrays into the plan as constants (~10k instructions per event, bench/instructions.py).
SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_variable
DECLARE
    conv      pgctx.conversations%ROWTYPE;
    r         record;
    prior     record;
    checked   pgctx.canonical_payload_forms;
    out_seq   bigint[] := '{}';
    seen_keys jsonb := '{}';   -- event key -> [kind, payload, seq] of this batch
    a_seq     bigint[] := '{}';
    a_kind    text[] := '{}';
    a_payload jsonb[] := '{}';
    a_key     text[] := '{}';
    a_tokens  integer[] := '{}';
    a_prev    bytea[] := '{}';
    a_hash    bytea[] := '{}';
    a_salt    bytea[] := '{}';
    a_digest  bytea[] := '{}';
    salt      bytea;
    batch_key bytea := pgctx.new_salt();  -- one strong random draw per call, never stored
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
            IF seen_keys ? r.key THEN
                SELECT (seen_keys->r.key->>2)::bigint AS seq, seen_keys->r.key->>0 AS kind, seen_keys->r.key->1 AS payload
                  INTO prior;
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
            seen_keys := seen_keys || jsonb_build_object(r.key, jsonb_build_array(r.kind, r.payload, last_seq + 1));
        END IF;
        a_prev := a_prev || last_hash;
        last_seq := last_seq + 1;
        salt := substring(sha256(batch_key || int8send(last_seq)) FROM 1 FOR 16);
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
