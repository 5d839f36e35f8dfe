package tools

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is text2cypher's first guard: a tokenizer and a clause-level
// parser for the part of Cypher a read query needs. It is an allow-list:
// a statement passes only when every clause is one a read query is made of
// (MATCH, OPTIONAL MATCH, WITH, WHERE, UNWIND, RETURN, ORDER BY, SKIP,
// LIMIT, UNION, CALL of a listed read procedure or of a subquery that is
// itself allowed). Expressions are not parsed, only scanned for balanced
// brackets and for the subqueries they may hold; the database parses them
// in the EXPLAIN that follows, which is the second guard.

// readProcedures are the procedures a model-written query may CALL: the
// full-text and vector index look-ups, which only read.
var readProcedures = []string{
	"db.index.fulltext.queryNodes",
	"db.index.vector.queryNodes",
}

// CypherRefusal is the error of CheckReadOnlyCypher: what was refused, where
// and why. It wraps ErrCypherRefused.
type CypherRefusal struct {
	Line, Col int    // 1-based position of the offending token, in characters
	What      string // the clause, keyword or procedure refused, e.g. "SHOW TRANSACTIONS"
	Reason    string // why, as the end of a sentence
	// Syntax says the statement is malformed (an unclosed bracket or
	// string, a word that starts no clause) rather than not allowed, so
	// that a model may correct it as it would a database's syntax error.
	Syntax bool
}

func (e *CypherRefusal) Error() string {
	if e.What == "" {
		return fmt.Sprintf("%v: at %d:%d %s", ErrCypherRefused, e.Line, e.Col, e.Reason)
	}
	return fmt.Sprintf("%v: %s at %d:%d %s", ErrCypherRefused, e.What, e.Line, e.Col, e.Reason)
}

// Unwrap returns ErrCypherRefused.
func (e *CypherRefusal) Unwrap() error { return ErrCypherRefused }

const allowedClauses = "MATCH, OPTIONAL MATCH, WITH, WHERE, UNWIND, RETURN, ORDER BY, SKIP, LIMIT, UNION and CALL of a read procedure or subquery"

// CheckReadOnlyCypher is the parser check text2cypher runs before asking
// the database: it accepts only one read query made of the clauses MATCH,
// OPTIONAL MATCH, WITH, WHERE, UNWIND, RETURN, ORDER BY, SKIP, LIMIT and
// UNION [ALL], CALL of db.index.fulltext.queryNodes or
// db.index.vector.queryNodes, and CALL { ... } subqueries (and EXISTS, COUNT
// and COLLECT subqueries) built the same way. Everything else is refused
// with a *CypherRefusal naming the clause and its line:column: writes
// (CREATE, MERGE, SET, DELETE, ...), administration (SHOW, TERMINATE, START,
// STOP, DROP, ALTER, GRANT, ...), USE, LOAD CSV, FOREACH, other procedures,
// plugin functions (apoc.*), EXPLAIN or PROFILE prefixes, CALL { ... } IN
// TRANSACTIONS and a second statement. Comments are stripped first; string
// literals, `quoted` names, property keys, labels and aliases are names, not
// keywords, so a party named "Create Inc" or a property c.created is fine.
// Keywords are case-insensitive. One trailing semicolon is allowed.
func CheckReadOnlyCypher(cypher string) error {
	toks, err := lexCypher(cypher)
	if err != nil {
		return err
	}
	p := &cypherParser{toks: toks}
	if p.peek().kind == cypherEOF {
		return &CypherRefusal{Syntax: true, Line: 1, Col: 1, Reason: "the statement is empty"}
	}
	if err := p.query(false); err != nil {
		return err
	}
	if t := p.peek(); t.kind != cypherEOF {
		return p.unexpected()
	}
	return nil
}

type cypherKind int

const (
	cypherEOF    cypherKind = iota
	cypherWord              // an unquoted identifier or keyword
	cypherQuoted            // a `backtick-quoted` name
	cypherString            // a '...' or "..." literal
	cypherNumber
	cypherParam // $name, $0 or $`name`
	cypherPunct // one character of punctuation or an operator
)

type cypherToken struct {
	kind      cypherKind
	text      string // the word as written, the name inside backticks, or the punctuation
	line, col int
}

