package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
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
)

// Model-call timeouts by kind of call (see llm.Timeouts). A local server
// (Ollama, or an OpenAI-compatible server on loopback) gets longer bounds
// that also grow with the prompt: a 1.5B model on two busy cores reads
// about 6 prompt tokens a second, so the cold first agent step of ~6,700
// tokens needs some 19 minutes before its first token; at the assumed
// 5 tokens/s it is allowed 5m + 22m.
var (
	remoteTimeouts = llm.Timeouts{Chat: 2 * time.Minute, Structured: 5 * time.Minute, Embed: 2 * time.Minute}
	localTimeouts  = llm.Timeouts{Chat: 5 * time.Minute, Structured: 10 * time.Minute, Embed: 5 * time.Minute, TokensPerSecond: 5}
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
	return a.openNamedModel(ctx, a.cfg.Model, "--model")
}

// openEmbedder opens the embedding model named by --embed-model
// (CONTRACTGRAPH_EMBED_MODEL). For the openai provider,
// CONTRACTGRAPH_EMBED_BASE_URL, when set, is its server instead of
// OPENAI_BASE_URL, so that a local chat server and a local embedding
// server can run side by side.
func (a *app) openEmbedder(ctx context.Context) (llm.Embedder, error) {
	if strings.TrimSpace(a.cfg.EmbedModel) == "" {
		return nil, fmt.Errorf("%w: pass --embed-model provider:model or set CONTRACTGRAPH_EMBED_MODEL (e.g. openai:text-embedding-3-small, ollama:nomic-embed-text, gemini:gemini-embedding-001)", llm.ErrNoModel)
	}
	m, err := a.openModelAs(ctx, a.cfg.EmbedModel, "--embed-model", true)
	if err != nil {
		return nil, err
	}
	e, ok := m.(llm.Embedder)
	if !ok {
		return nil, fmt.Errorf("--embed-model %s: this provider has no embeddings API; use an openai, azure, ollama or gemini model", a.cfg.EmbedModel)
	}
	return e, nil
}

// openNamedModel opens the chat model name ("provider:model"); flag names
// where the name came from in errors. Timeouts follow --model-timeout.
func (a *app) openNamedModel(ctx context.Context, name, flag string) (llm.Model, error) {
	return a.openModelAs(ctx, name, flag, false)
}

func (a *app) openModelAs(ctx context.Context, name, flag string, embed bool) (llm.Model, error) {
	n, err := llm.ParseModelName(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	ep := endpointFor(n, embed)
	t, err := modelTimeouts(n, ep, a.cfg.ModelTimeout)
	if err != nil {
		return nil, err
	}
	m, err := openProviderModel(ctx, n, ep, t, flag)
	if err != nil {
		return nil, err
	}
	return withExplanations(n, ep, m), nil
}

// isLocalModel reports whether the chat model name runs on a local server
// (Ollama, or an OpenAI-compatible server on loopback): such models are
// given longer timeouts, and extraction on them asks for clauses in a
// call of their own and assumes a 32k context.
func isLocalModel(name string) bool {
	n, err := llm.ParseModelName(name)
	return err == nil && endpointFor(n, false).local(n)
}

// modelTimeouts are the timeouts of model n at ep: the defaults for a
// local or remote server, overridden by spec (--model-timeout).
func modelTimeouts(n llm.ModelName, ep endpoint, spec string) (llm.Timeouts, error) {
	t := remoteTimeouts
	if ep.local(n) {
		t = localTimeouts
	}
	if err := applyTimeoutSpec(&t, spec); err != nil {
		return t, usageError(fmt.Errorf("--model-timeout (CONTRACTGRAPH_MODEL_TIMEOUT) %q: %w", spec, err))
	}
	return t, nil
}

// applyTimeoutSpec reads --model-timeout: a comma-separated list of a
// duration for every kind of call and/or kind=duration items (kinds chat,
// extract, embed), and rate=N, the slowest tokens per second to allow for
// (0 turns the growth with the prompt off). "10m", "extract=30m" and
// "5m,embed=1m,rate=0" are valid; "0" or "none" means no bound.
func applyTimeoutSpec(t *llm.Timeouts, spec string) error {
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, val, hasKey := strings.Cut(item, "=")
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		if !hasKey {
			val = key
		}
		if hasKey && key == "rate" {
			r, err := strconv.ParseFloat(val, 64)
			if err != nil || r < 0 {
				return fmt.Errorf("rate %q: want tokens per second, such as 5, or 0 for none", val)
			}
			t.TokensPerSecond = r
			continue
		}
		d, err := parseTimeout(val)
		if err != nil {
			return err
		}
		switch {
		case !hasKey:
			t.Chat, t.Structured, t.Embed = d, d, d
		case key == "chat":
			t.Chat = d
		case key == "extract":
			t.Structured = d
		case key == "embed":
			t.Embed = d
		default:
			return fmt.Errorf("unknown kind %q: want chat, extract, embed or rate", key)
		}
	}
	return nil
}

// parseTimeout reads a duration such as 90s or 10m; 0 and "none" mean no
// bound (a negative llm.Timeouts field).
func parseTimeout(s string) (time.Duration, error) {
	if s == "0" || strings.EqualFold(s, "none") {
		return -1, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration such as 90s or 10m (or none)", s)
	}
	return d, nil
}

