// Tests of samp2bb and the complete profile: hand-built blocks (the paper's Figure 2) and the corpus's real ELFs.

package layout

import (
	"testing"

	"rvdyn/bench/corpus"
	"rvdyn/interp"
)

// TestSamp2bbScaling is the paper's Figure 2: blocks of 3 and 6
// instructions executed equally often; samples 3 and 6 without scaling
// become 1 and 1 with it.
func TestSamp2bbScaling(t *testing.T) {
	p := &Program{
		Procs:  []Proc{{Name: "loop", Addr: 0x1000, Size: 36, Blocks: [2]int{0, 2}}},
		Blocks: []Block{{Addr: 0x1000, N: 3, Size: 12}, {Addr: 0x100c, N: 6, Size: 24}},
	}
	s := SampleSet{0x1004: 2, 0x1008: 1, 0x1010: 3, 0x101c: 2, 0x1020: 1, 0x2000: 4}
	prof, outside := p.BlockProfile(s)
	near := func(x float64) bool { return x > 1-1e-12 && x < 1+1e-12 }
	if !near(prof[0]) || !near(prof[1]) || outside != 4 {
		t.Errorf("BlockProfile = %v, %v outside; want [1 1], 4", prof, outside)
	}
}

// TestAnalyzeCorpus checks the blocks of real guests of both flavors:
// they tile each procedure, and the complete profile's block counts
// explain every retired instruction. RV64GC's glibc places about half
// its functions at addresses that are multiples of 2 only, and ends
// some with a 2-byte instruction: they must be procedures all the same.
func TestAnalyzeCorpus(t *testing.T) {
	for _, fl := range corpus.Flavors() {
		for _, name := range []string{"nqueens", "qsort", "bytecode"} {
			t.Run(fl.String()+"/"+name, func(t *testing.T) { analyzeCorpus(t, name, fl) })
		}
	}
}

func analyzeCorpus(t *testing.T, name string, fl corpus.Flavor) {
	image, err := corpus.ELFOf(name, fl)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Analyze(image)
	if err != nil {
		t.Fatal(err)
	}
	if p.Proc("main") < 0 {
		t.Fatal("no main")
	}
	for i, q := range p.Procs {
		a := q.Addr
		for b := q.Blocks[0]; b < q.Blocks[1]; b++ {
			if p.Blocks[b].Addr != a || p.Blocks[b].Proc != i {
				t.Fatalf("%s: block %d at %#x, want %#x", q.Name, b, p.Blocks[b].Addr, a)
			}
			a += p.Blocks[b].Size
		}
		if a != q.Addr+q.Size {
			t.Fatalf("%s: blocks end at %#x, procedure at %#x", q.Name, a, q.Addr+q.Size)
		}
	}
	m, err := interp.Load(image, interp.Config{Args: corpus.Args(name, corpus.Small)})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c := NewComplete(p)
	m.SetHook(AllClasses, c)
	if err := m.Run(0); err != nil {
		t.Fatal(err)
	}
	prof := c.BlockProfile(p)
	var n float64
	for i, w := range prof {
		n += w * float64(p.Blocks[i].N)
	}
	if r := float64(m.Retired()); n < r*(1-1e-9) || n > r*(1+1e-9) {
		t.Errorf("blocks account for %v instructions, %d retired", n, m.Retired())
	}
	g := p.CallGraph(prof)
	if g.DirectCalls == 0 || len(g.Edges) == 0 {
		t.Errorf("empty call graph: %+v", g)
	}
}

// TestFuncSampleSet spreads a native run's samples by function over the
// guest function's instructions: every block of the function gets the
// same weight per instruction, whatever the instructions' lengths (the
// second function's first block is RV64GC code, 2- and 4-byte), and
// names the guest lacks are unmapped.
func TestFuncSampleSet(t *testing.T) {
	p := &Program{
		Procs: []Proc{
			{Name: "loop", Addr: 0x1000, Size: 36, Blocks: [2]int{0, 2}},
			{Name: "other", Addr: 0x1024, Size: 8, Blocks: [2]int{2, 3}},
			{Name: "rvc", Addr: 0x102c, Size: 18, Blocks: [2]int{3, 5}},
		},
		Blocks: []Block{
			{Addr: 0x1000, N: 3, Size: 12}, {Addr: 0x100c, N: 6, Size: 24}, {Addr: 0x1024, N: 2, Size: 8},
			{Addr: 0x102c, N: 4, Size: 10}, {Addr: 0x1036, N: 2, Size: 8},
		},
	}
	s, unmapped := p.FuncSampleSet(map[string]uint64{"loop": 18, "memcpy": 5, "?": 2, "rvc": 12})
	if unmapped != 7 {
		t.Errorf("unmapped = %v, want 7", unmapped)
	}
	if s.Total() != 30 || s[0x1000] != 6 || s[0x100c] != 12 || s[0x1024] != 0 || s[0x102c] != 8 || s[0x1036] != 4 {
		t.Errorf("set = %v", s)
	}
	prof, _ := p.BlockProfile(s)
	near := func(x, y float64) bool { return x > y-1e-12 && x < y+1e-12 }
	if !near(prof[0], 2) || !near(prof[1], 2) || prof[2] != 0 || !near(prof[3], 2) || !near(prof[4], 2) {
		t.Errorf("block profile = %v, want [2 2 0 2 2]", prof)
	}
}
