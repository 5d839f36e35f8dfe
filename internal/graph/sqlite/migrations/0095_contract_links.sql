-- 0095_contract_links: the (:Contract)-[:AMENDS|SUPPLEMENTS]->(:Contract)
-- relationships between contracts (graph.LinkStore): from amends or
-- supplements to, its master. Keyed by (from, to, kind); source is
-- 'detected' (family detection) or 'manual'. A link goes with either
-- contract when it is deleted or replaced, as every relationship of a
-- contract does. evidence_start/end are byte offsets into the from
-- contract's text (both 0 for a quote from the title). Numbered after 0090
-- because it landed after it (it was written as 0080): a database already
-- at 0090 gets it too, and one that ran it as 0080 runs it again harmlessly.
CREATE TABLE IF NOT EXISTS contract_links (
    from_pk        INTEGER NOT NULL REFERENCES contracts(pk) ON DELETE CASCADE,
    to_pk          INTEGER NOT NULL REFERENCES contracts(pk) ON DELETE CASCADE,
    kind           TEXT NOT NULL CHECK (kind IN ('AMENDS', 'SUPPLEMENTS')),
    restates       INTEGER NOT NULL DEFAULT 0,
    confidence     REAL NOT NULL,
    evidence       TEXT NOT NULL DEFAULT '',
    evidence_start INTEGER NOT NULL DEFAULT 0,
    evidence_end   INTEGER NOT NULL DEFAULT 0,
    source         TEXT NOT NULL CHECK (source IN ('detected', 'manual')),
    PRIMARY KEY (from_pk, to_pk, kind),
    CHECK (from_pk <> to_pk)
);
CREATE INDEX IF NOT EXISTS contract_links_to ON contract_links(to_pk);
