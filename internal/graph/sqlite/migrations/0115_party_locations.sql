-- 0115_party_locations: the index of a party's roles holds the role's
-- location too. HAS_LOCATION (Stats, the dashboard's counts) counts the
-- distinct (party, location) pairs of the roles through the view
-- party_locations; without the location in an index, that read every role
-- row in the index's order, a random lookup each (5.6 s at a million
-- contracts in C SQLite), and with it it reads the index alone (0.26 s).
-- Roles are inserted into this index where they were before: the location
-- is its last column.
DROP INDEX contract_parties_party;
CREATE INDEX contract_parties_party ON contract_parties(party_pk, contract_pk, country, contract_type, unverified, location_pk);
