package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// Question is one entry of a question file: what to ask, and optionally the
// tool call that answers it, a reference answer in prose and the figures a
// correct answer states.
type Question struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	// Expected is the tool call that answers the question; nil when the
	// file gives none (tool correctness is then not measured).
	Expected *Expected `json:"expected,omitempty"`
	// Answer is a reference answer in prose, for the judge.
	Answer string `json:"answer,omitempty"`
	// MustContain lists figures or phrases a correct answer states.
	MustContain []string `json:"must_contain,omitempty"`
	// Source is where the question was read.
	Source Position `json:"-"`
}

// Expected is a tool call: the tool's name and its JSON arguments (an object).
type Expected struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// Position is a place in a question file.
type Position struct {
	File string
	Line int
}

func (p Position) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s: line %d", p.File, p.Line)
}

// QuestionError reports a bad entry of a question file: where it is, which
// question and field, and what is wrong.
type QuestionError struct {
	Position
	ID    string // the question's id, when known
	Field string // e.g. "expected.args"; "" for the line as a whole
	Msg   string
}

func (e *QuestionError) Error() string {
	var b strings.Builder
	b.WriteString(e.Position.String())
	if e.ID != "" {
		fmt.Fprintf(&b, " (id %q)", e.ID)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString("field ")
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Limits of a question file.
const (
	MaxQuestions    = 10000
	maxLineBytes    = 1 << 20
	maxQuestionText = 4000
)

// Question file columns (CSV) and keys (JSONL).
var questionFields = []string{"id", "question", "expected", "answer", "must_contain"}

// ReadQuestionFile reads a question file: JSON Lines (.jsonl, .ndjson,
// .json) or CSV (.csv); another extension is recognised by its first
// character ('{' means JSON Lines). See ParseJSONL and ParseCSV.
func ReadQuestionFile(path string) ([]Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read questions: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	name := path
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson", ".json":
		return ParseJSONL(br, name)
	case ".csv":
		return ParseCSV(br, name)
	}
	head, _ := br.Peek(512)
	if t := bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return ParseJSONL(br, name)
	}
	return ParseCSV(br, name)
}

var bom = []byte("\ufeff")

// ParseJSONL reads questions as JSON Lines, one object per line:
//
//	{"id": "q1", "question": "How many ...?",
//	 "expected": {"tool": "contract_search", "args": {...}},
//	 "answer": "reference answer", "must_contain": ["31"]}
//
// id and question are required; the rest is optional. Blank lines are
// skipped. name is used in errors, which give the line and the field.
func ParseJSONL(r io.Reader, name string) ([]Question, error) {
	br := bufio.NewReader(r)
	var out []Question
	for line := 1; ; line++ {
		text, err := readLine(br)
		if errors.Is(err, io.EOF) && text == "" {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &QuestionError{Position: Position{name, line}, Msg: err.Error()}
		}
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff")
		}
		if strings.TrimSpace(text) != "" {
			q, qerr := parseJSONLine(text, Position{name, line})
			if qerr != nil {
				return nil, qerr
			}
			out = append(out, q)
			if len(out) > MaxQuestions {
				return nil, &QuestionError{Position: Position{name, line}, Msg: fmt.Sprintf("more than %d questions", MaxQuestions)}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	return finish(out, name)
}

// readLine reads one line without its line ending, refusing very long ones.
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		b = append(b, chunk...)
		if len(b) > maxLineBytes {
			return "", fmt.Errorf("line longer than %d bytes", maxLineBytes)
		}
		if err != nil {
			if len(b) > 0 && errors.Is(err, io.EOF) {
				return string(b), nil
			}
			return string(b), err
		}
		if !isPrefix {
			return string(b), nil
		}
	}
}

