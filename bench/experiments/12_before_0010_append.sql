-- Measurement only: the append path as it was before 0010, on the 0010 schema, as database a of
--     .venv/bin/python bench/ab.py append|insert|batch|verify c37808d bench/experiments/12_before_0010_append.sql --analyze
-- so the A/B says what 0010 costs appends and verification: STABLE hash helpers over convert_to
-- (0010: IMMUTABLE over pgctx.utf8_bytes), the tenant checked in the head UPDATE's WHERE clause
-- (0010: on RETURNING), no refusal of caller-set columns in events_chain, the trigger's WHEN clause
-- NEW.hash IS NULL alone (0010: or no created_at, or not the owner), created_at DEFAULT now().
CREATE OR REPLACE FUNCTION pgctx.genesis_hash(conversation_id text) RETURNS bytea
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT sha256('\x70676374783a67656e657369733a7631'::bytea
                  || int4send(octet_length(conversation_id)) || convert_to(conversation_id, 'UTF8'))
$$;
CREATE OR REPLACE FUNCTION pgctx.event_hash_v2(conversation_id text, seq bigint, kind text,
                                               prev_hash bytea, payload_digest bytea) RETURNS bytea
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT sha256('\x70676374783a6576656e743a7632'::bytea
                  || int4send(octet_length(conversation_id)) || convert_to(conversation_id, 'UTF8')
                  || int8send(seq)
                  || int4send(octet_length(kind)) || convert_to(kind, 'UTF8')
                  || prev_hash
                  || payload_digest)
$$;
CREATE OR REPLACE TRIGGER events_chain
    BEFORE INSERT ON pgctx.events
    FOR EACH ROW
    WHEN (NEW.hash IS NULL)
    EXECUTE FUNCTION pgctx.events_chain();
ALTER TABLE pgctx.events ALTER COLUMN created_at SET DEFAULT now();
CREATE OR REPLACE FUNCTION pgctx.events_chain() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pgctx, pg_temp AS $$
DECLARE
    checked  pgctx.canonical_payload_forms;
    prior    record;
    tenant   text;
BEGIN
    IF NOT pgctx.valid_conversation_id(NEW.conversation_id) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'PC001',
            MESSAGE = 'invalid conversation id: 1 to 256 bytes, no control characters, no surrounding spaces',
            DETAIL = format('got %L', left(NEW.conversation_id, 300));
    END IF;
    checked := pgctx.checked_payload(NEW.payload, NEW.event_key);
    NEW.payload := checked.canonical;
    IF NEW.kind IN ('erasure', 'retraction', 'clear') THEN
        PERFORM pgctx.refuse_reserved_kind(NEW.kind);
    END IF;
    NEW.salt := pgctx.new_salt();
    NEW.payload_digest := pgctx.payload_digest(NEW.salt, checked.canonical_text);
    NEW.erased_in := NULL;

    IF NEW.event_key IS NOT NULL THEN
        PERFORM pgctx.lock_conversation(NEW.conversation_id, NEW.tenant);
        SELECT kind, payload INTO prior FROM pgctx.events
         WHERE conversation_id = NEW.conversation_id AND event_key = NEW.event_key;
        IF FOUND THEN
            IF prior.kind = NEW.kind AND prior.payload = NEW.payload THEN
                RETURN NULL;  -- already appended: idempotent, write nothing
            END IF;
            RAISE EXCEPTION USING
                ERRCODE = 'PC005',
                MESSAGE = format('event key %L already names a different event in conversation %s',
                                 NEW.event_key, NEW.conversation_id);
        END IF;
    END IF;

    FOR attempt IN 1..2 LOOP
        UPDATE pgctx.conversations c
           SET head_seq = c.head_seq + 1,
               head_prev_hash = c.head_hash,
               head_hash = pgctx.event_hash_v2(c.conversation_id, c.head_seq + 1, NEW.kind, c.head_hash,
                                               NEW.payload_digest)
         WHERE c.conversation_id = NEW.conversation_id
           AND pgctx.tenant_member(c.tenant)
           AND (NEW.tenant IS NULL OR NEW.tenant = c.tenant)
           AND c.branch_status IS DISTINCT FROM 'abandoned'
           AND pgctx.is_event_kind(NEW.kind)
        RETURNING c.head_seq, c.head_prev_hash, c.head_hash, c.tenant
             INTO NEW.seq, NEW.prev_hash, NEW.hash, tenant;  -- (all NULL when no row: not NEW.tenant)
        IF FOUND THEN
            NEW.tenant := tenant;
            NEW.created_at := now();
            RETURN NEW;
        END IF;
        EXIT WHEN attempt = 2;
        PERFORM pgctx.lock_conversation(NEW.conversation_id, NEW.tenant);
        IF NOT pgctx.is_event_kind(NEW.kind) THEN
            PERFORM pgctx.refuse_unknown_kind(NEW.kind);
        END IF;
    END LOOP;
    -- Only if the head row's policies and lock_conversation's checks disagreed.
    RAISE EXCEPTION USING
        ERRCODE = 'internal_error',
        MESSAGE = format('conversation %s: the head row could not be advanced', NEW.conversation_id);
END
$$;
