package contract

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func tl(end, kind, term, notice string, count int) Timeline {
	return TimelineOf(&Contract{ID: "c", EndDate: end, RenewalKind: kind, RenewalTerm: term, NoticePeriod: notice, RenewalCount: count,
		Evidence: []Evidence{{Field: FieldNoticePeriod, Value: notice, Quote: "ninety (90) days", Start: 10, End: 26, Verified: true}}})
}

func TestTimelineAsOf(t *testing.T) {
	tests := []struct {
		name                     string
		t                        Timeline
		asOf                     string
		termEnd, notice, renewal string
		termEndTerm, noticeTerm  int
	}{
		{"automatic, before the end", tl("2019-03-31", RenewalAutomatic, "P1Y", "P90D", 0), "2019-01-01",
			"2019-03-31", "2020-01-01", "2019-03-31", 0, 1}, // 2020-03-31 − 90 days, a leap year
		{"automatic, notice still open", tl("2019-03-31", RenewalAutomatic, "P1Y", "P90D", 0), "2018-12-01",
			"2019-03-31", "2018-12-31", "2019-03-31", 0, 0},
		{"automatic, rolled forward four terms", tl("2014-12-31", RenewalAutomatic, "P1Y", "P30D", 0), "2019-01-01",
			"2019-12-31", "2019-12-01", "2019-12-31", 5, 5},
		{"automatic, on the notice deadline", tl("2014-12-31", RenewalAutomatic, "P1Y", "P30D", 0), "2019-12-01",
			"2019-12-31", "2019-12-01", "2019-12-31", 5, 5},
		{"automatic, month end kept", tl("2019-01-31", RenewalAutomatic, "P1M", "P5D", 0), "2019-03-01",
			"2019-03-31", "2019-03-26", "2019-03-31", 2, 2},
		{"limited renewals end", tl("2010-01-01", RenewalAutomatic, "P1Y", "P30D", 2), "2013-01-01",
			"", "", "", 0, 0},
		{"limited renewals, last term", tl("2010-01-01", RenewalAutomatic, "P1Y", "P30D", 2), "2011-06-01",
			"2012-01-01", "", "", 2, 0},
		{"automatic, term unknown", tl("2019-03-31", RenewalAutomatic, "", "P90D", 0), "2019-06-01",
			"", "", "", 0, 0},
		{"automatic, notice unknown", tl("2019-03-31", RenewalAutomatic, "P1Y", "", 0), "2019-01-01",
			"2019-03-31", "", "2019-03-31", 0, 0},
		{"option", tl("2019-03-31", RenewalOption, "P2Y", "P60D", 0), "2019-01-01",
			"2019-03-31", "2019-01-30", "", 0, 0},
		{"option passed", tl("2019-03-31", RenewalOption, "P2Y", "P60D", 0), "2019-02-01",
			"2019-03-31", "", "", 0, 0},
		{"none", tl("2019-03-31", RenewalNone, "", "", 0), "2019-01-01",
			"2019-03-31", "", "", 0, 0},
		{"unknown kind after the end", tl("2019-03-31", "", "", "", 0), "2020-01-01",
			"", "", "", 0, 0},
		{"evergreen without end", tl("", RenewalEvergreen, "", "P12M", 0), "2020-01-01",
			"", "", "", 0, 0},
		{"evergreen initial term", tl("2019-03-29", RenewalEvergreen, "", "P12M", 0), "2018-01-01",
			"2019-03-29", "2018-03-29", "", 0, 0},
		{"no end date", tl("", RenewalAutomatic, "P1Y", "P30D", 0), "2020-01-01",
			"", "", "", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := tt.t.AsOf(tt.asOf)
			if err != nil {
				t.Fatal(err)
			}
			got := []any{d.CurrentTermEnd.Date, d.NoticeDeadline.Date, d.NextRenewal.Date, d.CurrentTermEnd.Term, d.NoticeDeadline.Term}
			want := []any{tt.termEnd, tt.notice, tt.renewal, tt.termEndTerm, tt.noticeTerm}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got) [term end, notice, renewal, terms]:\n%s\n%+v", diff, d)
			}
			for _, x := range []DerivedDate{d.CurrentTermEnd, d.NoticeDeadline, d.NextRenewal} {
				if x.Derivation == "" {
					t.Errorf("no derivation in %+v", x)
				}
			}
			if d.NoticeDeadline.Known() {
				var ev *Evidence
				for _, f := range d.NoticeDeadline.From {
					if f.Field == FieldNoticePeriod {
						ev = f.Evidence
					}
				}
				if ev == nil || ev.Quote != "ninety (90) days" {
					t.Errorf("notice deadline does not cite the notice period's evidence: %+v", d.NoticeDeadline.From)
				}
			}
		})
	}
	if _, err := tl("2019-03-31", "", "", "", 0).AsOf("2019-3-1"); err == nil {
		t.Error("AsOf accepted a malformed day")
	}
}

func TestTimelineTermination(t *testing.T) {
	d, err := TimelineOf(&Contract{TerminationNotice: "P60D"}).AsOf("2020-01-01")
	if err != nil {
		t.Fatal(err)
	}
	if d.EarliestTermination.Date != "2020-03-01" {
		t.Errorf("earliest termination %+v, want 2020-03-01", d.EarliestTermination)
	}
}

