package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// storePastLimit loops twice and then stores to address 0; at delay 0 the
// second iteration is recorded, and the recorder reaches the store.
var storePastLimit = []uint32{
	enc(I{Op: interp.OpADDI, Rd: 5, Imm: 2}),          //       t0 = 2
	enc(I{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: -1}), // loop: t0--
	enc(I{Op: interp.OpBNE, Rs1: 5, Imm: -4}),         //       bnez t0, loop
	enc(I{Op: interp.OpSD, Rs1: 0, Rs2: 5}),           //       sd t0, 0(zero): faults
}

// TestRunLimitBeforeFault: a limit that falls just before a faulting
// store stops the guest with status 124 in both modes, also when the
// limit falls inside the recording of a trace.
func TestRunLimitBeforeFault(t *testing.T) {
	prog := writeELF(t, storePastLimit)
	for _, mode := range []string{"--mode=interp", "--delay=0", "--delay=1"} {
		for _, limit := range []int{3, 4, 5} {
			code, _, stderr := runMain(t, "run", mode, fmt.Sprintf("--max-instructions=%d", limit), prog)
			want := fmt.Sprintf("instruction limit reached after %d guest instructions", limit)
			if code != 124 || !strings.Contains(stderr, want) {
				t.Errorf("%s limit %d: exit %d, stderr %q; want 124, %q", mode, limit, code, stderr, want)
			}
		}
		code, _, stderr := runMain(t, "run", mode, "--max-instructions=6", prog)
		if code != 139 || !strings.Contains(stderr, "bad store address 0x0 at pc 0x1000c") {
			t.Errorf("%s limit 6: exit %d, stderr %q; want the fault (139)", mode, code, stderr)
		}
	}
}

// TestRunRefusesNonRegularFiles: a device, a directory or a file larger
// than the guest address space is refused at once with one line and
// status 2, before anything is read (reading /dev/zero never ends).
func TestRunRefusesNonRegularFiles(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.elf")
	if err := os.WriteFile(big, make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"run", "/dev/zero"}, "/dev/zero: not a regular file"},
		{[]string{"run", t.TempDir()}, "not a regular file"},
		{[]string{"run", "--mem-size=1048576", big}, "larger than the guest address space"},
		{[]string{"run", "--mem-size=4294967296", writeELF(t, spin)}, "guest memory size 4294967296 out of range"},
	} {
		code, _, stderr := runMain(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tc.args, code, stderr, tc.msg)
		}
	}
}

// hello writes "hi\n" and exits with status 3.
var hello = []uint32{
	enc(I{Op: interp.OpLUI, Rd: 11, Imm: 0x20000}), // a1 = data ("hi\n")
	enc(I{Op: interp.OpADDI, Rd: 10, Imm: 1}),      // a0 = 1
	enc(I{Op: interp.OpADDI, Rd: 12, Imm: 3}),      // a2 = 3
	enc(I{Op: interp.OpADDI, Rd: 17, Imm: interp.SysWrite}),
	enc(I{Op: interp.OpECALL}),
	enc(I{Op: interp.OpADDI, Rd: 10, Imm: 3}),
	enc(I{Op: interp.OpADDI, Rd: 17, Imm: interp.SysExit}),
	enc(I{Op: interp.OpECALL}),
}

// TestRunStatsJSONNeverChangesStatus: an unwritable --stats-json path is
// a usage error found before the guest runs (no output, status 2); a
// write that fails after the run is reported, and the status stays the
// guest's.
func TestRunStatsJSONNeverChangesStatus(t *testing.T) {
	p := filepath.Join(t.TempDir(), "hello.elf")
	if err := os.WriteFile(p, rvtest.MakeELF(hello, []byte("hi\n"), 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMain(t, "run", "--stats-json=/nonexistent/dir/stats.json", p)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "--stats-json") {
		t.Errorf("unwritable path: exit %d, stdout %q, stderr %q; want 2 before the guest runs", code, stdout, stderr)
	}
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	code, stdout, stderr = runMain(t, "run", "--stats-json=/dev/full", p)
	if code != 3 || stdout != "hi\n" || !strings.Contains(stderr, "--stats-json") {
		t.Errorf("failing write: exit %d, stdout %q, stderr %q; want the guest's 3 and the error reported", code, stdout, stderr)
	}
}

// TestRunQueryInput: a --query argument is the query text, @FILE reads a
// regular file of at most 64 KiB; every bad argument (empty, a device, a
// FIFO, a directory, a missing or oversized file, malformed text) gets
// one line and status 2 before the guest runs, and a long text is never
// taken for a file name.
func TestRunQueryInput(t *testing.T) {
	const q = "for opBRANCH * always collect pc misc; send 1 stop;"
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, empty := file("q.rpa", q), file("empty.rpa", "\n")
	big := file("big.rpa", "# "+strings.Repeat("x", 64<<10)+"\n"+q)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	long := "# " + strings.Repeat("a comment longer than a file name may be ", 10) + "\n" + q
	prog := writeELF(t, hello)
	for _, tc := range []struct {
		name, arg string
		msg       string // "" for a run to the guest's end
	}{
		{"text", q, ""},
		{"long text", long, ""},
		{"file", "@" + good, ""},
		{"empty", "", "--query: empty query"},
		{"blank", " \n\t", "--query: empty query"},
		{"empty file", "@" + empty, "--query: empty query"},
		{"at alone", "@", "--query: @ without a file name"},
		{"device", "@/dev/zero", "/dev/zero: not a regular file"},
		{"fifo", "@" + fifo, "fifo: not a regular file"},
		{"directory", "@" + dir, "not a regular file"},
		{"missing", "@" + filepath.Join(dir, "none"), "no such file or directory"},
		{"too large", "@" + big, "larger than the 64 KiB a query file may hold"},
		{"a path is text", "/dev/zero", "--query: rpa: line 1, column 1"},
		{"malformed", "for opSTORE 5 always collect pc; send 1;", "line 1, column 13: expected a profile tag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runMain(t, "run", "--mode=interp", "--query", tc.arg, prog)
			if tc.msg == "" {
				if code != 3 || len(out) != 3 || !strings.Contains(stderr, "rpa: records selected") {
					t.Errorf("exit %d, output %q, stderr %q; want the guest's 3 and the RPA report", code, out, stderr)
				}
				return
			}
			if code != 2 || out != "" || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, output %q, stderr %q; want 2 and one line with %q", code, out, stderr, tc.msg)
			}
		})
	}
	if code, _, stderr := runMain(t, "rpa", "asm", "@/dev/zero"); code != 2 || !strings.Contains(stderr, "not a regular file") {
		t.Errorf("rpa asm @/dev/zero: exit %d, %q", code, stderr)
	}
	if code, out, _ := runMain(t, "rpa", "asm", "@"+good); code != 0 || !strings.Contains(out, "opBRANCH") {
		t.Errorf("rpa asm @FILE: exit %d, %q", code, out)
	}
}
