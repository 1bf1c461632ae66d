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
	"runtime/debug"
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

// runGCPercent is the collector's GOGC for a run, unless the GOGC
// variable sets it: a run's heap is small (the largest of the corpus's
// guests, scheme and ledger, end with 7 MB live) next to the guest's
// address space, which is mapped outside it, and at the default 100 the
// first collection came during start-up, at 4 MB, in every run. At 400
// a "return 0" program started 8.6 -> 7.6 ms (median of 60 interleaved
// runs each); the heap may grow to five times the live data instead of
// two.
const runGCPercent = 400

// setRunGC sets the collector's target to runGCPercent unless the
// environment's GOGC set one.
func setRunGC() {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(runGCPercent)
	}
}

// runFlags are rvdyn run's flags, parsed.
type runFlags struct {
	mode         *string
	delay        *int
	maxInsts     *uint64
	timeout      *time.Duration
	predict      *string
	sf           *selectFlags
	maxTrace     *int
	cacheSize    *int
	memSize      *uint64
	stackSize    *uint64
	compile      *string
	compileQueue *int
	disable      *string
	guest        *string
	stats        *bool
	statsJSON    *string
	listing      *string
	query        *string
	querySeed    *uint64
	root         *string
	strace       *bool
	perfMap      *bool
	gdbAddr      *string
	queryJSON    *string
	specialize   *string
	invariance   *float64
	gcf          *gcFlags
	envf         *envFlags
	seed         *uint64
	ldPrefix     *string
	argv0        *string
	logFile      *string
	execFD       *int
	exitHow      *string
}

