// Dynamically linked guests (testdata/dynamic: the sysroot's ld.so and shared libraries, dlopen, file mappings, memory protection, JIT code, faults) -> the same output in every mode as under qemu-riscv64 -L.

package rvdyn_test

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/interp"
	"rvdyn/net"
)

// sysroot is where the Debian cross toolchain (libc6-riscv64-cross and
// friends) keeps the RISC-V dynamic linker and shared libraries: what the
// dynamic guests run with, as qemu-riscv64 -L runs them.
const sysroot = "/usr/riscv64-linux-gnu"

// sysrootLdSo is the dynamic linker the guests name in PT_INTERP, in the
// sysroot.
const sysrootLdSo = sysroot + "/lib/ld-linux-riscv64-lp64d.so.1"

// dynamicConfigs are the optimizer configurations (names from
// dynamoConfigs) the dynamic guests must agree under. Not all of them:
// that would take minutes on CI's two cores, and most switch off one
// optimization these guests stress no more than the corpus does. These
// are the ones where dynamic linking, mappings and rewritten code make a
// difference:
//   - delay 0: every block is a fragment at its first execution, so the
//     dynamic linker's start-up code, the JIT's generated code and code
//     about to be unmapped or made non-executable all run natively before
//     they change;
//   - delay 50: the default;
//   - delay 1000: only the long loops are compiled, late, after ld.so is
//     done, and the JIT's functions just before their rewrite;
//   - 16 KiB cache: the shared libraries' code fills the cache again and
//     again, so fragments are flushed and rebuilt across dlopen/dlclose;
//   - async: fragments compiled on the service thread may be installed
//     after the guest rewrote, unmapped or mprotect'ed their code;
//   - specialize aggressive: the PLT's loads from the GOT are as
//     invariant as loads get, except that lazy binding (the programs are
//     not linked with -z now) rewrites each entry at its function's first
//     call, and dlclose/dlopen change what a library's data holds: the
//     guards on loaded values must fail then.
var dynamicConfigs = []string{"delay 0", "delay 50", "delay 1000", "16 KiB cache", "async", "specialize aggressive"}

// A dynamicRun is one run of a testdata/dynamic program.
type dynamicRun struct {
	name string   // the subtest: the ELF's name, and fault's case
	elf  string   // testdata/dynamic/NAME.elf
	args []string // after argv[0]
	out  string   // the expected output's file
}

// dynamicRuns lists the runs of testdata/dynamic: each NAME.elf once,
// compared with NAME.out; fault.elf once per fault-CASE.out, given CASE.
// A NAME-static.elf (the same source, linked statically) shares NAME's
// expected outputs.
func dynamicRuns(t *testing.T) []dynamicRun {
	elfs, _ := filepath.Glob("testdata/dynamic/*.elf")
	faults, _ := filepath.Glob("testdata/dynamic/fault-*.out")
	if len(elfs) < 8 || len(faults) < 10 {
		t.Fatalf("only %d programs and %d fault cases in testdata/dynamic", len(elfs), len(faults))
	}
	var runs []dynamicRun
	for _, elfPath := range elfs {
		name := strings.TrimSuffix(filepath.Base(elfPath), ".elf")
		src := strings.TrimSuffix(name, "-static")
		if src != "fault" {
			runs = append(runs, dynamicRun{name, elfPath, nil, "testdata/dynamic/" + src + ".out"})
			continue
		}
		for _, out := range faults {
			c := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(out), "fault-"), ".out")
			runs = append(runs, dynamicRun{name + "/" + c, elfPath, []string{c}, out})
		}
	}
	return runs
}

