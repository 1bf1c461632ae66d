// Exact arithmetic for either format: operand bit patterns and a rounding mode -> result bit pattern and flags.

package fpu

import (
	"math"
	"math/bits"
)

// nanResult is the result of an operation with a NaN operand (or an
// invalid one): the canonical NaN, with NV when invalid is set or any of
// xs is a signalling NaN.
func (f *format) nanResult(invalid bool, xs ...uint64) (uint64, Flags) {
	for _, x := range xs {
		if f.isSNaN(x) {
			invalid = true
		}
	}
	if invalid {
		return f.nan, NV
	}
	return f.nan, 0
}

// add returns a+b rounded under rm.
func (f *format) add(a, b uint64, rm RM) (uint64, Flags) {
	ka, kb := f.kind(a), f.kind(b)
	switch {
	case ka >= kQNaN || kb >= kQNaN:
		return f.nanResult(false, a, b)
	case ka == kInf:
		if kb == kInf && f.neg(a) != f.neg(b) {
			return f.nan, NV // inf - inf
		}
		return a, 0
	case kb == kInf:
		return b, 0
	case ka == kZero:
		if kb == kZero && a != b {
			return f.zeroSum(rm), 0 // +0 + -0
		}
		return b, 0
	case kb == kZero:
		return a, 0
	}
	na, ea, sa := f.unpack(a)
	nb, eb, sb := f.unpack(b)
	if ea < eb || ea == eb && sa < sb { // make |a| >= |b|
		na, ea, sa, nb, eb, sb = nb, eb, sb, na, ea, sa
	}
	// Two spare bits on top hold the carry; the operands' low bits are
	// zero (prec <= 53), so this shift loses nothing.
	sa >>= 2
	sb = shiftRightJam(sb>>2, ea-eb)
	var s uint64
	if na == nb {
		s = sa + sb
	} else {
		s = sa - sb
		if s == 0 {
			return f.zeroSum(rm), 0
		}
	}
	exp, sig := normalize(ea+2, s)
	return f.round(na, exp, sig, rm)
}

// mul returns a×b rounded under rm.
func (f *format) mul(a, b uint64, rm RM) (uint64, Flags) {
	ka, kb := f.kind(a), f.kind(b)
	s := (a ^ b) & f.sign
	switch {
	case ka >= kQNaN || kb >= kQNaN:
		return f.nanResult(false, a, b)
	case ka == kInf || kb == kInf:
		if ka == kZero || kb == kZero {
			return f.nan, NV // 0 × inf
		}
		return s | f.inf, 0
	case ka == kZero || kb == kZero:
		return s, 0
	}
	na, ea, sa := f.unpack(a)
	nb, eb, sb := f.unpack(b)
	hi, lo := bits.Mul64(sa, sb) // in [2^126, 2^128)
	exp := ea + eb + 1
	if hi>>63 == 0 {
		hi, lo = hi<<1|lo>>63, lo<<1
		exp--
	}
	if lo != 0 {
		hi |= 1
	}
	return f.round(na != nb, exp, hi, rm)
}

// div returns a/b rounded under rm.
func (f *format) div(a, b uint64, rm RM) (uint64, Flags) {
	ka, kb := f.kind(a), f.kind(b)
	s := (a ^ b) & f.sign
	switch {
	case ka >= kQNaN || kb >= kQNaN:
		return f.nanResult(false, a, b)
	case ka == kInf:
		if kb == kInf {
			return f.nan, NV // inf / inf
		}
		return s | f.inf, 0
	case kb == kInf:
		return s, 0
	case kb == kZero:
		if ka == kZero {
			return f.nan, NV // 0 / 0
		}
		return s | f.inf, DZ
	case ka == kZero:
		return s, 0
	}
	na, ea, sa := f.unpack(a)
	nb, eb, sb := f.unpack(b)
	// A 64-bit quotient with its leading one at bit 63, and the
	// remainder as sticky bit.
	var q, r uint64
	exp := ea - eb
	if sa >= sb {
		q, r = bits.Div64(sa>>1, sa<<63, sb) // sa×2^63 / sb
	} else {
		q, r = bits.Div64(sa, 0, sb) // sa×2^64 / sb
		exp--
	}
	if r != 0 {
		q |= 1
	}
	return f.round(na != nb, exp, q, rm)
}

