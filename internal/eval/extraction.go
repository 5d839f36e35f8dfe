package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/importer"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// The fields that extraction is scored on, by their contract JSON names.
// CUAD's Agreement Date and Effective Date are one field here, as they are
// in the contract schema: effective_date.
const (
	FieldParties       = "parties"
	FieldEffectiveDate = contract.FieldEffectiveDate
	FieldEndDate       = contract.FieldEndDate
	FieldGoverningLaw  = "governing_law"
	FieldRenewalTerm   = contract.FieldRenewalTerm
	FieldNoticePeriod  = contract.FieldNoticePeriod
)

// ScoredFields lists the scored fields in report order.
var ScoredFields = []string{FieldParties, FieldEffectiveDate, FieldEndDate, FieldGoverningLaw, FieldRenewalTerm, FieldNoticePeriod}

// DurationTolerance is how far apart two durations may be and still be the
// same: the larger of DurationToleranceDays and DurationTolerancePercent of
// the expert's value, so that P1Y (365 days) and P12M (360) agree but P13M
// does not.
const (
	DurationToleranceDays    = 3
	DurationTolerancePercent = 5
)

// GoldContract is one CUAD contract with the expert answers, as the CUAD
// importer reads it from master_clauses.csv (and its text, when the texts
// directory is known).
type GoldContract struct {
	Contract *contract.Contract
	Row      int // 1-based data row in master_clauses.csv
	// Excluded maps a field to why it is not scored for this contract: the
	// expert answered, but the answer could not be normalised (a relative
	// date, a renewal that is perpetual), so neither a prediction nor its
	// absence can be judged.
	Excluded map[string]string
}

// Gold is the expert answer set.
type Gold struct {
	Path      string         // master_clauses.csv
	TextsDir  string         // full_contract_txt, "" when the texts are not known
	Contracts []GoldContract // in file order
	// Skipped are the rows the importer could not read (each names the file,
	// row and field); they are not scored.
	Skipped []string
}

