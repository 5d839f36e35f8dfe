package statute

import (
	"fmt"
	"strings"
)

// ParseError says where a statute file is malformed: the file, the record
// (a line number, an article number or a section identifier) and the field.
type ParseError struct {
	File   string
	Record string // "" when the problem is with the file as a whole
	Field  string // "" when the problem is with the record as a whole
	Err    error
}

// Error formats the error as "file: record: field \"name\": problem".
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Record != "" {
		fmt.Fprintf(&b, ": %s", e.Record)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": field %q", e.Field)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

// Unwrap returns the underlying problem.
func (e *ParseError) Unwrap() error { return e.Err }
