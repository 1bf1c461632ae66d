// Native code support on amd64: the host runs fragments.

package codecache

// Supported reports whether native code can run on this host.
const Supported = true
