package sqlite

import (
	"path/filepath"
	"testing"
)

// TestReaderMmap checks that readers map the store (so the hot indexes are
// held once, in the OS page cache, not once per reader) and the writer does
// not (so an import's RSS is its bounded heap cache).
func TestReaderMmap(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var r, w int64
	if err := s.rdb.QueryRow("PRAGMA mmap_size").Scan(&r); err != nil {
		t.Fatal(err)
	}
	if err := s.wdb.QueryRow("PRAGMA mmap_size").Scan(&w); err != nil {
		t.Fatal(err)
	}
	if size, err := storeBytes(s.wdb); err != nil {
		t.Fatal(err)
	} else if want := readerMmap(size); r != want || r == 0 {
		t.Errorf("reader mmap_size = %d, want %d (a new store of %d bytes)", r, want, size)
	}
	if w != 0 {
		t.Errorf("writer mmap_size = %d, want 0", w)
	}
	for _, c := range []struct{ size, want int64 }{
		{0, 0},
		{400 << 20, 500 << 20},
		{4 << 30, maxReaderMmap},
	} {
		if got := readerMmap(c.size); got != c.want {
			t.Errorf("readerMmap(%d) = %d, want %d", c.size, got, c.want)
		}
	}
}
