package contract

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Sources. A contract's source is named by its ExtractedBy label; Provenance
// names the source of each value that came from another one. Sources are
// ranked, from the highest precedence down:
//
//  1. expert annotations: CUAD (labels starting "cuad", e.g. "cuad-v1");
//  2. ContractGraph's own LLM extraction (`ingest`), labelled with the model
//     as provider:model, whose values carry verified evidence quotes;
//  3. the reference extraction (ReferenceSource: legal-tech-chat's
//     contract_data.json, itself an LLM extraction);
//  4. anything else (synthetic corpora, the demo, records without a label),
//     ranked among themselves by label.
//
// Labels of one kind among the first three are one source: re-extracting
// with another model replaces the earlier extraction's values.
const (
	// ReferenceSource labels records of the reference extraction format.
	ReferenceSource = "legal-tech-chat"
	// ExpertSourcePrefix starts the label of expert annotations.
	ExpertSourcePrefix = "cuad"
)

// sourceRank is the precedence of a label's kind; higher wins.
func sourceRank(label string) int {
	switch {
	case strings.HasPrefix(strings.ToLower(label), ExpertSourcePrefix):
		return 3
	case isModelLabel(label):
		return 2
	case label == ReferenceSource:
		return 1
	}
	return 0
}

// isModelLabel reports whether label names a model as provider:model.
func isModelLabel(label string) bool {
	provider, model, ok := strings.Cut(label, ":")
	return ok && provider != "" && model != "" && !strings.ContainsAny(provider, " \t")
}

// SourceKey names the source a label belongs to: labels with equal keys are
// versions of one source, whose newer record replaces the older one's values.
func SourceKey(label string) string {
	switch sourceRank(label) {
	case 3:
		return "expert"
	case 2:
		return "extraction"
	case 1:
		return "reference"
	}
	return "other:" + label
}

// Precedes reports whether a value from source label a wins over a
// different value from label b of another source.
func Precedes(a, b string) bool {
	if ra, rb := sourceRank(a), sourceRank(b); ra != rb {
		return ra > rb
	}
	return SourceKey(a) < SourceKey(b)
}

// Conflict is a field that two sources gave different values: Kept is the
// value stored, by precedence, Other the value not stored.
type Conflict struct {
	Field       string `json:"field"`
	Kept        string `json:"kept"`
	KeptSource  string `json:"kept_source"`
	Other       string `json:"other"`
	OtherSource string `json:"other_source"`
}

// MergeReport says what Merge took from the stored version.
type MergeReport struct {
	// Kept lists the fields (provenance keys, e.g. "summary",
	// "parties[acme].location", "clauses[3]") whose stored value survives
	// although the incoming record did not have it.
	Kept []string
	// Conflicts lists the fields both gave, differently.
	Conflicts []Conflict
}

// Merged reports whether anything of the stored version survived that the
// incoming record lacked or contradicted.
func (r MergeReport) Merged() bool { return len(r.Kept) > 0 || len(r.Conflicts) > 0 }

// SourceOf returns the source label of the value at field (a provenance key).
func (c *Contract) SourceOf(field string) string {
	if s, ok := c.Provenance[field]; ok {
		return s
	}
	return c.ExtractedBy
}

