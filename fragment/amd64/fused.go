// Fused multiply-adds in place: an FMA whose destination is one of its factors -> FMA3's 213 form into that factor's register.

package amd64

import (
	"rvdyn/fragment/ir"
)

// lowerFusedInPlace lowers the fused multiply-add in when its destination
// is one of its factors and lives in a host register (gcc accumulates
// into a factor it no longer needs: lu's "fa5 = fnmsub fa5, fa3, fa4",
// nbody's "fs3 = fmadd fs3, fs0, fa3"), and reports whether it did; false
// leaves in to the general lowering, with nothing emitted.
//
// The general lowering uses FMA3's 231 form, which keeps the addend in
// the destination: with the destination a factor, the addend went to X0,
// the result came back from X0, two moves around the FMA (one of lu's
// 14 instructions an iteration, where the moves were four). The 213 form
// multiplies into the factor's register and reads the addend from its
// register or its State slot:
//
//	VFMADD213SD c, b, d    ; d = b*d + c
//
// A single's factors and addend must be known NaN-boxed in their
// registers (the general lowering unboxes the others into scratch).
//
// Where the result's NaN test also checks the factors for 0 * inf
// (invalidProduct: the addend may be the quiet NaN x86 raises nothing
// for), the factor the result replaces is copied to X0 first, one move
// instead of two, and the fix-up reads the copy. A square needs no such
// check (it is never 0 * inf), nor an addend known to be a number; the
// result is then tested lazily, as every arithmetic result is.
func (c *compiler) lowerFusedInPlace(in ir.Inst, single bool) bool {
	a := c.a
	d, fa, fb, fc := in.F.D, in.F.A, in.F.B, in.F.C
	h := c.fr.host[d]
	if h == 0 || d != fa && d != fb {
		return false
	}
	inPlace := func(r uint8) bool { // r is read where it lives, boxed if a single
		return c.fr.host[r] != 0 && (!single || c.boxed&(1<<r) != 0)
	}
	if !inPlace(d) || single && !inPlace(fc) {
		return false
	}
	var other register // the factor that stays
	switch {
	case fa == fb:
		other = h
	case d == fa:
		other = c.readable(fb, rX2, single, in.PC)
	default:
		other = c.readable(fa, rX1, single, in.PC)
	}
	fix := !(c.fn.on && (fa == fb || c.numbers[prec(single)]&(1<<fc) != 0))
	if fix && fa != fb {
		a.op(xMOVAPS, reg(h), reg(rX0)) // the replaced factor, for the fix-up
	}
	a.op3(fusedInPlace[in.Op], c.fsrc(fc), reg(other), reg(h))
	if !fix {
		c.finishFloat(in, h, single)
		return true
	}
	invalid := func() {
		if fa != fb {
			c.invalidProduct(single, rX0, other)
		}
	}
	if p, ok := c.nanPartner(single, 1<<d); ok {
		c.canonicalizePair(h, c.fr.host[p], single, invalid, rAX, in.PC)
		return true
	}
	ucomis := xUCOMISD
	if single {
		ucomis = xUCOMISS
	}
	a.op(ucomis, reg(h), reg(h))
	c.outOfLine(condPS, in.PC, func(*label) {
		invalid()
		c.loadConstX(canonNaN(single), h)
	})
	return true
}
