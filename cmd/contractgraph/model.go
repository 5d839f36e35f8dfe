package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/anthropic"
	"github.com/contractgraph/contractgraph/internal/llm/gemini"
	"github.com/contractgraph/contractgraph/internal/llm/openai"
)

// Defaults for model providers configured from the environment.
const (
	defaultOllamaHost   = "http://localhost:11434"
	defaultAzureVersion = "2024-10-21"
	modelCallTimeout    = 2 * time.Minute
)

// errNoModelHint is the one sentence shown when no model is configured.
var errNoModelHint = fmt.Errorf("%w: pass --model provider:model or set CONTRACTGRAPH_MODEL (e.g. openai:gpt-4o-mini, ollama:qwen2.5:7b, anthropic:claude-sonnet-4-5, gemini:gemini-2.5-flash)", llm.ErrNoModel)

// openModel opens the chat model named by --model (CONTRACTGRAPH_MODEL),
// taking keys and hosts from the providers' usual environment variables.
// It makes no network call; an unreachable server shows up on first use
// (see explainModelError).
func (a *app) openModel(ctx context.Context) (llm.Model, error) {
	if strings.TrimSpace(a.cfg.Model) == "" {
		return nil, errNoModelHint
	}
	return openNamedModel(ctx, a.cfg.Model, "--model")
}

// openEmbedder opens the embedding model named by --embed-model
// (CONTRACTGRAPH_EMBED_MODEL).
func (a *app) openEmbedder(ctx context.Context) (llm.Embedder, error) {
	if strings.TrimSpace(a.cfg.EmbedModel) == "" {
		return nil, fmt.Errorf("%w: pass --embed-model provider:model or set CONTRACTGRAPH_EMBED_MODEL (e.g. openai:text-embedding-3-small, ollama:nomic-embed-text, gemini:gemini-embedding-001)", llm.ErrNoModel)
	}
	m, err := openNamedModel(ctx, a.cfg.EmbedModel, "--embed-model")
	if err != nil {
		return nil, err
	}
	e, ok := m.(llm.Embedder)
	if !ok {
		return nil, fmt.Errorf("--embed-model %s: this provider has no embeddings API; use an openai, azure, ollama or gemini model", a.cfg.EmbedModel)
	}
	return e, nil
}

