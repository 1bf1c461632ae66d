// Disassembler: a Program in, query text that assembles back to it out, with the PCT and instruction words as comments (sec. 3.4).

package rpa

import (
	"fmt"
	"slices"
	"strings"
)

// Disassemble renders a program as RPA assembly: a comment block listing
// the active PCT entries (PCR words, sampling period, QPC, fields), then
// one query per starting QPC with each instruction's QPC and 64-bit word
// as a trailing comment. For every program Assemble produces,
// Assemble(Disassemble(p)) encodes to the same PCT and instructions. A
// hand-made image whose entries share a QPC with different PCR0s, or whose
// code is not reachable from any entry, disassembles with comments that
// say so, and need not re-assemble.
func Disassemble(p *Program) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# PCT: %d entries x 2 PCRs (%d bytes); active entries:\n", NumEntries, NumEntries*8)
	fmt.Fprintf(&b, "#   %-12s %-10s %-10s %5s %4s  %s\n", "entry", "PCR0", "PCR1", "every", "QPC", "fields")
	var starts []int
	byQPC := map[int][]Entry{}
	for i, e := range p.PCT {
		if !e.On() {
			continue
		}
		fmt.Fprintf(&b, "#   %-12v 0x%08x 0x%08x %5d %4d  %s\n", Entry(i), e.PCR0, e.PCR1, e.Rate(), e.QPC(), fieldList(e.Mask()))
		q := int(e.QPC())
		if byQPC[q] == nil {
			starts = append(starts, q)
		}
		byQPC[q] = append(byQPC[q], Entry(i))
	}
	slices.Sort(starts)
	fmt.Fprintf(&b, "# query instructions: %d x 64 bits\n", len(p.Code))
	first := len(p.Code)
	if len(starts) > 0 {
		first = starts[0]
	}
	for qpc := 0; qpc < min(first, len(p.Code)); qpc++ {
		fmt.Fprintf(&b, "# %2d: 0x%016x (unreachable: no PCT entry starts before it)\n", qpc, p.Code[qpc])
	}
	for k, start := range starts {
		end := len(p.Code)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		ents := byQPC[start]
		e0 := p.PCT[ents[0]]
		for _, e := range ents[1:] {
			if p.PCT[e].PCR0 != e0.PCR0 {
				fmt.Fprintf(&b, "# note: %v shares QPC %d with %v but has PCR0 0x%08x; shown with %v's\n", e, start, ents[0], p.PCT[e].PCR0, ents[0])
			}
		}
		b.WriteString("for")
		b.WriteString(selectors(ents))
		if r := e0.Rate(); r == 1 {
			b.WriteString(" always")
		} else {
			fmt.Fprintf(&b, " every %d", r)
		}
		fmt.Fprintf(&b, " collect %s;\n", fieldList(e0.Mask()))
		targets := map[int]bool{}
		for qpc := start; qpc < end; qpc++ {
			if q, err := DecodeInst(p.Code[qpc]); err == nil && (q.Match == NextBranch || q.Miss == NextBranch) {
				targets[int(q.Target)] = true
			}
		}
		for qpc := start; qpc < end; qpc++ {
			w := p.Code[qpc]
			q, err := DecodeInst(w)
			if err != nil {
				fmt.Fprintf(&b, "\t# %2d: 0x%016x invalid: %v\n", qpc, w, err)
				continue
			}
			label := ""
			if targets[qpc] {
				label = fmt.Sprintf("L%d: ", qpc)
			}
			text := label + clauseText(q, e0.Mask())
			comment := ""
			if q.Action == ActCount {
				comment = fmt.Sprintf(" counter=%d", q.Arg)
			}
			fmt.Fprintf(&b, "\t%-40s # %2d: 0x%016x%s\n", text, qpc, w, comment)
		}
	}
	return b.String()
}

