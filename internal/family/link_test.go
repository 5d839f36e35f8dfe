package family

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	acme := Party{ID: "p-acme", Name: "Acme, Inc."}
	beta := Party{ID: "p-beta", Name: "Beta LLC"}
	gamma := Party{ID: "p-gamma", Name: "Gamma Corp."}
	records := []Record{
		{ID: "dist", Title: "Distribution Agreement", EffectiveDate: "1999-03-01", Parties: []Party{acme, beta},
			Text: "DISTRIBUTION AGREEMENT dated March 1, 1999. Any amendment to this Agreement must be in writing."},
		{ID: "dist-a2", Title: "Amendment No. 2", EffectiveDate: "2001-06-05", Parties: []Party{{Name: "ACME INC"}, beta},
			Text: "AMENDMENT NO. 2 TO THE DISTRIBUTION AGREEMENT dated as of March 1, 1999 between Acme and Beta."},
		// Another agreement of the same parties, of another type.
		{ID: "supply", Title: "Supply Agreement", EffectiveDate: "2000-01-01", Parties: []Party{acme, beta},
			Text: "SUPPLY AGREEMENT"},
		{ID: "supply-sched", Title: "Schedule A", Parties: []Party{acme, beta},
			Text: "Schedule A to the Supply Agreement dated January 1, 2000: prices."},
		// Refers to a master that is not among the records.
		{ID: "orphan", Title: "First Amendment to License Agreement", EffectiveDate: "2010-01-01", Parties: []Party{acme, gamma},
			Text: "FIRST AMENDMENT TO LICENSE AGREEMENT dated May 5, 2005"},
		// Same type words, but no shared party: never linked.
		{ID: "other-dist", Title: "Distribution Agreement", EffectiveDate: "1999-03-01", Parties: []Party{gamma},
			Text: "DISTRIBUTION AGREEMENT"},
		// Two equally good masters: ambiguous.
		{ID: "svc1", Title: "Services Agreement", Parties: []Party{gamma, beta}, Text: "SERVICES AGREEMENT"},
		{ID: "svc2", Title: "Services Agreement", Parties: []Party{gamma, beta}, Text: "SERVICES AGREEMENT"},
		{ID: "svc-a1", Title: "Amendment to Services Agreement", Parties: []Party{gamma, beta},
			Text: "AMENDMENT TO SERVICES AGREEMENT"},
		// A restatement of the supply agreement, later.
		{ID: "supply-ar", Title: "Amended and Restated Supply Agreement", EffectiveDate: "2005-01-01", Parties: []Party{acme, beta},
			Text: "AMENDED AND RESTATED SUPPLY AGREEMENT"},
	}
	res := Detect(records, Options{})
	if res.Documents != 5 {
		t.Errorf("documents = %d, want 5", res.Documents)
	}
	got := map[string]Link{}
	for _, l := range res.Links {
		got[l.From] = l
	}
	for _, want := range []struct {
		from, to string
		kind     Kind
		restates bool
	}{
		{"dist-a2", "dist", Amends, false},
		{"supply-sched", "supply", Supplements, false},
		{"supply-ar", "supply", Amends, true},
	} {
		l, ok := got[want.from]
		if !ok {
			t.Errorf("no link from %s; links %+v, unresolved %+v", want.from, res.Links, res.Unresolved)
			continue
		}
		if l.To != want.to || l.Kind != want.kind || l.Restates != want.restates {
			t.Errorf("link from %s = %+v, want to %s kind %s restates %v", want.from, l, want.to, want.kind, want.restates)
		}
		if l.Confidence < DefaultThreshold || l.Confidence > 1 {
			t.Errorf("link %s confidence %v", want.from, l.Confidence)
		}
		checkEvidence(t, textOf(records, want.from), l.Evidence)
	}
	if l := got["dist-a2"]; l.Confidence < 0.99 {
		t.Errorf("parties, name and date all match, confidence %v (%s)", l.Confidence, l.Reason)
	}
	if len(res.Links) != 3 {
		t.Errorf("links %+v, want 3", res.Links)
	}
	un := map[string]Unresolved{}
	for _, u := range res.Unresolved {
		un[u.ContractID] = u
	}
	if u := un["orphan"]; u.Reason != ReasonNotInStore || u.Reference.Master != "LICENSE AGREEMENT" || u.Reference.MasterDate != "2005-05-05" {
		t.Errorf("orphan: %+v", u)
	}
	if u := un["svc-a1"]; u.Reason != ReasonAmbiguous || len(u.Candidates) < 2 || u.Candidates[0].ContractID != "svc1" || u.Candidates[1].ContractID != "svc2" {
		t.Errorf("svc-a1: %+v", u)
	}
	if len(res.Unresolved) != 2 {
		t.Errorf("unresolved %+v, want 2", res.Unresolved)
	}
}

