package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

func TestExtractCypher(t *testing.T) {
	tests := []struct{ in, want string }{
		{"MATCH (n) RETURN n", "MATCH (n) RETURN n"},
		{"```cypher\nMATCH (n)\nRETURN n;\n```", "MATCH (n)\nRETURN n"},
		{"Here you go:\n```\nMATCH (n) RETURN n\n```\nThis counts nodes.", "MATCH (n) RETURN n"},
		{"  Cypher: MATCH (n) RETURN count(n);  ", "MATCH (n) RETURN count(n)"},
		{"```cypher\nMATCH (n) RETURN n", "MATCH (n) RETURN n"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := ExtractCypher(tt.in); got != tt.want {
			t.Errorf("ExtractCypher(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestText2CypherPromptGolden pins the prompt: schema, terminology,
// examples and question sections. Refresh with go test -run Prompt -update.
func TestText2CypherPromptGolden(t *testing.T) {
	schema := "Node labels and their properties:\n- Contract {id: String}\nRelationship types and their properties:\n- PARTY_TO {role: String}\nRelationship patterns:\n- (:Party)-[:PARTY_TO]->(:Contract)\n"
	got, err := Text2CypherPrompt(schema, "Which parties signed with Acme?", 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Schema\nNode labels", "## Terminology", "## Examples", "## Question\nWhich parties signed with Acme?\n", "Distributor", "Non-Compete & Exclusivity", "at most 50 rows"} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	path := filepath.Join("testdata", "text2cypher_prompt.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("prompt differs from %s (-want +got):\n%s", path, diff)
	}
}

// TestText2CypherExamplesAreReadOnly: every curated example passes the
// keyword check; the Neo4j test also plans and runs each one.
func TestText2CypherExamplesAreReadOnly(t *testing.T) {
	ex := Text2CypherExamples()
	if len(ex) < 5 {
		t.Fatalf("%d examples, want at least 5", len(ex))
	}
	for _, e := range ex {
		if e.Question == "" || e.Cypher == "" {
			t.Errorf("incomplete example %+v", e)
		}
		if err := CheckReadOnlyCypher(e.Cypher); err != nil {
			t.Errorf("example %q: %v", e.Question, err)
		}
	}
}

// fakeCypherStore is a CypherStore that records what reached it: Explain
// answers readOnly, RunRead waits runDelay and then fails with runErr, or
// returns one row.
type fakeCypherStore struct {
	readOnly bool
	runDelay time.Duration
	runErr   error

	mu             sync.Mutex
	explains, runs []string
}

func (f *fakeCypherStore) SchemaText(context.Context) (string, error) {
	return "Node labels and their properties:\n- Contract {id: String}\n", nil
}

func (f *fakeCypherStore) Explain(_ context.Context, cypher string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.explains = append(f.explains, cypher)
	return f.readOnly, nil
}

func (f *fakeCypherStore) RunRead(ctx context.Context, cypher string, _ map[string]any, _ int, _ time.Duration) ([]string, [][]any, bool, error) {
	f.mu.Lock()
	f.runs = append(f.runs, cypher)
	f.mu.Unlock()
	select {
	case <-time.After(f.runDelay):
	case <-ctx.Done():
		return nil, nil, false, ctx.Err()
	}
	if f.runErr != nil {
		return nil, nil, false, f.runErr
	}
	return []string{"n"}, [][]any{{1}}, false, nil
}

func (f *fakeCypherStore) seen() (explains, runs int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.explains), len(f.runs)
}

func newFakeText2Cypher(t *testing.T, store CypherStore, model llm.Model, timeout time.Duration) *Text2Cypher {
	t.Helper()
	t2c, err := NewText2Cypher(store, Text2CypherOptions{
		Model:   func(context.Context) (llm.Model, error) { return model, nil },
		Timeout: timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	return t2c
}

// TestText2CypherRefusesBeforeTheDatabase: no statement of the attack
// corpus reaches the store, not even its EXPLAIN. A refusal gets no repair
// round; a malformed statement gets one, as a database syntax error does,
// and a model that repeats it is refused again.
func TestText2CypherRefusesBeforeTheDatabase(t *testing.T) {
	for _, c := range cypherAttacks {
		if ExtractCypher(c.q) != c.q || c.q == "" || strings.HasPrefix(c.q, "//") {
			// The answer is trimmed of whitespace and a final semicolon
			// first, and an empty one is a different error.
			continue
		}
		store := &fakeCypherStore{readOnly: true}
		model := llmtest.NewScripted(llmtest.Text(c.q), llmtest.Text(c.q))
		_, err := newFakeText2Cypher(t, store, model, 0).Run(context.Background(), Text2CypherInput{Question: "Do it"})
		if !errors.Is(err, ErrCypherRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want a refusal saying %q", c.q, err, c.want)
		}
		if explains, runs := store.seen(); explains+runs != 0 {
			t.Errorf("%q: the store saw %d EXPLAINs and %d runs, want none", c.q, explains, runs)
		}
		want := 1
		if r := (*CypherRefusal)(nil); errors.As(err, &r) && r.Syntax {
			want = 2
		}
		if n := len(model.Requests()); n != want {
			t.Errorf("%q: %d model calls, want %d", c.q, n, want)
		}
	}
}

// TestText2CypherExplainIsTheSecondGuard: a statement the parser passes is
// still refused when the database plans it as a write.
func TestText2CypherExplainIsTheSecondGuard(t *testing.T) {
	store := &fakeCypherStore{readOnly: false}
	model := llmtest.NewScripted(llmtest.Text("MATCH (n) RETURN n"))
	_, err := newFakeText2Cypher(t, store, model, 0).Run(context.Background(), Text2CypherInput{Question: "Do it"})
	if !errors.Is(err, ErrCypherRefused) || !strings.Contains(err.Error(), "plan writes") {
		t.Errorf("err = %v, want the plan refusal", err)
	}
	if explains, runs := store.seen(); explains != 1 || runs != 0 {
		t.Errorf("%d EXPLAINs and %d runs, want 1 and 0", explains, runs)
	}
}

// TestText2CypherTimeoutIsNotRetried: a statement that runs into the time
// limit is run once, gets no repair round, and the error says why in one
// sentence.
func TestText2CypherTimeoutIsNotRetried(t *testing.T) {
	const timeout = 50 * time.Millisecond
	for name, store := range map[string]*fakeCypherStore{
		// The backend's own timeout error, after the whole limit.
		"server timeout": {readOnly: true, runDelay: timeout, runErr: errors.New("TransactionTimedOutClientConfiguration: the transaction has been terminated")},
		// A context deadline, at once.
		"deadline": {readOnly: true, runErr: fmt.Errorf("run read: %w", context.DeadlineExceeded)},
	} {
		t.Run(name, func(t *testing.T) {
			model := llmtest.NewScripted(
				llmtest.Text("UNWIND range(1, 1000000000) AS x RETURN count(x) AS n"),
				llmtest.Text("UNWIND range(1, 1000000000) AS x RETURN sum(x) AS n"),
			)
			_, err := newFakeText2Cypher(t, store, model, timeout).Run(context.Background(), Text2CypherInput{Question: "Count a lot"})
			if !errors.Is(err, ErrCypherTimeout) {
				t.Fatalf("err = %v, want ErrCypherTimeout", err)
			}
			if msg, _, _ := strings.Cut(err.Error(), "\n"); !strings.Contains(msg, "50ms time limit and is not run again") || strings.Count(msg, ". ") > 0 {
				t.Errorf("message %q, want one sentence naming the limit", msg)
			}
			if _, runs := store.seen(); runs != 1 {
				t.Errorf("the statement ran %d times, want once", runs)
			}
			if n := len(model.Requests()); n != 1 {
				t.Errorf("%d model calls, want 1 (no repair round after a timeout)", n)
			}
		})
	}
}

// TestText2CypherRepairsAFastFailure: a quick database error still earns
// the one repair round, unlike a timeout.
func TestText2CypherRepairsAFastFailure(t *testing.T) {
	store := &fakeCypherStore{readOnly: true, runErr: errors.New("Neo.ClientError.Statement.ArithmeticError: / by zero")}
	model := llmtest.NewScripted(llmtest.Text("RETURN 1/0 AS n"), llmtest.Text("RETURN 1 AS n"))
	_, err := newFakeText2Cypher(t, store, model, time.Second).Run(context.Background(), Text2CypherInput{Question: "Divide"})
	if err == nil || !strings.Contains(err.Error(), "corrected statement failed") {
		t.Errorf("err = %v, want the corrected statement's failure", err)
	}
	if _, runs := store.seen(); runs != 2 {
		t.Errorf("%d runs, want 2", runs)
	}
}
