package playbook

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestJudgePromptGolden pins the judgement prompt for the test contract's
// termination deviation (refresh with -update).
func TestJudgePromptGolden(t *testing.T) {
	pb, err := ParseExample()
	if err != nil {
		t.Fatal(err)
	}
	rep := Check(pb, testContract(), time.Now())
	r := resultOf(t, rep, "termination-for-convenience")
	var e *Entry
	for i := range pb.Entries {
		if pb.Entries[i].ID == r.EntryID {
			e = &pb.Entries[i]
		}
	}
	msgs, err := judgeMessages(e, r)
	if err != nil {
		t.Fatal(err)
	}
	got := "## system\n" + msgs[0].Content + "\n\n## user\n" + msgs[1].Content + "\n"
	path := filepath.Join("testdata", "judge_prompt.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("prompt changed (-golden +got); run with -update if intended:\n%s", diff)
	}
}
