// The run command: flags and a guest program -> its output and exit status, plus statistics.

package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"rvdyn"
	"rvdyn/bench/corpus"

	"golang.org/x/sys/unix"
)

// Exit statuses of rvdyn itself (a guest's own status passes through).
const (
	exitUsage = 2   // bad flag, missing or malformed program
	exitLimit = 124 // --max-instructions or --timeout reached (as timeout(1) reports)
)

// runCmd is rvdyn run; it returns the exit status (128+signal for a
// guest killed by a signal: see runStatus for rvdyn's own death).
func runCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runStatus(args, stdin, stdout, stderr).code
}

// runStatus is rvdyn run: flags, then the program and its arguments.
func runStatus(args []string, stdin io.Reader, stdout, stderr io.Writer) exitStatus {
	fs, start := newRun(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: rvdyn run [flags] [prog.elf [args...]]\n\nRuns a static RISC-V Linux ELF program (RV64GC or RV64IM, e.g. built with riscv64-linux-gnu-gcc -O2 -static); with no program, runs the embedded %q guest.\nThe guest's environment is rvdyn's, changed by -E and -U.\nThe exit status is the guest's. A guest killed by a signal (a fault, abort()) kills rvdyn with the same signal, without a core file; with --exit-status=code the status is 128+signal instead (139 bad address, 132 illegal instruction).\n'rvdyn PROG [ARGS...]' runs a program the same way with qemu-riscv64's options and environment variables (see 'rvdyn -h').\n\nflags:\n", corpus.Default)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitStatus{}
		}
		return exitStatus{code: exitUsage}
	}
	return start(stdin, stdout, stderr)
}

