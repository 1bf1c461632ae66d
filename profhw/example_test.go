// Examples: building a compressor from the notation; the false-positive bound.

package profhw_test

import (
	"fmt"

	"rvdyn/profhw"
)

// A stratified periodic sampler built from the paper's notation, fed a
// stream in which one tuple dominates.
func ExampleParseConfig() {
	cfg, err := profhw.ParseConfig("H[P_4]_16+A_2")
	if err != nil {
		panic(err)
	}
	fmt.Println(cfg)
	software := profhw.NewProfile()
	comp, _ := cfg.NewCompressor(1, software)
	hot := profhw.MakeTuple(profhw.KindValue, 0x10040, 7)
	stream := make([]profhw.Tuple, 400)
	for i := range stream {
		stream[i] = hot
	}
	comp.Feed(stream)
	comp.(*profhw.TwoLevel).Flush()
	fmt.Println(software.Count(hot), "occurrences in", software.Messages(), "messages")
	// Output:
	// H[P4]16+A2
	// 400 occurrences in 1 messages
}

// The bound of section 6.2 for the configurations of Figure 12: 2048
// counters split over 1, 2, 4 and 8 tables, candidate threshold 1%.
func ExampleFalsePositiveBound() {
	for _, n := range []int{1, 2, 4, 8} {
		fmt.Printf("%d tables: %.2e\n", n, profhw.FalsePositiveBound(n, 2048, 0.01))
	}
	// Output:
	// 1 tables: 4.88e-02
	// 2 tables: 9.54e-03
	// 4 tables: 1.46e-03
	// 8 tables: 5.42e-04
}
