package importer

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

var dumpTimeline = flag.Bool("dump-timeline", false, "print every CUAD contract's parsed timeline")

// cuadAnswers reads the three timeline answer columns of master_clauses.csv
// by file name, as the annotators wrote them.
func cuadAnswers(t *testing.T, path string) map[string][3]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.TrimPrefix(h, "\ufeff")] = i
	}
	out := map[string][3]string{}
	for _, r := range rows[1:] {
		out[alnumKey(r[col["Filename"]])] = [3]string{
			strings.TrimSpace(r[col["Renewal Term-Answer"]]),
			strings.TrimSpace(r[col["Notice Period To Terminate Renewal- Answer"]]),
			strings.TrimSpace(r[col["Expiration Date-Answer"]]),
		}
	}
	return out
}

// TestCUADTimelineParse measures the renewal, notice and expiration
// parsers on CUAD's 306 contracts (docs/EVALUATION.md, "Deadlines"): of
// each answer column's non-empty answers, how many become a value, and
// how many contracts get a notice deadline with its evidence.
func TestCUADTimelineParse(t *testing.T) {
	cuad := filepath.Join(sharedtest.Dir(t), "data", "cuad")
	csvPath := filepath.Join(cuad, "master_clauses.csv")
	recs := readAll(t, csvPath, Options{TextsDir: filepath.Join(cuad, "full_contract_txt")})
	answers := cuadAnswers(t, csvPath)
	type tally struct{ answered, parsed int }
	var renewal, notice, expiration, kinds tally
	var deadlines, traced int
	for _, r := range recs {
		if r.Err != nil {
			t.Fatalf("row %d: %v", r.Index, r.Err)
		}
		c := r.Contract
		a, ok := answers[alnumKey(c.ID)]
		if !ok {
			t.Fatalf("%s: no answers row", c.ID)
		}
		if a[0] != "" {
			renewal.answered++
			if c.RenewalTerm != "" || (isPerpetual(a[0]) && c.RenewalKind == contract.RenewalEvergreen) {
				renewal.parsed++
			} else {
				t.Logf("renewal unparsed: %s: %q", c.ID, a[0])
			}
		}
		if a[1] != "" {
			notice.answered++
			if c.NoticePeriod != "" {
				notice.parsed++
			} else {
				t.Logf("notice unparsed: %s: %q", c.ID, a[1])
			}
		}
		if a[2] != "" {
			expiration.answered++
			if c.EndDate != "" || isPerpetual(a[2]) {
				expiration.parsed++
			} else {
				t.Logf("expiration unparsed: %s: %q", c.ID, a[2])
			}
		}
		hasRenewalSpan := false
		for _, cl := range c.Clauses {
			hasRenewalSpan = hasRenewalSpan || cl.Type == "Renewal Term"
		}
		if hasRenewalSpan {
			kinds.answered++
			if c.RenewalKind != "" {
				kinds.parsed++
			}
		}
		ds, err := contract.TimelineOf(c).Deadlines("1900-01-01", "2100-12-31")
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.Kind != contract.DeadlineNotice {
				continue
			}
			deadlines++
			ok := false
			for _, f := range d.From {
				if f.Field == contract.FieldNoticePeriod && f.Evidence != nil && f.Evidence.Verified {
					ok = true
				}
			}
			if ok {
				traced++
			}
			break
		}
		if *dumpTimeline {
			b, _ := json.Marshal(struct {
				ID                           string
				Answers                      [3]string
				End, Kind, Term, Notice, TFC string
				Count                        int
			}{c.ID, a, c.EndDate, c.RenewalKind, c.RenewalTerm, c.NoticePeriod, c.TerminationNotice, c.RenewalCount})
			t.Log(string(b))
		}
	}
	report := func(name string, x tally) {
		t.Logf("%-36s %3d answered, %3d parsed, %3d unparseable", name, x.answered, x.parsed, x.answered-x.parsed)
	}
	report("Renewal Term-Answer", renewal)
	report("Notice Period To Terminate Renewal", notice)
	report("Expiration Date-Answer", expiration)
	report("renewal kind (Renewal Term spans)", kinds)
	t.Logf("contracts with a notice deadline: %d, traceable to a verified evidence span: %d", deadlines, traced)
	// Floors under today's numbers, so that a regression shows.
	if renewal.parsed < 97 || notice.parsed < 66 || expiration.parsed < 175 || kinds.parsed < 105 || traced < 55 || traced != deadlines {
		t.Errorf("parser regressed: renewal %d, notice %d, expiration %d, kinds %d, notice deadlines %d (%d traced)",
			renewal.parsed, notice.parsed, expiration.parsed, kinds.parsed, deadlines, traced)
	}

	// The hand-checked sample: what each contract's text says, read by a
	// person (testdata/cuad_timeline_handcheck.json), against the parse.
	var labels []struct {
		ID           string `json:"id"`
		EndDate      string `json:"end_date"`
		RenewalKind  string `json:"renewal_kind"`
		RenewalTerm  string `json:"renewal_term"`
		RenewalCount int    `json:"renewal_count"`
		NoticePeriod string `json:"notice_period"`
		Note         string `json:"note"`
	}
	b, err := os.ReadFile(filepath.Join("testdata", "cuad_timeline_handcheck.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &labels); err != nil {
		t.Fatal(err)
	}
	sample := handCheckSample(recs, answers)
	if len(labels) != len(sample) {
		t.Fatalf("%d labels for a sample of %d", len(labels), len(sample))
	}
	fieldsRight, contractsRight := 0, 0
	for i, c := range sample {
		l := labels[i]
		if l.ID != c.ID {
			t.Fatalf("label %d is for %s, the sample's contract is %s", i, l.ID, c.ID)
		}
		got := []string{c.EndDate, c.RenewalKind, c.RenewalTerm, strconv.Itoa(c.RenewalCount), c.NoticePeriod}
		want := []string{l.EndDate, l.RenewalKind, l.RenewalTerm, strconv.Itoa(l.RenewalCount), l.NoticePeriod}
		ok := true
		for j := range got {
			if got[j] == want[j] {
				fieldsRight++
			} else {
				ok = false
			}
		}
		if ok {
			contractsRight++
		} else {
			t.Logf("hand check %d %s: got [end kind term count notice] %q, read %q (%s)", i, c.ID, got, want, l.Note)
		}
	}
	t.Logf("hand-checked sample: %d of %d contracts entirely right (%.0f%%), %d of %d fields right (%.1f%%)",
		contractsRight, len(sample), 100*float64(contractsRight)/float64(len(sample)),
		fieldsRight, 5*len(sample), 100*float64(fieldsRight)/float64(5*len(sample)))
	if contractsRight < 27 {
		t.Errorf("hand-checked accuracy fell to %d of %d contracts", contractsRight, len(sample))
	}
}

// handCheckSample is the sample of handCheckSize contracts whose parsed
// timelines were checked by hand: the contracts with a timeline answer or
// a Renewal Term span, in id order, every n-th.
func handCheckSample(recs []Record, answers map[string][3]string) []*contract.Contract {
	var pool []*contract.Contract
	for _, r := range recs {
		c := r.Contract
		a := answers[alnumKey(c.ID)]
		span := false
		for _, cl := range c.Clauses {
			span = span || cl.Type == "Renewal Term"
		}
		if a[0] != "" || a[1] != "" || a[2] != "" || span {
			pool = append(pool, c)
		}
	}
	sort.Slice(pool, func(i, j int) bool { return pool[i].ID < pool[j].ID })
	step := len(pool) / handCheckSize
	var out []*contract.Contract
	for i := 0; i < handCheckSize; i++ {
		out = append(out, pool[i*step])
	}
	return out
}

const handCheckSize = 30
