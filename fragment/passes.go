// Pass table: Options -> the optimizer passes run on a Func, in order, each followed (in debug mode) by the verifier.

package fragment

import (
	"fmt"
	"strings"

	"rvdyn/fragment/ir"
)

// Options switch the compiler's optimizations; the zero value enables
// all of them. Each exists so its effect can be measured (and its
// correctness tested) in isolation.
type Options struct {
	// NoRegAlloc keeps every guest register in State: each instruction
	// loads its operands from memory and stores its result.
	NoRegAlloc bool
	// NoBPReg keeps the register allocator off BP, leaving it 8 host
	// registers instead of 9 (amd64.Options.NoBPReg).
	NoBPReg bool
	// NoLazySext sign-extends the result of every 32-bit (W) operation
	// where it is computed, instead of when a consumer needs the upper
	// half (amd64.Options.NoLazySext).
	NoLazySext bool
	// NoHomeRegs drops the home register convention across linked
	// fragments, so that every exit writes back what it wrote and every
	// entry loads what it reads (amd64.Options.NoHomeRegs).
	NoHomeRegs bool
	// NoFloatRegs keeps every f register in State instead of giving the
	// most used ones XMM registers (amd64.Options.NoFloatRegs).
	NoFloatRegs bool
	// NoFloat leaves every F and D instruction and every CSR access to
	// the interpreter: traces end before them (Options.Refuses), as
	// before fragments compiled floating point.
	NoFloat bool
	// NoAtomics leaves lr, sc and the AMOs to the interpreter: traces
	// end before them (Options.Refuses).
	NoAtomics bool
	// NoBulk compiles byte fill and copy loops (a C library's
	// byte-at-a-time memset and memcpy) iteration by iteration instead
	// of with REP STOSB and REP MOVSB (amd64.Options.NoBulk).
	NoBulk bool
	// NoSelfExits compiles a side exit to the fragment's own head as an
	// exit linked back through the linked entry instead of a back edge to
	// the body (amd64.Options.NoSelfExits).
	NoSelfExits bool
	// NoLoopAlign leaves a looping fragment's head where it falls, after
	// its entry code, instead of on a 32-byte boundary
	// (amd64.Options.NoLoopAlign).
	NoLoopAlign bool
	// NoLazyNaN replaces a NaN by the canonical NaN after every
	// floating-point arithmetic operation, instead of only where its
	// bits can be seen (amd64.Options.NoLazyNaN).
	NoLazyNaN bool
	// NoDecisionMerge keeps every sampling decision where its selected
	// instruction is, instead of one test per pass through the body and
	// a second copy of it (amd64.Options.NoDecisionMerge).
	NoDecisionMerge bool
	// NoGapThread draws a native query's sampling gaps on the guest's
	// thread (at the dispatcher, and at a sample exit when a ring is
	// empty) instead of on the queues' service threads beside it
	// (rpa.Engine.UseNative). It changes no code, only who draws.
	NoGapThread bool
	// NoHeadNaN makes a self-loop's back edge canonicalize every f
	// register its body read by value before writing it, instead of
	// leaving them to the head as possibly non-canonical NaNs behind an
	// entry test (amd64.Options.NoHeadNaN).
	NoHeadNaN bool
	// NoStoreCombine lowers every byte store on its own instead of
	// combining a run that fills 2, 4 or 8 contiguous bytes, and that
	// the fragment may read back wider, into one store
	// (amd64.Options.NoStoreCombine).
	NoStoreCombine bool
	// NoAVX computes double-precision arithmetic with SSE2's
	// two-operand forms (the destination a copy of the first operand)
	// even where the host has AVX's three-operand ones
	// (amd64.Options.NoAVX).
	NoAVX bool
	// NoBoxKnown tests the NaN box of every single-precision operand,
	// also where the fragment itself wrote a single to that f register
	// since its head (amd64.Options.NoBoxKnown).
	NoBoxKnown bool
	// NoLazyFflags computes the value of every read of fflags where it
	// is read, also where only exits can see it, instead of storing
	// MXCSR there and leaving the rest to the exits
	// (amd64.Options.NoLazyFflags).
	NoLazyFflags bool
	// NoBudgetReg keeps the budget's host register (R12) for the budget
	// in every fragment instead of giving it to one more guest register
	// where they outnumber the host registers (amd64.Options.NoBudgetReg).
	NoBudgetReg bool
	// NoCountdownPack keeps a looping fragment's sampling countdown in a
	// host register of its own (one the guest registers lose) instead of
	// in the budget's register, R12, beside the budget
	// (amd64.Options.NoCountdownPack).
	NoCountdownPack bool
	// PackedCountdownMax is the most of a packed countdown R12 holds, the
	// rest waiting in State (0: 65535; amd64.Options.PackedCountdownMax).
	// Not a switch: tests lower it so that the rest is taken often.
	PackedCountdownMax int64
	// NoHeadSext keeps no register stale at a loop's head that an exit
	// can see before its next value (amd64.Options.NoHeadSext). Not a
	// switch of its own (it is part of lazy-sext): the dispatcher sets it
	// for one head, whose entry test of such registers kept failing.
	NoHeadSext bool
	// NoBMI2 shifts by a register amount and rotates with x86's
	// two-operand forms, the count copied into CX and the source into
	// the destination, even where the host has BMI2's SHLX, SHRX, SARX
	// and RORX (amd64.Options.NoBMI2).
	NoBMI2 bool
	// NoNarrowDiv divides in 64 bits whatever the operands, instead of
	// one 32-bit DIVL when both fit in 32 bits (amd64.Options.NoNarrowDiv).
	NoNarrowDiv bool
	// NoConstFold turns off constant propagation and folding
	// (ir/constfold.go): known branch outcomes, constant addresses checked at
	// compile time, algebraic identities.
	NoConstFold bool
	// NoCopyProp turns off copy propagation (ir/copyprop.go).
	NoCopyProp bool
	// NoDCE turns off dead code elimination (ir/dce.go).
	NoDCE bool
	// NoExitSink keeps in a self-loop's body the shifts whose results
	// only its exits can see (ir/sink.go).
	NoExitSink bool
	// NoLoadElim turns off redundant load elimination and store-to-load
	// forwarding (ir/loadelim.go).
	NoLoadElim bool
	// NoCheckWiden turns off bounds-check widening (ir/checkwiden.go):
	// each load and store keeps its own check instead of one check per
	// base register value covering all its offsets.
	NoCheckWiden bool
	// NoCheckRange turns off range-covered bounds checks
	// (ir/checkrange.go): each table lookup (a base plus a bounded index)
	// keeps its own check instead of one check per base value covering
	// every index.
	NoCheckRange bool
	// NoCheckHoistExits hoists the checks of stepping bases only out of
	// self-loops whose trip guard is their one way out (ir.CheckHoist),
	// not out of those with other guards too (ir.CheckHoistEarlyExits).
	// A dispatcher also sets it for a head whose loop checks kept failing
	// (see exit.Record.EntryTest).
	NoCheckHoistExits bool
	// NoCheckHoist turns off bounds-check hoisting (ir/checkhoist.go):
	// a self-loop checks its induction and invariant bases in every
	// iteration instead of once on entry.
	NoCheckHoist bool
	// NoBoxCheck leaves a self-loop without its entry check of the
	// singles it reads before writing them (ir/boxcheck.go), so native
	// code tests their NaN boxes in every iteration.
	NoBoxCheck bool
	// NoBoxCheckLine leaves a fragment that does not loop without the
	// same entry check (ir.BoxCheckLine): native code tests the NaN box
	// at every read of such a single. A dispatcher also sets it for a
	// head whose entry tests kept failing (see exit.Record.EntryTest).
	NoBoxCheckLine bool
	// NoFrmHoist leaves a self-loop's test of frm (OpFrm) in its body,
	// run every iteration, instead of once on entry (ir/frmhoist.go).
	NoFrmHoist bool
	// NoQuietCompare keeps the frflags / compare / fsflags idiom as it is
	// (ir/quietcmp.go): the compares raise their flags and the write of
	// fflags restores them.
	NoQuietCompare bool
	// NoStrength turns off strength reduction of gcc's idioms
	// (ir/strength.go).
	NoStrength bool
	// NoRotate leaves gcc's shift-shift-or rotations as three
	// instructions instead of one rotate (ir/rotate.go).
	NoRotate bool
	// NoShAdd leaves RV64's index arithmetic (a shift by 1..3, an add,
	// constants added before them) as it is instead of one shadd, an
	// x86-64 LEA (ir/shadd.go).
	NoShAdd bool
	// NoIBL emits indirect jump stubs without the lookup in the indirect
	// branch lookup table: a jalr to a target other than the recorded one
	// always returns to the dispatcher, and native code never reads the
	// table. It is a code cache mechanism, not an optimization pass, so
	// PassNames and ParsePasses leave it alone.
	NoIBL bool
	// CountdownHome keeps the relational profiler's sampling countdown
	// CountdownIndex (an index into State.Countdown) in a host register
	// across linked fragments, as a home register
	// (amd64.Options.CountdownHome). Every fragment of a run must be
	// compiled with the same two values; the engine sets them when a
	// profiler samples.
	CountdownHome  bool
	CountdownIndex int
	// Values, if set, is a value profile: each load it reports
	// near-invariant is specialized on its value behind a guard
	// (ir.Specialize), before the passes run. Nil (the default) compiles
	// without specialization. The oracle is called during Compile only.
	Values ir.ValueOracle
}

