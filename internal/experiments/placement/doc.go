// Package placement holds the experiment of Gloy, Wang, Zhang, Chen and
// Smith, "Profile-Based Optimization with Statistical Profiles" (Harvard
// TR-02-97, 1997), whose mechanisms are in package layout: training runs
// of each guest give sample sets (frequency-based, and time-based under
// rvdyn and of the native build) and the complete profile; their
// Pettis-Hansen and C3 orders relink the guest; the results are the
// paper's Table 5 (chi-square, section 4.1), Figure 4 (key matching),
// Table 6 (simulated instruction-cache miss rates, section 4.3) and
// Table 7 (native run times), and Figure 3 (profiles compared).
//
// Experiment runs it on one guest; WriteTable5, WriteTable6 and
// WriteTable7 print the tables; PlotKeyMatch and PlotLayoutFigure3 draw
// the figures; RunNative and NativeTimes time (and sample) native host
// builds; Inputs and DefaultGuests are the corpus guests' training and
// test inputs.
//
// Layering: an experiment is a client of layout like any other; it holds
// no mechanism and does not import the root package (cmd/rvdyn supplies
// the runs as functions). Only cmd imports this package.
package placement
