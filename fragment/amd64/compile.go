// Backend driver: an optimized ir.Func -> Code (x86-64 bytes, exit stubs with their patch fields, and the host-to-guest pc map).

package amd64

import (
	"encoding/binary"
	"slices"

	"rvdyn/fragment/ir"
)

// Options switch the backend's choices; the zero value enables all.
type Options struct {
	// NoRegAlloc keeps every guest register in State: each instruction
	// loads its operands from memory and stores its result.
	NoRegAlloc bool
	// NoBPReg leaves BP out of the allocatable registers (8 instead of
	// 9). The trampoline saves and restores BP around native code
	// either way.
	NoBPReg bool
	// NoLazySext sign-extends every 32-bit (W) result as it is computed
	// (MOVLQSX). Otherwise a W result in a host register keeps a stale
	// upper half until a consumer needs all 64 bits: W ops, narrow
	// stores, extensions and the bitwise ops and compares of values
	// known to be sign-extended read only the low half (see sext.go).
	NoLazySext bool
	// NoHomeRegs drops the home register convention across linked
	// fragments (regalloc.go, homeGuests): every exit writes back the
	// registers it wrote and every entry loads the registers it reads.
	NoHomeRegs bool
	// NoIBL emits indirect jump stubs without the lookup in the indirect
	// branch lookup table: a jalr to a target other than the recorded one
	// always returns to the dispatcher, and native code never reads the
	// table.
	NoIBL bool
	// NoBulk compiles byte fill and copy loops (bulk.go) iteration by
	// iteration instead of with REP STOSB and REP MOVSB.
	NoBulk bool
	// NoFloatRegs keeps every f register in State (fregalloc.go): each
	// floating-point instruction loads its operands from memory and
	// stores its result.
	NoFloatRegs bool
	// NoSelfExits compiles a side exit to the fragment's own head as an
	// ordinary exit, linked through the write back and the linked
	// entry, instead of as a back edge to the body (stubs.go, stubFor).
	NoSelfExits bool
	// NoLoopAlign leaves a looping fragment's head where it falls, after
	// its entry code, instead of at LoopAlign.
	NoLoopAlign bool
	// NoLazyNaN canonicalizes every floating-point arithmetic result
	// where it is computed. Otherwise a result in an XMM register keeps
	// x86's NaN until its bits can be seen (lazynan.go).
	NoLazyNaN bool
	// NoHeadNaN canonicalizes on a self-loop's back edge every f
	// register the body reads by value before writing it, instead of
	// leaving it dirty at the head (lazynan.go, headNaNs).
	NoHeadNaN bool
	// NoStoreCombine lowers every byte store on its own instead of
	// combining a run that fills 2, 4 or 8 contiguous bytes into one
	// store (storecombine.go).
	NoStoreCombine bool
	// NoAVX lowers double-precision arithmetic to SSE2's two-operand
	// forms, copying the first operand to where the result goes, also
	// where the host has AVX (hostAVX) and its three-operand forms.
	NoAVX bool
	// NoBoxKnown tests the NaN box of every single operand, also of an f
	// register the fragment wrote a single to since its head
	// (compiler.boxed).
	NoBoxKnown bool
	// CountdownHome keeps sampling countdown CountdownIndex (an index
	// into State.Countdown) in a host register across linked fragments,
	// like a resident home register (regalloc.go): loaded at the
	// dispatcher's entry, stored whenever native code returns, untouched
	// at links and indirect branch lookup hits, so that a decision is
	// one SUBQ of a register and a branch wherever it is (RPA sec.
	// 3.4.2's countdown). Its register is the last of the allocatable
	// ones, which guest registers then do without. Every fragment of a
	// run must be compiled with the same values. Without the home
	// register convention it is ignored, and a fragment that loops keeps
	// its own countdown in a register (sampleCountdown).
	CountdownHome  bool
	CountdownIndex int64
	// NoLazyFflags computes the value of every read of fflags where it
	// is read (STMXCSR, its load and the mapping), also where only exits
	// can see it (flagsnap.go).
	NoLazyFflags bool
	// NoBudgetReg keeps the budget in R12 throughout every fragment.
	// Otherwise a fragment whose guest registers outnumber the host
	// registers, and that does not loop or loops through a long body,
	// gives R12 to one more guest register and keeps the budget in
	// State.Budget (regAlloc.giveBudget).
	NoBudgetReg bool
	// NoCountdownPack keeps a looping fragment's sampling countdown in a
	// register of its own, one the guest registers lose, instead of in
	// R12's low 16 bits beside the budget (cdpack.go).
	NoCountdownPack bool
	// PackedCountdownMax is the most of a packed countdown R12 holds,
	// the rest waiting in State (0: 65535, all 16 bits). Tests lower it
	// so that the rest, rare at 65535, is taken often.
	PackedCountdownMax int64
	// NoHeadSext extends at a self-loop's back edge every register an
	// exit can see before its next value (no headSext, sext.go): the
	// dispatcher sets it for a head whose entry test keeps failing.
	NoHeadSext bool
	// NoDecisionMerge keeps the sampling decision of every selected
	// instruction where it is, instead of one test of a pass's decisions
	// on the countdown register at the body's top and a second copy of
	// the body for the passes a sample falls in (merge.go).
	NoDecisionMerge bool
	// NoBMI2 lowers shifts by a register amount and rotates with x86's
	// two-operand forms (the count copied into CX, the source into the
	// destination) also where the host has BMI2's SHLX, SHRX, SARX and
	// RORX (hostBMI2).
	NoBMI2 bool
	// NoNarrowDiv lowers every 64-bit division and remainder with
	// IDIVQ or DIVQ, instead of a 32-bit DIVL when both operands fit in
	// 32 bits (narrowDivide).
	NoNarrowDiv bool
}

