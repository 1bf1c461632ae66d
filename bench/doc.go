// Package bench holds the guest program corpus (guests/: C sources, the
// RV64IM ELF files built from them, embedded here) and the harness that
// measures rvdyn on it: each guest under the interpreter and the
// optimizer, several interleaved runs, medians and speedups.
package bench
