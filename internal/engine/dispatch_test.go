// Tests of the dispatcher's wiring: the stops it asks the interpreter for -> the fast interpreter loop.

package engine

import (
	"testing"

	"rvdyn/interp"
	"rvdyn/net"
)

// TestDispatchStopsUseFastLoop checks that the stops the dispatcher asks
// for are interp.StopsAll, the one non-empty set the interpreter's fast
// loop serves: a selector asking for another stop would send every
// dispatch quantum through the single-step loop, many times slower.
func TestDispatchStopsUseFastLoop(t *testing.T) {
	if got := dispatchStops(net.NewSelector(net.Options{})); got != interp.StopsAll {
		t.Errorf("dispatch stops %03b, fast loop serves %03b", got, interp.StopsAll)
	}
}
