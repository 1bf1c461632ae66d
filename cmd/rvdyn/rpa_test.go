package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRPAAsmDisasm: rpa asm prints the listing and writes an image that
// rpa disasm shows the same way; a malformed query is a located error.
func TestRPAAsmDisasm(t *testing.T) {
	img := filepath.Join(t.TempDir(), "q.img")
	code, out, errs := runMain(t, "rpa", "asm", "-o", img, "for opSTORE 1 always collect op1 op2 op3; if op1 <> 0 then send 3 stop else stop;")
	if code != 0 || !strings.Contains(out, "opSTORE/1    0x00000054") || !strings.Contains(out, "if op1 <> 0 then send 3 stop else stop;") {
		t.Fatalf("asm: %d\n%s%s", code, out, errs)
	}
	code, out2, errs := runMain(t, "rpa", "disasm", img)
	if code != 0 || out2 != out {
		t.Fatalf("disasm: %d\n%s%s\nwant\n%s", code, out2, errs, out)
	}
	code, _, errs = runMain(t, "rpa", "asm", "for opSTORE 5 always collect pc; send 1;")
	if code != 1 || !strings.Contains(errs, "line 1, column 13: expected a profile tag (0..3)") {
		t.Fatalf("bad tag: %d %s", code, errs)
	}
}

// TestRunQuery: run --query in interp mode leaves the guest's output and
// status alone and reports the edge table and stats; dynamo mode refuses.
func TestRunQuery(t *testing.T) {
	const q = "for opBRANCH * always collect pc misc; send 1 stop;"
	guest := []string{"../../bench/corpus/bintree.elf", "9"} // small size
	code0, out0, _ := runMain(t, append([]string{"run", "--mode=interp"}, guest...)...)
	js := filepath.Join(t.TempDir(), "q.json")
	code, out, errs := runMain(t, append([]string{"run", "--mode=interp", "--query", q, "--query-json", js}, guest...)...)
	if code != code0 || out != out0 {
		t.Fatalf("with --query: status %d, output %q; without: %d, %q (%s)", code, out, code0, out0, errs)
	}
	var rep struct {
		Queues []struct {
			PCs []struct {
				Messages, Taken, NotTaken uint64 `json:",omitempty"`
			} `json:"pcs"`
		} `json:"queues"`
		Stats struct {
			Records uint64 `json:"records"`
			Queues  []struct{ Sent, Received uint64 }
		} `json:"stats"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Queues) != 1 || len(rep.Stats.Queues) != 1 {
		t.Fatalf("json %v: %s", err, b)
	}
	var n uint64
	for _, l := range rep.Queues[0].PCs {
		n += l.Messages
	}
	if s := rep.Stats.Queues[0]; n == 0 || n != rep.Stats.Records || s.Sent != n || s.Received != n {
		t.Errorf("%d messages tabulated, stats %+v", n, rep.Stats)
	}
	// Dynamo mode: same output and the same table.
	js2 := filepath.Join(t.TempDir(), "q2.json")
	code, out, errs = runMain(t, append([]string{"run", "--query", q, "--query-json", js2}, guest...)...)
	b2, _ := os.ReadFile(js2)
	if code != code0 || out != out0 {
		t.Fatalf("dynamo with --query: status %d, output %q; without: %d, %q (%s)", code, out, code0, out0, errs)
	}
	var rep2 struct {
		Queues json.RawMessage `json:"queues"`
	}
	var rep1 struct {
		Queues json.RawMessage `json:"queues"`
	}
	json.Unmarshal(b, &rep1)
	json.Unmarshal(b2, &rep2)
	if string(rep1.Queues) != string(rep2.Queues) {
		t.Errorf("dynamo table differs from interp:\n%s\n%s", rep2.Queues, rep1.Queues)
	}
	// A query without pc: one line, not labelled with a pc.
	code, _, errs = runMain(t, append([]string{"run", "--query", "for opBRANCH * always collect misc; send 1 stop;"}, guest...)...)
	if code != code0 || !strings.Contains(errs, "(pc not collected)") || strings.Contains(errs, "0x0 ") {
		t.Errorf("no-pc query: %d %s", code, errs)
	}
}

// TestRPAOverhead: rpa overhead runs a guest with and without the edge
// query in dynamo mode and reports sample exits and a ratio.
func TestRPAOverhead(t *testing.T) {
	js := filepath.Join(t.TempDir(), "oh.json")
	code, out, errs := runMain(t, "rpa", "overhead", "--guest", "bytecode", "--runs", "1", "--rates", "64", "--query-d=false", "--json", js)
	if code != 0 || !strings.Contains(out, "edge 1/64") {
		t.Fatalf("%d\n%s%s", code, out, errs)
	}
	var rows []struct {
		SampleExits uint64  `json:"sample_exits"`
		Ratio       float64 `json:"ratio"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &rows); err != nil || len(rows) != 1 || rows[0].Ratio <= 0 || rows[0].SampleExits == 0 {
		t.Fatalf("json %v: %s", err, b)
	}
	if code, _, _ := runMain(t, "rpa", "overhead", "--runs", "0"); code != exitUsage {
		t.Errorf("--runs 0: status %d", code)
	}
}
