// The exact core: bit pattern -> (sign, exponent, significand) -> rounded bit pattern and flags.

package fpu

import "math/bits"

// A format describes one IEEE 754 binary interchange format. Bit patterns
// of either format travel through the core as uint64 (a single in the low
// 32 bits).
type format struct {
	prec  int    // significand bits, the hidden bit included: 53 or 24
	emin  int    // exponent of the smallest normal: -1022 or -126
	emax  int    // exponent of the largest finite value: 1023 or 127
	sign  uint64 // the sign bit
	inf   uint64 // +infinity: every exponent bit set
	quiet uint64 // the quiet bit: the fraction's top bit
	nan   uint64 // the canonical NaN
}

var (
	f64 = &format{prec: 53, emin: -1022, emax: 1023, sign: 1 << 63, inf: 0x7ff0000000000000, quiet: 1 << 51, nan: CanonicalNaN64}
	f32 = &format{prec: 24, emin: -126, emax: 127, sign: 1 << 31, inf: 0x7f800000, quiet: 1 << 22, nan: uint64(CanonicalNaN32)}
)

// A kind is what an operand is, as far as the special-case rules care.
type kind uint8

const (
	kZero kind = iota
	kFinite
	kInf
	kQNaN
	kSNaN
)

func (f *format) fracMask() uint64 { return f.quiet<<1 - 1 }

func (f *format) kind(x uint64) kind {
	mag := x &^ f.sign
	switch {
	case mag == 0:
		return kZero
	case mag < f.inf:
		return kFinite
	case mag == f.inf:
		return kInf
	case mag&f.quiet != 0:
		return kQNaN
	}
	return kSNaN
}

func (f *format) isNaN(x uint64) bool { return x&^f.sign > f.inf }

func (f *format) isSNaN(x uint64) bool { return f.kind(x) == kSNaN }

func (f *format) neg(x uint64) bool { return x&f.sign != 0 }

func (f *format) signOf(neg bool) uint64 {
	if neg {
		return f.sign
	}
	return 0
}

// unpack splits a finite nonzero x into its sign, the exponent of its
// leading one bit, and its significand shifted so that the leading one
// is bit 63: |x| = sig × 2^(exp-63). Subnormals come out normalized, with
// exp below emin.
func (f *format) unpack(x uint64) (neg bool, exp int, sig uint64) {
	neg = x&f.sign != 0
	fb := uint(f.prec - 1)
	frac := x & f.fracMask()
	e := int((x &^ f.sign) >> fb)
	if e == 0 {
		lz := bits.LeadingZeros64(frac)
		return neg, f.emin - (lz - (64 - f.prec)), frac << uint(lz)
	}
	return neg, e - (1 - f.emin), (frac | 1<<fb) << uint(64-f.prec)
}

// shiftRightJam shifts x right by n bits and ORs every bit shifted out
// into bit 0, so the result still tells "exact" from "a little more".
func shiftRightJam(x uint64, n int) uint64 {
	switch {
	case n <= 0:
		return x
	case n >= 64:
		if x != 0 {
			return 1
		}
		return 0
	}
	r := x >> uint(n)
	if x<<uint(64-n) != 0 {
		r |= 1
	}
	return r
}

// roundBits drops the low shift bits of sig (which may be any count,
// 64 and beyond included) under mode rm for a value of sign neg. It
// returns the kept bits, rounded, and whether anything nonzero was
// dropped.
func roundBits(sig uint64, shift int, neg bool, rm RM) (kept uint64, inexact bool) {
	if shift <= 0 {
		return sig, false
	}
	var rem uint64
	var half, odd, above, tie bool // above/tie: rem compared with half an ulp
	if shift >= 64 {
		kept, rem = 0, sig
		if shift == 64 {
			above, tie = rem > 1<<63, rem == 1<<63
		}
	} else {
		kept, rem = sig>>uint(shift), sig&(1<<uint(shift)-1)
		h := uint64(1) << uint(shift-1)
		above, tie = rem > h, rem == h
	}
	if rem == 0 {
		return kept, false
	}
	odd = kept&1 != 0
	switch rm {
	case RNE:
		half = above || tie && odd
	case RMM:
		half = above || tie
	case RDN:
		half = neg
	case RUP:
		half = !neg
	}
	if half {
		kept++
	}
	return kept, true
}

// round delivers (-1)^neg × sig × 2^(exp-63) in format f under rm, where
// sig has bit 63 set and a set bit 0 may stand for nonzero bits beyond
// it (a sticky bit): that is enough to round correctly whenever the
// format keeps fewer than 63 bits. It raises NX, UF (tiny after rounding,
// and inexact) and OF as the ISA does, and returns the bit pattern.
func (f *format) round(neg bool, exp int, sig uint64, rm RM) (uint64, Flags) {
	s := f.signOf(neg)
	shift := 64 - f.prec
	if exp < f.emin {
		// Tininess after rounding: the value is tiny unless rounding it
		// to full precision with an unbounded exponent carries it up to
		// 2^emin, which can happen only from the binade just below.
		tiny := true
		if exp == f.emin-1 {
			if k, _ := roundBits(sig, shift, neg, rm); k>>uint(f.prec) != 0 {
				tiny = false
			}
		}
		kept, inexact := roundBits(sig, shift+f.emin-exp, neg, rm)
		var fl Flags
		if inexact {
			fl = NX
			if tiny {
				fl |= UF
			}
		}
		// A subnormal that rounds up to 2^(prec-1) lands on the exponent
		// field's lowest bit: the smallest normal, correctly encoded.
		return s | kept, fl
	}
	kept, inexact := roundBits(sig, shift, neg, rm)
	if kept>>uint(f.prec) != 0 { // rounded up to the next binade
		kept >>= 1
		exp++
	}
	if exp > f.emax {
		return f.overflow(neg, rm), OF | NX
	}
	var fl Flags
	if inexact {
		fl = NX
	}
	// kept's hidden bit adds the one that the biased exponent lacks.
	return s | (uint64(exp-f.emin)<<uint(f.prec-1) + kept), fl
}

// overflow is the result of a finite value too large for the format:
// infinity, or the largest finite value when rm rounds towards zero for
// that sign.
func (f *format) overflow(neg bool, rm RM) uint64 {
	toInf := rm == RNE || rm == RMM || (rm == RUP && !neg) || (rm == RDN && neg)
	if toInf {
		return f.signOf(neg) | f.inf
	}
	return f.signOf(neg) | (f.inf - 1)
}

// zeroSum is the sign of an exact zero sum of operands of opposite signs
// (or of x-x): +0, except -0 when rounding down.
func (f *format) zeroSum(rm RM) uint64 {
	if rm == RDN {
		return f.sign
	}
	return 0
}

// normalize shifts a nonzero sig so that bit 63 is set and adjusts exp to
// keep sig × 2^(exp-63) unchanged.
func normalize(exp int, sig uint64) (int, uint64) {
	lz := bits.LeadingZeros64(sig)
	return exp - lz, sig << uint(lz)
}
