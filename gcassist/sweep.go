// Sweeping: a marked heap in (guest stopped at a safepoint), free lists, top and cleared mark bits written back to guest memory out.

package gcassist

import "fmt"

// sweep walks [heap_start, top) as the guest's own sweep does: marked
// objects lose their mark, every run of dead and free blocks becomes free
// blocks (coalesced, capped at the largest encodable size, never leaving a
// one-word hole) appended to their lists in address order, and a run that
// ends at top goes back to the bump space. It returns the live bytes.
func (c *Collector) sweep() (live uint64, err error) {
	mem, d := c.mem, c.d
	poisonFree := c.opts.Poison || d.guestPoison
	heads := make([]uint64, d.nfree)
	tails := make([]uint64, d.nfree)
	flush := func(run, end uint64) {
		for run < end {
			words := (end - run) / 8
			if words > maxWords+1 {
				words = maxWords + 1
			}
			if end-run-8*words == 8 {
				words--
			}
			size := words - 1
			mem.StoreWord(run, makeHdr(typeFree, 0, size))
			mem.StoreWord(run+8, 0)
			if poisonFree {
				for a := run + 16; a < run+8*words; a += 8 {
					mem.StoreWord(a, poison)
				}
			}
			k := uint64(0)
			if size < d.nsmall {
				k = size
			}
			if tails[k] == 0 {
				heads[k] = run
			} else {
				mem.StoreWord(tails[k]+8, run)
			}
			tails[k] = run
			run += 8 * words
		}
	}
	top := mem.LoadWord(d.top)
	if top < d.heapStart || top > d.heapEnd || top&7 != 0 {
		return 0, fmt.Errorf("gcassist: top 0x%x outside the heap", top)
	}
	var run uint64
	a := d.heapStart
	for a < top {
		h := mem.LoadWord(a)
		size := hdrSize(h)
		bytes := 8 * (size + 1)
		if size == 0 || bytes > top-a {
			return 0, fmt.Errorf("gcassist: block 0x%x has a bad header 0x%x", a, h)
		}
		if hdrType(h) != typeFree && h&markBit != 0 {
			mem.StoreWord(a, h&^markBit)
			live += bytes
			if run != 0 {
				flush(run, a)
				run = 0
			}
		} else {
			if hdrType(h) != typeFree {
				c.stats.FreedObjects++
				c.stats.FreedBytes += bytes
			}
			if run == 0 {
				run = a
			}
		}
		a += bytes
	}
	if run != 0 {
		if poisonFree {
			for p := run; p < top; p += 8 {
				mem.StoreWord(p, poison)
			}
		}
		top = run
	}
	mem.StoreWord(d.top, top)
	for k, h := range heads {
		mem.StoreWord(d.freeHeads+8*uint64(k), h)
	}
	return live, nil
}

// A LostObjectError reports a collector bug that Options.Verify caught:
// an object reachable from the roots at a safepoint was freed.
type LostObjectError struct {
	Addr   uint64 // the freed object's header address
	From   uint64 // the object or root slot that refers to it
	Header uint64 // what the header word holds now
	Cycle  uint64 // the collection (1-based) after which it was found
}

func (e *LostObjectError) Error() string {
	return fmt.Sprintf("gcassist: collection %d freed reachable object 0x%x (referred to from 0x%x, header now 0x%x)",
		e.Cycle, e.Addr, e.From, e.Header)
}

// verify walks the heap from the roots (with a side bitmap, touching no
// header) and fails with a *LostObjectError at the first reference to a
// free block or outside the tiled heap.
func (c *Collector) verify() error {
	mem, d := c.mem, c.d
	top := mem.LoadWord(d.top)
	seen := make([]uint64, (d.heapEnd-d.heapStart)/8/64+1)
	var stack [][2]uint64 // {object, referrer}
	var lost error
	visit := func(v, from uint64) {
		if lost != nil || !isRef(v) {
			return
		}
		if v < d.heapStart || v >= top {
			lost = &LostObjectError{Addr: v, From: from, Cycle: c.stats.Collections}
			return
		}
		i := (v - d.heapStart) / 8
		if seen[i/64]&(1<<(i%64)) != 0 {
			return
		}
		seen[i/64] |= 1 << (i % 64)
		if h := mem.LoadWord(v); hdrType(h) == typeFree || h == poison {
			lost = &LostObjectError{Addr: v, From: from, Header: h, Cycle: c.stats.Collections}
			return
		}
		stack = append(stack, [2]uint64{v, from})
	}
	if err := c.rootValues(func(v uint64) { visit(v, 0) }); err != nil {
		return err
	}
	for len(stack) > 0 && lost == nil {
		v := stack[len(stack)-1][0]
		stack = stack[:len(stack)-1]
		h := mem.LoadWord(v)
		n := hdrNrefs(h)
		if n > hdrSize(h) || v+8*(hdrSize(h)+1) > top {
			return fmt.Errorf("gcassist: object 0x%x has a bad header 0x%x", v, h)
		}
		for i := uint64(0); i < n; i++ {
			visit(mem.LoadWord(v+8+8*i), v)
		}
	}
	return lost
}
