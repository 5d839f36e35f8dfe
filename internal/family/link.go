package family

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// Record is what the linker knows of one contract.
type Record struct {
	ID            string
	Title         string
	ContractType  string
	EffectiveDate string // YYYY-MM-DD, "" when unknown
	// Text is the contract's text; only its first HeadBytes are read.
	Text    string
	Parties []Party
}

// Party is one party of a record: its resolved id in the store (which
// entity resolution shares between the spellings of one entity) and name.
type Party struct {
	ID   string
	Name string
}

// Link is a proposed (From)-[Kind]->(To): From amends or supplements To.
type Link struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Kind     Kind   `json:"kind"`
	Restates bool   `json:"restates,omitempty"`
	// Confidence is in (0, 1]: how well To matches what From refers to.
	Confidence float64 `json:"confidence"`
	// Evidence is From's words that refer to To.
	Evidence Evidence `json:"evidence"`
	// Reason says which signals matched, for a person checking the link.
	Reason string `json:"reason"`
}

// Candidate is a stored contract the linker weighed as a reference's
// master, with its score.
type Candidate struct {
	ContractID string  `json:"contract_id"`
	Title      string  `json:"title,omitempty"`
	Score      float64 `json:"score"`
	Reason     string  `json:"reason"`
}

// Unresolved is a contract that refers to a master the linker could not
// find among the records: most often an agreement that is not in the
// store, which a user may want to add.
type Unresolved struct {
	ContractID string    `json:"contract_id"`
	Title      string    `json:"title,omitempty"`
	Reference  Reference `json:"reference"`
	// Reason is ReasonNotInStore or ReasonAmbiguous.
	Reason string `json:"reason"`
	// Candidates are the best contracts weighed (at most three), for
	// ReasonAmbiguous and for near misses.
	Candidates []Candidate `json:"candidates,omitempty"`
}

// Reasons a reference stays unresolved.
const (
	ReasonNotInStore = "refers to an agreement not in the store"
	ReasonAmbiguous  = "several stored agreements match equally well"
)

// Result is what Detect found.
type Result struct {
	// Documents counts the records that refer to a master (amendments,
	// restatements, statements of work, schedules, ...).
	Documents  int          `json:"documents"`
	Links      []Link       `json:"links"`
	Unresolved []Unresolved `json:"unresolved"`
}

// Options tune Detect; the zero value uses the defaults.
type Options struct {
	// Threshold is the lowest confidence a link is proposed at
	// (DefaultThreshold when 0).
	Threshold float64
	// Margin is how far the best candidate must lead the second
	// (DefaultMargin when 0); closer than that, the reference is ambiguous.
	Margin float64
}

// Detection defaults, chosen on CUAD (docs/EVALUATION.md).
const (
	DefaultThreshold = 0.6
	DefaultMargin    = 0.05
)

// Detect finds, for every record that refers to a master agreement, the
// record it refers to: among the records sharing a party with it, the one
// whose title best matches the referenced agreement's name and whose
// effective date matches the referenced date. The best candidate becomes a
// link when it scores at least the threshold and leads the next by the
// margin; otherwise the reference is unresolved. A record that itself
// amends or supplements another is never taken for a master, except by a
// later restatement. Links are sorted by From, then To; unresolved
// references by contract id.
func Detect(records []Record, opts Options) Result {
	d := NewDetector(opts)
	for _, r := range records {
		d.Add(r)
	}
	return d.Result()
}

// Detector is Detect over records added one by one. It keeps of each
// record only what linking reads after its reference is parsed, compactly:
// detection over a store of a million contracts holds every record at once
// (any of them may be the master another refers to), so a record costs
// its id, three indexes into a table of the titles, types and dates the
// records share, and its party keys as indexes into one array, instead of
// copies of its strings (a tenth of the memory: TestDetectorCompact).
type Detector struct {
	opts Options
	recs []detRecord
	// strs holds each distinct title, contract type and date once;
	// strIndex finds them.
	strs     []string
	strIndex map[string]int32
	// keys holds the sorted party key indexes of every record, each
	// record's at keys[rec.keys : rec.keys+rec.nkeys].
	keys []int32
	// byParty lists, for each party key index, the records with the key.
	byParty [][]int32
	// idKeys and nameKeys number the keys of party ids and of party-name
	// keys (contract.PartyKey); names maps a name to its key's number (-1
	// for none), so that a name recurring on many contracts is keyed once.
	idKeys, nameKeys map[string]int32
	names            map[string]int32
}

