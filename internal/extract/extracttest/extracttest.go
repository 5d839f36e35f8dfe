// Package extracttest provides a fake OpenAI-compatible chat-completions
// server for extraction tests, and a deterministic "model brain" that reads
// a contract the way a careful extractor would (regular expressions over the
// text), so tests can check that extracted values point at the right words.
package extracttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/openai"
)

// Request is the part of a chat-completions request the tests look at.
type Request struct {
	Model       string   `json:"model"`
	Stream      bool     `json:"stream"`
	Temperature *float64 `json:"temperature"`
	Seed        *int64   `json:"seed"`
	MaxTokens   int      `json:"max_completion_tokens"`
	Messages    []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

// Last returns the content of the last message.
func (r Request) Last() string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}

// ContractText returns the text between <contract> and </contract> in the
// request's first user message: what the extractor sent.
func (r Request) ContractText() string {
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		_, after, ok := strings.Cut(m.Content, "<contract>\n")
		if !ok {
			continue
		}
		body, _, _ := strings.Cut(after, "\n</contract>")
		return body
	}
	return ""
}

// Reply is what the server answers to one request.
type Reply struct {
	Status       int    // HTTP status; 200 when zero
	RetryAfter   string // Retry-After header for error statuses
	Content      string // assistant message content
	FinishReason string // "stop" when empty
	InputTokens  int
	OutputTokens int
	// Delay holds the reply back (a slow model); a client that gives up
	// first gets nothing.
	Delay time.Duration
}

// JSON is a 200 reply carrying v as JSON, with token counts.
func JSON(v any, in, out int) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return Reply{Content: string(b), InputTokens: in, OutputTokens: out}
}

// Server is a fake OpenAI-compatible server. Its reply function gets the
// 0-based request number and the decoded request. Streamed requests are
// answered with a stream; a JSON object reply loses the top-level keys the
// requested schema lacks (see constrain).
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []Request
	reply    func(n int, req Request) Reply
}

// NewServer starts a server that answers POST /chat/completions with reply.
// It is closed when the test ends.
func NewServer(t testing.TB, reply func(n int, req Request) Reply) *Server {
	s := &Server{reply: reply}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	rep := s.reply(n, req)
	rep.Content = constrain(rep.Content, req)
	if rep.Delay > 0 {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(rep.Delay):
		}
	}
	if req.Stream && (rep.Status == 0 || rep.Status == http.StatusOK) {
		s.stream(w, n, req, rep)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.Status != 0 && rep.Status != http.StatusOK {
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		w.WriteHeader(rep.Status)
		fmt.Fprintf(w, `{"error":{"message":"fake status %d","type":"rate_limit_exceeded","code":null}}`, rep.Status)
		return
	}
	if rep.FinishReason == "" {
		rep.FinishReason = "stop"
	}
	resp := map[string]any{
		"id":      fmt.Sprintf("chatcmpl-%d", n),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   req.Model,
		"choices": []map[string]any{{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": rep.Content, "refusal": nil},
			"finish_reason": rep.FinishReason,
			"logprobs":      nil,
		}},
		"usage": map[string]any{
			"prompt_tokens":     rep.InputTokens,
			"completion_tokens": rep.OutputTokens,
			"total_tokens":      rep.InputTokens + rep.OutputTokens,
		},
	}
	json.NewEncoder(w).Encode(resp)
}

// constrain drops the top-level keys of a JSON object reply that the
// requested schema does not have, as a server that constrains replies to
// the schema (llama.cpp's grammar) would never write them: a reply made
// for the whole extraction then also answers the facts call and the
// clause call of two-call extraction. Other replies pass unchanged.
func constrain(content string, req Request) string {
	if req.ResponseFormat == nil {
		return content
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(req.ResponseFormat.JSONSchema.Schema, &schema) != nil || len(schema.Properties) == 0 ||
		json.Unmarshal([]byte(content), &obj) != nil || obj == nil {
		return content
	}
	changed := false
	for k := range obj {
		if _, ok := schema.Properties[k]; !ok {
			delete(obj, k)
			changed = true
		}
	}
	if !changed {
		return content
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return content
	}
	return string(b)
}

// stream answers a streamed request with the reply's content in pieces of
// about 40 bytes, the finish reason and then the usage, as OpenAI does.
func (s *Server) stream(w http.ResponseWriter, n int, req Request, rep Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	if rep.FinishReason == "" {
		rep.FinishReason = "stop"
	}
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}},
		}
	}
	content := rep.Content
	first := true
	for content != "" {
		cut := min(40, len(content))
		for cut < len(content) && !utf8.RuneStart(content[cut]) {
			cut++
		}
		delta := map[string]any{"content": content[:cut]}
		if first {
			delta["role"] = "assistant"
			first = false
		}
		send(chunk(delta, nil))
		content = content[cut:]
	}
	send(chunk(map[string]any{}, rep.FinishReason))
	send(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{},
		"usage":   map[string]any{"prompt_tokens": rep.InputTokens, "completion_tokens": rep.OutputTokens, "total_tokens": rep.InputTokens + rep.OutputTokens},
	})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Model returns the real OpenAI client pointed at the server, with fast
