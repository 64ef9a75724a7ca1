-- What the salt's random source costs chain format v2: pgctx.new_salt() returns a constant
-- instead of uuid_send(gen_random_uuid()) (gen_random_uuid reads OpenSSL's RAND_bytes once per
-- event). Not a proposal (a shared salt is no salt): database a of
--     .venv/bin/python bench/ab.py append|insert|batch REV bench/experiments/07_v2_fixed_salt.sql
-- is the working tree minus that cost, so b/a - 1 is it. Also: bench/instructions.py --patch.
CREATE OR REPLACE FUNCTION pgctx.new_salt() RETURNS bytea
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
    SELECT '\x000102030405060708090a0b0c0d0e0f'::bytea
$$;