// detRecord is what a Detector keeps of a record.
type detRecord struct {
	id               string
	title, typ, date int32 // indexes into Detector.strs
	keys, nkeys      int32 // its party keys in Detector.keys
	ref              *detReference
}

// detReference is a record's parsed reference with the type words its
// master's name is matched by.
type detReference struct {
	ref  Reference
	want wanted
}

// NewDetector returns a Detector with opts (see Detect).
func NewDetector(opts Options) *Detector {
	if opts.Threshold <= 0 {
		opts.Threshold = DefaultThreshold
	}
	if opts.Margin <= 0 {
		opts.Margin = DefaultMargin
	}
	return &Detector{opts: opts, strIndex: map[string]int32{}, idKeys: map[string]int32{}, nameKeys: map[string]int32{}, names: map[string]int32{}}
}

// str returns the index of s in d.strs, adding it the first time.
func (d *Detector) str(s string) int32 {
	if i, ok := d.strIndex[s]; ok {
		return i
	}
	i := int32(len(d.strs))
	d.strs = append(d.strs, s)
	d.strIndex[s] = i
	return i
}

// key returns the number of the key k of kind (d.idKeys or d.nameKeys),
// numbering it the first time.
func (d *Detector) key(kind map[string]int32, k string) int32 {
	if i, ok := kind[k]; ok {
		return i
	}
	i := int32(len(d.byParty))
	d.byParty = append(d.byParty, nil)
	kind[k] = i
	return i
}

// nameKey is the number of the party key of name, -1 when it has none
// (empty, or longer than 200 bytes).
func (d *Detector) nameKey(name string) int32 {
	if i, ok := d.names[name]; ok {
		return i
	}
	i := int32(-1)
	if k := contract.PartyKey(name); k != "" && len(k) <= 200 {
		i = d.key(d.nameKeys, k)
	}
	d.names[name] = i
	return i
}

// Add adds a record. Its reference, if any, is parsed now.
func (d *Detector) Add(r Record) {
	i := int32(len(d.recs))
	rec := detRecord{id: r.ID, title: d.str(r.Title), typ: d.str(r.ContractType), date: d.str(r.EffectiveDate), keys: int32(len(d.keys))}
	if parsed, ok := ParseReference(r.Title, r.Text); ok {
		rec.ref = &detReference{ref: parsed, want: wantedWords(&parsed, partyWords(r.Parties, contract.PartyKey))}
	}
	d.keys = d.partyKeys(d.keys, r.Parties)
	rec.nkeys = int32(len(d.keys)) - rec.keys
	for _, k := range d.keys[rec.keys:] {
		d.byParty[k] = append(d.byParty[k], i)
	}
	d.recs = append(d.recs, rec)
}

// record returns what d kept of record i, for scoring.
func (d *Detector) record(i int) Record {
	r := &d.recs[i]
	return Record{ID: r.id, Title: d.strs[r.title], ContractType: d.strs[r.typ], EffectiveDate: d.strs[r.date]}
}

// recordKeys returns the sorted party key numbers of record i.
func (d *Detector) recordKeys(i int) []int32 {
	r := &d.recs[i]
	return d.keys[r.keys : r.keys+r.nkeys]
}

// Titles returns the titles of the records added with the ids of want,
// in one pass over the records.
func (d *Detector) Titles(want []string) map[string]string {
	wanted := make(map[string]bool, len(want))
	for _, id := range want {
		wanted[id] = true
	}
	out := make(map[string]string, len(want))
	for _, r := range d.recs {
		if wanted[r.id] {
			out[r.id] = d.strs[r.title]
		}
	}
	return out
}

