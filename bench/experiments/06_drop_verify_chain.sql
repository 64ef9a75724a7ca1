-- Makes room for chain format v1's verify_chain in database a of an A/B against the current one
-- (ab.py then applies sql/050_verify.sql as it was at the last v1 revision, d8eedba):
--     .venv/bin/python bench/ab.py verify d8eedba sql/030_events.sql sql/040_append.sql \
--         bench/experiments/06_drop_verify_chain.sql sql/050_verify.sql
-- CREATE OR REPLACE cannot drop the current function's OUT column erased, so it is dropped first.
-- Its grants go with it: the benchmark connects as a superuser, which needs none.
DROP FUNCTION IF EXISTS pgctx.verify_chain(text, bigint, bytea, bigint, bytea);
