-- 001: the table of pgctx error codes.
--
-- Invariants enforced here:
--   * Every domain failure raised by pgctx has its own SQLSTATE in class PC (project-owned; no
--     standard class starts with P-C), listed in pgctx.error_codes with the name the Python layer
--     uses for its exception class. A test checks that every ERRCODE raised in sql/ is listed here
--     and that the Python mapping (pgctx/errors.py) has exactly these codes.
--   * No domain failure is raised without its own ERRCODE (it would read as P0001): callers
--     branch on SQLSTATE, never on message text.
--
-- Ranges: PC0xx event log and tenancy; PC1xx folds and checkpoints (later); PC2xx working context.

CREATE TABLE IF NOT EXISTS pgctx.error_codes (
    sqlstate  text PRIMARY KEY CHECK (sqlstate ~ '^PC[0-9A-Z]{3}$'),
    name      text NOT NULL UNIQUE,
    meaning   text NOT NULL
);

INSERT INTO pgctx.error_codes (sqlstate, name, meaning) VALUES
    ('PC001', 'InvalidConversationId',
     'conversation id is empty, longer than 256 bytes, has control characters or surrounding spaces'),
    ('PC002', 'UnknownEventKind',
     'event kind is not listed in pgctx.event_kinds'),
    ('PC003', 'InvalidPayload',
     'payload is not a JSON object'),
    ('PC004', 'PayloadTooLarge',
     'canonical payload is larger than pgctx.max_payload_bytes() (1 MiB)'),
    ('PC005', 'EventKeyConflict',
     'an event with this client event key exists in the conversation with different content'),
    ('PC006', 'AppendOnlyViolation',
     'UPDATE, DELETE or TRUNCATE of the append-only log (events, conversations) was refused (an event changes only by a recorded erasure)'),
    ('PC007', 'UnrepresentableJSON',
     'the JSON text holds a value PostgreSQL cannot store: \u0000, a lone surrogate, NaN, Infinity, or a number beyond numeric''s range'),
    ('PC008', 'UnknownTenant',
     'the tenant named is not registered in pgctx.tenants'),
    ('PC009', 'AmbiguousTenant',
     'the caller belongs to several tenants and did not name one for a new conversation'),
    ('PC010', 'TenantDenied',
     'the caller is not a member of the conversation''s tenant'),
    ('PC011', 'ConversationImmutable',
     'a conversation row was created off its genesis, its id, tenant or genesis changed, or its head moved other than forward by an append'),
    ('PC012', 'UnsupportedEncoding',
     'the database encoding is not UTF8'),
    ('PC013', 'InvalidEventKey',
     'client event key is empty or longer than 200 bytes'),
    ('PC014', 'ConversationNotFound',
     'no conversation with this id is visible to the caller'),
    ('PC015', 'InvalidVerifyRange',
     'verify_chain was asked to resume or anchor at a seq that is negative, has no event or is before a branch''s fork point'),
    ('PC016', 'BranchAbandoned',
     'the conversation is an abandoned branch: appends, forks and confirmation as mainline are refused'),
    ('PC017', 'InvalidErasure',
     'an erasure names no events, a seq that is not an event of the conversation, an erasure event, or gives no reason'),
    ('PC018', 'ReservedEventKind',
     'events of kind erasure, retraction or clear are written only by their functions (erase_*, retract_last, clear_view)'),
    ('PC019', 'InvalidRetentionPolicy',
     'a retention policy needs idle_days >= 1 and a registered tenant (or none, for the global policy)'),
    ('PC100', 'FoldConflict',
     'the committed fold is no longer the one the candidate was prepared on (a concurrent fold won), or the candidate was discarded'),
    ('PC101', 'FoldNotContinuous',
     'the fold range does not start at the committed cursor + 1, or is empty'),
    ('PC102', 'FoldBeyondHead',
     'the new cursor is beyond the conversation''s last event'),
    ('PC103', 'FoldSplitsUnit',
     'the boundary splits an atomic unit: a tool call and its result, or an approval and the goal it scopes'),
    ('PC104', 'SummarySchemaViolation',
     'the candidate summary is not valid against its registered JSON Schema'),
    ('PC105', 'UnknownSchemaVersion',
     'the summary schema_version is not registered in pgctx.summary_schemas'),
    ('PC106', 'SourceCoverage',
     'a fact or completed action cites no source events, or cites events outside the folded range'),
    ('PC107', 'ToolStateContradiction',
     'the summary''s tool state contradicts the events (e.g. a timeout or failure summarized as succeeded)'),
    ('PC108', 'MustKeepMissing',
     'the summary drops something it must keep: a call''s state, a request id, a failure reason, an identifier, a pending action, the omitted range'),
    ('PC109', 'UnsupportedOverride',
     'a confirmed fact is overridden without a newer user or tool event'),
    ('PC110', 'ChainBroken',
     'the hash chain is broken inside the range a fold would cover'),
    ('PC111', 'FoldNotFound',
     'no checkpoint with that version in the conversation'),
    ('PC112', 'IllegalPhaseTransition',
     'a checkpoint may only go PREPARED -> COMMITTED or PREPARED -> DISCARDED, and never change otherwise'),
    ('PC113', 'CheckpointRetention',
     'the committed fold, a PREPARED checkpoint, one a branch continues from or a fold head cannot be removed'),
    ('PC114', 'InvalidSummarySchema',
     'a summary schema uses keywords the SQL validator does not implement, or re-registers a version differently'),
    ('PC115', 'InvalidRetention',
     'prune_checkpoints needs keep >= 1'),
    ('PC116', 'ForkNotAtFold',
     'a conversation is forked only at its committed fold boundary'),
    ('PC117', 'ConversationExists',
     'a conversation with the new id already exists'),
    ('PC118', 'NotABranch',
     'the conversation has no branches to choose a mainline from'),
    ('PC119', 'CitesErasedEvent',
     'a fold candidate cites an erased event as a source'),
    ('PC120', 'FoldHidesContent',
     'the summary would hide what it folds: one of the newest user messages of the range, a fact declared in it, or everything (a hollow summary)'),
    ('PC121', 'FoldGrowsContext',
     'the fold would not make the working context (summary, evidence kept raw, unfolded events) smaller'),
    ('PC122', 'InvalidFoldHorizon',
     'a fold horizon (the resolved tool calls a summary keeps in full) is negative')
ON CONFLICT (sqlstate) DO UPDATE SET name = excluded.name, meaning = excluded.meaning;

COMMENT ON TABLE pgctx.error_codes IS
    'Every SQLSTATE pgctx raises (class PC), with the Python exception name that maps to it.';
