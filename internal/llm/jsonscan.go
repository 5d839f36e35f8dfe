package llm

// JSONStrings follows a byte-by-byte scan of JSON text (possibly broken or
// cut off) and tells which bytes belong to string literals, so that a
// scanner repairing or measuring a model's reply does not take brackets or
// commas inside strings for structure. The zero value starts outside any
// string.
type JSONStrings struct{ in, escaped bool }

// Step takes the next byte of the text and reports whether it is part of a
// string literal, its opening and closing quotes included.
func (s *JSONStrings) Step(c byte) bool {
	if s.in {
		switch {
		case s.escaped:
			s.escaped = false
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.in = false
		}
		return true
	}
	if c == '"' {
		s.in = true
		return true
	}
	return false
}
