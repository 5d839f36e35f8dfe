-- 0075_party_names_version: a counter that every change to the parties'
-- ids, names or match keys bumps, by triggers, so that writes by any
-- process count. Typo-tolerant party matching keeps the names in memory and
-- reads them again only when it has changed (Store.PartyNamesVersion).
-- Cascaded alias deletes fire with their party's. Written to run again
-- on a database rolled back to an earlier version.
CREATE TABLE IF NOT EXISTS party_names_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT OR IGNORE INTO party_names_version (id, n) VALUES (1, 0);
CREATE TRIGGER IF NOT EXISTS party_names_insert AFTER INSERT ON parties
BEGIN UPDATE party_names_version SET n = n + 1; END;
CREATE TRIGGER IF NOT EXISTS party_names_delete AFTER DELETE ON parties
BEGIN UPDATE party_names_version SET n = n + 1; END;
CREATE TRIGGER IF NOT EXISTS party_names_update AFTER UPDATE OF id, name, match_key ON parties
BEGIN UPDATE party_names_version SET n = n + 1; END;
CREATE TRIGGER IF NOT EXISTS party_alias_keys_insert AFTER INSERT ON party_aliases
BEGIN UPDATE party_names_version SET n = n + 1; END;
CREATE TRIGGER IF NOT EXISTS party_alias_keys_delete AFTER DELETE ON party_aliases
BEGIN UPDATE party_names_version SET n = n + 1; END;
CREATE TRIGGER IF NOT EXISTS party_alias_keys_update AFTER UPDATE OF party_pk, match_key ON party_aliases
BEGIN UPDATE party_names_version SET n = n + 1; END;
