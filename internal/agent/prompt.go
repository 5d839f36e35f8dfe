package agent

import (
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/contractgraph/contractgraph/internal/llm"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// prompts are parsed once; templates are immutable after parsing.
var prompts = template.Must(template.New("").Funcs(template.FuncMap{"join": strings.Join}).ParseFS(promptFS, "prompts/*.tmpl"))

type systemData struct {
	Date  string
	Tools []string
}

type rewriteData struct {
	Date     string
	History  []llm.Message
	Question string
}

type criticData struct {
	Question     string
	Calls        []string
	Draft        string
	MaxFollowUps int
}

type describedCallData struct {
	Tool     string
	Question string
}

type noAnswerData struct {
	Question   string
	HadResults bool
}

type retryData struct {
	Question string
	Gaps     []string
}

type followUpData struct {
	FollowUps []string
	Question  string
}

func render(name string, data any) (string, error) {
	var b strings.Builder
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render prompt %s: %w", name, err)
	}
	return b.String(), nil
}
