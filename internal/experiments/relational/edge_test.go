package relational

import (
	"strings"
	"testing"

	"rvdyn/bench/corpus"
)

// TestRunEdge runs the edge experiment on a guest cut at 2M
// instructions, at two periods, and checks what must hold whatever the
// machine: the same stream at both (instructions, branches), fewer
// messages at the sparser period, and a table line per row.
func TestRunEdge(t *testing.T) {
	img, err := corpus.ELF("bintree")
	if err != nil {
		t.Fatal(err)
	}
	g := Guest{Name: "bintree", Image: img, Args: []string{"bintree", "9"}}
	rows, err := RunEdge([]Guest{g}, []uint32{16, 64}, 1, 2_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Rate != 16 || rows[1].Rate != 64 {
		t.Fatalf("rows %+v", rows)
	}
	if a, b := rows[0], rows[1]; a.Instructions == 0 || a.Branches == 0 || a.Instructions != b.Instructions || a.Branches != b.Branches || b.Messages >= a.Messages {
		t.Errorf("rows %+v", rows)
	}
	var w strings.Builder
	if err := WriteEdgeTable(&w, rows); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(w.String()), "\n"); len(lines) != 3 || strings.Join(strings.Fields(lines[2])[:2], " ") != "bintree 1/64" {
		t.Errorf("table:\n%s", w.String())
	}
	if _, err := RunEdge([]Guest{{Name: "junk", Image: []byte("not an ELF")}}, []uint32{64}, 1, 0); err == nil || !strings.HasPrefix(err.Error(), "junk: ") {
		t.Errorf("bad image: %v, want an error naming the guest", err)
	}
}

// TestOverheadQueries: the queries in the table's order, and the
// configurations RunOverhead refuses before running anything.
func TestOverheadQueries(t *testing.T) {
	var names []string
	for _, q := range (OverheadConfig{Periods: []int{32, 256}, QueryD: true, CompareNative: true}).queries() {
		names = append(names, q.name)
	}
	want := "edge 1/32,edge 1/256,d) 1/1024,edge 1/32 go,edge 1/256 go,d) 1/1024 go"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("queries %s, want %s", got, want)
	}
	for _, cfg := range []OverheadConfig{{Periods: []int{64}}, {Periods: []int{0}, Runs: 1}, {Periods: []int{1 << 20}, Runs: 1}} {
		if _, err := RunOverhead(nil, cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}
