package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// dropIn runs the drop-in form in this process with the variables env.
func dropInRun(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	st := mainStatus(args, lookup, strings.NewReader(""), &out, &errb)
	return st.code, out.String(), errb.String()
}

// TestDropInRefusals: what rvdyn cannot honour is refused with status 2
// and one line that names the option or variable, never ignored.
func TestDropInRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"-B", nil, []string{"-B", "0x1000", testGuest}, "rvdyn: -B: not supported by rvdyn"},
		{"-R", nil, []string{"-R", "1G", testGuest}, "rvdyn: -R: not supported"},
		{"-singlestep", nil, []string{"-singlestep", testGuest}, "rvdyn: -singlestep: not supported"},
		{"-plugin", nil, []string{"-plugin", "x.so", testGuest}, "rvdyn: -plugin: not supported"},
		{"QEMU_GUEST_BASE", map[string]string{"QEMU_GUEST_BASE": "0"}, []string{testGuest}, "rvdyn: QEMU_GUEST_BASE=0: not supported"},
		{"-cpu sifive-e51", nil, []string{"-cpu", "sifive-e51", testGuest}, "rvdyn: -cpu: CPU model sifive-e51 (RV64IMAC) is not supported: it has no F and D"},
		{"-cpu x-rv128", nil, []string{"-cpu", "x-rv128", testGuest}, "rvdyn: -cpu: CPU model x-rv128 (RV128) is not supported"},
		{"-cpu bogus", nil, []string{"-cpu", "bogus", testGuest}, `rvdyn: -cpu: unknown CPU model "bogus"`},
		{"-cpu v", nil, []string{"-cpu", "rv64,v=true", testGuest}, "rvdyn: -cpu: extension v is not implemented by rvdyn"},
		{"-cpu c=off", nil, []string{"-cpu", "rv64,c=off", testGuest}, "rvdyn: -cpu: extension c cannot be switched off"},
		{"-cpu vlen", nil, []string{"-cpu", "rv64,vlen=128", testGuest}, "rvdyn: -cpu: CPU property vlen=128 is not supported"},
		{"QEMU_CPU", map[string]string{"QEMU_CPU": "rv64,zba=on"}, []string{testGuest}, "rvdyn: QEMU_CPU=rv64,zba=on: extension zba is not implemented"},
		{"-d exec", nil, []string{"-d", "exec", testGuest}, "rvdyn: -d: log item exec is not supported"},
		{"-d bogus", nil, []string{"-d", "in_asm,bogus", testGuest}, `rvdyn: -d: unknown log item "bogus"`},
		{"-g path", nil, []string{"-g", "/tmp/sock", testGuest}, "rvdyn: -g: want a TCP port"},
		{"-s 0", nil, []string{"-s", "0", testGuest}, "rvdyn: -s: want a size in bytes"},
		{"-s junk", nil, []string{"-s", "12Q", testGuest}, "rvdyn: -s: want a size in bytes"},
		{"-seed 0", nil, []string{"-seed", "0", testGuest}, "rvdyn: -seed: seed 0 is not supported"},
		{"-E no =", nil, []string{"-E", "A=1,B", testGuest}, `rvdyn: -E: want VAR=VALUE, got "B"`},
		{"-U with =", nil, []string{"-U", "A=1", testGuest}, `rvdyn: -U: want a variable name`},
		{"missing argument", nil, []string{"-L"}, "rvdyn: missing argument for option '-L'"},
		{"unknown option", nil, []string{"-frob", testGuest}, "rvdyn: unknown option '-frob'"},
		{"rvdyn flag, bad value", nil, []string{"--delay=x", testGuest}, "rvdyn: --delay x: "},
		{"RVDYN_ bad value", map[string]string{"RVDYN_DELAY": "x"}, []string{testGuest}, "rvdyn: RVDYN_DELAY=x: "},
		{"dynamically linked, no sysroot", nil, []string{"testdata/dynhello.elf"}, "rvdyn: testdata/dynhello.elf: bad guest program: dynamically linked, and its dynamic loader /lib/ld-linux-riscv64-lp64d.so.1 cannot be opened (no such file or directory): give the sysroot that holds it with -L DIR or QEMU_LD_PREFIX"},
		{"dynamically linked, -L beats QEMU_LD_PREFIX", map[string]string{"QEMU_LD_PREFIX": "/usr/riscv64-linux-gnu"}, []string{"-L", "/nonexistent", "testdata/dynhello.elf"}, "rvdyn: testdata/dynhello.elf: bad guest program: dynamically linked, and its dynamic loader /lib/ld-linux-riscv64-lp64d.so.1 cannot be opened (no such file or directory): it is not under the sysroot /nonexistent either"},
		{"no program", nil, []string{"-strace"}, "rvdyn: no program given"},
		{"not a command", nil, []string{"frob"}, "rvdyn: frob: not a command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := dropInRun(t, tc.env, tc.args...)
			if code != exitUsage || out != "" || !strings.HasPrefix(errs, tc.want) || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line starting %q", code, out, errs, tc.want)
			}
		})
	}
}

