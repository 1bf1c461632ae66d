// predict --online: a guest and its offline analysis in, the dispatcher's own selection at each delay scored the same way out, side by side with offline NET and NET-once.

package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"rvdyn"
	"rvdyn/net"
)

// An onlineRow compares, at one delay, offline NET, offline NET with one
// trace per head, and the traces the dispatcher compiled (--online).
type onlineRow struct {
	Delay   int                 `json:"delay"`
	NET     *net.Result         `json:"net"`
	NETOnce *net.Result         `json:"net_once"`
	Online  *rvdyn.TraceMetrics `json:"online"`
	Traces  uint64              `json:"traces"`
}

// onlineRows runs the guest in dynamo mode at each delay with trace
// metrics (the dispatcher's compiled traces scored against a profiling
// run) and pairs the result with a's offline NET results.
func onlineRows(image []byte, args []string, delays []int, hot float64, maxInsts uint64, a *net.Analysis) ([]onlineRow, error) {
	var rows []onlineRow
	for _, d := range delays {
		vm, err := rvdyn.New(image, rvdyn.Options{NET: net.Options{Delay: net.DelayOf(d)}, MaxInstructions: maxInsts,
			Select: rvdyn.SelectOptions{Metrics: true, Hot: hot}, Config: rvdyn.Config{Args: args}})
		if err != nil {
			return nil, err
		}
		_, err = vm.Run()
		st := vm.Stats()
		vm.Close()
		if err != nil && err != rvdyn.ErrLimit {
			return nil, err
		}
		rows = append(rows, onlineRow{Delay: d, NET: a.Find(net.SchemeNET, d), NETOnce: a.Find(net.SchemeNETOnce, d), Online: st.TraceMetrics, Traces: st.Traces})
	}
	return rows, nil
}

// writeOnline prints the comparison: hit rate, noise and MOC (% of the
// hot flow) and paths predicted for each of the three, and how many of
// the dispatcher's traces started at a path head.
func writeOnline(w io.Writer, rows []onlineRow) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "delay\tscheme\thit %\tnoise %\tMOC %\tprofiled %\tpaths predicted\ttraces (at path heads)\t")
	res := func(name string, d int, r *net.Result) {
		if r != nil {
			fmt.Fprintf(tw, "%d\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t\t\n", d, name, r.HitRate, r.NoiseRate, r.MOCRate, r.ProfiledFlow, r.Predicted)
		}
	}
	for _, r := range rows {
		res("NET offline", r.Delay, r.NET)
		res("NET once offline", r.Delay, r.NETOnce)
		if t := r.Online; t != nil && t.Error == "" {
			fmt.Fprintf(tw, "%d\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t%d (%d)\t\n", r.Delay, "dispatcher", t.HitRate, t.NoiseRate, t.MOCRate, t.ProfiledFlow, t.Predicted, t.Compiled, t.ExactHeads)
		} else if t != nil {
			fmt.Fprintf(tw, "%d\tdispatcher\tfailed: %s\t\t\t\t\t\t\n", r.Delay, t.Error)
		}
	}
	return tw.Flush()
}
