package interp

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"

	"rvdyn/bench/corpus"
)

// BenchmarkInterpreter measures the fast interpreter loop on the loop-heavy
// guests at their small sizes, reporting guest instructions per second.
func BenchmarkInterpreter(b *testing.B) {
	benchGuests(b, func(m *Machine) error { return m.Run(0) })
}

// BenchmarkInterpreterDispatch measures the fast loop as the dispatcher
// drives it: slices that stop at every taken backward branch, marked
// entry and fence.i (nothing is marked here), so the cost of the stop
// checks on each taken transfer shows against BenchmarkInterpreter.
func BenchmarkInterpreterDispatch(b *testing.B) {
	benchGuests(b, func(m *Machine) error {
		for !m.Exited() {
			if _, err := m.RunUntil(1<<22, StopsAll); err != nil {
				return err
			}
		}
		return nil
	})
}

// benchGuests runs each loop-heavy guest to its end with run, reporting
// guest instructions per second.
func benchGuests(b *testing.B, run func(*Machine) error) {
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
				if err := run(m); err != nil || m.ExitCode() != 0 {
					b.Fatal(err, m.ExitCode())
				}
				insts += m.Retired()
				m.Close()
			}
			b.ReportMetric(float64(insts)/b.Elapsed().Seconds(), "insts/s")
		})
	}
}

// BenchmarkDecodeText measures Decode over the text of the RV64GC
// bigtext guest (325,000 instructions, nearly half of them compressed),
// reporting instructions decoded per second: the cost a large program
// pays once per instruction before it runs.
func BenchmarkDecodeText(b *testing.B) {
	img, err := corpus.ELFOf("bigtext", corpus.GC)
	if err != nil {
		b.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(img))
	if err != nil {
		b.Fatal(err)
	}
	text, err := f.Section(".text").Data()
	if err != nil {
		b.Fatal(err)
	}
	var words []uint32
	for off := 0; off+2 <= len(text); {
		w := uint32(binary.LittleEndian.Uint16(text[off:]))
		if w&3 == 3 && off+4 <= len(text) {
			w |= uint32(binary.LittleEndian.Uint16(text[off+2:])) << 16
		}
		words = append(words, w)
		off += int(Decode(w).Len())
	}
	var sink Op
	for b.Loop() {
		for _, w := range words {
			sink ^= Decode(w).Op
		}
	}
	b.ReportMetric(float64(len(words)*b.N)/b.Elapsed().Seconds(), "insts/s")
	_ = sink
}