func parseJSONLine(text string, pos Position) (Question, *QuestionError) {
	fail := func(id, field, format string, args ...any) *QuestionError {
		return &QuestionError{Position: pos, ID: id, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &obj); err != nil {
		return Question{}, fail("", "", "not a JSON object: %v", err)
	}
	if obj == nil {
		return Question{}, fail("", "", "not a JSON object")
	}
	q := Question{Source: pos}
	if raw, ok := obj["id"]; ok {
		id, err := jsonScalar(raw)
		if err != nil {
			return q, fail("", "id", "%v", err)
		}
		q.ID = id
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		raw := obj[k]
		switch k {
		case "id":
		case "question", "answer":
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return q, fail(q.ID, k, "expected a string, got %s", jsonKind(raw))
			}
			if k == "question" {
				q.Question = s
			} else {
				q.Answer = s
			}
		case "expected":
			if isNull(raw) {
				continue
			}
			e, field, err := parseExpected(raw)
			if err != nil {
				return q, fail(q.ID, field, "%v", err)
			}
			q.Expected = e
		case "must_contain":
			mc, err := parseMustContainJSON(raw)
			if err != nil {
				return q, fail(q.ID, k, "%v", err)
			}
			q.MustContain = mc
		default:
			return q, fail(q.ID, k, "unknown field; valid fields: %s", strings.Join(questionFields, ", "))
		}
	}
	return q, nil
}

// jsonScalar reads an id given as a string or a number.
func jsonScalar(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("expected a string, got %s", jsonKind(raw))
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// jsonKind names the JSON type of raw for messages.
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// parseExpected decodes {"tool", "args"}; the returned field names what
// is wrong.
func parseExpected(raw json.RawMessage) (*Expected, string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, "expected", fmt.Errorf(`expected an object {"tool": ..., "args": {...}}, got %s`, jsonKind(raw))
	}
	e := &Expected{Args: json.RawMessage("{}")}
	for k, v := range obj {
		switch k {
		case "tool":
			if err := json.Unmarshal(v, &e.Tool); err != nil {
				return nil, "expected.tool", fmt.Errorf("expected a string, got %s", jsonKind(v))
			}
		case "args":
			if isNull(v) {
				continue
			}
			var args map[string]json.RawMessage
			if err := json.Unmarshal(v, &args); err != nil || args == nil {
				return nil, "expected.args", fmt.Errorf("expected a JSON object of tool arguments, got %s", jsonKind(v))
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, v); err != nil {
				return nil, "expected.args", err
			}
			e.Args = buf.Bytes()
		default:
			return nil, "expected." + k, errors.New("unknown field; valid fields: tool, args")
		}
	}
	e.Tool = strings.TrimSpace(e.Tool)
	if e.Tool == "" {
		return nil, "expected.tool", errors.New("missing: name the tool that answers the question")
	}
	return e, "", nil
}

// parseMustContainJSON accepts an array of strings or numbers.
func parseMustContainJSON(raw json.RawMessage) ([]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("expected an array of strings, got %s", jsonKind(raw))
	}
	var out []string
	for i, it := range items {
		s, err := jsonScalar(it)
		if err != nil {
			return nil, fmt.Errorf("item %d: %v", i+1, err)
		}
		if s = strings.TrimSpace(s); s == "" {
			return nil, fmt.Errorf("item %d is empty", i+1)
		}
		out = append(out, s)
	}
	return out, nil
}

