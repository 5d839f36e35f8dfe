package main

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	out, stderr, code := runContractgraph(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "contractgraph ") || !strings.Contains(out, runtime.Version()) {
		t.Fatalf("version: exit %d, %q, %q", code, out, stderr)
	}
	flag, _, code := runContractgraph(t, "", "--version")
	if code != 0 || flag != out {
		t.Errorf("--version printed %q, version %q", flag, out)
	}
	js, _, code := runContractgraph(t, "", "--json", "version")
	var bi buildInfo
	if err := json.Unmarshal([]byte(js), &bi); code != 0 || err != nil || bi.Go != runtime.Version() || bi.Version == "" {
		t.Errorf("--json version: exit %d, %q (%v)", code, js, err)
	}
}

func TestBuildInfoString(t *testing.T) {
	bi := buildInfo{Version: "v1.2.0", Commit: "0123456789abcdef0123", Time: "2026-12-01T19:00:00Z", Modified: true, Go: "go1.26.0"}
	if got, want := bi.String(), "v1.2.0 (commit 0123456789ab 2026-12-01T19:00:00Z, modified, go1.26.0)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	bi = buildInfo{Version: "(devel)", Go: "go1.26.0"}
	if got, want := bi.String(), "(devel) (no VCS information, go1.26.0)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
