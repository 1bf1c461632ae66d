// Basic-block profiles: a sample set (samp2bb) or the interpreter's exact counts (the complete profile, pixie) -> a weight per basic block.

package layout

import (
	"rvdyn/interp"
)

// A Profile is a basic-block profile: Profile[i] is the weight of
// Program.Blocks[i] (executions of the block, exact or estimated).
type Profile []float64

// Add adds o to p, block by block (sample sets are combined without
// scaling, as in the paper's section 3.2).
func (p Profile) Add(o Profile) {
	for i := range p {
		p[i] += o[i]
	}
}

// Total returns the sum of the weights.
func (p Profile) Total() float64 {
	var t float64
	for _, w := range p {
		t += w
	}
	return t
}

// BlockProfile is samp2bb (the paper's section 3.2): for each pc sample,
// find the basic block containing the pc and add 1/(basic block size in
// instructions) to it (Figure 2's "with scaling"). It returns the profile
// and the number of samples that fell outside every block (code without a
// function symbol).
func (p *Program) BlockProfile(s SampleSet) (Profile, float64) {
	prof := make(Profile, len(p.Blocks))
	var outside float64
	for pc, n := range s {
		b := p.BlockAt(pc)
		if b < 0 {
			outside += n
			continue
		}
		prof[b] += n / float64(p.Blocks[b].N)
	}
	return prof, outside
}

// A Complete is the complete profile, the paper's pixie: an interp.Hook
// (attach it with the mask AllClasses) that counts the
// executions of every instruction in [Lo, Hi).
type Complete struct {
	Lo, Hi uint64
	Counts []uint64 // Counts[(pc-Lo)/2]: instructions start at even addresses
}

// NewComplete returns a complete profiler for the procedures of p.
func NewComplete(p *Program) *Complete {
	lo, hi := p.Procs[0].Addr, uint64(0)
	for _, q := range p.Procs {
		hi = max(hi, q.Addr+q.Size)
	}
	return &Complete{Lo: lo, Hi: hi, Counts: make([]uint64, (hi-lo+1)/2)}
}

// Event counts one retired instruction.
func (c *Complete) Event(e *interp.Event) {
	if e.PC-c.Lo < c.Hi-c.Lo {
		c.Counts[(e.PC-c.Lo)/2]++
	}
}

// AllClasses is the hook mask that selects every instruction.
const AllClasses = interp.ClassMask(0xff)

// BlockProfile returns the exact basic-block profile: the executions of
// each block. Every instruction of a block runs as often as the block,
// except where control enters it through an indirect jump to a
// non-leader the static analysis could not see (a jump-table target
// reached by fall-through elsewhere); the mean count of its instructions
// is taken, so that weight times size is exactly the instructions
// executed in the block, as samp2bb's estimate is.
func (c *Complete) BlockProfile(p *Program) Profile {
	prof := make(Profile, len(p.Blocks))
	for i, b := range p.Blocks {
		var m uint64
		for a := b.Addr; a < b.Addr+b.Size; a += 2 { // slots inside an instruction count 0
			if a-c.Lo < c.Hi-c.Lo {
				m += c.Counts[(a-c.Lo)/2]
			}
		}
		prof[i] = float64(m) / float64(b.N)
	}
	return prof
}

// ProcWeights returns the instructions executed in each procedure
// according to prof (block weight times block size), the hotness C3
// sorts by.
func (p *Program) ProcWeights(prof Profile) []float64 {
	w := make([]float64, len(p.Procs))
	for i, b := range p.Blocks {
		w[b.Proc] += prof[i] * float64(b.N)
	}
	return w
}