// Result links the records added so far (see Detect).
func (d *Detector) Result() Result {
	opts := d.opts
	res := Result{Links: []Link{}, Unresolved: []Unresolved{}}
	for _, r := range d.recs {
		if r.ref != nil {
			res.Documents++
		}
	}
	for i := range d.recs {
		dr := d.recs[i].ref
		if dr == nil {
			continue
		}
		ref := &dr.ref
		doc := d.record(i)
		docKeys := d.recordKeys(i)
		seen := map[int32]bool{int32(i): true}
		var cands []scored
		for _, k := range docKeys {
			for _, j := range d.byParty[k] {
				if seen[j] {
					continue
				}
				seen[j] = true
				if cr := d.recs[j].ref; cr != nil && !cr.ref.Restates {
					continue // an amendment is not a master; a restatement is
				}
				cand := d.record(int(j))
				if s, ok := score(&doc, ref, dr.want, docKeys, &cand, d.recordKeys(int(j))); ok {
					s.index = int(j)
					cands = append(cands, s)
				}
			}
		}
		slices.SortFunc(cands, func(a, b scored) int {
			if c := cmp.Compare(b.score, a.score); c != 0 {
				return c
			}
			return strings.Compare(d.recs[a.index].id, d.recs[b.index].id)
		})
		switch {
		case len(cands) > 0 && cands[0].score >= opts.Threshold &&
			(len(cands) == 1 || cands[0].score-cands[1].score >= opts.Margin):
			best := cands[0]
			res.Links = append(res.Links, Link{From: doc.ID, To: d.recs[best.index].id, Kind: ref.Kind, Restates: ref.Restates,
				Confidence: round3(best.score), Evidence: ref.Evidence, Reason: best.reason})
		default:
			u := Unresolved{ContractID: doc.ID, Title: doc.Title, Reference: *ref, Reason: ReasonNotInStore}
			if len(cands) > 1 && cands[0].score >= opts.Threshold {
				u.Reason = ReasonAmbiguous
			}
			for _, c := range cands[:min(3, len(cands))] {
				cand := d.record(c.index)
				u.Candidates = append(u.Candidates, Candidate{ContractID: cand.ID, Title: cand.Title,
					Score: round3(c.score), Reason: c.reason})
			}
			res.Unresolved = append(res.Unresolved, u)
		}
	}
	slices.SortFunc(res.Links, func(a, b Link) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.To, b.To))
	})
	slices.SortFunc(res.Unresolved, func(a, b Unresolved) int { return strings.Compare(a.ContractID, b.ContractID) })
	return res
}

// scored is one candidate master with its score.
type scored struct {
	index  int
	score  float64
	reason string
}

// Weights of the signals in a candidate's score; they add up to 1.
const (
	partyWeight = 0.35
	nameWeight  = 0.4
	dateWeight  = 0.25
)

// wanted is the words of a reference's agreement name that say what type
// of agreement it is (want), and the words a candidate's title is read
// without (exclude).
type wanted struct {
	want    []string
	exclude map[string]bool
}

// wantedWords are the type words of ref's agreement name. Party names
// inside an agreement's name say nothing of its type, unless they are all
// it says ("Services Agreement" between Federated Advisory Services and
// ...): partyWords are left out unless nothing else is left.
func wantedWords(ref *Reference, partyWords map[string]bool) wanted {
	exclude := partyWords
	want := typeWords(ref.Master, exclude)
	if len(want) == 0 {
		exclude = nil
		want = typeWords(ref.Master, nil)
	}
	return wanted{want: want, exclude: exclude}
}

