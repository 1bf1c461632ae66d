// The drop-in's -cpu and -d: qemu's CPU models and log items -> what rvdyn can be and print, or a one-line refusal.

package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
)

// cpuModels are qemu-riscv64 7.2's CPU models (qemu-riscv64 -cpu help) and
// whether rvdyn can be each: it always executes RV64GC (I, M, A, F, D, C,
// Zicsr, Zifencei), so it is a model with those, and refuses one with
// fewer (a program's F or D instruction would run under rvdyn but trap
// under qemu). qemu's any and rv64 (its default) also have the bit
// manipulation extensions on (checked: clz runs under both); rvdyn takes
// them as what it is anyway, and a program using Zb* traps under it
// whatever -cpu says (SIGILL).
var cpuModels = []struct {
	name, isa, refusal string
}{
	{"any", "RV64GC (qemu adds Zba, Zbb, Zbc, Zbs: rvdyn does not)", ""},
	{"rv64", "RV64GC, qemu's default (qemu adds Zba, Zbb, Zbc, Zbs: rvdyn does not)", ""},
	{"shakti-c", "RV64GC", ""},
	{"sifive-u54", "RV64GC", ""},
	{"sifive-e51", "RV64IMAC", "it has no F and D, which rvdyn always executes"},
	{"x-rv128", "RV128", "rvdyn runs 64-bit programs"},
}

// rvdynExts are the extensions rvdyn implements, as -cpu properties name them.
var rvdynExts = []string{"i", "m", "a", "f", "d", "c", "zicsr", "zifencei"}

// setCPU takes -cpu MODEL[,PROP=VALUE...]. An extension property may
// turn on one rvdyn has, or turn off one it lacks; rvdyn cannot honour
// anything else.
func (d *dropIn) setCPU(v string) error {
	fields := strings.Split(v, ",")
	if fields[0] == "help" {
		fmt.Fprintln(d.stdout, "Available CPUs (rvdyn runs RV64GC: I, M, A, F, D, C, Zicsr, Zifencei):")
		for _, m := range cpuModels {
			if m.refusal == "" {
				fmt.Fprintf(d.stdout, "  %-12s %s\n", m.name, m.isa)
			} else {
				fmt.Fprintf(d.stdout, "  %-12s %s: refused, %s\n", m.name, m.isa, m.refusal)
			}
		}
		d.done = true
		return nil
	}
	i := slices.IndexFunc(cpuModels, func(m struct{ name, isa, refusal string }) bool { return m.name == fields[0] })
	switch {
	case i < 0:
		return fmt.Errorf("unknown CPU model %q (-cpu help lists them)", fields[0])
	case cpuModels[i].refusal != "":
		return fmt.Errorf("CPU model %s (%s) is not supported: %s", fields[0], cpuModels[i].isa, cpuModels[i].refusal)
	}
	for _, p := range fields[1:] {
		name, val, ok := strings.Cut(p, "=")
		if !ok {
			val = "on"
		}
		var on bool
		switch strings.ToLower(val) {
		case "on", "true", "yes":
			on = true
		case "off", "false", "no":
		default:
			return fmt.Errorf("CPU property %s is not supported: rvdyn takes only extensions switched on or off", p)
		}
		has := slices.Contains(rvdynExts, strings.ToLower(name))
		switch {
		case on && !has:
			return fmt.Errorf("extension %s is not implemented by rvdyn (it runs RV64GC: I, M, A, F, D, C, Zicsr, Zifencei)", name)
		case !on && has:
			return fmt.Errorf("extension %s cannot be switched off: rvdyn always executes RV64GC", name)
		}
	}
	return nil
}

