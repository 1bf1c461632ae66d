// Register allocation: an ir.Func -> which guest registers live in host registers, and which are dirty at each exit.

package amd64

import (
	"sort"

	"rvdyn/fragment/ir"
)

// allocatable are the host registers guest registers may live in, in the
// order they are handed out. AX, CX and DX are scratch, R12 holds the
// budget (or one more guest register, giveBudget), R14 and R15 are fixed,
// SP is never touched. BP comes last: it is
// Go's frame pointer, which the trampoline saves and restores around
// native code (codecache/enter_amd64.s), and Options.NoBPReg leaves it out.
var allocatable = []register{rBX, rSI, rDI, rR8, rR9, rR10, rR11, rR13, rBP}

// regAlloc maps guest registers to host registers for one fragment. The
// allocation is fixed for the whole fragment (a trace is one straight
// line): registers are loaded at the entry and written back at every exit
// that follows a write to them.
type regAlloc struct {
	host      [32]register // host register of guest register r, 0 if r lives in State
	written   uint32       // bit r: r is written somewhere in the IR
	readFirst uint32       // bit r: r's first use reads it (its entry value matters)
	// before[i] is the set of registers written by the instructions
	// before instruction i.
	before []uint32
	// The home register convention across linked fragments (homeGuests):
	// home[r] is guest register r's home host register, 0 if it has none
	// (or the convention is off). resident are the guest registers with a
	// home that stay in it throughout this fragment (host[r] == home[r],
	// whether the fragment uses them or not); evicted are those whose home
	// this fragment gives to another guest register: the linked entry
	// stores them to State, where the fragment uses them, and linked
	// exits load them back.
	home              [32]register
	resident, evicted uint32
	// cd is the host register that holds the relational profiler's
	// sampling countdown State.Countdown[cdOff] throughout the fragment
	// (0: every countdown stays in State); see sampleCountdown.
	cd    register
	cdOff int64
	// cdHome: cd is the countdown's home across linked fragments
	// (Options.CountdownHome), not this fragment's alone.
	cdHome bool
	// packed: cd is R12, which holds the budget and the countdown
	// together (cdpack.go), so the countdown takes no guest register.
	packed bool
	// inState are guest registers kept out of host registers (keepOut).
	inState uint32
	// budgetReg: R12, the budget's register, holds a guest register in
	// this fragment and the budget lives in State.Budget (giveBudget).
	budgetReg bool
}

// homeGuests are the guest registers that have a home host register, in
// the order of allocatable: sp, a0, a1, ra, s0, a2..a5 (the registers of
// calls, returns and frames, which every fragment of call-heavy code
// touches). At every linked transition (a link jump, an indirect branch
// lookup hit) they are in their homes and their State slots may be
// stale, so a transition between fragments that keep them resident
// costs no write back and no reload. Native code writes them all back
// before it returns to the dispatcher.
var homeGuests = []uint8{2, 10, 11, 1, 8, 12, 13, 14, 15}

// minBorrowUses is the fewest uses (reads and writes) for which a guest
// register without a home borrows one in a fragment that does not loop:
// borrowing costs a store at the linked entry and a load at each linked
// exit, and saves a memory operand per use.
const minBorrowUses = 3

// allocate gives host registers to the guest registers the IR uses most
// (reads and writes weighted equally; x0 never); withBP adds BP to the
// registers it may use; homes puts registers with a home (homeGuests) in
// it, and the others in the homes of registers the fragment uses less.
// loops says that the fragment runs its body again without leaving (a
// self-loop, or side exits back to the body). The guest registers of
// inState get none and stay in State (a home among them is evicted).
// budget lets the budget's register hold one more (giveBudget); pack
// lets it hold the countdown beside the budget instead (cdpack.go).
func allocate(f *ir.Func, loops, enabled, withBP, homes, budget, pack bool, inState uint32) *regAlloc {
	ra, count := usage(f)
	ra.keepOut(&count, inState)
	if !enabled {
		return ra
	}
	regs := allocatable
	if !withBP {
		regs = regs[:len(regs)-1]
	}
	if cdOff, ok := sampleCountdown(f); ok && loops && pack {
		// The countdown shares R12 with the budget: the guest
		// registers keep every register.
		ra.cd, ra.cdOff, ra.packed = rBudget, cdOff, true
	} else if ok && loops {
		// The countdown takes the last register, the first home a
		// fragment borrows (homes), so the guest registers get one less.
		ra.cd, ra.cdOff = regs[len(regs)-1], cdOff
	}
	ra.assign(f, &count, regs, homes)
	if budget && ra.cd == 0 {
		ra.giveBudget(f, &count, loops)
	}
	return ra
}

