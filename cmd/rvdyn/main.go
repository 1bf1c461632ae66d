// Command rvdyn runs RISC-V RV64GC and RV64IM programs through the rvdyn
// dynamic optimizer, measures them, and runs profiler experiments.
//
//	rvdyn [options] prog [args...]           run a guest as qemu-riscv64 would (qemu.go)
//	rvdyn run [flags] [prog.elf [args...]]   run a guest (default: an embedded one)
//	rvdyn bench [flags]                      measure every guest in every mode
//	rvdyn profile [flags] prog.elf [args...] profiler-model experiments
//	rvdyn predict [flags] prog.elf [args...] NET vs path-profile prediction quality
//	rvdyn rpa asm|disasm|edge ...            relational profiler queries
//	rvdyn gc [flags]                         the Scheme guest's collectors measured
//	rvdyn reproduce [--quick] [--out DIR]    every paper's figures and tables
//	rvdyn layout [flags]                     procedure placement from PC samples
//	rvdyn binfmt install|uninstall|status    register rvdyn for RISC-V programs with binfmt_misc
//
// Run `rvdyn <command> -h` for the flags of each command.
package main

import (
	"fmt"
	"io"
	"os"

	"rvdyn/bench/corpus"
)

const usage = `rvdyn: a dynamic binary optimizer for RISC-V RV64GC and RV64IM programs

usage:
  rvdyn [options] prog [args...]             run a guest program as qemu-riscv64 does (rvdyn -h)
  rvdyn run [flags] [prog.elf [args...]]    run a guest program (default: embedded %s)
  rvdyn bench [flags]                        measure the guest corpus in every mode
  rvdyn profile [flags] [prog.elf [args...]] run profiler-model experiments
  rvdyn predict [flags] [prog.elf [args...]] hot path prediction quality: NET vs path profiles
  rvdyn rpa asm|disasm|edge ...              relational profiler: queries, listings, edge accuracy
  rvdyn gc [flags]                           the Scheme guest's collectors: GC overhead, pauses, barriers
  rvdyn reproduce [--quick] [--out DIR]      regenerate every figure and table of the papers
  rvdyn layout [flags]                       procedure placement from PC samples: Pettis-Hansen, C3, Tables 5-7
  rvdyn binfmt install|uninstall|status      run RISC-V programs as ./prog through rvdyn (binfmt_misc)
  rvdyn help                                 this text

Run 'rvdyn <command> -h' for a command's flags, 'rvdyn -h' for the
qemu-riscv64 options. A program whose name is a command is run as ./NAME.
`

func main() {
	if args, ok := binfmtArgs(os.Args); ok { // started by the kernel for ./prog
		dropInMain(args, os.LookupEnv, os.Stdin, os.Stdout, os.Stderr).exit()
	}
	mainStatus(os.Args[1:], os.LookupEnv, os.Stdin, os.Stdout, os.Stderr).exit()
}

// realMain runs rvdyn with args (os.Args[1:]) and returns its exit
// status: 128+signal where rvdyn itself would die of the signal.
func realMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return mainStatus(args, func(string) (string, bool) { return "", false }, stdin, stdout, stderr).code
}

// mainStatus runs rvdyn with args (os.Args[1:]) and env (the drop-in
// form's variables) and says how it ends.
func mainStatus(args []string, env func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer) exitStatus {
	if len(args) == 0 {
		fmt.Fprintf(stderr, usage, corpus.Default)
		return exitStatus{code: exitUsage}
	}
	switch args[0] {
	case "run":
		return runStatus(args[1:], stdin, stdout, stderr)
	case "help", "-h", "--help", "-help":
		fmt.Fprintf(stdout, usage, corpus.Default)
		fmt.Fprintln(stdout)
		writeDropInHelp(stdout)
		return exitStatus{}
	}
	if code, ok := subcommand(args, stdout, stderr); ok {
		return exitStatus{code: code}
	}
	// Not a command: a program, qemu-riscv64's way.
	return dropInMain(args, env, stdin, stdout, stderr)
}

// subcommand runs the command args[0] names, other than run and help,
// and returns its status; ok is false if args[0] is not a command.
func subcommand(args []string, stdout, stderr io.Writer) (code int, ok bool) {
	switch args[0] {
	case "bench":
		return benchCmd(args[1:], stdout, stderr), true
	case "profile":
		return profileCmd(args[1:], stdout, stderr), true
	case "predict":
		return predictCmd(args[1:], stdout, stderr), true
	case "rpa":
		return rpaCmd(args[1:], stdout, stderr), true
	case "gc":
		return gcCmd(args[1:], stdout, stderr), true
	case "reproduce":
		return reproduceCmd(args[1:], stdout, stderr), true
	case "layout":
		return layoutCmd(args[1:], stdout, stderr), true
	case "binfmt":
		return binfmtCmd(args[1:], stdout, stderr), true
	}
	return 0, false
}