// selectors renders the class/tag pairs of a header, with "*" for a class
// whose four tags are all present.
func selectors(ents []Entry) string {
	var b strings.Builder
	have := map[Entry]bool{}
	for _, e := range ents {
		have[e] = true
	}
	done := map[Class]bool{}
	for _, e := range ents {
		c := e.Class()
		if done[c] {
			continue
		}
		all := true
		for t := uint8(0); t < NumTags && !c.IsEvent(); t++ {
			all = all && have[EntryOf(c, t)]
		}
		if all {
			fmt.Fprintf(&b, " %v *", c)
			done[c] = true
			continue
		}
		fmt.Fprintf(&b, " %v %d", c, e.Tag())
	}
	return b.String()
}

func fieldList(m FieldMask) string {
	var s []string
	for _, f := range m.Fields() {
		s = append(s, f.String())
	}
	return strings.Join(s, " ")
}

// clauseText renders one instruction as a clause (without label and
// comment), choosing the form that Assemble maps back to the same word.
func clauseText(q QueryInst, mask FieldMask) string {
	next := func(n Next) string {
		switch n {
		case NextStop:
			return "stop"
		case NextBranch:
			return fmt.Sprintf("goto L%d", q.Target)
		}
		return ""
	}
	var acts []string
	switch q.Action {
	case ActSend:
		acts = append(acts, fmt.Sprintf("send %d", q.Arg))
	case ActCount:
		acts = append(acts, "count")
	case ActInterrupt:
		a := "interrupt"
		if q.Arg&InterruptAsync != 0 {
			a += " async"
		}
		if c := q.Arg &^ InterruptAsync; c != 0 {
			a += fmt.Sprintf(" %d", c)
		}
		acts = append(acts, a)
	}
	if n := next(q.Match); n != "" {
		acts = append(acts, n)
	}
	if q.A.Op == CmpTrue && q.B.Op == CmpTrue && !q.Or && q.Match == q.Miss && len(acts) > 0 {
		return strings.Join(acts, " ") + ";"
	}
	var cond string
	switch {
	case !q.Or && q.B.Op == CmpTrue:
		cond = cmpText(q.A, q.Imm, mask)
	case !q.Or && q.A.Op == CmpTrue && q.B.Op.ReadsWord():
		cond = cmpText(q.B, q.Imm, mask)
	default:
		op := " and "
		if q.Or {
			op = " or "
		}
		cond = cmpText(q.A, q.Imm, mask) + op + cmpText(q.B, q.Imm, mask)
	}
	s := "if " + cond
	if len(acts) > 0 {
		s += " then " + strings.Join(acts, " ")
	}
	if n := next(q.Miss); n != "" {
		s += " else " + n
	}
	return s + ";"
}

var cmpSyms = map[CmpOp]string{CmpLT: "<", CmpGE: ">=", CmpEQ: "=", CmpNE: "<>", CmpGT: ">", CmpLE: "<=", CmpBCLR: "bclr", CmpBSET: "bset"}

// cmpText renders one comparison under the query's record layout.
func cmpText(c Cmp, imm uint16, mask FieldMask) string {
	switch c.Op {
	case CmpTrue:
		return "true"
	case CmpFalse:
		return "false"
	}
	if r := c.Op.FilterRate(); r != 0 {
		return fmt.Sprintf("filter %d", r)
	}
	name := fmt.Sprintf("w%d", c.Word)
	if fs := mask.Fields(); int(c.Word) < len(fs) {
		name = fs[c.Word].String()
	}
	switch c.Size {
	case Size8:
		name += fmt.Sprintf(".b%d", c.Byte)
	case Size16:
		name += fmt.Sprintf(".h%d", c.Byte/2)
	}
	if c.Op == CmpBCLR || c.Op == CmpBSET {
		return fmt.Sprintf("%s %s 0x%x", name, cmpSyms[c.Op], imm)
	}
	return fmt.Sprintf("%s %s %d", name, cmpSyms[c.Op], imm)
}
