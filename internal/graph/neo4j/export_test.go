package neo4j

// SchemaStatementsRun returns how many schema statements s's Open ran.
func (s *Store) SchemaStatementsRun() int64 { return s.schemaRuns.Load() }

// SchemaStatementCount is the number of statements of a full schema set-up.
func SchemaStatementCount() int { return len(schemaStatements()) }

// SchemaVersion is this binary's schema version, as the marker records it.
func SchemaVersion() string { return schemaVersion() }