// is reports whether t is the punctuation s.
func (t cypherToken) is(s string) bool { return t.kind == cypherPunct && t.text == s }

// lexCypher splits s into tokens, dropping whitespace and comments. Only
// the characters Cypher code is made of are accepted outside literals and
// quoted names, so that nothing the database might read as a separator or
// a letter hides a keyword from the parser.
func lexCypher(s string) ([]cypherToken, error) {
	var (
		toks      []cypherToken
		line, col = 1, 1
		i         int
	)
	// advance moves i past n bytes, keeping line and col.
	advance := func(n int) {
		for end := i + n; i < end; {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
	}
	refuse := func(l, c int, reason string) error {
		return &CypherRefusal{Syntax: true, Line: l, Col: c, Reason: reason}
	}
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		l, c := line, col
		switch {
		case r == utf8.RuneError && size == 1:
			return nil, refuse(l, c, "the statement is not valid UTF-8")
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			advance(size)
		case strings.HasPrefix(s[i:], "//"):
			n := strings.IndexByte(s[i:], '\n')
			if n < 0 {
				n = len(s) - i
			}
			advance(n)
		case strings.HasPrefix(s[i:], "/*"):
			n := strings.Index(s[i+2:], "*/")
			if n < 0 {
				return nil, refuse(l, c, "a /* comment is not closed")
			}
			advance(n + 4)
		case r == '\'' || r == '"':
			j := i + 1
			for j < len(s) && s[j] != byte(r) {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, refuse(l, c, "a string literal is not closed")
			}
			toks = append(toks, cypherToken{cypherString, s[i+1 : j], l, c})
			advance(j + 1 - i)
		case r == '`':
			name, n, ok := backtickName(s[i:])
			if !ok {
				return nil, refuse(l, c, "a `quoted name` is not closed")
			}
			toks = append(toks, cypherToken{cypherQuoted, name, l, c})
			advance(n)
		case r == '$':
			rest := s[i+1:]
			n := 0
			if strings.HasPrefix(rest, "`") {
				_, m, ok := backtickName(rest)
				if !ok {
					return nil, refuse(l, c, "a `quoted name` is not closed")
				}
				n = m
			} else {
				n = wordLen(rest, true)
			}
			if n == 0 {
				return nil, refuse(l, c, "$ is not followed by a parameter name")
			}
			toks = append(toks, cypherToken{cypherParam, s[i : i+1+n], l, c})
			advance(1 + n)
		case unicode.IsLetter(r) || r == '_':
			n := wordLen(s[i:], false)
			toks = append(toks, cypherToken{cypherWord, s[i : i+n], l, c})
			advance(n)
		case r >= '0' && r <= '9':
			n := numberLen(s[i:])
			toks = append(toks, cypherToken{cypherNumber, s[i : i+n], l, c})
			advance(n)
		case r < utf8.RuneSelf && strings.ContainsRune("()[]{},.:;|=<>+-*/%^!&?~", r):
			toks = append(toks, cypherToken{cypherPunct, string(r), l, c})
			advance(size)
		default:
			return nil, refuse(l, c, fmt.Sprintf("the character %U is not part of Cypher code", r))
		}
	}
	return append(toks, cypherToken{kind: cypherEOF, line: line, col: col}), nil
}

// backtickName reads a `quoted name` at the start of s, where “ stands for
// one backtick, and returns the name and the bytes it took.
func backtickName(s string) (name string, n int, ok bool) {
	var b strings.Builder
	for j := 1; j < len(s); j++ {
		if s[j] != '`' {
			b.WriteByte(s[j])
			continue
		}
		if j+1 < len(s) && s[j+1] == '`' {
			b.WriteByte('`')
			j++
			continue
		}
		return b.String(), j + 1, true
	}
	return "", 0, false
}

// wordLen is the length of the identifier at the start of s; digits may
// lead it when digitsFirst (a parameter such as $0).
func wordLen(s string, digitsFirst bool) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !(unicode.IsLetter(r) || r == '_' || unicode.IsDigit(r) && (n > 0 || digitsFirst)) {
			break
		}
		n += size
	}
	return n
}

