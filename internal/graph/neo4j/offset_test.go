package neo4j

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// TestOffsetCompilesToSkip pins contract_search paging: the offset skips
// rows after the full ordering (ties broken by id) and travels as a
// parameter; out-of-range offsets are refused before reaching the server.
func TestOffsetCompilesToSkip(t *testing.T) {
	cs, err := compileContractSearch(graph.ContractQuery{OrderBy: graph.OrderPartyCount, Desc: true, Limit: 5, Offset: 50})
	if err != nil {
		t.Fatal(err)
	}
	want := "ORDER BY c.party_count IS NULL, c.party_count DESC, c.id ASC SKIP $p1 LIMIT $p0 WITH collect(c)"
	if !strings.Contains(cs.examples.Cypher, want) {
		t.Errorf("%s\nlacks %q", cs.examples.Cypher, want)
	}
	if diff := cmp.Diff(map[string]any{"p0": 5, "p1": 50}, map[string]any(cs.examples.Params)); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if strings.Contains(cs.count.Cypher, "SKIP") {
		t.Errorf("the count must not skip: %s", cs.count.Cypher)
	}
	for _, off := range []int{-1, graph.MaxOffset + 1} {
		if _, err := compileContractSearch(graph.ContractQuery{Limit: 5, Offset: off}); err == nil || !strings.Contains(err.Error(), "offset") {
			t.Errorf("offset %d: err = %v, want an offset range error", off, err)
		}
	}
}
