// The statistics reference in docs/internals.md against Stats.MarshalJSON: every key the JSON can hold is documented, and nothing else.

package engine

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"rvdyn/gcassist"
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
		GC: &gcassist.Stats{}, Profile: &rpa.Report{}, Specialize: &selection.ValueStats{}}
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

// TestStatsReference checks the table of --stats-json keys in
// docs/internals.md (its "Statistics" section) against the keys
// Stats.MarshalJSON writes.
func TestStatsReference(t *testing.T) {
	b, err := os.ReadFile("../../docs/internals.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "| JSON key | in the --stats table | meaning |")
	if i < 0 {
		t.Fatal("docs/internals.md has no table of statistics keys")
	}
	end := strings.Index(s[i:], "\n\n")
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)`")
	var doc []string
	for _, m := range row.FindAllStringSubmatch(s[i:i+end], -1) {
		doc = append(doc, m[1])
	}
	slices.Sort(doc)
	if want := allKeys(t); !slices.Equal(doc, want) {
		t.Errorf("docs/internals.md documents the statistics keys\n%v\nStats.MarshalJSON writes\n%v", doc, want)
	}
}