// A pass rewrites an ir.Func in place, keeping the invariants ir.Verify
// checks.
type pass struct {
	name string
	run  func(*ir.Func)
	off  func(*Options) *bool
	doc  string // what switching it off does (PassDocs)
}

// passes are the optimizer passes in the order they run. Constant folding
// comes first so the others see constants; strength reduction before load
// elimination so address arithmetic is folded into offsets; copy
// propagation after load elimination, which leaves copies behind; range
// checks, check hoisting and then widening after both (range checks
// first, so hoisting moves a table base's check out of a loop), so they see the loads that
// remain and the base registers copies were propagated to, and widening
// gets what hoisting left; dead
// code elimination last, to sweep up what the others made dead.
var passes = []pass{
	{"constfold", ir.ConstFold, func(o *Options) *bool { return &o.NoConstFold }, "no constant propagation or folding: known branch outcomes, constant addresses checked at compile time and algebraic identities are left to run"},
	{"strength", ir.Strength, func(o *Options) *bool { return &o.NoStrength }, "no strength reduction of gcc's idioms"},
	{"rotate", ir.Rotate, func(o *Options) *bool { return &o.NoRotate }, "gcc's shift-shift-or rotations stay three instructions (and their two shifted halves two live registers) instead of one rotate"},
	{"loadelim", ir.LoadElim, func(o *Options) *bool { return &o.NoLoadElim }, "redundant loads stay and stores are not forwarded to the loads after them"},
	{"copyprop", ir.CopyProp, func(o *Options) *bool { return &o.NoCopyProp }, "no copy propagation"},
	{"checkrange", ir.CheckRange, func(o *Options) *bool { return &o.NoCheckRange }, "each table lookup (a base plus a bounded index) keeps its own bounds check instead of one per base value covering every index"},
	{"checkhoist-exits", ir.CheckHoistEarlyExits, func(o *Options) *bool { return &o.NoCheckHoistExits }, "a self-loop that can leave through other guards than its trip count's checks its stepping bases in every iteration (only a loop with one way out checks them once on entry)"},
	{"checkhoist", ir.CheckHoist, func(o *Options) *bool { return &o.NoCheckHoist }, "a self-loop checks its induction and invariant bases in every iteration instead of once on entry"},
	{"checkwiden", ir.CheckWiden, func(o *Options) *bool { return &o.NoCheckWiden }, "each load and store keeps its own bounds check instead of one per base register value covering all its offsets"},
	{"boxcheck", ir.BoxCheck, func(o *Options) *bool { return &o.NoBoxCheck }, "a self-loop tests the NaN box of a single it reads before writing it (a loop invariant, an accumulator) in every iteration instead of once on entry"},
	{"boxcheck-line", ir.BoxCheckLine, func(o *Options) *bool { return &o.NoBoxCheckLine }, "a fragment that does not loop tests the NaN box of a single it reads before writing it at every such read instead of once on entry"},
	{"frmhoist", ir.FrmHoist, func(o *Options) *bool { return &o.NoFrmHoist }, "a self-loop that rounds by frm tests frm (and a loop under rtz, rdn or rup reloads MXCSR) in every iteration instead of once on entry"},
	{"quietcmp", ir.QuietCompare, func(o *Options) *bool { return &o.NoQuietCompare }, "the frflags / compare / fsflags idiom keeps its compares' flags and its write of fflags (an MXCSR load)"},
	{"shadd", ir.ShAdd, func(o *Options) *bool { return &o.NoShAdd }, "index arithmetic (slli t,x,k ; add d,t,b, and constants added to x or b) stays two or three instructions instead of one LEA"},
	{"dce", ir.DCE, func(o *Options) *bool { return &o.NoDCE }, "no dead code elimination"},
	{"exit-sink", ir.SinkToExits, func(o *Options) *bool { return &o.NoExitSink }, "a self-loop computes in every pass the shifts whose results only its exits can see (the halves of gcc's rotations) instead of leaving them to the exit stubs"},
}

