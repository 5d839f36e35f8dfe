package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func userVersion(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestOpenAppliesMigrationsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		t.Fatal(err)
	}
	newest := ms[len(ms)-1].version
	for range 2 { // the second Open finds the schema current and changes nothing
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if got := userVersion(t, path); got != newest {
			t.Fatalf("user_version = %d, want %d", got, newest)
		}
	}
	var mode string
	db, _ := sql.Open("sqlite", path)
	defer db.Close()
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q (%v), want wal", mode, err)
	}
}

func TestMigrationFailureKeepsPreviousVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	src := fstest.MapFS{
		"0001_a.sql": {Data: []byte("CREATE TABLE a (x INTEGER);")},
		"0002_b.sql": {Data: []byte("CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);")},
	}
	_, err := open(path, src, Options{})
	if err == nil || !strings.Contains(err.Error(), "0002_b.sql") {
		t.Fatalf("open with a broken migration: err = %v, want one naming 0002_b.sql", err)
	}
	if got := userVersion(t, path); got != 1 {
		t.Errorf("user_version = %d, want 1 (the failed step rolled back)", got)
	}
	db, _ := sql.Open("sqlite", path)
	defer db.Close()
	var n int
	db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'b'`).Scan(&n)
	if n != 0 {
		t.Error("table b of the failed migration exists")
	}
}

func TestMigrationNames(t *testing.T) {
	for name, src := range map[string]fstest.MapFS{
		"unnumbered": {"init.sql": {Data: []byte("SELECT 1;")}},
		"zero":       {"0000_init.sql": {Data: []byte("SELECT 1;")}},
		"duplicate":  {"0001_a.sql": {Data: []byte("SELECT 1;")}, "01_b.sql": {Data: []byte("SELECT 1;")}},
	} {
		if _, err := loadMigrations(src); err == nil {
			t.Errorf("%s: loadMigrations accepted %v", name, src)
		}
	}
}

func TestNewerDatabaseRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, _ := sql.Open("sqlite", path)
	if _, err := db.Exec("PRAGMA user_version = 9999"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of a newer database: err = %v, want a 'newer' error", err)
	}
}

func TestPathWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a ?b#c%20")
	path := filepath.Join(dir, "graph.db")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.PutContracts(ctx, []*contract.Contract{{ID: "x"}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not created at %s: %v", path, err)
	}
}

func TestPutGetRoundTrip(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	days, amount := 730, 1250000.5
	text := "This Agreement is governed by the laws of the State of New York. Either party may terminate."
	in := &contract.Contract{
		ID: "c-1", Title: "Supply Agreement", Summary: "Supply of widgets.", ContractType: "Supply",
		EffectiveDate: "2019-10-01", EndDate: "2021-09-30", Duration: "P2Y", DurationDays: &days,
		RenewalTerm: "P1Y", NoticePeriod: "P30D", TotalAmount: &amount, Currency: "USD", Scope: "Widgets",
		SourcePath: "in/c-1.txt", SHA256: "abc", ExtractedBy: "test", ExtractedAt: "2026-01-02T03:04:05Z",
		GoverningLaw: &contract.Location{Country: "US", State: "NY"},
		Parties: []contract.PartyRole{
			{Name: "  Acme   Corp. ", Role: "Supplier", Location: &contract.Location{Country: "US", State: "DE", City: "Wilmington"}},
			{Name: "Beta GmbH", Role: "Buyer", Location: &contract.Location{}},
		},
		Clauses: []contract.Clause{
			{Type: "Governing Law", Text: text[:64], Start: 0, End: 64, Verified: true},
			{ID: "own-id", Type: "Renewal & Termination", Summary: "Either party may terminate."},
		},
		Chunks:   []contract.Chunk{{Ord: 0, Text: text, Start: 0, End: len(text), Embedding: []float32{0.5, -1}}},
		Text:     text,
		Evidence: []contract.Evidence{{Field: "governing_law", Value: "NY", Quote: "State of New York", Start: 46, End: 63, Verified: true}},
		Usage:    &contract.TokenUsage{InputTokens: 10, OutputTokens: 3},
	}
	out, err := s.PutContracts(ctx, []*contract.Contract{in})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]graph.PutOutcome{{ID: "c-1", Status: graph.PutCreated}}, out); diff != "" {
		t.Fatalf("outcome (-want +got):\n%s", diff)
	}
	got, err := s.GetContract(ctx, "c-1")
	if err != nil {
		t.Fatal(err)
	}
	want := *in
	want.Parties = []contract.PartyRole{
		{PartyID: "acme", Name: "Acme Corp.", Role: "Supplier", Location: &contract.Location{Country: "US", State: "DE", City: "Wilmington"}},
		{PartyID: "beta", Name: "Beta GmbH", Role: "Buyer"},
	}
	want.Clauses = []contract.Clause{
		{ID: "c-1#clause-1", Type: "Governing Law", Group: contract.GroupGeneral, Text: text[:64], Start: 0, End: 64, Verified: true},
		{ID: "own-id", Type: "Renewal & Termination", Group: contract.GroupRenewalTermination, Summary: "Either party may terminate."},
	}
	want.Chunks = []contract.Chunk{{ID: "c-1#chunk-1", Ord: 0, Text: text, Start: 0, End: len(text)}}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Fatalf("GetContract (-want +got):\n%s", diff)
	}
	// What GetContract returns is the canonical form: putting it back changes nothing,
	// except that embeddings are not returned and so count as a change.
	got.Chunks[0].Embedding = []float32{0.5, -1}
	out, err = s.PutContracts(ctx, []*contract.Contract{got})
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Status != graph.PutUnchanged {
		t.Errorf("re-put of GetContract's result: %s (%v), want unchanged", out[0].Status, out[0].Err)
	}
}

// A failure in the middle of writing a contract (here a trigger rejecting
// its second clause, after its row, parties and first clause are written)
// rolls back that contract alone.
func TestWriteFailureRollsBackOneContract(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if _, err := s.wdb.Exec(`CREATE TRIGGER boom BEFORE INSERT ON clauses WHEN NEW.type = 'Boom'
		BEGIN SELECT RAISE(ABORT, 'boom clause'); END`); err != nil {
		t.Fatal(err)
	}
	mk := func(id, party string, types ...string) *contract.Contract {
		c := &contract.Contract{ID: id, Title: id + " title", Parties: []contract.PartyRole{{Name: party, Location: &contract.Location{Country: "NZ"}}}}
		for _, typ := range types {
			c.Clauses = append(c.Clauses, contract.Clause{Type: typ, Summary: "clause of " + id})
		}
		return c
	}
	out, err := s.PutContracts(ctx, []*contract.Contract{
		mk("a", "Alpha Party", "Insurance"),
		mk("b", "Bravo Only Party", "Insurance", "Boom"),
		mk("c", "Charlie Party", "Insurance"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range out {
		got = append(got, o.ID+":"+string(o.Status))
	}
	if diff := cmp.Diff([]string{"a:created", "b:failed", "c:created"}, got); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	if !strings.Contains(out[1].Err.Error(), "boom clause") || !strings.Contains(out[1].Err.Error(), `"b"`) {
		t.Errorf("failure = %v, want the trigger's message and the contract id", out[1].Err)
	}
	for _, q := range []string{
		`SELECT count(*) FROM contracts WHERE id = 'b'`,
		`SELECT count(*) FROM parties WHERE name = 'Bravo Only Party'`,
		`SELECT count(*) FROM clauses WHERE summary = 'clause of b'`,
		`SELECT count(*) FROM contract_fts WHERE contract_fts MATCH '"b"'`,
		`SELECT count(*) FROM passage_fts WHERE passage_fts MATCH 'b'`,
	} {
		var n int
		if err := s.rdb.QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s = %d after the failed put, want 0", q, n)
		}
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Nodes["Contract"] != 2 || st.Nodes["Party"] != 2 || st.Nodes["Clause"] != 2 || st.Nodes["Location"] != 1 {
		t.Errorf("stats = %+v", st)
	}
}

// Clause filters test a bit per clause kind on the contract row; kinds past
// the 62 bits fall back to the clauses table and must filter the same.
func TestClauseKindsBeyondBits(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	var cs []*contract.Contract
	for i := range 70 {
		cs = append(cs, &contract.Contract{
			ID:      fmt.Sprintf("k%02d", i),
			Clauses: []contract.Clause{{Type: fmt.Sprintf("Custom Kind %02d", i)}, {Type: "Shared Kind"}},
		})
	}
	out, err := s.PutContracts(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Status != graph.PutCreated {
			t.Fatalf("%s: %s %v", o.ID, o.Status, o.Err)
		}
	}
	var kinds int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM clause_kinds`).Scan(&kinds); err != nil || kinds != maxKindBits {
		t.Fatalf("clause kinds with bits = %d (%v), want %d", kinds, err, maxKindBits)
	}
	for _, tc := range []struct {
		types []string
		want  int // with every type; 70 - want without any when there is one type
	}{
		{[]string{"Custom Kind 00"}, 1}, // has a bit
		{[]string{"Custom Kind 69"}, 1}, // beyond the bits
		{[]string{"Shared Kind"}, 70},   // has a bit
		{[]string{"Shared Kind", "Custom Kind 65"}, 1},
		{[]string{"Custom Kind 01", "Custom Kind 66"}, 0},
		{[]string{"Never Seen"}, 0},
	} {
		r, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{ClauseTypes: tc.types}, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if r.TotalCount != tc.want {
			t.Errorf("clause types %v: %d contracts, want %d", tc.types, r.TotalCount, tc.want)
		}
		if len(tc.types) > 1 {
			continue
		}
		r, err = s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{WithoutClauseTypes: tc.types}, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if r.TotalCount != 70-tc.want {
			t.Errorf("without clause types %v: %d contracts, want %d", tc.types, r.TotalCount, 70-tc.want)
		}
	}
	// Without two kinds, one past the bits: neither may be present.
	r, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{WithoutClauseTypes: []string{"Custom Kind 00", "Custom Kind 68"}}, Limit: 5})
	if err != nil || r.TotalCount != 68 {
		t.Errorf("without Custom Kind 00 and 68: %d contracts (%v), want 68", r.TotalCount, err)
	}
	// A store that fails while the filter is compiled fails the query.
	s.rdb.Close()
	for _, f := range []graph.Filter{{ClauseTypes: []string{"Shared Kind"}}, {WithoutClauseTypes: []string{"Shared Kind"}}} {
		if _, err := compileFilter(ctx, s.rdb, f); err == nil || !strings.Contains(err.Error(), `clause kind "Shared Kind"`) {
			t.Errorf("compileFilter(%+v) on a closed database = %v, want the clause kind's error", f, err)
		}
	}
}

