package retrieve

import (
	"regexp"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// Chunking defaults.
const (
	DefaultMaxChunkBytes = 1200
	DefaultMinChunkBytes = 200
)

// ChunkOptions bounds chunk sizes in bytes of text.
type ChunkOptions struct {
	// Max is the largest chunk; a longer paragraph is cut at sentence ends
	// (else at spaces). 0 means DefaultMaxChunkBytes.
	Max int
	// Min is the size below which a chunk is not closed at a heading, so that
	// a heading stays with the text after it. 0 means DefaultMinChunkBytes.
	Min int
}

// headingRE matches a line that opens a clause: "ARTICLE IV", "Article 4",
// "Section 5.", "SECTION 5.1", "5. Term", "5.1 The Company", "12.3.1",
// or an all-capitals title line such as "GOVERNING LAW".
var headingRE = regexp.MustCompile(`^[ \t#*]*(?:(?:ARTICLE|Article)\s+(?:[IVXLC]+|\d+)\b|(?:SECTION|Section)\s+\d+(?:\.\d+)*|\d{1,3}(?:\.\d{1,3})*\.?\s+[A-Z(“"]|\d{1,3}(?:\.\d{1,3})+\b|[A-Z][A-Z0-9 ,&'\-]{3,80}$)`)

// sentenceEndRE finds a sentence end followed by the start of another.
var sentenceEndRE = regexp.MustCompile(`[.;:!?]["”)]?\s+[A-Z("“]`)

// block is one paragraph or heading-led section of the text.
type block struct {
	start, end int
	heading    bool
}

// Chunk splits text into passages at clause boundaries (numbered and
// titled headings, "Section 5.", "ARTICLE IV", blank lines), packing small
// paragraphs together up to opts.Max bytes. Each chunk's Text is exactly
// text[Start:End] without surrounding whitespace; chunks are in text order
// and do not overlap. IDs are left empty for the store to assign.
func Chunk(text string, opts ChunkOptions) []contract.Chunk {
	if opts.Max <= 0 {
		opts.Max = DefaultMaxChunkBytes
	}
	if opts.Min <= 0 || opts.Min > opts.Max {
		opts.Min = min(DefaultMinChunkBytes, opts.Max/2)
	}
	var out []contract.Chunk
	emit := func(start, end int) {
		start, end = trimSpan(text, start, end)
		if start >= end {
			return
		}
		out = append(out, contract.Chunk{Ord: len(out), Text: text[start:end], Start: start, End: end})
	}
	curStart, curEnd := -1, -1
	flush := func() {
		if curStart >= 0 {
			emit(curStart, curEnd)
		}
		curStart, curEnd = -1, -1
	}
	for _, b := range blocks(text) {
		size := b.end - b.start
		switch {
		case size > opts.Max:
			flush()
			for _, s := range splitLong(text, b.start, b.end, opts.Max) {
				emit(s[0], s[1])
			}
			continue
		case curStart < 0:
			curStart, curEnd = b.start, b.end
			continue
		case b.heading && curEnd-curStart >= opts.Min, b.end-curStart > opts.Max:
			flush()
			curStart, curEnd = b.start, b.end
			continue
		}
		curEnd = b.end
	}
	flush()
	return out
}

// blocks cuts text into paragraphs at blank lines and before heading lines.
func blocks(text string) []block {
	var out []block
	start := -1
	heading := false
	blank := true
	// onlyHeadings: every line of the current block so far is a heading
	// line, as in "ARTICLE IV\nDEFINITIONS", which stays one block.
	onlyHeadings := false
	pos := 0
	for pos <= len(text) {
		nl := strings.IndexByte(text[pos:], '\n')
		lineEnd := len(text)
		if nl >= 0 {
			lineEnd = pos + nl
		}
		line := text[pos:lineEnd]
		isBlank := strings.TrimSpace(line) == ""
		isHeading := !isBlank && headingRE.MatchString(line)
		switch {
		case isBlank:
			if start >= 0 {
				out = append(out, block{start, pos, heading})
				start = -1
			}
		case start < 0:
			start, heading, onlyHeadings = pos, isHeading, isTitle(line, isHeading)
		case isHeading && !blank && !onlyHeadings:
			out = append(out, block{start, pos, heading})
			start, heading, onlyHeadings = pos, true, isTitle(line, isHeading)
		default:
			onlyHeadings = onlyHeadings && isTitle(line, isHeading)
		}
		blank = isBlank
		if nl < 0 {
			break
		}
		pos = lineEnd + 1
	}
	if start >= 0 {
		out = append(out, block{start, len(text), heading})
	}
	return out
}

// isTitle reports whether a heading line is only a title ("ARTICLE IV",
// "DEFINITIONS"), at most four words, so the lines after it belong to it.
func isTitle(line string, heading bool) bool {
	return heading && len(strings.Fields(line)) <= 4
}

// splitLong cuts text[start:end] into pieces of at most max bytes at
// sentence ends, else at whitespace, else at a character boundary.
func splitLong(text string, start, end, max int) [][2]int {
	var out [][2]int
	for end-start > max {
		window := text[start : start+max]
		cut := -1
		if locs := sentenceEndRE.FindAllStringIndex(window, -1); len(locs) > 0 {
			last := locs[len(locs)-1]
			// Cut after the punctuation and its space, before the next sentence.
			if c := last[1] - 1; c > max/3 {
				cut = c
			}
		}
		if cut < 0 {
			if i := strings.LastIndexAny(window, " \n\t"); i > max/3 {
				cut = i + 1
			}
		}
		if cut < 0 {
			cut = max
			for cut > 0 && text[start+cut]&0xC0 == 0x80 {
				cut--
			}
			if cut == 0 { // not UTF-8; any cut will do
				cut = max
			}
		}
		out = append(out, [2]int{start, start + cut})
		start += cut
	}
	return append(out, [2]int{start, end})
}

func trimSpan(text string, start, end int) (int, int) {
	for start < end && isSpace(text[start]) {
		start++
	}
	for end > start && isSpace(text[end-1]) {
		end--
	}
	return start, end
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }
