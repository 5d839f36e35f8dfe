package extract

import (
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/contractgraph/contractgraph/internal/contract"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// prompts are parsed once; templates are immutable after parsing.
var prompts = template.Must(template.ParseFS(promptFS, "prompts/*.tmpl"))

// promptData is what the templates see.
type promptData struct {
	ID               string
	Text             string
	Part, Parts      int
	Task             string // taskAll, taskFacts or taskClauses
	ContractTypes    []string
	ClauseCategories []string
	Problems         []string
	MaxParties       int
	MaxClauses       int
	MaxEvidenceWords int
}

// Tasks of the user prompt: the whole extraction in one reply, or the
// facts and the clauses in two.
const (
	taskAll     = "all"
	taskFacts   = "facts"
	taskClauses = "clauses"
)

func newPromptData(id, text string, part, parts int) promptData {
	cats := make([]string, 0, len(contract.ClauseCategories))
	for _, c := range contract.ClauseCategories {
		cats = append(cats, c.Name)
	}
	return promptData{ID: id, Text: text, Part: part, Parts: parts, Task: taskAll,
		ContractTypes: contract.ContractTypes, ClauseCategories: cats,
		MaxParties: MaxParties, MaxClauses: MaxClauses, MaxEvidenceWords: MaxEvidenceWords}
}

func render(name string, data promptData) (string, error) {
	var b strings.Builder
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}
