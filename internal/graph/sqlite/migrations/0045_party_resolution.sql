-- Entity resolution's marks: the fingerprint of each party as resolution
-- last compared it (graph.ResolutionMarker). A party's mark goes with it.
CREATE TABLE party_resolution (
    party_pk INTEGER PRIMARY KEY REFERENCES parties(pk) ON DELETE CASCADE,
    mark     TEXT NOT NULL
);
