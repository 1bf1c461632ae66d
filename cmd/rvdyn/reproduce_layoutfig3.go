// The layout-fig3 experiment of rvdyn reproduce: the layout experiment's JSON in; the statistical-profiles paper's Figure 3 (complete and statistical profiles side by side) for each guest out.

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rvdyn/internal/experiments/placement"
)

// layoutFig3Cmd draws Figure 3 for every guest of a layout report
// written by `rvdyn layout --json`: one figure per guest, the file name
// of --plot with the guest added before the extension. It is reached
// through rvdyn reproduce (commands["layout-fig3"]).
func layoutFig3Cmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("layout-fig3", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("json", "", "the layout report (rvdyn layout --json)")
	out := fs.String("plot", "", "the figure, .svg or .png; each guest's gets -GUEST before the extension")
	if err := fs.Parse(args); err != nil || *in == "" || *out == "" {
		fmt.Fprintln(stderr, "rvdyn layout-fig3: --json and --plot are required")
		return exitUsage
	}
	b, err := os.ReadFile(*in)
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn layout-fig3: %v\n", err)
		return 1
	}
	var rep layoutReport
	if err := json.Unmarshal(b, &rep); err != nil {
		fmt.Fprintf(stderr, "rvdyn layout-fig3: %s: %v\n", *in, err)
		return 1
	}
	ext := filepath.Ext(*out)
	for _, r := range rep.Results {
		path := strings.TrimSuffix(*out, ext) + "-" + r.Guest + ext
		if err := placement.PlotLayoutFigure3(r, path); err != nil {
			fmt.Fprintf(stderr, "rvdyn layout-fig3: %v\n", err)
			return 1
		}
		f := r.Figure3
		fmt.Fprintf(stdout, "%s: %d basic blocks (Figure 3 draws the first %d); complete profile: %.0f block executions; samp2bb weight (samples / block size) of 1 sample set: %.1f, of %d sets: %.1f; their chi-square against the complete profile is Table 5's\n",
			r.Guest, len(f.Complete), min(len(f.Complete), placement.Figure3Blocks), f.Complete.Total(), f.OneSet.Total(), f.Sets, f.AllSets.Total())
	}
	return 0
}
