// Conversions between the formats and to and from integers: bit patterns or integers and a rounding mode -> result and flags.

package fpu

import "math/bits"

// An intKind is the integer type of a conversion: its width and
// signedness.
type intKind struct {
	bits   int
	signed bool
}

var (
	kindW  = intKind{32, true}
	kindWU = intKind{32, false}
	kindL  = intKind{64, true}
	kindLU = intKind{64, false}
)

// limits returns the largest value and the magnitude of the most
// negative one, as uint64.
func (k intKind) limits() (max, negMax uint64) {
	switch {
	case k.signed:
		return 1<<uint(k.bits-1) - 1, 1 << uint(k.bits-1)
	case k.bits == 64:
		return ^uint64(0), 0
	}
	return 1<<uint(k.bits) - 1, 0
}

// toInt is fcvt.{w,wu,l,lu}.{s,d}: x rounded to an integer under rm.
// Out of range (NaN, infinities, or a rounded value that does not fit)
// saturates — NaN and positive values to the maximum, negative ones to
// the minimum — and raises NV alone. The result is in two's complement
// in the low k.bits bits, sign-extended from bit 31 for the 32-bit kinds
// (even unsigned ones), as the ISA writes rd.
func (f *format) toInt(x uint64, rm RM, k intKind) (uint64, Flags) {
	max, negMax := k.limits()
	ext := func(v uint64) uint64 {
		if k.bits == 32 {
			return uint64(int64(int32(uint32(v))))
		}
		return v
	}
	invalid := func(neg bool) (uint64, Flags) {
		if neg {
			return ext(-negMax), NV
		}
		return ext(max), NV
	}
	switch f.kind(x) {
	case kZero:
		return 0, 0
	case kQNaN, kSNaN:
		return invalid(false)
	case kInf:
		return invalid(f.neg(x))
	}
	neg, exp, sig := f.unpack(x)
	if exp > 63 {
		return invalid(neg)
	}
	mag, inexact := roundBits(sig, 63-exp, neg, rm)
	if neg && mag > negMax || !neg && mag > max {
		return invalid(neg)
	}
	var fl Flags
	if inexact {
		fl = NX
	}
	if neg {
		return ext(-mag), fl
	}
	return ext(mag), fl
}

// fromInt is fcvt.{s,d}.{w,wu,l,lu}: the integer (-1)^neg × mag rounded
// to format f under rm.
func (f *format) fromInt(neg bool, mag uint64, rm RM) (uint64, Flags) {
	if mag == 0 {
		return 0, 0
	}
	lz := bits.LeadingZeros64(mag)
	return f.round(neg, 63-lz, mag<<uint(lz), rm)
}

// convert is fcvt.s.d and fcvt.d.s: x of format from rounded to format
// to under rm (widening is always exact).
func convert(to, from *format, x uint64, rm RM) (uint64, Flags) {
	switch from.kind(x) {
	case kQNaN, kSNaN:
		_, fl := from.nanResult(false, x)
		return to.nan, fl
	case kZero:
		return to.signOf(from.neg(x)), 0
	case kInf:
		return to.signOf(from.neg(x)) | to.inf, 0
	}
	neg, exp, sig := from.unpack(x)
	return to.round(neg, exp, sig, rm)
}
