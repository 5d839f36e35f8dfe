package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// Commands under test write stderr to files, where a progress bar
	// prints a line every logEvery: keep what they print independent of
	// how long they take on a loaded machine.
	logEvery = time.Hour
	os.Exit(m.Run())
}

// TestProgressBarLogsToFile checks the plain lines a bar prints to a file
// (a log or a pipe): none for a phase shorter than its interval, then one per
// interval and a last one at 100%, never a carriage return.
func TestProgressBarLogsToFile(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := newProgressBar(f, false)
	p.every = 10 * time.Second
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return clock }

	p.start("quick")
	p.update(1, 2, 1)
	clock = clock.Add(p.every / 2)
	p.update(2, 2, 2)
	p.clear()

	p.startUnit("slow", "parties")
	for i := int64(1); i <= 30; i++ {
		clock = clock.Add(time.Second)
		p.update(i, 30, int(i))
	}
	p.update(30, 30, 30)
	p.clear()

	p.start("quiet")
	p2 := newProgressBar(f, true)
	p2.start("json")
	clock = clock.Add(time.Minute)
	p2.update(1, 1, 1)

	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	want := "slow:  33% (10 parties)\nslow:  67% (20 parties)\nslow: 100% (30 parties)\n"
	if string(got) != want {
		t.Errorf("log lines = %q, want %q", got, want)
	}
}
