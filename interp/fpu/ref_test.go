// An independent reference built on math/big: operands -> the exactly rounded result and flags, for the fuzz and random tests.

package fpu

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigMode maps a rounding mode to big's.
var bigMode = [...]big.RoundingMode{
	RNE: big.ToNearestEven,
	RTZ: big.ToZero,
	RDN: big.ToNegativeInf,
	RUP: big.ToPositiveInf,
	RMM: big.ToNearestAway,
}

// refFormat is what the reference needs of a format.
type refFormat struct {
	prec       int
	emin, emax int
	f          *format
}

var (
	ref64 = refFormat{53, -1022, 1023, f64}
	ref32 = refFormat{24, -126, 127, f32}
)

// bigOf converts a finite bit pattern to an exact big.Float.
func (r refFormat) bigOf(x uint64) *big.Float {
	if r.prec == 24 {
		return new(big.Float).SetFloat64(float64(math.Float32frombits(uint32(x))))
	}
	return new(big.Float).SetFloat64(math.Float64frombits(x))
}

func (r refFormat) bitsOf(x *big.Float) uint64 {
	if r.prec == 24 {
		v, _ := x.Float32()
		return uint64(math.Float32bits(v))
	}
	v, _ := x.Float64()
	return math.Float64bits(v)
}

// round rounds x, which is exact, or which stands for a value strictly
// beyond it in magnitude when sticky is set, to the format under rm, by
// the IEEE 754 rules with tininess after rounding. x must be nonzero.
func (r refFormat) round(x *big.Float, sticky bool, rm RM) (uint64, Flags) {
	mode := bigMode[rm]
	if sticky { // nudge: beyond x, below the next 400-bit neighbour
		eps := new(big.Float).SetMantExp(big.NewFloat(1), x.MantExp(nil)-400)
		if x.Signbit() {
			eps.Neg(eps)
		}
		x = new(big.Float).SetPrec(0).Add(new(big.Float).SetPrec(1000).Set(x), eps)
	}
	lead := x.MantExp(nil) - 1 // |x| in [2^lead, 2^(lead+1))
	// Unbounded-exponent rounding decides overflow and tininess.
	u := new(big.Float).SetMode(mode).SetPrec(uint(r.prec)).Set(x)
	ulead := u.MantExp(nil) - 1
	if ulead > r.emax {
		return r.f.overflow(x.Signbit(), rm), OF | NX
	}
	tiny := ulead < r.emin
	var y *big.Float
	if lead >= r.emin {
		y = u
	} else {
		p := r.prec - (r.emin - lead)
		if p >= 1 {
			y = new(big.Float).SetMode(mode).SetPrec(uint(p)).Set(x)
		} else {
			// Below the smallest subnormal q: 0 or q.
			q := new(big.Float).SetMantExp(big.NewFloat(1), r.emin-r.prec+1)
			half := new(big.Float).SetMantExp(big.NewFloat(1), r.emin-r.prec)
			abs := new(big.Float).Abs(x)
			up := false
			switch rm {
			case RNE:
				up = abs.Cmp(half) > 0
			case RMM:
				up = abs.Cmp(half) >= 0
			case RUP:
				up = !x.Signbit()
			case RDN:
				up = x.Signbit()
			}
			y = new(big.Float)
			if up {
				y.Set(q)
			}
			if x.Signbit() {
				y.Neg(y)
			}
		}
	}
	var fl Flags
	if y.Cmp(x) != 0 {
		fl = NX
		if tiny {
			fl |= UF
		}
	}
	if y.Sign() == 0 && x.Signbit() {
		return r.f.sign, fl
	}
	return r.bitsOf(y), fl
}

