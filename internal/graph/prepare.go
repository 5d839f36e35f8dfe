package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// MaxIDLen bounds contract ids, which appear in every answer and URL, and
// each field and label of a contract's provenance.
const MaxIDLen = 512

// maxRenewalCount bounds Contract.RenewalCount: no contract limits its
// renewals to more than a hundred.
const maxRenewalCount = 100

// MaxProvenance bounds the entries of a contract's provenance.
const MaxProvenance = 100000

// FieldError says which field of which contract a store rejected. Every
// backend validates with Prepare, so all accept and reject the same contracts.
type FieldError struct {
	ContractID string
	Field      string // e.g. "clauses[3].end"
	Reason     string
}

// Error implements error.
func (e *FieldError) Error() string {
	return fmt.Sprintf("contract %q: %s: %s", e.ContractID, e.Field, e.Reason)
}

// Prepared is a contract ready to write: validated, normalised and hashed.
type Prepared struct {
	Contract *contract.Contract // canonical form
	Hash     string             // SHA-256 of the canonical JSON
	// Keys[i] (contract.PartyKey) and MatchKeys[i] (contract.MatchKey)
	// belong to Contract.Parties[i].
	Keys      []string
	MatchKeys []string
	// Unverified is contract.UnverifiedValues of Contract: what backends
	// mark so that queries leave those values out (Filter.IncludeUnverified)
	// and results flag them.
	Unverified []contract.Unverified
}

// UnverifiedParty reports whether Contract.Parties[i] is unverified.
func (p *Prepared) UnverifiedParty(i int) bool {
	return contract.UnverifiedParty(p.Unverified, p.Contract.Parties[i].Name) != ""
}

