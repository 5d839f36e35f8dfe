package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// openWatched opens path with a Progress that records every call.
func openWatched(t *testing.T, path string) (*Store, []Progress) {
	t.Helper()
	var seen []Progress
	s, err := OpenWith(path, Options{Progress: func(p Progress) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	return s, seen
}

// checkProgress checks that seen goes from the start of building the
// passage index (Done 0) to its end (Done == Total), never backwards, and
// counts total passages.
func checkProgress(t *testing.T, seen []Progress, total int64) {
	t.Helper()
	if len(seen) < 2 {
		t.Fatalf("progress %+v: want a start and an end", seen)
	}
	first, last := seen[0], seen[len(seen)-1]
	if first != (Progress{Step: StepPassageIndex, Total: total}) || last != (Progress{Step: StepPassageIndex, Done: total, Total: total}) {
		t.Errorf("progress from %+v to %+v; want from 0 to %d of %d passages", first, last, total, total)
	}
	if !slices.IsSortedFunc(seen, func(a, b Progress) int { return int(a.Done - b.Done) }) {
		t.Errorf("progress went backwards: %+v", seen)
	}
}

// passageCount counts the passages the index covers, as FTS5 holds them.
func passageCount(t *testing.T, s *Store) int64 {
	t.Helper()
	var n int64
	if err := s.wdb.QueryRow(`SELECT count(*) FROM passage_fts`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOpenReportsPassageIndexBuild checks that an Open that builds the
// passage index (for a store whose passages predate it) tells Progress
// from start to end, builds it whole, and that an Open with nothing to
// build says nothing.
func TestOpenReportsPassageIndexBuild(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	s, seen := openWatched(t, path)
	if len(seen) != 0 {
		t.Errorf("a new store reported %+v", seen)
	}
	putAll(t, s, indexTestContracts(t, 3, 12)...)
	if _, err := s.wdb.Exec(`DELETE FROM passage_terms; DELETE FROM passage_postings; UPDATE passage_stats SET passages = 0, tokens = 0, built = 0`); err != nil {
		t.Fatal(err)
	}
	total := passageCount(t, s)
	s.Close()

	s, seen = openWatched(t, path)
	defer s.Close()
	checkProgress(t, seen, total)
	checkPassageIndex(t, s)
	s.Close()
	again, seen := openWatched(t, path)
	defer again.Close()
	if len(seen) != 0 {
		t.Errorf("an Open with an index built by today's rules reported %+v", seen)
	}
}

// TestOpenRebuildsForOtherTokenizerRules checks that a store whose
// passage index other tokenizer rules built (passage_stats.built is
// another version than passageRules) is indexed again on Open, so that
// its count of unchecked passages is today's: a passage with a character
// the old rules vouched for (U+10330, Gothic ahsa) counts once the new
// rules are unsure of it.
func TestOpenRebuildsForOtherTokenizerRules(t *testing.T) {
	ctx := context.Background()
	const ahsa = 0x10330 // past the BMP, whose verdicts checkedBMP keeps from its first use
	path := filepath.Join(t.TempDir(), "graph.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cs := indexTestContracts(t, 4, 6)
	cs[0].Clauses[0].Text += " a Gothic letter \U00010330 at the end"
	putAll(t, s, cs...)
	stats := func(s *Store) (passages, unchecked, built int64) {
		t.Helper()
		if err := s.wdb.QueryRowContext(ctx, `SELECT passages, unchecked, built FROM passage_stats`).Scan(&passages, &unchecked, &built); err != nil {
			t.Fatal(err)
		}
		return passages, unchecked, built
	}
	if _, n, _ := stats(s); n != 0 {
		t.Fatalf("%d unchecked passages; want none", n)
	}
	total := passageCount(t, s)
	// Stored by other rules, as a store of an earlier release would be.
	if _, err := s.wdb.Exec(`UPDATE passage_stats SET built = ?`, passageRules+1); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Today's rules doubt ahsa.
	old := fts5Differs
	defer func() { fts5Differs = old }()
	i, _ := slices.BinarySearchFunc(old, rune(ahsa), func(r [2]rune, x rune) int { return int(r[0] - x) })
	if i > 0 && old[i-1][1] >= ahsa {
		t.Fatalf("U+10330 is in fts5Differs already (%U..%U)", old[i-1][0], old[i-1][1])
	}
	fts5Differs = slices.Insert(slices.Clone(old), i, [2]rune{ahsa, ahsa})
	if ftsTokens("\U00010330", func([]byte) {}) {
		t.Fatal("the changed rules still vouch for U+10330")
	}
	s, seen := openWatched(t, path)
	defer s.Close()
	checkProgress(t, seen, total)
	if passages, n, built := stats(s); passages != total || n != 1 || built != passageRules {
		t.Errorf("after Open: %d passages, %d unchecked, built by rules %d; want %d, 1 (the ahsa's), %d",
			passages, n, built, total, passageRules)
	}
}