// TestDynamicPrograms runs each program of testdata/dynamic (glibc's
// dynamic linker and shared libc, libm and libstdc++ from the sysroot;
// dlopen; signal handlers, for faults too; mmap, mprotect, munmap and
// mremap with their errors; code written, rewritten and called; one bad
// access per fault case), the
// dynamically linked builds with LdPrefix set to the sysroot and the
// static builds as they are, under the interpreter and under the
// optimizer configurations of dynamicConfigs. Output, exit status (128+N
// for a death by signal N), fault, instruction count and final registers
// must equal the interpreter's, and the output and status must equal the
// expected output, which qemu-riscv64 -L gave (rechecked here when it is
// installed). The dynamically linked programs are skipped where the
// sysroot is not installed.
func TestDynamicPrograms(t *testing.T) {
	all := dynamoConfigs(t)
	_, qemuErr := exec.LookPath("qemu-riscv64")
	_, ldErr := os.Stat(sysrootLdSo)
	for _, r := range dynamicRuns(t) {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			image, err := os.ReadFile(r.elf)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(r.out)
			if err != nil {
				t.Fatal(err)
			}
			if ldErr != nil && hasInterp(t, r.elf) {
				t.Skipf("%s is dynamically linked and %s is missing (Debian: apt-get install libc6-riscv64-cross libstdc++6-riscv64-cross, which g++-riscv64-linux-gnu pulls in)", r.elf, sysrootLdSo)
			}
			args := append([]string{r.elf}, r.args...)
			// Each program its own $TMPDIR (mmap.c's temporary file):
			// parallel runs with the same random seed draw the same names.
			env := []string{"TMPDIR=" + t.TempDir()}
			ref := run(t, image, rvdyn.Options{Mode: rvdyn.ModeInterp, Config: interp.Config{Args: args, Env: env, LdPrefix: sysroot}})
			var fault *interp.Fault
			if ref.err != nil && !errors.As(ref.err, &fault) {
				t.Fatalf("interp: %v\nstderr: %.2000s", ref.err, ref.stderr)
			}
			if got := fmt.Sprintf("%sexit %d\n", ref.stdout, ref.code); got != string(want) {
				t.Errorf("interp differs from qemu-riscv64's output (%s), %v:\n%s\nstderr: %.2000s", r.out, ref.err, outputDiff("qemu", string(want), "interp", got), ref.stderr)
			}
			for _, cname := range dynamicConfigs {
				opts, ok := all[cname]
				if !ok {
					t.Fatalf("dynamoConfigs has no configuration %q", cname)
				}
				opts.Mode, opts.Args, opts.Env, opts.LdPrefix = rvdyn.ModeDynamo, args, env, sysroot
				got := run(t, image, opts)
				if got.code != ref.code || got.stdout != ref.stdout || fmt.Sprint(got.err) != fmt.Sprint(ref.err) {
					t.Errorf("dynamo %s: exit %d (%v); interp: exit %d (%v); output:\n%s\nstderr: %.2000s",
						cname, got.code, got.err, ref.code, ref.err, outputDiff("interp", ref.stdout, "dynamo", got.stdout), got.stderr)
				}
				if got.insts != ref.insts || got.cpu != ref.cpu {
					t.Errorf("dynamo %s: %d instructions (interp %d), registers equal: %v", cname, got.insts, ref.insts, got.cpu == ref.cpu)
				}
			}
			if qemuErr != nil {
				t.Log("qemu-riscv64 not installed: the expected output is not rechecked")
				return
			}
			// From elsewhere, by absolute path: the programs find their
			// files through argv[0], whatever the working directory, and
			// a core file qemu may leave lands in the temporary directory.
			abs, err := filepath.Abs(r.elf)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("qemu-riscv64", slices.Concat([]string{"-L", sysroot, abs}, r.args)...)
			cmd.Dir = t.TempDir()
			// Its own $TMPDIR too: without one, mmap.c's file is
			// /tmp/rvdyn-mmap-shared for every qemu run, and a parallel
			// run of the static and the dynamic build truncates it under
			// the other's mapping (SIGBUS, exit 135).
			cmd.Env = []string{"TMPDIR=" + cmd.Dir}
			out, _ := cmd.Output()
			if got := fmt.Sprintf("%sexit %d\n", out, shellStatus(cmd.ProcessState)); got != string(want) {
				t.Errorf("qemu-riscv64 now differs from %s (rebuild with make -C testdata/dynamic):\n%s", r.out, outputDiff(r.out, string(want), "qemu", got))
			}
		})
	}
}

// hasInterp reports whether the ELF file names a dynamic linker
// (PT_INTERP).
func hasInterp(t *testing.T, path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return true
		}
	}
	return false
}

// outputDiff shows the first lines of two outputs, named aName and bName,
// that differ, or says that they are the same.
func outputDiff(aName, a, bName, b string) string {
	const most = 12
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	w := max(len(aName), len(bName)) + 1
	var s strings.Builder
	n := 0
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x == y {
			continue
		}
		if n++; n <= most {
			fmt.Fprintf(&s, "line %d:\n  %-*s %q\n  %-*s %q\n", i+1, w, aName+":", x, w, bName+":", y)
		}
	}
	switch {
	case n == 0:
		return "  (the same)"
	case n > most:
		fmt.Fprintf(&s, "and %d more lines\n", n-most)
	}
	return s.String()
}

// TestInvalidationPerPage: the JIT-style guest rewrites code it has run
// hot (in a page it re-protects, and in a page that is writable and
// executable at once, flushed with __builtin___clear_cache): the
// fragments built from those pages go, one page at a time, and nothing
// else does (no flush: the program's own fragments stay), and the answer
// is the interpreter's.
func TestInvalidationPerPage(t *testing.T) {
	image, err := os.ReadFile("testdata/dynamic/jit-static.elf")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"testdata/dynamic/jit-static.elf"}
	ref := run(t, image, rvdyn.Options{Mode: rvdyn.ModeInterp, Config: interp.Config{Args: args}})
	// Its mprotects cut the stores' fast interval short, which flushes
	// (TestCutFlush): off here, where the point is that nothing else does.
	opts := rvdyn.Options{Mode: rvdyn.ModeDynamo, NET: net.Options{Delay: net.NoDelay}, Config: interp.Config{Args: args}}
	if err := opts.Disable("cut-flush"); err != nil {
		t.Fatal(err)
	}
	got := run(t, image, opts)
	if got.err != nil || ref.err != nil || got.stdout != ref.stdout || got.insts != ref.insts {
		t.Fatalf("dynamo: %v, %d instructions; interp: %v, %d; output equal %v", got.err, got.insts, ref.err, ref.insts, got.stdout == ref.stdout)
	}
	st := got.stats
	if st.StaleRemoved == 0 || st.Flushes != 0 || st.StaleRemoved >= st.Fragments {
		t.Errorf("%d fragments, %d removed as stale, %d flushes: want some removed, some kept, no flush", st.Fragments, st.StaleRemoved, st.Flushes)
	}
}

