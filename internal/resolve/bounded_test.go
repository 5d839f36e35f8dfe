package resolve_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/resolve"
)

// Name parts of generated parties: many share words, and many names are
// one edit or a space apart, so that blocking meets large blocks.
var (
	heads = []string{"Apex", "Blue", "Summit", "Northwind", "Granite", "Silver", "Crescent", "Pioneer", "Harbor", "Vertex",
		"Atlas", "Cedar", "Aurora", "Beacon", "Cobalt", "Evergreen", "Falcon", "Horizon", "Ironwood", "Juniper"}
	mids  = []string{"", "River", "Ridge", "Bridge", "Wave", "Gate", "Star", "Stone", "Field", "Lake"}
	cores = []string{"Pharmaceuticals", "Logistics", "Software", "Energy", "Foods", "Media", "Networks", "Systems",
		"Capital", "Technologies"}
	forms = []string{"Inc.", "LLC", "Corp.", "L.P.", "Ltd"}
)

// partyName is the i-th generated party name: a company of the pools
// above, numbered once the pools run out, spelt with or without a space
// before its middle word.
func partyName(i int) string {
	h, m, c := heads[i%len(heads)], mids[i/len(heads)%len(mids)], cores[i/(len(heads)*len(mids))%len(cores)]
	base := h + m + " " + c
	if i%3 == 0 && m != "" {
		base = h + " " + m + " " + c
	}
	if n := i / (len(heads) * len(mids) * len(cores)); n > 0 {
		base += fmt.Sprintf(" %d", n)
	}
	return base + " " + forms[i%len(forms)]
}

// spelling is the name of party i%half, spelt another way (capitals,
// without a space) from i = half on.
func spelling(i, half int) string {
	name := partyName(i % half)
	if i >= half {
		if i%2 == 0 {
			return strings.ToUpper(name)
		}
		return strings.Replace(name, " ", "", 1)
	}
	return name
}

// manyPartyContract is one contract signed by n parties.
func manyPartyContract(id string, n int) *contract.Contract {
	c := &contract.Contract{ID: id, Title: "Consortium agreement"}
	for i := range n {
		c.Parties = append(c.Parties, contract.PartyRole{Name: partyName(i), Role: "Member"})
	}
	return c
}

func openSQLite(t testing.TB) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func put(t testing.TB, s graph.Store, cs ...*contract.Contract) {
	t.Helper()
	out, err := s.PutContracts(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Err != nil {
			t.Fatalf("put %s: %v", o.ID, o.Err)
		}
	}
}

// TestManyPartiesOnOneContract: one contract with 10,000 parties used to
// keep resolution running for minutes (co-parties listed per party, every
// pair of a block scored, vetoes checked member by member). Now the work
// grows linearly: few candidate pairs per party, none merged, since
// parties of one contract are never one entity.
func TestManyPartiesOnOneContract(t *testing.T) {
	const n = 10000
	s := openSQLite(t)
	put(t, s, manyPartyContract("consortium", n))
	start := time.Now()
	rep, err := resolve.Run(context.Background(), s, resolve.Options{})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d parties, %d pairs scored, %d merges in %s", rep.Parties, rep.Pairs, len(rep.Merges), took)
	if rep.Parties < n*9/10 {
		t.Fatalf("%d parties stored, want about %d", rep.Parties, n)
	}
	if len(rep.Merges) != 0 {
		t.Errorf("merged parties of one contract: %+v", rep.Merges[0])
	}
	if rep.Pairs > 40*n {
		t.Errorf("%d candidate pairs for %d parties: blocking is not bounded", rep.Pairs, n)
	}
	if took > 30*time.Second {
		t.Errorf("resolution took %s", took)
	}
}

// TestBlockingBounded plans 20,000 parties on contracts of their own whose
// names share words and are often one edit apart: the candidate pairs stay
// linear in the parties, and the spelling variants merge.
func TestBlockingBounded(t *testing.T) {
	const n = 20000
	ents := make([]*resolve.Entity, n)
	for i := range ents {
		ents[i] = &resolve.Entity{ID: fmt.Sprint(i), Name: spelling(i, n/2), ContractIDs: []string{fmt.Sprint("c", i)}}
	}
	start := time.Now()
	merges, pairs := resolve.Plan(ents, resolve.DefaultThreshold)
	t.Logf("%d entities: %d pairs, %d merges in %s", n, pairs, len(merges), time.Since(start))
	if pairs > 40*n {
		t.Errorf("%d candidate pairs for %d entities", pairs, n)
	}
	if len(merges) < n/4 {
		t.Errorf("%d spelling variants merged, want at least %d", len(merges), n/4)
	}
}

// TestRunStopsWhenCancelled cancels resolution of many parties while it
// compares them and while it merges, and wants it back within a second
// with the context's error, having kept what it merged.
func TestRunStopsWhenCancelled(t *testing.T) {
	s := openSQLite(t)
	var cs []*contract.Contract
	for i := range 6000 {
		cs = append(cs, &contract.Contract{ID: fmt.Sprintf("c%05d", i), Parties: []contract.PartyRole{{Name: spelling(i, 3000)}, {Name: partyName(10000 + i)}}})
	}
	put(t, s, cs...)
	for _, phase := range []string{resolve.PhaseRead, resolve.PhaseCompare, resolve.PhaseMerge} {
		t.Run(phase, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var cancelled time.Time
			progress := func(p resolve.Progress) {
				if p.Phase == phase && cancelled.IsZero() {
					cancelled = time.Now()
					cancel()
				}
			}
			rep, err := resolve.Run(ctx, s, resolve.Options{Progress: progress, All: true})
			if cancelled.IsZero() {
				t.Fatalf("phase %q never began: %v %+v", phase, err, rep)
			}
			if took := time.Since(cancelled); took > time.Second {
				t.Errorf("returned %s after the cancel", took)
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if rep != nil && rep.Made != 0 {
				t.Errorf("%d merges made after the cancel", rep.Made)
			}
		})
	}
}
