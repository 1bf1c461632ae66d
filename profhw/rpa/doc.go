// Package rpa implements the relational profiling architecture of Heil and
// Smith ("Relational Profiling: Enabling Thread-Level Parallelism in
// Virtual Machines", MICRO 2000, "RPA"): the query
// language and its assembler (sec. 3.1-3.2), the profile control table and
// the 64-bit query instructions (sec. 3.4, Figure 4), a disassembler for
// both, and the query engine (sec. 3.4.2) that runs the query instructions
// on profile records built from the interpreter's events.
//
// Data flows one way:
//
//	query text --Assemble--> *Program (PCT + query instructions)
//	                           |            \--Disassemble--> query text
//	interp.Event --Engine (select, sample, build record, run queries)-->
//	    actions: send (mq.Queue), count, interrupt, stop
//
// The Engine's Go evaluation is the reference semantics of the query
// engine: code emitted into fragments must select, sample and act exactly
// as Engine.Event does (same record words, same order of random draws per
// PCT entry). Today fragments emit the sampling decision only: they
// decrement the entry's countdown, which the engine shares with them
// (UseCountdowns, Selection), and hand the sampled execution to Event. See docs/rpa.md for the language, the encodings,
// the record-field mapping for RV64IM, the profile tag HINT, and where rvdyn
// differs from the paper.
//
// Package rpa imports interp (events, the profile tag rule) and profhw/mq
// (message queues); it must not import the root package, fragment or
// codecache.
package rpa
