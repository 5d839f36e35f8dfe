package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/jsonmsg"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// DecodeArgs decodes JSON arguments into v, a pointer to a struct. Empty or
// null arguments leave v zero; unknown arguments, wrongly typed values and
// trailing data are *ArgError naming the field.
//
// It forgives the shapes small models commonly produce when the meaning is
// unambiguous, so that a call is not lost over its spelling:
//   - null, "" (for a non-string), [] and {} for an argument mean it is absent;
//   - a list of one value where one value is expected is that value, and a
//     list of several is an *ArgError that says to call once per value;
//   - a single string where a list is expected is a list of one;
//   - numbers and booleans written as strings ("5", "true") are accepted, as
//     is an integral number written with a fraction (5.0);
//   - argument names match ignoring case, '_' and '-' (contractType);
//   - arguments sent as one JSON string holding the object are unwrapped.
//
// Strings are not otherwise converted: the tools validate and normalise
// their values themselves.
func DecodeArgs(args json.RawMessage, v any) error {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) > 0 && trimmed[0] == '"' {
		// Some models send the arguments object JSON-encoded as a string.
		var inner string
		if json.Unmarshal(trimmed, &inner) == nil {
			if in := bytes.TrimSpace([]byte(inner)); len(in) > 0 && in[0] == '{' {
				trimmed = in
			}
		}
	}
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil
	}
	if trimmed[0] != '{' {
		return &ArgError{Msg: "arguments must be a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return decodeError(err, v)
	}
	if _, err := dec.Token(); err != io.EOF {
		return &ArgError{Msg: "unexpected data after the JSON arguments object"}
	}
	norm, err := lenientObject(obj, reflect.TypeOf(v), "")
	if err != nil {
		return err
	}
	b, err := json.Marshal(norm)
	if err != nil {
		return &ArgError{Msg: fmt.Sprintf("invalid arguments: %v", err)}
	}
	strict := json.NewDecoder(bytes.NewReader(b))
	strict.DisallowUnknownFields()
	if err := strict.Decode(v); err != nil {
		return decodeError(err, v)
	}
	return nil
}

// lenientObject rewrites the arguments obj of struct type t into the shapes
// strict decoding expects (see DecodeArgs). prefix is the JSON path of obj
// for error messages ("" at the top, "monetary_value." inside).
func lenientObject(obj map[string]json.RawMessage, t reflect.Type, prefix string) (map[string]json.RawMessage, error) {
	t = deref(t)
	if t == nil || t.Kind() != reflect.Struct {
		return obj, nil
	}
	fields := argFields(t)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(map[string]json.RawMessage, len(obj))
	given := map[string]string{} // canonical name -> key as sent
	for _, k := range keys {
		f, ok := fields.lookup(k)
		if !ok {
			return nil, unknownArgError(prefix, k, fields.names)
		}
		if prev, dup := given[f.name]; dup {
			return nil, &ArgError{Field: prefix + f.name, Msg: fmt.Sprintf("given twice, as %q and %q; give it once", prev, k)}
		}
		given[f.name] = k
		val, keep, err := lenientValue(obj[k], f.typ, prefix+f.name)
		if err != nil {
			return nil, err
		}
		if keep {
			out[f.name] = val
		}
	}
	return out, nil
}

