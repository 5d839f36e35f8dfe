package contract

import (
	"slices"
	"testing"
)

func TestPreferredName(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  string
	}{
		{"none", nil, ""},
		{"only empty", []string{"", ""}, ""},
		{"one", []string{"Acme Inc."}, "Acme Inc."},
		{"empty ignored", []string{"", "franchisee"}, "franchisee"},
		{"mixed case over lower case", []string{"franchisee", "Franchisee"}, "Franchisee"},
		{"mixed case over capitals", []string{"FRANCHISEE", "Franchisee"}, "Franchisee"},
		{"capitals over lower case", []string{"franchisee", "FRANCHISEE"}, "FRANCHISEE"},
		{"case beats length", []string{"ACME CORPORATION", "Acme Corp"}, "Acme Corp"},
		{"longer wins", []string{"Acme Inc", "Acme, Inc."}, "Acme, Inc."},
		{"more complete legal form", []string{"Premier Nutrition Corporation", "Premier Nutrition Company, LLC"}, "Premier Nutrition Company, LLC"},
		{"apostrophe kept", []string{"Stremicks Heritage Foods, LLC", "Stremick's Heritage Foods, LLC"}, "Stremick's Heritage Foods, LLC"},
		{"length counts characters, not bytes", []string{"Societe Generale SA", "Société Générale"}, "Societe Generale SA"},
		{"equal length: smallest string", []string{"Acme, Inc", "Acme Inc."}, "Acme Inc."},
		{"caseless counts as mixed", []string{"3M 株式会社", "3m 株式会社"}, "3M 株式会社"},
		{"repeats do not count", []string{"franchisee", "franchisee", "franchisee", "Franchisee"}, "Franchisee"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PreferredName(tt.names); got != tt.want {
				t.Errorf("PreferredName(%q) = %q, want %q", tt.names, got, tt.want)
			}
			// The choice must not depend on the order of the spellings.
			rev := slices.Clone(tt.names)
			slices.Reverse(rev)
			if got := PreferredName(rev); got != tt.want {
				t.Errorf("PreferredName(%q) = %q, want %q", rev, got, tt.want)
			}
		})
	}
}

// FuzzPreferredName checks the properties the stores rely on: the result is
// one of the spellings, it does not depend on their order, and it can be
// kept up to date one spelling at a time.
func FuzzPreferredName(f *testing.F) {
	f.Add("franchisee", "Franchisee", "FRANCHISEE")
	f.Add("Acme Inc", "Acme, Inc.", "")
	f.Add("Société", "SOCIETE", "société")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		names := []string{a, b, c}
		got := PreferredName(names)
		if got == "" {
			if a != "" || b != "" || c != "" {
				t.Fatalf("PreferredName(%q) = \"\" with non-empty spellings", names)
			}
			return
		}
		if !slices.Contains(names, got) {
			t.Fatalf("PreferredName(%q) = %q, not one of the spellings", names, got)
		}
		for _, perm := range [][]string{{a, c, b}, {b, a, c}, {b, c, a}, {c, a, b}, {c, b, a}} {
			if p := PreferredName(perm); p != got {
				t.Fatalf("PreferredName(%q) = %q but PreferredName(%q) = %q", names, got, perm, p)
			}
		}
		if step := PreferredName([]string{PreferredName([]string{a, b}), c}); step != got {
			t.Fatalf("incremental choice %q differs from %q for %q", step, got, names)
		}
	})
}
