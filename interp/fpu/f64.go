// The D extension: double-precision bit patterns (uint64) and a rounding mode -> result and flags.

package fpu

import "math"

// exp64 returns the biased exponent field of a double: 0 for zeros and
// subnormals, 0x7ff for infinities and NaNs.
func exp64(x uint64) uint64 { return x >> 52 & 0x7ff }

// The fast paths accept a result only when its exponent field is at
// least 2 (|r| >= 2^-1021): then the value rounded with an unbounded
// exponent is not below the smallest normal either, so UF cannot be due.
const minFastExp64 = 2

// productResidualExact64 reports whether the last bit of x times the
// last bit of y is at least 2^-1074, the smallest subnormal: then every
// nonzero x×y - d (for a double d) is at least that large, and a fused
// multiply-add that returns 0 for it proves it exactly 0.
func productResidualExact64(x, y uint64) bool {
	ex, ey := max(exp64(x), 1), max(exp64(y), 1)
	return ex+ey >= 1076
}

// twoSumErr returns the rounding error of s = x+y (Knuth's TwoSum): the
// double e with x + y = s + e exactly, barring overflow. Go may fuse
// x*y+z into one FMA, which would break an error-free transformation, but
// there is no product here to fuse.
func twoSumErr(x, y, s float64) float64 {
	bb := s - x
	return (x - (s - bb)) + (y - bb)
}

// sumExact reports whether s = RN(x+y) is exact. Subtracting the larger
// operand from s is exact (Dekker's Fast2Sum lemma), so it gives back the
// smaller one exactly when no rounding happened; testing both orders
// spares finding out which is larger, and costs less than TwoSum.
func sumExact(x, y, s float64) bool { return s-x == y && s-y == x }

// finite reports whether v is neither infinite nor NaN.
func finite(v float64) bool { return v-v == 0 }

// Add64 is fadd.d: a+b rounded under rm, with NV for inf-inf or a
// signalling NaN and NX, OF as the result needs (a sum of doubles is
// never tiny and inexact, so never UF).
func Add64(a, b uint64, rm RM) (uint64, Flags) {
	if rm == RNE {
		x, y := math.Float64frombits(a), math.Float64frombits(b)
		s := x + y
		if r := math.Float64bits(s); exp64(r) != 0x7ff { // no NaN, infinity or overflow
			if sumExact(x, y, s) {
				return r, 0
			}
			return r, NX
		}
	}
	return f64.add(a, b, rm)
}

// Sub64 is fsub.d: a-b, that is a + (-b).
func Sub64(a, b uint64, rm RM) (uint64, Flags) {
	return Add64(a, b^f64.sign, rm)
}

// Mul64 is fmul.d: a×b rounded under rm, with NV for 0×inf or a
// signalling NaN.
func Mul64(a, b uint64, rm RM) (uint64, Flags) {
	if rm == RNE {
		x, y := math.Float64frombits(a), math.Float64frombits(b)
		p := x * y
		r := math.Float64bits(p)
		if e := exp64(r); e >= minFastExp64 && e != 0x7ff {
			if math.FMA(x, y, -p) != 0 {
				return r, NX
			}
			if productResidualExact64(a, b) {
				return r, 0
			}
		} else if p == 0 && (x == 0 || y == 0) { // an exact zero
			return r, 0
		}
	}
	return f64.mul(a, b, rm)
}

// Div64 is fdiv.d: a/b rounded under rm, with DZ for a finite nonzero a
// over zero and NV for 0/0, inf/inf or a signalling NaN.
func Div64(a, b uint64, rm RM) (uint64, Flags) {
	if rm == RNE {
		x, y := math.Float64frombits(a), math.Float64frombits(b)
		q := x / y
		r := math.Float64bits(q)
		if e := exp64(r); e >= minFastExp64 && e != 0x7ff {
			// q×y - x is 0 exactly when q is; FMA computes it exactly
			// enough to tell, given the bound on its last bit.
			if math.FMA(q, y, -x) != 0 {
				return r, NX
			}
			if productResidualExact64(r, b) {
				return r, 0
			}
		} else if q == 0 && x == 0 { // 0/finite and 0/inf: an exact zero
			return r, 0
		}
	}
	return f64.div(a, b, rm)
}

