// The statistics reference in docs/internals.md against Stats.MarshalJSON: every key the JSON can hold is documented, and nothing else.

package engine

import (
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"rvdyn/gcassist"
	"rvdyn/internal/doccheck"
	"rvdyn/internal/selection"
	"rvdyn/net"
	"rvdyn/profhw/rpa"
)

// allKeys returns every top-level key Stats.MarshalJSON writes when every
// optional part is present (dynamo mode, path prediction, trace metrics,
// a host collector, a profiler session, value specialization).
func allKeys(t *testing.T) []string {
	t.Helper()
	s := Stats{Mode: ModeDynamo, Predict: net.PredictPath, TraceMetrics: &selection.TraceMetrics{},
		GC: &gcassist.Stats{}, Profiler: &rpa.Report{}, Specialize: &selection.ValueStats{}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/internals.md's statistics reference from statTable")

// statsReference is the reference table of docs/internals.md's
// Statistics section, generated from statTable.
func statsReference() string {
	var b strings.Builder
	b.WriteString("| JSON key | in the --stats table | meaning |\n|---|---|---|\n")
	for _, st := range statTable {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", st.key, strings.TrimSpace(st.label), st.doc)
	}
	return b.String()
}

// TestStatsReference checks the table of --stats-json keys in
// docs/internals.md (its "Statistics" section) against statTable, the
// one table the JSON object and the --stats table are written from
// (-update-docs rewrites it), and statTable's keys against those
// Stats.MarshalJSON writes when every optional part is present.
func TestStatsReference(t *testing.T) {
	doccheck.Table(t, "../../docs/internals.md", "| JSON key | in the --stats table | meaning |", statsReference(), *updateDocs,
		"go test ./internal/engine -run TestStatsReference -update-docs")
	var keys []string
	for _, st := range statTable {
		keys = append(keys, st.key)
	}
	slices.Sort(keys)
	if got := allKeys(t); !slices.Equal(got, keys) {
		t.Errorf("Stats.MarshalJSON writes\n%v\nstatTable has\n%v", got, keys)
	}
}
