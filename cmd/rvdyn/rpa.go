// The rpa command and run --query: relational profiler queries in; listings, images, the edge experiment's accuracy table (relational.RunEdge), per-pc query tables and RPA stats out.

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"rvdyn"
	"rvdyn/internal/experiments/relational"
	"rvdyn/profhw/rpa"
)

const rpaUsage = `usage: rvdyn rpa asm [-o IMAGE] 'TEXT'|@FILE  assemble a query program; print its PCT and query instructions
       rvdyn rpa disasm IMAGE|@FILE            disassemble a binary image (or a source file) the same way
       rvdyn rpa edge [flags]                  edge profiling accuracy (Figure 2a) at several sampling rates
       rvdyn rpa overhead [flags]              main-thread time in dynamo mode with the edge query (and query d) vs without

Queries are the relational profiling architecture's assembly language
(docs/rpa.md), e.g.
  for opBRANCH * every 256 collect pc misc; send 1 stop;
'rvdyn run [--mode=interp] --query 'TEXT'|@FILE' runs a guest with queries
installed. A query argument is the query text itself; @FILE reads it from
FILE (a regular file, at most 64 KiB).

flags of edge and overhead:
`

func rpaCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, rpaUsage)
		return exitUsage
	}
	switch args[0] {
	case "asm", "disasm":
		return rpaAsmCmd(args[0], args[1:], stdout, stderr)
	case "edge":
		return rpaEdgeCmd(args[1:], stdout, stderr)
	case "overhead":
		return rpaOverheadCmd(args[1:], stdout, stderr)
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, rpaUsage)
		return 0
	}
	fmt.Fprintf(stderr, "rvdyn rpa: unknown subcommand %q (want asm, disasm, edge or overhead)\n", args[0])
	return exitUsage
}

// maxQueryFile bounds a query file (@FILE): a query program has at most
// 64 query instructions, far less text than this even with comments.
const maxQueryFile = 64 << 10

// errEmptyQuery is the refusal of a query argument with no query in it.
var errEmptyQuery = errors.New("empty query")

// readQuery returns the query text an argument gives. One rule, so that
// no text is ever mistaken for a file name or the other way round:
// "@FILE" reads FILE (a regular file of at most maxQueryFile bytes),
// anything else is the query text itself. An empty argument (or an empty
// file) is errEmptyQuery; every error is one line.
func readQuery(arg string) (string, error) {
	text := arg
	if name, ok := strings.CutPrefix(arg, "@"); ok {
		if name == "" {
			return "", errors.New("@ without a file name")
		}
		b, err := readRegular(name, maxQueryFile, "the 64 KiB a query file may hold")
		if err != nil {
			return "", err
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return "", errEmptyQuery
	}
	return text, nil
}

func rpaAsmCmd(sub string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rpa "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "asm: also write the binary image (\"RPA1\", 280-byte PCT, 64-bit query instructions) to this file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, rpaUsage)
		return exitUsage
	}
	// asm takes a query argument (text, or @FILE); disasm a file, a
	// binary image or query text.
	arg := fs.Arg(0)
	if sub == "disasm" && !strings.HasPrefix(arg, "@") {
		arg = "@" + arg
	}
	text, err := readQuery(arg)
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn: %v\n", err)
		return exitUsage
	}
	var p *rpa.Program
	if sub == "disasm" && strings.HasPrefix(text, "RPA1") {
		p = &rpa.Program{}
		err = p.UnmarshalBinary([]byte(text))
	} else {
		p, err = rpa.Assemble(text)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn: %v\n", err)
		return 1
	}
	fmt.Fprint(stdout, rpa.Disassemble(p))
	if *out != "" {
		img, _ := p.MarshalBinary()
		if err := os.WriteFile(*out, img, 0o644); err != nil {
			fmt.Fprintf(stderr, "rvdyn: %v\n", err)
			return 1
		}
	}
	return 0
}

func rpaEdgeCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rpa edge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	guest := fs.String("guest", "all", "embedded guests to run (comma-separated, or all), at their small sizes")
	flavor := fs.String("flavor", "im", flavorUsage)
	rates := fs.String("rates", "32,64,128,256", "sampling periods N (every N branches), comma-separated")
	seed := fs.Uint64("seed", 1, "seed for the random sampling")
	jsonOut := fs.String("json", "", "write the rows as JSON to this file")
	maxInsts := fs.Uint64("max-instructions", 0, "stop each guest after this many instructions (0 = run to exit)")
	fs.Usage = func() { fmt.Fprint(stderr, rpaUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	periods, err := parseInts(*rates, 1)
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn: --rates: %v\n", err)
		return exitUsage
	}
	var ns []uint32
	for _, n := range periods {
		if n > rpa.MaxRate {
			fmt.Fprintf(stderr, "rvdyn: --rates: %d is not a period in 1..%d\n", n, rpa.MaxRate)
			return exitUsage
		}
		ns = append(ns, uint32(n))
	}
	gs, err := selectGuestsOf(fs.Args(), *guest, true, 0, *flavor)
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn: %v\n", err)
		return exitUsage
	}
	rows, err := relational.RunEdge(experimentGuests(gs), ns, *seed, *maxInsts)
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn: %v\n", err)
		return 1
	}
	relational.WriteEdgeTable(stdout, rows)
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, rows); err != nil {
			fmt.Fprintf(stderr, "rvdyn: %v\n", err)
			return 1
		}
	}
	return 0
}

