package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = realMain(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func writeELF(t *testing.T, words []uint32) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "prog.elf")
	if err := os.WriteFile(p, rvtest.MakeELF(words, nil, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var enc = rvtest.Encode

type I = interp.Inst

// wildStore loops storing below the data segment, stepping down 2 KiB per
// iteration until the store lands in the read-only text: by then the loop
// runs as a native fragment.
var wildStore = []uint32{
	enc(I{Op: interp.OpLUI, Rd: 11, Imm: 0x40000}),         // a1 = data + 128 KiB
	enc(I{Op: interp.OpSD, Rs1: 11, Rs2: 10}),              // loop: sd a0,0(a1)
	enc(I{Op: interp.OpADDI, Rd: 11, Rs1: 11, Imm: -2048}), //       a1 -= 2048
	enc(I{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}),     //       a0++
	enc(I{Op: interp.OpJAL, Rd: 0, Imm: -12}),              //       j loop
}

var spin = []uint32{enc(I{Op: interp.OpJAL, Rd: 0, Imm: 0})}

var illegal = []uint32{
	enc(I{Op: interp.OpADDI, Rd: 10, Imm: 1}),
	0xffffffff,
}

func TestRunFaults(t *testing.T) {
	wild, ill, loop := writeELF(t, wildStore), writeELF(t, illegal), writeELF(t, spin)
	bad := filepath.Join(t.TempDir(), "bad.elf")
	os.WriteFile(bad, []byte("\x7fELF\x02\x01\x01garbage"), 0o644)
	notELF := filepath.Join(t.TempDir(), "text.elf")
	os.WriteFile(notELF, []byte("#!/bin/sh\necho hi\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"wild store interp", []string{"run", "--mode=interp", wild}, 139, "bad store address 0x1f800 at pc 0x10004"},
		{"wild store dynamo", []string{"run", "--delay=0", wild}, 139, "bad store address 0x1f800 at pc 0x10004"},
		{"wild store dynamo 5", []string{"run", "--delay=5", wild}, 139, "bad store address 0x1f800 at pc 0x10004"},
		{"illegal interp", []string{"run", "--mode=interp", ill}, 132, "illegal instruction 0xffffffff at pc 0x10004"},
		{"illegal dynamo", []string{"run", ill}, 132, "illegal instruction 0xffffffff at pc 0x10004"},
		{"truncated ELF", []string{"run", bad}, 2, "bad guest program: not an ELF file"},
		{"not ELF", []string{"run", notELF}, 2, "bad guest program: not an ELF file"},
		{"missing file", []string{"run", "/nonexistent/prog.elf"}, 2, "no such file"},
		{"bad mode", []string{"run", "--mode=fast"}, 2, `unknown mode "fast"`},
		{"bad flag", []string{"run", "--frobnicate"}, 2, "flag provided but not defined"},
		{"bad guest", []string{"run", "--guest=nope"}, 2, `no embedded guest "nope"`},
		{"two guests", []string{"run", "--guest=sieve,qsort"}, 2, "run takes one guest, not 2"},
		{"guest and file", []string{"run", "--guest=sieve", "prog.elf"}, 2, "not both"},
		{"unknown command", []string{"frob"}, 2, `frob: not a command`},
		{"limit", []string{"run", "--max-instructions=100", wild}, 124, "instruction limit reached after 100 guest instructions"},
		{"timeout dynamo", []string{"run", "--timeout=200ms", loop}, 124, "time limit reached (--timeout 200ms)"},
		{"timeout interp", []string{"run", "--mode=interp", "--timeout=200ms", loop}, 124, "time limit reached (--timeout 200ms)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runMain(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit status %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.msg) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.msg)
			}
			if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr has a Go stack trace: %q", stderr)
			}
		})
	}
}

// TestRunDefaultGuest runs the embedded guest, as `go run ./cmd/rvdyn run`
// does on a fresh clone, and checks the stats JSON fields.
func TestRunDefaultGuest(t *testing.T) {
	js := filepath.Join(t.TempDir(), "stats.json")
	code, stdout, stderr := runMain(t, "run", "--stats-json="+js, "--stats")
	if code != 0 || !strings.Contains(stdout, "check ok") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "guest instructions") {
		t.Errorf("--stats table missing: %q", stderr)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"mode", "delay", "exit_code", "guest_instructions", "cache_instructions",
		"interpreted_instructions", "fragments", "code_bytes", "cache_exits", "links", "flushes", "wall_seconds"} {
		if _, ok := m[k]; !ok {
			t.Errorf("stats JSON lacks %q", k)
		}
	}
	if m["mode"] != "dynamo" || m["delay"] != 50.0 || m["exit_code"] != 0.0 {
		t.Errorf("stats JSON: mode %v delay %v exit_code %v", m["mode"], m["delay"], m["exit_code"])
	}
}

// TestRunAsyncCompile runs the default guest with the service-thread
// compiler: same output and status, and its counters in both --stats
// forms; a bad --compile is a usage error.
func TestRunAsyncCompile(t *testing.T) {
	js := filepath.Join(t.TempDir(), "stats.json")
	code, stdout, stderr := runMain(t, "run", "--compile=async", "--compile-queue=2", "--stats-json="+js, "--stats")
	if code != 0 || !strings.Contains(stdout, "check ok") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "service thread: traces queued") || !strings.Contains(stderr, "last fragment inserted at") {
		t.Errorf("--stats lacks the service thread's rows: %q", stderr)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Compiler map[string]any `json:"compiler"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Compiler["mode"] != "async" || m.Compiler["queued"] == 0.0 {
		t.Errorf("stats JSON compiler: %v", m.Compiler)
	}
	for _, k := range []string{"installed", "stale", "duplicate", "unfinished", "queue_full", "service_seconds", "wait_seconds"} {
		if _, ok := m.Compiler[k]; !ok {
			t.Errorf("stats JSON compiler lacks %q", k)
		}
	}
	for _, args := range [][]string{{"run", "--compile=later"}, {"run", "--compile-queue=0"}, {"bench", "--compile=later"}} {
		if code, _, stderr := runMain(t, args...); code != exitUsage || !strings.Contains(stderr, "compile") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// TestRunGC checks that a run raises the collector's target to
// runGCPercent, and leaves one the GOGC variable set alone.
func TestRunGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "100")
	setRunGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC=100 set: GC percent %d, want 100", got)
	}
	os.Unsetenv("GOGC") // (t.Setenv restores it)
	setRunGC()
	if got := debug.SetGCPercent(100); got != runGCPercent {
		t.Errorf("without GOGC: GC percent %d, want %d", got, runGCPercent)
	}
}
