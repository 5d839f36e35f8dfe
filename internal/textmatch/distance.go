package textmatch

// EditDistance is the edit distance between a and b in runes, counting an
// adjacent transposition as one edit (optimal string alignment): "Nwe York"
// and "New York" are one edit apart. It is what "did you mean" suggestions
// and fuzzy name matching measure.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 {
		return len(rb)
	}
	if len(rb) == 0 {
		return len(ra)
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// EditsWithin reports whether a and b are at most k edits apart, by
// EditDistance's measure, and if so how many. It computes only the band of
// the table within k of the diagonal and stops once every entry of a row
// exceeds k, so that comparing a short query with many names is cheap.
func EditsWithin(a, b []rune, k int) (int, bool) {
	if k < 0 {
		return 0, false
	}
	if d := len(a) - len(b); d > k || -d > k {
		return 0, false
	}
	if len(a) == 0 || len(b) == 0 {
		return max(len(a), len(b)), true
	}
	// Rows of at most 32 entries live on the stack.
	var buf [3][33]int
	var prev2, prev, cur []int
	if len(b) < 33 {
		prev2, prev, cur = buf[0][:len(b)+1], buf[1][:len(b)+1], buf[2][:len(b)+1]
	} else {
		prev2, prev, cur = make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	}
	const far = 1 << 30 // outside the band
	for j := range prev {
		prev[j] = j
		if j > k {
			prev[j] = far
		}
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-k), min(len(b), i+k)
		// Only the band is computed; the cells beside it, which the band's
		// neighbours read, are set outside it (the rows are reused).
		cur[lo-1] = far
		if i <= k {
			cur[0] = i
		}
		if hi < len(b) {
			cur[hi+1] = far
		}
		best := cur[0]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > k {
			return 0, false
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if d := prev[len(b)]; d <= k {
		return d, true
	}
	return 0, false
}
