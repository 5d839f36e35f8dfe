package agent

import (
	"regexp"
	"strings"
	"unicode"
)

// leadHold passes a streamed reply through once it has started its answer,
// holding back what comes before: blank lines and a leading "Sources:" line
// (with its bulleted continuation). A small model's reply that is only a
// Sources line therefore shows nothing, the agent asks again, and the
// second reply does not appear glued to a stray label.
type leadHold struct {
	emit    func(string)
	started bool
	held    strings.Builder
}

func (h *leadHold) write(s string) {
	if h.started {
		h.emit(s)
		return
	}
	h.held.WriteString(s)
	if startsAnswer(h.held.String()) {
		h.started = true
		h.emit(h.held.String())
		h.held.Reset()
	}
}

// startsAnswer reports whether the start of a reply already holds answer
// text, that is a line that is neither blank nor part of a Sources line,
// or a partial line that can no longer become one.
func startsAnswer(t string) bool {
	afterSources := false
	for t != "" {
		line, rest, complete := strings.Cut(t, "\n")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
		case isSourcesLine(line):
			afterSources = true
		case afterSources && (strings.HasPrefix(trimmed, "-") || strings.HasPrefix(trimmed, "*") || strings.HasPrefix(trimmed, "•")):
		case !complete:
			return !mayBeSourcesLine(line)
		default:
			return true
		}
		if !complete {
			return false
		}
		t = rest
	}
	return false
}

func isSourcesLine(line string) bool { return sourcesLine.MatchString(line) }

// mayBeSourcesLine reports whether a partial line could still become a
// "Sources:" label.
func mayBeSourcesLine(line string) bool {
	t := strings.ToLower(strings.TrimLeft(line, " \t>*_#-"))
	if len(t) < len("sources") {
		return strings.HasPrefix("sources", t)
	}
	rest, ok := strings.CutPrefix(t, "source")
	if !ok {
		return false
	}
	return strings.Trim(strings.TrimPrefix(rest, "s"), " \t*_") == ""
}

// hasAnswerText reports whether text, without its Sources line, says
// anything: a letter or a digit.
// markupTag matches an XML-style or chat-template tag with no attributes.
var markupTag = regexp.MustCompile(`<\|[^|<>]{0,40}\|>|</?[A-Za-z_][A-Za-z0-9_:-]{0,40}/?>`)

func hasAnswerText(text string) bool {
	body, _, _ := splitSources(text)
	// Chat-template markup a small model echoes ("<tools></tools>",
	// "<|im_end|>") is not an answer.
	body = markupTag.ReplaceAllString(body, "")
	return strings.IndexFunc(body, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
