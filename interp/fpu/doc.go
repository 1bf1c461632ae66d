// Package fpu implements RISC-V floating-point arithmetic (the F and D
// extensions) on IEEE 754 bit patterns, with the ISA's rounding modes,
// exception flags and NaN rules rather than the host's.
//
// Every function is pure: bit patterns and a rounding mode in, a bit
// pattern (or integer, or boolean) and the accrued exception flags out.
// Doubles travel as uint64, singles as uint32; NaN-boxing a single in a
// 64-bit register is the caller's business, as is resolving the dynamic
// rounding mode (rm=7) from frm and rejecting the reserved modes 5 and 6.
//
// The rules followed are those of the RISC-V unprivileged specification,
// chapters "F" and "D" (which qemu-riscv64's softfloat also follows):
//
//   - Every NaN result is the canonical NaN (CanonicalNaN64,
//     CanonicalNaN32); payloads never propagate. A signalling NaN operand
//     raises NV.
//   - Tininess is detected after rounding: UF is raised when the result,
//     rounded as if the exponent range were unbounded, is below the
//     smallest normal and the delivered result is inexact.
//   - Subnormal operands and results are honoured (no flush to zero).
//   - Conversions to integers saturate and raise NV (and not NX) when the
//     rounded value does not fit; NaN converts to the largest integer.
//   - fmin/fmax follow IEEE 754-2019 minimumNumber/maximumNumber (spec
//     version 2.2 onwards): -0 < +0, and a NaN loses to a number.
//
// Results are computed exactly: an operation is reduced to a sign, an
// exponent and a 64-bit significand whose lowest bit is sticky (a 128-bit
// one inside the fused multiply-add), and one rounding routine turns that
// into a bit pattern and flags for any mode. For the common case — round
// to nearest even, finite operands, a normal result — each arithmetic
// operation first tries the host's correctly rounded arithmetic and an
// error-free transformation (TwoSum, or a residual from math.FMA) to
// learn whether the result was inexact; conversions of small values use
// the host's exact rounding to integers in every mode. Whenever a fast
// path cannot decide cheaply it falls back to the exact path, so both
// give identical answers (the tests check that they do).
//
// This package imports nothing from rvdyn: it is a leaf that the
// interpreter (package interp) and constant folding can share.
package fpu
