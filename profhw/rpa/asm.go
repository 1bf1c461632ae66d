// Assembler: query text in, a Program (PCT + query instructions) out (sec. 3.1-3.2, 3.4).

package rpa

import (
	"fmt"
	"strconv"
	"strings"
)

// Assemble translates RPA assembly (docs/rpa.md) into a Program. The
// grammar, after the paper's Figure 2 (keywords and class names are
// case-insensitive; '#' and "//" start comments):
//
//	program := query { query }
//	query   := "for" sel { sel } ( "every" N | "always" ) "collect" field { field } ";" clause { clause }
//	sel     := CLASS ( "*" | TAG )          TAG 0..3; event classes take "*" only
//	clause  := [ LABEL ":" ] body ";"
//	body    := "if" cond [ "then" acts ] [ "else" next ] | "if" cond "goto" LABEL | acts
//	acts    := [ "send" Q | "count" | "interrupt" [ N ] ] [ next ]
//	next    := "stop" | "goto" LABEL
//	cond    := cmp [ ( "and" | "or" ) cmp ]
//	cmp     := "true" | "false" | "filter" (2|4|16|256) | ref relop IMM | ref ( "bclr" | "bset" ) IMM
//	relop   := "<" | "=" | ">" | "<>" | "!=" | "<=" | ">="
//	ref     := FIELD [ ".b0".."b3" | ".h0" | ".h1" ] | "w0".."w6"
//
// Each clause becomes one query instruction (sec. 3.4); the query header
// sets the PCT entries of its classes. Every query ends: a clause that
// would fall through past the last clause of its query stops instead.
// Branches go forward to a label of the same query, so every query runs at
// most MaxInsts instructions. A comparison reads one collected field (a
// byte, halfword or the whole 32-bit word) against a 16-bit immediate,
// zero-extended; the two comparisons of a clause must read one even and
// one odd record word and share the immediate, as the Figure 4 format has
// one immediate and word-interleaved record banks.
//
// Event classes (evITLBMISS, evDTLBMISS, evL2DMISS) assemble into their
// PCT entries but never fire in rvdyn, which has no TLB or cache model.
//
// Errors are *Error, naming the line, column and what was expected.
func Assemble(src string) (*Program, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	a := &assembler{toks: toks, prog: &Program{}}
	if a.peek().kind == tokEOF {
		return nil, a.expected("a query (for ...)")
	}
	for a.peek().kind != tokEOF {
		if err := a.query(); err != nil {
			return nil, err
		}
	}
	return a.prog, nil
}

type assembler struct {
	toks []token
	p    int
	prog *Program
}

func (a *assembler) peek() token { return a.toks[a.p] }

func (a *assembler) expected(what string) *Error {
	t := a.peek()
	return &Error{Line: t.line, Col: t.col, Expected: what, Got: t.String()}
}

func errAt(t token, format string, args ...any) *Error {
	return &Error{Line: t.line, Col: t.col, Msg: fmt.Sprintf(format, args...)}
}

func isKw(t token, kw string) bool { return t.kind == tokIdent && strings.EqualFold(t.text, kw) }

func isPunct(t token, p string) bool { return t.kind == tokPunct && t.text == p }

// accept consumes the keyword kw if it is next.
func (a *assembler) accept(kw string) bool {
	if isKw(a.peek(), kw) {
		a.p++
		return true
	}
	return false
}

func (a *assembler) punct(p string) error {
	if !isPunct(a.peek(), p) {
		return a.expected(fmt.Sprintf("%q", p))
	}
	a.p++
	return nil
}

// number reads an unsigned number no larger than max.
func (a *assembler) number(what string, lim uint64) (uint64, token, error) {
	t := a.peek()
	if t.kind != tokNum {
		return 0, t, a.expected(what)
	}
	v, err := strconv.ParseUint(t.text, 0, 64)
	if err != nil || v > lim {
		return 0, t, &Error{Line: t.line, Col: t.col, Expected: fmt.Sprintf("%s (0..%d)", what, lim), Got: t.String()}
	}
	a.p++
	return v, t, nil
}

var classList = "a class (opJMP, opBRANCH, opLOAD, opSTORE, opALU, opMULT, opFLOAT, opSYS, evITLBMISS, evDTLBMISS, evL2DMISS)"

var keywords = map[string]bool{
	"for": true, "every": true, "always": true, "collect": true, "if": true, "then": true, "else": true,
	"send": true, "count": true, "interrupt": true, "async": true, "stop": true, "goto": true, "and": true, "or": true,
	"true": true, "false": true, "filter": true, "bclr": true, "bset": true,
}

