package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// NameText2Cypher is the text2cypher tool's name.
const NameText2Cypher = "text2cypher"

const text2CypherDescription = `Answer a question the typed tools cannot express by having a model write one read-only Cypher query over the live graph schema and running it (Neo4j backend only). Prefer contract_search, contract_aggregate, party_search, get_contract and clause_search; use this for multi-hop graph questions such as "which parties share a contract with Acme". Returns the cypher it ran, the result columns and rows (at most max_rows; truncated says more existed). Writing queries are refused.`

var text2CypherCompact = Compact{
	Description: `Answer a multi-hop graph question the other tools cannot express with one generated read-only Cypher query (Neo4j only). Returns cypher, columns and rows.`,
}

// CypherStore is the optional capability of a graph.Store that text2cypher
// needs; the Neo4j store provides it. It is checked with a type assertion.
type CypherStore interface {
	// SchemaText describes the live graph: labels and relationship types
	// with their properties, and the (start)-[type]->(end) patterns.
	SchemaText(ctx context.Context) (string, error)
	// Explain plans cypher without running it and reports whether the plan
	// only reads. A statement the database rejects is an error carrying
	// the database's message.
	Explain(ctx context.Context, cypher string) (readOnly bool, err error)
	// RunRead runs cypher in a read-only session with a timeout and
	// returns at most maxRows rows of JSON-ready values; truncated reports
	// that there were more.
	RunRead(ctx context.Context, cypher string, params map[string]any, maxRows int, timeout time.Duration) (columns []string, rows [][]any, truncated bool, err error)
}

// ErrCypherRefused is wrapped by text2cypher's error for a statement that
// would write or is otherwise not allowed to run.
var ErrCypherRefused = errors.New("cypher refused")

// ErrCypherTimeout is wrapped by text2cypher's error for a statement that
// ran out of time. It is not run again: a repaired statement would most
// likely time out too, and each try holds the database for the whole limit.
var ErrCypherTimeout = errors.New("cypher timed out")

// Text2Cypher defaults.
const (
	DefaultText2CypherRows    = 50
	DefaultText2CypherTimeout = 15 * time.Second
	maxQuestionBytes          = 2000
)

// Text2CypherOptions configure the text2cypher tool.
type Text2CypherOptions struct {
	// Model opens the model that writes the Cypher; it is called on the
	// tool's first use, so that listing the tools needs no model.
	Model func(ctx context.Context) (llm.Model, error)
	// MaxRows caps the rows returned; zero means DefaultText2CypherRows.
	MaxRows int
	// Timeout bounds running the statement; zero means DefaultText2CypherTimeout.
	Timeout time.Duration
	// Logger receives the generated statements at Debug; nil discards.
	Logger *slog.Logger
}

// Text2CypherInput is the input of text2cypher.
type Text2CypherInput struct {
	Question string `json:"question" jsonschema:"The question in plain language, e.g. 'Which parties share a contract with Acme?'"`
}

// Text2CypherResult is text2cypher's answer.
type Text2CypherResult struct {
	Cypher    string           `json:"cypher"`
	Columns   []string         `json:"columns"`
	Rows      []map[string]any `json:"rows"`
	Truncated bool             `json:"truncated"`
	// Repaired says the first statement failed and the model's corrected
	// one is what ran.
	Repaired bool `json:"repaired,omitempty"`
}

// Text2Cypher is the text2cypher tool over one store.
type Text2Cypher struct {
	store   CypherStore
	open    func(ctx context.Context) (llm.Model, error)
	maxRows int
	timeout time.Duration
	log     *slog.Logger

	mu    sync.Mutex
	model llm.Model
}

// AddText2Cypher adds the text2cypher tool to set when store offers
// CypherStore, and reports whether it did.
func AddText2Cypher(set *Set, store graph.Store, opts Text2CypherOptions) (bool, error) {
	cs, ok := store.(CypherStore)
	if !ok {
		return false, nil
	}
	t, err := NewText2Cypher(cs, opts)
	if err != nil {
		return false, err
	}
	if err := RegisterCompact(set, NameText2Cypher, text2CypherDescription, t.Run, tuneText2Cypher, text2CypherCompact); err != nil {
		return false, err
	}
	return true, nil
}

func tuneText2Cypher(s *jsonschema.Schema) {
	if p := s.Properties["question"]; p != nil {
		p.MinLength = jsonschema.Ptr(1)
		p.MaxLength = jsonschema.Ptr(maxQuestionBytes)
	}
}

