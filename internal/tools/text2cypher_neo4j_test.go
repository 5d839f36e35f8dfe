package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// cypherFixture is a small graph: Acme signs with two partners, one in China.
func cypherFixture() []*contract.Contract {
	amount := 5e6
	return []*contract.Contract{
		{ID: "k1", Title: "Acme distribution", ContractType: "Distributor", EffectiveDate: "2019-03-01", EndDate: "2024-03-01",
			TotalAmount: &amount, Currency: "USD", GoverningLaw: &contract.Location{Country: "US", State: "DE"},
			Parties: []contract.PartyRole{
				{Name: "Acme, Inc.", Role: "Supplier", Location: &contract.Location{Country: "US", State: "CA"}},
				{Name: "Shenzhen Widgets Co., Ltd.", Role: "Distributor", Location: &contract.Location{Country: "CN"}},
			},
			Clauses: []contract.Clause{{Type: "Non-Compete", Summary: "No competing products."}}},
		{ID: "k2", Title: "Acme services", ContractType: "Service", EffectiveDate: "2020-05-01",
			Parties: []contract.PartyRole{
				{Name: "ACME Inc", Role: "Customer"},
				{Name: "Globex Corporation", Role: "Provider", Location: &contract.Location{Country: "US", State: "NY"}},
			}},
	}
}

// cypherStore is the Neo4j test store loaded with cypherFixture.
func cypherStore(t *testing.T) graph.Store {
	t.Helper()
	s := neo4jtest.Open(t)
	out, err := s.PutContracts(context.Background(), cypherFixture())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Status != graph.PutCreated {
			t.Fatalf("put %s: %s %v", o.ID, o.Status, o.Err)
		}
	}
	return s
}

func newText2Cypher(t *testing.T, s graph.Store, model llm.Model) *tools.Set {
	t.Helper()
	set := tools.New(s, tools.Options{})
	ok, err := tools.AddText2Cypher(set, s, tools.Text2CypherOptions{
		Model:   func(context.Context) (llm.Model, error) { return model, nil },
		MaxRows: 10, Timeout: 10 * time.Second,
	})
	if err != nil || !ok {
		t.Fatalf("AddText2Cypher = %v, %v; want the tool added on Neo4j", ok, err)
	}
	return set
}

func callText2Cypher(set *tools.Set, q string) (tools.Text2CypherResult, error) {
	args, _ := json.Marshal(map[string]string{"question": q})
	raw, err := set.Call(context.Background(), tools.NameText2Cypher, args)
	var res tools.Text2CypherResult
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	return res, err
}

func nodeCount(t *testing.T, s graph.Store) int {
	t.Helper()
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range st.Nodes {
		n += v
	}
	return n
}

func TestText2CypherOnlyOnNeo4j(t *testing.T) {
	lite, err := sqlite.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	set := tools.New(lite, tools.Options{})
	ok, err := tools.AddText2Cypher(set, lite, tools.Text2CypherOptions{
		Model: func(context.Context) (llm.Model, error) { return llmtest.NewScripted(), nil },
	})
	if err != nil || ok || slices.Contains(set.Names(), tools.NameText2Cypher) {
		t.Errorf("on SQLite: AddText2Cypher = %v, %v, tools %v; want no text2cypher", ok, err, set.Names())
	}
}

