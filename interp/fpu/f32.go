// The F extension: single-precision bit patterns (uint32) and a rounding mode -> result and flags.

package fpu

import "math"

// exp32 returns the biased exponent field of a single.
func exp32(x uint32) uint32 { return x >> 23 & 0xff }

// fastResult32 reports whether a round-to-nearest single result may be
// taken from the fast path: finite, and at least 2^-125 so that UF
// cannot be due (see minFastExp64).
func fastResult32(r uint32) bool {
	e := exp32(r)
	return e >= 2 && e != 0xff
}

// The single-precision fast paths compute in float64. A product of
// singles is exact there; a quotient or square root rounded to float64
// and then to float32 is the correctly rounded float32 result, since 53 >=
// 2×24+2 makes double rounding innocuous for those operations.

// Add32 is fadd.s: a+b rounded under rm (see Add64).
func Add32(a, b uint32, rm RM) (uint32, Flags) {
	if rm == RNE {
		x, y := math.Float32frombits(a), math.Float32frombits(b)
		s := x + y
		if r := math.Float32bits(s); exp32(r) != 0xff {
			if s-x == y && s-y == x { // see sumExact
				return r, 0
			}
			return r, NX
		}
	}
	r, fl := f32.add(uint64(a), uint64(b), rm)
	return uint32(r), fl
}

// Sub32 is fsub.s: a + (-b).
func Sub32(a, b uint32, rm RM) (uint32, Flags) {
	return Add32(a, b^uint32(f32.sign), rm)
}

// Mul32 is fmul.s: a×b rounded under rm (see Mul64).
func Mul32(a, b uint32, rm RM) (uint32, Flags) {
	if rm == RNE {
		p := float64(math.Float32frombits(a)) * float64(math.Float32frombits(b))
		s := float32(p)
		r := math.Float32bits(s)
		if fastResult32(r) {
			if float64(s) != p {
				return r, NX
			}
			return r, 0
		} else if p == 0 { // an operand was zero (and the other finite)
			return r, 0
		}
	}
	r, fl := f32.mul(uint64(a), uint64(b), rm)
	return uint32(r), fl
}

// Div32 is fdiv.s: a/b rounded under rm (see Div64).
func Div32(a, b uint32, rm RM) (uint32, Flags) {
	if rm == RNE {
		x, y := float64(math.Float32frombits(a)), float64(math.Float32frombits(b))
		q := float32(x / y)
		r := math.Float32bits(q)
		if fastResult32(r) {
			if float64(q)*y != x { // the product of two singles is exact
				return r, NX
			}
			return r, 0
		} else if q == 0 && x == 0 {
			return r, 0
		}
	}
	r, fl := f32.div(uint64(a), uint64(b), rm)
	return uint32(r), fl
}

// Sqrt32 is fsqrt.s: the square root of a rounded under rm (see Sqrt64).
func Sqrt32(a uint32, rm RM) (uint32, Flags) {
	if rm == RNE && a>>31 == 0 && a-1 < 0x7f7fffff { // positive, finite, nonzero
		x := float64(math.Float32frombits(a))
		s := float32(math.Sqrt(x))
		r := math.Float32bits(s)
		if float64(s)*float64(s) != x {
			return r, NX
		}
		return r, 0
	}
	r, fl := f32.sqrt(uint64(a), rm)
	return uint32(r), fl
}

// MulAdd32 is the fused multiply-add family on singles (see MulAdd64).
func MulAdd32(a, b, c uint32, negProd, negAdd bool, rm RM) (uint32, Flags) {
	if rm == RNE {
		x, y, z := float64(math.Float32frombits(a)), float64(math.Float32frombits(b)), float64(math.Float32frombits(c))
		if negProd {
			x = -x
		}
		if negAdd {
			z = -z
		}
		p := x * y // exact, so fusing p + z into an FMA changes nothing
		s := p + z
		if finite(s) {
			// p + z = s + e exactly. Rounding s to odd (a nonzero e
			// moves an even s one ulp towards the exact sum) makes the
			// second rounding, to float32, correct: 53 >= 24+2.
			e := twoSumErr(p, z, s)
			if e != 0 {
				if sb := math.Float64bits(s); sb&1 == 0 {
					if (e > 0) == (s > 0) {
						s = math.Float64frombits(sb + 1)
					} else {
						s = math.Float64frombits(sb - 1)
					}
				}
			}
			q := float32(s)
			if r := math.Float32bits(q); fastResult32(r) {
				if e != 0 || float64(q) != s {
					return r, NX
				}
				return r, 0
			}
		}
	}
	r, fl := f32.mulAdd(uint64(a), uint64(b), uint64(c), negProd, negAdd, rm)
	return uint32(r), fl
}

