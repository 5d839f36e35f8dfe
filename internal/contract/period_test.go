package contract

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPeriods(t *testing.T) {
	s := "This Agreement renews for successive one (1) year terms unless either party gives ninety (90) days prior written notice."
	got := Periods(s)
	want := []Period{
		{Start: 37, End: 49, ISO: "P1Y", Days: 365},
		{Start: 82, End: 98, ISO: "P90D", Days: 90, Notice: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Periods mismatch (-want +got):\n%s", diff)
	}
	for _, p := range got {
		if _, ok := ParseDuration(s[p.Start:p.End]); !ok {
			t.Errorf("span %q does not read as a period", s[p.Start:p.End])
		}
	}
	if got := Periods("Section 12 applies."); len(got) != 0 {
		t.Errorf("Periods(no period) = %v, want none", got)
	}
}
