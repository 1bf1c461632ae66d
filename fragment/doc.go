// Package fragment implements the trace compiler: a trace recorded by the
// interpreter (interp.Trace) becomes a single-entry, multi-exit fragment of
// x86-64 machine code laid out along the recorded path.
//
// The work is split in three rooms:
//
//   - package fragment/ir lowers the trace to a small IR over guest
//     registers and constants with explicit exits, and holds the
//     trace-local optimizer passes (constant folding, strength reduction,
//     redundant load elimination and store forwarding, copy propagation,
//     dead code elimination; one file each) and the IR verifier;
//   - package fragment/amd64 is the x86-64 backend: register allocation,
//     instruction lowering, exit stubs, the indirect branch lookup probe
//     and the host-to-guest pc map, over its own small assembler;
//   - this package is the driver (compile.go), the table that runs the
//     passes in order with the verifier between them (passes.go), the
//     State native code works on (state.go), and the listing (disasm.go).
//
// Every pass keeps the guest state at each exit exactly what the
// interpreter would have there; Options switches each off.
//
// This package produces position-independent bytes and exit records; it
// does not own executable memory (package codecache does). It must not
// import codecache or the root package: it imports only package interp
// and its two subpackages, and never the assembler library behind
// fragment/amd64's assembler. The method follows Dynamo's fragment
// formation (Bala, Duesterwald, Banerjia, PLDI 2000) as summarised in
// section 6 of Duesterwald and Bala, "Software Profiling for Hot Path
// Prediction: Less is More" (ASPLOS 2000).
package fragment
