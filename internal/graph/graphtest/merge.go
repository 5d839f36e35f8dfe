package graphtest

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// mergeText is the text of the expert record of mergeRecords.
const mergeText = "DISTRIBUTOR AGREEMENT between Volta Corp. and Volta of Illinois LLC, dated July 7, 1999. " +
	"This Agreement is governed by the laws of the State of Illinois. Distributor shall buy at least 100 units a year."

// mergeRecords are two records of one contract, as the reference extraction
// and CUAD's expert annotations give it: the reference has the summary,
// scope, end date, duration and party locations; the expert record the
// text, verified clauses and another effective date.
func mergeRecords() (reference, expert *contract.Contract) {
	reference = &contract.Contract{
		ID: "merge-1", Title: "Distributor Agreement", ContractType: "Distributor", ExtractedBy: contract.ReferenceSource,
		Summary: "Exclusive distribution of Volta products in Illinois.", Scope: "Energy saver units",
		EffectiveDate: "1999-09-07", EndDate: "2009-09-07", Duration: "P10Y", DurationDays: intp(3653),
		TotalAmount: floatp(250000), Currency: "USD",
		GoverningLaw: &contract.Location{Country: "US", State: "IL"},
		SourcePath:   "contract_data.json",
		Parties: []contract.PartyRole{
			{Name: "Volta Corp.", Role: "Company", Location: &contract.Location{Country: "US", State: "IL", City: "Elk Grove Village"}},
			{Name: "Volta of Illinois LLC", Role: "Distributor", Location: &contract.Location{Country: "US", State: "IL", City: "Bridgeview"}},
		},
		Clauses: []contract.Clause{summaryClause("Renewal & Termination", "Ten years, renewable annually.")},
	}
	expert = &contract.Contract{
		ID: "merge-1", Title: "Distributor Agreement", ContractType: "Distribution", ExtractedBy: "cuad-v1",
		EffectiveDate: "1999-07-07", RenewalTerm: "P1Y", Text: mergeText, SourcePath: "full_contract_txt/merge-1.txt",
		GoverningLaw: &contract.Location{Country: "US", State: "IL", City: "Chicago"},
		Parties: []contract.PartyRole{
			{Name: "Volta Corp", Role: "Company"},
			{Name: "Volta of Illinois LLC (Distributor)", Role: "Distributor"},
		},
		Clauses: []contract.Clause{
			spanClause("Governing Law", mergeText, "governed by the laws of the State of Illinois"),
			spanClause("Minimum Commitment", mergeText, "Distributor shall buy at least 100 units a year"),
		},
		Chunks: []contract.Chunk{{Ord: 0, Text: mergeText, Start: 0, End: len(mergeText)}},
	}
	return reference, expert
}

