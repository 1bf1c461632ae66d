// Package hwprofile holds the experiments of the two hardware-profiler
// papers whose models are in package profhw; both share one Experiment
// framework, so they share this package:
//
//   - Sastry, Bodik and Smith, "Rapid profiling via stratified sampling"
//     (ISCA 2001): the Monte Carlo experiment of Figure 4 (MonteCarlo,
//     section 3.3), error and overhead of many compressors on one stream
//     (Experiment, the shape of Figure 7, section 5) and the events needed
//     to converge (ConvergenceOf, section 5.4);
//   - Narayanasamy, Sherwood, Sair, Calder and Varghese, "Catching accurate
//     profiles in hardware" (HPCA 2003), the multi-hash paper: the interval
//     census (Census, section 5.6.1, Figures 4-6) and the interval error of
//     single- and multi-hash profilers (Experiment, Figures 10-12).
//
// Configurations are written in the papers' notation (profhw.ParseConfig).
// The package writes the text reports (WriteTable, WriteProgress,
// WriteConvergence, WriteMonteCarlo, WriteCensus) and draws the plots
// (PlotExperiment, PlotMonteCarlo) that cmd/rvdyn's profile and reproduce
// commands print and save.
//
// Layering: an experiment is a client of profhw like any other; it holds
// no mechanism. Only cmd imports this package.
package hwprofile
