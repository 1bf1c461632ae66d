// Package net implements NET (Next Executing Tail) hot path prediction,
// section 4 of papers/net-hot-path-prediction.txt (Duesterwald and Bala,
// ASPLOS 2000): one counter per trace-head candidate, a prediction delay
// tau, and the rules that end the recorded tail.
//
// A trace-head candidate is the target of a taken backward branch (as in
// the paper) or of an exit from the code cache (as in Dynamo). When its
// counter exceeds tau the head is predicted hot and the very next path
// executed from it is recorded: that path is the prediction. No other
// profiling is done, which is the point of the scheme ("less is more").
//
// This package is named after the scheme; files that also need the
// standard library's net package must alias that import. It imports only
// package interp.
package net