func TestText2CypherAnswers(t *testing.T) {
	s := cypherStore(t)
	model := llmtest.NewScripted(llmtest.Text("```cypher\n" +
		"MATCH (a:Party)-[:PARTY_TO]->(c:Contract)<-[:PARTY_TO]-(p:Party)\n" +
		"WHERE any(k IN a.match_keys WHERE k CONTAINS 'acme') AND p <> a\n" +
		"RETURN p.name AS party, c.id AS contract ORDER BY party;\n```"))
	res, err := callText2Cypher(newText2Cypher(t, s, model), "Who signed with Acme?")
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"party": "Globex Corporation", "contract": "k2"},
		{"party": "Shenzhen Widgets Co., Ltd.", "contract": "k1"},
	}
	if len(res.Rows) != 2 || res.Rows[0]["party"] != want[0]["party"] || res.Rows[1]["contract"] != want[1]["contract"] {
		t.Errorf("rows = %v, want %v", res.Rows, want)
	}
	if !slices.Equal(res.Columns, []string{"party", "contract"}) || res.Truncated || res.Repaired {
		t.Errorf("columns %v truncated %v repaired %v", res.Columns, res.Truncated, res.Repaired)
	}
	if !strings.HasPrefix(res.Cypher, "MATCH (a:Party)") || strings.Contains(res.Cypher, "```") || strings.HasSuffix(res.Cypher, ";") {
		t.Errorf("cypher = %q, want the statement without fences or semicolon", res.Cypher)
	}
	// The prompt carried the live schema, the terminology and the question.
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(reqs))
	}
	prompt := reqs[0].Messages[len(reqs[0].Messages)-1].Content
	for _, want := range []string{"(:Party)-[:PARTY_TO]->(:Contract)", "(:Contract)-[:HAS_GOVERNING_LAW]->(:Location)",
		"match_keys", "## Terminology", "## Examples", "## Question\nWho signed with Acme?"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if strings.Contains(prompt, "content_hash") {
		t.Error("prompt shows the bookkeeping property content_hash")
	}
}

func TestText2CypherRowCap(t *testing.T) {
	s := cypherStore(t)
	model := llmtest.NewScripted(llmtest.Text("UNWIND range(1, 100) AS n RETURN n"))
	res, err := callText2Cypher(newText2Cypher(t, s, model), "Count to a hundred")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 10 || !res.Truncated {
		t.Errorf("%d rows, truncated %v; want 10 and true", len(res.Rows), res.Truncated)
	}
}

func TestText2CypherRefusesWrites(t *testing.T) {
	s := cypherStore(t)
	before := nodeCount(t, s)
	tests := []struct{ name, cypher, want string }{
		// The parser refuses these before the database sees them.
		{"create", "CREATE (:Pwned {by: 'model'})", "CREATE"},
		{"detach delete", "match (n) detach delete n", "DETACH DELETE"},
		{"set", "MATCH (p:Party) SET p.name = 'x' RETURN p", "SET"},
		{"merge", "MERGE (p:Party {id: 'x'}) RETURN p", "MERGE"},
		{"load csv", "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", "LOAD CSV"},
		{"apoc write", "CALL apoc.create.node(['Pwned'], {}) YIELD node RETURN node", "apoc.create.node"},
		// No keyword gives this one away, but it is not a listed procedure.
		{"writing procedure", "CALL db.createLabel('Pwned')", "CALL db.createLabel at 1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := llmtest.NewScripted(llmtest.Text(tt.cypher))
			_, err := callText2Cypher(newText2Cypher(t, s, model), "Do something")
			if !errors.Is(err, tools.ErrCypherRefused) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a refusal mentioning %q", err, tt.want)
			}
			if n := len(model.Requests()); n != 1 {
				t.Errorf("%d model calls, want 1 (a refusal gets no repair round)", n)
			}
		})
	}
	if after := nodeCount(t, s); after != before {
		t.Errorf("nodes %d -> %d: a refused statement changed the graph", before, after)
	}
}

