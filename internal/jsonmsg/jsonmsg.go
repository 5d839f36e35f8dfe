// Package jsonmsg words encoding/json's decoding errors for people: in
// JSON's terms ("an array", "a string") rather than Go's
// ("[]importer.refParty"). It uses only the standard library.
package jsonmsg

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Kind names the JSON value a Go type is decoded from.
func Kind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a value"
}

// Describe returns the field (a dotted JSON path, "" for the whole value)
// and a sentence for a decoding error: a value of the wrong type says what
// was expected and what came, an unknown field (with DisallowUnknownFields)
// says so, and a syntax error keeps encoding/json's words without its
// "json: " prefix. ok is false for errors that are not about decoding.
func Describe(err error) (field, msg string, ok bool) {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		if te.Field == "" {
			return "", fmt.Sprintf("expected %s, got JSON %s", Kind(te.Type), te.Value), true
		}
		return te.Field, fmt.Sprintf("expected %s, got JSON %s", Kind(te.Type), te.Value), true
	case errors.As(err, &se):
		return "", fmt.Sprintf("malformed JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: ")), true
	}
	if name, found := strings.CutPrefix(err.Error(), "json: unknown field "); found {
		return strings.Trim(name, `"`), "unknown field", true
	}
	return "", "", false
}
