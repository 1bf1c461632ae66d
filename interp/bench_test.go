package interp

import (
	"testing"

	"rvdyn/bench/corpus"
)

// BenchmarkInterpreter measures the fast interpreter loop on the loop-heavy
// guests at their small sizes, reporting guest instructions per second.
func BenchmarkInterpreter(b *testing.B) {
	for _, g := range []struct{ name, size string }{{"sieve", "3000000"}, {"matmul", "200"}, {"crc32", "1024"}, {"sha256", "384"}} {
		img, err := corpus.ELF(g.name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(g.name, func(b *testing.B) {
			var insts uint64
			for b.Loop() {
				m, err := Load(img, Config{Args: []string{g.name, g.size}})
				if err != nil {
					b.Fatal(err)
				}
				if err := m.Run(0); err != nil || m.ExitCode() != 0 {
					b.Fatal(err, m.ExitCode())
				}
				insts += m.Retired()
				m.Close()
			}
			b.ReportMetric(float64(insts)/b.Elapsed().Seconds(), "insts/s")
		})
	}
}

// BenchmarkInterpreterDispatch measures the fast loop as the dispatcher
// drives it: slices that stop at every taken backward branch, marked
// entry and fence.i (nothing is marked here), so the cost of the stop
// checks on each taken transfer shows against BenchmarkInterpreter.
func BenchmarkInterpreterDispatch(b *testing.B) {
	for _, g := range []struct{ name, size string }{{"sieve", "3000000"}, {"matmul", "200"}, {"crc32", "1024"}, {"sha256", "384"}} {
		img, err := corpus.ELF(g.name)
		if err != nil {
			b.Skip(err)
		}
		b.Run(g.name, func(b *testing.B) {
			var insts uint64
			for b.Loop() {
				m, err := Load(img, Config{Args: []string{g.name, g.size}})
				if err != nil {
					b.Fatal(err)
				}
				for !m.Exited() {
					if _, err := m.RunUntil(1<<22, StopsAll); err != nil {
						b.Fatal(err)
					}
				}
				insts += m.Retired()
				m.Close()
			}
			b.ReportMetric(float64(insts)/b.Elapsed().Seconds(), "insts/s")
		})
	}
}
