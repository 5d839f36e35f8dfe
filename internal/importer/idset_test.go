package importer

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"testing"
)

// TestIDSet checks the duplicate set against a map of strings, with the
// real hash and with hashes that collide all the time, so that a collision
// is never taken for a duplicate and a duplicate of a colliding id is
// still found.
func TestIDSet(t *testing.T) {
	hashes := map[string]func(string) uint64{
		"maphash":   nil,
		"constant":  func(string) uint64 { return 7 },
		"by length": func(id string) uint64 { return uint64(len(id) % 3) },
	}
	for name, h := range hashes {
		t.Run(name, func(t *testing.T) {
			s := newIDSet()
			if h != nil {
				s.hash = h
			}
			want := map[string]int{}
			rng := rand.New(rand.NewPCG(1, 2))
			for index := 1; index <= 3000; index++ {
				id := fmt.Sprintf("c-%d", rng.IntN(1500))
				if index%97 == 0 {
					id = "" // an empty id is an id like any other here
				}
				first, dup := s.add(id, index)
				wantFirst, wantDup := want[id]
				if dup != wantDup || (dup && first != wantFirst) {
					t.Fatalf("add(%q, %d) = %d, %v; want %d, %v", id, index, first, dup, wantFirst, wantDup)
				}
				if !dup {
					want[id] = index
				}
			}
		})
	}
}

// TestIDSetHoldsNoPointers checks what the set is for: its ids cost the
// garbage collector nothing to scan. runtime/metrics reports the heap a
// cycle must scan (the bytes of objects that may hold pointers); the same
// ids in a map of strings, as checkRecords kept them before, add ~5 MB of
// it for 100,000 ids.
func TestIDSetHoldsNoPointers(t *testing.T) {
	const n = 100_000
	scannable := func() uint64 {
		runtime.GC()
		m := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
		metrics.Read(m)
		if m[0].Value.Kind() != metrics.KindUint64 {
			t.Skip("this Go does not report /gc/scan/heap:bytes")
		}
		return m[0].Value.Uint64()
	}
	before := scannable()
	s := newIDSet()
	for i := range n {
		s.add(fmt.Sprintf("gen-1-%07d", i), i+1)
	}
	after := scannable()
	if s.collide != nil {
		t.Errorf("%d ids went to the collision map with the real hash", len(s.collide))
	}
	if grew := int64(after) - int64(before); grew > 1<<20 {
		t.Errorf("%d ids added %d bytes of heap for the collector to scan; want at most 1 MiB", n, grew)
	}
	runtime.KeepAlive(s)

	// The check can fail: the map it replaced adds far more.
	before = scannable()
	old := map[string]string{}
	for i := range n {
		old[fmt.Sprintf("gen-1-%07d", i)] = fmt.Sprintf("line %d", i+1)
	}
	after = scannable()
	if grew := int64(after) - int64(before); grew <= 1<<20 {
		t.Errorf("a map of %d strings added only %d scannable bytes: the metric does not measure what this test needs", n, grew)
	}
	runtime.KeepAlive(old)
}