// lenientValue rewrites one argument value for Go type t; keep is false
// when the value means "absent".
func lenientValue(raw json.RawMessage, t reflect.Type, field string) (val json.RawMessage, keep bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || isNull(raw) {
		return nil, false, nil
	}
	t = deref(t)
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if raw[0] == '[' {
			elems, ok := distinctElems(raw)
			if !ok {
				return raw, true, nil // not a list after all: strict decoding explains
			}
			switch len(elems) {
			case 0:
				return nil, false, nil
			case 1:
				raw = elems[0]
			default:
				return nil, false, oneValueError(field, elems)
			}
		}
		return lenientScalar(raw, t.Kind())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return raw, true, nil
		}
		switch raw[0] {
		case '"':
			var s string
			if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) == "" {
				return nil, false, nil
			}
			return append(append([]byte{'['}, raw...), ']'), true, nil
		case '[':
			var elems []json.RawMessage
			if json.Unmarshal(raw, &elems) != nil {
				return raw, true, nil
			}
			kept := make([]json.RawMessage, 0, len(elems))
			for _, e := range elems {
				e = bytes.TrimSpace(e)
				if isNull(e) || isBlankString(e) {
					continue
				}
				kept = append(kept, e)
			}
			if len(kept) == 0 {
				return nil, false, nil
			}
			b, err := json.Marshal(kept)
			return b, err == nil, err
		}
		return raw, true, nil
	case reflect.Struct:
		switch {
		case raw[0] == '{':
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil {
				return raw, true, nil
			}
			norm, err := lenientObject(obj, t, field+".")
			if err != nil {
				return nil, false, err
			}
			if len(norm) == 0 {
				return nil, false, nil
			}
			b, err := json.Marshal(norm)
			return b, err == nil, err
		case bytes.Equal(raw, []byte("[]")) || isBlankString(raw):
			return nil, false, nil
		}
	}
	return raw, true, nil
}

// lenientScalar accepts numbers and booleans written as strings. Values it
// cannot convert are kept, for strict decoding to report.
func lenientScalar(raw json.RawMessage, kind reflect.Kind) (json.RawMessage, bool, error) {
	var s string
	quoted := raw[0] == '"' && json.Unmarshal(raw, &s) == nil
	switch kind {
	case reflect.String:
		return raw, true, nil
	case reflect.Bool:
		if !quoted {
			return raw, true, nil
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "":
			return nil, false, nil
		case "true":
			return json.RawMessage("true"), true, nil
		case "false":
			return json.RawMessage("false"), true, nil
		}
		return raw, true, nil
	case reflect.Float32, reflect.Float64:
		if !quoted {
			return raw, true, nil
		}
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, false, nil
		}
		if f, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), true, nil
		}
		return raw, true, nil
	default: // integers
		text := string(raw)
		if quoted {
			text = strings.TrimSpace(s)
			if text == "" {
				return nil, false, nil
			}
		}
		if _, err := strconv.ParseInt(text, 10, 64); err == nil {
			return json.RawMessage(text), true, nil
		}
		if f, err := strconv.ParseFloat(text, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return json.RawMessage(strconv.FormatInt(int64(f), 10)), true, nil
		}
		return raw, true, nil
	}
}

// distinctElems returns the elements of a JSON list without nulls and
// without repeats; ok is false when raw is not a list.
func distinctElems(raw json.RawMessage) (elems []json.RawMessage, ok bool) {
	var all []json.RawMessage
	if json.Unmarshal(raw, &all) != nil {
		return nil, false
	}
	var seen []string
	for _, e := range all {
		e = bytes.TrimSpace(e)
		if isNull(e) || isBlankString(e) {
			continue
		}
		key := string(e)
		var s string
		if json.Unmarshal(e, &s) == nil {
			key = strings.ToLower(strings.TrimSpace(s))
		}
		if slices.Contains(seen, key) {
			continue
		}
		seen = append(seen, key)
		elems = append(elems, e)
	}
	return elems, true
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(raw, []byte("null")) }

func isBlankString(raw json.RawMessage) bool {
	var s string
	return len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) == ""
}

// oneValueError explains that field takes one value and how to ask for
// several.
func oneValueError(field string, elems []json.RawMessage) error {
	shown := make([]string, 0, 3)
	for _, e := range elems[:min(3, len(elems))] {
		shown = append(shown, string(e))
	}
	list := strings.Join(shown, ", ")
	if len(elems) > 3 {
		list += ", …"
	}
	return &ArgError{Field: field, Msg: fmt.Sprintf("takes one value, not a list of %d (%s); call once per %s", len(elems), list, valueNoun(field))}
}

// valueNoun names what one value of field is, for "call once per ...".
func valueNoun(field string) string {
	name := field[strings.LastIndexByte(field, '.')+1:]
	switch name {
	case "contract_type":
		return "contract type"
	case "party_country", "governing_law_country", "country":
		return "country"
	case "governing_law_state":
		return "state"
	case "contract_id":
		return "contract"
	case "statute_id":
		return "statute"
	case "query", "summary_search", "question":
		return "search"
	case "group_by":
		return "grouping"
	case "metric":
		return "metric"
	}
	return "value"
}