func openNamedModel(ctx context.Context, name, flag string) (llm.Model, error) {
	n, err := llm.ParseModelName(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	m, err := openProviderModel(ctx, n, flag)
	if err != nil {
		return nil, err
	}
	return withExplanations(n, m), nil
}

func openProviderModel(ctx context.Context, n llm.ModelName, flag string) (llm.Model, error) {
	ep := endpointFor(n)
	switch n.Provider {
	case "openai":
		key := os.Getenv("OPENAI_API_KEY")
		if key == "" && ep.url == openai.DefaultBaseURL {
			return nil, noModel("model %s needs an API key: set OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible server)", n)
		}
		return openai.New(openai.Config{Model: n.Model, APIKey: key, BaseURL: ep.url, Timeout: modelCallTimeout})
	case "ollama":
		return openai.New(openai.Config{Name: "ollama", Model: n.Model, BaseURL: ep.url, Timeout: 5 * time.Minute})
	case "azure":
		key := os.Getenv("AZURE_OPENAI_API_KEY")
		if key == "" || ep.url == "" {
			return nil, noModel("model %s needs AZURE_OPENAI_ENDPOINT and AZURE_OPENAI_API_KEY to be set", n)
		}
		return openai.New(openai.Config{Name: "azure", Model: n.Model, APIKey: key, AzureEndpoint: ep.url,
			AzureAPIVersion: envOr("OPENAI_API_VERSION", defaultAzureVersion), Timeout: modelCallTimeout})
	case "anthropic":
		key := os.Getenv("ANTHROPIC_API_KEY")
		if key == "" {
			return nil, noModel("model %s needs an API key: set ANTHROPIC_API_KEY", n)
		}
		return anthropic.New(anthropic.Config{Model: n.Model, APIKey: key, BaseURL: ep.url, Timeout: modelCallTimeout})
	case "gemini":
		key := envOr("GEMINI_API_KEY", os.Getenv("GOOGLE_API_KEY"))
		if key == "" {
			return nil, noModel("model %s needs an API key: set GEMINI_API_KEY (or GOOGLE_API_KEY)", n)
		}
		return gemini.New(ctx, gemini.Config{Model: n.Model, APIKey: key, BaseURL: ep.url, Timeout: modelCallTimeout})
	}
	return nil, fmt.Errorf("%s: unknown provider %q", flag, n.Provider)
}

// endpoint is where a provider's server is and which variable moves it.
type endpoint struct {
	url    string
	envVar string
}

func endpointFor(n llm.ModelName) endpoint {
	switch n.Provider {
	case "openai":
		return endpoint{strings.TrimRight(envOr("OPENAI_BASE_URL", openai.DefaultBaseURL), "/"), "OPENAI_BASE_URL"}
	case "ollama":
		return endpoint{ollamaBaseURL(os.Getenv("OLLAMA_HOST")), "OLLAMA_HOST"}
	case "azure":
		return endpoint{os.Getenv("AZURE_OPENAI_ENDPOINT"), "AZURE_OPENAI_ENDPOINT"}
	case "anthropic":
		return endpoint{strings.TrimRight(envOr("ANTHROPIC_BASE_URL", anthropic.DefaultBaseURL), "/"), "ANTHROPIC_BASE_URL"}
	case "gemini":
		return endpoint{strings.TrimRight(envOr("GOOGLE_GEMINI_BASE_URL", gemini.DefaultBaseURL), "/"), "GOOGLE_GEMINI_BASE_URL"}
	}
	return endpoint{}
}

// ollamaBaseURL turns OLLAMA_HOST (host, host:port or URL) into the base
// of Ollama's OpenAI-compatible API.
func ollamaBaseURL(host string) string {
	host = strings.TrimRight(strings.TrimSpace(host), "/")
	if host == "" {
		host = defaultOllamaHost
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	if !strings.HasSuffix(host, "/v1") {
		host += "/v1"
	}
	return host
}

// explainModelError returns the one-sentence explanation inside err, if
// the model wrapper from openModel put one there, so that commands print
// the sentence without the layers of context above it.
func (a *app) explainModelError(err error) error {
	var ex *explainedError
	if errors.As(err, &ex) {
		return ex
	}
	return err
}

// noModel is a configuration gap stated as one sentence; it matches
// llm.ErrNoModel.
func noModel(format string, args ...any) error {
	return &explainedError{msg: fmt.Sprintf(format, args...), err: llm.ErrNoModel}
}

// explainedError is a model failure restated as one sentence that says
// what to check; it unwraps to the provider's error.
type explainedError struct {
	msg string
	err error
}

func (e *explainedError) Error() string { return e.msg }
func (e *explainedError) Unwrap() error { return e.err }

// explain restates connection, timeout and credential failures of model n
// with the server's URL and the variable to set; other errors pass as is.
func explain(n llm.ModelName, err error) error {
	var ae *llm.APIError
	if err == nil || !errors.As(err, &ae) {
		return err
	}
	ep := endpointFor(n)
	var msg string
	switch {
	case errors.Is(err, llm.ErrUnavailable) && ae.StatusCode == 0 && ae.Timeout == 0:
		msg = fmt.Sprintf("cannot reach the %s server at %s: start it or set %s to where it runs", n.Provider, ep.url, ep.envVar)
	case errors.Is(err, llm.ErrUnavailable) && ae.Timeout > 0:
		msg = fmt.Sprintf("the %s server at %s did not answer within %s: check that it is running (%s) and not overloaded", n.Provider, ep.url, ae.Timeout, ep.envVar)
	case errors.Is(err, llm.ErrAuth):
		msg = fmt.Sprintf("the %s server at %s refused the credentials (%s): check %s", n.Provider, ep.url, ae.Message, keyVar(n.Provider))
	default:
		return err
	}
	return &explainedError{msg: msg, err: err}
}

// explaining wraps a model so that every command reports its failures
// through explain. Variants keep the optional capabilities visible to
// type assertions.
type explaining struct {
	m    llm.Model
	name llm.ModelName
}

func (e explaining) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	r, err := e.m.Generate(ctx, req)
	return r, explain(e.name, err)
}

type explainingStreamer struct{ explaining }

func (e explainingStreamer) Stream(ctx context.Context, req *llm.Request, fn func(llm.Delta) error) (*llm.Response, error) {
	r, err := e.m.(llm.Streamer).Stream(ctx, req, fn)
	return r, explain(e.name, err)
}

type explainingEmbedder struct{ explaining }

func (e explainingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	v, u, err := e.m.(llm.Embedder).Embed(ctx, texts)
	return v, u, explain(e.name, err)
}

type explainingFull struct {
	explainingStreamer
}

func (e explainingFull) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	return explainingEmbedder(e.explainingStreamer).Embed(ctx, texts)
}

func withExplanations(n llm.ModelName, m llm.Model) llm.Model {
	base := explaining{m: m, name: n}
	_, streams := m.(llm.Streamer)
	_, embeds := m.(llm.Embedder)
	switch {
	case streams && embeds:
		return explainingFull{explainingStreamer{base}}
	case streams:
		return explainingStreamer{base}
	case embeds:
		return explainingEmbedder{base}
	}
	return base
}

func keyVar(provider string) string {
	switch provider {
	case "azure":
		return "AZURE_OPENAI_API_KEY"
	case "anthropic":
		return "ANTHROPIC_API_KEY"
	case "gemini":
		return "GEMINI_API_KEY"
	case "ollama":
		return "OLLAMA_HOST"
	}
	return "OPENAI_API_KEY"
}
