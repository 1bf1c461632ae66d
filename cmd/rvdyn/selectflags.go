// Selection flags: --select, --compressor, --rpa-period, --rpa-sync, --trace-metrics in, rvdyn.SelectOptions out.

package main

import (
	"flag"
	"fmt"

	"rvdyn"
)

// selectFlags are the trace selection flags of run (and their values).
type selectFlags struct {
	scheme     *string
	compressor *string
	rpaPeriod  *uint
	rpaJumps   *uint
	rpaSync    *bool
	metrics    *bool
}

func addSelectFlags(fs *flag.FlagSet) *selectFlags {
	return &selectFlags{
		scheme:     fs.String("select", "net", "trace selection scheme: net (a counter per trace head), path (a counter per path), compressor (the stratified-sampling compressor's counter table), rpa (a relational-profiler edge query and a service thread); docs/selection.md"),
		compressor: fs.String("compressor", rvdyn.DefaultCompressor, "--select=compressor: the compressor in profhw notation (H[P256]2048, R256, tag2-256-2048, ...)"),
		rpaPeriod:  fs.Uint("rpa-period", rvdyn.DefaultRPAPeriod, "--select=rpa: the edge query samples every N-th conditional branch"),
		rpaJumps:   fs.Uint("rpa-jump-period", rvdyn.DefaultRPAJumpPeriod, "--select=rpa: ... and every N-th jump (a sampled jump in a fragment exits to Go)"),
		rpaSync:    fs.Bool("rpa-sync", false, "--select=rpa: wait for the service thread at every poll, so the traces compiled are the same every run"),
		metrics:    fs.Bool("trace-metrics", false, "after the run, profile the guest's paths in a second, interpreted run and score the compiled traces: hit rate, noise, missed-opportunity cost (in --stats); also times the selection work"),
	}
}

// options returns the selection options the flags ask for; pred is
// --predict, an alias of --select=net|path.
func (f *selectFlags) options(pred rvdyn.Predict) (rvdyn.SelectOptions, error) {
	s, err := rvdyn.ParseScheme(*f.scheme)
	if err != nil {
		return rvdyn.SelectOptions{}, fmt.Errorf("--select: %v", err)
	}
	if pred == rvdyn.PredictPath && s != rvdyn.SelectNET && s != rvdyn.SelectPath {
		return rvdyn.SelectOptions{}, fmt.Errorf("--predict=path and --select=%v ask for two schemes", s)
	}
	if *f.rpaPeriod < 1 || *f.rpaPeriod > 8192 || *f.rpaJumps < 1 || *f.rpaJumps > 8192 { // the query language's every N
		return rvdyn.SelectOptions{}, fmt.Errorf("--rpa-period and --rpa-jump-period must be 1 to 8192 (the query language's every N)")
	}
	return rvdyn.SelectOptions{Scheme: s, Compressor: *f.compressor, RPAPeriod: uint32(*f.rpaPeriod), RPAJumpPeriod: uint32(*f.rpaJumps),
		RPASync: *f.rpaSync, Metrics: *f.metrics}, nil
}
