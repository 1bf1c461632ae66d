// Package prediction holds the offline experiment of Duesterwald and Bala,
// "Software profiling for hot path prediction: less is more" (ASPLOS
// 2000), sections 3 to 5, whose mechanisms and metrics are in package net:
// each guest is interpreted with a path profiler and NET replayed at every
// prediction delay of a sweep (DefaultDelays; net.RunGuest), and the
// analyses are reported as the paper's Tables 1 and 2 (WriteSummary), per
// delay (WriteAnalysis), averaged over guests (WriteAverages, Averages),
// read at a given profiled flow (HitRateAt, NoiseRateAt), and drawn as
// Figures 2, 3 and 4 (PlotPrediction, PlotNoise, PlotCounterSpace).
//
// Layering: an experiment is a client of net like any other; it holds no
// mechanism. Only cmd imports this package.
package prediction