// query assembles one query: its header into the PCT, its clauses into
// query instructions.
func (a *assembler) query() error {
	if !a.accept("for") {
		return a.expected(`"for" (a query header)`)
	}
	var entries []Entry
	var entryToks []token
	events := false
	for {
		t := a.peek()
		c, ok := ParseClass(t.text)
		if t.kind != tokIdent || !ok {
			if len(entries) == 0 {
				return a.expected(classList)
			}
			break
		}
		a.p++
		tt := a.peek()
		switch {
		case isPunct(tt, "*"):
			a.p++
			if c.IsEvent() {
				entries, entryToks = append(entries, EntryOf(c, 0)), append(entryToks, t)
				events = true
				break
			}
			for tag := uint8(0); tag < NumTags; tag++ {
				entries, entryToks = append(entries, EntryOf(c, tag)), append(entryToks, t)
			}
		case tt.kind == tokNum:
			if c.IsEvent() {
				return errAt(tt, "event class %v takes tag * only: the PCT has one entry per event (sec. 3.4.1)", c)
			}
			tag, _, err := a.number("a profile tag", NumTags-1)
			if err != nil {
				return err
			}
			entries, entryToks = append(entries, EntryOf(c, uint8(tag))), append(entryToks, t)
		default:
			return a.expected(fmt.Sprintf("a profile tag (0..3) or * after %v", c))
		}
	}
	for i, e := range entries {
		if a.prog.PCT[e].On() {
			return errAt(entryToks[i], "%v is already profiled by an earlier query (one PCT entry per class and tag)", e)
		}
		for _, f := range entries[:i] {
			if f == e {
				return errAt(entryToks[i], "%v is named twice in this header", e)
			}
		}
	}
	var rate uint64 = 1
	switch {
	case a.accept("always"):
	case a.accept("every"):
		var err error
		var t token
		if rate, t, err = a.number("a sampling period N", MaxRate); err != nil {
			return err
		}
		if rate == 0 {
			return &Error{Line: t.line, Col: t.col, Expected: fmt.Sprintf("a sampling period N (1..%d)", MaxRate), Got: t.String()}
		}
	default:
		return a.expected(`"every" N or "always"`)
	}
	if !a.accept("collect") {
		return a.expected(`"collect"`)
	}
	var mask FieldMask
	for {
		t := a.peek()
		f, ok := ParseField(t.text)
		if t.kind != tokIdent || !ok {
			if mask == 0 {
				return a.expected("a field (pc, thread, op1, op1up, op2, op2up, op3, res1, res1u, res2, misc, ftime, frate, drate, irate, wlat, elat, rtime, rrate)")
			}
			break
		}
		a.p++
		if mask.Has(f) {
			return errAt(t, "field %v is collected twice", f)
		}
		if events && eventFields&(1<<f) == 0 {
			return errAt(t, "event classes collect only pc, thread, res2, ftime and rtime (sec. 3.4.1), not %v", f)
		}
		mask |= 1 << f
		if mask.Len() > MaxRecordWords {
			return errAt(t, "a record holds at most %d words (sec. 3.1)", MaxRecordWords)
		}
	}
	if err := a.punct(";"); err != nil {
		return err
	}
	start := len(a.prog.Code)
	if start >= MaxInsts {
		return errAt(a.peek(), "the query instruction array holds %d instructions (sec. 4)", MaxInsts)
	}
	for _, e := range entries {
		a.prog.PCT[e] = MakePCR(mask, uint32(rate), uint8(start))
	}
	return a.clauses(mask, start)
}

// A fixup is a branch to a label, resolved at the end of its query.
type fixup struct {
	qpc   int
	label string
	tok   token
}

// clauses assembles the clauses of the query whose record layout is mask
// and whose first instruction is at start.
func (a *assembler) clauses(mask FieldMask, start int) error {
	labels := map[string]int{}
	var fixups []fixup
	for {
		t := a.peek()
		if t.kind == tokEOF || isKw(t, "for") {
			break
		}
		qpc := len(a.prog.Code)
		if qpc >= MaxInsts {
			return errAt(t, "the query instruction array holds %d instructions (sec. 4)", MaxInsts)
		}
		if t.kind == tokIdent && isPunct(a.toks[a.p+1], ":") {
			if keywords[strings.ToLower(t.text)] {
				return errAt(t, "%q is a keyword, not a label", t.text)
			}
			if _, dup := labels[t.text]; dup {
				return errAt(t, "label %s is defined twice", t.text)
			}
			labels[t.text] = qpc
			a.p += 2
		}
		q, fx, err := a.clause(mask)
		if err != nil {
			return err
		}
		for _, f := range fx {
			fixups = append(fixups, fixup{qpc, f.label, f.tok})
		}
		a.prog.Code = append(a.prog.Code, q.Encode())
	}
	if len(a.prog.Code) == start {
		return a.expected("a clause (if, send, count, interrupt, stop or goto)")
	}
	// Every query ends: falling off its last clause stops.
	last := len(a.prog.Code) - 1
	q, _ := DecodeInst(a.prog.Code[last])
	if q.Match == NextFall {
		q.Match = NextStop
	}
	if q.Miss == NextFall {
		q.Miss = NextStop
	}
	a.prog.Code[last] = q.Encode()
	for _, f := range fixups {
		target, ok := labels[f.label]
		switch {
		case !ok:
			return errAt(f.tok, "label %s is not defined in this query", f.label)
		case target <= f.qpc:
			return errAt(f.tok, "goto %s branches backward: branches go forward, so every query ends", f.label)
		}
		q, _ := DecodeInst(a.prog.Code[f.qpc])
		q.Target = uint8(target)
		a.prog.Code[f.qpc] = q.Encode()
	}
	return nil
}

