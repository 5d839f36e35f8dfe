-- 0105_aggregates: counts that groupings and party searches would otherwise
-- recount from every row, maintained by triggers in the transaction of
-- each write, so that they are never stale and every writer (put, delete,
-- entity resolution's merges, the unverified flags) keeps them without
-- knowing about them. Queries read them only where they give the same
-- answer as the base tables (query.go); aggregates_test.go recounts each
-- from the base tables after every kind of write.

-- party_stats: per party, its distinct contracts (a contract counts once
-- however many roles the party has in it), all of them and those where the
-- party has a verified role (contract_parties.unverified = 0).
CREATE TABLE party_stats (
    party_pk           INTEGER PRIMARY KEY REFERENCES parties(pk) ON DELETE CASCADE,
    contracts          INTEGER NOT NULL,
    verified_contracts INTEGER NOT NULL
);
-- No index on the counts: each would be rewritten with every role an
-- import adds, and a scan of this narrow table is cheap (query.go reads
-- the names of the top parties only).

-- Each trigger asks whether another role of the same party in the same
-- contract exists through contract_parties_party (party_pk, contract_pk,
-- ...): a contract with thousands of roles must not scan them per role.
CREATE TRIGGER party_stats_insert AFTER INSERT ON contract_parties
BEGIN
    INSERT INTO party_stats(party_pk, contracts, verified_contracts)
    VALUES (NEW.party_pk,
        NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_party
            WHERE party_pk = NEW.party_pk AND contract_pk = NEW.contract_pk AND ord <> NEW.ord),
        NEW.unverified = 0 AND NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_party
            WHERE party_pk = NEW.party_pk AND contract_pk = NEW.contract_pk AND ord <> NEW.ord AND unverified = 0))
    ON CONFLICT(party_pk) DO UPDATE SET
        contracts = contracts + excluded.contracts,
        verified_contracts = verified_contracts + excluded.verified_contracts;
END;

CREATE TRIGGER party_stats_delete AFTER DELETE ON contract_parties
BEGIN
    UPDATE party_stats SET
        contracts = contracts - (NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_party
            WHERE party_pk = OLD.party_pk AND contract_pk = OLD.contract_pk)),
        verified_contracts = verified_contracts - (OLD.unverified = 0 AND NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_party
            WHERE party_pk = OLD.party_pk AND contract_pk = OLD.contract_pk AND unverified = 0))
    WHERE party_pk = OLD.party_pk;
END;

-- An update is the old row's removal then the new row's insertion, except
-- that a role that stays with its party and contract is still counted.
CREATE TRIGGER party_stats_update AFTER UPDATE OF party_pk, contract_pk, unverified ON contract_parties
BEGIN
    UPDATE party_stats SET
        contracts = contracts - ((OLD.party_pk <> NEW.party_pk OR OLD.contract_pk <> NEW.contract_pk)
            AND NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_party
                WHERE party_pk = OLD.party_pk AND contract_pk = OLD.contract_pk)),
        verified_contracts = verified_contracts - (OLD.unverified = 0
            AND (OLD.party_pk <> NEW.party_pk OR OLD.contract_pk <> NEW.contract_pk OR NEW.unverified <> 0)
            AND NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_party
                WHERE party_pk = OLD.party_pk AND contract_pk = OLD.contract_pk AND unverified = 0))
    WHERE party_pk = OLD.party_pk;
    INSERT INTO party_stats(party_pk, contracts, verified_contracts)
    VALUES (NEW.party_pk,
        (OLD.party_pk <> NEW.party_pk OR OLD.contract_pk <> NEW.contract_pk)
            AND NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_party
                WHERE party_pk = NEW.party_pk AND contract_pk = NEW.contract_pk AND ord <> NEW.ord),
        NEW.unverified = 0
            AND (OLD.party_pk <> NEW.party_pk OR OLD.contract_pk <> NEW.contract_pk OR OLD.unverified <> 0)
            AND NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_party
                WHERE party_pk = NEW.party_pk AND contract_pk = NEW.contract_pk AND ord <> NEW.ord AND unverified = 0))
    ON CONFLICT(party_pk) DO UPDATE SET
        contracts = contracts + excluded.contracts,
        verified_contracts = verified_contracts + excluded.verified_contracts;