// refArith computes op on finite nonzero operands with big.Float and
// rounds once. ok is false for operands it does not handle (specials).
func refArith(r refFormat, op string, a, b, c uint64, rm RM) (res uint64, fl Flags, ok bool) {
	f := r.f
	for _, x := range []uint64{a, b, c}[:arityOf(op)] {
		if f.kind(x) != kFinite {
			return 0, 0, false
		}
	}
	const exact = 4000 // bits: from 2^1024 down to the last bit of a product of subnormals, 2^-2148
	var ops [3]*big.Float
	for i, x := range []uint64{a, b, c}[:arityOf(op)] {
		ops[i] = r.bigOf(x)
	}
	A, B, C := ops[0], ops[1], ops[2]
	z := new(big.Float).SetPrec(exact)
	sticky := false
	opposite := false // an exact zero result came from opposite signs
	switch op {
	case "add":
		z.Add(A, B)
		opposite = true
	case "sub":
		z.Sub(A, B)
		opposite = true
	case "mul":
		z.Mul(A, B)
	case "div":
		z.SetMode(big.ToZero).Quo(A, B)
		sticky = z.Acc() != big.Exact
	case "sqrt":
		if A.Signbit() {
			return f.nan, NV, true
		}
		z.SetMode(big.ToZero).Sqrt(A)
		sticky = z.Acc() != big.Exact
	case "fmadd", "fmsub", "fnmsub", "fnmadd":
		p := new(big.Float).SetPrec(exact).Mul(A, B)
		if op == "fnmsub" || op == "fnmadd" {
			p.Neg(p)
		}
		if op == "fmsub" || op == "fnmadd" {
			C.Neg(C)
		}
		z.Add(p, C)
		opposite = true
	default:
		panic(op)
	}
	if z.Sign() == 0 {
		if opposite && rm == RDN {
			return f.sign, 0, true
		}
		return 0, 0, true
	}
	res, fl = r.round(z, sticky, rm)
	return res, fl, true
}

func arityOf(op string) int {
	switch op {
	case "sqrt":
		return 1
	case "fmadd", "fmsub", "fnmsub", "fnmadd":
		return 3
	}
	return 2
}

// refOps pairs the reference's operation names with the instructions.
var refOps = []struct {
	op   string
	d, s string // mnemonics for doubles and singles
}{
	{"add", "fadd.d", "fadd.s"}, {"sub", "fsub.d", "fsub.s"}, {"mul", "fmul.d", "fmul.s"},
	{"div", "fdiv.d", "fdiv.s"}, {"sqrt", "fsqrt.d", "fsqrt.s"},
	{"fmadd", "fmadd.d", "fmadd.s"}, {"fmsub", "fmsub.d", "fmsub.s"},
	{"fnmsub", "fnmsub.d", "fnmsub.s"}, {"fnmadd", "fnmadd.d", "fnmadd.s"},
}

// slowPath runs the exact core directly, bypassing the fast paths.
func slowPath(r refFormat, op string, a, b, c uint64, rm RM) (uint64, Flags) {
	f := r.f
	switch op {
	case "add":
		return f.add(a, b, rm)
	case "sub":
		return f.add(a, b^f.sign, rm)
	case "mul":
		return f.mul(a, b, rm)
	case "div":
		return f.div(a, b, rm)
	case "sqrt":
		return f.sqrt(a, rm)
	case "fmadd":
		return f.mulAdd(a, b, c, false, false, rm)
	case "fmsub":
		return f.mulAdd(a, b, c, false, true, rm)
	case "fnmsub":
		return f.mulAdd(a, b, c, true, false, rm)
	}
	return f.mulAdd(a, b, c, true, true, rm)
}

// checkRef runs one case through the package, the exact core and the
// big.Float reference and reports any disagreement.
func checkRef(t *testing.T, k int, single bool, a, b, c uint64, rm RM) {
	t.Helper()
	ro := refOps[k%len(refOps)]
	r, name := ref64, ro.d
	if single {
		r, name = ref32, ro.s
		a, b, c = a&0xffffffff, b&0xffffffff, c&0xffffffff
	}
	got, gfl := instrByName[name].run(a, b, c, rm)
	slow, sfl := slowPath(r, ro.op, a, b, c, rm)
	if got != slow || gfl != sfl {
		t.Errorf("%s %v %#x %#x %#x: exported %#x %v, core %#x %v", name, rm, a, b, c, got, gfl, slow, sfl)
	}
	want, wfl, ok := refArith(r, ro.op, a, b, c, rm)
	if ok && (got != want || gfl != wfl) {
		t.Errorf("%s %v %#x %#x %#x: got %#x %v, big.Float says %#x %v", name, rm, a, b, c, got, gfl, want, wfl)
	}
}

