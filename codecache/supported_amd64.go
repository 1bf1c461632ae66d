package codecache

// Supported reports whether native code can run on this host.
const Supported = true