// Code is one fragment's machine code: position-independent, entered at
// offset 0.
type Code struct {
	Bytes []byte
	// Exits are the exit stubs; the first is the end of the trace.
	Exits []Stub
	// PCs maps host code offsets back to guest pcs.
	PCs PCMap
	// LinkedEntry is the offset of the entry that link jumps and
	// indirect branch lookup hits use: there the home registers
	// (homeGuests) already hold their guest registers. The dispatcher
	// enters at offset 0, which loads them. Without the home register
	// convention both entries are offset 0.
	LinkedEntry int
	// Bulk is "fill" or "copy" when the fragment's self-loop runs its
	// iterations in bulk (bulk.go), else empty.
	Bulk string
	// LoopHead is the offset of the loop head, where the back edge and
	// side exits to the fragment's own head land: LoopAlign unless
	// Options.NoLoopAlign; -1 when nothing jumps back.
	LoopHead int
	// extensions counts the sign extensions the body and the back edge
	// emit (the path of a self-loop's passes): Compile keeps a lowering
	// with registers stale at the head only if it has fewer.
	extensions int
}

type compiler struct {
	// cdMax is the most of a packed countdown R12 holds (cdpack.go).
	cdMax int64
	a     *assembler
	env   ir.Env
	f     *ir.Func
	ra    *regAlloc
	fr    *floatAlloc
	sx    sextState // lazy sign extension (sext.go)
	fn    nanState  // lazy NaN canonicalization (lazynan.go)
	loops bool      // the trace ends at its own head
	// redefined are the registers the loop body writes before it reads
	// them in full or can exit (redefinedAtHead): the back edge leaves
	// them stale.
	redefined uint32
	// headSext are the registers the body starts with stale and known
	// to be sign-extended, tested on entry (sextCheck); sxBroken has
	// those of them a write in the body is not known to keep so.
	headSext uint32
	sxBroken uint32
	// extensions counts the in-place extensions of the body's first
	// copy and the back edge's (Code.extensions).
	extensions int
	// fredefined are the f registers the loop body writes before it
	// reads them or can exit (fredefinedAtHead): the back edge leaves
	// them dirty.
	fredefined uint32
	// headNaN are the f registers the loop body reads only as values
	// (doubles [0], singles [1]) before it writes them: dirty at the
	// head, left so by the back edge, tested on entry (headNaNs).
	headNaN   [2]uint32
	selfExits bool // some side exit jumps back to the body (selfExit)
	noIBL     bool // indirect stubs leave instead of looking up the table
	// noNarrowDiv: Options.NoNarrowDiv.
	noNarrowDiv bool
	combine     bool // byte stores are combined (storecombine.go)
	avx         bool // AVX's three-operand arithmetic (hostAVX and not Options.NoAVX)
	bmi2        bool // BMI2's shifts and rotate (hostBMI2 and not Options.NoBMI2)
	// boxed are the f registers known to hold a NaN-boxed single at
	// this point of the body: loadSingle need not test them.
	boxed    uint32
	boxKnown bool // Options.NoBoxKnown is off
	// headBoxed are the f registers an OpBoxCheck proved boxed on entry,
	// which the body keeps boxed: known at its head.
	headBoxed uint32
	snaps     flagSnaps // reads of fflags left to the exits (flagsnap.go)
	snapLive  int       // 1 + the slot of a read left to the exits that nothing since has changed MXCSR after, or 0 (flagsnap.go)
	numbers   [2]uint32 // f registers that hold a number, not a NaN, as a double ([0]) or a single ([1]): written by a conversion from an integer since the body's head (float.go)
	exits     []*exitStub
	merge     decisionMerge // sampling decisions merged per pass (merge.go)
	body      *label
	cold      []func() // out-of-line code, emitted after the exit stubs
	marks     []pcMark // where the code of each guest instruction starts
}