END;

INSERT INTO party_stats(party_pk, contracts, verified_contracts)
    SELECT party_pk, count(DISTINCT contract_pk), count(DISTINCT iif(unverified = 0, contract_pk, NULL))
    FROM contract_parties GROUP BY party_pk;

-- period_counts: per month ('YYYY-MM', the first seven characters of the
-- date: the year, quarter and month groupings all read from them) of the
-- effective and end dates, the contracts with a date in it, all of them and
-- those whose date is verified (contracts.unverified bits 2 and 4, see
-- unverifiedBits). A month whose count falls to zero keeps its row.
CREATE TABLE period_counts (
    field              TEXT NOT NULL CHECK (field IN ('effective', 'end')),
    period             TEXT NOT NULL,
    contracts          INTEGER NOT NULL,
    verified_contracts INTEGER NOT NULL,
    PRIMARY KEY (field, period)
) WITHOUT ROWID;

CREATE TRIGGER period_counts_insert AFTER INSERT ON contracts
BEGIN
    INSERT INTO period_counts(field, period, contracts, verified_contracts)
    SELECT 'effective', substr(NEW.effective_date, 1, 7), 1, (NEW.unverified & 2) = 0 WHERE NEW.effective_date IS NOT NULL
    ON CONFLICT(field, period) DO UPDATE SET
        contracts = contracts + 1, verified_contracts = verified_contracts + excluded.verified_contracts;
    INSERT INTO period_counts(field, period, contracts, verified_contracts)
    SELECT 'end', substr(NEW.end_date, 1, 7), 1, (NEW.unverified & 4) = 0 WHERE NEW.end_date IS NOT NULL
    ON CONFLICT(field, period) DO UPDATE SET
        contracts = contracts + 1, verified_contracts = verified_contracts + excluded.verified_contracts;
END;

CREATE TRIGGER period_counts_delete AFTER DELETE ON contracts
BEGIN
    UPDATE period_counts SET contracts = contracts - 1, verified_contracts = verified_contracts - ((OLD.unverified & 2) = 0)
    WHERE field = 'effective' AND period = substr(OLD.effective_date, 1, 7);
    UPDATE period_counts SET contracts = contracts - 1, verified_contracts = verified_contracts - ((OLD.unverified & 4) = 0)
    WHERE field = 'end' AND period = substr(OLD.end_date, 1, 7);
END;

CREATE TRIGGER period_counts_update AFTER UPDATE OF effective_date, end_date, unverified ON contracts
BEGIN
    UPDATE period_counts SET contracts = contracts - 1, verified_contracts = verified_contracts - ((OLD.unverified & 2) = 0)
    WHERE field = 'effective' AND period = substr(OLD.effective_date, 1, 7);
    UPDATE period_counts SET contracts = contracts - 1, verified_contracts = verified_contracts - ((OLD.unverified & 4) = 0)
    WHERE field = 'end' AND period = substr(OLD.end_date, 1, 7);
    INSERT INTO period_counts(field, period, contracts, verified_contracts)
    SELECT 'effective', substr(NEW.effective_date, 1, 7), 1, (NEW.unverified & 2) = 0 WHERE NEW.effective_date IS NOT NULL
    ON CONFLICT(field, period) DO UPDATE SET
        contracts = contracts + 1, verified_contracts = verified_contracts + excluded.verified_contracts;
    INSERT INTO period_counts(field, period, contracts, verified_contracts)
    SELECT 'end', substr(NEW.end_date, 1, 7), 1, (NEW.unverified & 4) = 0 WHERE NEW.end_date IS NOT NULL
    ON CONFLICT(field, period) DO UPDATE SET
        contracts = contracts + 1, verified_contracts = verified_contracts + excluded.verified_contracts;
END;

