//go:build !amd64

// Native code support elsewhere: no fragments; dynamo mode is refused.

package codecache

import "rvdyn/fragment"

// Supported reports whether native code can run on this host.
const Supported = false

func enter(code uintptr, st *fragment.State, mem uintptr) {
	panic("codecache: native code needs an amd64 host")
}
