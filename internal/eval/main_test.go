package eval

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// pkgDir is a temporary directory for data the tests share (the demo
// store), removed when they end.
var pkgDir string

func tempDirForPackage() (string, error) { return pkgDir, nil }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "eval-test")
	if err != nil {
		panic(err)
	}
	pkgDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
