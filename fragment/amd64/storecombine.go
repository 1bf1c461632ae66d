// Store combining: a run of byte stores that fills 2, 4 or 8 contiguous bytes -> one store of the bytes put together.

package amd64

import (
	"rvdyn/fragment/ir"
	"rvdyn/interp"
)

// RV64GC does not promise fast misaligned accesses, so gcc copies a
// word it cannot prove aligned (memcpy(&v, p, 4), LZ4's and zlib's
// reads of a window) a byte at a time: four lbu, four sb into a stack
// slot, then an lw of the slot. On x86 a load that reads bytes from
// several stores still in the store buffer cannot be forwarded from
// them: it waits until they reach the cache, a stall of about as long
// as the loop's body, and how long depends on timing (the lz guest's run
// time moved between 0.74 and 1.30 s with the same code). One store of
// the whole word is forwarded to such a load as usual.
//
// A group is a run of sb instructions, adjacent in the IR, off one base
// value, whose offsets are a permutation of lo .. lo+n-1 for n = 8, 4 or
// 2; no instruction but the first may take an exit, and the first's
// bounds check covers start address lo (its own offset, or a widened
// check's range): checks are good for any access of up to 8 bytes at a
// start address they pass (interp.ClassSpanOffset). Nothing between the
// stores reads memory or writes a register, so one store after the
// check leaves memory as the n stores would, and a check that fails
// leaves before any of them.
//
// The bytes are put together in DX (each zero-extended, shifted and
// or'ed in, constants folded), which costs a few ALU instructions more
// than n byte stores; a group is combined only when the fragment has a
// load of 2 bytes or more after it (anywhere, when the fragment loops)
// that may read them back. Options.NoStoreCombine turns it off.

// storeGroup returns the size n of the group of byte stores that starts
// at IR instruction i and the lowest offset lo it writes, or 0.
func (c *compiler) storeGroup(i int) (n int, lo int64) {
	if !c.combine {
		return 0, 0
	}
	insts := c.f.Insts
	first := insts[i]
	if first.Op != interp.OpSB {
		return 0, 0
	}
	j := i + 1
	for j < len(insts) && j-i < 8 && insts[j].Op == interp.OpSB && insts[j].A == first.A && insts[j].Exit < 0 {
		j++
	}
	for _, n := range [...]int{8, 4, 2} {
		if j-i < n {
			continue
		}
		lo, ok := contiguous(insts[i : i+n])
		if !ok || !checked(first, lo) || !readBack(c.f, i+n) {
			continue
		}
		return n, lo
	}
	return 0, 0
}

// contiguous reports whether the stores' offsets are a permutation of
// lo .. lo+len(run)-1, and returns lo.
func contiguous(run []ir.Inst) (int64, bool) {
	lo := run[0].Off
	for _, in := range run {
		lo = min(lo, in.Off)
	}
	var seen uint8
	for _, in := range run {
		k := in.Off - lo
		if k >= int64(len(run)) || seen&(1<<k) != 0 {
			return 0, false
		}
		seen |= 1 << k
	}
	return lo, true
}

// checked reports whether first's bounds check (if it has one) passes
// start address lo: its own offset, or within its widened range.
func checked(first ir.Inst, lo int64) bool {
	switch cv := first.Cover; {
	case first.Exit < 0:
		return true // covered by an earlier check of the base value
	case cv.Widened():
		return cv.Store && cv.Lo <= lo && lo <= cv.Hi
	}
	return first.Off == lo
}

// readBack reports whether a load of 2 bytes or more follows IR
// instruction from, or any such load when the fragment loops.
func readBack(f *ir.Func, from int) bool {
	if f.Loops {
		from = 0
	}
	for _, in := range f.Insts[from:] {
		if ir.IsLoad(in.Op) && ir.Width(in.Op) >= 2 {
			return true
		}
	}
	return false
}

// lowerStoreGroup lowers the n byte stores from IR instruction i, a group
// storeGroup found, as one n-byte store at offset lo.
func (c *compiler) lowerStoreGroup(i, n int, lo int64) {
	a := c.a
	first := c.f.Insts[i]
	at := first
	at.Off = lo
	m := c.access(i, at, interp.AccW) // may use AX (the base) and CX
	var konst uint64
	started := false
	for _, in := range c.f.Insts[i : i+n] {
		shift := 8 * (in.Off - lo)
		v := in.B
		if v.IsConst {
			konst |= (v.Const & 0xff) << shift
			continue
		}
		dst := rCX
		if !started {
			dst = rDX
		}
		a.op(xMOVBQZX, c.opnd(v, 0), reg(dst))
		if shift > 0 {
			a.op(xSHLQ, imm(shift), reg(dst))
		}
		if started {
			a.op(xORQ, reg(rCX), reg(rDX))
		}
		started = true
	}
	switch {
	case !started:
		c.load(ir.C(konst), rDX)
	case konst == 0:
	case ir.FitsInt32(int64(konst)):
		a.op(xORQ, imm(int64(konst)), reg(rDX))
	default:
		c.load(ir.C(konst), rCX)
		a.op(xORQ, reg(rCX), reg(rDX))
	}
	as := map[int]mnemonic{2: xMOVW, 4: xMOVL, 8: xMOVQ}[n]
	a.op(as, reg(rDX), m)
}