// TestDetectDateMismatch: a master of the right type and parties but
// another date is not linked at the default threshold.
func TestDetectDateMismatch(t *testing.T) {
	p := []Party{{ID: "a", Name: "A Inc"}, {ID: "b", Name: "B Inc"}}
	res := Detect([]Record{
		{ID: "m", Title: "License Agreement", EffectiveDate: "2001-01-01", Parties: p, Text: "LICENSE AGREEMENT"},
		{ID: "a1", Title: "", EffectiveDate: "2012-01-01", Parties: p, Text: "AMENDMENT NO. 1 TO LICENSE AGREEMENT dated July 4, 2010"},
	}, Options{})
	if len(res.Links) != 0 || len(res.Unresolved) != 1 || len(res.Unresolved[0].Candidates) != 1 {
		t.Fatalf("links %+v unresolved %+v", res.Links, res.Unresolved)
	}
}

func textOf(records []Record, id string) string {
	for _, r := range records {
		if r.ID == id {
			return r.Text
		}
	}
	return ""
}

// TestDetectorTitles checks that a Detector, which keeps no text, still
// gives the titles of the contracts it links, and only those asked for.
func TestDetectorTitles(t *testing.T) {
	acme := Party{ID: "p-acme", Name: "Acme, Inc."}
	d := NewDetector(Options{})
	d.Add(Record{ID: "msa", Title: "Master Services Agreement", EffectiveDate: "2019-01-01", Parties: []Party{acme},
		Text: "MASTER SERVICES AGREEMENT dated January 1, 2019"})
	d.Add(Record{ID: "sow1", Title: "Statement of Work No. 1", EffectiveDate: "2019-02-01", Parties: []Party{acme},
		Text: "STATEMENT OF WORK NO. 1 under the Master Services Agreement dated January 1, 2019"})
	d.Add(Record{ID: "nda", Title: "Mutual NDA", Parties: []Party{acme}, Text: "MUTUAL NONDISCLOSURE AGREEMENT"})
	res := d.Result()
	if len(res.Links) != 1 || res.Links[0].From != "sow1" || res.Links[0].To != "msa" {
		t.Fatalf("links %+v: want sow1 -> msa", res.Links)
	}
	got := d.Titles([]string{"sow1", "msa", "missing"})
	want := map[string]string{"sow1": "Statement of Work No. 1", "msa": "Master Services Agreement"}
	if len(got) != len(want) || got["sow1"] != want["sow1"] || got["msa"] != want["msa"] {
		t.Errorf("titles %v, want %v", got, want)
	}
}

// TestDetectorCompact checks what a Detector holds per record: detection
// over a store keeps every record until the end, and at a million
// contracts copies of each record's title, type, date and party keys cost
// more memory than the rest of the import. Each record's strings are fresh
// copies here, as read from a store.
func TestDetectorCompact(t *testing.T) {
	const n = 20000
	titles := []string{"Master Services Agreement", "Supply Agreement", "Distribution Agreement", "License Agreement"}
	d := NewDetector(Options{})
	add := func(i int) {
		d.Add(Record{
			ID:            fmt.Sprintf("c-%07d", i),
			Title:         strings.Clone(titles[i%len(titles)]),
			ContractType:  strings.Clone("services"),
			EffectiveDate: fmt.Sprintf("20%02d-%02d-%02d", i%20, 1+i%12, 1+i%28),
			Parties: []Party{
				{ID: fmt.Sprintf("p-%05d", i%5000), Name: fmt.Sprintf("Party %05d Holdings, Inc.", i%5000)},
				{ID: fmt.Sprintf("p-%05d", (i+7)%5000), Name: fmt.Sprintf("Party %05d Holdings, Inc.", (i+7)%5000)},
			},
			Text: strings.Repeat("x", 512),
		})
	}
	for i := range 5000 {
		add(i) // every party and name seen once, so that what follows is per record
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 5000; i < n; i++ {
		add(i)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(n-5000)
	// The id (16 bytes of string, 16 of header) and ~40 bytes of record
	// and keys; the slices' spare capacity may double that.
	if per > 160 {
		t.Errorf("the detector holds %.0f bytes per record, want at most 160", per)
	} else {
		t.Logf("%.0f bytes per record", per)
	}
	runtime.KeepAlive(d)
	if res := d.Result(); res.Documents != 0 {
		t.Errorf("%d documents refer to a master, want 0", res.Documents)
	}
}
