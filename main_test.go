package rvdyn_test

import (
	"os"
	"testing"

	"rvdyn/fragment"
)

// TestMain runs the root tests, the whole-program differential tests
// among them, with the IR verifier on after every optimization pass, so a
// pass that breaks an invariant on a real guest fails the test with the
// pass's name instead of (maybe) miscompiling silently.
func TestMain(m *testing.M) {
	fragment.VerifyPasses(true)
	os.Exit(m.Run())
}