// sqrt returns the square root of a rounded under rm.
func (f *format) sqrt(a uint64, rm RM) (uint64, Flags) {
	switch f.kind(a) {
	case kQNaN, kSNaN:
		return f.nanResult(false, a)
	case kZero:
		return a, 0 // sqrt(-0) = -0
	}
	if f.neg(a) {
		return f.nan, NV
	}
	if f.kind(a) == kInf {
		return a, 0
	}
	_, e, sig := f.unpack(a)
	// Make the exponent of sig × 2^k even so the root's is exact:
	// sqrt(sig × 2^k) × 2^((e-63-k)/2), with sig × 2^k in [2^126, 2^128).
	var hi, lo uint64
	if e&1 != 0 {
		hi, lo = sig, 0 // k = 64
	} else {
		hi, lo = sig>>1, sig<<63 // k = 63
	}
	root, exact := isqrt128(hi, lo)
	if !exact {
		root |= 1
	}
	return f.round(false, e>>1, root, rm)
}

// isqrt128 returns floor(sqrt(hi×2^64 + lo)) for an argument in
// [2^126, 2^128 - 2^75], and whether that root is exact. A float64
// estimate is good to about 12 bits of the 64; one Newton step on the
// exact 128-bit residual brings it within a unit or two, and the last
// steps are checked exactly.
func isqrt128(hi, lo uint64) (uint64, bool) {
	est := math.Sqrt(math.Ldexp(float64(hi), 64) + float64(lo))
	r := uint64(math.MaxUint64)
	if est < 0x1p64 {
		r = uint64(est)
	}
	// Newton: r += (N - r²) / 2r, on the signed residual.
	sh, sl := bits.Mul64(r, r)
	if sh < hi || sh == hi && sl <= lo {
		dl, b := bits.Sub64(lo, sl, 0)
		dh, _ := bits.Sub64(hi, sh, b)
		q, _ := bits.Div64(dh, dl, r)
		r += q / 2
	} else {
		dl, b := bits.Sub64(sl, lo, 0)
		dh, _ := bits.Sub64(sh, hi, b)
		q, _ := bits.Div64(dh, dl, r)
		r -= q / 2
	}
	for { // r² > N: too big
		sh, sl = bits.Mul64(r, r)
		if sh < hi || sh == hi && sl <= lo {
			break
		}
		r--
	}
	for r != math.MaxUint64 { // (r+1)² <= N: too small
		th, tl := bits.Mul64(r+1, r+1)
		if th > hi || th == hi && tl > lo {
			break
		}
		r++
		sh, sl = th, tl
	}
	return r, sh == hi && sl == lo
}

