// Tests of the timing tables' median and spread.

package placement

import (
	"testing"
	"time"
)

func TestSpread(t *testing.T) {
	ms := time.Millisecond
	runs := []time.Duration{50 * ms, 10 * ms, 30 * ms, 20 * ms, 40 * ms}
	if got := MedianDuration(runs); got != 30*ms {
		t.Errorf("MedianDuration = %v", got)
	}
	if runs[0] != 50*ms {
		t.Error("MedianDuration sorted its argument")
	}
	// Quartiles by nearest rank: 20 and 40 ms, IQR 20/30 of the median.
	if got, want := Spread(runs), "30ms [10-50] IQR 67%"; got != want {
		t.Errorf("Spread = %q, want %q", got, want)
	}
	if got := Spread(nil); got != "-" {
		t.Errorf("Spread(nil) = %q", got)
	}
	if got := MedianDuration(nil); got != 0 {
		t.Errorf("MedianDuration(nil) = %v", got)
	}
}