// numberLen is the length of the number at the start of s: digits,
// letters (hex, octal, exponent) and a decimal point followed by a digit,
// but not the ".." of a range such as *1..3.
func numberLen(s string) int {
	n := 0
	for n < len(s) {
		b := s[n]
		switch {
		case b >= '0' && b <= '9', b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b == '_':
			n++
		case b == '.' && n+1 < len(s) && s[n+1] >= '0' && s[n+1] <= '9':
			n++
		case (b == '+' || b == '-') && (s[n-1] == 'e' || s[n-1] == 'E') && !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X"):
			n++
		default:
			return n
		}
	}
	return n
}

// Clause keywords. readClauses may start a clause of a read query;
// writeClauses are the other clauses that may follow one, so they end the
// clause before them and are refused there. adminCommands begin a
// statement of their own.
var (
	readClauses = map[string]bool{
		"MATCH": true, "OPTIONAL": true, "WITH": true, "WHERE": true, "UNWIND": true, "RETURN": true,
		"ORDER": true, "SKIP": true, "OFFSET": true, "LIMIT": true, "UNION": true, "CALL": true, "YIELD": true,
	}
	writeClauses = map[string]bool{
		"CREATE": true, "MERGE": true, "DELETE": true, "DETACH": true, "NODETACH": true, "SET": true,
		"REMOVE": true, "FOREACH": true, "LOAD": true, "INSERT": true, "FINISH": true, "USE": true,
	}
	adminCommands = map[string]bool{
		"SHOW": true, "TERMINATE": true, "START": true, "STOP": true, "DROP": true, "ALTER": true,
		"GRANT": true, "DENY": true, "REVOKE": true, "RENAME": true, "ENABLE": true, "DEALLOCATE": true,
		"REALLOCATE": true, "DRYRUN": true,
	}
)

// exprWords are the keywords that may follow a variable in an expression.
var exprWords = map[string]bool{
	"AS": true, "AND": true, "OR": true, "XOR": true, "NOT": true, "IS": true, "IN": true, "CONTAINS": true,
	"STARTS": true, "ENDS": true, "ASC": true, "ASCENDING": true, "DESC": true, "DESCENDING": true,
	"THEN": true, "ELSE": true, "END": true, "WHEN": true,
}

// continues reports whether the word w may follow a variable: an
// operator, an ordering or a clause.
func continues(w string) bool {
	w = strings.ToUpper(w)
	return exprWords[w] || readClauses[w] || writeClauses[w]
}

type cypherParser struct {
	toks []cypherToken
	i    int
}

func (p *cypherParser) peek() cypherToken { return p.toks[p.i] }

func (p *cypherParser) next() cypherToken {
	t := p.toks[p.i]
	if t.kind != cypherEOF {
		p.i++
	}
	return t
}

// keyword returns the upper-cased word at offset k from the current token
// when it stands where a keyword can: not a property key or label (after
// "." or ":"), not an alias (after AS) and not a map key or a variable with
// a label (before ":"). Otherwise it returns "".
func (p *cypherParser) keyword(k int) string {
	j := p.i + k
	if j >= len(p.toks) || p.toks[j].kind != cypherWord {
		return ""
	}
	if j > 0 {
		prev := p.toks[j-1]
		if prev.is(".") || prev.is(":") || prev.kind == cypherWord && strings.EqualFold(prev.text, "AS") {
			return ""
		}
	}
	if p.toks[j+1].is(":") {
		return ""
	}
	return strings.ToUpper(p.toks[j].text)
}

// query parses a single query or a UNION of them, up to the end of input
// or, inside a subquery, up to its closing brace (not consumed).
func (p *cypherParser) query(inBraces bool) error {
	for {
		if err := p.singleQuery(inBraces); err != nil {
			return err
		}
		if p.keyword(0) != "UNION" {
			return nil
		}
		p.next()
		if kw := p.keyword(0); kw == "ALL" || kw == "DISTINCT" {
			p.next()
		}
	}
}