// passOrder are the constraints on the order of passes, each "a runs
// before b" with its reason; init checks passes against them, as Go's
// cmd/compile/internal/ssa checks its passOrder, so a reordering that
// breaks one fails at start-up rather than as a missed optimization.
var passOrder = []struct{ a, b, why string }{
	{"constfold", "strength", "the others see constants"},
	{"constfold", "loadelim", "the others see constants"},
	{"constfold", "checkrange", "the others see constants"},
	{"strength", "loadelim", "address arithmetic is folded into offsets"},
	{"constfold", "rotate", "the others see constants"},
	{"rotate", "dce", "dead code elimination removes the shifts a rotation no longer reads"},
	{"loadelim", "copyprop", "load elimination leaves copies behind"},
	{"loadelim", "checkrange", "the checks see only the loads that remain"},
	{"copyprop", "checkrange", "the checks see the base registers copies were propagated to"},
	{"checkrange", "checkhoist", "hoisting moves a table base's check out of a loop"},
	{"checkhoist", "checkwiden", "widening gets what hoisting left"},
	{"checkhoist", "boxcheck", "the box check's exit follows the loop checks' exits"},
	{"boxcheck", "frmhoist", "the rounding-mode check's exit follows the other entry checks' exits"},
	{"checkwiden", "dce", "dead code elimination sweeps up what the others made dead"},
	{"dce", "exit-sink", "the shifts sunk are those dead code elimination keeps for the exits"},
	{"rotate", "exit-sink", "the shifts sunk are the halves rotations no longer read"},
	{"checkrange", "shadd", "table lookups are found in the adds that shadd replaces"},
	{"checkhoist", "shadd", "derived bases and loop checks are found in the adds that shadd replaces"},
	{"checkwiden", "shadd", "the checks are placed before the index arithmetic is folded"},
	{"shadd", "dce", "dead code elimination drops the shifts shadd consumed (moves of a register to itself)"},
	{"copyprop", "dce", "dead code elimination sweeps up what the others made dead"},
}

