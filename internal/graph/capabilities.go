package graph

// Capability says whether a store has one optional capability (an
// interface of this package it may implement) and what it is for.
type Capability struct {
	Name      string `json:"name"`
	Supported bool   `json:"supported"`
	Purpose   string `json:"purpose"`
}

// Capabilities lists the optional capabilities of this package and whether
// s has each, in a fixed order, for `contractgraph stats`.
func Capabilities(s Store) []Capability {
	_, statutes := s.(StatuteStore)
	_, statuteVectors := s.(StatuteVectorStore)
	_, merger := s.(PartyMerger)
	_, getter := s.(PartyGetter)
	_, marker := s.(ResolutionMarker)
	_, vectors := s.(VectorStore)
	_, chunks := s.(ChunkBackfiller)
	_, embeddings := s.(EmbeddingBackfiller)
	_, ids := s.(ContractIDLister)
	_, deadlines := s.(DeadlineSearcher)
	_, deleter := s.(ContractDeleter)
	_, names := s.(PartyNameLister)
	_, pages := s.(PageStore)
	_, links := s.(LinkStore)
	return []Capability{
		{"statutes", statutes, "statute_search and get_statute; risk reviews check citations against them"},
		{"statute vectors", statuteVectors, "statute_search fuses vector similarity with BM25"},
		{"entity resolution", merger, "resolve merges spellings of one party"},
		{"incremental resolution", marker, "resolve compares only parties new or changed since its last run, and resumes an interrupted one"},
		{"party lookup", getter, "party pages by id"},
		{"vector search", vectors, "clause_search fuses chunk vectors with BM25"},
		{"chunk backfill", chunks, "reindex chunks contracts stored without chunks"},
		{"embedding backfill", embeddings, "reindex --embeddings adds vectors by a new model"},
		{"contract ids", ids, "shell completion of contract ids"},
		{"deadline search", deadlines, "deadline_search, contractgraph deadlines and the calendar"},
		{"party names", names, "parties filters and party_search tolerate typos (Excte finds Excite Inc.)"},
		{"page images", pages, "the contract page shows scanned pages with the words of a clause boxed (OCR words, boxes and confidence kept)"},
		{"contract families", links, "families detect links amendments and supplements to their masters; families list shows them"},
		{"contract deletion", deleter, "delete removes contracts with their clauses, chunks and orphaned parties"},
	}
}
