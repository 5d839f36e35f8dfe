package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
)

// TestDeadlinesICS fetches the calendar feed twice and parses it with a
// maintained iCalendar library: the same events with the same UIDs, each
// on its deadline's day with a reminder and a link to its contract.
func TestDeadlinesICS(t *testing.T) {
	s, _ := newTestServer(t, nil)
	fetch := func(target string) (*ics.Calendar, string) {
		t.Helper()
		rec := do(t, s.Handler(), http.MethodGet, target, "", nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body)
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/calendar") {
			t.Errorf("content type %q", ct)
		}
		body := rec.Body.String()
		cal, err := ics.ParseCalendar(strings.NewReader(body))
		if err != nil {
			t.Fatalf("parse %s: %v\n%s", target, err, body)
		}
		return cal, body
	}
	uids := func(cal *ics.Calendar) []string {
		var out []string
		for _, e := range cal.Events() {
			out = append(out, e.Id())
		}
		return out
	}
	cal, body := fetch("/api/deadlines.ics?from=2024-01-01&within=1y")
	events := cal.Events()
	if len(events) == 0 {
		t.Fatalf("no events in 2024:\n%s", body)
	}
	found := false
	for _, e := range events {
		start, err := e.GetAllDayStartAt()
		if err != nil {
			t.Errorf("event %s: %v", e.Id(), err)
		}
		if len(e.Alarms()) != 1 {
			t.Errorf("event %s has %d alarms", e.Id(), len(e.Alarms()))
		}
		if strings.Contains(e.GetProperty(ics.ComponentPropertySummary).Value, "Initech Software License") && start.Format(time.DateOnly) == "2024-02-28" {
			found = true
			if u := e.GetProperty(ics.ComponentPropertyUrl); u == nil || !strings.HasSuffix(u.Value, "/contracts/initech-license") {
				t.Errorf("Initech event links to %+v", u)
			}
		}
	}
	if !found {
		t.Errorf("no event for Initech's renewal on 2024-02-28:\n%s", body)
	}
	again, _ := fetch("/api/deadlines.ics?from=2024-01-01&within=1y")
	if a, b := uids(cal), uids(again); !slices.Equal(a, b) {
		t.Errorf("re-fetch changed the UIDs: %v then %v", a, b)
	}
	// A narrower window keeps the UIDs of the events it still holds.
	narrow, _ := fetch("/api/deadlines.ics?from=2024-02-01&to=2024-03-31")
	for _, id := range uids(narrow) {
		if !slices.Contains(uids(cal), id) {
			t.Errorf("UID %s of the narrower feed is not in the wider one", id)
		}
	}

	for _, target := range []string{"/api/deadlines.ics?within=soon", "/api/deadlines.ics?from=2024-01-01&kinds=birthday", "/api/deadlines?from=2024-02-01&to=2024-01-01"} {
		rec := do(t, s.Handler(), http.MethodGet, target, "", nil)
		if rec.Code != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 400: %s", target, rec.Code, rec.Body)
			continue
		}
		if e := errorOf(t, rec.Body.Bytes()); e.Message == "" {
			t.Errorf("GET %s: error without a message", target)
		}
	}
	rec := do(t, s.Handler(), http.MethodGet, "/api/deadlines?from=2024-01-01&within=1y", "", nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"initech-license"`) {
		t.Errorf("GET /api/deadlines: %d %s", rec.Code, rec.Body)
	}
}