func init() {
	if err := checkOrder(passes, passOrder); err != nil {
		panic(err)
	}
}

// checkOrder returns an error naming the first constraint of order that
// ps breaks (a pass missing, or b before a).
func checkOrder(ps []pass, order []struct{ a, b, why string }) error {
	at := map[string]int{}
	for i, p := range ps {
		at[p.name] = i
	}
	for _, c := range order {
		i, ok1 := at[c.a]
		j, ok2 := at[c.b]
		if !ok1 || !ok2 {
			return fmt.Errorf("fragment: pass order names a pass that does not exist: %s before %s", c.a, c.b)
		}
		if i >= j {
			return fmt.Errorf("fragment: pass %s must run before %s (%s)", c.a, c.b, c.why)
		}
	}
	return nil
}

// debugVerify runs the verifier after every pass in Compile. Tests switch
// it on (export_test.go); it costs a little compile time otherwise.
const debugVerify = false

// verifyPasses is debugVerify, settable by tests.
var verifyPasses = debugVerify

// VerifyPasses switches on (or off) the IR verifier after lowering and
// after every optimization pass of every later Compile: a pass that breaks
// an invariant of the IR then makes Compile fail with an error naming the
// pass, instead of miscompiling. For tests and debugging; it costs compile
// time. Call it before any Compile runs (e.g. in TestMain): it is not
// synchronized with concurrent compiles.
func VerifyPasses(on bool) { verifyPasses = on }

