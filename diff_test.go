package rvdyn_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/codecache"
	"rvdyn/interp"
	"rvdyn/net"
)

// diffSize is the size the differential test runs every guest at: small,
// or its benchmark size with RVDYN_FULL=1.
var diffSize = corpus.Small

func init() {
	if os.Getenv("RVDYN_FULL") != "" {
		diffSize = corpus.Full
	}
}

// updateGolden rewrites the corpus's expected outputs
// (bench/corpus/testdata/*.out) from the interpreter's output, but only
// for guests whose output qemu-riscv64 confirms.
var updateGolden = flag.Bool("update-golden", false, "rewrite bench/corpus/testdata/*.out (needs qemu-riscv64)")

type outcome struct {
	stdout, stderr string
	code           int
	insts          uint64
	err            error
	stats          rvdyn.Stats
	cpu            interp.CPU // registers and pc when the guest stopped
}

func run(t *testing.T, image []byte, opts rvdyn.Options) outcome {
	t.Helper()
	var out, errb bytes.Buffer
	opts.Stdout, opts.Stderr = &out, &errb
	if opts.RandSeed == 0 {
		opts.RandSeed = 1 // getrandom (glibc's start-up) the same in every run
	}
	vm, err := rvdyn.New(image, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	code, err := vm.Run()
	st := vm.Stats()
	return outcome{out.String(), errb.String(), code, st.GuestInstructions, err, st, *vm.Machine().CPU}
}

// dynamoConfigs are the optimizer configurations every guest must agree
// under: every delay of the sweep, each mechanism switched off in turn,
// a cache so small that it fills up and is flushed, path profile
// based prediction instead of NET, and compilation on a service thread.
func dynamoConfigs(t *testing.T) map[string]rvdyn.Options {
	cfgs := map[string]rvdyn.Options{}
	for _, d := range []int{0, 1, 10, 50, 100, 500, 1000, 10000} {
		cfgs[fmt.Sprintf("delay %d", d)] = rvdyn.Options{NET: net.Options{Delay: net.DelayOf(d)}}
	}
	for _, m := range rvdyn.Mechanisms() {
		o := rvdyn.Options{NET: net.Options{Delay: 50}}
		if err := o.Disable(m); err != nil {
			t.Fatal(err)
		}
		cfgs["no "+m] = o
	}
	cfgs["16 KiB cache"] = rvdyn.Options{NET: net.Options{Delay: 10}, Cache: codecache.Options{Size: 16 << 10}}
	// Phase flushes at windows short enough that every guest's phases
	// show: the default, which removes old fragments one by one and
	// backs off, and the paper's whole-cache flush. At small sizes
	// only: at benchmark sizes the whole-cache flush would recompile
	// the Scheme guest's evaluator thousands of times.
	if diffSize == corpus.Small {
		phase := codecache.PolicyOptions{Window: 1 << 16, PhaseMinBurst: 4}
		cfgs["phase flush, 64K windows"] = rvdyn.Options{NET: net.Options{Delay: 10}, Policy: phase}
		phase.FullPhaseFlush = true
		cfgs["full phase flush, 64K windows"] = rvdyn.Options{NET: net.Options{Delay: 10}, Policy: phase}
	}
	// Path profile based prediction (NET paper section 6), at the
	// paper's three delays.
	for _, d := range []int{10, 50, 100} {
		cfgs[fmt.Sprintf("path delay %d", d)] = rvdyn.Options{NET: net.Options{Delay: d, Predict: net.PredictPath}}
	}
	// The service-thread compiler: at the default delay; and with a
	// one-trace queue (the main thread compiles beside the service
	// thread) and a cache small enough that installations flush it while
	// other compiles are in flight.
	cfgs["async"] = rvdyn.Options{NET: net.Options{Delay: 50}, Compiler: rvdyn.CompilerOptions{Mode: rvdyn.CompileAsync}}
	cfgs["async queue 1, 16 KiB cache"] = rvdyn.Options{NET: net.Options{Delay: 10}, Cache: codecache.Options{Size: 16 << 10},
		Compiler: rvdyn.CompilerOptions{Mode: rvdyn.CompileAsync, Queue: 1}}
	// The other selection schemes (select.go): the compressor's counter
	// table, and the relational profiler's service thread, free-running
	// (the traces may differ from run to run, the answer may not) and
	// synchronous with a cache small enough to flush (the service
	// thread's restart after a flush).
	cfgs["select compressor"] = rvdyn.Options{Select: rvdyn.SelectOptions{Scheme: rvdyn.SelectCompressor}}
	cfgs["select rpa"] = rvdyn.Options{Select: rvdyn.SelectOptions{Scheme: rvdyn.SelectRPA}}
	cfgs["select rpa sync, 16 KiB cache"] = rvdyn.Options{NET: net.Options{Delay: 10}, Cache: codecache.Options{Size: 16 << 10},
		Select: rvdyn.SelectOptions{Scheme: rvdyn.SelectRPA, RPASync: true}}
	// Value specialization: the default compressor, and an aggressive
	// setting (a handful of loads, a bare majority) whose guards fail
	// often, so every guest leaves through failed guards.
	cfgs["specialize"] = rvdyn.Options{NET: net.Options{Delay: 50}, Specialize: rvdyn.SpecializeOptions{Profile: "default"}}
	cfgs["specialize aggressive"] = rvdyn.Options{NET: net.Options{Delay: 10},
		Specialize: rvdyn.SpecializeOptions{Profile: "perfect", MinCount: 4, MinInvariance: 0.5, MaxFailures: 1 << 30}}
	return cfgs
}

// TestGuestsAgree runs every guest under the interpreter and under the
// optimizer in every configuration of dynamoConfigs, and (when installed)
// under qemu-riscv64, and requires identical output and exit status
// everywhere, identical retired instruction counts and final registers
// across rvdyn's modes, and the output recorded in the corpus (so a bug
// shared by the interpreter and the optimizer is caught without qemu).
// The dynamically linked builds of some guests run in dynamicSubset. At
// benchmark size (RVDYN_FULL=1) every guest runs fullSizeSubset, against
// the optimizer at fullSizeRef instead of the interpreter.
func TestGuestsAgree(t *testing.T) {
	if n := len(corpus.Names()); n < 8 {
		t.Fatalf("only %d guests embedded", n)
	}
	cfgs := dynamoConfigs(t)
	for _, flavor := range corpus.Flavors() {
		for _, name := range corpus.NamesOf(flavor) {
			c := cfgs
			if diffSize == corpus.Full {
				c = fullSizeSubset(cfgs)
			}
			t.Run(flavor.String()+"/"+name, func(t *testing.T) {
				t.Parallel() // each run is its own VM: guests share nothing
				guestAgrees(t, name, flavor, c)
			})
		}
	}
	// Some guests built as a user builds them, dynamically linked
	// (testdata/dynamic/corpus): the GC flavor's expected output, from
	// the toolchain's sysroot.
	dyn, _ := filepath.Glob("testdata/dynamic/corpus/*.elf")
	if len(dyn) < 5 {
		t.Fatalf("only %d dynamically linked corpus guests in testdata/dynamic/corpus", len(dyn))
	}
	for _, path := range dyn {
		name := strings.TrimSuffix(filepath.Base(path), ".elf")
		c := fullSizeSubset(cfgs)
		if diffSize == corpus.Small {
			c = dynamicSubset(t, cfgs)
		}
		t.Run("dyn/"+name, func(t *testing.T) {
			t.Parallel()
			if _, err := os.Stat(sysrootLdSo); err != nil {
				t.Skipf("%s is missing: the dynamically linked builds need the cross toolchain's sysroot", sysrootLdSo)
			}
			image, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			buildAgrees(t, name, corpus.GC, image, path, sysroot, c)
		})
	}
}

// fullSizeSubset is the configurations the benchmark-size run (CI's
// RVDYN_FULL=1 step) gives every guest, which the small-size run checks
// in every configuration: all of them at benchmark size took 37 of CI's
// 58 minutes, and seven of them 16 minutes. The default (fullSizeRef,
// the reference the others must agree with there: see buildAgrees),
// everything compiled at once, and the service-thread compiler. Not the
// 16 KiB cache: at benchmark size most guests thrash it and bail out to
// the interpreter within their first 70M instructions, so that run was
// the interpreter's over billions of instructions (986 of the step's
// 1,421 test-seconds at 976ae2d) for what the small run already checks:
// flushes, bail-out, and the interpreter after it.
func fullSizeSubset(cfgs map[string]rvdyn.Options) map[string]rvdyn.Options {
	sub := map[string]rvdyn.Options{}
	for _, name := range []string{fullSizeRef, "delay 0", "async"} {
		if o, ok := cfgs[name]; ok {
			sub[name] = o
		}
	}
	return sub
}

// dynamicSubset is the configurations the dynamically linked builds of
// corpus guests (testdata/dynamic/corpus) run in beside the interpreter:
// their statically linked builds run in every configuration, and what
// differs here is where the code comes from (the loader, libc and
// libstdc++ mapped from files), so these are the ones that place, link,
// flush and remove that code in different ways.
func dynamicSubset(t *testing.T, cfgs map[string]rvdyn.Options) map[string]rvdyn.Options {
	sub := map[string]rvdyn.Options{}
	for _, name := range []string{"delay 0", "delay 50", "delay 10000", "no link", "no ibl", "no cut-flush", "no hugepages",
		"16 KiB cache", "phase flush, 64K windows", "path delay 50", "async", "select rpa", "specialize"} {
		o, ok := cfgs[name]
		if !ok {
			t.Fatalf("dynamicSubset: no configuration %q", name)
		}
		sub[name] = o
	}
	return sub
}

// schemeAllConfig is the configuration in which the differential test
// runs the Scheme guest's whole small run ("scheme all small"); see
// schemeRotation.
const schemeAllConfig = "delay 50"

// schemeRotation returns the argv each configuration of cfgs runs guest
// name with: args, except for the Scheme guest at the small size, whose
// "all small" run (every benchmark program, one after another) would be
// most of this test's time in every configuration. There only
// schemeAllConfig runs them all; each other configuration runs one
// program at its small size, the programs taken in turn over the
// configurations sorted by name, so that every program runs in some
// configuration and every configuration runs some program
// (TestSchemePrograms runs each program alone at several delays).
func schemeRotation(t *testing.T, name string, image []byte, args []string, cfgs map[string]rvdyn.Options) func(config string) []string {
	if name != "scheme" || diffSize != corpus.Small {
		return func(string) []string { return args }
	}
	progs := schemePrograms(t, image)
	turn := map[string]int{}
	for i, c := range slices.Sorted(maps.Keys(cfgs)) {
		turn[c] = i
	}
	return func(config string) []string {
		if config == schemeAllConfig {
			return args
		}
		return []string{"scheme", progs[turn[config]%len(progs)], "small"}
	}
}

// fullSizeRef is the benchmark-size run's reference configuration: the
// default delay, what a user runs.
const fullSizeRef = "delay 50"

// guestAgrees is TestGuestsAgree for one guest of one corpus flavor.
func guestAgrees(t *testing.T, name string, flavor corpus.Flavor, cfgs map[string]rvdyn.Options) {
	image, err := corpus.ELFOf(name, flavor)
	if err != nil {
		t.Fatal(err)
	}
	path, err := corpus.ELFFileOf(name, flavor)
	if err != nil {
		t.Fatal(err)
	}
	buildAgrees(t, name, flavor, image, path, "", cfgs)
}

// buildAgrees is guestAgrees for one build of a corpus guest: image, in
// file path, whose expected output is flavor's; a dynamically linked build
// runs with its libraries from sysroot ld (qemu-riscv64 -L).
func buildAgrees(t *testing.T, name string, flavor corpus.Flavor, image []byte, path, ld string, cfgs map[string]rvdyn.Options) {
	args := corpus.Args(name, diffSize)
	// The reference run: the interpreter; at benchmark size, where the
	// interpreter takes about a minute a guest (two thirds of CI's
	// time), the optimizer in fullSizeRef's configuration, which the
	// small-size run holds to the interpreter.
	refName, refOpts := "interp", rvdyn.Options{Mode: rvdyn.ModeInterp}
	if diffSize == corpus.Full {
		refName, refOpts = fullSizeRef, cfgs[fullSizeRef]
		refOpts.Mode = rvdyn.ModeDynamo
		cfgs = maps.Clone(cfgs)
		delete(cfgs, fullSizeRef)
	}
	runRef := func(t *testing.T, args []string) outcome {
		o := refOpts
		o.Args, o.LdPrefix = args, ld
		ref := run(t, image, o)
		if ref.err != nil || ref.code != 0 {
			t.Fatalf("%s %v: exit %d, %v, stderr %q", refName, args, ref.code, ref.err, ref.stderr)
		}
		return ref
	}
	ref := runRef(t, args)
	golden := corpus.Outcome(ref.stdout, ref.code)
	if want, err := corpus.ExpectedOf(name, diffSize, flavor); err != nil && !*updateGolden {
		t.Errorf("no expected output: %v (make it with -update-golden)", err)
	} else if err == nil && string(want) != golden {
		t.Errorf("%s output differs from %s:\n got: %q\nwant: %q", refName, corpus.ExpectedFileOf(name, diffSize, flavor), golden, want)
	}
	refs := map[string]outcome{strings.Join(args, " "): ref}
	argsOf := schemeRotation(t, name, image, args, cfgs)
	// Each configuration is a subtest (-run TestGuestsAgree/im/qsort/delay_0),
	// run one after another: the guests run in parallel.
	for _, cname := range slices.Sorted(maps.Keys(cfgs)) {
		opts := cfgs[cname]
		t.Run(cname, func(t *testing.T) {
			cargs := argsOf(cname)
			ref, ok := refs[strings.Join(cargs, " ")]
			if !ok {
				ref = runRef(t, cargs)
				refs[strings.Join(cargs, " ")] = ref
			}
			opts.Mode, opts.Args, opts.LdPrefix = rvdyn.ModeDynamo, cargs, ld
			got := run(t, image, opts)
			if got.err != nil || got.code != ref.code || got.stdout != ref.stdout || got.stderr != ref.stderr {
				t.Errorf("dynamo %s: exit %d (%v), output differs from %s: %v\n got: %q\nwant: %q",
					cname, got.code, got.err, refName, got.stdout != ref.stdout, got.stdout, ref.stdout)
			}
			if got.insts != ref.insts {
				t.Errorf("dynamo %s: %d guest instructions, %s %d", cname, got.insts, refName, ref.insts)
			}
			if got.cpu != ref.cpu {
				t.Errorf("dynamo %s: final registers differ from %s:\n got: %x\nwant: %x", cname, refName, got.cpu, ref.cpu)
			}
			if got.stats.CacheInstructions+got.stats.InterpretedInstructions != got.insts {
				t.Errorf("dynamo %s: cache %d + interpreted %d != %d", cname,
					got.stats.CacheInstructions, got.stats.InterpretedInstructions, got.insts)
			}
			// A service-thread compile may not be finished before a
			// short run ends: then the trace was at least recorded. An
			// RV64GC floating-point guest's hot loops start with or are cut
			// by F/D instructions, which traces do not take in yet, so at
			// high delays its short run may build nothing.
			fp := flavor == corpus.GC && corpus.FloatingPoint(name)
			if async := opts.Compiler.Mode == rvdyn.CompileAsync; got.stats.Fragments == 0 && (!async || got.stats.Traces == 0) && !fp {
				t.Errorf("dynamo %s: no fragments built", cname)
			}
			if c := got.stats.Compiler; c.Queued != c.Installed+c.Stale+c.Duplicate+c.Unfinished {
				t.Errorf("dynamo %s: %d traces queued, %+v", cname, c.Queued, c)
			}
			// (Code compiled again after an interval cut counts in
			// CodeBytes twice: the check holds where nothing was.)
			if strings.Contains(cname, "16 KiB cache") && got.stats.CapacityFlushes == 0 && got.stats.CutRetranslated == 0 && got.stats.CodeBytes > 16<<10 {
				t.Errorf("dynamo %s: %d code bytes but no capacity flush", cname, got.stats.CodeBytes)
			}
		})
	}
	qargs := append([]string{path}, args[1:]...)
	if ld != "" {
		qargs = append([]string{"-L", ld}, qargs...)
	}
	out, code, ok := runQEMUArgs(t, qargs, "")
	if !ok {
		t.Log("qemu-riscv64 not installed: skipping the qemu comparison")
		return
	}
	if code != ref.code || out != ref.stdout {
		t.Errorf("qemu-riscv64: exit %d, output %q; rvdyn: exit %d, output %q", code, out, ref.code, ref.stdout)
	} else if *updateGolden && ld == "" {
		dir, err := corpus.Dir()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, corpus.ExpectedFileOf(name, diffSize, flavor))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(golden), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInstructionLimit checks that --max-instructions stops both modes at
// exactly the limit.
func TestInstructionLimit(t *testing.T) {
	image, err := corpus.ELF(corpus.Default)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []uint64{1, 1000, 123457, 5_000_000} {
		for _, mode := range []rvdyn.Mode{rvdyn.ModeInterp, rvdyn.ModeDynamo} {
			got := run(t, image, rvdyn.Options{Mode: mode, MaxInstructions: limit})
			if !errors.Is(got.err, interp.ErrLimit) || got.insts != limit {
				t.Errorf("%v limit %d: err %v after %d instructions", mode, limit, got.err, got.insts)
			}
		}
	}
}