// The same contract twice in one batch: the second version replaces the
// first, including the full-text rows the batch has not indexed yet.
func TestSameContractTwiceInOneBatch(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	v1 := &contract.Contract{ID: "dup", Summary: "first zebra version", Clauses: []contract.Clause{{Type: "Insurance", Summary: "zebra insurance"}}}
	v2 := &contract.Contract{ID: "dup", Summary: "second yak version", Clauses: []contract.Clause{{Type: "Insurance", Summary: "yak insurance"}}}
	out, err := s.PutContracts(ctx, []*contract.Contract{v1, v2})
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Status != graph.PutCreated || out[1].Status != graph.PutUpdated {
		t.Fatalf("outcomes = %+v", out)
	}
	for word, want := range map[string]int{"zebra": 0, "yak": 1} {
		r, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{SummarySearch: word}, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if r.TotalCount != want {
			t.Errorf("summary search %q: %d, want %d", word, r.TotalCount, want)
		}
		h, err := s.SearchClauses(ctx, graph.ClauseQuery{Query: word, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != want {
			t.Errorf("clause search %q: %d hits, want %d", word, len(h), want)
		}
	}
	var n int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM passage_fts WHERE passage_fts MATCH 'insurance'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("indexed passages = %d (%v), want 1", n, err)
	}
}

// A clause search whose filter matches many contracts ranks all passages
// and filters the best, looking deeper when the best belong to other
// contracts; it must find the same passages as a narrow search would.
func TestClauseSearchLooksDeeper(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	var cs []*contract.Contract
	for i := range 300 { // strong matches, filtered out
		cs = append(cs, &contract.Contract{ID: fmt.Sprintf("o%03d", i), ContractType: "Other",
			Clauses: []contract.Clause{{Type: "Insurance", Summary: "omega omega omega"}}})
	}
	for i := range 250 { // weak matches, wanted
		cs = append(cs, &contract.Contract{ID: fmt.Sprintf("s%03d", i), ContractType: "Supply",
			Clauses: []contract.Clause{{Type: "Insurance", Summary: "omega is one word among many other words of this rather long clause"}}})
	}
	if _, err := s.PutContracts(ctx, cs); err != nil {
		t.Fatal(err)
	}
	hits, err := s.SearchClauses(ctx, graph.ClauseQuery{Query: "omega", Filter: graph.Filter{ContractType: "Supply"}, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ContractID)
	}
	// Equal scores: ties go by contract id.
	if diff := cmp.Diff([]string{"s000", "s001", "s002", "s003", "s004"}, ids); diff != "" {
		t.Fatalf("hits (-want +got):\n%s", diff)
	}
	narrow, err := s.SearchClauses(ctx, graph.ClauseQuery{Query: "omega", Filter: graph.Filter{ContractIDs: []string{"s000"}}, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(narrow) != 1 || narrow[0] != hits[0] {
		t.Errorf("narrow search = %+v, want %+v", narrow, hits[0])
	}
}