// Merge combines the stored version of a contract with an incoming record
// of it, field by field, and returns the result with a report; neither
// argument is changed. Per field (a group such as the amount with its
// currency, or the text with its chunks, counts as one):
//
//   - a value from the incoming record's own source replaces that source's
//     earlier value, even with nothing (a source's new version is the truth
//     about what that source says);
//   - otherwise a non-empty value wins over an empty one, and of two
//     different values the one from the source of higher precedence (see
//     Precedes) wins, which the report lists as a conflict.
//
// Parties are matched by PartyKey and merged the same way (presence, role,
// location); clauses and evidence are the union of both, less the stored
// items of the incoming record's sources, ordered by source precedence and
// then by their order in their source, so that importing two sources in
// either order gives the same contract. Spans of items whose text was not
// kept are located again in the kept text, or cleared and unverified.
// Clause ids derived from positions are cleared, for Prepare to derive them
// again. The result's ExtractedBy is the label of highest precedence, and
// its Provenance names the source of every value from another label.
func Merge(stored, incoming *Contract) (*Contract, MergeReport) {
	m := &merger{old: stored, inc: incoming, prov: map[string]string{}, incSources: map[string]bool{}}
	m.incSources[SourceKey(incoming.ExtractedBy)] = true
	for _, s := range incoming.Provenance {
		m.incSources[SourceKey(s)] = true
	}
	out := &Contract{ID: incoming.ID}
	m.out = out
	for _, g := range scalarGroups {
		m.scalar(g)
	}
	m.out.GoverningLaw = m.location("governing_law", stored.SourceOf("governing_law"), incoming.SourceOf("governing_law"),
		stored.GoverningLaw, incoming.GoverningLaw)
	m.parties()
	m.clauses()
	m.evidence()

	// The label: that of the highest precedence, or the incoming one's
	// when both are one source.
	src := stored
	if SourceKey(stored.ExtractedBy) == SourceKey(incoming.ExtractedBy) || Precedes(incoming.ExtractedBy, stored.ExtractedBy) {
		src = incoming
	}
	out.ExtractedBy, out.ExtractedAt = src.ExtractedBy, src.ExtractedAt
	if src.Usage != nil {
		u := *src.Usage
		out.Usage = &u
	}
	for f, s := range m.prov {
		if s == out.ExtractedBy {
			delete(m.prov, f)
		}
	}
	if len(m.prov) > 0 {
		out.Provenance = m.prov
	}
	slices.Sort(m.rep.Kept)
	slices.SortFunc(m.rep.Conflicts, func(a, b Conflict) int { return strings.Compare(a.Field, b.Field) })
	return out, m.rep
}

type merger struct {
	old, inc, out *Contract
	prov          map[string]string
	incSources    map[string]bool // source keys the incoming record speaks for
	rep           MergeReport
}

// choose decides one field: whether the incoming value wins, and the
// source of the value kept ("" when neither has one).
func (m *merger) choose(field, so, sn string, filledOld, filledNew, equal bool, show func(fromNew bool) string) (useNew bool, src string) {
	switch {
	case SourceKey(so) == SourceKey(sn):
		useNew = true
	case !filledNew && !filledOld:
		return true, ""
	case !filledNew:
		m.rep.Kept = append(m.rep.Kept, field)
		useNew = false
	case !filledOld:
		useNew = true
	case equal:
		useNew = Precedes(sn, so)
	default:
		useNew = Precedes(sn, so)
		c := Conflict{Field: field, Kept: show(useNew), Other: show(!useNew), KeptSource: so, OtherSource: sn}
		if useNew {
			c.KeptSource, c.OtherSource = sn, so
		}
		m.rep.Conflicts = append(m.rep.Conflicts, c)
	}
	filled := filledOld
	src = so
	if useNew {
		filled, src = filledNew, sn
	}
	if !filled {
		return useNew, ""
	}
	m.prov[field] = src
	return useNew, src
}

// mergedFields are the JSON names of the Contract fields Merge combines,
// by the group (provenance key) that carries each; a test fails for a
// field added to Contract without a place here.
var mergedFields = map[string]string{
	"id": "", "title": "title", "summary": "summary", "contract_type": "contract_type",
	"effective_date": "effective_date", "end_date": "end_date", "duration": "duration", "duration_days": "duration",
	"renewal_term": "renewal_term", "notice_period": "notice_period", "total_amount": "total_amount",
	"currency": "total_amount", "scope": "scope", "source_path": "text", "sha256": "text", "text": "text",
	"chunks": "text", "extracted_by": "", "extracted_at": "", "usage": "", "renewal_kind": "renewal_kind",
	"renewal_count": "renewal_kind", "termination_notice": "termination_notice", "governing_law": "governing_law",
	"parties": "parties", "clauses": "clauses", "evidence": "evidence", "provenance": "",
}

// scalarGroup is a field, or fields that belong together, of Contract.
type scalarGroup struct {
	field  string
	filled func(c *Contract) bool
	equal  func(a, b *Contract) bool
	copy   func(dst, src *Contract)
	show   func(c *Contract) string
}

