// Package net implements NET (Next Executing Tail) hot path prediction,
// section 4 of Duesterwald and Bala, "Software profiling for hot path
// prediction: less is more" (ASPLOS 2000): one counter per trace-head
// candidate, a prediction delay tau, and the rules that end the recorded
// tail.
//
// A trace-head candidate is the target of a taken backward branch (as in
// the paper) or of an exit from the code cache (as in Dynamo). When its
// counter exceeds tau the head is predicted hot and the very next path
// executed from it is recorded: that path is the prediction. No other
// profiling is done, which is the point of the scheme ("less is more").
// The Selector (select.go) owns that rule, the counters and when
// recording starts and stops; Options configures it (zero values mean
// the defaults); record.go holds the end-of-trace rules.
//
// The package also holds what the paper measures with (sections 3 to 5):
// a path profiler over interpreted runs (paths.go), path profile based
// prediction as the baseline, a replay of NET over the same paths (with
// the same Selector), the metrics hit rate, noise, missed-opportunity
// cost, profiled flow and counter space (metrics.go), their offline
// scoring of a guest run at given delays (predict.go, RunGuest) and of
// what a dispatcher compiled (online.go). The paper's experiment itself
// (the delay sweep, Tables 1 and 2, Figures 2 to 4) is in
// rvdyn/internal/experiments/prediction (docs/prediction.md).
//
// This package is named after the scheme; files that also need the
// standard library's net package must alias that import. It imports only
// package interp.
package net
