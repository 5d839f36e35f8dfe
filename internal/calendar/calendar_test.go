package calendar_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"

	"github.com/contractgraph/contractgraph/internal/calendar"
	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

func deadlines() []graph.DeadlineHit {
	quote := "unless either party gives notice at least ninety (90) days before the end of the then-current term; the parties, Acme & Co., agree"
	return []graph.DeadlineHit{
		{ContractID: "c01", Title: "Supply Agreement", Parties: []string{"Acme Corp.", "Beta GmbH"}, Kind: contract.DeadlineNotice,
			Date: "2019-12-01", Term: 5, Derivation: "last day to give notice of non-renewal: term end 2019-12-31 − notice period P30D",
			From: []contract.Fact{{Field: contract.FieldNoticePeriod, Value: "P30D",
				Evidence: &contract.Evidence{Field: contract.FieldNoticePeriod, Quote: quote, Start: 10, End: 10 + len(quote), Verified: true}}}},
		{ContractID: "c01", Title: "Supply Agreement", Kind: contract.DeadlineRenewal, Date: "2019-12-31", Term: 6, Derivation: "renews"},
		{ContractID: "Société «Générale» licence", Kind: contract.DeadlineExpiration, Date: "2020-02-29", Derivation: "the term ends"},
	}
}

func write(t *testing.T, ds []graph.DeadlineHit, stamp time.Time) string {
	t.Helper()
	var b bytes.Buffer
	err := calendar.Write(&b, ds, calendar.Options{Name: "Contract deadlines", Stamp: stamp,
		URL: func(id string) string { return "http://localhost:8080/contracts/" + id }})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestWriteParses checks the feed with a maintained iCalendar parser: one
// event per deadline on its day, a reminder each, the derivation and the
// evidence in the description, and RFC 5545 line rules.
func TestWriteParses(t *testing.T) {
	out := write(t, deadlines(), time.Date(2019, 1, 1, 9, 30, 0, 0, time.UTC))
	cal, err := ics.ParseCalendar(strings.NewReader(out))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, out)
	}
	events := cal.Events()
	if len(events) != 3 {
		t.Fatalf("%d events, want 3", len(events))
	}
	for i, e := range events {
		d := deadlines()[i]
		if e.Id() != calendar.UID(d) {
			t.Errorf("event %d uid %q, want %q", i, e.Id(), calendar.UID(d))
		}
		start, err := e.GetAllDayStartAt()
		if err != nil || start.Format(time.DateOnly) != d.Date {
			t.Errorf("event %d starts %v (%v), want %s", i, start, err, d.Date)
		}
		if len(e.Alarms()) != 1 {
			t.Errorf("event %d has %d alarms, want 1", i, len(e.Alarms()))
		}
		if p := e.GetProperty(ics.ComponentPropertySummary); p == nil || !strings.Contains(p.Value, strings.SplitN(d.Title+d.ContractID, " ", 2)[0]) {
			t.Errorf("event %d summary %+v", i, p)
		}
	}
	desc := events[0].GetProperty(ics.ComponentPropertyDescription).Value
	for _, want := range []string{"last day to give notice of non-renewal", "notice_period = P30D", "ninety (90) days", "Acme & Co., agree", "Parties: Acme Corp.; Beta GmbH"} {
		if !strings.Contains(desc, want) {
			t.Errorf("description %q lacks %q", desc, want)
		}
	}
	if trig := events[0].Alarms()[0].GetProperty(ics.ComponentPropertyTrigger); trig == nil || trig.Value != "-P14D" {
		t.Errorf("notice alarm trigger %+v, want -P14D", trig)
	}
	for i, l := range strings.Split(strings.TrimSuffix(out, "\r\n"), "\r\n") {
		if len(l) > 75 {
			t.Errorf("line %d is %d octets: %q", i, len(l), l)
		}
		if strings.Contains(l, "\n") {
			t.Errorf("line %d has a bare LF", i)
		}
	}
	if !strings.Contains(out, "Société «Générale» licence") && !strings.Contains(strings.ReplaceAll(out, "\r\n ", ""), "Société «Générale» licence") {
		t.Error("a non-ASCII title did not survive folding")
	}
}

// TestUIDsStable checks that a re-fetch (a later stamp, the same
// deadlines) keeps every UID, and that different deadlines never share one.
func TestUIDsStable(t *testing.T) {
	uids := func(out string) []string {
		cal, err := ics.ParseCalendar(strings.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range cal.Events() {
			ids = append(ids, e.Id())
		}
		return ids
	}
	a := uids(write(t, deadlines(), time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)))
	b := uids(write(t, deadlines(), time.Date(2019, 3, 1, 12, 0, 0, 0, time.UTC)))
	if strings.Join(a, ",") != strings.Join(b, ",") {
		t.Errorf("UIDs changed between fetches: %v vs %v", a, b)
	}
	seen := map[string]bool{}
	for _, id := range a {
		if seen[id] {
			t.Errorf("UID %s repeats", id)
		}
		seen[id] = true
	}
}

func TestWriteRefusesBadDate(t *testing.T) {
	var b bytes.Buffer
	err := calendar.Write(&b, []graph.DeadlineHit{{ContractID: "x", Kind: "notice", Date: "2019-13-01"}}, calendar.Options{})
	if err == nil || !strings.Contains(err.Error(), `"x"`) || b.Len() != 0 {
		t.Errorf("Write with a bad date = %v, wrote %d bytes; want an error naming the contract and nothing written", err, b.Len())
	}
}

// FuzzWrite checks that any text in a deadline keeps the feed parseable
// and every line within 75 octets.
func FuzzWrite(f *testing.F) {
	f.Add("Supply; Agreement, \\ «x»", "line\nbreak\r\nand ☃ snowmen ☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃")
	f.Fuzz(func(t *testing.T, title, derivation string) {
		var b bytes.Buffer
		d := graph.DeadlineHit{ContractID: title, Title: title, Kind: contract.DeadlineNotice, Date: "2020-01-01", Derivation: derivation}
		if err := calendar.Write(&b, []graph.DeadlineHit{d}, calendar.Options{Name: title}); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(b.String(), "\r\n") {
			if len(l) > 75 {
				t.Fatalf("line of %d octets", len(l))
			}
		}
		cal, err := ics.ParseCalendar(&b)
		if err != nil || len(cal.Events()) != 1 {
			t.Fatalf("parse: %v", err)
		}
	})
}