// A pcMark is a code position (known after assembly) and the guest pc
// whose code starts there.
type pcMark struct {
	at int // an assembler mark
	pc uint64
}

// mark records that the code emitted next belongs to guest pc.
func (c *compiler) mark(pc uint64) {
	if n := len(c.marks); n > 0 && c.marks[n-1].pc == pc {
		return
	}
	c.marks = append(c.marks, pcMark{c.a.mark(), pc})
}

// Compile lowers f (lowered from a trace and optimized, see package ir)
// to x86-64 code laid out along the recorded path: the entry loads the
// allocated guest registers, the body follows the IR, then come the exit
// stubs (the end of the trace first, which the body falls into) and the
// out-of-line slow paths. An error means the assembler rejected an
// instruction, which is a bug.
func Compile(f *ir.Func, opts Options) (*Code, error) {
	code, want, err := compile(f, opts, 0)
	if err != nil || want == 0 || opts.NoHeadSext {
		return code, err
	}
	// A self-loop whose back edge extends registers only for the exits
	// before their next value: lowered again with them stale at the
	// head (sext.go, headSextWanted), unless a write to one of them is
	// not known to be sign-extended: then again without the registers
	// such writes broke (whose loss may break others, hence a few
	// rounds).
	for round := 0; want != 0 && round < headSextRounds; round++ {
		again, broken, err := compile(f, opts, want)
		if err != nil {
			break
		}
		if again != nil {
			if again.extensions < code.extensions {
				return again, nil
			}
			break
		}
		want &^= broken
	}
	return code, nil
}

// headSextRounds bounds the lowerings Compile tries after the first,
// each with fewer registers stale at a self-loop's head.
const headSextRounds = 3

// lowerBody lowers f's body, instructions 0 to last-1 (the last is the
// end exit), in the first copy without the merged decisions (merge.go).
func (c *compiler) lowerBody(last int) {
	f := c.f
	for i := 0; i < last; i++ {
		in := f.Insts[i]
		c.mark(in.PC)
		if c.merge.fast && c.merge.merged[i] {
			continue // decided at the body's top
		}
		if n, lo := c.storeGroup(i); n > 0 {
			c.snapLive = 0
			c.lowerStoreGroup(i, n, lo)
			i += n - 1
			continue
		}
		c.lowerSext(i, in)
	}
}

// LoopAlign is the alignment of a looping fragment's head, in bytes: a
// tight loop whose head straddles a 32-byte fetch block runs measurably
// slower on current x86 cores (and compilers align loop heads to 16 or
// 32 for the same reason). The code cache aligns fragment entries to as
// much (codecache's fragmentAlign).
//
// A looping fragment is laid out with its head at offset LoopAlign:
//
//	0:   JMP rel32 prologue ; NOPs
//	32:  body (the loop head) ; exit stubs ; slow paths
//	     prologue: the entries' loads, loop checks and bulk part ; JMP body
//
// The prologue is lowered first, as for any fragment, and moved behind
// the slow paths before assembly (assembler.moveToEnd), so one assembly
// suffices: padding in front of the head instead would need the entry
// code's size, known only once assembled.
const LoopAlign = 32

