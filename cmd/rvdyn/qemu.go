// The qemu-riscv64 drop-in: "rvdyn [options] PROG [ARGS...]" with qemu's options and QEMU_* / RVDYN_* variables -> run's flag set -> the guest.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// A qemuOpt is one of qemu-riscv64 7.2's user-mode options, as its
// arg_table in linux-user/main.c has it, and what rvdyn does with it.
type qemuOpt struct {
	name string // without the dash: "L", "cpu"
	env  string // the variable that sets it too ("" none)
	arg  string // the argument's name in the help text; "" takes none
	help string // what it does under rvdyn
	// apply carries the option out on d; nil: rvdyn refuses the option,
	// with refusal saying why.
	apply   func(d *dropIn, v string) error
	refusal string
}

// qemuOpts is qemu's table, in qemu's order: its variables are read in
// this order, before the command line, which therefore beats them.
var qemuOpts = []qemuOpt{
	{name: "h", help: "print this help and exit"}, // apply: see init
	{name: "help", help: "print this help and exit"},
	{name: "g", env: "QEMU_GDB", arg: "port", help: "wait for gdb on TCP port 'port' (all interfaces), as run --gdb=:port", apply: (*dropIn).gdb},
	{name: "L", env: "QEMU_LD_PREFIX", arg: "path", help: "sysroot of dynamically linked programs: the loader and libraries are looked up there first", apply: setFlag("L")},
	{name: "s", env: "QEMU_STACK_SIZE", arg: "size", help: "guest stack size in bytes, suffix k or M (at least 128 KiB, as qemu); as run --stack-size", apply: (*dropIn).stackSize},
	{name: "cpu", env: "QEMU_CPU", arg: "model", help: "CPU model: one rvdyn can be (RV64GC); -cpu help lists them", apply: (*dropIn).setCPU},
	{name: "E", env: "QEMU_SET_ENV", arg: "var=value", help: "set variables in the guest's environment (comma-separated, repeatable)", apply: (*dropIn).setEnv},
	{name: "U", env: "QEMU_UNSET_ENV", arg: "var", help: "remove variables from the guest's environment (comma-separated, repeatable)", apply: (*dropIn).unsetEnv},
	{name: "0", env: "QEMU_ARGV0", arg: "argv0", help: "the guest's argv[0] (default: the program path), as run --argv0", apply: setFlag("argv0")},
	{name: "r", env: "QEMU_UNAME", arg: "uname", refusal: "rvdyn's uname cannot be given another release"},
	{name: "B", env: "QEMU_GUEST_BASE", arg: "address", refusal: "rvdyn places guest memory itself (use --mem-size for its size)"},
	{name: "R", env: "QEMU_RESERVED_VA", arg: "size", refusal: "use --mem-size to size the guest address space"},
	{name: "d", env: "QEMU_LOG", arg: "item[,...]", help: "log items: in_asm, out_asm (the fragment listing), strace, nochain (no linking); -d help lists them", apply: (*dropIn).log},
	{name: "dfilter", env: "QEMU_DFILTER", arg: "range[,...]", refusal: "rvdyn cannot filter its log by address"},
	{name: "D", env: "QEMU_LOG_FILENAME", arg: "logfile", help: "write -d and -strace output to 'logfile' instead of stderr, as run --log-file", apply: setFlag("log-file")},
	{name: "p", env: "QEMU_PAGESIZE", arg: "pagesize", refusal: "the guest page size is 4096"},
	{name: "singlestep", env: "QEMU_SINGLESTEP", refusal: "use --mode=interp to run without fragments"},
	{name: "strace", env: "QEMU_STRACE", help: "log system calls, as run --strace", apply: setFlag("strace")},
	{name: "seed", env: "QEMU_RAND_SEED", arg: "seed", help: "make getrandom deterministic (rvdyn's stream, not qemu's; AT_RANDOM is fixed anyway); as run --seed", apply: (*dropIn).setSeed},
	{name: "trace", env: "QEMU_TRACE", arg: "events", refusal: "rvdyn has no qemu trace events (see --stats and --listing)"},
	{name: "plugin", env: "QEMU_PLUGIN", arg: "file", refusal: "rvdyn cannot load TCG plugins"},
	{name: "version", env: "QEMU_VERSION", help: "print the version and exit", apply: (*dropIn).version},
}

func init() {
	// (The help prints the table: set here, its apply is no cycle.)
	qemuOpts[0].apply, qemuOpts[1].apply = (*dropIn).help, (*dropIn).help
}

