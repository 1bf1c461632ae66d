//go:build race

package gcassist_test

// raceBuild trims the slowest cases under the race detector, which runs the
// interpreter several times slower; the concurrent protocol is exercised
// either way.
const raceBuild = true
