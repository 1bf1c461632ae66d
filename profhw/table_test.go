// Tests of the open-addressing tuple table against a Go map.

package profhw

import "testing"

func TestTupleTableAgainstMap(t *testing.T) {
	tab := newTupleTable(4)
	ref := map[Tuple]uint64{}
	r := rng{11}
	for i := 0; i < 200000; i++ {
		k := Tuple{PC: r.below(64), Val: r.below(64)}
		switch op := r.below(10); {
		case op < 6:
			tab.Add(k, 3)
			ref[k] += 3
		case op < 8:
			tab.Delete(k)
			delete(ref, k)
		case op < 9:
			tab.Set(k, 7)
			ref[k] = 7
		default:
			if i%1000 == 0 {
				tab.Reset()
				clear(ref)
			}
		}
		if got, ok := tab.Get(k); ok != (ref[k] != 0 || hasKey(ref, k)) || got != ref[k] {
			t.Fatalf("step %d: Get(%v) = %d,%v, want %d", i, k, got, ok, ref[k])
		}
	}
	if tab.Len() != len(ref) {
		t.Fatalf("Len = %d, want %d", tab.Len(), len(ref))
	}
	n := 0
	tab.Each(func(k Tuple, v uint64) {
		n++
		if ref[k] != v {
			t.Errorf("Each: %v = %d, want %d", k, v, ref[k])
		}
	})
	if n != len(ref) {
		t.Errorf("Each visited %d keys, want %d", n, len(ref))
	}
}

func hasKey(m map[Tuple]uint64, k Tuple) bool { _, ok := m[k]; return ok }