// experimentGuests hands the guests selectGuests chose to an experiment.
func experimentGuests(gs []guestRun) []relational.Guest {
	out := make([]relational.Guest, len(gs))
	for i, g := range gs {
		out[i] = relational.Guest{Name: g.name, Image: g.image, Args: g.args}
	}
	return out
}

// queryRun is run --query's state: the session attached to the guest.
type queryRun struct {
	s *rpa.Session
}

// startQuery assembles the --query program and starts its queues and
// service threads; the caller hands the session to rvdyn.Options.Profiler,
// which attaches it in either mode.
func startQuery(arg string, seed uint64, gc *rvdyn.Collector) (*queryRun, error) {
	text, err := readQuery(arg)
	if err != nil {
		return nil, fmt.Errorf("--query: %w", err)
	}
	if gc != nil { // --gc=rpa: the store-barrier query first, then these
		s, err := gc.StartSession(text, rpa.Options{Seed: seed}, 0)
		if err != nil {
			return nil, fmt.Errorf("--query with --gc=rpa: %w", err)
		}
		return &queryRun{s: s}, nil
	}
	p, err := rpa.Assemble(text)
	if err != nil {
		return nil, fmt.Errorf("--query: %w", err)
	}
	s, err := rpa.Start(p, rpa.Options{Seed: seed}, 0)
	if err != nil {
		return nil, fmt.Errorf("--query: %w", err)
	}
	return &queryRun{s: s}, nil
}

// queryQueue is one queue's part of run --query's JSON.
type queryQueue struct {
	Queue int           `json:"queue"`
	PCs   []queryPCLine `json:"pcs"`
}

type queryPCLine struct {
	PC       string  `json:"pc,omitempty"` // absent when the query does not collect pc: one line for the queue
	Messages uint64  `json:"messages"`
	Taken    *uint64 `json:"taken,omitempty"`     // when the records carry a branch outcome
	NotTaken *uint64 `json:"not_taken,omitempty"` // likewise
}

// finish stops the service threads (after they drained their queues) and
// prints each queue's per-pc table and the RPA stats to w, or writes them
// as JSON to jsonPath.
func (q *queryRun) finish(m *rvdyn.Machine, w io.Writer, jsonPath string) error {
	m.SetHook(0, nil)
	q.s.Close()
	rep := q.s.Report()
	var qs []queryQueue
	for n, t := range q.s.Tables {
		if t == nil {
			continue
		}
		rows := t.Rows()
		qq := queryQueue{Queue: n}
		for _, pc := range rpa.SortedPCs(rows) {
			r := rows[pc]
			l := queryPCLine{Messages: r.Messages}
			if t.HasPC() {
				l.PC = fmt.Sprintf("%#x", pc)
			}
			if t.HasOutcome() {
				l.Taken, l.NotTaken = &r.Taken, &r.NotTaken
			}
			qq.PCs = append(qq.PCs, l)
		}
		qs = append(qs, qq)
	}
	if jsonPath != "" {
		b, _ := json.MarshalIndent(struct {
			Queues []queryQueue `json:"queues"`
			Stats  rpa.Report   `json:"stats"`
		}{qs, rep}, "", "  ")
		return os.WriteFile(jsonPath, append(b, '\n'), 0o644)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, qq := range qs {
		fmt.Fprintf(tw, "queue %d pc\tmessages\ttaken\tnot taken\t\n", qq.Queue)
		for _, l := range qq.PCs {
			if l.PC == "" {
				l.PC = "(pc not collected)"
			}
			if l.Taken != nil {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", l.PC, l.Messages, *l.Taken, *l.NotTaken)
			} else {
				fmt.Fprintf(tw, "%s\t%d\t-\t-\t\n", l.PC, l.Messages)
			}
		}
	}
	fmt.Fprintf(tw, "rpa: events\t%d\t\n", rep.Events)
	fmt.Fprintf(tw, "rpa: records selected (queries run)\t%d\t\n", rep.Records)
	fmt.Fprintf(tw, "rpa: query instructions executed\t%d\t\n", rep.Insts)
	fmt.Fprintf(tw, "rpa: count actions\t%d\t\n", rep.Counts)
	fmt.Fprintf(tw, "rpa: interrupts\t%d\t\n", rep.Interrupts)
	if rep.GapsThread+rep.GapsGuest > 0 {
		fmt.Fprintf(tw, "rpa: gaps drawn ahead by service threads / the guest\t%d / %d\t\n", rep.GapsThread, rep.GapsGuest)
	}
	for _, s := range rep.Queues {
		fmt.Fprintf(tw, "rpa: queue %d sent / received\t%d / %d\t\n", s.Queue, s.Sent, s.Received)
		fmt.Fprintf(tw, "rpa: queue %d full stalls (ns)\t%d (%d)\t\n", s.Queue, s.Stalls, s.StallNs)
		fmt.Fprintf(tw, "rpa: queue %d max occupancy\t%d\t\n", s.Queue, s.MaxOccupancy)
	}
	return tw.Flush()
}
