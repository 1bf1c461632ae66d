// Entering native code: a fragment entry and a State -> the exit it left by.

package codecache

import "rvdyn/fragment"

// enter runs native code at address code with R15 = st and R14 = mem until
// it returns through an exit stub. Implemented in enter_amd64.s.
//
//go:noescape
func enter(code uintptr, st *fragment.State, mem uintptr)