func openProviderModel(ctx context.Context, n llm.ModelName, ep endpoint, t llm.Timeouts, flag string) (llm.Model, error) {
	switch n.Provider {
	case "openai":
		key := os.Getenv("OPENAI_API_KEY")
		if key == "" && ep.url == openai.DefaultBaseURL {
			return nil, noModel("model %s needs an API key: set OPENAI_API_KEY (or %s for an OpenAI-compatible server)", n, ep.envVar)
		}
		return openai.New(openai.Config{Model: n.Model, APIKey: key, BaseURL: ep.url, Timeouts: t})
	case "ollama":
		return openai.New(openai.Config{Name: "ollama", Model: n.Model, BaseURL: ep.url, Timeouts: t})
	case "azure":
		key := os.Getenv("AZURE_OPENAI_API_KEY")
		if key == "" || ep.url == "" {
			return nil, noModel("model %s needs AZURE_OPENAI_ENDPOINT and AZURE_OPENAI_API_KEY to be set", n)
		}
		return openai.New(openai.Config{Name: "azure", Model: n.Model, APIKey: key, AzureEndpoint: ep.url,
			AzureAPIVersion: envOr("OPENAI_API_VERSION", defaultAzureVersion), Timeouts: t})
	case "anthropic":
		key := os.Getenv("ANTHROPIC_API_KEY")
		if key == "" {
			return nil, noModel("model %s needs an API key: set ANTHROPIC_API_KEY", n)
		}
		return anthropic.New(anthropic.Config{Model: n.Model, APIKey: key, BaseURL: ep.url, Timeouts: t})
	case "gemini":
		key := envOr("GEMINI_API_KEY", os.Getenv("GOOGLE_API_KEY"))
		if key == "" {
			return nil, noModel("model %s needs an API key: set GEMINI_API_KEY (or GOOGLE_API_KEY)", n)
		}
		return gemini.New(ctx, gemini.Config{Model: n.Model, APIKey: key, BaseURL: ep.url, Timeouts: t})
	}
	return nil, fmt.Errorf("%s: unknown provider %q", flag, n.Provider)
}

// endpoint is where a provider's server is and which variable moves it.
type endpoint struct {
	url    string
	envVar string
}

// endpointFor is where model n is served; embed selects the embedding
// server (CONTRACTGRAPH_EMBED_BASE_URL, for the openai provider).
func endpointFor(n llm.ModelName, embed bool) endpoint {
	switch n.Provider {
	case "openai":
		if u := strings.TrimSpace(os.Getenv("CONTRACTGRAPH_EMBED_BASE_URL")); embed && u != "" {
			return endpoint{strings.TrimRight(u, "/"), "CONTRACTGRAPH_EMBED_BASE_URL"}
		}
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

// local reports whether model n at e is served locally, where a small
// model on a CPU is likely: Ollama, or an OpenAI-compatible server on
// loopback.
func (e endpoint) local(n llm.ModelName) bool {
	switch n.Provider {
	case "ollama":
		return true
	case "openai":
		u, err := url.Parse(e.url)
		if err != nil {
			return false
		}
		switch h := u.Hostname(); h {
		case "localhost", "127.0.0.1", "::1", "0.0.0.0":
			return true
		default:
			return strings.HasPrefix(h, "127.")
		}
	}
	return false
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
// at ep with the server's URL and the variable to set; other errors pass
// as is.
func explain(n llm.ModelName, ep endpoint, err error) error {
	var ae *llm.APIError
	if err == nil || !errors.As(err, &ae) {
		return err
	}
	var msg string
	switch {
	case errors.Is(err, llm.ErrNotAPI):
		// "the server answered HTTP 200 with a web page ("Sign in"), not ..."
		msg = fmt.Sprintf("the %s server at %s %s: check %s (an OpenAI-compatible server's API usually ends in /v1)", n.Provider, ep.url, strings.TrimPrefix(ae.Message, "the server "), ep.envVar)
	case errors.Is(err, llm.ErrUnavailable) && ae.StatusCode == 0 && ae.Timeout == 0:
		msg = fmt.Sprintf("cannot reach the %s server at %s: start it or set %s to where it runs", n.Provider, ep.url, ep.envVar)
	case errors.Is(err, llm.ErrUnavailable) && ae.Timeout > 0:
		msg = fmt.Sprintf("the %s server at %s did not answer within %s: check that it is running (%s) and not overloaded, or allow more time with --model-timeout", n.Provider, ep.url, ae.Timeout, ep.envVar)
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
	ep   endpoint
}

func (e explaining) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	r, err := e.m.Generate(ctx, req)
	return r, explain(e.name, e.ep, err)
}

type explainingStreamer struct{ explaining }

func (e explainingStreamer) Stream(ctx context.Context, req *llm.Request, fn func(llm.Delta) error) (*llm.Response, error) {
	r, err := e.m.(llm.Streamer).Stream(ctx, req, fn)
	return r, explain(e.name, e.ep, err)
}

type explainingEmbedder struct{ explaining }

func (e explainingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	v, u, err := e.m.(llm.Embedder).Embed(ctx, texts)
	return v, u, explain(e.name, e.ep, err)
}

type explainingFull struct {
	explainingStreamer
}

func (e explainingFull) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	return explainingEmbedder(e.explainingStreamer).Embed(ctx, texts)
}

func withExplanations(n llm.ModelName, ep endpoint, m llm.Model) llm.Model {
	base := explaining{m: m, name: n, ep: ep}
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
