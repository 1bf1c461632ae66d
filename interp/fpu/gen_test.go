// The oracle's case generator: a seed -> corner-value crossings and structured random operands for every instruction.

package fpu

import (
	"math"
	"math/rand/v2"
)

// An ocase is one differential case: an instruction, a rounding mode
// and its operands, and the result and flags the reference gave.
type ocase struct {
	in      *instr
	rm      RM
	a, b, c uint64
	res     uint64
	fl      Flags
}

// A gen draws operands. Its stream depends only on the seed, but the
// golden file stores the cases themselves, so changing the generator
// only matters when the file is regenerated.
type gen struct{ r *rand.PCG }

func (g *gen) u64() uint64 { return g.r.Uint64() }

// n returns a number in [0, k); the slight modulo bias is harmless here.
func (g *gen) n(k int) int { return int(g.u64() % uint64(k)) }

// A fdesc is what the generator needs of a format.
type fdesc struct {
	fb   int    // fraction bits
	bias int    // exponent bias
	sign uint64 // sign bit
}

var (
	d64 = fdesc{52, 1023, 1 << 63}
	d32 = fdesc{23, 127, 1 << 31}
)

func (d fdesc) maxField() int { return 2*d.bias + 1 }

func (d fdesc) pack(neg bool, field int, frac uint64) uint64 {
	x := uint64(field)<<uint(d.fb) | frac&(1<<uint(d.fb)-1)
	if neg {
		x |= d.sign
	}
	return x
}

func (d fdesc) field(x uint64) int { return int(x>>uint(d.fb)) & d.maxField() }

// frac draws a fraction the way TestFloat does: uniform bits only some
// of the time, otherwise patterns (runs of ones, lone bits, ones with a
// hole, bits only at both ends) that make exact ties, long carries and
// exact results common instead of vanishingly rare.
func (g *gen) frac(fb int) uint64 {
	mask := uint64(1)<<uint(fb) - 1
	switch g.n(9) {
	case 0, 1:
		return g.u64() & mask
	case 2:
		return 0
	case 3:
		return mask
	case 4:
		return 1 << uint(g.n(fb))
	case 5:
		return mask ^ 1<<uint(g.n(fb))
	case 6:
		i, j := g.n(fb+1), g.n(fb+1)
		if i > j {
			i, j = j, i
		}
		return (1<<uint(j) - 1) &^ (1<<uint(i) - 1)
	case 7:
		k := g.n(fb / 2)
		return (g.u64()<<uint(fb-k))&mask | g.u64()&(1<<uint(g.n(6))-1)
	}
	return mask &^ (1<<uint(g.n(fb)) - 1) // ones down to a random bit
}

// exp draws a biased exponent field, favouring the ends of the range,
// the neighbourhood of 1 and the integers up to 2^65.
func (g *gen) exp(d fdesc) int {
	max := d.maxField()
	switch g.n(12) {
	case 0:
		return 0
	case 1:
		return 1 + g.n(3)
	case 2:
		return max - 1 - g.n(3)
	case 3:
		if g.n(3) == 0 {
			return max
		}
		return d.bias + g.n(8)
	case 4, 5, 6:
		return d.bias - 3 + g.n(7)
	case 7, 8:
		return d.bias + g.n(66)
	}
	return 1 + g.n(max-1)
}

func (g *gen) float(d fdesc) uint64 {
	return d.pack(g.n(2) == 0, g.exp(d), g.frac(d.fb))
}

// near returns an operand related to a: a few low bits changed, or a's
// exponent moved by up to prec+3 — the cancellations, alignment shifts
// and ties of addition.
func (g *gen) near(d fdesc, a uint64) uint64 {
	neg := g.n(2) == 0
	switch g.n(3) {
	case 0:
		return a ^ g.u64()&(1<<uint(g.n(10))-1) ^ uint64(g.n(2))*d.sign
	case 1:
		f := d.field(a) + g.n(2*(d.fb+4)+1) - (d.fb + 4)
		return d.pack(neg, clampField(d, f), g.frac(d.fb))
	}
	f := d.field(a) - g.n(d.fb+4)
	return d.pack(neg, clampField(d, f), a)
}

func clampField(d fdesc, f int) int { return min(max(f, 0), d.maxField()-1) }