// Sqrt64 is fsqrt.d: the square root of a rounded under rm, with NV for
// a negative nonzero a or a signalling NaN; sqrt(-0) is -0.
func Sqrt64(a uint64, rm RM) (uint64, Flags) {
	if rm == RNE && a>>63 == 0 && exp64(a)-1 < 0x7fe { // positive normal
		x := math.Float64frombits(a)
		s := math.Sqrt(x)
		r := math.Float64bits(s)
		if math.FMA(s, s, -x) != 0 {
			return r, NX
		}
		if productResidualExact64(r, r) {
			return r, 0
		}
	}
	return f64.sqrt(a, rm)
}

// MulAdd64 is the fused multiply-add family on doubles: ±(a×b) ± c with
// a single rounding under rm. negProd negates the product and negAdd the
// addend, so
//
//	fmadd.d  = MulAdd64(a, b, c, false, false, rm)  //  (a×b) + c
//	fmsub.d  = MulAdd64(a, b, c, false, true, rm)   //  (a×b) - c
//	fnmsub.d = MulAdd64(a, b, c, true, false, rm)   // -(a×b) + c
//	fnmadd.d = MulAdd64(a, b, c, true, true, rm)    // -(a×b) - c
//
// NV is raised for 0×inf (even when c is a quiet NaN), for inf-inf
// between product and addend, and for a signalling NaN. An exact zero
// sum of opposite-signed terms is +0 (-0 under RDN).
func MulAdd64(a, b, c uint64, negProd, negAdd bool, rm RM) (uint64, Flags) {
	if rm == RNE {
		x, y, z := math.Float64frombits(a), math.Float64frombits(b), math.Float64frombits(c)
		if negProd {
			x = -x
		}
		if negAdd {
			z = -z
		}
		s := math.FMA(x, y, z)
		if r := math.Float64bits(s); exp64(r) >= minFastExp64 && exp64(r) != 0x7ff {
			// s is exact iff x×y = s - z. Split s - z = d + t exactly
			// (TwoSum) and look at g = RN(x×y - d): if s is exact,
			// x×y - d = t, a double, so g = t. With t = 0, g = 0 proves
			// exactness when x×y - d cannot underflow to 0; with t ≠ 0,
			// g = t proves nothing and the exact path decides.
			d := s - z
			t := twoSumErr(s, -z, d)
			g := math.FMA(x, y, -d)
			switch {
			case t == 0 && g != 0:
				return r, NX
			case t == 0 && productResidualExact64(a, b):
				return r, 0
			case t != 0 && finite(t) && g != t:
				return r, NX
			}
		}
	}
	return f64.mulAdd(a, b, c, negProd, negAdd, rm)
}

// Min64 is fmin.d (IEEE 754-2019 minimumNumber): the smaller of a and b,
// -0 below +0; a NaN operand yields the other operand and two NaNs the
// canonical NaN; NV if either is a signalling NaN.
func Min64(a, b uint64) (uint64, Flags) { return f64.minMax(a, b, false) }

// Max64 is fmax.d (IEEE 754-2019 maximumNumber), the mirror of Min64.
func Max64(a, b uint64) (uint64, Flags) { return f64.minMax(a, b, true) }

// nan64 reports whether x is a NaN.
func nan64(x uint64) bool { return x&^(1<<63) > 0x7ff0000000000000 }

// key64 maps a double that is not a NaN to an int64 of the same order,
// both zeros to 0: the magnitude, negated for a negative sign.
func key64(x uint64) int64 {
	m, s := int64(x&^(1<<63)), int64(x)>>63
	return (m ^ s) - s
}

// Eq64 is feq.d: a quiet comparison, false for NaNs, NV only for a
// signalling NaN; +0 equals -0.
func Eq64(a, b uint64) (bool, Flags) {
	if nan64(a) || nan64(b) {
		_, fl := f64.nanResult(false, a, b)
		return false, fl
	}
	return key64(a) == key64(b), 0
}

// Lt64 is flt.d: a signalling comparison, false with NV for any NaN.
func Lt64(a, b uint64) (bool, Flags) {
	if nan64(a) || nan64(b) {
		return false, NV
	}
	return key64(a) < key64(b), 0
}

// Le64 is fle.d: a signalling comparison, false with NV for any NaN.
func Le64(a, b uint64) (bool, Flags) {
	if nan64(a) || nan64(b) {
		return false, NV
	}
	return key64(a) <= key64(b), 0
}

// Class64 is fclass.d: a 10-bit mask with exactly one bit set, bit 0
// -inf, 1 negative normal, 2 negative subnormal, 3 -0, 4 +0, 5 positive
// subnormal, 6 positive normal, 7 +inf, 8 signalling NaN, 9 quiet NaN.
func Class64(a uint64) uint64 { return f64.class(a) }

