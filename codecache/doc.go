// Package codecache implements the software code cache: executable memory
// holding compiled fragments, the table from guest pc (the fragment's tag)
// to fragment, linking of exit stubs to fragments, flushing, and entering
// and leaving native code.
//
// W^X: the cache is one shared anonymous memory object mapped twice, once
// read-write (where code is written and exit jumps are patched) and once
// read-execute (where it runs). No page is ever writable and executable in
// the same mapping. (Anonymous rather than a memfd so that perf names its
// code from /tmp/perf-PID.map: see memory.go.)
//
// Native code is entered through one Go assembly trampoline (enter_amd64.s)
// on the calling goroutine, with no cgo. It returns when it leaves through
// an unlinked exit stub or when State.Budget runs out at a stub (the poll
// point every linked cycle passes), so the Go scheduler and garbage
// collector regain control in bounded time.
//
// The package decides nothing about what is hot (package net does) and
// generates no code (package fragment does). It follows the code cache of
// Dynamo (Duesterwald and Bala, "Software Profiling for Hot Path
// Prediction: Less is More", ASPLOS 2000, section 6): fragments are
// linked to each other, and the whole cache is flushed when it fills up or
// when the cache policy (policy.go) sees a phase change; the same policy
// decides the bail-out to the interpreter when flushes come too often. The
// dispatcher applies the policy's decisions.
package codecache
