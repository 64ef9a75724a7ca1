-- 140: read-only views for DBAs and auditors.
--
-- Invariants enforced here:
--   * Views run with the caller's rights (security_invoker), so row-level security applies to
--     them exactly as to the tables: a tenant's login sees its own conversations, an auditor
--     sees all, nobody sees more through a view than through the table.

-- The per-conversation columns in a CTE, the tool calls' status (pgctx.tool_calls, which reads the
-- tables) outside it. On one server PostgreSQL inlines the CTE (one reference), so a filter on
-- conversation_id still reaches the index. On Citus, a query of every conversation with the
-- function inside cannot be pushed down to the shards, and Citus then plans the CTE apart (a
-- multi-shard read) and calls the function on the node that was asked, where its own reads are
-- single-shard queries, not nested ones. (A filter on one conversation_id by a constant is
-- routed to its shard whole, function and all, and refused there: call pgctx.tool_calls.)
CREATE OR REPLACE VIEW pgctx.conversation_status WITH (security_invoker = true) AS
WITH s AS (
    SELECT c.conversation_id,
           c.tenant,
           c.head_seq,
           coalesce(h.version, 0) AS committed_version,
           coalesce(h.cursor, 0) AS committed_cursor,
           c.head_seq - coalesce(h.cursor, 0) AS unfolded_events,
           (SELECT sum(e.tokens) FROM pgctx.events e
             WHERE e.conversation_id = c.conversation_id AND e.seq > coalesce(h.cursor, 0)) AS unfolded_tokens,
           (SELECT count(*) FROM pgctx.checkpoints k
             WHERE k.conversation_id = c.conversation_id AND k.phase = 'PREPARED') AS prepared_folds,
           v.seq AS verified_seq,
           v.verified_at,
           h.fallback_reason
      FROM pgctx.conversations c
      LEFT JOIN pgctx.fold_heads h ON h.conversation_id = c.conversation_id
      LEFT JOIN pgctx.verified_points v ON v.conversation_id = c.conversation_id
)
SELECT s.conversation_id, s.tenant, s.head_seq, s.committed_version, s.committed_cursor, s.unfolded_events,
       s.unfolded_tokens, s.prepared_folds,
       (SELECT count(*) FROM pgctx.tool_calls(s.conversation_id, 0, NULL) t
         WHERE t.status = 'unknown') AS unknown_side_effects,
       s.verified_seq, s.verified_at, s.fallback_reason
  FROM s;

COMMENT ON VIEW pgctx.conversation_status IS
    'Per conversation: head, committed fold, unfolded events and tokens, PREPARED folds, unknown side effects, last verification.';

CREATE OR REPLACE VIEW pgctx.fold_history WITH (security_invoker = true) AS
SELECT k.conversation_id,
       k.version,
       k.phase,
       k.version = h.version AS is_committed_fold,
       k.base_version,
       k.base_cursor + 1 AS range_from,
       k.cursor AS range_to,
       k.schema_version,
       k.summarizer,
       k.prepared_by,
       k.prepared_at,
       k.decided_at,
       k.discard_reason,
       encode(k.checksum, 'hex') AS checksum,
       encode(k.chain_hash, 'hex') AS chain_hash
  FROM pgctx.checkpoints k
  LEFT JOIN pgctx.fold_heads h ON h.conversation_id = k.conversation_id;

COMMENT ON VIEW pgctx.fold_history IS 'Every fold: phase, range, who produced it, when, and why it was discarded.';

-- content_erased / erased_seqs: the call's or its answer's content was erased (190); the call
-- stays listed with its id, tool, effect, idempotency key, status and request id, which an erased
-- event keeps (030), and without its arguments (subject) and error text.
-- retry_safe: the tool service answered a status query saying it did not act (not_performed),
-- the only state in which running the call again cannot repeat its side effect (article 十二).
-- The conversations in a CTE, as in conversation_status; OFFSET 0 keeps the lateral call a subquery
-- that Citus cannot push down to the shards with the conversations (so it plans the CTE apart).
-- It changes no plan on one server: the function is called once per conversation either way.
CREATE OR REPLACE VIEW pgctx.side_effects WITH (security_invoker = true) AS
WITH c AS (SELECT c.conversation_id FROM pgctx.conversations c)
SELECT c.conversation_id, t.call_id, t.tool, t.effect, t.status, t.idempotency_key, t.request_id, t.error,
       t.call_seq, t.answer_seq, coalesce(t.outcome = 'not_performed', false) AS retry_safe, t.subject,
       cardinality(t.erased_seqs) > 0 AS content_erased, t.erased_seqs
  FROM c
 CROSS JOIN LATERAL (SELECT * FROM pgctx.tool_calls(c.conversation_id, 0, NULL) OFFSET 0) t;

COMMENT ON VIEW pgctx.side_effects IS
    'Every tool call with its derived status (unknown, never guessed), idempotency key, whether a retry is safe (the service said it did not act), its subject (identifier arguments), and whether its content was erased (content_erased; erased_seqs: which of call_seq and answer_seq; an erased call keeps its ids, status and request id, not its arguments or error); filter by conversation_id.';

CREATE OR REPLACE VIEW pgctx.chain_health WITH (security_invoker = true) AS
SELECT c.conversation_id,
       c.head_seq,
       v.seq AS verified_seq,
       c.head_seq - coalesce(v.seq, 0) AS unverified_events,
       v.verified_at,
       h.fallback_reason IS NOT NULL AS fell_back,
       h.fallback_reason,
       v.genesis_seq AS verified_from_genesis_seq,
       v.genesis_at AS verified_from_genesis_at,
       b.seq AS break_seq,
       b.reason AS break_reason,
       b.found_at AS break_found_at,
       -- which of the above is current: a standing break outranks the verified point (recovery
       -- verified up to verified_seq before it found the break at break_seq, which may be below)
       CASE WHEN b.seq IS NOT NULL THEN 'broken'
            WHEN v.seq IS NULL THEN 'never verified'
            WHEN v.seq >= c.head_seq THEN 'verified'
            ELSE 'verified in part' END AS state
  FROM pgctx.conversations c
  LEFT JOIN pgctx.verified_points v ON v.conversation_id = c.conversation_id
  LEFT JOIN pgctx.fold_heads h ON h.conversation_id = c.conversation_id
  LEFT JOIN pgctx.chain_breaks b ON b.conversation_id = c.conversation_id;

COMMENT ON VIEW pgctx.chain_health IS
    'How much of each chain recovery verified (incrementally, and last from genesis), whether it had to fall back past a break, and the break that stands, if any; state says which is current: broken (a standing break, whatever verified_seq says), verified (up to the head), verified in part (events appended since), never verified.';
