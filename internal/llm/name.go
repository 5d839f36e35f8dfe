package llm

import (
	"fmt"
	"strings"
)

// Providers ParseModelName accepts.
var providers = []string{"openai", "azure", "ollama", "anthropic", "gemini"}

// ModelName is a parsed "provider:model" name.
type ModelName struct {
	Provider string // lower case, one of openai, azure, ollama, anthropic, gemini
	Model    string // provider-specific; may itself contain ':' (ollama tags)
}

func (n ModelName) String() string { return n.Provider + ":" + n.Model }

// ParseModelName splits "provider:model" on the first ':' so that Ollama
// tags survive ("ollama:qwen2.5:7b" → ollama, "qwen2.5:7b"). Errors wrap
// ErrNoModel for an empty name and name the accepted providers otherwise.
func ParseModelName(s string) (ModelName, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return ModelName{}, ErrNoModel
	}
	p, m, ok := strings.Cut(s, ":")
	p = strings.ToLower(strings.TrimSpace(p))
	m = strings.TrimSpace(m)
	if !ok || p == "" || m == "" {
		return ModelName{}, fmt.Errorf("model %q: want provider:model, e.g. openai:gpt-4o-mini or ollama:qwen2.5:7b", s)
	}
	for _, known := range providers {
		if p == known {
			return ModelName{Provider: p, Model: m}, nil
		}
	}
	return ModelName{}, fmt.Errorf("model %q: unknown provider %q (want one of %s)", s, p, strings.Join(providers, ", "))
}
