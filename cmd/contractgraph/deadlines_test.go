package main

import (
	"encoding/json"
	"strings"
	"testing"

	ics "github.com/arran4/golang-ical"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// TestDeadlines runs `contractgraph deadlines` on the conformance fixture
// in its three formats: c01's yearly notice deadlines, rolled forward from
// its 2021 end date, with their derivation and evidence.
func TestDeadlines(t *testing.T) {
	db := fixtureDB(t)
	out, stderr, code := runContractgraph(t, "", "--db", db, "deadlines", "--as-of", "2021-01-01", "--within", "2y", "--kind", "notice")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"2 deadlines from 2021-01-01 to 2023-01-01:", "2021-09-14", "2022-09-14", "notice", "c01", "last day to give notice of non-renewal"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}

	out, stderr, code = runContractgraph(t, "", "--db", db, "deadlines", "--as-of", "2020-01-01", "--within", "365d", "--format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, stderr)
	}
	var res graph.DeadlineResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	var got []string
	for _, d := range res.Deadlines {
		got = append(got, d.Date+" "+d.Kind+" "+d.ContractID)
	}
	want := "2020-02-29 expiration c02,2020-05-04 renewal c05,2020-09-20 notice c09,2020-11-19 expiration c09"
	if strings.Join(got, ",") != want || res.To != "2020-12-31" {
		t.Errorf("json deadlines to %s:\n%s\nwant %s", res.To, strings.Join(got, ","), want)
	}

	out, stderr, code = runContractgraph(t, "", "--db", db, "deadlines", "--as-of", "2021-01-01", "--within", "3y", "--format", "ics", "--party", "acme")
	if code != 0 {
		t.Fatalf("ics: exit %d: %s", code, stderr)
	}
	cal, err := ics.ParseCalendar(strings.NewReader(out))
	if err != nil {
		t.Fatalf("ics: %v\n%s", err, out)
	}
	if n := len(cal.Events()); n != 6 { // c01: a notice and a renewal in each of 2021, 2022, 2023
		t.Errorf("ics: %d events, want 6:\n%s", n, out)
	}

	for _, args := range [][]string{
		{"deadlines", "--within", "soon"},
		{"deadlines", "--as-of", "1 Jan 2020"},
		{"deadlines", "--format", "pdf"},
		{"deadlines", "--kind", "birthday"},
		{"deadlines", "--as-of", "2020-01-01", "--within", "20y"},
	} {
		_, stderr, code := runContractgraph(t, "", append([]string{"--db", db}, args...)...)
		if code != 2 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, stderr)
		}
	}
}