// clause parses one clause body and its ';' into an instruction whose
// branch target is left for the fixups.
func (a *assembler) clause(mask FieldMask) (QueryInst, []fixup, error) {
	var q QueryInst
	var fx []fixup
	var label string // the one branch target an instruction can hold
	setNext := func(n *Next) error {
		switch {
		case a.accept("stop"):
			*n = NextStop
		case a.accept("goto"):
			lt := a.peek()
			if lt.kind != tokIdent || keywords[strings.ToLower(lt.text)] {
				return a.expected("a label after goto")
			}
			a.p++
			if label != "" && label != lt.text {
				return errAt(lt, "a query instruction has one branch target (Figure 4): it already branches to %s", label)
			}
			label = lt.text
			*n = NextBranch
			fx = append(fx, fixup{label: lt.text, tok: lt})
		}
		return nil
	}
	acts := func() error {
		switch {
		case a.accept("send"):
			v, _, err := a.number("a queue number", MaxQueues-1)
			if err != nil {
				return err
			}
			q.Action, q.Arg = ActSend, uint16(v)
		case a.accept("count"):
			q.Action = ActCount
		case a.accept("interrupt"):
			q.Action = ActInterrupt
			async := a.accept("async")
			if a.peek().kind == tokNum {
				v, _, err := a.number("an interrupt code", uint64(InterruptAsync-1))
				if err != nil {
					return err
				}
				q.Arg = uint16(v)
			}
			if async {
				q.Arg |= InterruptAsync
			}
		}
		return setNext(&q.Match)
	}
	if a.accept("if") {
		if err := a.cond(mask, &q); err != nil {
			return q, nil, err
		}
		switch {
		case isKw(a.peek(), "goto"):
			if err := setNext(&q.Match); err != nil {
				return q, nil, err
			}
		case a.accept("then"):
			if err := acts(); err != nil {
				return q, nil, err
			}
		}
		if a.accept("else") {
			before := a.p
			if err := setNext(&q.Miss); err != nil {
				return q, nil, err
			}
			if a.p == before {
				return q, nil, a.expected(`"stop" or "goto" after else (an instruction acts only on a match)`)
			}
		}
	} else {
		before := a.p
		if err := acts(); err != nil {
			return q, nil, err
		}
		if a.p == before {
			return q, nil, a.expected("a clause (if, send, count, interrupt, stop or goto)")
		}
		q.Miss = q.Match // unconditional: both comparisons TRUE
	}
	if err := a.punct(";"); err != nil {
		return q, nil, err
	}
	return q, fx, nil
}

var relops = map[string]CmpOp{"<": CmpLT, "=": CmpEQ, ">": CmpGT, "<>": CmpNE, "!=": CmpNE, "<=": CmpLE, ">=": CmpGE}

// cmpAST is one parsed comparison before slot assignment.
type cmpAST struct {
	c   Cmp
	imm uint16
	tok token
}

// cond parses one or two comparisons and places them in the instruction:
// a comparison that reads a record word goes to the slot of its word's
// parity (A even, B odd); the others fill the remaining slots in textual
// order.
func (a *assembler) cond(mask FieldMask, q *QueryInst) error {
	var cs []cmpAST
	for {
		c, err := a.cmp(mask)
		if err != nil {
			return err
		}
		cs = append(cs, c)
		if len(cs) == 2 {
			break
		}
		if a.accept("or") {
			q.Or = true
		} else if !a.accept("and") {
			break
		}
	}
	var slots [2]*Cmp
	slot := [2]*Cmp{&q.A, &q.B}
	immSet := false
	for i := range cs {
		c := &cs[i]
		if !c.c.Op.ReadsWord() {
			continue
		}
		s := c.c.Word & 1
		if slots[s] != nil {
			par := [2]string{"even", "odd"}[s]
			return errAt(c.tok, "both comparisons read %s record words: a query instruction reads one even and one odd word (sec. 3.4.2, Figure 4)", par)
		}
		if immSet && c.imm != q.Imm {
			return errAt(c.tok, "both comparisons need the one 16-bit immediate of a query instruction (Figure 4): %d and %d differ", q.Imm, c.imm)
		}
		q.Imm, immSet = c.imm, true
		*slot[s] = c.c
		slots[s] = slot[s]
	}
	for i := range cs {
		c := &cs[i]
		if c.c.Op.ReadsWord() {
			continue
		}
		for s := range slots {
			if slots[s] == nil {
				*slot[s] = c.c
				slots[s] = slot[s]
				break
			}
		}
	}
	return nil
}