INSERT INTO period_counts(field, period, contracts, verified_contracts)
    SELECT 'effective', substr(effective_date, 1, 7), count(*), count(*) FILTER (WHERE (unverified & 2) = 0)
    FROM contracts WHERE effective_date IS NOT NULL GROUP BY 2;
INSERT INTO period_counts(field, period, contracts, verified_contracts)
    SELECT 'end', substr(end_date, 1, 7), count(*), count(*) FILTER (WHERE (unverified & 4) = 0)
    FROM contracts WHERE end_date IS NOT NULL GROUP BY 2;

-- party_facets: per party, how many of its roles (contract_parties rows)
-- give each country and each contract type, for the most frequent country
-- and the contract types party searches show (fillParty) without reading
-- every role of a large party.
CREATE TABLE party_facets (
    party_pk INTEGER NOT NULL REFERENCES parties(pk) ON DELETE CASCADE,
    kind     TEXT NOT NULL CHECK (kind IN ('country', 'type')),
    value    TEXT NOT NULL,
    roles    INTEGER NOT NULL,
    PRIMARY KEY (party_pk, kind, value)
) WITHOUT ROWID;

CREATE TRIGGER party_facets_insert AFTER INSERT ON contract_parties
BEGIN
    INSERT INTO party_facets(party_pk, kind, value, roles)
    SELECT NEW.party_pk, 'country', NEW.country, 1 WHERE NEW.country IS NOT NULL AND NEW.country <> ''
    ON CONFLICT DO UPDATE SET roles = roles + 1;
    INSERT INTO party_facets(party_pk, kind, value, roles)
    SELECT NEW.party_pk, 'type', NEW.contract_type, 1 WHERE NEW.contract_type IS NOT NULL
    ON CONFLICT DO UPDATE SET roles = roles + 1;
END;

CREATE TRIGGER party_facets_delete AFTER DELETE ON contract_parties
BEGIN
    UPDATE party_facets SET roles = roles - 1 WHERE party_pk = OLD.party_pk AND kind = 'country' AND value = OLD.country;
    UPDATE party_facets SET roles = roles - 1 WHERE party_pk = OLD.party_pk AND kind = 'type' AND value = OLD.contract_type;
END;

CREATE TRIGGER party_facets_update AFTER UPDATE OF party_pk, country, contract_type ON contract_parties
BEGIN
    UPDATE party_facets SET roles = roles - 1 WHERE party_pk = OLD.party_pk AND kind = 'country' AND value = OLD.country;
    UPDATE party_facets SET roles = roles - 1 WHERE party_pk = OLD.party_pk AND kind = 'type' AND value = OLD.contract_type;
    INSERT INTO party_facets(party_pk, kind, value, roles)
    SELECT NEW.party_pk, 'country', NEW.country, 1 WHERE NEW.country IS NOT NULL AND NEW.country <> ''
    ON CONFLICT DO UPDATE SET roles = roles + 1;
    INSERT INTO party_facets(party_pk, kind, value, roles)
    SELECT NEW.party_pk, 'type', NEW.contract_type, 1 WHERE NEW.contract_type IS NOT NULL
    ON CONFLICT DO UPDATE SET roles = roles + 1;
END;

INSERT INTO party_facets(party_pk, kind, value, roles)
    SELECT party_pk, 'country', country, count(*) FROM contract_parties WHERE country IS NOT NULL AND country <> '' GROUP BY party_pk, country;
INSERT INTO party_facets(party_pk, kind, value, roles)
    SELECT party_pk, 'type', contract_type, count(*) FROM contract_parties WHERE contract_type IS NOT NULL GROUP BY party_pk, contract_type;

-- country_stats: per party country, its distinct contracts (once however
-- many of a contract's parties are located there), all of them and those
-- with a verified party there; the same NOT EXISTS pattern as party_stats,
-- through contract_parties_country (country, contract_pk, ...).
CREATE TABLE country_stats (
    country            TEXT PRIMARY KEY,
    contracts          INTEGER NOT NULL,
    verified_contracts INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER country_stats_insert AFTER INSERT ON contract_parties WHEN NEW.country IS NOT NULL AND NEW.country <> ''
BEGIN
    INSERT INTO country_stats(country, contracts, verified_contracts)
    VALUES (NEW.country,
        NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_country
            WHERE country = NEW.country AND contract_pk = NEW.contract_pk AND ord <> NEW.ord),
        NEW.unverified = 0 AND NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_country
            WHERE country = NEW.country AND contract_pk = NEW.contract_pk AND ord <> NEW.ord AND unverified = 0))
    ON CONFLICT(country) DO UPDATE SET
        contracts = contracts + excluded.contracts,
        verified_contracts = verified_contracts + excluded.verified_contracts;