// lookupQemuOpt returns the option named name, or nil.
func lookupQemuOpt(name string) *qemuOpt {
	for i := range qemuOpts {
		if qemuOpts[i].name == name {
			return &qemuOpts[i]
		}
	}
	return nil
}

// A dropIn is one "rvdyn [options] PROG [ARGS...]" command line being
// turned into a run: qemu's options and variables land in run's flag
// set, or in the fields below, which finish applies.
type dropIn struct {
	fs     *flag.FlagSet // run's flags
	stdout io.Writer
	done   bool     // an option (-h, -version, -cpu help) did all there is to do
	items  []string // -d items, applied by finish
}

// errDone stops parsing after an option that did all there is to do.
var errDone = errors.New("done")

// dropInMain is "rvdyn [options] PROG [ARGS...]": qemu-riscv64's command
// line. Options end at the first argument that does not begin with '-' (the
// program), or after "--"; qemu's options (-x or --x) come first, then
// run's flags (--mode=interp, --stats, ...). Variables are applied before
// the command line, which beats them: qemu's (QEMU_STRACE, ...), then
// RVDYN_<FLAG> for run's flags (RVDYN_MODE=interp).
func dropInMain(args []string, env func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer) exitStatus {
	fs, start := newRun(stderr)
	d := &dropIn{fs: fs, stdout: stdout}
	fs.SetOutput(io.Discard) // errors are reported here, in one line
	err := d.environment(env)
	var rest []string
	if err == nil && !d.done {
		rest, err = d.parse(args)
	}
	if err == nil {
		err = d.finish()
	}
	switch {
	case errors.Is(err, errDone) || d.done:
		return exitStatus{}
	case err != nil:
		fmt.Fprintf(stderr, "rvdyn: %v\n", err)
		return exitStatus{code: exitUsage}
	case len(rest) == 0 && !flagSet(fs, "guest"):
		fmt.Fprintln(stderr, "rvdyn: no program given (usage: rvdyn [options] PROG [ARGS...]; rvdyn -h for the options)")
		return exitStatus{code: exitUsage}
	case len(args) > 0 && len(rest) > 0 && rest[0] == args[0] && !strings.Contains(rest[0], "/") && !flagSet(fs, "exec-fd"):
		if _, err := os.Stat(rest[0]); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stderr, "rvdyn: %s: not a command (rvdyn help lists them), nor a program file\n", rest[0])
			return exitStatus{code: exitUsage}
		}
	}
	fs.SetOutput(stderr)
	if err := fs.Parse(append([]string{"--"}, rest...)); err != nil {
		return exitStatus{code: exitUsage}
	}
	return start(stdin, stdout, stderr)
}

// environment applies qemu's variables, in qemu's order, then RVDYN_<FLAG>
// for each of run's flags of more than one letter.
func (d *dropIn) environment(env func(string) (string, bool)) error {
	for i := range qemuOpts {
		o := &qemuOpts[i]
		if o.env == "" {
			continue
		}
		if v, ok := env(o.env); ok {
			if err := d.option(o, v); err != nil {
				return fmt.Errorf("%s=%s: %w", o.env, v, err)
			}
		}
	}
	var err error
	d.fs.VisitAll(func(f *flag.Flag) {
		if v, ok := env(rvdynVar(f.Name)); ok && len(f.Name) > 1 && err == nil {
			if e := d.fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s=%s: %v", rvdynVar(f.Name), v, e)
			}
		}
	})
	return err
}

// rvdynVar is the variable that sets run's flag name: RVDYN_ and the
// name in capitals, '-' written '_' (max-instructions: RVDYN_MAX_INSTRUCTIONS).
func rvdynVar(name string) string {
	return "RVDYN_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// parse applies the options of args and returns the program and its
// arguments.
func (d *dropIn) parse(args []string) ([]string, error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) == 0 || a[0] != '-' {
			return args[i:], nil
		}
		if a == "--" {
			return args[i+1:], nil
		}
		name := strings.TrimPrefix(a[1:], "-")
		if o := lookupQemuOpt(name); o != nil {
			v := ""
			if o.arg != "" {
				if i+1 == len(args) {
					return nil, fmt.Errorf("missing argument for option '-%s'", name)
				}
				i++
				v = args[i]
			}
			if err := d.option(o, v); err != nil {
				return nil, fmt.Errorf("-%s: %w", name, err)
			}
			if d.done {
				return nil, errDone
			}
			continue
		}
		name, v, hasValue := strings.Cut(name, "=")
		f := d.fs.Lookup(name)
		if f == nil || len(name) == 1 {
			return nil, fmt.Errorf("unknown option '%s' (rvdyn -h lists qemu's options; rvdyn run -h rvdyn's own)", a)
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && ok && b.IsBoolFlag() {
			v, hasValue = "true", true
		}
		if !hasValue {
			if i+1 == len(args) {
				return nil, fmt.Errorf("missing argument for option '--%s'", name)
			}
			i++
			v = args[i]
		}
		if err := d.fs.Set(name, v); err != nil {
			return nil, fmt.Errorf("--%s %s: %v", name, v, err)
		}
	}
	return nil, nil
}

