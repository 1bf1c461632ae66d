// Package layout implements procedure placement from statistical profiles,
// after Gloy, Wang, Zhang, Chen and Smith, "Profile-Based Optimization
// with Statistical Profiles" (Harvard TR-02-97, 1997: the Morph Continuous
// Monitoring System), here "the paper":
//
//   - sample sets: a histogram of program counters taken by a sampler
//     (SampleSet), or a native run's samples by function spread over the
//     guest's text (Program.FuncSampleSet). The frequency-based sampler of
//     the paper's section 2 (the countdown alternative: one sample every
//     Period retired instructions at a random offset) is Countdown, driven
//     by the root package's Options.Sample in both modes; the time-based
//     one is ClockSampler (perf_event cpu-clock and eBPF);
//   - the complete profile, the paper's pixie: exact execution counts per
//     instruction from an interpreter hook (Complete);
//   - samp2bb (section 3.2): basic blocks from the ELF symbol table and the
//     decoded text (Program), each sample adding 1/size-of-block to its
//     block (Program.BlockProfile);
//   - the weighted call graph (section 3.2): block weight times the direct
//     calls in the block, calls through pointers omitted and counted
//     (Program.CallGraph);
//   - procedure orders: Pettis and Hansen 1990 (PettisHansen, the paper's
//     ph_layout) and, beyond the paper, C3 of Ottoni and Maher, CGO 2017
//     (C3);
//   - applying an order: a GNU ld linker script for programs built with
//     -ffunction-sections (LinkerScript), the paper's cord;
//   - an instruction-cache simulator (Cache), the paper's section 4.3;
//   - the paper's measures: the chi-square test of Table 5 (ChiSquare, with
//     the good-match and "expected" reference rows) and key matching of
//     Figure 4 (KeyMatch).
//
// The paper's experiment (training runs, sample sets, orders, relinked
// ELFs, Tables 5, 6 and 7, Figures 3 and 4), its reports and its plots
// are in rvdyn/internal/experiments/placement, a client of this package.
//
// Layering: layout imports rvdyn/interp and the standard library, nothing
// else of the project; it must not import the root package, codecache or
// fragment (the root package drives the sampler; cmd/rvdyn wires the
// experiment).
package layout
