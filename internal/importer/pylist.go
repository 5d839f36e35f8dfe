package importer

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParsePyStringList parses a Python list literal of string literals, as
// Python's repr() writes it: "['a', \"b's\"]". Both quote styles, the usual
// backslash escapes (\\ \' \" \n \r \t \a \b \f \v \0-\7 octal, \xhh,
// \uhhhh, \Uhhhhhhhh, backslash-newline) and a trailing comma are accepted.
// Anything else is an error giving the byte offset.
func ParsePyStringList(s string) ([]string, error) {
	p := pyParser{s: s}
	p.space()
	if !p.eat('[') {
		return nil, p.errf("expected '['")
	}
	out := []string{}
	for {
		p.space()
		if p.eat(']') {
			break
		}
		str, err := p.str()
		if err != nil {
			return nil, err
		}
		out = append(out, str)
		p.space()
		if p.eat(',') {
			continue
		}
		if p.eat(']') {
			break
		}
		return nil, p.errf("expected ',' or ']'")
	}
	p.space()
	if p.i != len(p.s) {
		return nil, p.errf("unexpected text after ']'")
	}
	return out, nil
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) errf(format string, args ...any) error {
	return fmt.Errorf("python list literal at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

var errUnterminated = errors.New("unterminated string")

// str parses one string literal at p.i.
func (p *pyParser) str() (string, error) {
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", p.errf("expected a string literal")
	}
	q := p.s[p.i]
	start := p.i
	p.i++
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			p.i = start
			return "", p.errf("%v", errUnterminated)
		}
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\n':
			return "", p.errf("newline in a single-quoted string")
		case c != '\\':
			b.WriteByte(c)
			p.i++
			continue
		}
		// Backslash escape.
		p.i++
		if p.i >= len(p.s) {
			p.i = start
			return "", p.errf("%v", errUnterminated)
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case '\n':
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := p.i - 1
			for p.i < len(p.s) && p.i-j < 3 && p.s[p.i] >= '0' && p.s[p.i] <= '7' {
				p.i++
			}
			v, _ := strconv.ParseUint(p.s[j:p.i], 8, 32)
			b.WriteRune(rune(v))
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if p.i+n > len(p.s) {
				return "", p.errf("truncated \\%c escape", e)
			}
			v, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return "", p.errf("invalid \\%c escape %q", e, p.s[p.i:p.i+n])
			}
			p.i += n
			b.WriteRune(rune(v))
		default:
			// Python keeps unknown escapes verbatim.
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
}