// retries.
func (s *Server) Model(t testing.TB) llm.Model {
	m, err := openai.New(openai.Config{
		Model:   "gpt-fake",
		BaseURL: s.URL,
		APIKey:  "test-key",
		Retry:   llm.Retry{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
		Timeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var (
	dateRE     = regexp.MustCompile(`(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},\s+\d{4}`)
	govLawRE   = regexp.MustCompile(`[^.\n]*(?i:governed by)[^.]*?(?i:laws? of) (?:the )?(?:State of |Commonwealth of |Province of )?([A-Z][a-z]+(?: [A-Z][a-z]+)?)[^.]*\.`)
	betweenRE  = regexp.MustCompile(`(?s)between\s+(.{3,120}?),?\s+(?:a|an)\s+[A-Z][a-z]+.{0,200}?\band\s+(.{3,120}?),?\s+(?:a|an)\s+[A-Z][a-z]+`)
	partyTail  = regexp.MustCompile(`\s*\(.*$`)
	agreeTitle = regexp.MustCompile(`(?i)\b(license|distribution|distributor|franchise|supply|services?|consulting|sponsorship|joint venture|hosting|maintenance|reseller|development|endorsement|outsourcing|co-branding|marketing|agency|manufacturing|strategic alliance|collaboration|transportation|promotion|affiliate|non-compete)\b`)
)

var titleType = map[string]string{
	"license": "License Agreement", "distribution": "Distributor", "distributor": "Distributor",
	"franchise": "Franchise", "supply": "Supply", "service": "Service", "services": "Service",
	"consulting": "Consulting", "sponsorship": "Sponsorship", "joint venture": "Joint Venture",
	"hosting": "Hosting", "maintenance": "Maintenance", "reseller": "Reseller",
	"development": "Development", "endorsement": "Endorsement", "outsourcing": "Outsourcing",
	"co-branding": "Co-Branding", "marketing": "Marketing", "agency": "Agency",
	"manufacturing": "Manufacturing", "strategic alliance": "Strategic Alliance",
	"collaboration": "Collaboration", "transportation": "Transportation", "promotion": "Promotion",
	"affiliate": "Affiliate Agreement", "non-compete": "Non Compete/Solicit",
}

// Heuristic extracts what simple patterns can find in text, quoting the
// text verbatim as evidence: the first written date as the effective date,
// the governing-law sentence, the two parties of a "between X, a ..., and
// Y, a ..." preamble, the contract type from the title, and the
// governing-law sentence as a Governing Law clause.
func Heuristic(text string) extract.Extraction {
	x := extract.Extraction{Summary: "A contract found by the heuristic fake model.", Parties: []extract.Party{}, Clauses: []extract.ClauseValue{}}
	head := text
	if len(head) > 3000 {
		head = head[:3000]
	}
	if m := agreeTitle.FindString(head); m != "" {
		x.ContractType = extract.Value{Value: titleType[strings.ToLower(m)], Evidence: m}
	}
	if d := dateRE.FindString(text); d != "" {
		x.EffectiveDate = extract.Value{Value: d, Evidence: d}
	}
	if m := govLawRE.FindStringSubmatch(text); m != nil {
		sentence := strings.TrimSpace(m[0])
		x.GoverningLaw = extract.GoverningLaw{State: m[1], Evidence: sentence}
		x.Clauses = append(x.Clauses, extract.ClauseValue{ClauseType: "Governing Law", Text: sentence, Summary: "Names the governing law."})
	}
	if m := betweenRE.FindStringSubmatch(head); m != nil {
		for _, raw := range m[1:3] {
			name := strings.TrimSpace(partyTail.ReplaceAllString(strings.Join(strings.Fields(raw), " "), ""))
			name = strings.TrimRight(name, ",")
			if name != "" {
				x.Parties = append(x.Parties, extract.Party{Name: name, Role: "Party", Evidence: name})
			}
		}
	}
	return x
}
