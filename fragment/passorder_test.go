// The pass order constraints: the table holds, and a reordering is caught.

package fragment

import (
	"slices"
	"strings"
	"testing"
)

func TestPassOrder(t *testing.T) {
	if err := checkOrder(passes, passOrder); err != nil {
		t.Fatal(err)
	}
	// Swapping any constrained pair must be refused (by that constraint
	// or another the swap also breaks).
	for _, c := range passOrder {
		ps := slices.Clone(passes)
		i := slices.IndexFunc(ps, func(p pass) bool { return p.name == c.a })
		j := slices.IndexFunc(ps, func(p pass) bool { return p.name == c.b })
		ps[i], ps[j] = ps[j], ps[i]
		err := checkOrder(ps, passOrder)
		if err == nil || !strings.Contains(err.Error(), "must run before") {
			t.Errorf("%s and %s swapped: %v", c.a, c.b, err)
		}
	}
	if err := checkOrder(passes, append(slices.Clone(passOrder), struct{ a, b, why string }{"nosuch", "dce", ""})); err == nil {
		t.Error("a constraint on a pass that does not exist was accepted")
	}
}