// optimize runs the enabled passes over f.
func optimize(f *ir.Func, opts Options) error {
	if verifyPasses {
		if err := ir.Verify(f); err != nil {
			return fmt.Errorf("fragment: IR after lowering: %w\n%v", err, f)
		}
	}
	// Early-exit trips are part of check hoisting: off with it.
	opts.NoCheckHoistExits = opts.NoCheckHoistExits || opts.NoCheckHoist
	for _, p := range passes {
		if *p.off(&opts) {
			continue
		}
		p.run(f)
		if verifyPasses {
			if err := ir.Verify(f); err != nil {
				return fmt.Errorf("fragment: IR after %s: %w\n%v", p.name, err, f)
			}
		}
	}
	return nil
}

// backendSwitches are the code generator's optimizations (package amd64),
// switchable like the passes but not run on the IR.
var backendSwitches = []pass{
	{"regalloc", nil, func(o *Options) *bool { return &o.NoRegAlloc }, "every guest register stays in memory: each instruction loads its operands and stores its result"},
	{"bp-reg", nil, func(o *Options) *bool { return &o.NoBPReg }, "the register allocator stays off BP: 8 host registers instead of 9"},
	{"lazy-sext", nil, func(o *Options) *bool { return &o.NoLazySext }, "every 32-bit (W) result is sign-extended where it is computed instead of when a use needs the upper half"},
	{"home-regs", nil, func(o *Options) *bool { return &o.NoHomeRegs }, "no home registers across linked fragments: every exit writes back what it wrote, every entry loads what it reads"},
	{"float-regs", nil, func(o *Options) *bool { return &o.NoFloatRegs }, "every f register stays in memory instead of the most used ones getting XMM registers"},
	{"float", nil, func(o *Options) *bool { return &o.NoFloat }, "F, D and CSR instructions stay interpreted: traces end before them"},
	{"atomics", nil, func(o *Options) *bool { return &o.NoAtomics }, "lr, sc and AMOs stay interpreted"},
	{"bulk", nil, func(o *Options) *bool { return &o.NoBulk }, "byte fill and copy loops run iteration by iteration instead of as REP STOSB and REP MOVSB"},
	{"self-exits", nil, func(o *Options) *bool { return &o.NoSelfExits }, "a side exit to the fragment's own head links through the linked entry instead of jumping back to the body"},
	{"lazy-nan", nil, func(o *Options) *bool { return &o.NoLazyNaN }, "every floating-point arithmetic result is tested for a NaN and made the canonical NaN where it is computed, instead of where its bits can be seen (stores, moves, sign injection, exits)"},
	{"head-nan", nil, func(o *Options) *bool { return &o.NoHeadNaN }, "a self-loop's back edge makes canonical every f register the body reads as a value before writing it (an accumulator), instead of leaving it as x86 computed it behind a test on entry"},
	{"storecombine", nil, func(o *Options) *bool { return &o.NoStoreCombine }, "byte stores that fill a word (gcc's copy of a word it cannot prove aligned) stay byte stores, and a wider load of them waits for them to reach the cache instead of being forwarded one store"},
	{"avx", nil, func(o *Options) *bool { return &o.NoAVX }, "double-precision add, subtract, multiply and divide use SSE2's two-operand forms, with a copy of the first operand where the result goes, even where the host has AVX's three-operand ones"},
	{"box-known", nil, func(o *Options) *bool { return &o.NoBoxKnown }, "every single-precision operand's NaN box is tested (five instructions), also where the fragment wrote a single to that register since its head"},
	{"lazy-fflags", nil, func(o *Options) *bool { return &o.NoLazyFflags }, "a read of fflags whose register only exits can see (the frflags of gcc's quiet compares, as in every sqrt call) is computed where it is read (STMXCSR, a load of what it stored and a dozen instructions) instead of as a lone STMXCSR decoded in the exit stubs, and a write of fflags that restores such a read (glibc's floor, ceil, trunc and round) updates State and MXCSR instead of loading MXCSR back from the read's slot"},
	{"cd-pack", nil, func(o *Options) *bool { return &o.NoCountdownPack }, "under a sampled query, a looping fragment's countdown takes a host register of its own, one the guest registers lose, instead of sharing the budget's register (its low 16 bits, the budget in the 48 above)"},
	{"budget-reg", nil, func(o *Options) *bool { return &o.NoBudgetReg }, "the budget keeps its host register in every fragment, instead of lending it to one more guest register (the budget then in memory) where the guest registers outnumber the host registers"},
	{"bmi2", nil, func(o *Options) *bool { return &o.NoBMI2 }, "shifts by a register amount and rotates use x86's two-operand forms (the count copied into CX, the source into the destination) even where the host has BMI2's SHLX, SHRX, SARX and RORX"},
	{"decision-merge", nil, func(o *Options) *bool { return &o.NoDecisionMerge }, "under a sampled query, each selected instruction decrements and tests the countdown where it is, instead of one test of all of a pass's decisions at the body's top (and a second copy of the body, with them, for the passes a sample falls in)"},
	{"gap-thread", nil, func(o *Options) *bool { return &o.NoGapThread }, "under a sampled native query, the sampling gaps are drawn on the guest's thread, at the dispatcher and at a sample exit whenever native code has used the 1,024 drawn ahead, instead of by a service thread that keeps them topped up beside the guest"},
	{"narrow-div", nil, func(o *Options) *bool { return &o.NoNarrowDiv }, "a 64-bit division or remainder always runs x86's 64-bit IDIVQ or DIVQ, instead of one 32-bit DIVL when both operands fit in 32 bits unsigned"},
	{"loop-align", nil, func(o *Options) *bool { return &o.NoLoopAlign }, "a looping fragment's head stays where it falls, after its entry code, instead of on a 32-byte boundary"},
}

