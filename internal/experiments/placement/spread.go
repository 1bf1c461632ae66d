// Run-time statistics for the timing tables: a list of durations -> its median and its spread as text.

package placement

import (
	"fmt"
	"slices"
	"time"
)

// MedianDuration returns the median of d (the upper one of an even
// count; 0 for none). d is not modified.
func MedianDuration(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// Spread formats runs as "MEDIAN [MIN-MAX] IQR X%": the median, the
// extremes and the interquartile range as a share of the median
// (quartiles by the nearest-rank method), durations in milliseconds. A
// difference between two medians smaller than their IQRs is noise.
func Spread(runs []time.Duration) string {
	if len(runs) == 0 {
		return "-"
	}
	s := slices.Clone(runs)
	slices.Sort(s)
	q := func(p float64) time.Duration { return s[int(p*float64(len(s)-1)+0.5)] }
	med := s[len(s)/2]
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/1e6) }
	iqr := 0.0
	if med > 0 {
		iqr = 100 * float64(q(0.75)-q(0.25)) / float64(med)
	}
	return fmt.Sprintf("%sms [%s-%s] IQR %.0f%%", ms(med), ms(s[0]), ms(s[len(s)-1]), iqr)
}
