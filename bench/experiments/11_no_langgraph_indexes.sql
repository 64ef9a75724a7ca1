-- Measurement only: the schema without the partial indexes LangGraph's saver reads through
-- (sql/210_langgraph.sql), as database a of
--     .venv/bin/python bench/ab.py append|insert|batch HEAD bench/experiments/11_no_langgraph_indexes.sql --analyze
-- so the A/B says what those indexes cost every other append (each insert evaluates their predicates).
DROP INDEX pgctx.events_langgraph, pgctx.events_langgraph_delete, pgctx.events_langgraph_run,
    pgctx.events_langgraph_message;
