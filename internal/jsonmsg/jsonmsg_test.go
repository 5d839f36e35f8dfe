package jsonmsg

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func TestDescribe(t *testing.T) {
	type party struct {
		Name string `json:"name"`
	}
	type record struct {
		ID      string  `json:"id"`
		Amount  float64 `json:"amount"`
		Parties []party `json:"parties"`
		Law     *party  `json:"law"`
	}
	tests := []struct{ in, field, msg string }{
		{`{"parties":"Acme"}`, "parties", "expected an array, got JSON string"},
		{`{"law":[1]}`, "law", "expected an object, got JSON array"},
		{`{"amount":"5"}`, "amount", "expected a number, got JSON string"},
		{`{"parties":[{"name":3}]}`, "parties.name", "expected a string, got JSON number"},
		{`[1]`, "", "expected an object, got JSON array"},
		{`{"colour":1}`, "colour", "unknown field"},
		{`{"id":}`, "", "malformed JSON at byte 7: invalid character '}' looking for beginning of value"},
	}
	for _, tt := range tests {
		dec := json.NewDecoder(bytes.NewReader([]byte(tt.in)))
		dec.DisallowUnknownFields()
		var r record
		err := dec.Decode(&r)
		field, msg, ok := Describe(err)
		if !ok || field != tt.field || msg != tt.msg {
			t.Errorf("Describe(%s) = %q, %q, %v; want %q, %q", tt.in, field, msg, ok, tt.field, tt.msg)
		}
	}
	if _, _, ok := Describe(errors.New("disk full")); ok {
		t.Error("Describe of a non-JSON error: ok")
	}
}
