package demo

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
)

//go:embed samples/*.md samples/samples.json
var samplesFS embed.FS

// sample is one entry of samples/samples.json: a contract's metadata, with
// clauses given by verbatim quotes whose offsets are computed at load time,
// so that editing a text never leaves stale offsets behind.
type sample struct {
	ID            string `json:"id"`
	File          string `json:"file"`
	Title         string `json:"title"`
	ContractType  string `json:"contract_type"`
	Summary       string `json:"summary"`
	Scope         string `json:"scope"`
	EffectiveDate string `json:"effective_date"`
	EndDate       string `json:"end_date"`
	Duration      string `json:"duration"`
	RenewalTerm   string `json:"renewal_term"`
	NoticePeriod  string `json:"notice_period"`
	RenewalKind   string `json:"renewal_kind"`
	RenewalCount  int    `json:"renewal_count"`
	// TerminationNotice and the timeline's other values are backed by
	// Evidence: verbatim quotes located at load time, like the clauses.
	TerminationNotice string               `json:"termination_notice"`
	Evidence          []sampleEvidence     `json:"evidence"`
	TotalAmount       *float64             `json:"total_amount"`
	Currency          string               `json:"currency"`
	GoverningLaw      *contract.Location   `json:"governing_law"`
	Parties           []contract.PartyRole `json:"parties"`
	Clauses           []sampleClause       `json:"clauses"`
}

type sampleEvidence struct {
	Field string `json:"field"`
	Value string `json:"value"`
	Quote string `json:"quote"`
}

type sampleClause struct {
	Type    string `json:"type"`
	Summary string `json:"summary"`
	Quote   string `json:"quote"`
}

// MarkerID is the id of a sample contract every demo database holds.
const MarkerID = "demo-saas-kestrel"

// SampleSource is the ExtractedBy value of the sample contracts.
const SampleSource = "contractgraph demo: hand-annotated sample"

// Samples returns the sample contracts: full text, parties, governing law and
// clauses whose offsets slice the text to exactly the quoted words.
func Samples() ([]*contract.Contract, error) {
	raw, err := samplesFS.ReadFile("samples/samples.json")
	if err != nil {
		return nil, fmt.Errorf("read samples: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var list []sample
	if err := dec.Decode(&list); err != nil {
		return nil, fmt.Errorf("samples/samples.json: %w", err)
	}
	out := make([]*contract.Contract, 0, len(list))
	for i, s := range list {
		c, err := s.contract()
		if err != nil {
			return nil, fmt.Errorf("samples/samples.json: sample %d (%s): %w", i, s.ID, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func (s sample) contract() (*contract.Contract, error) {
	text, err := samplesFS.ReadFile(path.Join("samples", s.File))
	if err != nil {
		return nil, fmt.Errorf("file: %w", err)
	}
	typ, err := contract.ParseContractType(s.ContractType, s.Title)
	if err != nil {
		return nil, fmt.Errorf("contract_type: %w", err)
	}
	sum := sha256.Sum256(text)
	c := &contract.Contract{
		ID:                s.ID,
		Title:             s.Title,
		Summary:           s.Summary,
		ContractType:      typ,
		EffectiveDate:     s.EffectiveDate,
		EndDate:           s.EndDate,
		Duration:          s.Duration,
		RenewalTerm:       s.RenewalTerm,
		NoticePeriod:      s.NoticePeriod,
		RenewalKind:       s.RenewalKind,
		RenewalCount:      s.RenewalCount,
		TerminationNotice: s.TerminationNotice,
		TotalAmount:       s.TotalAmount,
		Currency:          s.Currency,
		Scope:             s.Scope,
		SourcePath:        "internal/demo/samples/" + s.File,
		SHA256:            hex.EncodeToString(sum[:]),
		ExtractedBy:       SampleSource,
		GoverningLaw:      s.GoverningLaw,
		Parties:           s.Parties,
		Text:              string(text),
	}
	for _, f := range []struct{ name, v string }{{"effective_date", c.EffectiveDate}, {"end_date", c.EndDate}} {
		if f.v == "" {
			continue
		}
		if d, err := contract.NormalizeDate(f.v); err != nil || d != f.v {
			return nil, fmt.Errorf("%s: %q is not a YYYY-MM-DD date", f.name, f.v)
		}
	}
	if c.Duration != "" {
		days, err := contract.ParseISODuration(c.Duration)
		if err != nil {
			return nil, fmt.Errorf("duration: %w", err)
		}
		c.DurationDays = &days
	}
	for j, cl := range s.Clauses {
		typ, group, err := contract.ParseClauseType(cl.Type)
		if err != nil {
			return nil, fmt.Errorf("clause %d: %w", j, err)
		}
		start := strings.Index(c.Text, cl.Quote)
		if start < 0 || cl.Quote == "" {
			return nil, fmt.Errorf("clause %d (%s): quote not found in %s: %q", j, typ, s.File, cl.Quote)
		}
		c.Clauses = append(c.Clauses, contract.Clause{
			ID:       fmt.Sprintf("%s/clause/%d", c.ID, j+1),
			Type:     typ,
			Group:    group,
			Summary:  cl.Summary,
			Text:     cl.Quote,
			Start:    start,
			End:      start + len(cl.Quote),
			Verified: true,
		})
	}
	for j, e := range s.Evidence {
		start := strings.Index(c.Text, e.Quote)
		if start < 0 || e.Quote == "" {
			return nil, fmt.Errorf("evidence %d (%s): quote not found in %s: %q", j, e.Field, s.File, e.Quote)
		}
		c.Evidence = append(c.Evidence, contract.Evidence{Field: e.Field, Value: e.Value, Quote: e.Quote, Start: start, End: start + len(e.Quote), Verified: true})
	}
	c.Chunks = chunks(c.ID, c.Text, maxChunkBytes)
	return c, nil
}

// maxChunkBytes is the size a chunk grows to before a new one starts.
const maxChunkBytes = 1200

// chunks splits text into passages at paragraph breaks (blank lines), each
// growing to about limit bytes (a longer paragraph is a chunk of its own),
// with offsets into text.
func chunks(id, text string, limit int) []contract.Chunk {
	var out []contract.Chunk
	start, end := -1, 0
	flush := func() {
		if start >= 0 {
			out = append(out, contract.Chunk{
				ID:    fmt.Sprintf("%s/chunk/%d", id, len(out)+1),
				Ord:   len(out),
				Text:  text[start:end],
				Start: start,
				End:   end,
			})
		}
		start = -1
	}
	for pos := 0; pos < len(text); {
		pEnd := len(text)
		next := len(text)
		if n := strings.Index(text[pos:], "\n\n"); n >= 0 {
			pEnd = pos + n
			next = pEnd + 2
		}
		para := strings.TrimSpace(text[pos:pEnd])
		if para != "" {
			pStart := pos + strings.Index(text[pos:pEnd], para)
			if start >= 0 && pStart+len(para)-start > limit {
				flush()
			}
			if start < 0 {
				start = pStart
			}
			end = pStart + len(para)
		}
		pos = next
	}
	flush()
	return out
}