// addRunFlags defines run's flags on fs.
func addRunFlags(fs *flag.FlagSet) *runFlags {
	return &runFlags{
		mode:         fs.String("mode", "dynamo", "execution mode: dynamo (interpret + NET + native code cache) or interp (interpret only)"),
		delay:        fs.Int("delay", rvdyn.DefaultDelay, "NET prediction delay: a trace head is hot when its counter exceeds this (0 = first execution)"),
		maxInsts:     fs.Uint64("max-instructions", 0, "stop the guest after this many instructions (0 = no limit); exit status 124"),
		timeout:      fs.Duration("timeout", 0, "stop the guest after this much wall time, e.g. 10s (0 = no limit); exit status 124"),
		predict:      fs.String("predict", "net", "online hot path prediction: net (one counter per trace head) or path (every path from a head recorded and counted; NET paper Figure 5); an alias of --select=net|path"),
		sf:           addSelectFlags(fs),
		maxTrace:     fs.Int("max-trace-len", rvdyn.DefaultMaxTraceLen, "maximum guest instructions in one trace"),
		cacheSize:    fs.Int("cache-size", 0, "code cache capacity in bytes (0 = 32 MiB); a full cache is flushed"),
		memSize:      fs.Uint64("mem-size", 0, "guest address space in bytes, 1 MiB to 2 GiB (0 = 1 GiB): bounds the guest memory rvdyn may commit"),
		stackSize:    fs.Uint64("stack-size", 0, "guest stack limit in bytes, a multiple of 4096 (0 = 8 MiB, or a quarter of a smaller address space); an access below it is a guest fault (SIGSEGV)"),
		compile:      fs.String("compile", "sync", "where fragments are compiled: sync (on the main thread at once; deterministic) or async (on a service thread while the guest runs on, installed at the dispatcher's next safe point)"),
		compileQueue: fs.Int("compile-queue", rvdyn.DefaultCompileQueue, "with --compile=async: traces queued or being compiled at most; a trace recorded when it is full is compiled on the main thread"),
		disable:      fs.String("disable", "", "switch off mechanisms, comma-separated: "+strings.Join(rvdyn.Mechanisms(), ", ")+"; help: say what each does"),
		guest:        fs.String("guest", "", "run the named embedded guest instead of a file (see 'rvdyn bench -list')"),
		stats:        fs.Bool("stats", false, "print run statistics to stderr when the guest ends"),
		statsJSON:    fs.String("stats-json", "", "write run statistics as one JSON object to this file"),
		listing:      fs.String("listing", "", "write every compiled fragment (guest trace and x86-64 code) to this file; - for stderr (or --log-file)"),
		query:        fs.String("query", "", "relational profiler queries (docs/rpa.md), in either mode: the query text itself, or @FILE to read it from FILE; prints each queue's per-pc table and the RPA stats to stderr"),
		querySeed:    fs.Uint64("query-seed", 1, "seed for the queries' random sampling (every N, filter N)"),
		root:         fs.String("root", "", "confine the guest's file system calls to this directory, which it sees as / ('..' and symlinks cannot leave it); default: host paths, as qemu-riscv64"),
		strace:       fs.Bool("strace", false, "print each system call, its arguments and result, to stderr (as qemu-riscv64 -strace)"),
		perfMap:      fs.Bool("perf-map", false, "write /tmp/perf-PID.map naming each fragment's code by guest function, for perf report (docs/profiling.md)"),
		gdbAddr:      fs.String("gdb", "", "wait for gdb (target remote HOST:PORT) on this address (HOST empty, localhost or numeric), e.g. :1234, and run the guest under its control (as qemu-riscv64 -g)"),
		queryJSON:    fs.String("query-json", "", "with --query: write the per-pc tables and RPA stats as JSON to this file instead"),
		specialize:   fs.String("specialize", "", "dynamo mode: specialize fragments on the values loads (nearly) always return, behind guards, from a value profile kept by this stream compressor in the stratified paper's notation (e.g. H[P4]256, P2, R8), 'default' ("+rvdyn.DefaultValueProfile+") or 'perfect' (every load); empty: off (docs/internals.md)"),
		invariance:   fs.Float64("specialize-invariance", 0.99, "with --specialize: the share of a load's profiled values the top value must have"),
		gcf:          addGCFlags(fs),
		envf:         addEnvFlags(fs),
		seed:         fs.Uint64("seed", 0, "make the guest's getrandom deterministic, a stream seeded with this number (as qemu-riscv64 -seed); 0: the host's random source"),
		ldPrefix:     fs.String("L", "", "sysroot of a dynamically linked program's loader and libraries (as qemu-riscv64 -L): absolute paths the guest opens are tried there first; default: $RVDYN_LD_PREFIX, else $QEMU_LD_PREFIX"),
		argv0:        fs.String("argv0", "", "the guest's argv[0] (as qemu-riscv64 -0); default: the program path"),
		logFile:      fs.String("log-file", "", "write --strace lines and --listing=- to this file instead of stderr (as qemu-riscv64 -D)"),
		execFD:       fs.Int("exec-fd", -1, "read the program from this open file descriptor (as binfmt_misc's O flag passes it); the program argument is then its name"),
		exitHow:      fs.String("exit-status", "signal", "how a guest killed by a signal ends rvdyn: signal (rvdyn dies of the same signal, without a core file, as qemu-riscv64) or code (exit status 128+signal)"),
	}
}

// newRun returns run's flag set, which reports bad flags to stderr, and
// the function that runs the guest the parsed flags describe (the
// program and its arguments are fs.Args()).
func newRun(stderr io.Writer) (fs *flag.FlagSet, start func(stdin io.Reader, stdout, stderr io.Writer) exitStatus) {
	fs = flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := addRunFlags(fs)
	return fs, func(stdin io.Reader, stdout, stderr io.Writer) exitStatus { return f.run(fs, stdin, stdout, stderr) }
}