// score weighs candidate as the master doc's reference names: shared
// parties, the agreement's name (its type words, w) against the
// candidate's title and type, and the referenced date against the
// candidate's effective date. ok is false for a candidate that cannot be
// the master (a restatement's candidate must be an earlier version).
func score(doc *Record, ref *Reference, w wanted, docKeys []int32, cand *Record, candKeys []int32) (scored, bool) {
	shared := 0
	for _, k := range docKeys {
		if _, ok := slices.BinarySearch(candKeys, k); ok {
			shared++
		}
	}
	party := float64(shared) / float64(max(1, min(len(docKeys), len(candKeys))))
	if party > 1 {
		party = 1
	}
	var why []string
	why = append(why, fmt.Sprintf("parties %.2f", party))

	want := w.want
	name := 0.5 // the reference names no agreement type: neither for nor against
	if len(want) > 0 {
		title := cand.Title
		if strings.TrimSpace(title) == "" {
			title = cand.ContractType
		}
		have := typeWords(title, w.exclude)
		name = dice(want, have)
		why = append(why, fmt.Sprintf("name %.2f", name))
	}
	if ref.Restates && name < 0.5 {
		return scored{}, false
	}

	date := 0.5
	penalty := 0.0
	refDate := ref.MasterDate
	if refDate == doc.EffectiveDate {
		refDate = "" // the amendment's own date, read after the master's name
	}
	switch {
	case refDate != "" && cand.EffectiveDate == refDate:
		date = 1
		why = append(why, "date "+refDate+" matches")
	case refDate != "" && cand.EffectiveDate != "" && cand.EffectiveDate[:7] == refDate[:7]:
		date = 0.75
		why = append(why, "date month matches")
	case refDate != "" && cand.EffectiveDate != "":
		date, penalty = 0, 0.3
		why = append(why, "date "+refDate+" differs from "+cand.EffectiveDate)
	}
	if doc.EffectiveDate != "" && cand.EffectiveDate != "" && cand.EffectiveDate > doc.EffectiveDate {
		if ref.Restates {
			return scored{}, false
		}
		penalty += 0.2
		why = append(why, "master dated after the amendment")
	}
	s := partyWeight*party + nameWeight*name + dateWeight*date - penalty
	if shared == 0 || s <= 0 {
		return scored{}, false
	}
	return scored{score: s, reason: strings.Join(why, ", ")}, true
}

// partyKeys appends to keys the numbers of the keys a record's parties
// are matched by, sorted and without repeats: the store's resolved id,
// and the party key of the name, so that spellings entity resolution left
// apart still match.
func (d *Detector) partyKeys(keys []int32, ps []Party) []int32 {
	n := len(keys)
	for _, p := range ps {
		if p.ID != "" {
			keys = append(keys, d.key(d.idKeys, p.ID))
		}
		if k := d.nameKey(p.Name); k >= 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys[n:])
	return append(keys[:n], slices.Compact(keys[n:])...)
}

// partyWords are the words of the parties' names, which an agreement's
// name may include ("Heritage Foods and Premier Nutrition Manufacturing
// Agreement") but which say nothing of its type; key is
// contract.PartyKey.
func partyWords(ps []Party, key func(string) string) map[string]bool {
	out := map[string]bool{}
	for _, p := range ps {
		for _, w := range strings.Fields(key(p.Name)) {
			out[stem(w)] = true
		}
	}
	return out
}

// nameStopWords say nothing of an agreement's type.
var nameStopWords = map[string]bool{
	"the": true, "and": true, "of": true, "to": true, "a": true, "an": true, "this": true, "that": true,
	"certain": true, "agreement": true, "contract": true, "by": true, "between": true, "for": true,
	"in": true, "with": true, "on": true, "dated": true, "as": true, "amended": true, "restated": true,
	"amendment": true, "no": true, "ref": true, "issue": true, "form": true, "among": true, "s": true,
	"first": true, "second": true, "third": true, "execution": true, "version": true, "copy": true,
}

// typeWords are the words of an agreement's name that say what kind of
// agreement it is: lower case, stemmed, without stop words, numbers and
// the words of exclude; nil when none is left.
func typeWords(name string, exclude map[string]bool) []string {
	var out []string
	for _, w := range strings.Fields(contract.MatchKey(strings.NewReplacer("-", " ", "/", " ", "&", " ").Replace(name))) {
		w = stem(w)
		if nameStopWords[w] || exclude[w] || strings.IndexFunc(w, func(r rune) bool { return r < '0' || r > '9' }) < 0 {
			continue
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// stem folds plurals and a few endings that agreement names vary in
// ("Distributor"/"Distribution" stay apart: they are different roles).
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// dice is the Dice coefficient of two word sets.
func dice(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	n := 0
	for _, w := range a {
		if slices.Contains(b, w) {
			n++
		}
	}
	return 2 * float64(n) / float64(len(a)+len(b))
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }
