package graph

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The one policy for bytes that are not text, on every path into a store:
// readers (importers, document loaders, statute readers) replace invalid
// UTF-8 with U+FFFD as they read, before any offset is computed, so that a
// file with a stray byte still imports; the write validation (Prepare,
// PrepareStatute) then refuses what no reader may let through — NUL
// characters, which SQLite and Neo4j treat differently and which no
// contract or statute holds, and invalid UTF-8 from a caller that skipped
// a reader — naming the field and the byte offset.

// badText returns why s cannot be stored ("NUL character at byte 12",
// "invalid UTF-8 at byte 3"), or "" when it can.
func badText(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return "NUL character at byte " + strconv.Itoa(i)
	}
	if !utf8.ValidString(s) {
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return "invalid UTF-8 at byte " + strconv.Itoa(i)
			}
			i += size
		}
	}
	return ""
}

// checkTexts walks every string of v (a struct, or a pointer, slice or map
// of them, nested) and returns the JSON path and the reason of the first
// one badText refuses. Every field a contract type gains is checked with
// no change here.
func checkTexts(v reflect.Value, path string) (string, string) {
	switch v.Kind() {
	case reflect.String:
		if why := badText(v.String()); why != "" {
			return path, why
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return checkTexts(v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		if !hasStrings(v.Type().Elem()) {
			return "", ""
		}
		for i := range v.Len() {
			if f, why := checkTexts(v.Index(i), path+"["+strconv.Itoa(i)+"]"); why != "" {
				return f, why
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() || !hasStrings(sf.Type) {
				continue
			}
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if name == "" {
				name = sf.Name
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			if f, why := checkTexts(v.Field(i), p); why != "" {
				return f, why
			}
		}
	}
	return "", ""
}

// stringful caches hasStrings per type.
var stringful sync.Map // reflect.Type -> bool

// hasStrings reports whether values of t can hold a string.
func hasStrings(t reflect.Type) bool {
	if v, ok := stringful.Load(t); ok {
		return v.(bool)
	}
	has := holdsStrings(t)
	stringful.Store(t, has)
	return has
}

func holdsStrings(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return hasStrings(t.Elem())
	case reflect.Interface:
		return true
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && hasStrings(f.Type) {
				return true
			}
		}
	}
	return false
}

// anyBadText reports whether some string of v is one badText refuses. It
// walks what checkTexts walks without building the paths, which cost an
// allocation per slice element and struct field of every contract written:
// the path is only worth building for the rare value that fails.
func anyBadText(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		return strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s)
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && anyBadText(v.Elem())
	case reflect.Slice, reflect.Array:
		if !hasStrings(v.Type().Elem()) {
			return false
		}
		for i := range v.Len() {
			if anyBadText(v.Index(i)) {
				return true
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if sf := t.Field(i); sf.IsExported() && hasStrings(sf.Type) && anyBadText(v.Field(i)) {
				return true
			}
		}
	}
	return false
}

// textError names the field of a contract or statute that holds a NUL or
// invalid UTF-8, or returns "" and nil.
func textError(v any) (field, reason string) {
	rv := reflect.ValueOf(v)
	if !anyBadText(rv) {
		return "", ""
	}
	f, why := checkTexts(rv, "")
	if why == "" {
		return "", ""
	}
	return f, why
}