// logItems are qemu 7.2's -d items; run is what rvdyn prints for one
// ("" refused, with why).
var logItems = []struct{ name, run, why string }{
	{"out_asm", "the fragment listing (its x86-64 code), as run --listing", ""},
	{"in_asm", "the fragment listing (its guest instructions), as run --listing", ""},
	{"strace", "every system call, as -strace", ""},
	{"nochain", "no linking of fragments, as run --disable=link", ""},
	{"op", "", "rvdyn's fragment IR is not printed"},
	{"op_opt", "", "rvdyn's fragment IR is not printed"},
	{"op_ind", "", "rvdyn's fragment IR is not printed"},
	{"int", "", "a user-mode guest takes no interrupts; faults are reported on stderr"},
	{"exec", "", "rvdyn cannot trace every fragment entry"},
	{"cpu", "", "rvdyn cannot print registers at every fragment entry (use -g and gdb)"},
	{"fpu", "", "rvdyn cannot print registers at every fragment entry (use -g and gdb)"},
	{"mmu", "", "a user-mode guest has no MMU"},
	{"pcall", "", "x86 guests only"},
	{"cpu_reset", "", "a user-mode guest is never reset"},
	{"unimp", "", "unknown system calls are counted in --stats and shown by -strace"},
	{"guest_errors", "", "not logged; faults are reported on stderr"},
	{"page", "", "rvdyn does not dump the guest's pages"},
	{"plugin", "", "rvdyn cannot load TCG plugins"},
	{"tid", "", "rvdyn runs one guest thread"},
}

// log takes -d ITEM[,ITEM...]; finish applies the items.
func (d *dropIn) log(v string) error {
	if v == "help" {
		fmt.Fprintln(d.stdout, "Log items (comma separated), and what rvdyn prints for each:")
		for _, it := range logItems {
			if it.run != "" {
				fmt.Fprintf(d.stdout, "  %-13s %s\n", it.name, it.run)
			} else {
				fmt.Fprintf(d.stdout, "  %-13s refused: %s\n", it.name, it.why)
			}
		}
		d.done = true
		return nil
	}
	d.items = nil // as qemu: the last -d (or QEMU_LOG) is the one in effect
	for _, name := range strings.Split(v, ",") {
		i := slices.IndexFunc(logItems, func(it struct{ name, run, why string }) bool { return it.name == name })
		switch {
		case name == "all" || strings.HasPrefix(name, "trace:"):
			return fmt.Errorf("log item %s is not supported (-d help lists the items rvdyn prints)", name)
		case i < 0:
			return fmt.Errorf("unknown log item %q (-d help lists them)", name)
		case logItems[i].run == "":
			return fmt.Errorf("log item %s is not supported: %s", name, logItems[i].why)
		}
		d.items = append(d.items, name)
	}
	return nil
}

// finish applies what the options left in d: the -d items.
func (d *dropIn) finish() error {
	for _, it := range d.items {
		var err error
		switch it {
		case "in_asm", "out_asm":
			err = d.fs.Set("listing", "-")
		case "strace":
			err = d.fs.Set("strace", "true")
		case "nochain":
			disable := d.fs.Lookup("disable").Value.String()
			err = d.fs.Set("disable", strings.TrimPrefix(disable+",link", ","))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeDropInHelp prints the drop-in's usage and options, qemu's way.
func writeDropInHelp(w io.Writer) {
	fmt.Fprint(w, `usage: rvdyn [options] PROG [ARGS...]
Runs a static RISC-V Linux program through rvdyn as qemu-riscv64 would
(qemu 7.2's user-mode options and variables); rvdyn's own run flags
(--mode=interp, --stats, ...: rvdyn run -h) may follow qemu's options, and
a variable RVDYN_<FLAG> sets one (RVDYN_MODE=interp, RVDYN_STATS=1,
RVDYN_MAX_INSTRUCTIONS=1000000). The command line beats the variables.

Argument             Env-variable      Description
`)
	for _, o := range qemuOpts {
		arg := "-" + o.name
		if o.arg != "" {
			arg += " " + o.arg
		}
		help := o.help
		if o.apply == nil {
			help = "refused: " + o.refusal
		}
		fmt.Fprintf(w, "%-20s %-17s %s\n", arg, o.env, help)
	}
	fmt.Fprint(w, `
A guest killed by a signal kills rvdyn with the same signal, without a
core file (--exit-status=code: exit status 128+signal instead).
`)
}

// buildVersion is rvdyn's version: the module version and VCS revision
// it was built from, as far as the binary knows them.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}