// FuzzArith checks the arithmetic instructions against math/big and the
// fast paths against the exact core: go test -fuzz FuzzArith.
func FuzzArith(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint64(dOne), uint64(dHalfUlp), uint64(0))
	f.Add(uint8(2), uint8(1), uint64(0x3fefffffff800000), uint64(0x0010000000400000), uint64(0))
	f.Add(uint8(5), uint8(0), uint64(dOneUlp), uint64(dBelow1), uint64(dNegOne))
	f.Add(uint8(9+5), uint8(0), uint64(0x3f800800), uint64(0x3f800800), uint64(0x21800000))
	f.Add(uint8(3), uint8(4), uint64(dMinSub), uint64(0x4008000000000000), uint64(0))
	f.Add(uint8(4), uint8(3), uint64(dTwo), uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, op, rm uint8, a, b, c uint64) {
		k := int(op) % (2 * len(refOps))
		checkRef(t, k, k >= len(refOps), a, b, c, RM(rm%5))
	})
}

// TestAgainstBig runs structured random operands (the oracle's
// generator, another seed) through checkRef: more cases than the golden
// file can hold, for the arithmetic that a big.Float can vouch for.
func TestAgainstBig(t *testing.T) {
	n := 30000
	if testing.Short() {
		n = 3000
	}
	g := &gen{rand.NewPCG(7, 11)}
	for i := range n {
		single := i%2 == 1
		d := d64
		if single {
			d = d32
		}
		a := g.float(d)
		var b uint64
		switch g.n(3) {
		case 0:
			b = g.float(d)
		case 1:
			b = g.near(d, a)
		default:
			a, b = g.scaled(d, g.n(2) == 0)
		}
		c := g.near(d, roundedProduct(d, a, b)^d.sign)
		if g.n(2) == 0 {
			c = g.float(d)
		}
		checkRef(t, g.n(len(refOps)), single, a, b, c, RM(g.n(5)))
		if t.Failed() {
			return
		}
	}
}

// refToInt rounds a finite x to an integer under rm with big.Int and
// applies the ISA's saturation: the reference for fcvt.{w,wu,l,lu}.
func refToInt(r refFormat, x uint64, rm RM, k intKind) (uint64, Flags) {
	lo, hi := new(big.Int), new(big.Int)
	switch {
	case k.signed:
		hi.Lsh(big.NewInt(1), uint(k.bits-1)).Sub(hi, big.NewInt(1))
		lo.Neg(new(big.Int).Add(hi, big.NewInt(1)))
	default:
		hi.Lsh(big.NewInt(1), uint(k.bits)).Sub(hi, big.NewInt(1))
	}
	out := func(v *big.Int) uint64 {
		u := v.Uint64()
		if v.Sign() < 0 {
			u = uint64(v.Int64())
		}
		if k.bits == 32 {
			return uint64(int64(int32(uint32(u))))
		}
		return u
	}
	X := r.bigOf(x)
	t, _ := X.Int(nil) // towards zero
	frac := new(big.Float).SetPrec(2000).Sub(X, new(big.Float).SetInt(t))
	half := big.NewFloat(0.5)
	absFrac := new(big.Float).Abs(frac)
	away := false
	switch rm {
	case RNE:
		c := absFrac.Cmp(half)
		away = c > 0 || c == 0 && t.Bit(0) == 1
	case RMM:
		away = absFrac.Cmp(half) >= 0
	case RDN:
		away = frac.Sign() < 0
	case RUP:
		away = frac.Sign() > 0
	}
	if away {
		t.Add(t, big.NewInt(int64(X.Sign())))
	}
	if t.Cmp(lo) < 0 {
		return out(lo), NV
	}
	if t.Cmp(hi) > 0 {
		return out(hi), NV
	}
	if frac.Sign() != 0 {
		return out(t), NX
	}
	return out(t), 0
}