func TestTimelineDeadlines(t *testing.T) {
	type ev struct{ Kind, Date string }
	tests := []struct {
		name     string
		t        Timeline
		from, to string
		want     []ev
	}{
		{"automatic rolls", tl("2014-12-31", RenewalAutomatic, "P1Y", "P30D", 0), "2018-01-01", "2019-12-31",
			[]ev{{"notice", "2018-12-01"}, {"renewal", "2018-12-31"}, {"notice", "2019-12-01"}, {"renewal", "2019-12-31"}}},
		{"limited", tl("2010-01-01", RenewalAutomatic, "P1Y", "P30D", 1), "2009-01-01", "2030-01-01",
			[]ev{{"notice", "2009-12-02"}, {"renewal", "2010-01-01"}, {"expiration", "2011-01-01"}}},
		{"option", tl("2019-03-31", RenewalOption, "P2Y", "P60D", 0), "2019-01-01", "2019-12-31",
			[]ev{{"notice", "2019-01-30"}, {"expiration", "2019-03-31"}}},
		{"none", tl("2019-03-31", RenewalNone, "", "", 0), "2019-01-01", "2019-12-31", []ev{{"expiration", "2019-03-31"}}},
		{"unknown kind", tl("2019-03-31", "", "", "P30D", 0), "2019-01-01", "2019-12-31", []ev{{"expiration", "2019-03-31"}}},
		{"term unknown", tl("2019-03-31", RenewalAutomatic, "", "P30D", 0), "2019-01-01", "2025-12-31",
			[]ev{{"notice", "2019-03-01"}, {"renewal", "2019-03-31"}}},
		{"evergreen", tl("2019-03-29", RenewalEvergreen, "", "P12M", 0), "2017-01-01", "2025-12-31", []ev{{"notice", "2018-03-29"}}},
		{"out of range", tl("2019-03-31", RenewalNone, "", "", 0), "2020-01-01", "2020-12-31", nil},
		{"same day notice first", tl("2019-01-31", RenewalAutomatic, "P1M", "P1M", 0), "2019-02-28", "2019-03-31",
			[]ev{{"notice", "2019-02-28"}, {"renewal", "2019-02-28"}, {"notice", "2019-03-30"}, {"renewal", "2019-03-31"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds, err := tt.t.Deadlines(tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			var got []ev
			for _, d := range ds {
				got = append(got, ev{d.Kind, d.Date})
				if d.Derivation == "" || len(d.From) == 0 {
					t.Errorf("%s %s: no derivation or inputs: %+v", d.Kind, d.Date, d)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTimelineBounds(t *testing.T) {
	tests := []struct {
		t           Timeline
		first, last string
	}{
		{tl("2014-12-31", RenewalAutomatic, "P1Y", "P30D", 0), "2014-12-01", ""},
		{tl("2010-01-01", RenewalAutomatic, "P1Y", "P30D", 1), "2009-12-02", "2011-01-01"},
		{tl("2019-03-31", RenewalNone, "", "", 0), "2019-03-31", "2019-03-31"},
		{tl("2019-03-29", RenewalEvergreen, "", "P12M", 0), "2018-03-29", "2018-03-29"},
		{tl("2019-03-29", RenewalEvergreen, "", "", 0), "", ""},
		{tl("", RenewalAutomatic, "P1Y", "P30D", 0), "", ""},
	}
	for _, tt := range tests {
		first, last := tt.t.Bounds()
		if first != tt.first || last != tt.last {
			t.Errorf("Bounds(%+v) = %q, %q; want %q, %q", tt.t, first, last, tt.first, tt.last)
		}
	}
}

// FuzzTimeline checks the invariants of any timeline: deadlines lie in the
// asked range, in order, within Bounds; the notice deadline AsOf gives is
// on or after the day and is one that Deadlines lists.
func FuzzTimeline(f *testing.F) {
	f.Add("2014-12-31", "automatic", "P1Y", "P30D", 0, "2019-01-01", 400)
	f.Add("2019-01-31", "automatic", "P1M", "P5D", 3, "2019-02-15", 90)
	f.Add("2019-03-29", "evergreen", "", "P12M", 0, "2018-01-01", 365)
	f.Add("2019-03-31", "option", "P2Y", "P60D", 0, "2019-01-01", 30)
	f.Fuzz(func(t *testing.T, end, kind, term, notice string, count int, day string, within int) {
		if count < 0 || count > 100 || within < 0 || within > 5000 {
			return
		}
		start, err := time.Parse(time.DateOnly, day)
		if err != nil || start.Year() < 1800 || start.Year() > 2199 {
			return
		}
		tm := tl(end, kind, term, notice, count)
		to := start.AddDate(0, 0, within).Format(time.DateOnly)
		ds, err := tm.Deadlines(day, to)
		if err != nil {
			t.Fatal(err)
		}
		first, last := tm.Bounds()
		for i, d := range ds {
			if d.Date < day || d.Date > to {
				t.Fatalf("deadline %+v outside [%s, %s]", d, day, to)
			}
			if i > 0 && ds[i-1].Date > d.Date {
				t.Fatalf("deadlines out of order: %+v", ds)
			}
			if d.Date < first || (last != "" && d.Date > last) {
				t.Fatalf("deadline %s outside bounds [%s, %s]", d.Date, first, last)
			}
			if !slices.Contains(DeadlineKinds, d.Kind) {
				t.Fatalf("kind %q", d.Kind)
			}
		}
		got, err := tm.AsOf(day)
		if err != nil {
			t.Fatal(err)
		}
		if n := got.NoticeDeadline; n.Known() {
			if n.Date < day {
				t.Fatalf("notice deadline %s before as_of %s", n.Date, day)
			}
			if n.Date <= to {
				found := false
				for _, d := range ds {
					found = found || (d.Kind == DeadlineNotice && d.Date == n.Date)
				}
				if !found {
					t.Fatalf("AsOf notice deadline %s not among Deadlines %+v", n.Date, ds)
				}
			}
		}
		if e := got.CurrentTermEnd; e.Known() && e.Date < day {
			t.Fatalf("current term end %s before as_of %s", e.Date, day)
		}
	})
}
