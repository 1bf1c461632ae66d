// Package ir implements the fragment IR and the trace-local optimizer: a
// trace recorded by the interpreter (interp.Trace) is lowered to a Func, a
// straight list of instructions over guest registers and constants with
// explicit exits (ir.go, exit.go), rewritten by the optimizer passes (one
// file each: constfold.go, strength.go, rotate.go, loadelim.go,
// copyprop.go, checkrange.go, checkhoist.go, checkwiden.go, boxcheck.go,
// frmhoist.go, quietcmp.go, shadd.go, dce.go, sink.go) and checked by the verifier
// (verify.go). Package fragment holds the table
// that runs the passes in order, and package fragment/amd64 lowers the
// result to machine code.
//
// The IR knows nothing about the host machine: it must not import
// package fragment, fragment/amd64 or an assembler, only interp, whose ALU is
// also its constant folding semantics, and profhw/rpa, whose compiled
// query (rpa.Native) an OpSample instruction carries to the backend.
//
// Every pass keeps the guest state at each exit exactly what the
// interpreter would have there (see the invariants in ir.go, checked by
// Verify).
package ir