// singleQuery parses clauses until UNION, the end of input, a closing
// brace or a semicolon.
func (p *cypherParser) singleQuery(inBraces bool) error {
	first := true
	for {
		t := p.peek()
		switch {
		case t.kind == cypherEOF:
			if inBraces {
				return &CypherRefusal{Syntax: true, Line: t.line, Col: t.col, Reason: "the statement ends inside a { subquery }"}
			}
			if first {
				return &CypherRefusal{Syntax: true, Line: t.line, Col: t.col, Reason: "a query is missing after UNION"}
			}
			return nil
		case t.is("}") && inBraces:
			if first {
				return &CypherRefusal{Syntax: true, Line: t.line, Col: t.col, Reason: "the { subquery } is empty"}
			}
			return nil
		case t.is(";"):
			if p.toks[p.i+1].kind == cypherEOF && !inBraces {
				p.next() // one trailing semicolon ends the statement
				return nil
			}
			return &CypherRefusal{Line: t.line, Col: t.col, What: ";", Reason: "starts a second statement; only one statement is allowed"}
		case inBraces && first && t.is("("):
			// EXISTS { (a)-->(b) WHERE ... } and COUNT { ... } may hold a
			// bare pattern.
			if err := p.expression(); err != nil {
				return err
			}
			first = false
			continue
		}
		kw := p.keyword(0)
		if kw == "UNION" && !first {
			return nil
		}
		if err := p.clause(kw); err != nil {
			return err
		}
		first = false
	}
}

// clause parses one clause whose keyword is kw ("" if the token is not a
// keyword).
func (p *cypherParser) clause(kw string) error {
	t := p.peek()
	switch kw {
	case "MATCH", "WITH", "WHERE", "UNWIND", "RETURN", "SKIP", "OFFSET", "LIMIT", "YIELD":
		p.next()
		return p.expression()
	case "ORDER":
		p.next()
		if p.keyword(0) != "BY" {
			return p.unexpected()
		}
		p.next()
		return p.expression()
	case "OPTIONAL":
		p.next()
		switch p.keyword(0) {
		case "MATCH":
			p.next()
			return p.expression()
		case "CALL":
			return p.call()
		}
		return p.unexpected()
	case "CALL":
		return p.call()
	case "EXPLAIN", "PROFILE":
		return &CypherRefusal{Line: t.line, Col: t.col, What: kw, Reason: "is not allowed: write the query alone, without an EXPLAIN or PROFILE prefix"}
	}
	if writeClauses[kw] || adminCommands[kw] || kw == "CYPHER" {
		return p.refuseClause(p.i, kw)
	}
	return p.unexpected()
}

// refuseClause refuses the writing or administrative clause kw at token j,
// naming it with the word after it where that says more (SHOW
// TRANSACTIONS, DETACH DELETE, LOAD CSV, CREATE INDEX).
func (p *cypherParser) refuseClause(j int, kw string) error {
	t, nt := p.toks[j], p.toks[j+1]
	what := kw
	if nt.kind == cypherWord && kw != "SET" && kw != "USE" && kw != "DELETE" && kw != "REMOVE" && kw != "CYPHER" {
		what += " " + strings.ToUpper(nt.text)
	}
	reason := "writes to the database; only read queries are allowed"
	switch {
	case adminCommands[kw]:
		reason = "administers the server; only read queries are allowed"
	case kw == "CREATE" && nt.kind == cypherWord:
		reason = "changes the schema or administers the server; only read queries are allowed"
	case kw == "USE":
		reason = "switches the database; only queries of the contract graph are allowed"
	case kw == "FINISH":
		reason = "is not a clause of a read query; allowed: " + allowedClauses
	case kw == "CYPHER":
		reason = "options are not allowed; write the query alone"
	case kw == "LOAD":
		reason = "reads files or URLs; only queries of the contract graph are allowed"
	}
	return &CypherRefusal{Line: t.line, Col: t.col, What: what, Reason: reason}
}

// unexpected refuses the current token as something a read query cannot
// hold there.
func (p *cypherParser) unexpected() error {
	t := p.peek()
	switch t.kind {
	case cypherEOF:
		return &CypherRefusal{Syntax: true, Line: t.line, Col: t.col, Reason: "the statement ends too early"}
	case cypherWord:
		kw := strings.ToUpper(t.text)
		if writeClauses[kw] || adminCommands[kw] {
			return p.refuseClause(p.i, kw)
		}
		return &CypherRefusal{Syntax: true, Line: t.line, Col: t.col, What: kw, Reason: "is not a clause of a read query; allowed: " + allowedClauses}
	}
	return &CypherRefusal{Syntax: true, Line: t.line, Col: t.col, What: fmt.Sprintf("%q", t.text), Reason: "is not where a clause can start; allowed: " + allowedClauses}
}