// TestCutFlush runs the RV64GC phases guest at its benchmark size, whose
// glibc maps its large arrays and unmaps the first one while the second
// is in use above it (cutting the heap's fast interval short), with the
// flush after the cut
// (codecache.Policy.Cut) compiling the cache's traces again (the
// default), recording them afresh (`--disable=cut-retranslate`), and
// with no flush: the same output and instruction count in all three; a
// cut flush only where it is on; fragments compiled again only by
// default, and then no trace recorded that the run without a flush does
// not record too.
func TestCutFlush(t *testing.T) {
	offs := []string{"", "cut-retranslate", "cut-flush"}
	got := runFullGC(t, "phases", offs)
	for i, off := range offs {
		if n := got[i].stats.CutFlushes; (off == "cut-flush") != (n == 0) {
			t.Errorf("--disable=%q: %d cut flushes", off, n)
		}
		if n := got[i].stats.CutRetranslated; (off == "") != (n > 0) {
			t.Errorf("--disable=%q: %d fragments compiled again after a cut", off, n)
		}
	}
	if got[0].insts != got[1].insts || got[0].insts != got[2].insts {
		t.Errorf("instructions: %d compiling again, %d recording again, %d without the flush", got[0].insts, got[1].insts, got[2].insts)
	}
	if got[0].stats.Traces != got[2].stats.Traces {
		t.Errorf("traces recorded: %d compiling again after the cut, %d without a flush: want the same", got[0].stats.Traces, got[2].stats.Traces)
	}
}

// TestCutRetranslateSelective runs the RV64GC C++ ledger guest, whose
// vectors grow by mapping a larger block above the old one and
// unmapping the old: each such munmap cuts the heap's interval short or
// takes pages from the mappings', and the dispatcher compiles again
// only the fragments whose recorded addresses changed sides
// (engine.hintsMoved). Compiling the whole cache at each cut, as it
// once did, compiled about 2,700 fragments for its 737 traces.
func TestCutRetranslateSelective(t *testing.T) {
	s := runFullGC(t, "ledger", []string{""})[0].stats
	if s.CutFlushes < 2 || s.CutRetranslated == 0 || s.CutRetranslated >= s.Traces {
		t.Errorf("%d cut flushes compiled %d fragments again, of %d traces: want at least 2 flushes and some but fewer fragments than traces",
			s.CutFlushes, s.CutRetranslated, s.Traces)
	}
}

// runFullGC runs the RV64GC build of corpus guest name at its benchmark
// size in dynamo mode once per entry of offs (a --disable list, "" for
// none) and fails unless each gives the corpus's expected output.
func runFullGC(t *testing.T, name string, offs []string) []outcome {
	t.Helper()
	image, err := corpus.ELFOf(name, corpus.GC)
	if err != nil {
		t.Fatal(err)
	}
	want, err := corpus.ExpectedOf(name, corpus.Full, corpus.GC)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]outcome, len(offs))
	for i, off := range offs {
		opts := rvdyn.Options{Mode: rvdyn.ModeDynamo, Config: interp.Config{Args: corpus.Args(name, corpus.Full)}}
		if err := opts.Disable(off); err != nil {
			t.Fatal(err)
		}
		o := run(t, image, opts)
		if o.err != nil || corpus.Outcome(o.stdout, o.code) != string(want) {
			t.Fatalf("%s --disable=%q: exit %d (%v), output %q", name, off, o.code, o.err, o.stdout)
		}
		got[i] = o
	}
	return got
}

// TestArrayBetweenHoles runs RV64GC phases, which maps two arrays and a
// larger block after them (bottom up: above them), unmaps the block and
// then the first array: the second array, between two holes, must keep
// a fast interval (the mappings' interval follows the memory mapped
// after a cut, not the guard gap), so its accesses walk no access table.
// With an interval that ends at the guard gap they walked it 33 million
// times. The same run without
// protection (--disable=protection) must retire the same instructions
// with no interval cut.
func TestArrayBetweenHoles(t *testing.T) {
	got := runFullGC(t, "phases", []string{"", "protection"})
	if s := got[0].stats; s.CutFlushes == 0 || s.TableWalks > 1000 {
		t.Errorf("protected: %d cut flushes (want some), %d table walks (want next to none)", s.CutFlushes, s.TableWalks)
	}
	if s := got[1].stats; s.CutFlushes != 0 || s.TableWalks != 0 {
		t.Errorf("unprotected: %d cut flushes, %d table walks: want none", s.CutFlushes, s.TableWalks)
	}
	if got[0].insts != got[1].insts {
		t.Errorf("instructions: %d protected, %d unprotected", got[0].insts, got[1].insts)
	}
}