// run runs the guest fs's flags and arguments describe: the options are
// checked and the output files opened before it starts (a usage error
// exits 2 having run nothing); its status, statistics and query results
// are reported when it ends.
func (f *runFlags) run(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) exitStatus {
	if *f.disable == "help" {
		writeMechanisms(stdout)
		return exitStatus{}
	}
	setRunGC()
	usage := func(format string, args ...any) exitStatus {
		fmt.Fprintf(stderr, "rvdyn: "+format+"\n", args...)
		return exitStatus{code: exitUsage}
	}
	opts, err := f.options(fs, stdin, stdout, stderr)
	if err != nil {
		return usage("%v", err)
	}
	image, gargs, path, err := f.program(fs)
	if err != nil {
		return usage("%v", err)
	}
	opts.Args, opts.Path = gargs, path
	var files outputFiles
	defer files.close()
	logw := stderr // where strace and --listing=- go
	if *f.logFile != "" {
		if logw, err = files.create(*f.logFile); err != nil {
			return usage("--log-file: %v", err)
		}
	}
	if *f.strace {
		opts.Strace = logw
	}
	if *f.listing == "-" {
		opts.Listing = logw
	} else if *f.listing != "" {
		if opts.Listing, err = files.create(*f.listing); err != nil {
			return usage("%v", err)
		}
	}
	if *f.perfMap {
		if opts.PerfMap, err = files.create(fmt.Sprintf("/tmp/perf-%d.map", os.Getpid())); err != nil {
			return usage("--perf-map: %v", err)
		}
	}
	// The statistics file is opened before the guest runs: a path that
	// cannot be written is a usage error, found before the guest does
	// anything, and writing it afterwards never changes the guest's status.
	var statsFile *os.File
	if *f.statsJSON != "" {
		if statsFile, err = os.Create(*f.statsJSON); err != nil {
			return usage("--stats-json: %v", err)
		}
		defer statsFile.Close()
	}
	var qr *queryRun
	if flagSet(fs, "query") { // --query "" is an error, not no query
		if opts.GC.Mode == rvdyn.GCRPA {
			opts.Collector = rvdyn.NewCollector(opts.GC)
		}
		if qr, err = startQuery(*f.query, *f.querySeed, opts.Collector); err != nil {
			return usage("%v", err)
		}
		defer qr.s.Close()
		opts.Profiler = qr.s
	}
	vm, err := rvdyn.New(image, opts)
	if err != nil {
		return usage("%s: %v", gargs[0], err)
	}
	defer vm.Close()
	st := f.execute(vm, stderr)
	if qr != nil {
		if err := qr.finish(vm.Machine(), stderr, *f.queryJSON); err != nil {
			fmt.Fprintf(stderr, "rvdyn: --query-json: %v\n", err) // reported; the status stays the guest's
		}
	}
	if !*f.stats && statsFile == nil {
		return st // (the statistics are not free: their table names fragments from the symbol table)
	}
	stats := vm.Stats()
	if *f.stats {
		stats.WriteTable(stderr)
	}
	if statsFile != nil {
		b, _ := json.MarshalIndent(stats, "", "  ")
		if _, err := statsFile.Write(append(b, '\n')); err != nil {
			fmt.Fprintf(stderr, "rvdyn: --stats-json: %v\n", err) // reported; the status stays the guest's
		}
	}
	return st
}

// program returns the guest image the flags and arguments name, its
// argv, and the path it was read from when --argv0 replaced argv[0].
func (f *runFlags) program(fs *flag.FlagSet) (image []byte, args []string, path string, err error) {
	var runs []guestRun
	if *f.execFD >= 0 {
		if fs.NArg() == 0 {
			return nil, nil, "", fmt.Errorf("--exec-fd: the program's name is missing")
		}
		if image, err = readProgramFD(*f.execFD, fs.Arg(0), *f.memSize); err != nil {
			return nil, nil, "", err
		}
		runs = []guestRun{{fs.Arg(0), image, fs.Args()}}
	} else if runs, err = selectGuests(fs.Args(), *f.guest, false, *f.memSize); err != nil {
		return nil, nil, "", err
	}
	if len(runs) != 1 {
		return nil, nil, "", fmt.Errorf("--guest: run takes one guest, not %d", len(runs))
	}
	image, args = runs[0].image, runs[0].args
	if flagSet(fs, "argv0") {
		path, args = args[0], append([]string{*f.argv0}, args[1:]...)
	}
	return image, args, path, nil
}

