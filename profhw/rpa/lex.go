// Lexer: query text in, tokens with line and column out (sec. 3.1).

package rpa

import "fmt"

// tokKind is the kind of a token.
type tokKind uint8

const (
	tokEOF   tokKind = iota
	tokIdent         // names, keywords, field references such as misc.b0
	tokNum           // decimal or 0x hexadecimal
	tokPunct         // ; : * < > = <> <= >= !=
)

// A token is one lexeme and where it starts (1-based line and column,
// columns counted in bytes).
type token struct {
	kind      tokKind
	text      string
	line, col int
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokNum:
		return "number " + t.text
	case tokPunct:
		return fmt.Sprintf("%q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// lex splits src into tokens. Comments run from '#' or "//" to the end of
// the line. A byte that starts no token is an *Error.
func lex(src string) ([]token, error) {
	var toks []token
	line, col := 1, 1
	i := 0
	adv := func(n int) {
		for k := 0; k < n; k++ {
			if src[i] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			i++
		}
	}
	isAlpha := func(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			adv(1)
			continue
		case c == '#' || c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				adv(1)
			}
			continue
		}
		t := token{line: line, col: col}
		j := i
		switch {
		case isAlpha(c):
			for j < len(src) && (isAlpha(src[j]) || isDigit(src[j]) || src[j] == '.') {
				j++
			}
			t.kind = tokIdent
		case isDigit(c):
			for j < len(src) && (isAlpha(src[j]) || isDigit(src[j])) {
				j++
			}
			t.kind = tokNum
		case c == '<' && i+1 < len(src) && (src[i+1] == '>' || src[i+1] == '='),
			c == '>' && i+1 < len(src) && src[i+1] == '=',
			c == '!' && i+1 < len(src) && src[i+1] == '=':
			j += 2
			t.kind = tokPunct
		case c == ';' || c == ':' || c == '*' || c == '<' || c == '>' || c == '=':
			j++
			t.kind = tokPunct
		default:
			return nil, &Error{Line: line, Col: col, Expected: "a name, a number or one of ; : * < > = <> <= >= !=", Got: fmt.Sprintf("%q", string(c))}
		}
		t.text = src[i:j]
		adv(j - i)
		toks = append(toks, t)
	}
	toks = append(toks, token{kind: tokEOF, line: line, col: col})
	return toks, nil
}

// An Error is an assembler error: where (1-based line and byte column) and
// what was expected there, or, for a well-formed but invalid construct
// (a duplicate class, a missing label, too many instructions), Msg.
type Error struct {
	Line, Col int
	Expected  string // what the grammar wanted, e.g. "a class name"
	Got       string // what it found, e.g. `"opFOO"`
	Msg       string // set instead of Expected/Got for semantic errors
}

func (e *Error) Error() string {
	if e.Msg != "" {
		return fmt.Sprintf("rpa: line %d, column %d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("rpa: line %d, column %d: expected %s, got %s", e.Line, e.Col, e.Expected, e.Got)
}