func (m *merger) scalar(g scalarGroup) {
	useNew, _ := m.choose(g.field, m.old.SourceOf(g.field), m.inc.SourceOf(g.field),
		g.filled(m.old), g.filled(m.inc), g.equal(m.old, m.inc),
		func(fromNew bool) string {
			if fromNew {
				return g.show(m.inc)
			}
			return g.show(m.old)
		})
	if useNew {
		g.copy(m.out, m.inc)
	} else {
		g.copy(m.out, m.old)
	}
}

// stringGroup is a scalar group of one string field.
func stringGroup(field string, get func(c *Contract) *string) scalarGroup {
	return scalarGroup{
		field:  field,
		filled: func(c *Contract) bool { return *get(c) != "" },
		equal:  func(a, b *Contract) bool { return *get(a) == *get(b) },
		copy:   func(dst, src *Contract) { *get(dst) = *get(src) },
		show:   func(c *Contract) string { return *get(c) },
	}
}

var scalarGroups = []scalarGroup{
	stringGroup("title", func(c *Contract) *string { return &c.Title }),
	stringGroup("summary", func(c *Contract) *string { return &c.Summary }),
	stringGroup("contract_type", func(c *Contract) *string { return &c.ContractType }),
	stringGroup("effective_date", func(c *Contract) *string { return &c.EffectiveDate }),
	stringGroup("end_date", func(c *Contract) *string { return &c.EndDate }),
	{
		field:  "duration",
		filled: func(c *Contract) bool { return c.Duration != "" || c.DurationDays != nil },
		equal: func(a, b *Contract) bool {
			return a.Duration == b.Duration && equalPtr(a.DurationDays, b.DurationDays)
		},
		copy: func(dst, src *Contract) { dst.Duration, dst.DurationDays = src.Duration, clonePtr(src.DurationDays) },
		show: func(c *Contract) string {
			if c.DurationDays == nil {
				return c.Duration
			}
			return strings.TrimSpace(c.Duration + " (" + strconv.Itoa(*c.DurationDays) + " days)")
		},
	},
	stringGroup("renewal_term", func(c *Contract) *string { return &c.RenewalTerm }),
	stringGroup("notice_period", func(c *Contract) *string { return &c.NoticePeriod }),
	{
		// The kind of renewal and the limit on automatic ones go together.
		field:  "renewal_kind",
		filled: func(c *Contract) bool { return c.RenewalKind != "" || c.RenewalCount != 0 },
		equal:  func(a, b *Contract) bool { return a.RenewalKind == b.RenewalKind && a.RenewalCount == b.RenewalCount },
		copy:   func(dst, src *Contract) { dst.RenewalKind, dst.RenewalCount = src.RenewalKind, src.RenewalCount },
		show: func(c *Contract) string {
			if c.RenewalCount == 0 {
				return c.RenewalKind
			}
			return strings.TrimSpace(c.RenewalKind + " (at most " + strconv.Itoa(c.RenewalCount) + " times)")
		},
	},
	stringGroup("termination_notice", func(c *Contract) *string { return &c.TerminationNotice }),
	{
		// An amount means nothing without its currency: they go together.
		field:  "total_amount",
		filled: func(c *Contract) bool { return c.TotalAmount != nil },
		equal: func(a, b *Contract) bool {
			return equalPtr(a.TotalAmount, b.TotalAmount) && a.Currency == b.Currency
		},
		copy: func(dst, src *Contract) { dst.TotalAmount, dst.Currency = clonePtr(src.TotalAmount), src.Currency },
		show: func(c *Contract) string {
			if c.TotalAmount == nil {
				return ""
			}
			return strings.TrimSpace(strconv.FormatFloat(*c.TotalAmount, 'f', -1, 64) + " " + c.Currency)
		},
	},
	stringGroup("scope", func(c *Contract) *string { return &c.Scope }),
	{
		// The text, the file it came from and the chunks cut from it go
		// together; two records differ in text only when both have one.
		field:  "text",
		filled: func(c *Contract) bool { return c.Text != "" || c.SourcePath != "" || c.SHA256 != "" },
		equal:  func(a, b *Contract) bool { return a.Text == "" || b.Text == "" || a.Text == b.Text },
		copy: func(dst, src *Contract) {
			dst.Text, dst.SHA256, dst.SourcePath = src.Text, src.SHA256, src.SourcePath
			dst.Chunks = slices.Clone(src.Chunks)
		},
		show: func(c *Contract) string {
			return fmt.Sprintf("%d bytes of text from %s", len(c.Text), cmp.Or(c.SourcePath, "an unnamed file"))
		},
	},
}

