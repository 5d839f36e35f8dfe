package neo4j

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// resolve adds entity resolution's statements to the Cypher lint dump.
func (d *dumper) resolve() {
	d.add("party infos", compilePartyInfos())
	d.add("party info", compilePartyInfo("acme"))
	d.add("merge lookup", statement{Cypher: resolveLookupCypher, Params: map[string]any{"ids": []any{"acme", "acme-inc"}}})
	for i, st := range compileMerge(mergeParty{id: "acme", name: "Acme Corp", key: "acme"},
		[]mergeParty{{id: "acme-holdings", name: "Acme Holdings", key: "acme holdings", aliases: []string{"ACME HOLDINGS"}}}) {
		d.add("merge "+string(rune('a'+i)), st)
	}
	d.add("resolution marks", statement{Cypher: resolutionMarksCypher})
	d.add("set resolution marks", statement{Cypher: setResolutionMarksCypher, Params: map[string]any{"rows": []any{map[string]any{"id": "acme", "mark": "x1-2"}}}})
	d.add("merged keys", statement{Cypher: mergedKeysCypher, Params: map[string]any{"keys": []any{"acme holdings"}}})
}

// A merge's spellings: every name and alias but the canonical name becomes
// an alias (once), their match keys are searched, and the keys other than
// the canonical party's own are alias keys.
func TestCompileMergeSpellings(t *testing.T) {
	sts := compileMerge(
		mergeParty{id: "globex", name: "Globex", key: "globex", aliases: []string{"GLOBEX"}},
		[]mergeParty{
			{id: "globex-holdings", name: "Globex Holdings Ltd", key: "globex holdings", aliases: []string{"Globex Holdings"}},
			{id: "initech", name: "Initech", key: "initech", aliases: []string{"INITECH", "GLOBEX"}},
		})
	if len(sts) != 4 {
		t.Fatalf("%d statements, want 4", len(sts))
	}
	got := sts[3].Params
	want := map[string]any{
		"canonical":  "globex",
		"aliases":    []any{"GLOBEX", "Globex Holdings", "Globex Holdings Ltd", "INITECH", "Initech"},
		"match_keys": []any{"globex", "globex holdings", "globex holdings ltd", "initech"},
		"alias_keys": []any{"globex holdings", "initech"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("canonical party's parameters (-want +got):\n%s", diff)
	}
	if ids := sts[0].Params["others"]; !cmp.Equal(ids, []any{"globex-holdings", "initech"}) {
		t.Errorf("others = %v", ids)
	}
	if sts := compileMerge(mergeParty{id: "globex", name: "Globex", key: "globex"}, nil); len(sts) != 0 {
		t.Errorf("merging nothing compiles %d statements, want none", len(sts))
	}
}