// minBudgetRegLoop is the fewest guest instructions in the body of a
// fragment that loops for its budget register to hold a guest register
// (giveBudget): its back edge then charges the budget in memory, a
// read-modify-write whose store must be forwarded to the next
// iteration's load, a few cycles that a body this long hides.
const minBudgetRegLoop = 32

// giveBudget hands R12, the budget's register, to the most used guest
// register that got no host register, if there is one worth it (as
// many uses as a borrowed home needs; in a fragment that loops, a body
// of at least minBudgetRegLoop instructions). The budget then lives in
// State.Budget inside this fragment: the entries store R12 there before
// loading guest registers, every exit stub reloads it into R12 after its
// write back (writeBack), so that links, indirect branch lookups and the
// trampoline find the budget in R12 as usual, and a back edge charges
// State.Budget itself. The register pressure of long loops (SHA-256's
// rounds, AES, compressors) is what it is for: without BP, one register
// fewer, they run 6-18% slower. A shorter loop body pays the entry's
// store, the exits' reloads and the back edge's memory for too little:
// RV64GC bytecode's dispatch loop (29 instructions, left through the
// indirect branch lookup in most passes) ran 2-4% slower lending R12.
func (ra *regAlloc) giveBudget(f *ir.Func, count *[32]int, loops bool) {
	if loops && f.Guest < minBudgetRegLoop {
		return
	}
	best, n := 0, 0
	for r := 1; r < 32; r++ {
		if ra.host[r] == 0 && count[r] > n {
			best, n = r, count[r]
		}
	}
	if best == 0 || n < minBorrowUses && !loops {
		return
	}
	ra.host[best], ra.budgetReg = rBudget, true
}

// usage is a regAlloc with no register given yet: which guest registers
// f writes, and which it reads before it writes them; and how often f
// uses each guest register (reads and writes).
func usage(f *ir.Func) (*regAlloc, [32]int) {
	ra := &regAlloc{before: make([]uint32, len(f.Insts))}
	var count [32]int
	for i := range f.Insts {
		in := &f.Insts[i]
		ra.before[i] = ra.written
		in.Reads(func(r uint8) {
			count[r]++
			if ra.written&(1<<r) == 0 {
				ra.readFirst |= 1 << r
			}
		})
		if in.Dst != 0 {
			count[in.Dst]++
			ra.written |= 1 << in.Dst
		}
	}
	return ra, count
}

// keepOut keeps the guest registers of inState out of host registers:
// assign sees no use of them, and gives their homes to others (they are
// evicted: the linked entry stores them to State, linked exits load them
// back).
func (ra *regAlloc) keepOut(count *[32]int, inState uint32) {
	for r := 1; r < 32; r++ {
		if inState&(1<<r) != 0 {
			count[r] = 0
		}
	}
	ra.inState = inState
}