// String writes the location's non-empty parts, most specific first.
func (l *Location) String() string {
	if l == nil {
		return ""
	}
	var parts []string
	for _, p := range []string{l.Address, l.City, l.State, l.Country} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

func equalPtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func equalLocation(a, b *Location) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero() == b.IsZero()
	}
	return *a == *b
}

func cloneLocation(l *Location) *Location {
	if l.IsZero() {
		return nil
	}
	v := *l
	return &v
}

// item is one list element of a merge with where it came from.
type item[T any] struct {
	v     T
	src   string
	index int  // position in the record it came from
	inc   bool // from the incoming record
}

// sortItems orders items by the precedence of their source, then by their
// order in it; items of one source all come from one record.
func sortItems[T any](items []item[T]) {
	slices.SortStableFunc(items, func(a, b item[T]) int {
		switch {
		case SourceKey(a.src) == SourceKey(b.src):
			return cmp.Compare(a.index, b.index)
		case Precedes(a.src, b.src):
			return -1
		}
		return 1
	})
}

// partyKeys gives each party of c its PartyKey, numbered from the second
// party with the same key on ("acme#2").
func partyKeys(c *Contract) []string {
	keys := make([]string, len(c.Parties))
	seen := map[string]int{}
	for i, p := range c.Parties {
		k := PartyKey(CleanPartyName(p.Name))
		seen[k]++
		if n := seen[k]; n > 1 {
			k += "#" + strconv.Itoa(n)
		}
		keys[i] = k
	}
	return keys
}

func (m *merger) parties() {
	oldKeys, incKeys := partyKeys(m.old), partyKeys(m.inc)
	pairs := matchParties(m.old, m.inc, oldKeys, incKeys)
	type party struct {
		p   PartyRole
		key string
	}
	var items []item[party]
	matched := map[string]bool{} // incoming keys matched
	matchedOld := map[int]bool{}
	for i := range pairs {
		matchedOld[i] = true
	}
	for i, op := range m.old.Parties {
		k := oldKeys[i]
		field := "parties[" + k + "]"
		so := m.old.SourceOf(field)
		j, ok := pairs[i]
		if !ok {
			if m.incSources[SourceKey(so)] {
				continue // that source no longer lists the party
			}
			m.rep.Kept = append(m.rep.Kept, field)
			kept := clonePartyRole(op)
			// What the incoming record's sources said of it, they no
			// longer say.
			if m.incSources[SourceKey(m.old.SourceOf(field+".role"))] {
				kept.Role = ""
			}
			if m.incSources[SourceKey(m.old.SourceOf(field+".location"))] {
				kept.Location = nil
			}
			items = append(items, item[party]{v: party{kept, k}, src: so, index: i})
			continue
		}
		np := m.inc.Parties[j]
		matched[incKeys[j]] = true
		sn := m.inc.SourceOf("parties[" + incKeys[j] + "]")
		// Presence and name: the incoming record's when it is the same
		// source, else the one of higher precedence. The sub-fields are
		// recorded under the key of the name kept.
		useNew := SourceKey(so) == SourceKey(sn) || Precedes(sn, so)
		it := item[party]{v: party{PartyRole{Name: op.Name}, k}, src: so, index: i}
		if useNew {
			it = item[party]{v: party{PartyRole{Name: np.Name}, incKeys[j]}, src: sn, index: j, inc: true}
		}
		field = "parties[" + it.v.key + "]"
		oldField, incField := "parties["+k+"]", "parties["+incKeys[j]+"]"
		m.prov[field] = it.src
		roleField := field + ".role"
		if n, _ := m.choose(roleField, m.old.SourceOf(oldField+".role"), m.inc.SourceOf(incField+".role"),
			op.Role != "", np.Role != "", op.Role == np.Role,
			func(fromNew bool) string { return pick(fromNew, np.Role, op.Role) }); n {
			it.v.p.Role = np.Role
		} else {
			it.v.p.Role = op.Role
		}
		locField := field + ".location"
		it.v.p.Location = m.location(locField, m.old.SourceOf(oldField+".location"), m.inc.SourceOf(incField+".location"),
			op.Location, np.Location)
		items = append(items, it)
	}
	for j, np := range m.inc.Parties {
		k := incKeys[j]
		if matched[k] {
			continue
		}
		field := "parties[" + k + "]"
		items = append(items, item[party]{v: party{clonePartyRole(np), k}, src: m.inc.SourceOf(field), index: j, inc: true})
		for _, sub := range []string{field + ".role", field + ".location"} {
			if s := m.inc.SourceOf(sub); s != "" {
				m.prov[sub] = s
			}
		}
	}
	sortItems(items)
	for _, it := range items {
		it.v.p.PartyID = ""
		m.out.Parties = append(m.out.Parties, it.v.p)
		field := "parties[" + it.v.key + "]"
		m.prov[field] = it.src
		if !it.inc && !matchedOld[it.index] {
			// Kept unmatched: its sub-fields keep their stored sources.
			for _, sub := range []string{field + ".role", field + ".location"} {
				m.prov[sub] = m.old.SourceOf(sub)
			}
		}
		// The sources of empty values name nothing.
		if it.v.p.Role == "" {
			delete(m.prov, field+".role")
		}
		if it.v.p.Location.IsZero() {
			delete(m.prov, field+".location")
		}
	}
}