// compile is Compile with the registers of headSext left stale at a
// self-loop's head (sext.go). It also returns the registers a second
// lowering could leave so (headSextWanted), or, with no code, those of
// headSext a write in the body is not known to leave sign-extended.
func compile(f *ir.Func, opts Options, headSext uint32) (*Code, uint32, error) {
	a := newAssembler()
	defer a.release()
	c := &compiler{a: a, env: f.Env(), f: f, body: &label{}, loops: f.Loops, noIBL: opts.NoIBL, cdMax: cdMax}
	if m := opts.PackedCountdownMax; m > 0 && m < cdMax {
		c.cdMax = m
	}
	if !opts.NoSelfExits {
		for _, r := range f.Exits {
			c.selfExits = c.selfExits || selfExit(f, r)
		}
	}
	// A fragment whose side exits jump back to its body loops like a
	// self-loop: every allocated register is loaded at the entry, and
	// an exit writes back whatever an earlier iteration wrote.
	c.loops = f.Loops || c.selfExits
	c.snaps = findFlagSnaps(f, !opts.NoLazyFflags)
	var bulk *bulkLoop
	if !opts.NoBulk {
		bulk = matchBulk(f)
	}
	budget := !opts.NoBudgetReg && bulk == nil // lowerBulk counts in R12
	if opts.CountdownHome && !opts.NoRegAlloc && !opts.NoHomeRegs {
		c.ra = allocateCountdownHome(f, !opts.NoBPReg, !opts.NoCountdownPack, opts.CountdownIndex, c.snaps.regs)
	} else {
		c.ra = allocate(f, c.loops, !opts.NoRegAlloc, !opts.NoBPReg, !opts.NoHomeRegs, budget, !opts.NoCountdownPack, c.snaps.regs)
	}
	c.fr = allocateFloat(f, !opts.NoRegAlloc && !opts.NoFloatRegs)
	c.sx.on = !opts.NoLazySext
	c.fn.on = !opts.NoLazyNaN
	c.combine = !opts.NoStoreCombine
	c.avx = hostAVX && !opts.NoAVX
	c.bmi2 = hostBMI2 && !opts.NoBMI2
	c.noNarrowDiv = opts.NoNarrowDiv
	c.boxKnown = !opts.NoBoxKnown
	if c.loops {
		c.redefined = redefinedAtHead(f, false)
		c.headSext = headSext
		c.redefined |= headSext
		c.fredefined = fredefinedAtHead(f)
		if c.fn.on && !opts.NoHeadNaN {
			c.headNaN = headNaNs(f, c.fredefined, c.fr.host)
		}
	}
	c.marks = make([]pcMark, 0, len(f.Insts)+len(f.Exits)+2)
	a.reserveMarks(cap(c.marks))
	c.mark(f.Head)
	align := c.loops && !opts.NoLoopAlign
	var toPrologue patchField
	prologue := -1
	if align {
		toPrologue = a.jmpPatchable()
		a.nops(LoopAlign - 5)
		prologue = a.mark()
		c.mark(f.Head)
	}
	// The dispatcher's entry: load the resident home registers (linked
	// fragments arrive with them loaded).
	ra := c.ra
	for r := uint8(1); r < 32; r++ {
		if ra.resident&(1<<r) != 0 {
			a.op(xMOVQ, mem(rSt, regOff(r)), reg(ra.home[r]))
		}
	}
	switch {
	case ra.cdHome && ra.packed:
		c.cdPack()
	case ra.cdHome:
		a.op(xMOVQ, mem(rSt, StateCountdown+8*ra.cdOff), reg(ra.cd))
	}
	// The linked entry: store the homes this fragment borrows (the
	// dispatcher's entry jumps past: State is exact there). Then both
	// load the other allocated guest registers.
	var linked int
	if ra.evicted != 0 {
		common := &label{}
		a.jmp(common)
		linked = a.mark()
		for r := uint8(1); r < 32; r++ {
			if ra.evicted&(1<<r) != 0 {
				a.op(xMOVQ, reg(ra.home[r]), mem(rSt, regOff(r)))
			}
		}
		a.bind(common)
	} else {
		linked = a.mark()
	}
	c.emptySnaps()
	if ra.budgetReg {
		a.op(xMOVQ, reg(rBudget), mem(rSt, StateBudget)) // R12 holds a guest register here
	}
	for r := uint8(1); r < 32; r++ {
		if ra.needsLoad(r, c.loops) {
			a.op(xMOVQ, mem(rSt, regOff(r)), reg(ra.host[r]))
		}
	}
	for r := uint8(0); r < 32; r++ {
		if c.fr.needsLoad(r, c.loops) {
			a.op(xMOVSD, fslot(r), reg(c.fr.host[r]))
		}
	}
	switch {
	case ra.packed && !ra.cdHome:
		c.cdPack()
	case ra.cd != 0 && !ra.cdHome:
		a.op(xMOVQ, mem(rSt, StateCountdown+8*ra.cdOff), reg(ra.cd))
	}
	c.sextCheck()
	c.headNaNCheck()
	c.lowerLoopChecks()
	if bulk != nil {
		c.lowerBulk(bulk)
	}
	var prologueEnd *inst
	if align {
		a.jmp(c.body)
		prologueEnd = a.last
	}
	bodyMark := -1
	if c.loops {
		bodyMark = a.mark()
	}
	c.merge = c.mergeDecisions(!opts.NoDecisionMerge && bulk == nil)
	a.bind(c.body)
	last := len(f.Insts) - 1
	c.boxed = c.headBoxed
	c.numbers = [2]uint32{}
	c.fn.dbl |= c.headNaN[0]
	c.fn.sgl |= c.headNaN[1]
	c.sx.stale, c.sx.known = c.headSext, c.headSext
	top := c.saveBody()
	var slowEntry *label
	if c.merge.on {
		slowEntry = &label{}
		c.mergedTest(slowEntry)
		c.merge.fast = true
	}
	c.lowerBody(last)
	// The end stub is emitted first, right here: the recorded path falls
	// through into it.
	end := c.stubFor(f.Insts[last].Exit, last)
	var want uint32
	if headSext == 0 && f.Loops {
		want = c.headSextWanted(end.stale)
	}
	if f.Loops {
		end.linked = c.body
	}
	c.mark(end.From)
	c.emitStub(end)
	if c.merge.on {
		// The second copy, with its decisions, from the body's top
		// state; its own end stub follows it.
		c.merge.fast = false
		c.restoreBody(top)
		a.bind(slowEntry)
		c.cdAdd(c.merge.k)
		c.lowerBody(last)
		end2 := c.stubFor(f.Insts[last].Exit, last)
		if f.Loops {
			end2.linked = c.body
		}
		c.mark(end2.From)
		c.emitStub(end2)
	}
	if c.sxBroken != 0 {
		return nil, c.sxBroken, nil
	}
	// Code.Exits lists the end stub first.
	pos := slices.Index(c.exits, end)
	copy(c.exits[1:pos+1], c.exits[:pos])
	c.exits[0] = end
	for _, e := range c.exits {
		if !e.emitted {
			c.mark(e.From)
			c.emitStub(e)
		}
	}
	for _, emit := range c.cold {
		emit()
	}
	if align {
		a.moveToEnd(prologue, prologueEnd)
	}
	bytes, err := a.assemble()
	if err != nil {
		return nil, 0, err
	}
	if align {
		at := toPrologue.offset()
		binary.LittleEndian.PutUint32(bytes[at:], uint32(a.markOffset(prologue)-(at+4)))
	}
	code := &Code{Bytes: bytes, PCs: c.pcMap(), LinkedEntry: a.markOffset(linked), extensions: c.extensions}
	if bulk != nil {
		code.Bulk = bulk.kind()
	}
	code.Exits = make([]Stub, 0, len(c.exits))
	for _, e := range c.exits {
		x := Stub{Record: e.Record, LinkOff: -1, IDOff: e.id.offset()}
		if e.hasLink {
			x.LinkOff = e.link32.offset()
		}
		code.Exits = append(code.Exits, x)
	}
	code.LoopHead = -1
	if bodyMark >= 0 {
		code.LoopHead = a.markOffset(bodyMark)
	}
	return code, want, nil
}