// assign gives the host registers regs to the guest registers f uses
// most (count, from usage; see allocate); a countdown of this fragment's
// own (cd set, not cdHome) takes the last of them.
func (ra *regAlloc) assign(f *ir.Func, count *[32]int, regs []register, homes bool) {
	own := ra.cd != 0 && !ra.cdHome && !ra.packed
	order := make([]int, 0, 31)
	for r := 1; r < 32; r++ {
		if count[r] > 0 {
			order = append(order, r)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	guestRegs := regs
	if own {
		guestRegs = regs[:len(regs)-1]
	}
	if len(order) > len(guestRegs) {
		order = order[:len(guestRegs)]
	}
	if !homes {
		for i, r := range order {
			ra.host[r] = guestRegs[i]
		}
		return
	}
	var taken [32]bool // by guest register, for the homes of homeGuests[:len(regs)]
	for i, g := range homeGuests[:len(regs)] {
		ra.home[g] = regs[i]
	}
	next := len(regs) - 1 // the next home to borrow: the last ones first
	if own {
		// The countdown borrows the last home, as a guest register
		// would: its guest register is evicted (stored at the linked
		// entry, reloaded at linked exits) and lives elsewhere here.
		g := homeGuests[next]
		taken[g] = true
		ra.evicted |= 1 << g
		next--
	}
	for _, g := range homeGuests[:len(regs)] {
		if ra.inState&(1<<g) != 0 {
			ra.evicted |= 1 << g // its home is free to borrow
		}
	}
	for _, r := range order {
		if h := ra.home[r]; h != 0 && ra.evicted&(1<<r) == 0 {
			ra.host[r] = h
			taken[r] = true
		}
	}
	for _, r := range order {
		if ra.host[r] != 0 {
			continue
		}
		if count[r] < minBorrowUses && !f.Loops {
			continue // cheaper in State than a home's store and reload
		}
		for taken[homeGuests[next]] {
			next--
		}
		g := homeGuests[next]
		taken[g] = true
		ra.host[r] = ra.home[g]
		ra.evicted |= 1 << g
	}
	for _, g := range homeGuests[:len(regs)] {
		if ra.evicted&(1<<g) == 0 {
			ra.resident |= 1 << g
			ra.host[g] = ra.home[g] // unused ones too: they pass through
		}
	}
}

// allocateCountdownHome is allocate with the home register convention
// and a countdown home (Options.CountdownHome): the last allocatable
// register holds countdown off in every fragment, and the guest
// registers share the others, their homes included (the guest register
// whose home that register would be has none).
//
// With pack, the countdown's home is R12's low 16 bits instead, beside
// the budget (cdpack.go), in every fragment, and the guest registers
// keep every register.
func allocateCountdownHome(f *ir.Func, withBP, pack bool, off int64, inState uint32) *regAlloc {
	regs := allocatable
	if !withBP {
		regs = regs[:len(regs)-1]
	}
	ra, count := usage(f)
	ra.keepOut(&count, inState)
	if pack {
		ra.cd, ra.cdOff, ra.cdHome, ra.packed = rBudget, off, true, true
		ra.assign(f, &count, regs, true)
		return ra
	}
	ra.cd, ra.cdOff, ra.cdHome = regs[len(regs)-1], off, true
	ra.assign(f, &count, regs[:len(regs)-1], true)
	return ra
}

// sampleCountdown picks the sampling countdown (an index into
// State.Countdown) a looping fragment keeps in a host register: the one
// most of its OpSample instructions decrement. In memory, the decision
// of each selected instruction is a read-modify-write of State (RPA sec.
// 3.4.2's countdown), and in a loop every iteration waits for the last
// one's store to be forwarded to its load, a few cycles per selected
// instruction; in a register it is one SUBQ and a branch. The price is a
// load at the entry, a store at each exit, one register fewer for guest
// registers and a home evicted at linked transitions: in a fragment
// that does not loop that costs more than the few decisions it makes.
func sampleCountdown(f *ir.Func) (off int64, ok bool) {
	uses := map[int64]int{}
	for _, in := range f.Insts {
		if in.Op == ir.OpSample {
			uses[in.Off]++
		}
	}
	best := 0
	for k, n := range uses {
		if n > best || n == best && k < off {
			off, best = k, n
		}
	}
	return off, best > 0
}

// needsLoad reports whether allocated guest register r must be loaded at
// the fragment entry: when its entry value is read, or when the fragment
// loops to itself (an exit in a later iteration writes back every written
// register, so each must hold a real value from the start).
func (ra *regAlloc) needsLoad(r uint8, loops bool) bool {
	return ra.host[r] != 0 && ra.resident&(1<<r) == 0 && (ra.readFirst&(1<<r) != 0 || loops)
}

// dirty returns the allocated guest registers, resident homes aside,
// whose State slot may be stale at an exit taken by instruction i
// (before i writes anything):
// those written by earlier instructions, or, in a fragment that loops to
// itself (where an earlier iteration may have written anything), every
// written one. i == len(f.Insts) means after all of them.
func (ra *regAlloc) dirty(i int, loops bool) []uint8 {
	d := ra.written
	if !loops && i < len(ra.before) {
		d = ra.before[i]
	}
	d &^= ra.resident // written back when native code leaves
	var out []uint8
	for r := 1; r < 32; r++ {
		if d&(1<<r) != 0 && ra.host[r] != 0 {
			out = append(out, uint8(r))
		}
	}
	return out
}