func pick[T any](fromNew bool, n, o T) T {
	if fromNew {
		return n
	}
	return o
}

func clonePartyRole(p PartyRole) PartyRole {
	p.Location = cloneLocation(p.Location)
	return p
}

// listItems gathers the stored items of a list (less those of the incoming
// record's sources) and the incoming ones, dropping an item that repeats
// one of higher precedence from another source, in merged order.
func listItems[T any](m *merger, field string, old, inc []T, same func(a, b T) bool) []item[T] {
	var items []item[T]
	for i, v := range old {
		src := m.old.SourceOf(field + "[" + strconv.Itoa(i) + "]")
		if m.incSources[SourceKey(src)] {
			continue
		}
		items = append(items, item[T]{v: v, src: src, index: i})
	}
	for i, v := range inc {
		items = append(items, item[T]{v: v, src: m.inc.SourceOf(field + "[" + strconv.Itoa(i) + "]"), index: i, inc: true})
	}
	sortItems(items)
	out := items[:0]
	for _, it := range items {
		dup := slices.ContainsFunc(out, func(o item[T]) bool { return SourceKey(o.src) != SourceKey(it.src) && same(o.v, it.v) })
		if !dup {
			out = append(out, it)
		}
	}
	for i, it := range out {
		key := field + "[" + strconv.Itoa(i) + "]"
		m.prov[key] = it.src
		if !it.inc {
			m.rep.Kept = append(m.rep.Kept, key)
		}
	}
	return out
}

// relocate returns the span of quote in text when the item's own text
// (from) is not the merged text: found again exactly, or cleared.
func relocate(text, from, quote string, start, end int, verified bool) (int, int, bool) {
	if from == text {
		return start, end, verified
	}
	if quote != "" {
		if i := strings.Index(text, quote); i >= 0 {
			return i, i + len(quote), true
		}
	}
	return 0, 0, false
}

func (m *merger) itemText(inc bool) string {
	if inc {
		return m.inc.Text
	}
	return m.old.Text
}

func (m *merger) clauses() {
	prefixOld, prefixInc := m.old.ID+"#clause-", m.inc.ID+"#clause-"
	items := listItems(m, "clauses", m.old.Clauses, m.inc.Clauses, func(a, b Clause) bool {
		return a.Type == b.Type && a.Text == b.Text && a.Summary == b.Summary
	})
	for _, it := range items {
		cl := it.v
		if strings.HasPrefix(cl.ID, prefixOld) || strings.HasPrefix(cl.ID, prefixInc) {
			cl.ID = "" // derived from the position, which changes
		}
		cl.Start, cl.End, cl.Verified = relocate(m.out.Text, m.itemText(it.inc), cl.Text, cl.Start, cl.End, cl.Verified)
		m.out.Clauses = append(m.out.Clauses, cl)
	}
}

