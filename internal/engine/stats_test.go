// Tests of the statistics snapshot: a Stats value -> its JSON object (keys, order, units) and the reason tables' names.

package engine

import (
	"encoding/json"
	"rvdyn/fragment/exit"
	"strings"
	"testing"
	"time"

	"rvdyn/net"
)

// statsKeys are the keys of an interp run's --stats-json object, in
// order: statTable's rows that every run writes. Readers of saved results
// look keys up by name; the order is the --stats table's.
var statsKeys = []string{"mode", "delay", "exit_code", "guest_instructions", "cache_instructions",
	"interpreted_instructions", "trace_heads", "traces", "trace_instructions", "trace_end_reasons",
	"fragments", "fragments_too_large", "heads_interpreted", "code_bytes", "links", "cache_exits",
	"exits_branch", "exits_budget", "exits_interp", "exits_indirect", "exits_sample", "flushes", "phase_flushes", "phase_removed", "phase_backoffs",
	"capacity_flushes", "cut_flushes", "cut_retranslated", "table_walks", "stale_removed", "entry_test_fails", "entry_test_removed", "bailed_out_at", "record_seconds", "compile_seconds", "syscalls", "unknown_syscalls", "signals_handled",
	"wall_seconds", "top_fragments"}

func TestStatsJSON(t *testing.T) {
	s := Stats{Mode: ModeInterp, Delay: 7, Exits: [exit.NumKinds]uint64{1, 2, 3, 4},
		Wall: 1500 * time.Millisecond, CompileTime: 250 * time.Millisecond}
	s.EndReasons[net.EndCycle] = 5
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	var keys []string
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", b)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(keys, " ") != strings.Join(statsKeys, " ") {
		t.Errorf("keys\n %v\nwant\n %v", keys, statsKeys)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"mode": "interp", "delay": 7.0, "exits_branch": 1.0, "exits_budget": 2.0,
		"exits_interp": 3.0, "exits_indirect": 4.0, "wall_seconds": 1.5, "compile_seconds": 0.25, "record_seconds": 0.0} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
	if ends, ok := m["trace_end_reasons"].(map[string]any); !ok || len(ends) != 1 || ends["cycle"] != 5.0 {
		t.Errorf("trace_end_reasons = %v", m["trace_end_reasons"])
	}
	if u, ok := m["unknown_syscalls"].(map[string]any); !ok || len(u) != 0 {
		t.Errorf("unknown_syscalls = %v, want {}", m["unknown_syscalls"])
	}
	// An indented copy (rvdyn run --stats-json) is the same object.
	if _, err := json.MarshalIndent(s, "", "  "); err != nil {
		t.Error(err)
	}
}

func TestModeText(t *testing.T) {
	var m Mode
	if err := m.UnmarshalText([]byte("interp")); err != nil || m != ModeInterp {
		t.Errorf("UnmarshalText: %v %v", m, err)
	}
	if err := m.UnmarshalText([]byte("qemu")); err == nil {
		t.Error("UnmarshalText accepted an unknown mode")
	}
}