// NewText2Cypher returns the tool over store.
func NewText2Cypher(store CypherStore, opts Text2CypherOptions) (*Text2Cypher, error) {
	if opts.Model == nil {
		return nil, errors.New("text2cypher: no model")
	}
	t := &Text2Cypher{store: store, open: opts.Model, maxRows: opts.MaxRows, timeout: opts.Timeout, log: opts.Logger}
	if t.maxRows <= 0 {
		t.maxRows = DefaultText2CypherRows
	}
	if t.timeout <= 0 {
		t.timeout = DefaultText2CypherTimeout
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	return t, nil
}

func (t *Text2Cypher) getModel(ctx context.Context) (llm.Model, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.model == nil {
		m, err := t.open(ctx)
		if err != nil {
			return nil, err
		}
		t.model = m
	}
	return t.model, nil
}

// Run answers in.Question: the model writes a statement from the live
// schema, the statement is checked (CheckReadOnlyCypher's allow-list, then
// EXPLAIN must say it only reads) and run in a read session with a row cap
// and a timeout. When the database rejects it, the model gets one repair
// round with the database's error; a refusal or a timeout gets none.
func (t *Text2Cypher) Run(ctx context.Context, in Text2CypherInput) (Text2CypherResult, error) {
	q := strings.TrimSpace(in.Question)
	switch {
	case q == "":
		return Text2CypherResult{}, &ArgError{Field: "question", Msg: "empty"}
	case len(q) > maxQuestionBytes:
		return Text2CypherResult{}, &ArgError{Field: "question", Msg: fmt.Sprintf("%d bytes, more than the limit of %d", len(q), maxQuestionBytes)}
	}
	model, err := t.getModel(ctx)
	if err != nil {
		return Text2CypherResult{}, fmt.Errorf("text2cypher: open model: %w", err)
	}
	schema, err := t.store.SchemaText(ctx)
	if err != nil {
		return Text2CypherResult{}, fmt.Errorf("text2cypher: %w", err)
	}
	prompt, err := Text2CypherPrompt(schema, q, t.maxRows)
	if err != nil {
		return Text2CypherResult{}, fmt.Errorf("text2cypher: %w", err)
	}
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: "You write Neo4j Cypher. Answer with exactly one read-only Cypher statement and nothing else."},
		{Role: llm.RoleUser, Content: prompt},
	}
	repaired := false
	for {
		cypher, err := t.generate(ctx, model, msgs)
		if err != nil {
			return Text2CypherResult{}, err
		}
		res, dbErr, err := t.check(ctx, cypher)
		if err != nil {
			return Text2CypherResult{}, err
		}
		if dbErr == nil {
			res.Repaired = repaired
			return res, nil
		}
		if repaired {
			return Text2CypherResult{}, fmt.Errorf("text2cypher: the corrected statement failed too: %w\nstatement: %s", dbErr, cypher)
		}
		// One repair round: the model sees its statement and the error,
		// the database's or the parser's for a malformed statement.
		repaired = true
		t.log.DebugContext(ctx, "text2cypher repair", "cypher", cypher, "error", dbErr)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: cypher},
			llm.Message{Role: llm.RoleUser, Content: "That statement was rejected:\n" + dbErr.Error() +
				"\nWrite a corrected statement for the same question. Answer with the Cypher statement only."})
	}
}

// generate asks the model and extracts the statement from its answer.
func (t *Text2Cypher) generate(ctx context.Context, model llm.Model, msgs []llm.Message) (string, error) {
	temp := 0.0
	resp, err := model.Generate(ctx, &llm.Request{Messages: msgs, Temperature: &temp, MaxTokens: 1024})
	if err != nil {
		return "", fmt.Errorf("text2cypher: model: %w", err)
	}
	cypher := ExtractCypher(resp.Message.Content)
	if cypher == "" {
		return "", fmt.Errorf("text2cypher: the model wrote no statement")
	}
	t.log.DebugContext(ctx, "text2cypher statement", "cypher", cypher)
	return cypher, nil
}