func (m *merger) evidence() {
	items := listItems(m, "evidence", m.old.Evidence, m.inc.Evidence, func(a, b Evidence) bool {
		return a.Field == b.Field && a.Value == b.Value && a.Quote == b.Quote
	})
	for _, it := range items {
		e := it.v
		e.Start, e.End, e.Verified = relocate(m.out.Text, m.itemText(it.inc), e.Quote, e.Start, e.End, e.Verified)
		m.out.Evidence = append(m.out.Evidence, e)
	}
}

// location merges two locations of one thing. When one only adds parts the
// other lacks (a city to the same state), they are one location, the union
// of both, recorded under the more specific one's source (the higher
// precedence's when each adds something); otherwise choose decides.
func (m *merger) location(field, so, sn string, o, n *Location) *Location {
	if !o.IsZero() && !n.IsZero() && SourceKey(so) != SourceKey(sn) && *o != *n {
		if u, ok := unionLocation(o, n); ok {
			src := so
			switch {
			case u == *n && u != *o:
				src = sn
			case u != *n && u != *o && Precedes(sn, so):
				src = sn
			}
			m.prov[field] = src
			return &u
		}
	}
	useNew, _ := m.choose(field, so, sn, !o.IsZero(), !n.IsZero(), equalLocation(o, n),
		func(fromNew bool) string { return pick(fromNew, n, o).String() })
	return cloneLocation(pick(useNew, n, o))
}

// unionLocation is the location with the parts of both, when no part is
// given differently by the two.
func unionLocation(a, b *Location) (Location, bool) {
	u := *a
	for _, f := range []struct {
		dst *string
		v   string
	}{
		{&u.Country, b.Country}, {&u.State, b.State}, {&u.City, b.City}, {&u.Address, b.Address},
	} {
		switch {
		case f.v == "":
		case *f.dst == "":
			*f.dst = f.v
		case *f.dst != f.v:
			return Location{}, false
		}
	}
	return u, true
}

// matchParties pairs the stored parties with the incoming ones: equal
// PartyKeys first, then, among the rest, keys equal once parenthesised
// asides are removed from the names ("Berkshire Bank (Berkshire)"), then
// one key's words starting the other's ("General Electric Capital
// Corporation together with its successors"), each only where the pair is
// the one candidate on both sides. The pairing does not depend on which
// side is stored. It returns stored index -> incoming index.
func matchParties(old, inc *Contract, oldKeys, incKeys []string) map[int]int {
	pairs := map[int]int{}
	taken := map[int]bool{}
	for _, match := range []func(i, j int) bool{
		func(i, j int) bool { return oldKeys[i] == incKeys[j] },
		func(i, j int) bool {
			a, b := PartyKey(stripAsides(old.Parties[i].Name)), PartyKey(stripAsides(inc.Parties[j].Name))
			return a != "" && a == b
		},
		func(i, j int) bool {
			return wordPrefix(oldKeys[i], incKeys[j]) || wordPrefix(incKeys[j], oldKeys[i])
		},
	} {
		cands := map[int][]int{}
		counts := map[int]int{}
		for i := range oldKeys {
			if _, ok := pairs[i]; ok {
				continue
			}
			for j := range incKeys {
				if !taken[j] && match(i, j) {
					cands[i] = append(cands[i], j)
					counts[j]++
				}
			}
		}
		for i, js := range cands {
			if len(js) == 1 && counts[js[0]] == 1 {
				pairs[i] = js[0]
				taken[js[0]] = true
			}
		}
	}
	return pairs
}

// stripAsides removes the parenthesised parts of a name.
func stripAsides(name string) string {
	var b strings.Builder
	depth := 0
	for _, r := range name {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// wordPrefix reports whether the words of a start those of b, which has more.
func wordPrefix(a, b string) bool {
	a, _, _ = strings.Cut(a, "#")
	b, _, _ = strings.Cut(b, "#")
	return a != "" && len(b) > len(a) && strings.HasPrefix(b, a+" ")
}