// Prepare validates c and returns its canonical form, which is what is
// stored and hashed, so that re-putting what GetContract returned is a no-op.
// Canonical means: party names cleaned and store-assigned party ids cleared,
// empty locations dropped, missing clause groups filled from the taxonomy and
// missing clause and chunk ids derived from the contract id and position.
// The store rejects what it could not store faithfully or what would make
// answers wrong: an empty or over-long id, malformed dates, non-finite
// or negative amounts, negative durations, nameless parties, typeless
// clauses, spans (of clauses, chunks and evidence) that lie outside the text
// or claim a verification they do not have, and a NUL character or invalid
// UTF-8 in any field (named with its byte offset; see textcheck.go).
func Prepare(in *contract.Contract) (*Prepared, error) {
	if in == nil {
		return nil, errors.New("nil contract")
	}
	c := *in
	bad := func(field, format string, args ...any) error {
		return &FieldError{ContractID: c.ID, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case strings.TrimSpace(c.ID) == "":
		return nil, bad("id", "empty")
	case c.ID != strings.TrimSpace(c.ID):
		return nil, bad("id", "has surrounding whitespace")
	case len(c.ID) > MaxIDLen:
		return nil, bad("id", "longer than %d bytes", MaxIDLen)
	}
	for _, d := range []struct{ field, value string }{
		{"effective_date", c.EffectiveDate}, {"end_date", c.EndDate},
	} {
		if d.value == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, d.value); err != nil {
			return nil, bad(d.field, "%q is not a YYYY-MM-DD date", d.value)
		}
	}
	if c.RenewalKind != "" && !slices.Contains(contract.RenewalKinds, c.RenewalKind) {
		return nil, bad("renewal_kind", "%q is not one of %s", c.RenewalKind, strings.Join(contract.RenewalKinds, ", "))
	}
	if c.RenewalCount < 0 || c.RenewalCount > maxRenewalCount {
		return nil, bad("renewal_count", "%d is outside 0..%d", c.RenewalCount, maxRenewalCount)
	}
	if c.TerminationNotice != "" {
		if _, err := contract.ParseISODuration(c.TerminationNotice); err != nil {
			return nil, bad("termination_notice", "%v", err)
		}
	}
	if c.TotalAmount != nil && (math.IsNaN(*c.TotalAmount) || math.IsInf(*c.TotalAmount, 0)) {
		return nil, bad("total_amount", "not a finite number")
	}
	if c.TotalAmount != nil && *c.TotalAmount < 0 {
		return nil, bad("total_amount", "negative (%s): a contract's value is not below zero", strconv.FormatFloat(*c.TotalAmount, 'f', -1, 64))
	}
	if c.Currency != "" {
		// Stored amounts name their currency by its ISO 4217 code.
		if code, ok := contract.NormalizeCurrency(c.Currency); ok {
			c.Currency = code
		} else if !isCurrencyCode(c.Currency) {
			return nil, bad("currency", "%q is not an ISO 4217 currency code such as USD, EUR or GBP", c.Currency)
		}
	}
	if c.DurationDays != nil && *c.DurationDays < 0 {
		return nil, bad("duration_days", "negative (%d)", *c.DurationDays)
	}
	if c.GoverningLaw.IsZero() {
		c.GoverningLaw = nil
	} else {
		gl := *c.GoverningLaw
		c.GoverningLaw = &gl
	}

	p := &Prepared{}
	c.Parties = append([]contract.PartyRole(nil), in.Parties...)
	for i := range c.Parties {
		pr := &c.Parties[i]
		pr.PartyID = ""
		pr.Name = contract.CleanPartyName(pr.Name)
		key := contract.PartyKey(pr.Name)
		if key == "" {
			return nil, bad(fmt.Sprintf("parties[%d].name", i), "%q holds no letter or digit", pr.Name)
		}
		if pr.Location.IsZero() {
			pr.Location = nil
		} else {
			l := *pr.Location
			pr.Location = &l
		}
		p.Keys = append(p.Keys, key)
		p.MatchKeys = append(p.MatchKeys, contract.MatchKey(pr.Name))
	}

	span := func(field string, start, end int) error {
		if start < 0 || end < start || end > len(c.Text) {
			return bad(field, "span [%d,%d) lies outside the %d-byte text", start, end, len(c.Text))
		}
		return nil
	}
	c.Clauses = append([]contract.Clause(nil), in.Clauses...)
	for i := range c.Clauses {
		cl := &c.Clauses[i]
		field := fmt.Sprintf("clauses[%d]", i)
		if strings.TrimSpace(cl.Type) == "" {
			return nil, bad(field+".type", "empty")
		}
		if cl.Group == "" {
			if _, g, err := contract.ParseClauseType(cl.Type); err == nil {
				cl.Group = g
			}
		}
		if cl.ID == "" {
			cl.ID = c.ID + "#clause-" + strconv.Itoa(i+1)
		}
		if err := span(field, cl.Start, cl.End); err != nil {
			return nil, err
		}
		if cl.Verified && c.Text[cl.Start:cl.End] != cl.Text {
			return nil, bad(field+".verified", "the text at [%d,%d) differs from the clause text", cl.Start, cl.End)
		}
	}
	c.Chunks = append([]contract.Chunk(nil), in.Chunks...)
	ords := map[int]bool{}
	for i := range c.Chunks {
		ch := &c.Chunks[i]
		field := fmt.Sprintf("chunks[%d]", i)
		if ords[ch.Ord] {
			return nil, bad(field+".ord", "%d repeats an earlier chunk's", ch.Ord)
		}
		ords[ch.Ord] = true
		if ch.Text == "" {
			return nil, bad(field+".text", "empty")
		}
		if err := span(field, ch.Start, ch.End); err != nil {
			return nil, err
		}
		if ch.ID == "" {
			ch.ID = c.ID + "#chunk-" + strconv.Itoa(i+1)
		}
		if len(ch.Embedding) == 0 {
			ch.EmbeddingModel = "" // names no vector
		}
	}
	for i, e := range c.Evidence {
		field := fmt.Sprintf("evidence[%d]", i)
		if err := span(field, e.Start, e.End); err != nil {
			return nil, err
		}
		if e.Verified && c.Text[e.Start:e.End] != e.Quote {
			return nil, bad(field+".verified", "the text at [%d,%d) differs from the quote", e.Start, e.End)
		}
	}
	if c.Usage != nil {
		u := *c.Usage
		c.Usage = &u
	}
	if len(c.Provenance) == 0 {
		c.Provenance = nil
	} else {
		c.Provenance = maps.Clone(c.Provenance)
	}
	if len(c.Provenance) > MaxProvenance {
		return nil, bad("provenance", "%d entries, more than %d", len(c.Provenance), MaxProvenance)
	}
	for f, src := range c.Provenance {
		if f == "" || len(f) > MaxIDLen || len(src) > MaxIDLen || !utf8.ValidString(f) || !utf8.ValidString(src) {
			return nil, bad("provenance", "entry %q: %q: a field and a source label of at most %d bytes of UTF-8 each", f, src, MaxIDLen)
		}
	}
	if field, why := textError(&c); why != "" {
		return nil, bad(field, "%s", why)
	}
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, bad("", "encode: %v", err)
	}
	sum := sha256.Sum256(b)
	p.Contract = &c
	p.Hash = hex.EncodeToString(sum[:])
	p.Unverified = contract.UnverifiedValues(&c)
	return p, nil
}

// PartyID is the stable id of the party whose PartyKey is key: the key with
// spaces as hyphens (keys hold only lower-case letters, digits and spaces).
func PartyID(key string) string {
	return strings.ReplaceAll(key, " ", "-")
}

// LocationID is the identity of a Location node: locations are shared by
// every party and contract that names the same (country, state, city,
// address).
func LocationID(l *contract.Location) string {
	sum := sha256.Sum256([]byte(l.Country + "\x1f" + l.State + "\x1f" + l.City + "\x1f" + l.Address))
	return "loc-" + hex.EncodeToString(sum[:12])
}

// MergeStored combines a stored contract with p, a prepared record with
// the same id, by contract.Merge, and returns the result prepared and the
// merge's report. Backends call it when the record's hash differs from the
// stored one's; when the result's hash equals storedHash, nothing is to be
// written (the record adds nothing to what is stored).
func MergeStored(stored *contract.Contract, p *Prepared) (*Prepared, contract.MergeReport, error) {
	merged, rep := contract.Merge(stored, p.Contract)
	q, err := Prepare(merged)
	if err != nil {
		return nil, rep, fmt.Errorf("merge with the stored version: %w", err)
	}
	return q, rep, nil
}

// MergedStatus is the status of writing a merge's result over a stored
// version whose hash was storedHash.
func MergedStatus(q *Prepared, rep contract.MergeReport, storedHash string) PutStatus {
	switch {
	case q.Hash == storedHash:
		return PutUnchanged
	case rep.Merged():
		return PutMerged
	}
	return PutUpdated
}

// isCurrencyCode reports whether s has the form of an ISO 4217 code: three
// capital letters.
func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}