func TestText2CypherRepairsOnce(t *testing.T) {
	s := cypherStore(t)
	model := llmtest.NewScripted(
		llmtest.Text("MATCH (c:Contract) RETURN count(c) AS"), // a syntax error only the database sees
		llmtest.Text("MATCH (c:Contract) RETURN count(c) AS n"),
	)
	res, err := callText2Cypher(newText2Cypher(t, s, model), "How many contracts?")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Repaired || len(res.Rows) != 1 || res.Rows[0]["n"] != float64(2) {
		t.Errorf("result %+v, want the repaired count 2", res)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want exactly 2", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	if !strings.Contains(last, "rejected") || !strings.Contains(last, "SyntaxError") {
		t.Errorf("repair request %q does not carry the database error", last)
	}

	// A second failure ends it: no third call.
	bad := llmtest.NewScripted(
		llmtest.Text("MATCH (c:Contract RETURN c"),
		llmtest.Text("MATCH (c:Contract) RETURN c.id AS id ORDER BY nosuchvariable"),
	)
	if _, err := callText2Cypher(newText2Cypher(t, s, bad), "List contracts"); err == nil || !strings.Contains(err.Error(), "corrected statement failed") {
		t.Errorf("err = %v, want the corrected statement's failure", err)
	}
	if n := len(bad.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
}

// TestText2CypherExamplesRun plans and runs every curated few-shot example
// against the real schema: each must be read-only and valid.
func TestText2CypherExamplesRun(t *testing.T) {
	s := cypherStore(t)
	cs := s.(tools.CypherStore)
	for _, ex := range tools.Text2CypherExamples() {
		ro, err := cs.Explain(context.Background(), ex.Cypher)
		if err != nil || !ro {
			t.Errorf("example %q: read-only %v, %v", ex.Question, ro, err)
			continue
		}
		if _, _, _, err := cs.RunRead(context.Background(), ex.Cypher, nil, 50, 10*time.Second); err != nil {
			t.Errorf("example %q: %v", ex.Question, err)
		}
	}
}

// countingCypherStore passes everything to the real store and counts the
// statements that reached it.
type countingCypherStore struct {
	tools.CypherStore

	mu             sync.Mutex
	explains, runs int
}

func (c *countingCypherStore) Explain(ctx context.Context, cypher string) (bool, error) {
	c.mu.Lock()
	c.explains++
	c.mu.Unlock()
	return c.CypherStore.Explain(ctx, cypher)
}

func (c *countingCypherStore) RunRead(ctx context.Context, cypher string, params map[string]any, maxRows int, timeout time.Duration) ([]string, [][]any, bool, error) {
	c.mu.Lock()
	c.runs++
	c.mu.Unlock()
	return c.CypherStore.RunRead(ctx, cypher, params, maxRows, timeout)
}

func (c *countingCypherStore) seen() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.explains + c.runs
}

