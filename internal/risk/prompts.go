package risk

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/tools"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var promptFuncs = template.FuncMap{
	"join": strings.Join,
	"json": func(v any) (string, error) {
		b, err := json.MarshalIndent(v, "", "  ")
		return string(b), err
	},
}

// Prompt files; each defines the templates "system" and "user".
const (
	promptRules    = "rules.tmpl"
	promptAnalyst  = "analyst.tmpl"
	promptReviewer = "reviewer.tmpl"
	promptSummary  = "summary.tmpl"
	promptBatch    = "batch.tmpl"
)

// prompts holds each stage's parsed templates; they are fixed at build time
// and never modified.
var prompts = func() map[string]*template.Template {
	m := map[string]*template.Template{}
	for _, f := range []string{promptRules, promptAnalyst, promptReviewer, promptSummary, promptBatch} {
		m[f] = template.Must(template.New(f).Funcs(promptFuncs).ParseFS(promptFS, "prompts/"+f))
	}
	return m
}()

// messages renders one stage's system and user prompts.
func messages(file string, data any) ([]llm.Message, error) {
	t := prompts[file]
	var sys, user strings.Builder
	if err := t.ExecuteTemplate(&sys, "system", data); err != nil {
		return nil, fmt.Errorf("prompt %s: %w", file, err)
	}
	if err := t.ExecuteTemplate(&user, "user", data); err != nil {
		return nil, fmt.Errorf("prompt %s: %w", file, err)
	}
	return []llm.Message{
		{Role: llm.RoleSystem, Content: strings.TrimSpace(sys.String())},
		{Role: llm.RoleUser, Content: strings.TrimSpace(user.String())},
	}, nil
}

// rulesPrompt is the rule generator's template data.
type rulesPrompt struct {
	Jurisdiction string
	Excerpt      string
	Limit        int
	Truncated    bool
}

// analystPrompt is the analyst's template data.
type analystPrompt struct {
	ContractID, Title, ContractType, Jurisdiction string
	HasStatutes                                   bool
	Rules                                         []Rule
	Text                                          string
	Chunked                                       bool
	Chunks                                        []passage
	Feedback                                      []string
	Previous                                      []Item
}

// passage is a span of the contract text.
type passage struct {
	Start, End int
	Text       string
}

// reviewerPrompt is the reviewer's template data.
type reviewerPrompt struct {
	Iteration, MaxIterations int
	Rules                    []Rule
	Items                    []Item
	Notes                    string
	Problems                 []string
	Found                    []string // statute ids statute_search returned in this run
}

// summaryPrompt is the summariser's template data.
type summaryPrompt struct {
	ContractID, ContractType string
	Items                    []ReportItem
}

// batchPrompt is the batch analyst's template data for one passage.
type batchPrompt struct {
	ContractID  string
	HasStatutes bool
	Rules       []Rule
	Start, End  int
	Text        string
	Statutes    []tools.StatutePassage
}