// cmp parses one comparison.
func (a *assembler) cmp(mask FieldMask) (cmpAST, error) {
	t := a.peek()
	switch {
	case a.accept("true"):
		return cmpAST{c: Cmp{Op: CmpTrue}, tok: t}, nil
	case a.accept("false"):
		return cmpAST{c: Cmp{Op: CmpFalse}, tok: t}, nil
	case a.accept("filter"):
		nt := a.peek()
		n, _, err := a.number("a filter rate (2, 4, 16 or 256)", 256)
		if err != nil {
			return cmpAST{}, err
		}
		ops := map[uint64]CmpOp{2: CmpFilter2, 4: CmpFilter4, 16: CmpFilter16, 256: CmpFilter256}
		op, ok := ops[n]
		if !ok {
			return cmpAST{}, &Error{Line: nt.line, Col: nt.col, Expected: "a filter rate (2, 4, 16 or 256)", Got: nt.String()}
		}
		return cmpAST{c: Cmp{Op: op}, tok: t}, nil
	}
	if t.kind != tokIdent || keywords[strings.ToLower(t.text)] {
		return cmpAST{}, a.expected("a comparison (a collected field, true, false or filter N)")
	}
	c, err := parseRef(t, mask)
	if err != nil {
		return cmpAST{}, err
	}
	a.p++
	ot := a.peek()
	switch {
	case ot.kind == tokPunct && relops[ot.text] != 0:
		c.Op = relops[ot.text]
	case isKw(ot, "bclr"):
		c.Op = CmpBCLR
	case isKw(ot, "bset"):
		c.Op = CmpBSET
	default:
		return cmpAST{}, a.expected(fmt.Sprintf("a comparison operator after %s (< = > <> <= >= bclr bset)", t.text))
	}
	a.p++
	lim := uint64(1)<<(8<<c.Size) - 1
	if c.Size == Size32 {
		lim = 0xffff
	}
	imm, _, err := a.number(fmt.Sprintf("a %d-bit immediate for a %d-bit value", min(16, 8<<c.Size), 8<<c.Size), lim)
	if err != nil {
		return cmpAST{}, err
	}
	return cmpAST{c: c, imm: uint16(imm), tok: t}, nil
}

// parseRef resolves a field reference (op1, misc.b0, res1.h1, w3) to a
// record word and a sub-word position under the query's field mask.
func parseRef(t token, mask FieldMask) (Cmp, error) {
	name, sub, _ := strings.Cut(t.text, ".")
	c := Cmp{Size: Size32}
	switch s := strings.ToLower(sub); {
	case s == "" || s == "w":
	case len(s) == 2 && s[0] == 'b' && s[1] >= '0' && s[1] <= '3':
		c.Size, c.Byte = Size8, s[1]-'0'
	case len(s) == 2 && s[0] == 'h' && s[1] >= '0' && s[1] <= '1':
		c.Size, c.Byte = Size16, 2*(s[1]-'0')
	default:
		return c, &Error{Line: t.line, Col: t.col, Expected: "a field part .b0 .b1 .b2 .b3 .h0 .h1 or .w", Got: fmt.Sprintf("%q", "."+sub)}
	}
	if f, ok := ParseField(name); ok {
		w, ok := mask.Word(f)
		if !ok {
			return c, errAt(t, "field %v is not collected by this query", f)
		}
		c.Word = uint8(w)
		return c, nil
	}
	if len(name) == 2 && (name[0] == 'w' || name[0] == 'W') && name[1] >= '0' && name[1] <= '6' {
		w := int(name[1] - '0')
		if w >= mask.Len() {
			return c, errAt(t, "record word %d does not exist: this query collects %d words", w, mask.Len())
		}
		c.Word = uint8(w)
		return c, nil
	}
	return c, &Error{Line: t.line, Col: t.col, Expected: "a comparison (a collected field, true, false or filter N)", Got: t.String()}
}
