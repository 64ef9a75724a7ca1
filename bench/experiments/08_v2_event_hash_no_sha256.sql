-- What the second SHA-256 per event costs chain format v2: pgctx.event_hash_v2 builds the same
-- input but keeps its first 32 bytes instead of hashing it (the bytes it concatenates are the
-- same, only the sha256() call is gone). Not a proposal: database a of
--     .venv/bin/python bench/ab.py append|insert|batch|verify REV bench/experiments/08_v2_event_hash_no_sha256.sql
-- appends and verifies with this function alike (its chain is consistent), so b/a - 1 is the
-- cost of one sha256() call per event. Also: bench/instructions.py --patch.
CREATE OR REPLACE FUNCTION pgctx.event_hash_v2(conversation_id text, seq bigint, kind text,
                                               prev_hash bytea, payload_digest bytea) RETURNS bytea
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT substring('\x70676374783a6576656e743a7632'::bytea          -- 'pgctx:event:v2'
                     || int4send(octet_length(conversation_id)) || convert_to(conversation_id, 'UTF8')
                     || int8send(seq)
                     || int4send(octet_length(kind)) || convert_to(kind, 'UTF8')
                     || prev_hash
                     || payload_digest
                     FROM 1 FOR 32)
$$;