// TestDropInAccepts: options rvdyn honours take effect, with the command
// line beating the variables and rvdyn's own flags usable in both.
func TestDropInAccepts(t *testing.T) {
	stats := filepath.Join(t.TempDir(), "stats.json")
	for _, tc := range []struct {
		name    string
		env     map[string]string
		args    []string
		code    int
		out     string // in stdout
		errs    string // in stderr
		notErrs string // not in stderr
	}{
		{"-h", nil, []string{"-h"}, 0, "QEMU_LD_PREFIX", "", ""},
		{"--help lists rvdyn's flags", nil, []string{"--help"}, 0, "rvdyn run [flags]", "", ""},
		{"-version", nil, []string{"-version"}, 0, "a drop-in for qemu-riscv64", "", ""},
		{"QEMU_VERSION", map[string]string{"QEMU_VERSION": ""}, []string{testGuest}, 0, "rvdyn version", "", ""},
		{"-cpu help", nil, []string{"-cpu", "help"}, 0, "sifive-u54", "", ""},
		{"-d help", nil, []string{"-d", "help"}, 0, "nochain", "", ""},
		{"rvdyn flags", nil, []string{"-0", "x", "--stats", "--mode", "interp", testGuest, "exit", "3"}, 3, "argv[0] x", "guest instructions", ""},
		{"RVDYN_STATS", map[string]string{"RVDYN_STATS": "1", "RVDYN_STATS_JSON": stats}, []string{testGuest}, 0, "argc 1", "guest instructions", ""},
		{"command line beats RVDYN_", map[string]string{"RVDYN_STATS": "1"}, []string{"--stats=false", testGuest}, 0, "argc 1", "", "guest instructions"},
		{"-d in_asm lists fragments", nil, []string{"-d", "in_asm", "--delay=0", testGuest, "stack", "50"}, 0, "stack ok", "fragment", ""},
		{"QEMU_LOG replaced by -d", map[string]string{"QEMU_LOG": "in_asm"}, []string{"-d", "nochain", "--delay=0", testGuest}, 0, "argc 1", "", "fragment"},
		{"-cpu properties", nil, []string{"-cpu", "sifive-u54,zba=false,c=on,Zifencei=true", testGuest}, 0, "argc 1", "", ""},
		{"--exit-status=code", nil, []string{"--exit-status=code", testGuest, "segv"}, 139, "argc 2", "bad store address", ""},
		{"a program named like a command", nil, []string{"--", testGuest}, 0, "argc 1", "", ""},
		{"--guest", nil, []string{"--guest=sieve", "--max-instructions=1000"}, exitLimit, "", "after 1000 guest instructions", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := dropInRun(t, tc.env, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.errs) || tc.notErrs != "" && strings.Contains(errs, tc.notErrs) {
				t.Errorf("exit %d, stdout\n%s\nstderr\n%s\nwant exit %d, stdout with %q, stderr with %q and without %q", code, out, errs, tc.code, tc.out, tc.errs, tc.notErrs)
			}
		})
	}
	if b, err := os.ReadFile(stats); err != nil || !bytes.Contains(b, []byte(`"exit_code"`)) {
		t.Errorf("RVDYN_STATS_JSON: %v, %.100s", err, b)
	}
}

// TestDiesOfSignalAfterStats: rvdyn dies of its guest's signal only after
// --stats and --stats-json are written, and leaves no core file.
func TestDiesOfSignalAfterStats(t *testing.T) {
	dir := t.TempDir()
	guest, _ := filepath.Abs(testGuest)
	for _, c := range []struct{ args []string }{
		{[]string{"run", "--stats", "--stats-json=s.json", guest, "segv"}},
		{[]string{"--stats", "--stats-json=s.json", guest, "segv"}},
	} {
		os.Remove(filepath.Join(dir, "s.json"))
		r := rvdynProc(t, dir, baseEnv, c.args...)
		b, _ := os.ReadFile(filepath.Join(dir, "s.json"))
		if r.end != "signal SIGSEGV" || r.core || !strings.Contains(r.stderr, "guest instructions") || !bytes.Contains(b, []byte(`"exit_code": 139`)) {
			t.Errorf("%q: %s (core %v), stderr\n%s\nstats file %.200s", c.args, r.end, r.core, r.stderr, b)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*core*")); len(m) > 0 {
		t.Errorf("core files left: %v", m)
	}
}

// TestBinfmtArgs: a start by binfmt_misc is recognized by AT_EXECFD (rvdyn's
// own entry) or an interpreter named *-binfmt-P (Debian's), and becomes
// the drop-in command line with the program's argv[0]; any other start is
// not one.
func TestBinfmtArgs(t *testing.T) {
	if args, ok := binfmtArgs([]string{"/usr/bin/rvdyn", "/x/prog", "prog", "a"}); ok {
		t.Errorf("a plain start taken for binfmt_misc's: %q", args)
	}
	args, ok := binfmtArgs([]string{"/usr/libexec/x/riscv64-binfmt-P", "/x/prog", "prog", "a", "-b"})
	if want := []string{"-0", "prog", "--", "/x/prog", "a", "-b"}; !ok || !slices.Equal(args, want) {
		t.Errorf("got %q, %v; want %q", args, ok, want)
	}
}