// hostToInt rounds x to an integer under rm with the host's exact
// rounding functions, for |x| < 2^62 where the result cannot leave the
// range of any conversion that accepted x: the conversions' fast path.
func hostToInt(x float64, rm RM) (uint64, Flags) {
	var y float64
	switch rm {
	case RNE:
		y = math.RoundToEven(x)
	case RTZ:
		y = math.Trunc(x)
	case RDN:
		y = math.Floor(x)
	case RUP:
		y = math.Ceil(x)
	default:
		y = math.Round(x) // ties away from zero
	}
	if y != x {
		return uint64(int64(y)), NX
	}
	return uint64(int64(y)), 0
}

// The fast paths of the conversions to integers take operands of
// magnitude below 2^30 (W forms) or 2^62 (L forms) — nonnegative ones
// for the unsigned kinds — where rounding cannot leave the range.
const (
	fastW64 = 1023 + 30
	fastL64 = 1023 + 62
)

// F64ToI32 is fcvt.w.d: a rounded to an int32 under rm, returned
// sign-extended to 64 bits. NaN and values above the range give
// 0x7fffffff, values below it -2^31; those raise NV and not NX. An
// in-range inexact conversion raises NX.
func F64ToI32(a uint64, rm RM) (uint64, Flags) {
	if exp64(a) < fastW64 {
		return hostToInt(math.Float64frombits(a), rm)
	}
	return f64.toInt(a, rm, kindW)
}

// F64ToU32 is fcvt.wu.d: a rounded to a uint32 under rm, returned (as
// the ISA writes rd) sign-extended from bit 31. NaN and values above the
// range give 0xffffffff (so all ones), negative values that round to a
// nonzero integer give 0; those raise NV only. -0.5 under RTZ is 0 with
// NX only.
func F64ToU32(a uint64, rm RM) (uint64, Flags) {
	if a < fastW64<<52 {
		return hostToInt(math.Float64frombits(a), rm)
	}
	return f64.toInt(a, rm, kindWU)
}

// F64ToI64 is fcvt.l.d: a rounded to an int64 under rm, saturating like
// F64ToI32 at 2^63-1 and -2^63.
func F64ToI64(a uint64, rm RM) (uint64, Flags) {
	if exp64(a) < fastL64 {
		return hostToInt(math.Float64frombits(a), rm)
	}
	return f64.toInt(a, rm, kindL)
}

// F64ToU64 is fcvt.lu.d: a rounded to a uint64 under rm, saturating like
// F64ToU32 at 2^64-1 and 0.
func F64ToU64(a uint64, rm RM) (uint64, Flags) {
	if a < fastL64<<52 {
		return hostToInt(math.Float64frombits(a), rm)
	}
	return f64.toInt(a, rm, kindLU)
}

// I32ToF64 is fcvt.d.w: always exact, so rm is only for symmetry.
func I32ToF64(x int32, rm RM) (uint64, Flags) {
	return math.Float64bits(float64(x)), 0
}

// U32ToF64 is fcvt.d.wu: always exact.
func U32ToF64(x uint32, rm RM) (uint64, Flags) {
	return math.Float64bits(float64(x)), 0
}

// I64ToF64 is fcvt.d.l: x rounded under rm, NX when |x| > 2^53 needs it.
func I64ToF64(x int64, rm RM) (uint64, Flags) {
	if -1<<53 <= x && x <= 1<<53 { // exact
		return math.Float64bits(float64(x)), 0
	}
	if x < 0 {
		return f64.fromInt(true, -uint64(x), rm)
	}
	return f64.fromInt(false, uint64(x), rm)
}

// U64ToF64 is fcvt.d.lu: x rounded under rm.
func U64ToF64(x uint64, rm RM) (uint64, Flags) {
	if x <= 1<<53 {
		return math.Float64bits(float64(x)), 0
	}
	return f64.fromInt(false, x, rm)
}

// F32ToF64 is fcvt.d.s: exact; a NaN becomes the canonical NaN, with NV
// if it was signalling.
func F32ToF64(a uint32) (uint64, Flags) { return convert(f64, f32, uint64(a), RNE) }

// F64ToF32 is fcvt.s.d: a rounded to single precision under rm, with
// OF, UF and NX as for arithmetic, and the canonical NaN (NV if
// signalling) for a NaN.
func F64ToF32(a uint64, rm RM) (uint32, Flags) {
	r, fl := convert(f32, f64, a, rm)
	return uint32(r), fl
}
