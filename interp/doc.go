// Package interp implements the RISC-V RV64IM guest machine: the decoder,
// registers, guest memory, the ELF loader, the Linux system calls, the
// interpreter, and single-stepping for trace recording and profiling
// hooks.
//
// A Machine is one guest process. Load checks a static RV64IM ELF
// executable, copies its segments into a fresh address space, decodes the
// executable segments once, and lays out argc, argv, envp and auxv on the
// stack as Linux does. Run (or RunUntil, with a StopSet) interprets with
// a loop that has no hooks and allocates nothing; Step executes one
// instruction and describes it in an Event, which is what trace
// recording (package net) and profilers (SetHook, package profhw) use, so
// the fast loop pays nothing for them.
//
// Invariants: x0 reads as zero; every load, store and jump target is
// checked (the null page and everything below the first segment fault, and
// so does a store into the program text, which is read-only); a faulting
// instruction leaves the machine as it was and yields a *Fault with the
// kind, pc, address and instruction word; unknown system calls return
// -ENOSYS and are counted. Misaligned loads and stores succeed, as for a
// Linux process.
//
// This package knows nothing about native code; it imports no other
// package of the project.
package interp
