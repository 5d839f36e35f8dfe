-- 0050_provenance: where each value of a contract merged from several
-- sources came from (contract.Contract.Provenance), as a JSON object of
-- field -> source label; NULL for a contract from one source.
ALTER TABLE contract_details ADD COLUMN provenance TEXT;
