// Benchmarks: the per-instruction cost of the round-to-nearest fast paths, and of the exact core for comparison.

package fpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// benchOperands are normal doubles and singles of mixed magnitudes, the
// common case the fast paths are for; 256 of them, cycled, so the
// branch predictor cannot learn a single answer.
var benchD, benchS = func() ([256]uint64, [256]uint32) {
	r := rand.New(rand.NewPCG(1, 2))
	var d [256]uint64
	var s [256]uint32
	for i := range d {
		v := (1 + r.Float64()) * math.Ldexp(1, r.IntN(40)-20)
		if r.IntN(2) == 0 {
			v = -v
		}
		d[i] = math.Float64bits(v)
		s[i] = math.Float32bits(float32(v))
	}
	return d, s
}()

var (
	sink64 uint64
	sink32 uint32
	sinkFl Flags
)

// Each benchmark calls its function directly (a call through a func
// value would cost as much as the fast paths themselves) on operands i,
// i+1, i+2 of the 256.

func BenchmarkAdd64(b *testing.B) {
	b.ReportAllocs()
	var acc uint64
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := Add64(benchD[i&255], benchD[(i+1)&255], RNE)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink64, sinkFl = acc, fl
}

func BenchmarkMul64(b *testing.B) {
	b.ReportAllocs()
	var acc uint64
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := Mul64(benchD[i&255], benchD[(i+1)&255], RNE)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink64, sinkFl = acc, fl
}

func BenchmarkDiv64(b *testing.B) {
	b.ReportAllocs()
	var acc uint64
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := Div64(benchD[i&255], benchD[(i+1)&255], RNE)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink64, sinkFl = acc, fl
}

func BenchmarkSqrt64(b *testing.B) {
	b.ReportAllocs()
	var acc uint64
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := Sqrt64(benchD[i&255]&^(1<<63), RNE)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink64, sinkFl = acc, fl
}

func BenchmarkMulAdd64(b *testing.B) {
	b.ReportAllocs()
	var acc uint64
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := MulAdd64(benchD[i&255], benchD[(i+1)&255], benchD[(i+2)&255], false, false, RNE)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink64, sinkFl = acc, fl
}

func BenchmarkAdd32(b *testing.B) {
	b.ReportAllocs()
	var acc uint32
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := Add32(benchS[i&255], benchS[(i+1)&255], RNE)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink32, sinkFl = acc, fl
}

func BenchmarkMul32(b *testing.B) {
	b.ReportAllocs()
	var acc uint32
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := Mul32(benchS[i&255], benchS[(i+1)&255], RNE)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink32, sinkFl = acc, fl
}

func BenchmarkDiv32(b *testing.B) {
	b.ReportAllocs()
	var acc uint32
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := Div32(benchS[i&255], benchS[(i+1)&255], RNE)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink32, sinkFl = acc, fl
}

func BenchmarkSqrt32(b *testing.B) {
	b.ReportAllocs()
	var acc uint32
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := Sqrt32(benchS[i&255]&^(1<<31), RNE)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink32, sinkFl = acc, fl
}

func BenchmarkMulAdd32(b *testing.B) {
	b.ReportAllocs()
	var acc uint32
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := MulAdd32(benchS[i&255], benchS[(i+1)&255], benchS[(i+2)&255], false, false, RNE)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink32, sinkFl = acc, fl
}

// The exact core, which every mode but RNE (and RNE's hard cases) uses.

func BenchmarkAdd64RTZ(b *testing.B) {
	b.ReportAllocs()
	var acc uint64
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := Add64(benchD[i&255], benchD[(i+1)&255], RTZ)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink64, sinkFl = acc, fl
}

func BenchmarkMul64RTZ(b *testing.B) {
	b.ReportAllocs()
	var acc uint64
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := Mul64(benchD[i&255], benchD[(i+1)&255], RTZ)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink64, sinkFl = acc, fl
}

func BenchmarkDiv64RTZ(b *testing.B) {
	b.ReportAllocs()
	var acc uint64
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := Div64(benchD[i&255], benchD[(i+1)&255], RTZ)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink64, sinkFl = acc, fl
}

func BenchmarkSqrt64RTZ(b *testing.B) {
	b.ReportAllocs()
	var acc uint64
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := Sqrt64(benchD[i&255]&^(1<<63), RTZ)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink64, sinkFl = acc, fl
}

func BenchmarkMulAdd64RTZ(b *testing.B) {
	b.ReportAllocs()
	var acc uint64
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := MulAdd64(benchD[i&255], benchD[(i+1)&255], benchD[(i+2)&255], false, false, RTZ)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink64, sinkFl = acc, fl
}

func BenchmarkF64ToI32RTZ(b *testing.B) {
	b.ReportAllocs()
	var acc uint64
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := F64ToI32(benchD[i&255], RTZ)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink64, sinkFl = acc, fl
}

func BenchmarkI64ToF64(b *testing.B) {
	b.ReportAllocs()
	var acc uint64
	var fl Flags
	i := 0
	for b.Loop() {
		r, f := I64ToF64(int64(benchD[i&255]>>20), RNE)
		acc, fl, i = acc+r, fl|f, i+1
	}
	sink64, sinkFl = acc, fl
}

func BenchmarkLt64(b *testing.B) {
	b.ReportAllocs()
	n := 0
	var fl Flags
	i := 0
	for b.Loop() {
		lt, f := Lt64(benchD[i&255], benchD[(i+1)&255])
		if lt {
			n++
		}
		fl, i = fl|f, i+1
	}
	sink64, sinkFl = uint64(n), fl
}
