// Package bench is the harness that measures rvdyn on the guest corpus
// (package corpus): each guest under the interpreter, the optimizer,
// qemu-riscv64 and a native build, several interleaved runs, medians,
// speedups, delay sweeps and ablations, as tables, JSON and plots.
//
// The guests themselves are not here: their C sources and build are in
// guests/, their images, sizes and expected outputs in corpus/. bench sits
// above the root package (it runs rvdyn through its public API); nothing
// in rvdyn but the command and the papers' experiments
// (internal/experiments) imports it, and it imports neither.
package bench
