package retrieve

import (
	"context"
	"embed"
	"fmt"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/llm"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// prompts holds each prompt file parsed alone (every file defines
// "system" and "user"); they are fixed at build time.
var prompts = map[string]*template.Template{
	"rerank.tmpl": template.Must(template.New("rerank.tmpl").ParseFS(promptFS, "prompts/rerank.tmpl")),
	"expand.tmpl": template.Must(template.New("expand.tmpl").ParseFS(promptFS, "prompts/expand.tmpl")),
}

// promptMessages renders a prompt file's "system" and "user" templates.
func promptMessages(file string, data any) ([]llm.Message, error) {
	tt := prompts[file]
	if tt == nil {
		return nil, fmt.Errorf("prompt %s: not embedded", file)
	}
	var sys, user strings.Builder
	if err := tt.ExecuteTemplate(&sys, "system", data); err != nil {
		return nil, fmt.Errorf("prompt %s: %w", file, err)
	}
	if err := tt.ExecuteTemplate(&user, "user", data); err != nil {
		return nil, fmt.Errorf("prompt %s: %w", file, err)
	}
	return []llm.Message{
		{Role: llm.RoleSystem, Content: strings.TrimSpace(sys.String())},
		{Role: llm.RoleUser, Content: strings.TrimSpace(user.String())},
	}, nil
}

// Bounds of the model stages: how many candidates a model sees, how much of
// each, and how long its reply may be.
const (
	DefaultModelCandidates   = 20
	MaxModelCandidates       = 50
	DefaultModelPassageBytes = 600
	rerankReplyTokens        = 256
	expandReplyTokens        = 200
)

// ModelReranker asks a chat model to rank the candidates listwise: it sees
// the query and the first MaxCandidates candidates, each clipped to
// PassageBytes, and replies with their numbers, most relevant first. The
// reply is schema-checked JSON; numbers out of range or repeated are
// dropped, and candidates it leaves out (or beyond MaxCandidates) keep
// their first-stage order after the ranked ones. Any model or parse error
// is returned, and the caller keeps the first-stage order: there is no
// repair round, so the cost is one call of bounded size.
type ModelReranker struct {
	Model llm.Model
	// MaxCandidates is how many candidates the model ranks; 0 means
	// DefaultModelCandidates, at most MaxModelCandidates.
	MaxCandidates int
	// PassageBytes clips each candidate; 0 means DefaultModelPassageBytes.
	PassageBytes int
	// Temperature and Seed are passed to every call (nil: provider default).
	Temperature *float64
	Seed        *int64
}

// rerankReply is the model's typed reply.
type rerankReply struct {
	Ranking []int `json:"ranking" jsonschema:"numbers of the relevant passages, most relevant first"`
}

type rerankPassage struct {
	N    int
	Text string
}

// Rerank implements Reranker. Scores are 1/rank of the model's order.
func (m ModelReranker) Rerank(ctx context.Context, q RerankQuery, cands []string) ([]int, []float64, error) {
	if m.Model == nil {
		return nil, nil, fmt.Errorf("model rerank: no model")
	}
	n := m.MaxCandidates
	if n <= 0 {
		n = DefaultModelCandidates
	}
	n = min(n, MaxModelCandidates, len(cands))
	if n == 0 {
		return nil, nil, nil
	}
	size := m.PassageBytes
	if size <= 0 {
		size = DefaultModelPassageBytes
	}
	data := struct {
		Query    string
		Passages []rerankPassage
	}{Query: clipBytes(q.Text, 1000)}
	for i := range n {
		data.Passages = append(data.Passages, rerankPassage{N: i + 1, Text: clipBytes(strings.Join(strings.Fields(cands[i]), " "), size)})
	}
	msgs, err := promptMessages("rerank.tmpl", data)
	if err != nil {
		return nil, nil, err
	}
	reply, _, err := llm.GenerateData[rerankReply](ctx, m.Model, &llm.Request{
		Messages: msgs, MaxTokens: rerankReplyTokens, Temperature: m.Temperature, Seed: m.Seed,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("model rerank: %w", err)
	}
	var order []int
	seen := make([]bool, n)
	for _, id := range reply.Ranking {
		if id < 1 || id > n || seen[id-1] {
			continue
		}
		seen[id-1] = true
		order = append(order, id-1)
	}
	scores := make([]float64, len(order))
	for i := range order {
		scores[i] = 1 / float64(i+1)
	}
	return order, scores, nil
}

// ModelExpander asks a chat model for other wordings of the query: at most
// MaxExpansions phrases, each at most 80 bytes, in a schema-checked JSON
// reply of at most 200 tokens. Phrases that are empty, too long, repeated
// or already in the query are dropped. Errors are returned; the Searcher
// then searches with the query (and the thesaurus, when it has one) alone.
type ModelExpander struct {
	Model       llm.Model
	Temperature *float64
	Seed        *int64
}

type expandReply struct {
	Phrases []string `json:"phrases" jsonschema:"other wordings contracts or statutes use for the query"`
}

// Expand implements Expander.
func (m ModelExpander) Expand(ctx context.Context, query string) ([]string, error) {
	if m.Model == nil {
		return nil, fmt.Errorf("model expansion: no model")
	}
	msgs, err := promptMessages("expand.tmpl", struct {
		Query string
		Max   int
	}{clipBytes(query, 1000), MaxExpansions / 2})
	if err != nil {
		return nil, err
	}
	reply, _, err := llm.GenerateData[expandReply](ctx, m.Model, &llm.Request{
		Messages: msgs, MaxTokens: expandReplyTokens, Temperature: m.Temperature, Seed: m.Seed,
	})
	if err != nil {
		return nil, fmt.Errorf("model expansion: %w", err)
	}
	return cleanExpansions(query, reply.Phrases), nil
}

// Expanders runs several expanders and joins their phrases, in order,
// bounded by MaxExpansions. An expander's error is returned with the
// phrases of the others, so that a failing model still leaves the
// thesaurus's.
type Expanders []Expander

// Expand implements Expander.
func (es Expanders) Expand(ctx context.Context, query string) ([]string, error) {
	var all []string
	var firstErr error
	for _, e := range es {
		ps, err := e.Expand(ctx, query)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		all = append(all, ps...)
	}
	return cleanExpansions(query, all), firstErr
}

// clipBytes cuts s to at most n bytes at a rune boundary, marking the cut.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
