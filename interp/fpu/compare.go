// fmin/fmax and fclass for either format: operand bit patterns -> result and flags (the comparisons, which are hotter, are written per format).

package fpu

// key maps a non-NaN bit pattern to an integer with the same order as
// the value it encodes; +0 and -0 share key 0.
func (f *format) key(x uint64) int64 {
	m := int64(x &^ f.sign)
	if x&f.sign != 0 {
		return -m
	}
	return m
}

// minMax is fmin (max false) and fmax (max true) as IEEE 754-2019
// minimumNumber/maximumNumber, which RISC-V adopted in spec version 2.2:
// a NaN operand yields the other operand, two NaNs the canonical NaN,
// a signalling NaN raises NV either way, and -0 is below +0.
func (f *format) minMax(a, b uint64, max bool) (uint64, Flags) {
	an, bn := f.isNaN(a), f.isNaN(b)
	if an || bn {
		r, fl := f.nanResult(false, a, b)
		switch {
		case an && bn:
		case an:
			r = b
		default:
			r = a
		}
		return r, fl
	}
	ka, kb := f.key(a), f.key(b)
	if ka == kb { // equal, or +0 and -0: min takes the negative one
		if f.neg(a) != max {
			return a, 0
		}
		return b, 0
	}
	if ka < kb != max {
		return a, 0
	}
	return b, 0
}

// The fclass result bits: exactly one is set.
const (
	classNegInf       = 1 << 0
	classNegNormal    = 1 << 1
	classNegSubnormal = 1 << 2
	classNegZero      = 1 << 3
	classPosZero      = 1 << 4
	classPosSubnormal = 1 << 5
	classPosNormal    = 1 << 6
	classPosInf       = 1 << 7
	classSNaN         = 1 << 8
	classQNaN         = 1 << 9
)

// class is fclass: the one-hot 10-bit mask of what x is.
func (f *format) class(x uint64) uint64 {
	neg := f.neg(x)
	pick := func(n, p uint64) uint64 {
		if neg {
			return n
		}
		return p
	}
	switch f.kind(x) {
	case kZero:
		return pick(classNegZero, classPosZero)
	case kInf:
		return pick(classNegInf, classPosInf)
	case kQNaN:
		return classQNaN
	case kSNaN:
		return classSNaN
	}
	if x&^f.sign < f.quiet<<1 { // exponent field zero
		return pick(classNegSubnormal, classPosSubnormal)
	}
	return pick(classNegNormal, classPosNormal)
}