// ReadGold reads CUAD's master_clauses.csv at path (or a directory holding
// it) with the CUAD importer. textsDir is the directory of the contract
// texts; "" lets the importer use a full_contract_txt directory beside the
// CSV when there is one. A file that is not a CUAD master_clauses.csv is an
// error; single bad rows are listed in Gold.Skipped.
func ReadGold(ctx context.Context, path, textsDir string) (*Gold, error) {
	csvPath := path
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("gold: %w", err)
	} else if fi.IsDir() {
		csvPath = filepath.Join(path, "master_clauses.csv")
		if textsDir == "" {
			textsDir = filepath.Join(path, "full_contract_txt")
		}
	}
	if err := checkCUAD(csvPath); err != nil {
		return nil, err
	}
	if textsDir == "" {
		if dir := filepath.Join(filepath.Dir(csvPath), "full_contract_txt"); isDir(dir) {
			textsDir = dir
		}
	}
	if textsDir != "" && !isDir(textsDir) {
		return nil, fmt.Errorf("gold: texts directory %s does not exist", textsDir)
	}
	g := &Gold{Path: csvPath, TextsDir: textsDir}
	err := importer.Read(ctx, csvPath, importer.Options{TextsDir: textsDir}, func(r importer.Record) error {
		if r.Err != nil {
			g.Skipped = append(g.Skipped, r.Err.Error())
			return nil
		}
		g.Contracts = append(g.Contracts, GoldContract{Contract: r.Contract, Row: r.Index, Excluded: excludedFields(r.Contract, r.Warnings)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gold: %w", err)
	}
	if len(g.Contracts) == 0 {
		if len(g.Skipped) > 0 {
			return nil, fmt.Errorf("gold: no row of %s could be read (%d skipped); the first: %s", csvPath, len(g.Skipped), g.Skipped[0])
		}
		return nil, fmt.Errorf("gold: %s holds no contract", csvPath)
	}
	return g, nil
}

// checkCUAD makes sure path is a CUAD master_clauses.csv and not another
// format the importer also reads.
func checkCUAD(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("gold: %w", err)
	}
	defer f.Close()
	format, err := importer.Detect(f)
	if err != nil {
		return fmt.Errorf("gold: %s: %w", path, err)
	}
	if format != importer.FormatCUAD {
		return fmt.Errorf("gold: %s is %s input, not CUAD's master_clauses.csv (its header starts with Filename and has Parties-Answer)", path, format)
	}
	return nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// answerFields maps the importer's warning fields (CUAD answer columns) to
// the scored fields they feed.
var answerFields = map[string]string{
	"Effective Date-Answer":                      FieldEffectiveDate,
	"Agreement Date-Answer":                      FieldEffectiveDate,
	"Expiration Date-Answer":                     FieldEndDate,
	"Renewal Term-Answer":                        FieldRenewalTerm,
	"Notice Period To Terminate Renewal- Answer": FieldNoticePeriod,
	"Governing Law-Answer":                       FieldGoverningLaw,
}

// excludedFields finds the fields whose expert answer the importer had to
// drop, and a perpetual renewal, which no duration can match.
func excludedFields(c *contract.Contract, warnings []error) map[string]string {
	out := map[string]string{}
	for _, w := range warnings {
		var re *importer.RecordError
		if !errors.As(w, &re) {
			continue
		}
		field, ok := answerFields[re.Field]
		if !ok || goldValue(c, field) != "" {
			continue
		}
		out[field] = fmt.Sprintf("%s: %v", re.Field, re.Err)
	}
	if c.RenewalTerm == "perpetual" || perpetualRenewal(c) {
		out[FieldRenewalTerm] = "the renewal is perpetual: no duration to compare"
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// perpetualRenewal reports a renewal clause that CUAD's importer read as
// evergreen: it has no renewal term to compare.
func perpetualRenewal(c *contract.Contract) bool {
	if c.RenewalKind != contract.RenewalEvergreen || c.RenewalTerm != "" {
		return false
	}
	for _, cl := range c.Clauses {
		if cl.Type == "Renewal Term" {
			return true
		}
	}
	return false
}

// goldValue is a single-valued field of c as text ("" when absent).
func goldValue(c *contract.Contract, field string) string {
	switch field {
	case FieldEffectiveDate:
		return c.EffectiveDate
	case FieldEndDate:
		return c.EndDate
	case FieldRenewalTerm:
		return c.RenewalTerm
	case FieldNoticePeriod:
		return c.NoticePeriod
	case FieldGoverningLaw:
		return lawText(c.GoverningLaw)
	}
	return ""
}

func lawText(l *contract.Location) string {
	if l.IsZero() {
		return ""
	}
	return strings.Trim(l.Country+"/"+l.State, "/")
}

// ContractKey is the rule by which the CUAD importer pairs a
// master_clauses.csv row with its text file, applied to contract ids and
// file names alike: the lower-cased letters and digits of the name without
// a .pdf or .txt extension. A contract ingested from a CUAD text (id: the
// file's stem) and the gold row of that text get the same key.
func ContractKey(name string) string {
	name = norm.NFC.String(strings.TrimRightFunc(name, func(r rune) bool { return !isAlnum(r) }))
	if ext := filepath.Ext(name); strings.EqualFold(ext, ".pdf") || strings.EqualFold(ext, ".txt") {
		name = name[:len(name)-len(ext)]
	}
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if isAlnum(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Outcome is how one predicted field compares with the expert answer.
type Outcome string

// Outcomes of a single-valued field. Wrong counts as a false positive and a
// false negative; Absent (neither side has a value) counts as neither.
const (
	OutcomeCorrect  Outcome = "correct"  // both present and equal: TP
	OutcomeWrong    Outcome = "wrong"    // both present, different: FP + FN
	OutcomeMissed   Outcome = "missed"   // expert answer, no prediction: FN
	OutcomeSpurious Outcome = "spurious" // prediction, no expert answer: FP
	OutcomeAbsent   Outcome = "absent"   // neither
	OutcomeExcluded Outcome = "excluded" // the expert answer could not be normalised: not scored
)

// counts turns an outcome into true positives, false positives, false negatives.
func (o Outcome) counts() (tp, fp, fn int) {
	switch o {
	case OutcomeCorrect:
		return 1, 0, 0
	case OutcomeWrong:
		return 0, 1, 1
	case OutcomeMissed:
		return 0, 0, 1
	case OutcomeSpurious:
		return 0, 1, 0
	}
	return 0, 0, 0
}

// classify classifies a comparison from presence and equality.
func classify(gold, pred bool, equal bool) Outcome {
	switch {
	case gold && pred && equal:
		return OutcomeCorrect
	case gold && pred:
		return OutcomeWrong
	case gold:
		return OutcomeMissed
	case pred:
		return OutcomeSpurious
	}
	return OutcomeAbsent
}

// CompareDate scores a date (YYYY-MM-DD): right when equal.
func CompareDate(gold, pred string) Outcome {
	return classify(gold != "", pred != "", gold == pred)
}

// CompareLaw scores a governing law: right when the countries are equal
// and, for US and Canadian law, the states or provinces are equal too.
// Elsewhere the country alone decides: CUAD answers "England and Wales" or
// "Hong Kong" where a model names a country and a region in its own words.
func CompareLaw(gold, pred *contract.Location) Outcome {
	g, p := !gold.IsZero() && gold.Country != "", !pred.IsZero() && pred.Country != ""
	if !g || !p {
		return classify(g, p, false)
	}
	equal := strings.EqualFold(gold.Country, pred.Country)
	if equal && (gold.Country == "US" || gold.Country == "CA") {
		equal = strings.EqualFold(gold.State, pred.State)
	}
	return classify(true, true, equal)
}

// CompareDuration scores an ISO 8601 duration by its day count
// (contract.ParseISODuration: a year is 365 days, a month 30): right when
// the two are within DurationTolerance. A value that is not a duration
// counts as absent on the gold side and as wrong on the predicted side.
func CompareDuration(gold, pred string) Outcome {
	if gold == "" || pred == "" {
		return classify(gold != "", pred != "", false)
	}
	g, err := contract.ParseISODuration(gold)
	if err != nil {
		return classify(false, true, false)
	}
	p, err := contract.ParseISODuration(pred)
	if err != nil {
		return OutcomeWrong
	}
	tol := max(DurationToleranceDays, g*DurationTolerancePercent/100)
	d := g - p
	return classify(true, true, d <= tol && -d <= tol)
}

// PartyMatch is how a contract's predicted parties compare with the expert's.
type PartyMatch struct {
	Gold      []string `json:"gold"`      // expert names
	Predicted []string `json:"predicted"` // predicted names
	Matched   int      `json:"matched"`   // names whose contract.PartyKey is on both sides
}

// CompareParties matches party names through contract.PartyKey (case,
// punctuation, "&"/"and", accents and corporate suffixes ignored). Each
// distinct key counts once on each side.
func CompareParties(gold, pred []contract.PartyRole) PartyMatch {
	m := PartyMatch{Gold: []string{}, Predicted: []string{}}
	keys := func(ps []contract.PartyRole, names *[]string) map[string]bool {
		set := map[string]bool{}
		for _, p := range ps {
			k := contract.PartyKey(p.Name)
			if k == "" || set[k] {
				continue
			}
			set[k] = true
			*names = append(*names, p.Name)
		}
		return set
	}
	gk, pk := keys(gold, &m.Gold), keys(pred, &m.Predicted)
	for k := range pk {
		if gk[k] {
			m.Matched++
		}
	}
	return m
}

// counts are the party match's true positives, false positives, false negatives.
func (m PartyMatch) counts() (tp, fp, fn int) {
	return m.Matched, len(m.Predicted) - m.Matched, len(m.Gold) - m.Matched
}

// Score is a precision/recall/F1 tally. A ratio with a zero denominator is
// reported as 0 and is flagged by the counts themselves.
type Score struct {
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	FN        int     `json:"fn"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

func (s *Score) add(tp, fp, fn int) {
	s.TP += tp
	s.FP += fp
	s.FN += fn
}

func (s *Score) finish() {
	s.Precision = ratio(s.TP, s.TP+s.FP)
	s.Recall = ratio(s.TP, s.TP+s.FN)
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// FieldScore is one field's score over the evaluated contracts.
type FieldScore struct {
	Field string `json:"field"`
	Score
	// Excluded counts contracts whose expert answer for the field could not
	// be normalised; they are not in the counts.
	Excluded int `json:"excluded"`
	// Verified and Unverified split the predictions by whether their
	// evidence quote was located in the text (not for parties).
	Verified   PrecisionTally `json:"verified"`
	Unverified PrecisionTally `json:"unverified"`
}

// PrecisionTally counts predictions and the right ones among them.
type PrecisionTally struct {
	Predicted int `json:"predicted"`
	Correct   int `json:"correct"`
}

func (t *PrecisionTally) add(o Outcome) {
	switch o {
	case OutcomeCorrect:
		t.Predicted++
		t.Correct++
	case OutcomeWrong, OutcomeSpurious:
		t.Predicted++
	}
}

// cell shows a tally as "right/predicted (precision)", or "–" when empty.
func (t PrecisionTally) cell() string {
	if t.Predicted == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d (%.3f)", t.Correct, t.Predicted, ratio(t.Correct, t.Predicted))
}

// CategoryScore is clause presence for one CUAD category: a contract counts
// as having the category when at least one clause of it is annotated
// (gold) or extracted (predicted).
type CategoryScore struct {
	Category string `json:"category"`
	Score
}

// EvidenceTally counts stored values (or clauses) by how their evidence
// holds up: Verified when the store flags it verified and the stored text
// sliced at its offsets is exactly the quote.
type EvidenceTally struct {
	Values     int `json:"values"`
	Verified   int `json:"verified"`    // flagged and Text[Start:End] == quote
	Unverified int `json:"unverified"`  // not flagged: the quote was not found in the text (or does not state the value)
	BadOffsets int `json:"bad_offsets"` // flagged, but the offsets do not hold the quote
	// Unsupported counts values whose quote is at its offsets but does not
	// state the value (extract.QuoteStates); they are not Verified, even
	// when a store written before that check flags them.
	Unsupported int `json:"unsupported"`
	// Share is Verified / Values.
	Share float64 `json:"share"`
}

func (t *EvidenceTally) add(o EvidenceTally) {
	t.Values += o.Values
	t.Verified += o.Verified
	t.Unverified += o.Unverified
	t.BadOffsets += o.BadOffsets
	t.Unsupported += o.Unsupported
}

func (t *EvidenceTally) finish() { t.Share = ratio(t.Verified, t.Values) }

// checkSpan classifies one quote stored with offsets into text; states
// says whether the quote states its value (extract.QuoteStates).
func checkSpan(t *EvidenceTally, text, quote string, start, end int, verified, states bool) {
	t.Values++
	located := start >= 0 && start < end && end <= len(text) && text[start:end] == quote
	switch {
	case located && !states:
		t.Unsupported++
	case !verified:
		t.Unverified++
	case located:
		t.Verified++
	default:
		t.BadOffsets++
	}
}

// CheckEvidence tallies c's evidence records (one per stored value) and,
// separately, its clauses, against c.Text.
func CheckEvidence(c *contract.Contract) (values, clauses EvidenceTally) {
	for _, e := range c.Evidence {
		checkSpan(&values, c.Text, e.Quote, e.Start, e.End, e.Verified, extract.QuoteStates(e.Field, evidenceValue(c, e), e.Quote))
	}
	for _, cl := range c.Clauses {
		checkSpan(&clauses, c.Text, cl.Text, cl.Start, cl.End, cl.Verified, true)
	}
	values.finish()
	clauses.finish()
	return values, clauses
}

// FieldResult is one field of one contract.
type FieldResult struct {
	Field     string  `json:"field"`
	Gold      string  `json:"gold,omitempty"`
	Predicted string  `json:"predicted,omitempty"`
	Outcome   Outcome `json:"outcome"`
	Reason    string  `json:"reason,omitempty"` // why it is excluded
	// Verified: the prediction's evidence quote was located in the text.
	Verified bool `json:"verified,omitempty"`
}

// ContractResult is one contract's comparison.
type ContractResult struct {
	ID      string `json:"id"`
	GoldRow int    `json:"gold_row"`
	// Error is why extraction failed; the contract is then scored as if
	// nothing had been extracted.
	Error    string        `json:"error,omitempty"`
	Fields   []FieldResult `json:"fields"`
	Parties  PartyMatch    `json:"parties"`
	Clauses  ClauseMatch   `json:"clauses"`
	Evidence EvidenceTally `json:"evidence"`
	// ClauseEvidence is the same check over the stored clauses' texts.
	ClauseEvidence EvidenceTally `json:"clause_evidence"`
}

// ClauseMatch lists a contract's clause categories on each side.
type ClauseMatch struct {
	Gold      []string `json:"gold"`
	Predicted []string `json:"predicted"`
}

// Prediction is what extraction produced for one contract: the stored
// contract, or the error that stopped its extraction.
type Prediction struct {
	Contract *contract.Contract
	Err      string
}

// ExtractionReport is the outcome of scoring extraction against CUAD.
type ExtractionReport struct {
	Mode     string `json:"mode"` // "model" (ingested during the run) or "store"
	Model    string `json:"model,omitempty"`
	Gold     string `json:"gold"`
	TextsDir string `json:"texts_dir,omitempty"`
	Store    string `json:"store,omitempty"`

	Contracts int `json:"contracts"` // scored
	Failed    int `json:"failed"`    // extraction failed: scored as empty
	// NotPredicted counts gold contracts with no prediction (not in the
	// store); they are not scored. Unmatched lists predictions with no gold
	// row.
	NotPredicted int      `json:"not_predicted"`
	Unmatched    []string `json:"unmatched"`
	GoldSkipped  []string `json:"gold_skipped"`

	Fields []FieldScore `json:"fields"`
	// Clauses is clause presence summed over all categories (micro average);
	// Categories has each category.
	Clauses    Score           `json:"clauses"`
	Categories []CategoryScore `json:"categories"`
	// ClausesVerified and ClausesUnverified split the predicted categories
	// by whether at least one of their clauses was located in the text.
	ClausesVerified   PrecisionTally `json:"clauses_verified"`
	ClausesUnverified PrecisionTally `json:"clauses_unverified"`

	Evidence       EvidenceTally `json:"evidence"`
	ClauseEvidence EvidenceTally `json:"clause_evidence"`

	PerContract []ContractResult `json:"per_contract"`
	// Usage and ElapsedSeconds are the ingest's (model mode).
	Usage          llm.Usage `json:"usage"`
	ElapsedSeconds float64   `json:"elapsed_seconds"`
}

// ScoreExtraction compares predictions (keyed by ContractKey of the
// contract id) with the gold contracts. Gold contracts without a
// prediction are counted in NotPredicted and left out; predictions without
// a gold contract are listed in Unmatched. The caller fills in the run's
// metadata (Mode, Model, Store, Usage, ...).
func ScoreExtraction(gold *Gold, preds map[string]Prediction) *ExtractionReport {
	rep := &ExtractionReport{Gold: gold.Path, TextsDir: gold.TextsDir, Unmatched: []string{}, GoldSkipped: gold.Skipped, PerContract: []ContractResult{}}
	if rep.GoldSkipped == nil {
		rep.GoldSkipped = []string{}
	}
	fields := make([]FieldScore, len(ScoredFields))
	fieldIndex := map[string]int{}
	for i, f := range ScoredFields {
		fields[i].Field = f
		fieldIndex[f] = i
	}
	cats := make([]CategoryScore, len(contract.ClauseCategories))
	catIndex := map[string]int{}
	for i, c := range contract.ClauseCategories {
		cats[i].Category = c.Name
		catIndex[c.Name] = i
	}
	seen := map[string]bool{}
	for _, g := range gold.Contracts {
		key := ContractKey(g.Contract.ID)
		p, ok := preds[key]
		if !ok {
			rep.NotPredicted++
			continue
		}
		seen[key] = true
		pc := p.Contract
		if pc == nil {
			pc = &contract.Contract{ID: g.Contract.ID}
			rep.Failed++
		}
		cr := compareContract(g, pc)
		cr.Error = p.Err
		rep.Contracts++
		fields[fieldIndex[FieldParties]].add(cr.Parties.counts())
		for _, fr := range cr.Fields {
			fs := &fields[fieldIndex[fr.Field]]
			if fr.Outcome == OutcomeExcluded {
				fs.Excluded++
				continue
			}
			fs.add(fr.Outcome.counts())
			if fr.Verified {
				fs.Verified.add(fr.Outcome)
			} else {
				fs.Unverified.add(fr.Outcome)
			}
		}
		gset, pset := map[string]bool{}, map[string]bool{}
		for _, c := range cr.Clauses.Gold {
			gset[c] = true
		}
		for _, c := range cr.Clauses.Predicted {
			pset[c] = true
		}
		verifiedCat := map[string]bool{}
		for _, cl := range pc.Clauses {
			if cl.Verified {
				verifiedCat[cl.Type] = true
			}
		}
		for name, i := range catIndex {
			o := classify(gset[name], pset[name], true)
			tp, fp, fn := o.counts()
			cats[i].add(tp, fp, fn)
			rep.Clauses.add(tp, fp, fn)
			if verifiedCat[name] {
				rep.ClausesVerified.add(o)
			} else {
				rep.ClausesUnverified.add(o)
			}
		}
		rep.Evidence.add(cr.Evidence)
		rep.ClauseEvidence.add(cr.ClauseEvidence)
		rep.PerContract = append(rep.PerContract, cr)
	}
	for key, p := range preds {
		if !seen[key] {
			id := key
			if p.Contract != nil {
				id = p.Contract.ID
			}
			rep.Unmatched = append(rep.Unmatched, id)
		}
	}
	slices.Sort(rep.Unmatched)
	for i := range fields {
		fields[i].finish()
	}
	for i := range cats {
		cats[i].finish()
	}
	rep.Fields, rep.Categories = fields, cats
	rep.Clauses.finish()
	rep.Evidence.finish()
	rep.ClauseEvidence.finish()
	return rep
}

// compareContract compares one prediction with its gold contract.
func compareContract(g GoldContract, p *contract.Contract) ContractResult {
	gc := g.Contract
	cr := ContractResult{ID: gc.ID, GoldRow: g.Row, Parties: CompareParties(gc.Parties, p.Parties)}
	single := []struct {
		field string
		out   Outcome
	}{
		{FieldEffectiveDate, CompareDate(gc.EffectiveDate, p.EffectiveDate)},
		{FieldEndDate, CompareDate(gc.EndDate, p.EndDate)},
		{FieldGoverningLaw, CompareLaw(gc.GoverningLaw, p.GoverningLaw)},
		{FieldRenewalTerm, CompareDuration(gc.RenewalTerm, p.RenewalTerm)},
		{FieldNoticePeriod, CompareDuration(gc.NoticePeriod, p.NoticePeriod)},
	}
	for _, s := range single {
		fr := FieldResult{Field: s.field, Gold: goldValue(gc, s.field), Predicted: goldValue(p, s.field), Outcome: s.out, Verified: verifiedField(p, s.field)}
		if why, ok := g.Excluded[s.field]; ok {
			fr.Outcome, fr.Reason = OutcomeExcluded, why
		}
		cr.Fields = append(cr.Fields, fr)
	}
	cr.Clauses = ClauseMatch{Gold: categories(gc.Clauses), Predicted: categories(p.Clauses)}
	cr.Evidence, cr.ClauseEvidence = CheckEvidence(p)
	return cr
}

// evidenceValue is the value e supports in the stored form QuoteStates
// takes: e.Value, or for evidence recorded without it (the CUAD importer's
// governing law) the contract's own field.
func evidenceValue(c *contract.Contract, e contract.Evidence) string {
	if e.Value != "" {
		return e.Value
	}
	if e.Field == FieldGoverningLaw && c.GoverningLaw != nil {
		return strings.Trim(c.GoverningLaw.State+", "+c.GoverningLaw.Country, ", ")
	}
	return goldValue(c, e.Field)
}

// verifiedField reports whether c's evidence for field was located in its text.
func verifiedField(c *contract.Contract, field string) bool {
	for _, e := range c.Evidence {
		if e.Field == field {
			return e.Verified && extract.QuoteStates(e.Field, evidenceValue(c, e), e.Quote)
		}
	}
	return false
}

// categories lists the distinct CUAD categories of clauses, in taxonomy order.
func categories(cls []contract.Clause) []string {
	has := map[string]bool{}
	for _, cl := range cls {
		has[cl.Type] = true
	}
	out := []string{}
	for _, c := range contract.ClauseCategories {
		if has[c.Name] {
			out = append(out, c.Name)
		}
	}
	return out
}

// pct writes a share as a percentage with one decimal.
func pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

// describeEvidence says how many of a tally's quotes hold at their offsets.
func describeEvidence(t EvidenceTally, what string) string {
	out := fmt.Sprintf("%d of %d %s verified at their offsets (%s); %d not located in the text, %d flagged verified at wrong offsets",
		t.Verified, t.Values, what, pct(t.Share), t.Unverified, t.BadOffsets)
	if t.Unsupported > 0 {
		out += fmt.Sprintf(", %d located but not stating the value", t.Unsupported)
	}
	return out
}

// extractionHeadline is the report's one-line summary.
func extractionHeadline(rep *ExtractionReport) string {
	src := "stored contracts in " + rep.Store
	if rep.Mode == "model" {
		src = "model " + rep.Model
	}
	return fmt.Sprintf("Extraction against CUAD (%s): %d contracts scored, %d failed extraction, %d gold contracts not predicted, %d predictions without gold",
		src, rep.Contracts, rep.Failed, rep.NotPredicted, len(rep.Unmatched))
}

// extractionDocument lays out the report for every rendering.
func extractionDocument(rep *ExtractionReport) document {
	d := document{Title: "Extraction against CUAD"}
	meta := fmt.Sprintf("Gold: %s", rep.Gold)
	if rep.TextsDir != "" {
		meta += ", texts " + rep.TextsDir
	}
	if rep.Mode == "model" {
		meta += fmt.Sprintf("; tokens %d in, %d out; %.1f s", rep.Usage.InputTokens, rep.Usage.OutputTokens, rep.ElapsedSeconds)
	}
	d.Sections = append(d.Sections, section{Paras: []string{extractionHeadline(rep) + ".", meta + "."}})

	fields := section{Title: "Fields", Header: []string{"field", "TP", "FP", "FN", "precision", "recall", "F1", "excluded", "right/predicted, verified", "unverified"}}
	for _, f := range rep.Fields {
		v, u := f.Verified.cell(), f.Unverified.cell()
		if f.Field == FieldParties {
			v, u = "", ""
		}
		fields.Rows = append(fields.Rows, append(scoreCells(f.Field, f.Score), fmt.Sprint(f.Excluded), v, u))
	}
	fields.Rows = append(fields.Rows, append(scoreCells(fmt.Sprintf("clauses (%d categories, micro)", len(rep.Categories)), rep.Clauses), "",
		rep.ClausesVerified.cell(), rep.ClausesUnverified.cell()))
	d.Sections = append(d.Sections, fields,
		section{Title: "Evidence", Items: []string{
			"Values: " + describeEvidence(rep.Evidence, "stored values") + ".",
			"Clauses: " + describeEvidence(rep.ClauseEvidence, "stored clauses") + "."}})

	cats := section{Title: "Clause presence per category", Header: []string{"category", "TP", "FP", "FN", "precision", "recall", "F1"}, Brief: [][]string{}}
	for _, cs := range rep.Categories {
		row := scoreCells(cs.Category, cs.Score)
		cats.Rows = append(cats.Rows, row)
		if cs.TP+cs.FP+cs.FN > 0 {
			cats.Brief = append(cats.Brief, row)
		}
	}
	d.Sections = append(d.Sections, cats)

	per := section{Title: "Contracts", NoText: true, Header: []string{"contract", "gold row", "parties (matched/gold/predicted)"}}
	per.Header = append(per.Header, ScoredFields[1:]...)
	per.Header = append(per.Header, "clauses (gold/predicted)", "evidence verified", "error")
	var failed []string
	for _, cr := range rep.PerContract {
		row := []string{cr.ID, fmt.Sprint(cr.GoldRow), fmt.Sprintf("%d/%d/%d", cr.Parties.Matched, len(cr.Parties.Gold), len(cr.Parties.Predicted))}
		for _, fr := range cr.Fields {
			cell := string(fr.Outcome)
			if fr.Outcome == OutcomeWrong {
				cell = fmt.Sprintf("wrong: %s, not %s", fr.Predicted, fr.Gold)
			}
			row = append(row, cell)
		}
		row = append(row, fmt.Sprintf("%d/%d", len(cr.Clauses.Gold), len(cr.Clauses.Predicted)), fmt.Sprintf("%d/%d", cr.Evidence.Verified, cr.Evidence.Values), cr.Error)
		per.Rows = append(per.Rows, row)
		if cr.Error != "" {
			failed = append(failed, cr.ID+": "+cr.Error)
		}
	}
	d.Sections = append(d.Sections, per)
	if len(failed) > 0 {
		d.Sections = append(d.Sections, section{Title: "Extraction failed (scored as empty)", Items: failed})
	}
	if len(rep.Unmatched) > 0 {
		d.Sections = append(d.Sections, section{Title: "Predictions without a gold row", Items: rep.Unmatched})
	}
	if len(rep.GoldSkipped) > 0 {
		d.Sections = append(d.Sections, section{Title: "Gold rows skipped", Items: rep.GoldSkipped})
	}
	return d
}

func scoreCells(name string, s Score) []string {
	p, r, f := s.cells()
	return []string{name, fmt.Sprint(s.TP), fmt.Sprint(s.FP), fmt.Sprint(s.FN), p, r, f}
}

// cells formats precision, recall and F1, with "–" for a ratio whose
// denominator is zero (nothing predicted, or nothing to find).
func (s Score) cells() (p, r, f string) {
	cell := func(v float64, den int) string {
		if den == 0 {
			return "–"
		}
		return fmt.Sprintf("%.3f", v)
	}
	return cell(s.Precision, s.TP+s.FP), cell(s.Recall, s.TP+s.FN), cell(s.F1, s.TP+s.FP+s.FN)
}

// WriteExtractionText writes the report as plain text with aligned tables.
func WriteExtractionText(w io.Writer, rep *ExtractionReport) error {
	return extractionDocument(rep).writeText(w)
}

// WriteExtractionMarkdown writes the report as Markdown: the summary, the
// field and category tables, the evidence checks and one row per contract.
func WriteExtractionMarkdown(w io.Writer, rep *ExtractionReport) error {
	return extractionDocument(rep).writeMarkdown(w)
}

// WriteExtractionHTML writes the report as a self-contained HTML page.
func WriteExtractionHTML(w io.Writer, rep *ExtractionReport) error {
	return extractionDocument(rep).writeHTML(w)
}
