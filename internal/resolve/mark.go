package resolve

import (
	"slices"
	"strconv"
)

// markVersion changes whenever what scoring reads of a party, or how, does:
// every party is then compared again.
const markVersion = "resolve/2"

// mark fingerprints what scoring and the hard rules read of the prepared
// entity e (its name, contracts and countries) and the threshold: a party
// whose mark is the one recorded when it was last compared has nothing new
// to be compared for. Co-parties are left out: they change only with the
// contracts of the party (which are in) or with a merge of a co-party, which
// adds at most 0.03 to a score.
func (e *Entity) mark(threshold float64) string {
	return markOf(e.Name, e.contracts, e.countries, threshold)
}

// mergedMark is the mark of the party that a merge of members (canonical
// first, all prepared) leaves: the canonical name with every member's
// contracts and countries.
func mergedMark(members []*Entity, threshold float64) string {
	var contracts, countries []string
	for _, m := range members {
		contracts = append(contracts, m.contracts...)
		countries = append(countries, m.countries...)
	}
	slices.Sort(contracts)
	slices.Sort(countries)
	return markOf(members[0].Name, slices.Compact(contracts), slices.Compact(countries), threshold)
}

func markOf(name string, contracts, countries []string, threshold float64) string {
	h := newFNV('m').string(markVersion).byte(0).string(strconv.FormatFloat(threshold, 'g', -1, 64)).byte(0).string(name).byte(0)
	for _, c := range contracts {
		h = h.string(c).byte(0)
	}
	h = h.byte(1)
	for _, c := range countries {
		h = h.string(c).byte(0)
	}
	return strconv.FormatUint(uint64(h), 36) + "-" + strconv.Itoa(len(contracts))
}
