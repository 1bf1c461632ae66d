// Command rvdyn runs RISC-V RV64IM programs through the rvdyn dynamic
// optimizer, measures them, and runs profiler experiments.
//
//	rvdyn run [flags] [prog.elf [args...]]   run a guest (default: an embedded one)
//	rvdyn bench [flags]                      measure every guest in every mode
//	rvdyn profile [flags] prog.elf [args...] profiler-model experiments
//	rvdyn predict [flags] prog.elf [args...] NET vs path-profile prediction quality
//	rvdyn rpa asm|disasm|edge ...            relational profiler queries
//	rvdyn gc [flags]                         the Scheme guest's collectors measured
//	rvdyn reproduce [--quick] [--out DIR]    every paper's figures and tables
//	rvdyn layout [flags]                     procedure placement from PC samples
//
// Run `rvdyn <command> -h` for the flags of each command.
package main

import (
	"fmt"
	"io"
	"os"

	"rvdyn/bench/corpus"
)

const usage = `rvdyn: a dynamic binary optimizer for RISC-V RV64IM programs

usage:
  rvdyn run [flags] [prog.elf [args...]]    run a guest program (default: embedded %s)
  rvdyn bench [flags]                        measure the guest corpus in every mode
  rvdyn profile [flags] [prog.elf [args...]] run profiler-model experiments
  rvdyn predict [flags] [prog.elf [args...]] hot path prediction quality: NET vs path profiles
  rvdyn rpa asm|disasm|edge ...              relational profiler: queries, listings, edge accuracy
  rvdyn gc [flags]                           the Scheme guest's collectors: GC overhead, pauses, barriers
  rvdyn reproduce [--quick] [--out DIR]      regenerate every figure and table of the papers
  rvdyn layout [flags]                       procedure placement from PC samples: Pettis-Hansen, C3, Tables 5-7
  rvdyn help                                 this text

Run 'rvdyn <command> -h' for a command's flags.
`

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func realMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, usage, corpus.Default)
		return 2
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdin, stdout, stderr)
	case "bench":
		return benchCmd(args[1:], stdout, stderr)
	case "profile":
		return profileCmd(args[1:], stdout, stderr)
	case "predict":
		return predictCmd(args[1:], stdout, stderr)
	case "rpa":
		return rpaCmd(args[1:], stdout, stderr)
	case "gc":
		return gcCmd(args[1:], stdout, stderr)
	case "reproduce":
		return reproduceCmd(args[1:], stdout, stderr)
	case "layout":
		return layoutCmd(args[1:], stdout, stderr)
	case "help", "-h", "--help", "-help":
		fmt.Fprintf(stdout, usage, corpus.Default)
		return 0
	}
	fmt.Fprintf(stderr, "rvdyn: unknown command %q (want run, bench, profile, predict, rpa, gc, reproduce, layout or help)\n", args[0])
	return 2
}
