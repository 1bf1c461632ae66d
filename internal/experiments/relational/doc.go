// Package relational holds the experiments of Heil and Smith,
// "Relational Profiling: Enabling Thread-Level Parallelism in Virtual
// Machines" (MICRO 2000), whose mechanisms are in packages profhw/rpa
// (the query language, the query engine and the hardware cost model),
// profhw/mq (the message queues and service threads) and gcassist (the
// concurrent collector fed by the store-barrier query):
//
//   - edge profile accuracy of Figure 2a's query at sampling periods 32 to
//     256 (RunEdge, WriteEdgeTable; section 6.2), with our error metric
//     (rpa.EdgeError), since the paper reports none;
//   - the main-thread cost of profiling, which the paper's hardware keeps
//     under 0.5% (section 6.2): guests in dynamo mode with the edge query
//     and query d) of Figure 2d installed against without (RunOverhead,
//     WriteOverheadTable);
//   - the concurrent collector with the store barrier of Figure 2c
//     (section 5): GC overhead, pauses and barrier traffic per program,
//     execution mode and collector mode (RunGC, GCReport.WriteTable,
//     GCReport.GCSummary, PlotGC), and beside the paper's 0.6% of total
//     runtime (GCPaperComparison, WriteGCPaperComparison);
//   - Figure 7, Figures 8a, 8b and 8c and Table 6 (sections 6.1 to 6.3)
//     from the hardware cost model rpa.HWModel, fed with the positions of
//     the profiled instructions of Scheme programs (RunRPAHW,
//     RPAHWReport.WriteTables, PlotRPAHWFigure7, PlotRPAHWFigure8). A
//     model, not a measurement: rvdyn has no profiling hardware.
//
// Layering: an experiment is a client of profhw/rpa, profhw/mq and
// gcassist like any other; it holds no mechanism. It runs guests through
// the root package's public API and uses bench's statistics (medians,
// geometric means), as bench does; bench does not import it. Only cmd
// imports this package.
package relational
