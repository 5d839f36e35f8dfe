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
	ContractTypes    []string
	ClauseCategories []string
	Problems         []string
}

func newPromptData(id, text string, part, parts int) promptData {
	cats := make([]string, 0, len(contract.ClauseCategories))
	for _, c := range contract.ClauseCategories {
		cats = append(cats, c.Name)
	}
	return promptData{ID: id, Text: text, Part: part, Parts: parts, ContractTypes: contract.ContractTypes, ClauseCategories: cats}
}

func render(name string, data promptData) (string, error) {
	var b strings.Builder
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}