// The conversions refConvert knows, by index: to integer from double
// (0-3) and single (4-7), from integer to double (8-11) and single
// (12-15), then fcvt.s.d and fcvt.d.s.
var (
	convKinds   = []intKind{kindW, kindWU, kindL, kindLU}
	convToInt   = []string{"fcvt.w.d", "fcvt.wu.d", "fcvt.l.d", "fcvt.lu.d", "fcvt.w.s", "fcvt.wu.s", "fcvt.l.s", "fcvt.lu.s"}
	convFromInt = []string{"fcvt.d.w", "fcvt.d.wu", "fcvt.d.l", "fcvt.d.lu", "fcvt.s.w", "fcvt.s.wu", "fcvt.s.l", "fcvt.s.lu"}
)

const numConv = 18

// refConvert is the reference for conversion k of operand x (masked to
// the operand's width). ok is false when x is a special value.
func refConvert(k int, x uint64, rm RM) (name string, xm, want uint64, fl Flags, ok bool) {
	switch {
	case k < 8:
		r := ref64
		if k >= 4 {
			r, x = ref32, x&0xffffffff
		}
		if r.f.kind(x) != kFinite {
			return "", 0, 0, 0, false
		}
		want, fl = refToInt(r, x, rm, convKinds[k%4])
		return convToInt[k], x, want, fl, true
	case k < 16:
		r := ref64
		if k >= 12 {
			r = ref32
		}
		var v *big.Float
		switch convKinds[k%4] {
		case kindW:
			v = new(big.Float).SetInt64(int64(int32(x)))
		case kindWU:
			v = new(big.Float).SetUint64(uint64(uint32(x)))
		case kindL:
			v = new(big.Float).SetInt64(int64(x))
		default:
			v = new(big.Float).SetUint64(x)
		}
		if v.Sign() != 0 {
			want, fl = r.round(v, false, rm)
		}
		return convFromInt[k-8], x, want, fl, true
	case k == 16:
		if f64.kind(x) != kFinite {
			return "", 0, 0, 0, false
		}
		want, fl = ref32.round(ref64.bigOf(x), false, rm)
		return "fcvt.s.d", x, want, fl, true
	}
	x &= 0xffffffff
	if f32.kind(x) != kFinite {
		return "", 0, 0, 0, false
	}
	want, fl = ref64.round(ref32.bigOf(x), false, rm)
	return "fcvt.d.s", x, want, fl, true
}

func checkConvert(t *testing.T, k int, x uint64, rm RM) {
	t.Helper()
	name, x, want, wfl, ok := refConvert(k, x, rm)
	if !ok {
		return
	}
	got, gfl := instrByName[name].run(x, 0, 0, rm)
	if got != want || gfl != wfl {
		t.Errorf("%s %v %#x: got %#x %v, big says %#x %v", name, rm, x, got, gfl, want, wfl)
	}
}

// FuzzConvert checks the conversions of finite values and of integers
// against math/big: go test -fuzz FuzzConvert.
func FuzzConvert(f *testing.F) {
	f.Add(uint8(1), uint8(1), uint64(dNegHalf))
	f.Add(uint8(1), uint8(0), uint64(0x41effffffff00000))
	f.Add(uint8(10), uint8(0), uint64(1<<53+1))
	f.Add(uint8(16), uint8(2), uint64(dMinNorm|1<<63))
	f.Fuzz(func(t *testing.T, op, rm uint8, x uint64) {
		checkConvert(t, int(op)%numConv, x, RM(rm%5))
	})
}

// TestConvertAgainstBig feeds the generator's operands to the
// conversion checks without fuzzing.
func TestConvertAgainstBig(t *testing.T) {
	g := &gen{rand.NewPCG(13, 17)}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		k := g.n(numConv)
		var x uint64
		switch {
		case k < 4 || k == 16:
			x = g.float(d64)
		case k < 8 || k == 17:
			x = g.float(d32)
		default:
			x = g.integer()
		}
		checkConvert(t, k, x, RM(g.n(5)))
		if t.Failed() {
			return
		}
	}
}
