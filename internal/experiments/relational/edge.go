// Edge profile accuracy (Figure 2a, sec. 6.2): guests and sampling periods in; per guest and period, the sampled edge profile's error against the exact one (rpa.RunEdgeProfile), its messages and its queue's stalls out, as rows and a table.

package relational

import (
	"fmt"
	"io"
	"text/tabwriter"

	"rvdyn/interp"
	"rvdyn/profhw/rpa"
)

// A Guest is one program an experiment runs: a name for the tables, an
// ELF image and its arguments (argv, the program's name first).
type Guest struct {
	Name  string
	Image []byte
	Args  []string
}

// An EdgeRow is one guest at one sampling period: one line of the
// accuracy table and of its JSON.
type EdgeRow struct {
	Guest        string  `json:"guest"`
	Rate         uint32  `json:"rate"` // the sampling period N: every Nth branch on average
	Instructions uint64  `json:"instructions"`
	Branches     uint64  `json:"branches"`
	Messages     uint64  `json:"messages"`
	Error        float64 `json:"error"`    // rpa.EdgeError: our metric, the paper reports none
	Outcomes     int     `json:"outcomes"` // outcomes of branches executed >= 1000 times
	Stalls       uint64  `json:"stalls"`
	MaxOccupancy uint64  `json:"max_occupancy"`
}

// RunEdge interprets each guest once per sampling period (in 1..
// rpa.MaxRate) with Figure 2a's edge query, sampling with seed, each run
// stopped after maxInsts instructions (0: run to exit), and returns a
// row per guest and period, guests in order, then periods. An error
// names the guest.
func RunEdge(guests []Guest, periods []uint32, seed, maxInsts uint64) ([]EdgeRow, error) {
	var rows []EdgeRow
	for _, g := range guests {
		for _, n := range periods {
			r, err := rpa.RunEdgeProfile(g.Image, interp.Config{Args: g.Args}, n, seed, maxInsts)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", g.Name, err)
			}
			q := r.Report.Queues[0]
			rows = append(rows, EdgeRow{g.Name, n, r.Instructions, r.Branches, q.Sent, r.Error.Error, r.Error.Selected, q.Stalls, q.MaxOccupancy})
		}
	}
	return rows, nil
}

// WriteEdgeTable writes the rows as the accuracy table, one line each.
func WriteEdgeTable(w io.Writer, rows []EdgeRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "guest\trate\tinstructions\tbranches\tmessages\terror\toutcomes\tstalls\tmax occ.\t")
	for _, row := range rows {
		fmt.Fprintf(tw, "%s\t1/%d\t%d\t%d\t%d\t%.4f\t%d\t%d\t%d\t\n", row.Guest, row.Rate, row.Instructions, row.Branches, row.Messages, row.Error, row.Outcomes, row.Stalls, row.MaxOccupancy)
	}
	return tw.Flush()
}
