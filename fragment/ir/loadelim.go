// Redundant load elimination and store-to-load forwarding: a Func -> the same Func with loads of known memory replaced by register moves.

package ir

import "rvdyn/interp"

// A memFact says: the width bytes of guest memory at base+off equal the
// low width bytes of val. base and val are register values pinned by
// version (a register's version changes at each write), or constants (a
// constant address is kept as base 0, off = the address).
type memFact struct {
	base    Val
	baseVer int
	off     int64
	width   int64
	val     Val
	valVer  int
	op      interp.Op // the load that produced val, so val is exactly what it loads; 0 after a store
}

// maxFacts bounds the work per instruction; older facts are forgotten.
const maxFacts = 32

// LoadElim walks the trace remembering what memory holds. A load of the
// same base value, offset and width as an earlier load or store, with no
// possibly aliasing store in between, becomes a move (or an extension) of
// the register that holds the value, and loses its bounds check: the
// earlier access at the same address succeeded, so this one cannot fault
// (a store implies a load would pass when WriteLo >= ReadLo).
//
// Aliasing is decided conservatively: a store (fsw and fsd too) kills every fact except
// those off the same base value whose bytes it provably does not overlap.
// Stores are never removed, only loads.
func LoadElim(f *Func) {
	var ver [32]int
	var facts []memFact
	fromStores := f.env.WriteLo >= f.env.ReadLo
	key := func(in *Inst) (Val, int, int64) {
		if in.A.IsConst {
			return C(0), 0, int64(in.A.Const) + in.Off
		}
		return in.A, ver[in.A.Reg], in.Off
	}
	current := func(v Val, vv int) bool { return v.IsConst || ver[v.Reg] == vv }
	for i := range f.Insts {
		in := &f.Insts[i]
		switch {
		case IsLoad(in.Op):
			base, bv, off := key(in)
			w := Width(in.Op)
			for _, m := range facts {
				if m.base != base || m.baseVer != bv || m.off != off || m.width != w || !current(m.val, m.valVer) {
					continue
				}
				if m.op == 0 && !fromStores {
					continue
				}
				r := Inst{Op: OpMov, Dst: in.Dst, A: m.val, Exit: -1, PC: in.PC, Step: in.Step}
				switch {
				case m.val.IsConst:
					r.A = C(Extend(in.Op, m.val.Const))
				case m.op != in.Op && in.Op != interp.OpLD:
					r.Op = loadExt[in.Op]
				}
				if r.Dst == 0 { // a load into x0 only checks the address, which is proven
					r.Op, r.Dst, r.A = OpMov, 0, C(0)
				}
				*in = r
				break
			}
			if !IsLoad(in.Op) {
				if in.Dst == 0 {
					in.Op = 0 // removed below
				}
				break
			}
			if in.Dst != 0 && !in.A.IsReg(in.Dst) {
				facts = append(facts, memFact{base: base, baseVer: bv, off: off, width: w, val: R(in.Dst), valVer: ver[in.Dst] + 1, op: in.Op})
			}
		case IsAtomic(in.Op):
			facts = facts[:0] // it may write anywhere
		case IsStore(in.Op) || IsFloatStore(in.Op):
			base, bv, off := key(in)
			w := Width(in.Op)
			kept := facts[:0]
			for _, m := range facts {
				if m.base == base && m.baseVer == bv && (m.off+m.width <= off || off+w <= m.off) {
					kept = append(kept, m)
				}
			}
			facts = kept
			if IsFloatStore(in.Op) {
				break // what it stores is in no x register
			}
			vv := 0
			if !in.B.IsConst {
				vv = ver[in.B.Reg]
			}
			facts = append(facts, memFact{base: base, baseVer: bv, off: off, width: w, val: in.B, valVer: vv})
		}
		if in.Dst != 0 {
			ver[in.Dst]++
		}
		if len(facts) > maxFacts {
			facts = append(facts[:0], facts[len(facts)-maxFacts:]...)
		}
	}
	out := f.Insts[:0]
	for _, in := range f.Insts {
		if in.Op != 0 {
			out = append(out, in)
		}
	}
	f.Insts = out
}

// loadExt gives the extension that turns a register holding a value's low
// bytes into what a load of them leaves.
var loadExt = map[interp.Op]interp.Op{
	interp.OpLB: OpSext8, interp.OpLBU: OpZext8, interp.OpLH: OpSext16, interp.OpLHU: OpZext16,
	interp.OpLW: OpSext32, interp.OpLWU: OpZext32,
}
