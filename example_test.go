package rvdyn_test

import (
	"fmt"
	"os"

	"rvdyn"
	"rvdyn/bench/corpus"
)

// Run a guest program through the optimizer and compare its instruction
// count with plain interpretation.
func Example() {
	image, err := corpus.ELF("nqueens") // or os.ReadFile("prog.elf")
	if err != nil {
		panic(err)
	}
	count := func(mode rvdyn.Mode) uint64 {
		opts := rvdyn.Options{Mode: mode}    // zero fields: the defaults (prediction delay 50, ...)
		opts.Args = []string{"nqueens", "8"} // argv
		opts.Stdout = os.Stdout
		vm, err := rvdyn.New(image, opts)
		if err != nil {
			panic(err) // a bad ELF is an *interp.LoadError
		}
		defer vm.Close()
		code, err := vm.Run() // err: nil, *interp.Fault, interp.ErrLimit or rvdyn.ErrTimeout
		st := vm.Stats()
		fmt.Println("exit", code, err, "- fragments built:", st.Fragments > 0)
		return st.GuestInstructions
	}
	dynamo := count(rvdyn.ModeDynamo)
	interp := count(rvdyn.ModeInterp)
	fmt.Println("same instruction count:", dynamo == interp)
	// Output:
	// nqueens n=8
	// solutions=92
	// first: 0 4 7 5 2 6 1 3
	// check ok
	// exit 0 <nil> - fragments built: true
	// nqueens n=8
	// solutions=92
	// first: 0 4 7 5 2 6 1 3
	// check ok
	// exit 0 <nil> - fragments built: false
	// same instruction count: true
}