END;

CREATE TRIGGER country_stats_delete AFTER DELETE ON contract_parties WHEN OLD.country IS NOT NULL AND OLD.country <> ''
BEGIN
    UPDATE country_stats SET
        contracts = contracts - (NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_country
            WHERE country = OLD.country AND contract_pk = OLD.contract_pk)),
        verified_contracts = verified_contracts - (OLD.unverified = 0 AND NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_country
            WHERE country = OLD.country AND contract_pk = OLD.contract_pk AND unverified = 0))
    WHERE country = OLD.country;
END;

-- An update as a removal then an insertion, as for party_stats; a country
-- that is NULL or '' on either side counts as no country.
CREATE TRIGGER country_stats_update AFTER UPDATE OF country, contract_pk, unverified ON contract_parties
BEGIN
    UPDATE country_stats SET
        contracts = contracts - ((OLD.country IS NOT NEW.country OR OLD.contract_pk <> NEW.contract_pk)
            AND NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_country
                WHERE country = OLD.country AND contract_pk = OLD.contract_pk)),
        verified_contracts = verified_contracts - (OLD.unverified = 0
            AND (OLD.country IS NOT NEW.country OR OLD.contract_pk <> NEW.contract_pk OR NEW.unverified <> 0)
            AND NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_country
                WHERE country = OLD.country AND contract_pk = OLD.contract_pk AND unverified = 0))
    WHERE country = OLD.country AND OLD.country <> '';
    INSERT INTO country_stats(country, contracts, verified_contracts)
    SELECT NEW.country,
        (OLD.country IS NOT NEW.country OR OLD.contract_pk <> NEW.contract_pk)
            AND NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_country
                WHERE country = NEW.country AND contract_pk = NEW.contract_pk AND ord <> NEW.ord),
        NEW.unverified = 0
            AND (OLD.country IS NOT NEW.country OR OLD.contract_pk <> NEW.contract_pk OR OLD.unverified <> 0)
            AND NOT EXISTS (SELECT 1 FROM contract_parties INDEXED BY contract_parties_country
                WHERE country = NEW.country AND contract_pk = NEW.contract_pk AND ord <> NEW.ord AND unverified = 0)
    WHERE NEW.country IS NOT NULL AND NEW.country <> ''
    ON CONFLICT(country) DO UPDATE SET
        contracts = contracts + excluded.contracts,
        verified_contracts = verified_contracts + excluded.verified_contracts;
END;

INSERT INTO country_stats(country, contracts, verified_contracts)
    SELECT country, count(DISTINCT contract_pk), count(DISTINCT iif(unverified = 0, contract_pk, NULL))
    FROM contract_parties WHERE country IS NOT NULL AND country <> '' GROUP BY country;

-- The currency of the amount, copied from contract_details (which keeps
-- it for results), so that amount metrics per currency read only the
-- narrow contracts table, and an index in the order of the contract-type
-- grouping by currency, so that it needs no sort (query.go,
-- typeMoneyQuery). Currency comes first so that filters on the contract
-- type keep choosing contracts_type, which covers them.
ALTER TABLE contracts ADD COLUMN currency TEXT;
UPDATE contracts SET currency = (SELECT currency FROM contract_details WHERE contract_pk = contracts.pk);
CREATE INDEX contracts_amount ON contracts(currency, contract_type, total_amount, unverified);
-- Governing-law filters test the flag without reading the table row.
DROP INDEX contracts_governing_law;
CREATE INDEX contracts_governing_law ON contracts(governing_law_pk, unverified);