// testSourceMerge puts the two records of mergeRecords in either order, and in
// one call, into new stores: every value of either survives where the
// other has none, expert values win conflicts, the three stores hold the
// same contract, re-putting either record changes nothing, and a source's
// new version replaces its own earlier values.
func testSourceMerge(t *testing.T, open func(t *testing.T) graph.Store) {
	ctx := context.Background()
	put := func(t *testing.T, s graph.Store, cs ...*contract.Contract) []graph.PutOutcome {
		t.Helper()
		out, err := s.PutContracts(ctx, cs)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	get := func(t *testing.T, s graph.Store) *contract.Contract {
		t.Helper()
		c, err := s.GetContract(ctx, "merge-1")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	var views []*contract.Contract
	var stats []graph.Stats
	for _, order := range []string{"reference first", "expert first", "one call"} {
		t.Run(order, func(t *testing.T) {
			s := open(t)
			defer s.Close()
			ref, exp := mergeRecords()
			var out []graph.PutOutcome
			switch order {
			case "reference first":
				put(t, s, ref)
				out = put(t, s, exp)
			case "expert first":
				put(t, s, exp)
				out = put(t, s, ref)
			default:
				out = put(t, s, ref, exp)[1:]
			}
			if out[0].Status != graph.PutMerged || out[0].Merge == nil {
				t.Fatalf("second put: %s (%v), merge %+v, want merged", out[0].Status, out[0].Err, out[0].Merge)
			}
			var conflicts []string
			for _, c := range out[0].Merge.Conflicts {
				conflicts = append(conflicts, c.Field+": "+c.Kept+" ("+c.KeptSource+") over "+c.Other+" ("+c.OtherSource+")")
			}
			wantConflicts := []string{
				"contract_type: Distribution (cuad-v1) over Distributor (legal-tech-chat)",
				"effective_date: 1999-07-07 (cuad-v1) over 1999-09-07 (legal-tech-chat)",
			}
			if diff := cmp.Diff(wantConflicts, conflicts); diff != "" {
				t.Errorf("conflicts (-want +got):\n%s", diff)
			}
			c := get(t, s)
			// Values only one source has survive; the expert's win conflicts.
			for _, f := range []struct{ name, got, want string }{
				{"summary", c.Summary, "Exclusive distribution of Volta products in Illinois."},
				{"scope", c.Scope, "Energy saver units"},
				{"end_date", c.EndDate, "2009-09-07"},
				{"duration", c.Duration, "P10Y"},
				{"renewal_term", c.RenewalTerm, "P1Y"},
				{"effective_date", c.EffectiveDate, "1999-07-07"},
				{"contract_type", c.ContractType, "Distribution"},
				{"currency", c.Currency, "USD"},
				{"extracted_by", c.ExtractedBy, "cuad-v1"},
				{"text", c.Text, mergeText},
				{"governing_law", c.GoverningLaw.String(), "Chicago, IL, US"},
			} {
				if f.got != f.want {
					t.Errorf("%s = %q, want %q", f.name, f.got, f.want)
				}
			}
			if c.DurationDays == nil || *c.DurationDays != 3653 || c.TotalAmount == nil || *c.TotalAmount != 250000 {
				t.Errorf("duration_days %v, total_amount %v", c.DurationDays, c.TotalAmount)
			}
			var parties []string
			for _, p := range c.Parties {
				parties = append(parties, p.Name+"|"+p.Role+"|"+p.Location.String())
			}
			wantParties := []string{"Volta Corp|Company|Elk Grove Village, IL, US", "Volta of Illinois LLC (Distributor)|Distributor|Bridgeview, IL, US"}
			if diff := cmp.Diff(wantParties, parties); diff != "" {
				t.Errorf("parties (-want +got):\n%s", diff)
			}
			var clauses []string
			for _, cl := range c.Clauses {
				clauses = append(clauses, cl.Type)
				if cl.Verified && c.Text[cl.Start:cl.End] != cl.Text {
					t.Errorf("clause %s claims a span that does not slice the text", cl.Type)
				}
			}
			if diff := cmp.Diff([]string{"Governing Law", "Minimum Commitment", "Renewal & Termination"}, clauses); diff != "" {
				t.Errorf("clause types (-want +got):\n%s", diff)
			}
			wantProv := map[string]string{
				"summary": contract.ReferenceSource, "scope": contract.ReferenceSource, "end_date": contract.ReferenceSource,
				"duration": contract.ReferenceSource, "total_amount": contract.ReferenceSource,
				"parties[volta].location": contract.ReferenceSource, "parties[volta of illinois llc distributor].location": contract.ReferenceSource,
				"clauses[2]": contract.ReferenceSource,
			}
			if diff := cmp.Diff(wantProv, c.Provenance); diff != "" {
				t.Errorf("provenance (-want +got):\n%s", diff)
			}
			// Re-putting either record, or what the store returns, is a no-op.
			ref, exp = mergeRecords()
			for _, o := range put(t, s, ref, exp, c) {
				if o.Status != graph.PutUnchanged {
					t.Errorf("re-put: %s (%v), want unchanged", o.Status, o.Err)
				}
			}
			st, err := s.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			views = append(views, c)
			stats = append(stats, st)
		})
	}
	if len(views) == 3 {
		ignoreIDs := cmp.FilterPath(func(p cmp.Path) bool {
			sf, ok := p.Last().(cmp.StructField)
			return ok && sf.Name() == "PartyID"
		}, cmp.Ignore())
		for i := 1; i < 3; i++ {
			if diff := cmp.Diff(views[0], views[i], ignoreIDs); diff != "" {
				t.Errorf("the merged contract depends on the order (-reference first +order %d):\n%s", i, diff)
			}
			if diff := cmp.Diff(stats[0], stats[i]); diff != "" {
				t.Errorf("the stats depend on the order (-reference first +order %d):\n%s", i, diff)
			}
		}
	}

	t.Run("same source replaces", func(t *testing.T) {
		s := open(t)
		defer s.Close()
		ref, exp := mergeRecords()
		put(t, s, ref, exp)
		// The reference's new version drops its scope and a party and
		// changes its summary: its own old values go, the expert's stay.
		ref, _ = mergeRecords()
		ref.Scope = ""
		ref.Summary = "Distribution of Volta products."
		ref.Parties = ref.Parties[:1]
		ref.Clauses = nil
		out := put(t, s, ref)
		if out[0].Status != graph.PutMerged {
			t.Fatalf("put: %s (%v), want merged", out[0].Status, out[0].Err)
		}
		c := get(t, s)
		if c.Scope != "" || c.Summary != "Distribution of Volta products." || c.RenewalTerm != "P1Y" || c.EffectiveDate != "1999-07-07" {
			t.Errorf("after the reference's new version: scope %q, summary %q, renewal %q, effective %q", c.Scope, c.Summary, c.RenewalTerm, c.EffectiveDate)
		}
		// Both parties stay (the expert lists both); the second has no
		// location any more, which only the reference gave.
		if len(c.Parties) != 2 || c.Parties[1].Location != nil || c.Parties[0].Location == nil {
			t.Errorf("parties = %+v", c.Parties)
		}
		if slices.ContainsFunc(c.Clauses, func(cl contract.Clause) bool { return cl.Type == "Renewal & Termination" }) || len(c.Clauses) != 2 {
			t.Errorf("clauses = %+v, want the expert's two only", c.Clauses)
		}
	})
}
