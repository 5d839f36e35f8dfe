package importer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/jsonmsg"
)

// refRecord is one element of the reference extraction array
// (legal-tech-chat's contract_data.json).
type refRecord struct {
	Summary       string          `json:"summary"`
	ContractType  string          `json:"contract_type"`
	Parties       []refParty      `json:"parties"`
	EffectiveDate string          `json:"effective_date"`
	ContractScope string          `json:"contract_scope"`
	Duration      string          `json:"duration"`
	EndDate       string          `json:"end_date"`
	TotalAmount   json.RawMessage `json:"total_amount"`
	GoverningLaw  *refLocation    `json:"governing_law"`
	Clauses       []refClause     `json:"clauses"`
	FileID        string          `json:"file_id"`
}

type refParty struct {
	Name     string       `json:"name"`
	Location *refLocation `json:"location"`
	Role     string       `json:"role"`
}

type refLocation struct {
	Address string `json:"address"`
	City    string `json:"city"`
	State   string `json:"state"`
	Country string `json:"country"`
}

type refClause struct {
	Summary    string `json:"summary"`
	ClauseType string `json:"clause_type"`
}

// readReference streams the JSON array one element at a time, so that a
// record of the wrong shape fails alone and a record over lim.RecordBytes
// is skipped without being held in memory.
func readReference(ctx context.Context, path string, r *bufio.Reader, lim Limits, fn func(Record) error) error {
	arr, err := newArrayReader(r, lim.RecordBytes)
	if err != nil {
		return &RecordError{File: path, Err: fmt.Errorf("read array start: %w", err)}
	}
	for i := 1; ; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		el, err := arr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &RecordError{File: path, Record: recordLabel("record", i, "", ""), Err: err}
		}
		rec := Record{Source: path, Index: i}
		if el.raw == nil {
			rec.Err = &RecordError{File: path, Record: fmt.Sprintf("record %d (at byte %d)", i, el.start), Err: recordTooLarge(el.size, lim.RecordBytes)}
		} else {
			rec.Contract, rec.Warnings, rec.Err = convertReference(path, i, el.raw)
			if at := invalidUTF8(el.raw); at >= 0 && rec.Err == nil {
				rec.Warnings = append(rec.Warnings, &RecordError{File: path, Record: recordLabel("record", i, "id", rec.Contract.ID), Err: replacedUTF8(at)})
			}
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// convertReference turns one raw reference record into a contract.
func convertReference(path string, index int, raw json.RawMessage) (*contract.Contract, []error, error) {
	var in refRecord
	err := json.Unmarshal(raw, &in)
	id := in.FileID
	if err != nil {
		var peek struct {
			FileID any `json:"file_id"`
		}
		_ = json.Unmarshal(raw, &peek)
		id, _ = peek.FileID.(string)
	}
	id = norm.NFC.String(strings.TrimSpace(id))
	label := recordLabel("record", index, "id", id)
	fail := func(field string, err error) (*contract.Contract, []error, error) {
		return nil, nil, &RecordError{File: path, Record: label, Field: field, Err: err}
	}
	if err != nil {
		if field, msg, ok := jsonmsg.Describe(err); ok {
			return fail(field, errors.New(msg))
		}
		return fail("", err)
	}
	if id == "" {
		return fail("file_id", errors.New("missing"))
	}
	w := &warner{file: path, record: label}
	c := &contract.Contract{
		ID:         id,
		Title:      TitleFromID(id),
		Summary:    cleanText(in.Summary),
		Scope:      cleanText(in.ContractScope),
		SourcePath: path,
		// The reference records are an LLM extraction: this label ranks
		// them below expert annotations when a contract is merged.
		ExtractedBy: contract.ReferenceSource,
	}
	if !isPlaceholder(in.ContractType) {
		if t, err := contract.ParseContractType(in.ContractType, id); err == nil {
			c.ContractType = t
		} else {
			w.add("contract_type", fmt.Errorf("unknown contract type %q dropped", in.ContractType))
		}
	}
	c.EffectiveDate = normDateField(w, "effective_date", in.EffectiveDate)
	c.EndDate = normDateField(w, "end_date", in.EndDate)
	if !isPlaceholder(in.Duration) {
		if days, err := contract.ParseISODuration(in.Duration); err == nil {
			c.Duration = strings.ToUpper(strings.TrimSpace(in.Duration))
			c.DurationDays = &days
		} else {
			w.add("duration", fmt.Errorf("%w; dropped", err))
		}
	}
	if amt, err := parseAmount(in.TotalAmount); err != nil {
		w.add("total_amount", err)
	} else {
		c.TotalAmount = amt
	}
	if g := in.GoverningLaw; g != nil {
		c.GoverningLaw = normalizeLocation(w, "governing_law", g.Country, g.State, g.City, g.Address)
	}
	for i, p := range in.Parties {
		field := fmt.Sprintf("parties[%d]", i)
		name := contract.CleanPartyName(p.Name)
		if isPlaceholder(name) {
			w.add(field+".name", fmt.Errorf("party without a name %q dropped", p.Name))
			continue
		}
		pr := contract.PartyRole{Name: name, Role: strings.Join(strings.Fields(p.Role), " ")}
		if l := p.Location; l != nil {
			pr.Location = normalizeLocation(w, field+".location", l.Country, l.State, l.City, l.Address)
		}
		c.Parties = append(c.Parties, pr)
	}
	for i, cl := range in.Clauses {
		typ, group, err := contract.ParseClauseType(cl.ClauseType)
		if err != nil {
			w.add(fmt.Sprintf("clauses[%d].clause_type", i), fmt.Errorf("unknown clause type %q; clause dropped", cl.ClauseType))
			continue
		}
		c.Clauses = append(c.Clauses, contract.Clause{Type: typ, Group: group, Summary: cleanText(cl.Summary)})
	}
	return c, w.list, nil
}

// cleanText collapses white space.
func cleanText(s string) string { return strings.Join(strings.Fields(s), " ") }

// normDateField normalises a date field, warning about and dropping a value
// that is not a date.
func normDateField(w *warner, field, v string) string {
	if isPlaceholder(v) {
		return ""
	}
	d, err := contract.NormalizeDate(v)
	if err != nil {
		w.add(field, fmt.Errorf("%w; dropped", err))
		return ""
	}
	return d
}

// parseAmount accepts a JSON number, null, or a string such as "$1,200.50".
func parseAmount(raw json.RawMessage) (*float64, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	if s[0] == '"' {
		var str string
		if err := json.Unmarshal(raw, &str); err != nil {
			return nil, fmt.Errorf("invalid amount %s", s)
		}
		if isPlaceholder(str) {
			return nil, nil
		}
		s = strings.NewReplacer("$", "", ",", "", " ", "", "USD", "", "US", "").Replace(str)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != v || v > 1e18 || v < -1e18 {
		return nil, fmt.Errorf("invalid amount %s dropped", string(raw))
	}
	if v < 0 {
		return nil, fmt.Errorf("negative amount %s dropped", string(raw))
	}
	return &v, nil
}

// exhibitMarker finds the exhibit marker in SEC file ids, e.g. "-EX-10.1-"
// or "_EX-10.27_", after which the document title follows.
var exhibitMarker = regexp.MustCompile(`(?i)[-_]EX-?[0-9A-Z.()]*[-_]`)

// smallWords stay lower-case inside a title.
var smallWords = map[string]bool{"and": true, "of": true, "the": true, "for": true, "to": true, "in": true, "on": true, "or": true, "a": true, "an": true}

// TitleFromID derives a readable title from a file id such as
// "ACME_01_02_2010-EX-10.1-DISTRIBUTOR AGREEMENT": the part after the last
// exhibit marker, in title case when it was written in capitals.
func TitleFromID(id string) string {
	t := id
	if locs := exhibitMarker.FindAllStringIndex(id, -1); len(locs) > 0 {
		if rest := id[locs[len(locs)-1][1]:]; strings.IndexFunc(rest, isAlnum) >= 0 {
			t = rest
		}
	}
	t = strings.Join(strings.Fields(strings.ReplaceAll(t, "_", " ")), " ")
	if t != strings.ToUpper(t) {
		return t
	}
	words := strings.Fields(strings.ToLower(t))
	for i, wd := range words {
		if i > 0 && smallWords[wd] {
			continue
		}
		if len(wd) <= 2 && wd == "ip" {
			words[i] = "IP"
			continue
		}
		parts := strings.Split(wd, "-")
		for j, part := range parts {
			if r := []rune(part); len(r) > 0 {
				parts[j] = strings.ToUpper(string(r[0])) + string(r[1:])
			}
		}
		words[i] = strings.Join(parts, "-")
	}
	return strings.Join(words, " ")
}
