package resolve_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
	"github.com/contractgraph/contractgraph/internal/resolve"
)

// markingStore is what incremental resolution needs of a store.
type markingStore interface {
	graph.Store
	graph.PartyMerger
	graph.ResolutionMarker
}

// interruptingStore cancels its context once it has made after merges.
type interruptingStore struct {
	markingStore
	after  int
	cancel context.CancelFunc
}

func (s *interruptingStore) MergeParties(ctx context.Context, canonicalID string, others []string) error {
	if s.after == 0 {
		s.cancel()
		return ctx.Err()
	}
	s.after--
	return s.markingStore.MergeParties(ctx, canonicalID, others)
}

// unspaced is the name of party i%half, without its first space from i =
// half on: another party to the store, the same to resolution.
func unspaced(i, half int) string {
	if i >= half {
		return strings.Replace(partyName(i%half), " ", "", 1)
	}
	return partyName(i)
}

// resumeCorpus has 30 parties spelt two ways (so 30 merges) among 60 more.
func resumeCorpus() []*contract.Contract {
	var cs []*contract.Contract
	for i := range 60 {
		cs = append(cs, &contract.Contract{ID: fmt.Sprintf("c%03d", i), Parties: []contract.PartyRole{
			{Name: unspaced(i, 30), Role: "Licensor"}, {Name: partyName(1000 + i), Role: "Licensee"},
		}})
	}
	return cs
}

// TestResumeAfterInterrupt interrupts a resolution after some merges and
// runs it again: the second run compares only the parties the first left,
// and the store ends as one uninterrupted run leaves it; a third run has
// nothing to compare. Before resolution recorded its work, every run
// compared every party, and an import that changed nothing did not run it.
func TestResumeAfterInterrupt(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		testResume(t, openSQLite(t), openSQLite(t))
	})
	t.Run("neo4j", func(t *testing.T) {
		s := neo4jtest.Open(t) // skips without NEO4J_URI
		// The database is one: the reference run is SQLite's, which
		// TestResolveSameOnBothBackends shows plans as Neo4j does.
		testResume(t, s, openSQLite(t))
	})
}

func testResume(t *testing.T, s, reference markingStore) {
	ctx := context.Background()
	put(t, s, resumeCorpus()...)
	put(t, reference, resumeCorpus()...)
	want, err := resolve.Run(ctx, reference, resolve.Options{})
	if err != nil || len(want.Merges) != 30 {
		t.Fatalf("uninterrupted run: %v, %d merges, want 30", err, len(want.Merges))
	}

	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	first, err := resolve.Run(ictx, &interruptingStore{markingStore: s, after: 12, cancel: cancel}, resolve.Options{})
	if !errors.Is(err, context.Canceled) || first == nil || first.Made != 12 || first.MergedParties() != 12 {
		t.Fatalf("interrupted run: %v %+v, want 12 merges made and context.Canceled", err, first)
	}
	if first.Compared != first.Parties || first.Parties != 120 {
		t.Fatalf("first run compared %d of %d parties, want all 120", first.Compared, first.Parties)
	}

	second, err := resolve.Run(ctx, s, resolve.Options{})
	if err != nil || !second.Applied {
		t.Fatalf("resumed run: %v %+v", err, second)
	}
	// Left to compare: the 36 parties of the 18 merges not made. The 12
	// canonical parties merged before the interrupt were recorded with
	// their merges and the 60 parties that merge with nothing before them.
	if second.Compared != 36 || second.Made != 18 {
		t.Errorf("resumed run compared %d parties and made %d merges, want 36 and 18", second.Compared, second.Made)
	}
	gotParties, err := s.Parties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantParties, err := reference.Parties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantParties, gotParties); diff != "" {
		t.Errorf("parties after the resumed run (-uninterrupted +resumed):\n%s", diff)
	}
	third, err := resolve.Run(ctx, s, resolve.Options{})
	if err != nil || third.Compared != 0 || len(third.Merges) != 0 {
		t.Errorf("third run: %v, compared %d, %d merges; want nothing to do", err, third.Compared, len(third.Merges))
	}
	// A new contract makes its parties new or changed: only they are
	// compared, and a new spelling of a known party merges into it.
	put(t, s, &contract.Contract{ID: "late", Parties: []contract.PartyRole{{Name: strings.Replace(partyName(1003), " ", "", 1)}, {Name: partyName(5000)}}})
	fourth, err := resolve.Run(ctx, s, resolve.Options{})
	if err != nil || fourth.Compared != 2 || fourth.MergedParties() != 1 {
		t.Errorf("after a new contract: %v, compared %d, merged %d; want 2 and 1", err, fourth.Compared, fourth.MergedParties())
	}
}