func runText2Cypher(t *testing.T, cs tools.CypherStore, model llm.Model, timeout time.Duration, q string) (tools.Text2CypherResult, error) {
	t.Helper()
	t2c, err := tools.NewText2Cypher(cs, tools.Text2CypherOptions{
		Model:   func(context.Context) (llm.Model, error) { return model, nil },
		MaxRows: 10, Timeout: timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	return t2c.Run(context.Background(), tools.Text2CypherInput{Question: q})
}

// TestText2CypherRefusesAdminCommands is issue 16's attack corpus against
// the real server: administration that EXPLAIN calls read-only, writes
// hidden behind a comment or a second statement, procedures that are not
// the index look-ups. None reaches the database, which is unchanged, and a
// transaction of another session survives TERMINATE TRANSACTIONS with its
// id.
func TestText2CypherRefusesAdminCommands(t *testing.T) {
	s := cypherStore(t)
	before := nodeCount(t, s)

	// Another session's open transaction, tagged so that it can be found.
	ctx := context.Background()
	cfg := neo4jtest.Config(t)
	d, err := driver.NewDriverWithContext(cfg.URI, driver.BasicAuth(cfg.Username, cfg.Password, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(ctx)
	victimSess := d.NewSession(ctx, driver.SessionConfig{DatabaseName: cfg.Database})
	defer victimSess.Close(ctx)
	victim, err := victimSess.BeginTransaction(ctx, driver.WithTxMetadata(map[string]any{"test": "text2cypher-victim"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := victim.Run(ctx, "RETURN 1", nil); err != nil {
		t.Fatal(err)
	}
	ids, err := driver.ExecuteQuery(ctx, d, "SHOW TRANSACTIONS YIELD transactionId, metaData WHERE metaData.test = 'text2cypher-victim' RETURN transactionId",
		nil, driver.EagerResultTransformer, driver.ExecuteQueryWithDatabase(cfg.Database))
	if err != nil || len(ids.Records) != 1 {
		t.Fatalf("find the victim transaction: %v, %v", ids, err)
	}
	victimID, _ := ids.Records[0].Get("transactionId")

	tests := []struct{ cypher, want string }{
		{"SHOW TRANSACTIONS", "SHOW TRANSACTIONS at 1:1"},
		{"SHOW TRANSACTIONS YIELD transactionId, currentQuery, clientAddress, username RETURN *", "SHOW TRANSACTIONS at 1:1"},
		{fmt.Sprintf("TERMINATE TRANSACTIONS '%s'", victimID), "TERMINATE TRANSACTIONS at 1:1"},
		{fmt.Sprintf("terminate transaction '%s'", victimID), "TERMINATE TRANSACTION at 1:1"},
		{"SHOW SETTINGS", "SHOW SETTINGS at 1:1"},
		{"SHOW PROCEDURES", "SHOW PROCEDURES at 1:1"},
		{"SHOW USERS", "SHOW USERS at 1:1 administers the server"},
		{"Show Users", "SHOW USERS at 1:1"},
		{"USE system SHOW USERS", "USE at 1:1"},
		{"CALL dbms.listConfig() YIELD name RETURN name", "CALL dbms.listConfig at 1:1"},
		{fmt.Sprintf("CALL dbms.killTransaction('%s')", victimID), "CALL dbms.killTransaction at 1:1"},
		{"CALL apoc.meta.schema() YIELD value RETURN value", "CALL apoc.meta.schema at 1:1"},
		{"CALL db.createLabel('Pwned')", "CALL db.createLabel at 1:1"},
		{"MATCH (n) /* */ CREATE (x:Pwned) RETURN x", "CREATE at 1:17"},
		{"mAtCh (n) cReAtE (:Pwned)", "CREATE at 1:11"},
		{"MATCH (n) RETURN count(n); CREATE (:Pwned)", "; at 1:26"},
		{"LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", "LOAD CSV at 1:1"},
		{"MATCH (c:Contract) WITH collect(c) AS cs FOREACH (x IN cs | SET x.title = 'pwned')", "FOREACH at 1:42"},
		{"MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1 ROWS", "DETACH DELETE at 1:22"},
		{"MATCH (n) CALL (n) { RETURN n.id AS id } IN TRANSACTIONS OF 1 ROWS RETURN id", "CALL { ... } IN TRANSACTIONS at 1:42"},
		{"EXPLAIN MATCH (n) RETURN n", "EXPLAIN at 1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.cypher, func(t *testing.T) {
			cs := &countingCypherStore{CypherStore: s.(tools.CypherStore)}
			model := llmtest.NewScripted(llmtest.Text(tt.cypher), llmtest.Text("MATCH (n) RETURN count(n) AS n"))
			_, err := runText2Cypher(t, cs, model, 10*time.Second, "Do something")
			if !errors.Is(err, tools.ErrCypherRefused) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a refusal saying %q", err, tt.want)
			}
			if n := cs.seen(); n != 0 {
				t.Errorf("%d statements reached the database, want none", n)
			}
			if n := len(model.Requests()); n != 1 {
				t.Errorf("%d model calls, want 1 (a refusal gets no repair round)", n)
			}
		})
	}
	if after := nodeCount(t, s); after != before {
		t.Errorf("nodes %d -> %d: a refused statement changed the graph", before, after)
	}
	// The other session's transaction was not terminated.
	if _, err := victim.Run(ctx, "RETURN 2", nil); err != nil {
		t.Errorf("the victim transaction was terminated: %v", err)
	}
	if err := victim.Commit(ctx); err != nil {
		t.Errorf("commit the victim transaction: %v", err)
	}
}

// TestText2CypherTrickyReadsRun: a comment holding CREATE is stripped, not
// refused, and keywords in strings, quoted names and property keys are
// names; the database agrees that every read of the parser's corpus plans
// as read-only, and the graph is unchanged.
func TestText2CypherTrickyReadsRun(t *testing.T) {
	s := cypherStore(t)
	before := nodeCount(t, s)
	for _, q := range []string{
		"MATCH (c:Contract) RETURN c.id AS id ORDER BY id // CREATE (x:Pwned)",
		"MATCH (c:Contract) /* DELETE c */ RETURN c.id AS id ORDER BY id",
		"match (c:Contract) where c.title <> 'DELETE me; CREATE (:Pwned)' return c.id as id order by id",
		"MATCH (c:Contract) RETURN c.id AS id, c.`set` AS `SET`, c {.title, delete: 1} AS m, c.created AS created ORDER BY id",
		"MATCH (c:Contract) OPTIONAL MATCH (c)-[:HAS_CLAUSE]->(cl:Clause) WITH cl.start AS start, c.id AS id RETURN id ORDER BY id",
	} {
		model := llmtest.NewScripted(llmtest.Text(q))
		res, err := callText2Cypher(newText2Cypher(t, s, model), "List contracts")
		if err != nil {
			t.Errorf("%q: %v", q, err)
			continue
		}
		if len(res.Rows) != 2 || res.Rows[0]["id"] != "k1" || res.Rows[1]["id"] != "k2" {
			t.Errorf("%q: rows %v, want k1 and k2", q, res.Rows)
		}
	}
	cs := s.(tools.CypherStore)
	for _, q := range tools.CypherReads {
		ro, err := cs.Explain(context.Background(), q)
		if err != nil || !ro {
			t.Errorf("EXPLAIN %q: read-only %v, %v", q, ro, err)
		}
	}
	if after := nodeCount(t, s); after != before {
		t.Errorf("nodes %d -> %d", before, after)
	}
}

// TestText2CypherTimeoutRunsOnce: a statement that runs into the time limit
// on the real server runs once and is not handed back for repair.
func TestText2CypherTimeoutRunsOnce(t *testing.T) {
	s := cypherStore(t)
	cs := &countingCypherStore{CypherStore: s.(tools.CypherStore)}
	model := llmtest.NewScripted(
		llmtest.Text("UNWIND range(1, 2000000000) AS x WITH x WHERE x % 7 = 100 RETURN count(x) AS n"),
		llmtest.Text("UNWIND range(1, 2000000000) AS x RETURN sum(x) AS n"),
	)
	start := time.Now()
	_, err := runText2Cypher(t, cs, model, time.Second, "Count to two billion")
	if !errors.Is(err, tools.ErrCypherTimeout) || !strings.Contains(err.Error(), "not run again") {
		t.Fatalf("err = %v, want ErrCypherTimeout", err)
	}
	if cs.runs != 1 || len(model.Requests()) != 1 {
		t.Errorf("%d runs and %d model calls, want 1 and 1", cs.runs, len(model.Requests()))
	}
	t.Logf("timed out after %s: %v", time.Since(start).Round(time.Millisecond), err)
}

// TestText2CypherReadOnlyConnection: with a read-only user configured the
// store opens a second connection for model-written statements, and a user
// the server does not know is an error naming it.
func TestText2CypherReadOnlyConnection(t *testing.T) {
	cypherStore(t) // locks the test database and loads the fixture
	cfg := neo4jtest.Config(t)
	// A community server has no roles; the same user stands in for the
	// read-only one, which is enough to show that its connection is used.
	cfg.ReadOnlyUsername, cfg.ReadOnlyPassword = cfg.Username, cfg.Password
	ro, err := neo4j.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	model := llmtest.NewScripted(llmtest.Text("MATCH (c:Contract) RETURN count(c) AS n"))
	res, err := callText2Cypher(newText2Cypher(t, ro, model), "How many contracts?")
	if err != nil || len(res.Rows) != 1 || res.Rows[0]["n"] != float64(2) {
		t.Errorf("result %+v, %v; want the count 2", res, err)
	}

	cfg.ReadOnlyUsername = "contractgraph_no_such_reader"
	if bad, err := neo4j.Open(context.Background(), cfg); err == nil {
		bad.Close()
		t.Error("Open with an unknown read-only user succeeded")
	} else if !strings.Contains(err.Error(), "read-only user contractgraph_no_such_reader") {
		t.Errorf("err = %v, want it to name the read-only user", err)
	}
}