// newRun returns run's flag set, which reports bad flags to stderr, and
// the function that runs the guest the parsed flags describe (the
// program and its arguments are fs.Args()).
func newRun(stderr io.Writer) (fs *flag.FlagSet, start func(stdin io.Reader, stdout, stderr io.Writer) exitStatus) {
	fs = flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mode := fs.String("mode", "dynamo", "execution mode: dynamo (interpret + NET + native code cache) or interp (interpret only)")
	delay := fs.Int("delay", rvdyn.DefaultDelay, "NET prediction delay: a trace head is hot when its counter exceeds this (0 = first execution)")
	maxInsts := fs.Uint64("max-instructions", 0, "stop the guest after this many instructions (0 = no limit); exit status 124")
	timeout := fs.Duration("timeout", 0, "stop the guest after this much wall time, e.g. 10s (0 = no limit); exit status 124")
	predict := fs.String("predict", "net", "online hot path prediction: net (one counter per trace head) or path (every path from a head recorded and counted; NET paper Figure 5); an alias of --select=net|path")
	sf := addSelectFlags(fs)
	maxTrace := fs.Int("max-trace-len", rvdyn.DefaultMaxTraceLen, "maximum guest instructions in one trace")
	cacheSize := fs.Int("cache-size", 0, "code cache capacity in bytes (0 = 32 MiB); a full cache is flushed")
	memSize := fs.Uint64("mem-size", 0, "guest address space in bytes, 1 MiB to 2 GiB (0 = 1 GiB): bounds the guest memory rvdyn may commit")
	stackSize := fs.Uint64("stack-size", 0, "guest stack limit in bytes, a multiple of 4096 (0 = 8 MiB, or a quarter of a smaller address space); an access below it is a guest fault (SIGSEGV)")
	compile := fs.String("compile", "sync", "where fragments are compiled: sync (on the main thread at once; deterministic) or async (on a service thread while the guest runs on, installed at the dispatcher's next safe point)")
	compileQueue := fs.Int("compile-queue", rvdyn.DefaultCompileQueue, "with --compile=async: traces queued or being compiled at most; a trace recorded when it is full is compiled on the main thread")
	disable := fs.String("disable", "", "switch off mechanisms, comma-separated: "+strings.Join(rvdyn.Mechanisms(), ", ")+"; help: say what each does")
	guest := fs.String("guest", "", "run the named embedded guest instead of a file (see 'rvdyn bench -list')")
	stats := fs.Bool("stats", false, "print run statistics to stderr when the guest ends")
	statsJSON := fs.String("stats-json", "", "write run statistics as one JSON object to this file")
	listing := fs.String("listing", "", "write every compiled fragment (guest trace and x86-64 code) to this file; - for stderr (or --log-file)")
	query := fs.String("query", "", "relational profiler queries (docs/rpa.md), in either mode: the query text itself, or @FILE to read it from FILE; prints each queue's per-pc table and the RPA stats to stderr")
	querySeed := fs.Uint64("query-seed", 1, "seed for the queries' random sampling (every N, filter N)")
	root := fs.String("root", "", "confine the guest's file system calls to this directory, which it sees as / ('..' and symlinks cannot leave it); default: host paths, as qemu-riscv64")
	strace := fs.Bool("strace", false, "print each system call, its arguments and result, to stderr (as qemu-riscv64 -strace)")
	perfMap := fs.Bool("perf-map", false, "write /tmp/perf-PID.map naming each fragment's code by guest function, for perf report (docs/profiling.md)")
	gdbAddr := fs.String("gdb", "", "wait for gdb (target remote HOST:PORT) on this address, e.g. :1234, and run the guest under its control (as qemu-riscv64 -g)")
	queryJSON := fs.String("query-json", "", "with --query: write the per-pc tables and RPA stats as JSON to this file instead")
	specialize := fs.String("specialize", "", "dynamo mode: specialize fragments on the values loads (nearly) always return, behind guards, from a value profile kept by this stream compressor in the stratified paper's notation (e.g. H[P4]256, P2, R8), 'default' ("+rvdyn.DefaultValueProfile+") or 'perfect' (every load); empty: off (docs/internals.md)")
	invariance := fs.Float64("specialize-invariance", 0.99, "with --specialize: the share of a load's profiled values the top value must have")
	gcf := addGCFlags(fs)
	envf := addEnvFlags(fs)
	seed := fs.Uint64("seed", 0, "make the guest's getrandom deterministic, a stream seeded with this number (as qemu-riscv64 -seed); 0: the host's random source")
	ldPrefix := fs.String("L", "", "sysroot of a dynamically linked program's loader and libraries (as qemu-riscv64 -L): absolute paths the guest opens are tried there first; default: $RVDYN_LD_PREFIX, else $QEMU_LD_PREFIX")
	argv0 := fs.String("argv0", "", "the guest's argv[0] (as qemu-riscv64 -0); default: the program path")
	logFile := fs.String("log-file", "", "write --strace lines and --listing=- to this file instead of stderr (as qemu-riscv64 -D)")
	execFD := fs.Int("exec-fd", -1, "read the program from this open file descriptor (as binfmt_misc's O flag passes it); the program argument is then its name")
	exitHow := fs.String("exit-status", "signal", "how a guest killed by a signal ends rvdyn: signal (rvdyn dies of the same signal, without a core file, as qemu-riscv64) or code (exit status 128+signal)")
	start = func(stdin io.Reader, stdout, stderr io.Writer) exitStatus {
		if *disable == "help" {
			writeMechanisms(stdout)
			return exitStatus{}
		}
		if *exitHow != "signal" && *exitHow != "code" {
			fmt.Fprintf(stderr, "rvdyn: --exit-status: want signal or code, not %q\n", *exitHow)
			return exitStatus{code: exitUsage}
		}
		m, err := rvdyn.ParseMode(*mode)
		if err != nil {
			fmt.Fprintf(stderr, "rvdyn: %v\n", err)
			return exitStatus{code: exitUsage}
		}
		pred, err := rvdyn.ParsePredict(*predict)
		if err != nil {
			fmt.Fprintf(stderr, "rvdyn: --predict: %v\n", err)
			return exitStatus{code: exitUsage}
		}
		sel, err := sf.options(pred)
		if err != nil {
			fmt.Fprintf(stderr, "rvdyn: %v\n", err)
			return exitStatus{code: exitUsage}
		}
		if *delay < 0 || *maxTrace < 1 || *cacheSize < 0 || *compileQueue < 1 {
			fmt.Fprintln(stderr, "rvdyn: --delay must be >= 0, --max-trace-len >= 1, --cache-size >= 0, --compile-queue >= 1")
			return exitStatus{code: exitUsage}
		}
		cmode, err := rvdyn.ParseCompileMode(*compile)
		if err != nil {
			fmt.Fprintf(stderr, "rvdyn: --compile: %v\n", err)
			return exitStatus{code: exitUsage}
		}

		var runs []guestRun
		if *execFD >= 0 {
			var image []byte
			if fs.NArg() == 0 {
				err = fmt.Errorf("--exec-fd: the program's name is missing")
			} else if image, err = readProgramFD(*execFD, fs.Arg(0), *memSize); err == nil {
				runs = []guestRun{{fs.Arg(0), image, fs.Args()}}
			}
		} else {
			runs, err = selectGuests(fs.Args(), *guest, false, *memSize)
		}
		if err == nil && len(runs) != 1 {
			err = fmt.Errorf("--guest: run takes one guest, not %d", len(runs))
		}
		if err != nil {
			fmt.Fprintf(stderr, "rvdyn: %v\n", err)
			return exitStatus{code: exitUsage}
		}
		image, gargs := runs[0].image, runs[0].args
		var path string
		if flagSet(fs, "argv0") {
			path, gargs = gargs[0], append([]string{*argv0}, gargs[1:]...)
		}
		if !flagSet(fs, "L") {
			*ldPrefix = cmp.Or(os.Getenv("RVDYN_LD_PREFIX"), os.Getenv("QEMU_LD_PREFIX"))
		}
		logw := stderr // where strace and --listing=- go
		if *logFile != "" {
			f, err := os.Create(*logFile)
			if err != nil {
				fmt.Fprintf(stderr, "rvdyn: --log-file: %v\n", err)
				return exitStatus{code: exitUsage}
			}
			defer f.Close()
			bw := bufio.NewWriter(f)
			defer bw.Flush()
			logw = bw
		}

		opts := rvdyn.Options{Mode: m, NET: rvdyn.NETOptions{Delay: rvdyn.DelayOf(*delay), MaxTraceLen: *maxTrace, Predict: pred},
			Select: sel, Cache: rvdyn.CacheOptions{Size: *cacheSize}, Compiler: rvdyn.CompilerOptions{Mode: cmode, Queue: *compileQueue}, MaxInstructions: *maxInsts, Timeout: *timeout,
			Config: rvdyn.Config{Args: gargs, Path: path, LdPrefix: *ldPrefix, Env: envf.environ(hostEnviron()), RandSeed: *seed, Stdin: stdin, Stdout: stdout, Stderr: stderr, MemSize: *memSize, StackSize: *stackSize, Root: *root}}
		if *strace {
			opts.Strace = logw
		}
		opts.Specialize = rvdyn.SpecializeOptions{Profile: *specialize, MinInvariance: *invariance}
		if *invariance <= 0 || *invariance > 1 {
			fmt.Fprintln(stderr, "rvdyn: --specialize-invariance must be in (0, 1]")
			return exitStatus{code: exitUsage}
		}
		if opts.GC, err = gcf.options(); err != nil {
			fmt.Fprintf(stderr, "rvdyn: %v\n", err)
			return exitStatus{code: exitUsage}
		}
		if err := opts.Disable(*disable); err != nil {
			fmt.Fprintf(stderr, "rvdyn: --disable: %v\n", err)
			return exitStatus{code: exitUsage}
		}
		if *listing == "-" {
			opts.Listing = logw
		} else if *listing != "" {
			f, err := os.Create(*listing)
			if err != nil {
				fmt.Fprintf(stderr, "rvdyn: %v\n", err)
				return exitStatus{code: exitUsage}
			}
			defer f.Close()
			bw := bufio.NewWriter(f)
			defer bw.Flush()
			opts.Listing = bw
		}
		if *perfMap {
			f, err := os.Create(fmt.Sprintf("/tmp/perf-%d.map", os.Getpid()))
			if err != nil {
				fmt.Fprintf(stderr, "rvdyn: --perf-map: %v\n", err)
				return exitStatus{code: exitUsage}
			}
			defer f.Close()
			bw := bufio.NewWriter(f)
			defer bw.Flush()
			opts.PerfMap = bw
		}
		// The statistics file is opened before the guest runs: a path that
		// cannot be written is a usage error, found before the guest does
		// anything, and writing it afterwards never changes the guest's status.
		var statsFile *os.File
		if *statsJSON != "" {
			statsFile, err = os.Create(*statsJSON)
			if err != nil {
				fmt.Fprintf(stderr, "rvdyn: --stats-json: %v\n", err)
				return exitStatus{code: exitUsage}
			}
			defer statsFile.Close()
		}
		var qr *queryRun
		if flagSet(fs, "query") { // --query "" is an error, not no query
			if opts.GC.Mode == rvdyn.GCRPA {
				opts.Collector = rvdyn.NewCollector(opts.GC)
			}
			if qr, err = startQuery(*query, *querySeed, opts.Collector); err != nil {
				fmt.Fprintf(stderr, "rvdyn: %v\n", err)
				return exitStatus{code: exitUsage}
			}
			defer qr.s.Close()
			opts.Profile = qr.s
		}
		vm, err := rvdyn.New(image, opts)
		if err != nil {
			fmt.Fprintf(stderr, "rvdyn: %s: %v\n", gargs[0], err)
			return exitStatus{code: exitUsage}
		}
		defer vm.Close()
		run := vm.Run
		var backstop *time.Timer
		if *gdbAddr != "" {
			run = func() (int, error) { return serveGDB(vm, *gdbAddr, stderr) }
		} else if *timeout > 0 {
			// (Under gdb the guest may wait at the prompt past the
			// deadline; the timeout ends it at the next continue.)
			backstop = timeoutBackstop(*timeout, stderr)
		}
		stopForwarding := forwardSignals(vm)
		code, runErr := run()
		stopForwarding()
		if backstop != nil {
			backstop.Stop()
		}
		var fault *rvdyn.Fault
		var sig syscall.Signal // the signal that killed the guest
		switch {
		case errors.As(runErr, &fault):
			fmt.Fprintf(stderr, "rvdyn: %v\n", fault)
			sig = syscall.Signal(fault.Kind.Signal())
		case errors.Is(runErr, rvdyn.ErrTimeout):
			fmt.Fprintf(stderr, "rvdyn: %v (--timeout %v) after %d guest instructions\n", runErr, *timeout, vm.Machine().Retired())
			code = exitLimit
		case errors.Is(runErr, rvdyn.ErrLimit):
			fmt.Fprintf(stderr, "rvdyn: %v after %d guest instructions\n", runErr, vm.Machine().Retired())
			code = exitLimit
		case runErr != nil:
			fmt.Fprintf(stderr, "rvdyn: %v\n", runErr)
			code = 1
		case vm.Machine().Killed() != 0:
			sig = syscall.Signal(vm.Machine().Killed())
			fmt.Fprintf(stderr, "rvdyn: the guest was killed by %s\n", unix.SignalName(sig))
		}
		if qr != nil {
			if err := qr.finish(vm.Machine(), stderr, *queryJSON); err != nil {
				fmt.Fprintf(stderr, "rvdyn: --query-json: %v\n", err) // reported; the status stays the guest's
			}
		}
		st := vm.Stats()
		if *stats {
			st.WriteTable(stderr)
		}
		if statsFile != nil {
			b, _ := json.MarshalIndent(st, "", "  ")
			if _, err := statsFile.Write(append(b, '\n')); err != nil {
				fmt.Fprintf(stderr, "rvdyn: --stats-json: %v\n", err) // reported; the status stays the guest's
			}
		}
		if *exitHow == "code" || code != 128+int(sig) {
			sig = 0 // (a gdb kill: the status says so)
		}
		return exitStatus{code: code, signal: sig}
	}
	return fs, start
}

// writeMechanisms lists what --disable takes: each mechanism and what
// switching it off does.
func writeMechanisms(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "mechanism\tswitched off")
	for _, m := range rvdyn.MechanismTable() {
		fmt.Fprintf(tw, "%s\t%s\n", m.Name, strings.ReplaceAll(m.Doc, "`", ""))
	}
	tw.Flush()
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
