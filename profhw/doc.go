// Package profhw implements the profiling hardware of two papers as
// software models that consume a stream of profile tuples:
//
//   - the stream compressors of Sastry, Bodik and Smith, "Rapid profiling via
//     stratified sampling" (ISCA 2001): the random sampler R_r, the
//     periodic sampler P_r, the counter C, the hash splitter H[X]_n with
//     the paper's hash (section 3.5), the six samplers of Figure 3, the
//     tagged compressor and its Figure 6 state machine (section 4) and the
//     associative counter table A_k as a second level (section 3.4);
//   - the interval profilers of Narayanasamy, Sherwood, Sair, Calder and
//     Varghese, "Catching accurate profiles in hardware" (HPCA 2003), the
//     multi-hash paper: the single-hash architecture with its accumulator
//     table, shielding, retaining and resetting (sections 5.2, 5.4) and the
//     multi-hash architecture with conservative update and immediate reset
//     (section 6);
//   - the metrics both papers measure against a perfect profiler on the same
//     stream: the invariance-weighted value-profile error and the 30-cycle
//     message overhead model (stratified 5.3), the interval error of formula
//     (1) split into false/neutral positives/negatives (multi-hash 5.5) and
//     the false-positive bound (multi-hash 6.2), and IntervalRun, which
//     scores several interval profilers on one stream.
//
// The papers' experiments (many configurations, written in the papers'
// notation (ParseConfig), run over one stream side by side; the Monte
// Carlo experiment of the stratified paper's Figure 4; the interval
// census; convergence), their text reports and their plots are in
// rvdyn/internal/experiments/hwprofile, a client of this package.
//
// Streams come from the interpreter (GuestSource, an interp.Hook that turns
// retired instructions into value, edge and call-target tuples), from a
// recorded stream file (StreamReader, written by Recorder) or from memory
// (SliceSource).
//
// Layering: profhw imports rvdyn/interp and nothing else of the project; it
// does not know about native code, fragments or the code cache.
//
// Invariants: every model consumes batches of tuples through Feed, and the
// per-tuple path allocates nothing (messages are rare and go through the Sink
// interface). Every random choice is drawn from a seeded generator, so a run
// is a pure function of the stream and the seed.
package profhw