// call parses CALL (or OPTIONAL CALL) of a procedure or a subquery.
func (p *cypherParser) call() error {
	callTok := p.next() // CALL
	t := p.peek()
	switch {
	case t.is("{"):
		return p.subqueryCall()
	case t.is("("):
		// CALL (x, y) { ... }: the variables the subquery imports.
		if err := p.skipGroup(); err != nil {
			return err
		}
		if !p.peek().is("{") {
			return p.unexpected()
		}
		return p.subqueryCall()
	case t.kind != cypherWord && t.kind != cypherQuoted:
		return p.unexpected()
	}
	// A procedure: dotted name parts, each a word or a `quoted name`.
	var parts []string
	for {
		if nt := p.peek(); nt.kind != cypherWord && nt.kind != cypherQuoted {
			return p.unexpected()
		}
		parts = append(parts, p.next().text)
		if !p.peek().is(".") {
			break
		}
		p.next()
	}
	name := strings.Join(parts, ".")
	allowed := false
	for _, rp := range readProcedures {
		if strings.EqualFold(name, rp) {
			allowed = true
		}
	}
	if !allowed {
		return &CypherRefusal{Line: callTok.line, Col: callTok.col, What: "CALL " + name,
			Reason: "is not allowed; the only procedures a query may call are " + strings.Join(readProcedures, " and ")}
	}
	if p.peek().is("(") {
		if err := p.skipGroup(); err != nil {
			return err
		}
	}
	return p.expression()
}

// subqueryCall parses the { body } of CALL { ... } and refuses IN
// TRANSACTIONS after it.
func (p *cypherParser) subqueryCall() error {
	if err := p.subquery(); err != nil {
		return err
	}
	if p.keyword(0) == "IN" {
		t := p.peek()
		return &CypherRefusal{Line: t.line, Col: t.col, What: "CALL { ... } IN TRANSACTIONS",
			Reason: "runs batched writes; only read queries are allowed"}
	}
	return nil
}

// subquery parses { query } at the current "{".
func (p *cypherParser) subquery() error {
	p.next() // {
	if err := p.query(true); err != nil {
		return err
	}
	if t := p.peek(); !t.is("}") {
		return p.unexpected()
	}
	p.next()
	return nil
}

// skipGroup skips a bracketed group at the current "(", "[" or "{" with
// the same checks as expression, up to and including its closing bracket.
func (p *cypherParser) skipGroup() error {
	start := p.i
	if err := p.expressionFrom(true); err != nil {
		return err
	}
	if p.i == start {
		return p.unexpected()
	}
	return nil
}

// expression scans the body of a clause up to the next clause keyword at
// its own bracket depth, a semicolon, a closing brace it did not open, or
// the end.
func (p *cypherParser) expression() error { return p.expressionFrom(false) }

