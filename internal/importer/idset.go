package importer

import "hash/maphash"

// idSet remembers the ids a file has had so far, each with the index of
// the record that had it first, for the duplicate check of checkRecords.
//
// A file can hold a million records, and the set lives for the whole read:
// a map from id strings would give the garbage collector a million
// pointers to follow on every cycle of an import that otherwise keeps a
// few batches. Here nothing the set holds is a pointer. The ids' bytes are
// appended to one arena, a map from their hash finds an entry that says
// where in the arena the id is, and a hit is confirmed by comparing the
// bytes, so two ids whose hashes collide are never taken for one another;
// the rarer of the two goes to a small map of its own.
type idSet struct {
	hash    func(string) uint64
	arena   []byte
	ents    []idEntry
	byHash  map[uint64]uint32 // hash of an id -> its entry in ents
	collide map[string]int    // ids whose hash an earlier, different id has
}

// An idEntry is one id: its bytes in the arena and its record's index.
type idEntry struct {
	off   uint64
	n     uint32
	index int64
}

func newIDSet() *idSet {
	seed := maphash.MakeSeed()
	return &idSet{
		hash:   func(id string) uint64 { return maphash.String(seed, id) },
		byHash: map[uint64]uint32{},
	}
}

// add records id for the record at index, unless an earlier record had it:
// then it returns that record's index and true, and records nothing.
func (s *idSet) add(id string, index int) (first int, dup bool) {
	if i, ok := s.collide[id]; ok {
		return i, true
	}
	h := s.hash(id)
	if e, ok := s.byHash[h]; ok {
		ent := s.ents[e]
		if string(s.arena[ent.off:ent.off+uint64(ent.n)]) == id {
			return int(ent.index), true
		}
		if s.collide == nil {
			s.collide = map[string]int{}
		}
		s.collide[id] = index
		return 0, false
	}
	s.byHash[h] = uint32(len(s.ents))
	s.ents = append(s.ents, idEntry{off: uint64(len(s.arena)), n: uint32(len(id)), index: int64(index)})
	s.arena = append(s.arena, id...)
	return 0, false
}