// scaled returns a pair whose product (or, with div, quotient) has an
// exponent near the overflow or underflow threshold.
func (g *gen) scaled(d fdesc, div bool) (uint64, uint64) {
	target := 1 + g.n(3) - 2 // around the smallest normal...
	switch g.n(3) {
	case 0:
		target = d.maxField() - 2 + g.n(3) // ...or the largest
	case 1:
		target = 1 - d.fb - 2 + g.n(d.fb+3) // ...or deep in the subnormals
	}
	fa := 1 + g.n(d.maxField()-1)
	// Unbiased: ea + eb = t for a product, ea - eb = t for a quotient.
	ea, t := fa-d.bias, target-d.bias
	eb := t - ea
	if div {
		eb = ea - t
	}
	fb := clampField(d, eb+d.bias)
	return d.pack(g.n(2) == 0, fa, g.frac(d.fb)), d.pack(g.n(2) == 0, fb, g.frac(d.fb))
}

// integer draws a register value for the int-to-float conversions.
func (g *gen) integer() uint64 {
	switch g.n(7) {
	case 0:
		return g.u64()
	case 1:
		return g.u64() >> uint(g.n(64))
	case 2:
		return -(g.u64() >> uint(g.n(64)))
	case 3:
		return 1<<uint(g.n(64)) + uint64(g.n(9)) - 4
	case 4:
		i, j := g.n(65), g.n(65)
		if i > j {
			i, j = j, i
		}
		return (1<<uint(j) - 1) &^ (1<<uint(i) - 1)
	case 5:
		return uint64(int64(int32(uint32(g.u64() >> uint(g.n(33))))))
	}
	return -uint64(1<<uint(g.n(64))) + uint64(g.n(9)) - 4
}

func f64b(x float64) uint64 { return math.Float64bits(x) }
func f32b(x float32) uint64 { return uint64(math.Float32bits(x)) }

// Corner magnitudes; each is used with both signs.
var (
	corners64 = []uint64{
		0, 1, 0x0008000000000000, 0x000fffffffffffff, 0x0010000000000000, 0x0010000000000001, 0x001fffffffffffff,
		f64b(0.5), 0x3fefffffffffffff, f64b(1), 0x3ff0000000000001, f64b(1.5), f64b(2), f64b(2.5), f64b(3), f64b(1.0 / 3),
		f64b(0x1p53), f64b(0x1p53 + 2), f64b(2147483647.5), f64b(0x1p31), f64b(2147483648.5), f64b(4294967295.5),
		f64b(0x1p32), 0x43dfffffffffffff, f64b(0x1p63), 0x43efffffffffffff, f64b(0x1p64),
		0x7fe0000000000000, 0x7fefffffffffffff, 0x7ff0000000000000,
		0x7ff8000000000000, 0x7ff0000000000001, 0x7ff4000000000000, 0x7ffc000000000123,
	}
	corners32 = []uint64{
		0, 1, 0x00400000, 0x007fffff, 0x00800000, 0x00800001, 0x00ffffff,
		f32b(0.5), 0x3f7fffff, f32b(1), 0x3f800001, f32b(1.5), f32b(2), f32b(2.5), f32b(3), f32b(1.0 / 3),
		f32b(0x1p24), f32b(0x1p24 + 2), f32b(8388607.5), 0x4effffff, f32b(0x1p31), 0x4f7fffff, f32b(0x1p32),
		0x5effffff, f32b(0x1p63), 0x5f7fffff, f32b(0x1p64),
		0x7f000000, 0x7f7fffff, 0x7f800000,
		0x7fc00000, 0x7f800001, 0x7fa00000, 0x7fe00123,
	}
	cornersInt = []uint64{
		0, 1, 2, 3, 0x7fffffff, 0x80000000, 0xffffffff, 0x1_0000_0000, 0xffffff, 0x1000001, 0x7fffffbf, 0x7fffffc0,
		1<<53 - 1, 1 << 53, 1<<53 + 1, 1<<63 - 1, 1 << 63, 1<<63 + 1, 1<<64 - 1, 0xfffffbff_ffffffff, 0x7ffffe00_00000000,
	}
)

// fmaCorners is a smaller set for three-operand crossings.
func fmaCorners(d fdesc) []uint64 {
	one := uint64(d.bias) << uint(d.fb)
	inf := uint64(d.maxField()) << uint(d.fb)
	return []uint64{0, d.sign, one, d.sign | one | 1<<uint(d.fb-1), inf, d.sign | inf,
		inf | 1<<uint(d.fb-1), inf | 1, 1, inf - 1, d.sign | 1<<uint(d.fb)}
}