// argField is one JSON argument of an input struct.
type argField struct {
	name string
	typ  reflect.Type
}

// argFieldSet holds the arguments of an input struct.
type argFieldSet struct {
	byName  map[string]argField
	byLoose map[string]argField
	names   []string // sorted
}

// lookup finds an argument by its exact name, else ignoring case, '_',
// '-' and spaces.
func (s argFieldSet) lookup(key string) (argField, bool) {
	if f, ok := s.byName[key]; ok {
		return f, true
	}
	f, ok := s.byLoose[looseKey(key)]
	return f, ok
}

func looseKey(k string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ':
			return -1
		}
		return r
	}, strings.ToLower(k))
}

// argFields lists the JSON arguments of struct type t, including those of
// embedded structs, as encoding/json sees them.
func argFields(t reflect.Type) argFieldSet {
	s := argFieldSet{byName: map[string]argField{}, byLoose: map[string]argField{}}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, taken := s.byName[name]; taken {
			continue // shadowed by a shallower field of the same name
		}
		af := argField{name: name, typ: f.Type}
		s.byName[name] = af
		s.byLoose[looseKey(name)] = af
		s.names = append(s.names, name)
	}
	slices.Sort(s.names)
	return s
}

// unknownArgError names the unknown argument, the closest known one and
// every argument the tool takes.
func unknownArgError(prefix, key string, names []string) error {
	msg := "unknown argument"
	if near := closest(key, names); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	return &ArgError{Field: prefix + key, Msg: msg, Valid: names, validArgs: true}
}

// closest returns the name nearest to key by edit distance, if it is near
// enough to be a plausible misspelling, or a name that contains key or is
// contained in it.
func closest(key string, names []string) string {
	k := looseKey(key)
	best, bestDist := "", 0
	for _, n := range names {
		d := textmatch.EditDistance(k, looseKey(n))
		if best == "" || d < bestDist {
			best, bestDist = n, d
		}
	}
	if best != "" && bestDist <= max(2, len(k)/3) {
		return best
	}
	for _, n := range names {
		if ln := looseKey(n); k != "" && (strings.Contains(ln, k) || strings.Contains(k, ln)) {
			return n
		}
	}
	return ""
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func decodeError(err error, v any) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := jsonPath(typeErr.Field, reflect.TypeOf(v))
		if field == "" {
			return &ArgError{Msg: fmt.Sprintf("arguments must be a JSON object, not %s", typeErr.Value)}
		}
		return &ArgError{Field: field, Msg: fmt.Sprintf("expected %s, got %s", jsonmsg.Kind(typeErr.Type), typeErr.Value)}
	case errors.As(err, &syntaxErr):
		return &ArgError{Msg: fmt.Sprintf("invalid JSON at byte %d: %v", syntaxErr.Offset, err)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &ArgError{Msg: "invalid JSON: unexpected end of input"}
	}
	// encoding/json reports unknown fields only as text: `json: unknown field "x"`.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name = strings.Trim(name, `"`)
		return unknownArgError("", name, fieldNames(reflect.TypeOf(v)))
	}
	var argErr *ArgError
	if errors.As(err, &argErr) {
		return argErr
	}
	return &ArgError{Msg: fmt.Sprintf("invalid arguments: %v", err)}
}

// jsonPath removes from an encoding/json field path the Go names of
// embedded structs (such as Filters), which callers never see.
func jsonPath(path string, t reflect.Type) string {
	if path == "" {
		return ""
	}
	embedded := map[string]bool{}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		t = deref(t)
		if t == nil || t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				embedded[f.Name] = true
			}
			walk(f.Type)
		}
	}
	walk(t)
	var parts []string
	for _, p := range strings.Split(path, ".") {
		if !embedded[p] {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ".")
}

// fieldNames lists the JSON argument names of a struct type, sorted.
func fieldNames(t reflect.Type) []string {
	t = deref(t)
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	return argFields(t).names
}