// options checks the flags and returns the Options they ask for, but for
// the guest's argv (program's) and the output files (listing, perf map,
// strace log), which are run's to open.
func (f *runFlags) options(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) (rvdyn.Options, error) {
	var none rvdyn.Options
	if *f.exitHow != "signal" && *f.exitHow != "code" {
		return none, fmt.Errorf("--exit-status: want signal or code, not %q", *f.exitHow)
	}
	m, err := rvdyn.ParseMode(*f.mode)
	if err != nil {
		return none, err
	}
	pred, err := rvdyn.ParsePredict(*f.predict)
	if err != nil {
		return none, fmt.Errorf("--predict: %v", err)
	}
	sel, err := f.sf.options(pred)
	if err != nil {
		return none, err
	}
	if *f.delay < 0 || *f.maxTrace < 1 || *f.cacheSize < 0 || *f.compileQueue < 1 {
		return none, fmt.Errorf("--delay must be >= 0, --max-trace-len >= 1, --cache-size >= 0, --compile-queue >= 1")
	}
	cmode, err := rvdyn.ParseCompileMode(*f.compile)
	if err != nil {
		return none, fmt.Errorf("--compile: %v", err)
	}
	if *f.invariance <= 0 || *f.invariance > 1 {
		return none, fmt.Errorf("--specialize-invariance must be in (0, 1]")
	}
	ld := *f.ldPrefix
	if !flagSet(fs, "L") {
		ld = cmp.Or(os.Getenv("RVDYN_LD_PREFIX"), os.Getenv("QEMU_LD_PREFIX"))
	}
	opts := rvdyn.Options{Mode: m, NET: rvdyn.NETOptions{Delay: rvdyn.DelayOf(*f.delay), MaxTraceLen: *f.maxTrace, Predict: pred},
		Select: sel, Cache: rvdyn.CacheOptions{Size: *f.cacheSize}, Compiler: rvdyn.CompilerOptions{Mode: cmode, Queue: *f.compileQueue}, MaxInstructions: *f.maxInsts, Timeout: *f.timeout,
		Config: rvdyn.Config{LdPrefix: ld, Env: f.envf.environ(hostEnviron()), RandSeed: *f.seed, Stdin: stdin, Stdout: stdout, Stderr: stderr, MemSize: *f.memSize, StackSize: *f.stackSize, Root: *f.root}}
	opts.Specialize = rvdyn.SpecializeOptions{Profile: *f.specialize, MinInvariance: *f.invariance}
	if opts.GC, err = f.gcf.options(); err != nil {
		return none, err
	}
	if err := opts.Disable(*f.disable); err != nil {
		return none, fmt.Errorf("--disable: %v", err)
	}
	return opts, nil
}

// execute runs vm (under gdb with --gdb, with a backstop for --timeout,
// forwarding signals to the guest), reports how the guest ended on
// stderr, and returns rvdyn's exit status: the guest's, 124 at a limit,
// 1 for rvdyn's own error, and the signal that killed the guest (unless
// --exit-status=code).
func (f *runFlags) execute(vm *rvdyn.VM, stderr io.Writer) exitStatus {
	run := vm.Run
	var backstop *time.Timer
	if *f.gdbAddr != "" {
		run = func() (int, error) { return serveGDB(vm, *f.gdbAddr, stderr) }
	} else if *f.timeout > 0 {
		// (Under gdb the guest may wait at the prompt past the
		// deadline; the timeout ends it at the next continue.)
		backstop = timeoutBackstop(*f.timeout, stderr)
	}
	stopForwarding := forwardSignals(vm, stderr)
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
		fmt.Fprintf(stderr, "rvdyn: %v (--timeout %v) after %d guest instructions\n", runErr, *f.timeout, vm.Machine().Retired())
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
	if *f.exitHow == "code" || code != 128+int(sig) {
		sig = 0 // (a gdb kill: the status says so)
	}
	return exitStatus{code: code, signal: sig}
}

// outputFiles are the files a run writes through buffers (listing, perf
// map, log), flushed and closed when it ends.
type outputFiles []struct {
	w *bufio.Writer
	f *os.File
}

// create creates the file name and returns a buffered writer to it,
// flushed and closed by close.
func (o *outputFiles) create(name string) (*bufio.Writer, error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	*o = append(*o, struct {
		w *bufio.Writer
		f *os.File
	}{w, f})
	return w, nil
}

// close flushes and closes every file, the last created first.
func (o *outputFiles) close() {
	for i := len(*o) - 1; i >= 0; i-- {
		(*o)[i].w.Flush()
		(*o)[i].f.Close()
	}
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
