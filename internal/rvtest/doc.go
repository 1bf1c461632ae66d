// Package rvtest builds test inputs for rvdyn's packages: RV64IM
// instruction words (Encode, the inverse of interp.Decode), random
// well-formed instructions (RandomInst, for table and fuzz tests) and
// minimal static ELF images around hand-made instruction sequences
// (MakeELF).
//
// It is internal and test support only: production code must not import
// it. It imports nothing from rvdyn but interp (for Inst and Op), so the
// tests of every package above interp may use it; interp's own tests that
// do are external tests (package interp_test).
package rvtest
