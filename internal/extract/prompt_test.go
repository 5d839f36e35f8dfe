package extract

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestPromptsGolden(t *testing.T) {
	whole := newPromptData("acme-supply", "SUPPLY AGREEMENT\n\n1. TERM. Two years.", 1, 1)
	part := newPromptData("acme-supply", "3. GOVERNING LAW. New York.", 2, 3)
	repair := whole
	repair.Problems = []string{`effective_date: invalid date "February 30, 2019"`, `parties[2].name: "Franchisee" is a role word`}
	tests := []struct {
		golden, tmpl string
		data         promptData
	}{
		{"system.golden", "system.tmpl", whole},
		{"system_part.golden", "system.tmpl", part},
		{"user.golden", "user.tmpl", whole},
		{"user_part.golden", "user.tmpl", part},
		{"repair.golden", "repair.tmpl", repair},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got, err := render(tt.tmpl, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.golden, diff)
			}
		})
	}
}

func TestSplitBudget(t *testing.T) {
	text := strings.Repeat("Para one is here.\n\n", 50) + strings.Repeat("x", 900) + "é" + strings.Repeat("y", 300)
	spans := splitBudget(text, 100) // 400 bytes each
	if len(spans) < 3 {
		t.Fatalf("spans = %v", spans)
	}
	pos := 0
	for i, s := range spans {
		if s.start != pos || s.end <= s.start || s.end-s.start > 400 {
			t.Fatalf("span %d = %+v at %d", i, s, pos)
		}
		if !isRuneStart(text[s.end%len(text)]) && s.end != len(text) {
			t.Fatalf("span %d cuts a character", i)
		}
		if i < 2 && !strings.HasSuffix(text[s.start:s.end], "\n\n") {
			t.Errorf("span %d does not end at a paragraph break: %q", i, text[s.end-10:s.end])
		}
		pos = s.end
	}
	if pos != len(text) {
		t.Fatalf("spans end at %d of %d", pos, len(text))
	}
	if got := EstimateTokens("abcdefgh"); got != 2 {
		t.Errorf("EstimateTokens = %d", got)
	}
}