// option applies qemu option o with argument v, or refuses it.
func (d *dropIn) option(o *qemuOpt, v string) error {
	if o.apply == nil {
		return fmt.Errorf("not supported by rvdyn: %s", o.refusal)
	}
	return o.apply(d, v)
}

// setFlag is the apply function of an option that is run's flag name.
func setFlag(name string) func(*dropIn, string) error {
	return func(d *dropIn, v string) error {
		if b, ok := d.fs.Lookup(name).Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			v = "true" // qemu's switches take no value; their variable's value is ignored
		}
		return d.fs.Set(name, v)
	}
}

// help is -h and -help: the drop-in's usage, and nothing else to do.
func (d *dropIn) help(string) error {
	writeDropInHelp(d.stdout)
	d.done = true
	return nil
}

// version is -version (and QEMU_VERSION, whatever its value, as in qemu).
func (d *dropIn) version(string) error {
	fmt.Fprintf(d.stdout, "rvdyn version %s, a drop-in for qemu-riscv64 (the user-mode options of qemu 7.2)\n", buildVersion())
	d.done = true
	return nil
}

// gdb takes qemu's -g argument: a TCP port (qemu 7.2 also takes a Unix
// socket path, which rvdyn's stub cannot serve).
func (d *dropIn) gdb(v string) error {
	if p, err := strconv.ParseUint(v, 10, 16); err != nil || p == 0 {
		return fmt.Errorf("want a TCP port (1-65535), not %q (rvdyn's gdb stub does not serve Unix sockets)", v)
	}
	return d.fs.Set("gdb", ":"+v)
}

// qemuMinStack is qemu's STACK_LOWER_LIMIT: 32 target pages.
const qemuMinStack = 32 << 12

// stackSize takes qemu's -s argument: a number (C syntax: 0x for hex)
// with an optional k/K or M suffix, not 0; qemu gives at least
// qemuMinStack, rvdyn a whole number of pages.
func (d *dropIn) stackSize(v string) error {
	num, mul := v, uint64(1)
	switch {
	case strings.HasSuffix(v, "M"):
		num, mul = v[:len(v)-1], 1<<20
	case strings.HasSuffix(v, "k"), strings.HasSuffix(v, "K"):
		num, mul = v[:len(v)-1], 1<<10
	}
	n, err := strconv.ParseUint(num, 0, 64)
	if err != nil || n == 0 || n > 1<<40/mul {
		return fmt.Errorf("want a size in bytes such as 8388608, 8192k or 8M, not %q", v)
	}
	n = max((n*mul+4095)&^4095, qemuMinStack)
	return d.fs.Set("stack-size", strconv.FormatUint(n, 10))
}

// setEnv and unsetEnv take qemu's -E and -U lists (getsubopt style:
// comma-separated).
func (d *dropIn) setEnv(v string) error {
	for _, kv := range strings.Split(v, ",") {
		if err := d.fs.Set("E", kv); err != nil {
			return err
		}
	}
	return nil
}

func (d *dropIn) unsetEnv(v string) error {
	for _, name := range strings.Split(v, ",") {
		if err := d.fs.Set("U", name); err != nil {
			return err
		}
	}
	return nil
}

// setSeed takes qemu's -seed: an unsigned number in C syntax. Seed 0,
// deterministic under qemu, means the host's random source to rvdyn.
func (d *dropIn) setSeed(v string) error {
	n, err := strconv.ParseUint(v, 0, 64)
	switch {
	case err != nil:
		return fmt.Errorf("want an unsigned number, not %q", v)
	case n == 0:
		return errors.New("seed 0 is not supported: to rvdyn it means the host's random source; give another seed")
	}
	return d.fs.Set("seed", strconv.FormatUint(n, 10))
}
