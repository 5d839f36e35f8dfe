-- 0001_init: the contract graph schema (design.md "One graph schema everywhere").
-- Nodes are tables with an INTEGER primary key (pk) used for joins and as FTS
-- rowids, and the schema's stable string id. Relationships are tables or
-- foreign-key columns. Missing values are NULL, never '', so that range
-- filters and "nulls last" orderings treat them as absent.

-- contracts holds what filters, orderings and aggregates read, so that a
-- full scan stays small (about 70 bytes a row); descriptive fields live in
-- contract_details and the text in contract_texts.
CREATE TABLE contracts (
    pk               INTEGER PRIMARY KEY,
    id               TEXT NOT NULL UNIQUE,
    contract_type    TEXT,
    effective_date   TEXT,
    end_date         TEXT,
    duration_days    INTEGER,
    total_amount     REAL,
    -- HAS_GOVERNING_LAW
    governing_law_pk INTEGER REFERENCES locations(pk),
    -- distinct parties, kept for ordering by party_count
    party_count      INTEGER NOT NULL DEFAULT 0,
    -- one bit (see clause_kinds) per clause type and group the contract has
    clause_bits      INTEGER NOT NULL DEFAULT 0
);
-- Covers every column filters and metrics read, so that queries and
-- groupings by contract type never touch the table.
CREATE INDEX contracts_type ON contracts(contract_type, effective_date, end_date, total_amount, duration_days, governing_law_pk, clause_bits);
-- The default order of contract_search. End dates, amounts and durations
-- have no index of their own: a scan of this narrow table costs a few
-- milliseconds at 100,000 contracts, less than the indexes cost each import.
CREATE INDEX contracts_effective ON contracts(effective_date);
CREATE INDEX contracts_governing_law ON contracts(governing_law_pk);

CREATE TABLE contract_details (
    contract_pk         INTEGER PRIMARY KEY REFERENCES contracts(pk) ON DELETE CASCADE,
    title               TEXT,
    summary             TEXT,
    scope               TEXT,
    duration            TEXT,
    renewal_term        TEXT,
    notice_period       TEXT,
    currency            TEXT,
    source_path         TEXT,
    sha256              TEXT,
    extracted_by        TEXT,
    extracted_at        TEXT,
    usage_input_tokens  INTEGER,
    usage_output_tokens INTEGER,
    -- sha256 of the contract's canonical JSON: an identical re-put is a no-op
    content_hash        TEXT NOT NULL
);

-- The full text lives apart so that scans of contracts stay small.
CREATE TABLE contract_texts (
    contract_pk INTEGER PRIMARY KEY REFERENCES contracts(pk) ON DELETE CASCADE,
    text        TEXT NOT NULL
);

CREATE TABLE locations (
    pk      INTEGER PRIMARY KEY,
    country TEXT NOT NULL DEFAULT '',
    state   TEXT NOT NULL DEFAULT '',
    city    TEXT NOT NULL DEFAULT '',
    address TEXT NOT NULL DEFAULT '',
    UNIQUE (country, state, city, address)
);
CREATE INDEX locations_state ON locations(state);

CREATE TABLE parties (
    pk              INTEGER PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL,
    -- contract.PartyKey(name): the identity parties are merged under
    normalized_name TEXT NOT NULL UNIQUE,
    -- contract.MatchKey(name): the containment key of party filters
    match_key       TEXT NOT NULL
);

-- Other spellings of a party. alias_key (PartyKey) resolves new spellings to
-- the party; match_key (MatchKey) is searched by party filters.
CREATE TABLE party_aliases (
    party_pk  INTEGER NOT NULL REFERENCES parties(pk) ON DELETE CASCADE,
    alias     TEXT NOT NULL,
    alias_key TEXT NOT NULL,
    match_key TEXT NOT NULL,
    PRIMARY KEY (party_pk, alias)
) WITHOUT ROWID;
CREATE INDEX party_aliases_key ON party_aliases(alias_key);

-- PARTY_TO {role}, with the party's name and location as written in the contract.
CREATE TABLE contract_parties (
    contract_pk INTEGER NOT NULL REFERENCES contracts(pk) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    party_pk    INTEGER NOT NULL REFERENCES parties(pk),
    name        TEXT NOT NULL,
    role        TEXT,
    location_pk INTEGER REFERENCES locations(pk),
    -- the location's country and the contract's type, copied so that party
    -- searches and filters read only the party index
    country     TEXT,
    contract_type TEXT,
    PRIMARY KEY (contract_pk, ord)
) WITHOUT ROWID;
CREATE INDEX contract_parties_party ON contract_parties(party_pk, contract_pk, country, contract_type);
CREATE INDEX contract_parties_country ON contract_parties(country, contract_pk, party_pk);
CREATE INDEX contract_parties_location ON contract_parties(location_pk);

-- HAS_LOCATION: a party is located wherever a contract places it.
CREATE VIEW party_locations AS
    SELECT DISTINCT party_pk, location_pk FROM contract_parties WHERE location_pk IS NOT NULL;

-- Bit numbers of clause types and groups in contracts.clause_bits, given out
-- in order of first use. Only 62 fit; a kind without a bit is filtered
-- through the clauses table instead.
CREATE TABLE clause_kinds (
    kind TEXT PRIMARY KEY,
    bit  INTEGER NOT NULL UNIQUE
) WITHOUT ROWID;

-- HAS_CLAUSE
CREATE TABLE clauses (
    pk          INTEGER PRIMARY KEY,
    contract_pk INTEGER NOT NULL REFERENCES contracts(pk) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    id          TEXT NOT NULL,
    type        TEXT NOT NULL,
    grp         TEXT,
    summary     TEXT,
    text        TEXT,
    start       INTEGER NOT NULL DEFAULT 0,
    "end"       INTEGER NOT NULL DEFAULT 0,
    verified    INTEGER NOT NULL DEFAULT 0,
    UNIQUE (contract_pk, ord)
);
-- Clause filters read contracts.clause_bits; this index serves grouping by
-- clause type.
CREATE INDEX clauses_type ON clauses(type, contract_pk);

-- HAS_CHUNK
CREATE TABLE chunks (
    pk          INTEGER PRIMARY KEY,
    contract_pk INTEGER NOT NULL REFERENCES contracts(pk) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    id          TEXT NOT NULL,
    text        TEXT NOT NULL,
    start       INTEGER NOT NULL,
    "end"       INTEGER NOT NULL,
    -- 1 when the text at [start, end) is exactly the chunk text
    verified    INTEGER NOT NULL DEFAULT 0,
    -- little-endian float32 vector, NULL until embedded
    embedding   BLOB,
    UNIQUE (contract_pk, ord)
);

-- Per-field evidence quotes.
CREATE TABLE evidence (
    contract_pk INTEGER NOT NULL REFERENCES contracts(pk) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    field       TEXT NOT NULL,
    value       TEXT,
    quote       TEXT NOT NULL,
    start       INTEGER NOT NULL DEFAULT 0,
    "end"       INTEGER NOT NULL DEFAULT 0,
    verified    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (contract_pk, ord)
) WITHOUT ROWID;

-- Full text over title, summary and scope (Filter.SummarySearch); rowid = contracts.pk.
CREATE VIRTUAL TABLE contract_fts USING fts5(
    title, summary, scope,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Full text over passages: rowid = clauses.pk for a clause (its text and
-- summary) and -chunks.pk for a chunk.
CREATE VIRTUAL TABLE passage_fts USING fts5(
    text, summary,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
