// Package amd64 implements the x86-64 backend of the trace compiler: an
// optimized fragment IR (package ir) becomes position-independent machine
// code laid out along the recorded path, with its exit stubs, the
// indirect branch lookup probe, and a map from host code offsets back to
// guest pcs. One file per concern:
//
//   - asm.go, encode.go: the assembler (typed instructions, labels, jump
//     relaxation, the fields the code cache patches) and its x86-64
//     encoder, checked against golang-asm in encode_test.go;
//   - abi.go: the registers and State offsets native code relies on;
//   - compile.go: the driver (entry, body, stubs, slow paths);
//   - regalloc.go, fregalloc.go: guest x and f registers -> host general
//     and XMM registers, and the home registers linked fragments agree on;
//   - sext.go: lazy sign extension of 32-bit (W) results;
//   - lazynan.go: NaNs made canonical where their bits can be seen;
//   - lower.go, arith.go, float.go (with floatconv.go and floatcsr.go),
//     atomic.go: IR instructions -> x86-64 instructions;
//   - storecombine.go: byte stores that fill a word -> one store;
//   - bulk.go: byte fill and copy loops -> REP STOSB and REP MOVSB;
//   - query.go: the relational profiler's sampled records, built natively;
//   - merge.go, cdpack.go: a pass's sampling decisions merged, and the
//     countdown kept in R12 beside the budget;
//   - stubs.go: exit stubs, linking and the poll point;
//   - ibl.go: the indirect branch lookup table layout and probe;
//   - pcmap.go: host code offset -> guest pc.
//
// Every conditional branch that leaves the recorded path becomes an exit
// stub to its guest target; an indirect jump (jalr) checks the recorded
// target and, when it differs, looks the target up in the indirect branch
// lookup table; a memory access outside guest memory exits to the
// interpreter at that instruction, which reports the fault. Each exit stub
// first charges the guest instructions retired since the fragment entry to
// State.Budget (so instruction counts are exact in every mode) and leaves
// if the budget is spent (the poll point that bounds the time native code
// runs), then jumps on: either to a fragment the code cache linked it to,
// or back to the dispatcher with its exit ID in State.Exit.
//
// The package produces bytes and patch offsets; it does not own
// executable memory (package codecache does) and must not import package
// fragment (which imports it) or codecache. It imports only package ir,
// package interp for its opcodes, fragment/exit for exit records, and
// profhw/rpa and profhw/mq for compiled queries and their queues.
package amd64
