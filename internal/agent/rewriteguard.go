package agent

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/textnum"
)

// A small rewriter adds constraints of its own: measured with the local
// 1.5B model (docs/EVALUATION.md), it gave seven of 22 single questions
// dates the user never wrote ("signed between January 1, 2025, and
// December 31, 2026"), today's date, or counts ("has 10 contracts"), and
// three answers that passed as asked failed as rewritten. The prompt says
// "add none"; addedFigures enforces it for what can be checked without a
// model: every number of the rewritten question must come from the
// question or the conversation, or be part of today's date when the
// question speaks of a time relative to today.

// addedFigures lists the numbers rewritten states that neither the
// question nor the conversation holds, in order, once each.
func addedFigures(rewritten, question string, history []llm.Message, date string) []string {
	known := map[float64]bool{}
	add := func(s string) {
		for _, n := range textnum.Find(s) {
			known[n] = true
		}
		// An ISO date is a year to textnum; its month and day may be
		// written out in the rewrite ("2015-06-30" → "June 30, 2015").
		for _, m := range isoDate.FindAllStringSubmatch(s, -1) {
			for _, part := range m[1:] {
				if v, err := strconv.Atoi(part); err == nil {
					known[float64(v)] = true
				}
			}
		}
	}
	add(question)
	for _, m := range history {
		add(m.Content)
	}
	if relativeTime.MatchString(question) {
		add(date)
	}
	var out []string
	seen := map[float64]bool{}
	for _, n := range textnum.Find(rewritten) {
		if known[n] || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, strconv.FormatFloat(n, 'f', -1, 64))
	}
	return out
}

var (
	isoDate = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	// relativeTime is a question's reference to today, which the rewriter
	// is told to resolve with today's date.
	relativeTime = regexp.MustCompile(`(?i)\b(today|tomorrow|yesterday|now|current(ly)?|this (year|month|quarter|week)|(last|next|past|coming) (\d+ )?(years?|months?|quarters?|weeks?|days?)|ago|upcoming|so far|to date|yet)\b`)
)

// rewriteAddsFigures is the reason a rewrite is set aside.
func rewriteAddsFigures(figs []string) string {
	return fmt.Sprintf("the rewrite added %s, which neither the question nor the conversation states", strings.Join(figs, ", "))
}
