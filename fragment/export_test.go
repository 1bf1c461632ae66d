// Test hooks: switch the IR verifier on for every test in the package.

package fragment

func init() { verifyPasses = true }
