// Package fragment implements the trace compiler: a trace recorded by the
// interpreter (interp.Trace) becomes a single-entry, multi-exit fragment of
// x86-64 machine code laid out along the recorded path.
//
// The trace is first lowered to a small IR over guest registers and
// constants with explicit exits (ir.go), optimized by trace-local passes
// listed in passes.go (constant folding, strength reduction, redundant
// load elimination and store forwarding, copy propagation, dead code
// elimination; one file each), checked by a verifier (verify.go), given
// host registers (regalloc.go) and emitted (emit.go, arith.go). Every pass
// keeps the guest state at each exit exactly what the interpreter would
// have there; Options switches each off.
//
// Every conditional branch that leaves the recorded path becomes an exit
// stub to its guest target; an indirect jump (jalr) checks the recorded
// target and exits when it differs; a memory access outside guest memory
// exits to the interpreter at that instruction, which reports the fault.
// Each exit stub first charges the guest instructions retired since the
// fragment entry to State.Budget (so instruction counts are exact in every
// mode) and leaves if the budget is spent (the poll point that bounds the
// time native code runs), then jumps on: either to a fragment the code cache
// linked it to, or back to the dispatcher with its exit ID in State.Exit.
//
// Register conventions inside native code: R15 holds the *State, R14 the
// host address of guest address 0; AX, CX and DX are scratch. Native code
// never touches the stack pointer or BP and calls nothing.
//
// This package produces position-independent bytes and exit records; it
// does not own executable memory (package codecache does). It imports only
// package interp, and golang-asm behind the small interface in asm.go.
// The method follows Dynamo's fragment formation (Bala, Duesterwald,
// Banerjia, PLDI 2000) as summarised in section 6 of
// papers/net-hot-path-prediction.txt.
package fragment