// Min32 is fmin.s (see Min64).
func Min32(a, b uint32) (uint32, Flags) {
	r, fl := f32.minMax(uint64(a), uint64(b), false)
	return uint32(r), fl
}

// Max32 is fmax.s (see Max64).
func Max32(a, b uint32) (uint32, Flags) {
	r, fl := f32.minMax(uint64(a), uint64(b), true)
	return uint32(r), fl
}

func nan32(x uint32) bool { return x&^(1<<31) > 0x7f800000 }

// key32 is key64 for singles.
func key32(x uint32) int32 {
	m, s := int32(x&^(1<<31)), int32(x)>>31
	return (m ^ s) - s
}

// Eq32 is feq.s (see Eq64).
func Eq32(a, b uint32) (bool, Flags) {
	if nan32(a) || nan32(b) {
		_, fl := f32.nanResult(false, uint64(a), uint64(b))
		return false, fl
	}
	return key32(a) == key32(b), 0
}

// Lt32 is flt.s (see Lt64).
func Lt32(a, b uint32) (bool, Flags) {
	if nan32(a) || nan32(b) {
		return false, NV
	}
	return key32(a) < key32(b), 0
}

// Le32 is fle.s (see Le64).
func Le32(a, b uint32) (bool, Flags) {
	if nan32(a) || nan32(b) {
		return false, NV
	}
	return key32(a) <= key32(b), 0
}

// Class32 is fclass.s: the mask described at Class64.
func Class32(a uint32) uint64 { return f32.class(uint64(a)) }

// The conversions' fast-path bounds for singles (see fastW64).
const (
	fastW32 = 127 + 30
	fastL32 = 127 + 62
)

// F32ToI32 is fcvt.w.s (see F64ToI32); the result is sign-extended.
func F32ToI32(a uint32, rm RM) (uint64, Flags) {
	if exp32(a) < fastW32 {
		return hostToInt(float64(math.Float32frombits(a)), rm)
	}
	return f32.toInt(uint64(a), rm, kindW)
}

// F32ToU32 is fcvt.wu.s (see F64ToU32); the result is sign-extended from
// bit 31.
func F32ToU32(a uint32, rm RM) (uint64, Flags) {
	if a < fastW32<<23 {
		return hostToInt(float64(math.Float32frombits(a)), rm)
	}
	return f32.toInt(uint64(a), rm, kindWU)
}

// F32ToI64 is fcvt.l.s (see F64ToI64).
func F32ToI64(a uint32, rm RM) (uint64, Flags) {
	if exp32(a) < fastL32 {
		return hostToInt(float64(math.Float32frombits(a)), rm)
	}
	return f32.toInt(uint64(a), rm, kindL)
}

// F32ToU64 is fcvt.lu.s (see F64ToU64).
func F32ToU64(a uint32, rm RM) (uint64, Flags) {
	if a < fastL32<<23 {
		return hostToInt(float64(math.Float32frombits(a)), rm)
	}
	return f32.toInt(uint64(a), rm, kindLU)
}

// I32ToF32 is fcvt.s.w: x rounded under rm (inexact beyond 2^24).
func I32ToF32(x int32, rm RM) (uint32, Flags) {
	switch {
	case -1<<24 <= x && x <= 1<<24: // exact
		return math.Float32bits(float32(x)), 0
	case x < 0:
		return from64to32(f32.fromInt(true, uint64(-int64(x)), rm))
	}
	return from64to32(f32.fromInt(false, uint64(x), rm))
}

// U32ToF32 is fcvt.s.wu: x rounded under rm.
func U32ToF32(x uint32, rm RM) (uint32, Flags) {
	if x <= 1<<24 {
		return math.Float32bits(float32(x)), 0
	}
	return from64to32(f32.fromInt(false, uint64(x), rm))
}

// I64ToF32 is fcvt.s.l: x rounded under rm.
func I64ToF32(x int64, rm RM) (uint32, Flags) {
	switch {
	case -1<<24 <= x && x <= 1<<24:
		return math.Float32bits(float32(x)), 0
	case x < 0:
		return from64to32(f32.fromInt(true, -uint64(x), rm))
	}
	return from64to32(f32.fromInt(false, uint64(x), rm))
}

// U64ToF32 is fcvt.s.lu: x rounded under rm.
func U64ToF32(x uint64, rm RM) (uint32, Flags) {
	if x <= 1<<24 {
		return math.Float32bits(float32(x)), 0
	}
	return from64to32(f32.fromInt(false, x, rm))
}

func from64to32(r uint64, fl Flags) (uint32, Flags) { return uint32(r), fl }