// switchOf returns the Options field that switches off the optimization
// called name, or nil.
func switchOf(o *Options, name string) *bool {
	for _, p := range backendSwitches {
		if p.name == name {
			return p.off(o)
		}
	}
	for _, p := range passes {
		if p.name == name {
			return p.off(o)
		}
	}
	return nil
}

// PassNames returns the names of the optimizations Options can switch
// off, as ParsePasses and Options.Disable accept them: the code
// generator's first, then the IR passes in the order they run.
func PassNames() []string {
	var names []string
	for _, p := range backendSwitches {
		names = append(names, p.name)
	}
	for _, p := range passes {
		names = append(names, p.name)
	}
	return names
}

// PassDocs returns, for each name of PassNames, what switching it off
// does: one line for `rvdyn run --disable=help` and the README.
func PassDocs() map[string]string {
	docs := map[string]string{}
	for _, p := range backendSwitches {
		docs[p.name] = p.doc
	}
	for _, p := range passes {
		docs[p.name] = p.doc
	}
	return docs
}

// Disable switches off the optimization called name (one of PassNames,
// e.g. "dce" for a --no-dce flag).
func (o *Options) Disable(name string) error {
	if off := switchOf(o, name); off != nil {
		*off = true
		return nil
	}
	return fmt.Errorf("fragment: unknown optimization %q (have %s)", name, strings.Join(PassNames(), ", "))
}

// ParsePasses returns the Options that enable exactly the optimizations
// in a comma-separated list such as "regalloc,constfold,dce". "all" (or
// "") enables every one, "none" none.
func ParsePasses(list string) (Options, error) {
	var o Options
	if list == "" || list == "all" {
		return o, nil
	}
	for _, n := range PassNames() {
		o.Disable(n)
	}
	if list == "none" {
		return o, nil
	}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		off := switchOf(&o, name)
		if off == nil {
			return Options{}, fmt.Errorf("fragment: unknown optimization %q (have %s)", name, strings.Join(PassNames(), ", "))
		}
		*off = false
	}
	return o, nil
}