// mulAdd returns ±(a×b) ± c with a single rounding under rm: negProd
// negates the product and negAdd the addend, which gives fmadd (neither),
// fmsub (negAdd), fnmsub (negProd) and fnmadd (both).
func (f *format) mulAdd(a, b, c uint64, negProd, negAdd bool, rm RM) (uint64, Flags) {
	ka, kb, kc := f.kind(a), f.kind(b), f.kind(c)
	// 0 × inf is invalid even when c is a quiet NaN: RISC-V raises NV
	// there (IEEE 754 leaves it to the implementation).
	if ka == kInf && kb == kZero || ka == kZero && kb == kInf {
		return f.nan, NV
	}
	if ka >= kQNaN || kb >= kQNaN || kc >= kQNaN {
		return f.nanResult(false, a, b, c)
	}
	np := f.neg(a) != f.neg(b) != negProd
	nc := f.neg(c) != negAdd
	switch {
	case ka == kInf || kb == kInf:
		if kc == kInf && nc != np {
			return f.nan, NV // inf - inf
		}
		return f.signOf(np) | f.inf, 0
	case kc == kInf:
		return f.signOf(nc) | f.inf, 0
	case ka == kZero || kb == kZero:
		if kc == kZero && np != nc {
			return f.zeroSum(rm), 0
		}
		if kc == kZero {
			return f.signOf(np), 0
		}
		return c ^ f.signOf(negAdd), 0
	}
	_, ea, sa := f.unpack(a)
	_, eb, sb := f.unpack(b)
	// Both terms as S × 2^(E-127) with S below 2^127, which leaves a
	// spare bit on top for the carry: the exact product (its low 21 bits
	// are zero, since each significand has at most 53 bits) ...
	ph, pl := bits.Mul64(sa, sb)
	ph, pl = ph>>1, pl>>1|ph<<63
	ep := ea + eb + 2
	if kc == kZero {
		exp, hi := normalize128(ep, ph, pl)
		return f.round(np, exp, hi, rm)
	}
	// ... and c.
	_, ec, sc := f.unpack(c)
	ch, cl := sc>>1, sc<<63
	ec++

	// Align the smaller exponent to the larger. Bits shifted out are
	// jammed into bit 0; that can only happen when the exponents differ
	// by more than 2, and then the sum keeps at least 124 bits above
	// bit 0, far more than any rounding looks at.
	exp := ep
	if ec > ep {
		ph, pl = shiftRight128Jam(ph, pl, ec-ep)
		exp = ec
	} else {
		ch, cl = shiftRight128Jam(ch, cl, ep-ec)
	}
	var sh, sl uint64
	neg := np
	if np == nc {
		var carry uint64
		sl, carry = bits.Add64(pl, cl, 0)
		sh, _ = bits.Add64(ph, ch, carry)
	} else {
		if ph < ch || ph == ch && pl < cl {
			ph, pl, ch, cl = ch, cl, ph, pl
			neg = nc
		}
		var borrow uint64
		sl, borrow = bits.Sub64(pl, cl, 0)
		sh, _ = bits.Sub64(ph, ch, borrow)
		if sh == 0 && sl == 0 {
			return f.zeroSum(rm), 0
		}
	}
	e, hi := normalize128(exp, sh, sl)
	return f.round(neg, e, hi, rm)
}

// normalize128 turns S × 2^(exp-127), S nonzero, into the form round
// takes: its top 64 bits, leading one at bit 63, with the rest jammed
// into bit 0, and the exponent of that leading one.
func normalize128(exp int, hi, lo uint64) (int, uint64) {
	var lz int
	if hi == 0 {
		hi, lo = lo, 0
		lz = 64
	}
	n := bits.LeadingZeros64(hi)
	if n > 0 {
		hi, lo = hi<<uint(n)|lo>>uint(64-n), lo<<uint(n)
	}
	lz += n
	if lo != 0 {
		hi |= 1
	}
	return exp - lz, hi
}

// shiftRight128Jam is shiftRightJam for a 128-bit hi:lo.
func shiftRight128Jam(hi, lo uint64, n int) (uint64, uint64) {
	switch {
	case n <= 0:
		return hi, lo
	case n >= 128:
		if hi|lo != 0 {
			return 0, 1
		}
		return 0, 0
	case n >= 64:
		sticky := lo != 0 || hi<<uint(128-n) != 0 // 0 when n = 64
		lo = hi >> uint(n-64)
		if sticky {
			lo |= 1
		}
		return 0, lo
	}
	sticky := lo<<uint(64-n) != 0
	lo = lo>>uint(n) | hi<<uint(64-n)
	if sticky {
		lo |= 1
	}
	return hi >> uint(n), lo
}