// check guards and runs one statement. A refusal or a timeout is err; a
// failure of the database to plan or run the statement is dbErr, which
// earns a repair.
func (t *Text2Cypher) check(ctx context.Context, cypher string) (res Text2CypherResult, dbErr, err error) {
	if err := CheckReadOnlyCypher(cypher); err != nil {
		if r := (*CypherRefusal)(nil); errors.As(err, &r) && r.Syntax {
			return res, err, nil // malformed, not forbidden: worth a repair
		}
		return res, nil, fmt.Errorf("text2cypher: %w\nstatement: %s", err, cypher)
	}
	readOnly, err := t.store.Explain(ctx, cypher)
	if err != nil {
		if ctx.Err() != nil {
			return res, nil, ctx.Err()
		}
		return res, err, nil
	}
	if !readOnly {
		return res, nil, fmt.Errorf("text2cypher: %w: its plan writes to the database; only reading queries are allowed\nstatement: %s", ErrCypherRefused, cypher)
	}
	start := time.Now()
	cols, rows, truncated, err := t.store.RunRead(ctx, cypher, nil, t.maxRows, t.timeout)
	if err != nil {
		if ctx.Err() != nil {
			return res, nil, ctx.Err()
		}
		// The store's error for a transaction timeout is the backend's
		// own, so a failure after the whole limit counts as one.
		if errors.Is(err, context.DeadlineExceeded) || time.Since(start) >= t.timeout {
			t.log.DebugContext(ctx, "text2cypher timeout", "cypher", cypher, "error", err)
			return res, nil, fmt.Errorf("text2cypher: %w: the query was stopped at the %s time limit and is not run again, so ask a narrower question\nstatement: %s", ErrCypherTimeout, t.timeout, cypher)
		}
		return res, err, nil
	}
	res = Text2CypherResult{Cypher: cypher, Columns: cols, Rows: make([]map[string]any, 0, len(rows)), Truncated: truncated}
	if res.Columns == nil {
		res.Columns = []string{}
	}
	for _, r := range rows {
		m := make(map[string]any, len(cols))
		for i, c := range cols {
			if i < len(r) {
				m[c] = r[i]
			}
		}
		res.Rows = append(res.Rows, m)
	}
	return res, nil, nil
}

// ExtractCypher returns the statement in a model's answer: the content of
// the first fenced code block if there is one, else the whole text, trimmed
// of whitespace, a leading "cypher" tag and a trailing semicolon.
func ExtractCypher(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "```"); i >= 0 {
		rest := s[i+3:]
		// Skip the fence's info string (e.g. "cypher").
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		} else {
			rest = ""
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			rest = rest[:j]
		}
		s = rest
	}
	s = strings.TrimSpace(s)
	if len(s) > 7 && strings.EqualFold(s[:7], "cypher:") {
		s = strings.TrimSpace(s[7:])
	}
	return strings.TrimSpace(strings.TrimSuffix(s, ";"))
}

//go:embed text2cypher_prompt.tmpl
var text2CypherPromptText string

var text2CypherPrompt = template.Must(template.New("text2cypher").Funcs(template.FuncMap{
	"join": strings.Join,
}).Parse(text2CypherPromptText))

//go:embed text2cypher_examples.json
var text2CypherExamplesJSON []byte

// CypherExample is one curated question with the Cypher that answers it
// over ContractGraph's schema.
type CypherExample struct {
	Question string `json:"question"`
	Cypher   string `json:"cypher"`
}

// Text2CypherExamples returns the curated few-shot examples of the prompt.
func Text2CypherExamples() []CypherExample {
	var ex []CypherExample
	if err := json.Unmarshal(text2CypherExamplesJSON, &ex); err != nil {
		// The file is embedded at build time; a test decodes it.
		panic(fmt.Sprintf("text2cypher_examples.json: %v", err))
	}
	return ex
}

// Text2CypherPrompt renders the prompt: the live schema, the terminology
// that maps the question's words to stored values, the curated examples and
// the question.
func Text2CypherPrompt(schema, question string, maxRows int) (string, error) {
	var b bytes.Buffer
	err := text2CypherPrompt.Execute(&b, map[string]any{
		"Schema":        strings.TrimSpace(schema),
		"ContractTypes": contract.ContractTypes,
		"ClauseGroups":  contract.ClauseGroups,
		"ClauseTypes":   clauseCategoryNames(),
		"Examples":      Text2CypherExamples(),
		"Question":      question,
		"MaxRows":       maxRows,
	})
	if err != nil {
		return "", fmt.Errorf("render prompt: %w", err)
	}
	return b.String(), nil
}

func clauseCategoryNames() []string {
	out := make([]string, len(contract.ClauseCategories))
	for i, c := range contract.ClauseCategories {
		out[i] = c.Name
	}
	return out
}