func signed(d fdesc, mags []uint64) []uint64 {
	var out []uint64
	for _, m := range mags {
		out = append(out, m, m|d.sign)
	}
	return out
}

// Random cases per instruction, on top of the corner crossings. The
// counts keep the golden file near 2 MB: a random case costs about 15
// compressed bytes, a corner case about 4.
const (
	randArith   = 2500 // add, sub, mul, div, the multiply-adds
	randUnary   = 2000 // sqrt and the inexact conversions
	randExact   = 400  // the conversions that are always exact
	randCompare = 500  // min, max, comparisons, class
)

// exactInstr lists the instructions whose result never depends on rm.
var exactInstr = map[string]bool{"fcvt.d.w": true, "fcvt.d.wu": true, "fcvt.d.s": true}

// genCases returns the full case list, deterministically.
func genCases() []ocase {
	g := &gen{rand.NewPCG(0x72766479, 0x6e667075)}
	var cases []ocase
	add := func(in *instr, rm RM, a, b, c uint64) {
		cases = append(cases, ocase{in: in, rm: rm, a: a, b: b, c: c})
	}
	for i := range instrs {
		in := &instrs[i]
		d := d64
		corners := corners64
		switch in.in {
		case opF32:
			d, corners = d32, corners32
		case opInt:
			corners = cornersInt
		}
		vals := signed(d, corners)
		if in.in == opInt {
			vals = nil
			for _, v := range corners {
				vals = append(vals, v, -v)
			}
		}
		rms := []RM{RNE}
		if in.rm {
			rms = []RM{RNE, RTZ, RDN, RUP, RMM}
		}
		randRM := func() RM { return rms[g.n(len(rms))] }
		switch in.arity {
		case 1:
			for _, rm := range rms {
				for _, a := range vals {
					add(in, rm, a, 0, 0)
				}
			}
			n := randCompare
			switch {
			case exactInstr[in.name]:
				n = randExact
			case in.rm:
				n = randUnary
			}
			for range n {
				if in.in == opInt {
					add(in, randRM(), g.integer(), 0, 0)
				} else {
					add(in, randRM(), g.float(d), 0, 0)
				}
			}
		case 2:
			crossRMs := rms
			if in.name[1:4] == "sub" {
				// fsub shares fadd's code after a sign flip, and the
				// corner set is closed under negation: only the exact
				// zero's sign under RDN is new.
				crossRMs = []RM{RNE, RDN}
			}
			for _, rm := range crossRMs {
				for _, a := range vals {
					for _, b := range vals {
						add(in, rm, a, b, 0)
					}
				}
			}
			n := randCompare
			if in.rm {
				n = randArith
			}
			div := in.name[1:4] == "div"
			for range n {
				a := g.float(d)
				switch g.n(4) {
				case 0, 1:
					add(in, randRM(), a, g.float(d), 0)
				case 2:
					add(in, randRM(), a, g.near(d, a), 0)
				default:
					a, b := g.scaled(d, div)
					add(in, randRM(), a, b, 0)
				}
			}
		case 3:
			fc := fmaCorners(d)
			for _, rm := range rms {
				for _, a := range fc {
					for _, b := range fc {
						for _, c := range fc {
							add(in, rm, a, b, c)
						}
					}
				}
			}
			for range randArith {
				a, b := g.float(d), g.float(d)
				if g.n(3) == 0 {
					a, b = g.scaled(d, false)
				}
				var c uint64
				switch g.n(4) {
				case 0:
					c = g.float(d)
				case 3: // far below the product's last bit: sticky only,
					// the case where rounding twice would go wrong
					p := roundedProduct(d, a, b)
					f := d.field(p) - (d.fb + 2 + g.n(d.fb+12))
					c = d.pack(g.n(2) == 0, clampField(d, f), g.frac(d.fb))
				case 1: // cancel most of the product
					p := roundedProduct(d, a, b)
					c = g.near(d, p^d.sign)
					if g.n(2) == 0 {
						c = p ^ d.sign ^ g.u64()&(1<<uint(g.n(8))-1)
					}
				default:
					c = g.near(d, roundedProduct(d, a, b))
				}
				add(in, randRM(), a, b, c)
			}
		}
	}
	return cases
}

// roundedProduct is a×b rounded by the host, to aim addends at.
func roundedProduct(d fdesc, a, b uint64) uint64 {
	if d == d32 {
		return f32b(math.Float32frombits(uint32(a)) * math.Float32frombits(uint32(b)))
	}
	return f64b(math.Float64frombits(a) * math.Float64frombits(b))
}
