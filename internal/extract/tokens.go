package extract

import "strings"

// EstimateTokens estimates how many tokens a model's tokenizer makes of s
// without calling it: one token per four bytes, rounded up. For English
// legal prose BPE tokenizers (cl100k, o200k) average 4.0–4.5 bytes per
// token, so the estimate errs slightly high, which is the safe side for a
// context budget.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// span is a byte range of a text.
type span struct{ start, end int }

// splitBudget splits text into consecutive spans of at most maxTokens
// estimated tokens each, cutting at the last paragraph break (blank line)
// inside the window, else the last line break, else the last space, else at
// a character boundary.
func splitBudget(text string, maxTokens int) []span {
	maxBytes := maxTokens * 4
	if maxBytes < 64 {
		maxBytes = 64
	}
	var out []span
	for start := 0; start < len(text); {
		end := start + maxBytes
		if end >= len(text) {
			out = append(out, span{start, len(text)})
			break
		}
		window := text[start:end]
		cut := -1
		for _, sep := range []string{"\n\n", "\n", " "} {
			if i := strings.LastIndex(window, sep); i > len(window)/2 {
				cut = i + len(sep)
				break
			}
		}
		if cut < 0 {
			cut = len(window)
			for cut > 0 && cut < len(window) && !isRuneStart(window[cut]) {
				cut--
			}
			if cut == 0 {
				cut = len(window)
			}
		}
		out = append(out, span{start, start + cut})
		start += cut
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
