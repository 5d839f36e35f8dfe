package neo4j

// The graph schema's names, the allow-list every statement is built from;
// the Cypher lint checks the compiler's statements against them.
var (
	schemaLabels            = []string{"Contract", "Party", "Location", "Clause", "Chunk", "Statute", schemaMarkerLabel, countsLabel}
	schemaRelationshipTypes = []string{"PARTY_TO", "HAS_LOCATION", "HAS_GOVERNING_LAW", "HAS_CLAUSE", "HAS_CHUNK", "AMENDS", "SUPPLEMENTS"}
	schemaPropertyKeys      = []string{
		// Contract
		"id", "title", "summary", "contract_type", "effective_date", "end_date", "duration", "duration_days",
		"renewal_term", "notice_period", "total_amount", "currency", "scope", "source_path", "sha256",
		"extracted_by", "extracted_at", "text", "content_hash", "party_count", "usage_input_tokens",
		"usage_output_tokens", "evidence", "clause_kinds", "party_countries",
		"renewal_kind", "renewal_count", "termination_notice", "deadline_first", "deadline_last",
		"unverified_fields", "unverified_values", "verified_party_countries",
		// Party
		"name", "normalized_name", "aliases", "match_keys", "match_text", "contract_count", "alias_keys", "resolve_mark",
		// The maintained aggregates (aggregates.go)
		"verified_contract_count", "facet_keys", "facet_roles", "writes", "names_epoch", "names_version", "count_keys", "count_contracts", "count_verified",
		"law_kind_keys", "law_kind_contracts", "law_kind_verified", "country_keys", "country_contracts", "country_verified",
		"amount_types", "amount_currencies", "amount_flags", "amount_contracts", "amount_amounts", "amount_int_sums",
		"amount_abs_sums", "amount_inexact", "amount_durations", "amount_duration_sums", "amount_duration_outliers",
		// Location
		"country", "state", "city", "address",
		// Clause and Chunk
		"ord", "type", "group", "start", "end", "verified", "embedding", "embedding_model",
		// PARTY_TO
		"role", "location_id", "unverified",
		// AMENDS and SUPPLEMENTS
		"restates", "confidence", "quote", "quote_start", "quote_end", "source",
		// Statute (besides id, text, content_hash and the embedding's)
		"jurisdiction", "code", "number", "heading", "url",
	}
	// writeRowKeys are the keys of the UNWIND row maps the write statements
	// read (row.key, row.contract_id, ...). The linter cannot tell a map
	// from a node, so it is told these names too.
	writeRowKeys = []string{"key", "n", "contract_id", "location_id", "match_key", "props", "mark", "parties", "from_id", "to_id",
		"roles", "clauses", "chunks", "governing_law", "verified", "keys"}
)