// expressionFrom is expression; with group it stops after the bracketed
// group that starts at the current token.
func (p *cypherParser) expressionFrom(group bool) error {
	var open []cypherToken // the brackets open at this point
	closer := map[string]string{"(": ")", "[": "]", "{": "}"}
	for {
		t := p.peek()
		switch {
		case t.kind == cypherEOF:
			if len(open) > 0 {
				o := open[len(open)-1]
				return &CypherRefusal{Syntax: true, Line: o.line, Col: o.col, What: fmt.Sprintf("%q", o.text), Reason: "is not closed"}
			}
			return nil
		case t.is(";"):
			if len(open) == 0 {
				return nil
			}
			return &CypherRefusal{Line: t.line, Col: t.col, What: ";", Reason: "starts a second statement; only one statement is allowed"}
		case t.is("{") && p.subqueryExpr():
			if err := p.subquery(); err != nil {
				return err
			}
			if group && len(open) == 0 {
				return nil
			}
			continue
		case t.is("(") || t.is("[") || t.is("{"):
			open = append(open, t)
			p.next()
			continue
		case t.is(")") || t.is("]") || t.is("}"):
			if len(open) == 0 {
				if t.is("}") {
					return nil // the end of the enclosing subquery
				}
				return &CypherRefusal{Syntax: true, Line: t.line, Col: t.col, What: fmt.Sprintf("%q", t.text), Reason: "closes nothing"}
			}
			o := open[len(open)-1]
			if closer[o.text] != t.text {
				return &CypherRefusal{Syntax: true, Line: t.line, Col: t.col, What: fmt.Sprintf("%q", t.text), Reason: fmt.Sprintf("does not close the %q at %d:%d", o.text, o.line, o.col)}
			}
			open = open[:len(open)-1]
			p.next()
			if group && len(open) == 0 {
				return nil
			}
			continue
		}
		if group && len(open) == 0 {
			return nil // not at a bracket: no group to skip
		}
		if err := p.checkFunction(); err != nil {
			return err
		}
		kw := p.keyword(0)
		if kw == "WITH" && p.i > 0 && p.toks[p.i-1].kind == cypherWord {
			if prev := strings.ToUpper(p.toks[p.i-1].text); prev == "STARTS" || prev == "ENDS" {
				kw = "" // the string operators STARTS WITH and ENDS WITH
			}
		}
		if len(open) == 0 && adminCommands[kw] && p.toks[p.i+1].kind == cypherWord && !continues(p.toks[p.i+1].text) {
			// Administration cannot follow a clause in Cypher 5, but a
			// command word followed by its object (SHOW USERS) is refused
			// wherever it stands; a variable named start is not.
			return p.refuseClause(p.i, kw)
		}
		if kw != "" && (readClauses[kw] || writeClauses[kw]) {
			if len(open) == 0 {
				return nil // the next clause
			}
			// A bracket holds no clause outside a subquery; only WHERE
			// belongs there, in comprehensions, quantifiers and patterns.
			if kw != "WHERE" {
				if writeClauses[kw] {
					return p.refuseClause(p.i, kw)
				}
				return &CypherRefusal{Syntax: true, Line: t.line, Col: t.col, What: kw, Reason: "is not allowed inside an expression"}
			}
		}
		p.next()
	}
}

// functionNamespaces are the namespaces of Cypher's own functions
// (date.truncate, duration.between, point.distance, vector.similarity.cosine,
// ...). A namespaced function outside them is a plugin's, such as APOC's,
// some of which run Cypher of their own.
var functionNamespaces = map[string]bool{
	"date": true, "datetime": true, "localdatetime": true, "localtime": true, "time": true,
	"duration": true, "point": true, "vector": true,
}

// checkFunction refuses a call of a namespaced function at the current
// token that is not one of Cypher's own. A dotted name not followed by "("
// is a property access, which is fine.
func (p *cypherParser) checkFunction() error {
	t := p.peek()
	if t.kind != cypherWord && t.kind != cypherQuoted || !p.toks[p.i+1].is(".") || p.i > 0 && p.toks[p.i-1].is(".") {
		return nil
	}
	parts := []string{t.text}
	j := p.i + 1
	for p.toks[j].is(".") && (p.toks[j+1].kind == cypherWord || p.toks[j+1].kind == cypherQuoted) {
		parts = append(parts, p.toks[j+1].text)
		j += 2
	}
	if !p.toks[j].is("(") || functionNamespaces[strings.ToLower(parts[0])] {
		return nil
	}
	return &CypherRefusal{Line: t.line, Col: t.col, What: strings.Join(parts, ".") + "()",
		Reason: "is not one of Cypher's own functions; plugin functions are not allowed"}
}

// subqueryExpr reports whether the "{" at the current token opens a
// subquery: after CALL's variables or after EXISTS, COUNT or COLLECT.
func (p *cypherParser) subqueryExpr() bool {
	if p.i == 0 {
		return false
	}
	prev := p.toks[p.i-1]
	if prev.kind != cypherWord || p.i >= 2 && (p.toks[p.i-2].is(".") || p.toks[p.i-2].is(":")) {
		return false
	}
	switch strings.ToUpper(prev.text) {
	case "EXISTS", "COUNT", "COLLECT":
		return true
	}
	return false
}
