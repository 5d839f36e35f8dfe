-- 0070_unverified: values whose evidence could not be verified
-- (contract.UnverifiedValues), which queries leave out unless a filter
-- sets graph.Filter.IncludeUnverified. contracts.unverified holds one bit
-- per field (unverifiedBits in unverified.go), contract_parties.unverified
-- is 1 for an unverified party, and contract_details.unverified is the
-- list with the reasons as JSON, for results to show. Contracts stored
-- before this migration are flagged from their stored evidence on the
-- first Open after it (backfillUnverified).
ALTER TABLE contracts ADD COLUMN unverified INTEGER NOT NULL DEFAULT 0;
ALTER TABLE contract_parties ADD COLUMN unverified INTEGER NOT NULL DEFAULT 0;
ALTER TABLE contract_details ADD COLUMN unverified TEXT;
-- The covering indexes of filters and groupings cover the flags too.
DROP INDEX contracts_type;
CREATE INDEX contracts_type ON contracts(contract_type, effective_date, end_date, total_amount, duration_days, governing_law_pk, clause_bits, unverified);
DROP INDEX contract_parties_party;
CREATE INDEX contract_parties_party ON contract_parties(party_pk, contract_pk, country, contract_type, unverified);
DROP INDEX contract_parties_country;
CREATE INDEX contract_parties_country ON contract_parties(country, contract_pk, party_pk, unverified);
-- The default order of contract_search (effective date, newest first, an
-- unverified one as missing).
CREATE INDEX contracts_effective_fact ON contracts(iif(unverified & 2, NULL, effective_date));