// ParseCSV reads questions as CSV with a header row naming the columns id,
// question, expected, answer, must_contain (any order, case-insensitive;
// only id and question are required). expected holds the same JSON object
// as in JSON Lines, {"tool": ..., "args": {...}}; must_contain is either a
// JSON array or values separated by ";". name is used in errors, which
// give the line and the column.
func ParseCSV(r io.Reader, name string) ([]Question, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = false
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return finish(nil, name)
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	cols := map[string]int{}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		h = strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains(questionFields, h) {
			return nil, &QuestionError{Position: Position{name, 1}, Field: h, Msg: fmt.Sprintf("unknown column; valid columns: %s", strings.Join(questionFields, ", "))}
		}
		if _, dup := cols[h]; dup {
			return nil, &QuestionError{Position: Position{name, 1}, Field: h, Msg: "column appears twice"}
		}
		cols[h] = i
	}
	for _, need := range []string{"id", "question"} {
		if _, ok := cols[need]; !ok {
			return nil, &QuestionError{Position: Position{name, 1}, Field: need, Msg: "missing column; the header must name at least id and question"}
		}
	}
	var out []Question
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		pos := Position{name, line}
		cell := func(col string) string {
			if i, ok := cols[col]; ok {
				return rec[i]
			}
			return ""
		}
		if strings.TrimSpace(strings.Join(rec, "")) == "" {
			continue
		}
		q := Question{ID: strings.TrimSpace(cell("id")), Question: cell("question"), Answer: cell("answer"), Source: pos}
		if s := strings.TrimSpace(cell("expected")); s != "" {
			e, field, err := parseExpected(json.RawMessage(s))
			if err != nil {
				if !json.Valid([]byte(s)) {
					field, err = "expected", fmt.Errorf(`not valid JSON; write {"tool": ..., "args": {...}} (double the quotes inside a quoted CSV cell)`)
				}
				return nil, &QuestionError{Position: pos, ID: q.ID, Field: field, Msg: err.Error()}
			}
			q.Expected = e
		}
		if s := strings.TrimSpace(cell("must_contain")); s != "" {
			mc, err := parseMustContainCell(s)
			if err != nil {
				return nil, &QuestionError{Position: pos, ID: q.ID, Field: "must_contain", Msg: err.Error()}
			}
			q.MustContain = mc
		}
		out = append(out, q)
		if len(out) > MaxQuestions {
			return nil, &QuestionError{Position: pos, Msg: fmt.Sprintf("more than %d questions", MaxQuestions)}
		}
	}
	return finish(out, name)
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &QuestionError{Position: Position{name, pe.Line}, Msg: pe.Err.Error()}
	}
	return &QuestionError{Position: Position{File: name}, Msg: err.Error()}
}

func parseMustContainCell(s string) ([]string, error) {
	if strings.HasPrefix(s, "[") {
		if !json.Valid([]byte(s)) {
			return nil, errors.New(`starts with "[" but is not a JSON array; write ["31","1,234"] or 31;1,234`)
		}
		return parseMustContainJSON(json.RawMessage(s))
	}
	var out []string
	for _, part := range strings.Split(s, ";") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out, nil
}

// finish checks what every format shares: ids present and unique,
// questions present and not too long, and at least one question.
func finish(qs []Question, name string) ([]Question, error) {
	if len(qs) == 0 {
		return nil, &QuestionError{Position: Position{File: name}, Msg: "no questions in the file"}
	}
	first := map[string]Position{}
	for i := range qs {
		q := &qs[i]
		q.ID = strings.TrimSpace(q.ID)
		q.Question = strings.TrimSpace(q.Question)
		q.Answer = strings.TrimSpace(q.Answer)
		switch {
		case q.ID == "":
			return nil, &QuestionError{Position: q.Source, Field: "id", Msg: "missing: every question needs an id"}
		case q.Question == "":
			return nil, &QuestionError{Position: q.Source, ID: q.ID, Field: "question", Msg: "missing or empty"}
		case utf8.RuneCountInString(q.Question) > maxQuestionText:
			return nil, &QuestionError{Position: q.Source, ID: q.ID, Field: "question", Msg: fmt.Sprintf("longer than %d characters", maxQuestionText)}
		}
		if p, dup := first[q.ID]; dup {
			return nil, &QuestionError{Position: q.Source, ID: q.ID, Field: "id", Msg: "duplicate id, first used at line " + strconv.Itoa(p.Line)}
		}
		first[q.ID] = q.Source
	}
	return qs, nil
}

// CheckExpected runs every question's expected call on tb and reports
// the first one that fails (an unknown tool, invalid arguments, a missing
// contract) with its position, so a bad question file is found before any
// model is asked. Context errors are returned as they are.
func CheckExpected(ctx context.Context, tb agent.Toolbox, qs []Question) error {
	for _, q := range qs {
		if q.Expected == nil {
			continue
		}
		if _, err := tb.Call(ctx, q.Expected.Tool, q.Expected.Args); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			field := "expected.args"
			if !slices.ContainsFunc(tb.Tools(), func(t tools.Tool) bool { return t.Name == q.Expected.Tool }) {
				field = "expected.tool"
			}
			return &QuestionError{Position: q.Source, ID: q.ID, Field: field, Msg: fmt.Sprintf("the expected call fails: %v", err)}
		}
	}
	return nil
}
