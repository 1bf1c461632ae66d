// The reproduce command: the papers' experiments in, their tables, JSON, plots and one markdown page per paper (ours beside the paper's) out.

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"rvdyn/bench"
)

const reproduceUsage = `usage: rvdyn reproduce [--quick] [--out DIR] [--only PAPER[,PAPER...]]
       rvdyn reproduce --replot [--out DIR]

Runs every experiment rvdyn reproduces from its papers, in order, with a
progress line each, and writes into DIR: each experiment's JSON, its
figures (SVG) and its text tables, one markdown page per paper (PAPER.md)
that puts the paper's numbers next to ours and says in a sentence why
they differ, and an index of them all (index.md, and index.html to open
in a browser). --quick runs everything at small sizes in a few minutes
(what CI runs); the committed docs/figures come from a full run.

It runs from any directory: the guests are embedded in the binary, and
the layout experiment, which relinks guests with make and the RV64IM
cross toolchain, uses bench/guests when run inside a source tree and an
extracted copy of the embedded sources otherwise. An experiment whose
tools are missing is skipped with a message naming them.
Papers: %s.

flags:
`

// An experiment is one figure or table of a paper, produced by running
// one of rvdyn's commands with fixed arguments.
type experiment struct {
	paper string // page: net, stratified, multihash, rpa, layout
	title string // e.g. "Figures 2, 3 and 4: hit rate, noise, counter space"
	// cmd is the rvdyn command that runs it (a key of commands); args
	// gives its arguments for a full or quick run, writing files under out.
	cmd  string
	args func(out string, quick bool) []string
	// figures are glob patterns (relative to out) of the images args
	// writes; a command that plots per guest adds the guest to the name.
	figures []string
	// paper is what the paper reports; differs says why ours differs.
	says, differs string
	// needs are the programs (on PATH) or, with a "/", the directories
	// the experiment needs beyond rvdyn itself; install says how to get
	// them.
	needs   []string
	install string
}

// papers names the pages in order, with each paper's title.
var papers = []struct{ key, title string }{
	{"net", "Duesterwald and Bala, Software Profiling for Hot Path Prediction: Less is More (ASPLOS 2000)"},
	{"stratified", "Sastry, Bodik and Smith, Rapid Profiling via Stratified Sampling (ISCA 2001)"},
	{"multihash", "Narayanasamy, Sherwood, Sair, Calder and Varghese, Catching Accurate Profiles in Hardware (multi-hash interval profiler)"},
	{"rpa", "Heil and Smith, Relational Profiling: Enabling Thread-Level Parallelism in Virtual Machines (MICRO 2000)"},
	{"layout", "Gloy, Wang, Zhang, Chen and Smith, Profile-Based Optimization with Statistical Profiles (Harvard TR-02-97, 1997; the Morph Continuous Monitoring System)"},
}

func paperKeys() []string {
	var ks []string
	for _, p := range papers {
		ks = append(ks, p.key)
	}
	return ks
}

// pick returns quick if q, else full.
func pick(q bool, full, quick []string) []string {
	if q {
		return quick
	}
	return full
}

// commands are the commands experiments run, by name.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"predict": predictCmd, "bench": benchCmd, "profile": profileCmd, "rpa": rpaCmd, "gc": gcCmd, "layout": layoutCmd,
	"rpa-hw": rpaHWCmd, "layout-fig3": layoutFig3Cmd,
}

// crossNeeds is what relinking a guest needs (bench/guests/Makefile: the
// RV64IM flavor, and the host build for native times).
var crossNeeds = []string{"make", "riscv64-unknown-elf-gcc", "/usr/lib/picolibc/riscv64-unknown-elf", "gcc"}

const crossInstall = "apt-get install make gcc gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf"

// missing returns the needs that are not there.
func missing(needs []string) []string {
	var miss []string
	for _, n := range needs {
		if strings.Contains(n, "/") {
			if _, err := os.Stat(n); err != nil {
				miss = append(miss, n)
			}
		} else if _, err := exec.LookPath(n); err != nil {
			miss = append(miss, n)
		}
	}
	return miss
}

// experiments lists the experiments; guests is the guest source
// directory the layout experiment relinks in (extracted: a copy of the
// embedded sources, outside a source tree; layout then writes the
// embedded guest images out for its qemu-riscv64 check).
func experiments(guests string, extracted bool) []experiment {
	layoutArgs := []string{"--guests-dir", guests}
	return []experiment{
		{
			paper: "net", title: "Tables 1 and 2, Figures 2, 3 and 4: hit rate, noise and counter space against profiled flow",
			cmd: "predict",
			args: func(out string, q bool) []string {
				return append(pick(q, []string{"--guest", "all", "--small"}, []string{"--guest", "bytecode,qsort", "--small", "--delays", "10,50,1000"}),
					"--json", filepath.Join(out, "net-predict.json"), "--plot", filepath.Join(out, "net-fig2.svg"),
					"--plot-noise", filepath.Join(out, "net-fig3.svg"), "--plot-counters", filepath.Join(out, "net-fig4.svg"))
			},
			figures: []string{"net-fig2.svg", "net-fig3.svg", "net-fig4.svg"},
			says:    "at 10% profiled flow NET's hit rate is within a few points of path profiling's (Figure 2); path profiling has less noise only at long delays (Figure 3: below 10% noise at 35% profiled flow vs NET's 45%); NET needs 37.8% of path profiling's counters on average (Table 2).",
			differs: "our guests are small C kernels and a Scheme interpreter run for millions of paths rather than SPEC95 runs of billions, so almost all flow is hot and both schemes capture nearly all of it at short delays; the counter-space ratio is a property of the code and is of the same order.",
		},
		{
			paper: "net", title: "Figure 5: speedup over native of NET and of path profile based prediction at delays 10, 50, 100",
			cmd: "bench",
			args: func(out string, q bool) []string {
				return append(pick(q, []string{"--runs", "3", "--delays", "10,50,100"},
					[]string{"--runs", "1", "--small", "--guests", "bytecode,qsort", "--modes", "interp,dynamo", "--delays", "10,50"}),
					"--predict", "net,path", "-q", "--json", filepath.Join(out, "net-fig5.json"), "--plot", filepath.Join(out, "net-fig5.svg"))
			},
			figures: []string{"net-fig5.svg"},
			says:    "Figure 5 plots Dynamo's speedup over native execution with NET and with path profile based prediction at delays 10, 50 and 100, per program. Its text gives two numbers: NET was faster than native on all of the figure's programs, averaging over 15% (delay 50 was the best for both schemes); path profile based prediction was faster than native only on perl and deltablue.",
			differs: "the same quantities are in the last lines of our output: per delay, the geometric mean of native time / rvdyn time for each scheme and on how many guests each beat native. Neither scheme beats native here: rvdyn starts from a Go interpreter about 10x slower than its native code and translates RV64 to x86-64, where Dynamo ran PA-RISC on PA-RISC and started from native code. Between the schemes, path profiling's disadvantage (it records every path it counts and needs more counters) shows on some guests but not in the geometric mean, which moves by more between runs than between the schemes. A run without native builds (the quick run) draws our speedup over the interpreter instead, titled as ours.",
		},
		{
			paper: "stratified", title: "Figure 4: Monte Carlo error of the samplers against stream length",
			cmd: "profile",
			args: func(out string, q bool) []string {
				return append(pick(q, nil, []string{"--trials", "30", "--mc-sizes", "1000,5000,20000"}),
					"--montecarlo", "--json", filepath.Join(out, "stratified-fig4.json"), "--plot", filepath.Join(out, "stratified-fig4.svg"))
			},
			figures: []string{"stratified-fig4.svg"},
			says:    "{R, H[R]} > {P, CR} > {H[P], H[CR]} in error at every stream length; R10 stays near 4% error at N = 20,000.",
			differs: "the paper does not give its substream count or how the rest of the stream is drawn; we use 2048 substreams and all-distinct tuples by default (docs/profilers.md). The command checks the ordering and lists every place it fails; with few trials (as in --quick) sampling noise breaks it at some N.",
		},
		{
			paper: "stratified", title: "Figures 7 and 8, section 5.4: error and overhead as the stream progresses; events to reach and stay below 5% error",
			cmd: "profile",
			args: func(out string, q bool) []string {
				return append(pick(q, []string{"--guest", "bintree,qsort,scheme", "--every", "10000"},
					[]string{"--guest", "bytecode", "--max-instructions", "3000000"}),
					"--configs", "stratified", "--progress=false", "--json", filepath.Join(out, "stratified-fig7.json"), "--plot", filepath.Join(out, "stratified-fig7.svg"))
			},
			figures: []string{"stratified-fig7*.svg"},
			says:    "for gcc, H[P256]2048 reaches 5% error after 200K events and stays below it from 300K; R256 reaches it after 600-700K and stays below only after about 7M (23x longer). The tagged compressor is most accurate at about three times the overhead.",
			differs: "our value streams are a few million tuples from small programs, not 16M from gcc: the staying-below advantage shows (or R256 never settles within the run) but is smaller than 23x.",
		},
		{
			paper: "stratified", title: "Figure 9: table-size sensitivity of H[P256]n",
			cmd: "profile",
			args: func(out string, q bool) []string {
				return append(pick(q, []string{"--guest", "bintree,scheme"}, []string{"--guest", "bytecode", "--max-instructions", "3000000"}),
					"--configs", "tablesize", "--progress=false", "--json", filepath.Join(out, "stratified-fig9.json"))
			},
			says:    "bigger tables are better, but only after enough tuples: early on a smaller table sends more messages and can be more accurate (li).",
			differs: "with our shorter streams the large tables have less time to pay off.",
		},
		{
			paper: "multihash", title: "Figure 12: interval profilers with 1, 2, 4, 8 and 16 hash tables",
			cmd: "profile",
			args: func(out string, q bool) []string {
				return append(pick(q, []string{"--guest", "bintree,bytecode,qsort,strings,scheme"}, []string{"--guest", "bytecode", "--max-instructions", "3000000"}),
					"--configs", "multihash", "--progress=false", "--json", filepath.Join(out, "multihash-fig12.json"))
			},
			says:    "4 tables give the lowest error; 8 tables are worse (false positives); 1 table is worst.",
			differs: "same shape; the error levels differ because our intervals see fewer distinct tuples than SPEC's.",
		},
		{
			paper: "multihash", title: "Figures 4, 5 and 6: distinct tuples, candidates and their change between intervals (perfect interval profiler)",
			cmd: "profile",
			args: func(out string, q bool) []string {
				return append(pick(q, []string{"--guest", "bytecode,bintree,scheme"}, []string{"--guest", "bytecode", "--max-instructions", "3000000"}),
					"--census", "--json", filepath.Join(out, "multihash-fig4-6.json"))
			},
			says:    "distinct tuples per interval grow with the interval length while the candidates above the threshold stay about the same in number and cover most of the dynamic tuples; how much the candidate set changes between intervals depends on the program and the interval length (gcc: under 35% change for half of its 1M intervals).",
			differs: "same shape; our guests have far fewer distinct values than SPEC95, so candidates cover more of each interval, and the small sizes give few long intervals.",
		},
		{
			paper: "multihash", title: "Figure 7: a single hash table with and without retaining (P) and resetting (R)",
			cmd: "profile",
			args: func(out string, q bool) []string {
				return append(pick(q, []string{"--guest", "bintree,bytecode,qsort,strings,scheme"}, []string{"--guest", "bytecode", "--max-instructions", "3000000"}),
					"--configs", "singlehash", "--progress=false", "--json", filepath.Join(out, "multihash-fig7.json"))
			},
			says:    "both resetting and retaining lower the error and both together are best; resetting cuts false positives but can add false negatives.",
			differs: "same ordering where our streams have enough aliasing to show it; see docs/profilers.md.",
		},
		{
			paper: "multihash", title: "Figure 13: the error's spread over intervals (interval 1,000,000, 0.1%): largest interval error and intervals above 10%",
			cmd: "profile",
			args: func(out string, q bool) []string {
				return append(pick(q, []string{"--guest", "scheme,bintree"}, []string{"--guest", "bytecode"}),
					"--configs", "spikes", "--progress=false", "--json", filepath.Join(out, "multihash-fig13.json"))
			},
			says:    "the best single-hash profiler (with resetting) has error spikes in many intervals (gcc: high in its first 60); the 4-table multi-hash design lowers both their magnitude and their number.",
			differs: "our runs have tens of 1M-tuple intervals rather than hundreds, so the comparison rests on fewer intervals.",
		},
		{
			paper: "rpa", title: "Figure 2a, section 6.2: edge profile accuracy at sampling periods 32 to 256",
			cmd: "rpa",
			args: func(out string, q bool) []string {
				return append([]string{"edge"}, append(pick(q, []string{"--guest", "all"}, []string{"--guest", "bytecode,qsort"}),
					"--json", filepath.Join(out, "rpa-edge.json"))...)
			},
			says:    "it measures no accuracy: it reports the slow-down of the profiled program against the sampling rate (Figure 8c) and the instructions and cycles each sample costs (Table 6), with main-thread cost under 0.5% on its hardware (sec. 6.2). The error column below is our metric, not the paper's (rpa.EdgeError): the execution-weighted mean over branch outcomes of |exact share - sampled share|.",
			differs: "the paper's hardware adds under 0.5% on the main thread (sec. 6.2, simulated); ours runs the query engine in the interpreter (and, where compiled, in fragments), so its cost is measured, not assumed (docs/rpa.md).",
		},
		{
			paper: "rpa", title: "Figure 2c, section 5: concurrent GC with the relational profiler's store barrier",
			cmd: "gc",
			args: func(out string, q bool) []string {
				return append(pick(q, []string{"--runs", "5"}, []string{"--programs", "gcbench,tak", "--runs", "1"}),
					"--json", filepath.Join(out, "rpa-gc.json"), "--plot", filepath.Join(out, "rpa-gc.svg"))
			},
			figures: []string{"rpa-gc.svg"},
			says:    "GC overhead is reduced to 0.6% of the total runtime (sec. 5, from its reference [13]): run time with the RPA-assisted concurrent collector against run time without GC, on average over its Java benchmarks, on a simulated chip (the RPA hardware, three service processors for the profile consumer, the store-barrier threads and the collector). It gives no split of that figure into parts.",
			differs: "the same quantity as the paper's 0.6% is the last table's \"whole wall\" column: --gc=rpa's wall time over the nogc run's (geometric mean over the Scheme programs), and it is far above 0.6% because of one part, the barrier query (\"query\": nogc-rpa against nogc), which runs on the guest's thread here (in dynamo mode as x86-64 code in the tagged stores' fragments) where the paper's hardware runs it beside the application. The collector on top of the query (\"collector\": rpa against nogc-rpa) costs a few percent, the pauses (our sweep is in the pause) one part of it. The no-GC baseline also pays for fresh memory (docs/gc.md).",
		},
		{
			paper: "rpa", title: "Figure 7, Figures 8a, 8b and 8c, Table 6, section 6.3: profiling hardware resources, dispatch stalls and cost per sample (MODEL)",
			cmd: "rpa-hw",
			args: func(out string, q bool) []string {
				return append(pick(q, nil, []string{"--programs", "boyer"}),
					"--json", filepath.Join(out, "rpa-hw.json"), "--plot-fig7", filepath.Join(out, "rpa-fig7.svg"), "--plot-fig8", filepath.Join(out, "rpa-fig8.svg"))
			},
			figures: []string{"rpa-fig8.svg", "rpa-fig7.svg"},
			says:    "simulated hardware (sec. 6.1, 6.2; Java benchmarks on an 8-wide out-of-order core): Figure 7, with 32 buffers and 32 networks at edge sampling 1/256 plus the GC query, shows eight profile buffers suffice (only jack uses more); Figure 8a, with 8 buffers: strata's dispatch stalls fall from 3.8% of cycles with one profile network to 0.5% with four, jack's from 12.4% to 1.7%; Figure 8b: three networks keep the slow-down below 0.5% for every benchmark, four make it effectively zero; Figure 8c: the slow-down rises mildly from edge sampling 1/256 to 1/32 (strata, jack; its network count is not given, so ours gives 1 to 4); Table 6: 35 (jack) to 289 (ray) instructions per profiled instruction at 1/32, 42 to 869 at 1/256, about twice the cycles per sample (IPC a little above two). Section 6.3 proposes cheap profiles (retirement-time information only, no network) to cut the stalls.",
			differs: "ours is a MODEL, not a measurement: rvdyn has no profiling hardware. The positions of the profiled instructions are measured (the Scheme guest running the paper's two queries; instructions per sample in Table 6 is a measured quantity), the hardware parameters are the paper's, and the processor is reduced to our assumptions (IPC 2, 32 cycles from dispatch to retirement, no out-of-order window: the slow-down is an upper bound, where the paper found about half of its stalls hidden). Our programs are a Scheme interpreter's, not Java's, with reference stores in bursts like strata's GC; the model's 'cheap' rows are section 6.3's proposal, which the paper did not simulate.",
		},
		{
			paper: "layout", title: "Tables 5, 6 and 7, Figure 4: chi-square, key matching, simulated miss rates and native times of Pettis-Hansen (and C3) orders",
			cmd: "layout",
			args: func(out string, q bool) []string {
				return append(pick(q, []string{"--native-runs", "7"}, []string{"--guest", "nqueens", "--sets", "4", "--period", "1000"}),
					append(layoutArgs, "--json", filepath.Join(out, "layout.json"), "--plot", filepath.Join(out, "layout-fig4.svg"))...)
			},
			figures: []string{"layout-fig4.svg"},
			needs:   crossNeeds, install: crossInstall,
			says:    "statistical profiles from a few sampled runs come close to complete ones (Table 5, Figure 4), and procedure orders from 32 sample sets lower instruction-cache miss rates about as much as orders from complete profiles (Table 6) and give the same speedups (Table 7).",
			differs: "our main samples are frequency-based (one per N retired instructions), so they converge to the complete profile itself; time-based sets (rvdyn-hosted, and native by function; root only) are labelled rows beside them; our guests' text fits the paper's 32 KB cache, so scaled caches (2-8 KB) carry the comparison; native times on a shared machine are noise (docs/layout.md; rvdyn layout native re-times them). Table 4 needs root: rvdyn layout clock.",
		},
		{
			paper: "layout", title: "Figure 3: complete and statistical profiles compared visually",
			cmd: "layout-fig3",
			args: func(out string, q bool) []string {
				return []string{"--json", filepath.Join(out, "layout.json"), "--plot", filepath.Join(out, "layout-fig3.svg")}
			},
			figures: []string{"layout-fig3-*.svg"},
			says:    "for go (SPEC95), the complete frequency-based profile, a time-based statistical profile from one sampled run and one from 32 runs, basic block by basic block (the first 4000): even one sample set carries much of the profile and the statistical profiles resemble the complete one; many visible differences come from time-based against frequency-based profiling (sec. 4.2.1).",
			differs: "our statistical profiles are the frequency-based sets (one sample per N retired instructions), so they converge to the complete profile itself; our guests have hundreds to a few thousand blocks, not go's tens of thousands. Drawn from the layout experiment above (its JSON).",
			needs:   crossNeeds, install: crossInstall,
		},
	}
}

func reproduceCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("reproduce", flag.ContinueOnError)
	quick := fs.Bool("quick", false, "small sizes, one run each: the whole set in a few minutes")
	out := fs.String("out", "docs/figures", "directory for the JSON, figures, tables and pages")
	only := fs.String("only", "", "run only these papers (comma-separated: "+strings.Join(paperKeys(), ", ")+")")
	replot := fs.Bool("replot", false, "run nothing: redraw every figure of --out from the JSON a previous run left there")
	if code, ok := parseFlags(fs, args, fmt.Sprintf(reproduceUsage, strings.Join(paperKeys(), ", ")), stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rvdyn reproduce: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *replot {
		if err := replotDir(*out, stderr); err != nil {
			fmt.Fprintf(stderr, "rvdyn reproduce: %v\n", err)
			return 1
		}
		return 0
	}
	want := map[string]bool{}
	for _, k := range splitList(*only, ",") {
		known := false
		for _, p := range papers {
			known = known || p.key == k
		}
		if !known {
			fmt.Fprintf(stderr, "rvdyn reproduce: --only: unknown paper %q (want %s)\n", k, strings.Join(paperKeys(), ", "))
			return exitUsage
		}
		want[k] = true
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "rvdyn reproduce: %v\n", err)
		return 1
	}
	guests, extracted, cleanup, err := reproduceGuests(want, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn reproduce: %v\n", err)
		return 1
	}
	defer cleanup()
	var todo []experiment
	for _, e := range experiments(guests, extracted) {
		if len(want) == 0 || want[e.paper] {
			todo = append(todo, e)
		}
	}
	pages := map[string]*bytes.Buffer{}
	var done []ran
	status := 0
	for i, e := range todo {
		base := textName(e, guests, extracted)
		args := e.args(*out, *quick)
		fmt.Fprintf(stderr, "[%d/%d] %s: %s ...", i+1, len(todo), e.paper, e.title)
		var text, errs bytes.Buffer
		code := codeSkipped
		if miss := missing(e.needs); len(miss) > 0 {
			fmt.Fprintf(&text, "it needs %s, which this machine lacks (%s).\n", strings.Join(miss, ", "), e.install)
			fmt.Fprintf(stderr, " SKIPPED: needs %s (%s)\n", strings.Join(miss, ", "), e.install)
		} else {
			start := time.Now()
			code = commands[e.cmd](args, &text, &errs)
			fmt.Fprintf(stderr, " %.1f s", time.Since(start).Seconds())
			if code != 0 {
				fmt.Fprintf(stderr, ": FAILED (exit %d)\n%s", code, errs.String())
				status = 1
			} else {
				fmt.Fprintln(stderr)
			}
		}
		if err := os.WriteFile(filepath.Join(*out, base), text.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "rvdyn reproduce: %v\n", err)
			return 1
		}
		pg := pages[e.paper]
		if pg == nil {
			pg = new(bytes.Buffer)
			pages[e.paper] = pg
		}
		writeSection(pg, e, *out, args, base, text.String(), code)
		done = append(done, ran{e: e, args: args, text: base, output: text.String(), code: code})
	}
	for _, p := range papers {
		pg := pages[p.key]
		if pg == nil {
			continue
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "# %s\n\n", p.title)
		mode := "full"
		if *quick {
			mode = "quick (small sizes; not the committed results)"
		}
		fmt.Fprintf(&b, "Generated by `rvdyn reproduce` (%s run) at %s, commit %s. The paper's\nnumbers are quoted from it; ours are measured on this machine unless a line says \"model\".\n\n",
			mode, time.Now().UTC().Format("2006-01-02 15:04 UTC"), buildCommit())
		b.Write(pg.Bytes())
		if err := os.WriteFile(filepath.Join(*out, p.key+".md"), b.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "rvdyn reproduce: %v\n", err)
			return 1
		}
	}
	done = append(done, earlier(*out, guests, extracted, want, *quick)...)
	if err := writeIndex(*out, done, *quick); err != nil {
		fmt.Fprintf(stderr, "rvdyn reproduce: %v\n", err)
		return 1
	}
	return status
}

// textName is the file an experiment's tables go to: its paper and its
// place among that paper's experiments ("rpa-2.txt"), so a run of some
// papers (--only) names them as a run of all does.
func textName(e experiment, guests string, extracted bool) string {
	k := 0
	for _, o := range experiments(guests, extracted) {
		if o.paper == e.paper {
			k++
		}
		if o.title == e.title {
			break
		}
	}
	return fmt.Sprintf("%s-%d.txt", e.paper, k)
}

// earlier returns, for a run of some papers (--only), the other papers'
// experiments whose tables an earlier run left in out, so the index
// covers everything the directory holds. A full run has none.
func earlier(out, guests string, extracted bool, want map[string]bool, quick bool) []ran {
	if len(want) == 0 {
		return nil
	}
	var rs []ran
	for _, e := range experiments(guests, extracted) {
		if want[e.paper] {
			continue
		}
		base := textName(e, guests, extracted)
		b, err := os.ReadFile(filepath.Join(out, base))
		if err != nil {
			continue
		}
		rs = append(rs, ran{e: e, args: e.args(out, quick), text: base, output: string(b), earlier: true})
	}
	return rs
}

// reproduceGuests returns the guest source directory for the layout
// experiment (if want selects it): bench/guests of the source tree the
// command runs in, else (extracted) a temporary copy of the sources
// embedded in the binary, which cleanup removes.
func reproduceGuests(want map[string]bool, stderr io.Writer) (dir string, extracted bool, cleanup func(), err error) {
	cleanup = func() {}
	if len(want) > 0 && !want["layout"] {
		return "", false, cleanup, nil
	}
	if d, err := bench.FindGuestsDir(); err == nil {
		abs, err := filepath.Abs(d)
		return abs, false, cleanup, err
	}
	tmp, err := os.MkdirTemp("", "rvdyn-guests-")
	if err != nil {
		return "", false, cleanup, err
	}
	if err := bench.ExtractGuests(tmp); err != nil {
		os.RemoveAll(tmp)
		return "", false, cleanup, fmt.Errorf("extracting the guest sources: %w", err)
	}
	fmt.Fprintf(stderr, "not in a source tree: the layout experiment relinks the guest sources embedded in rvdyn, extracted to %s\n", tmp)
	return tmp, true, func() { os.RemoveAll(tmp) }, nil
}

// writeSection appends one experiment to its paper's page: the command,
// the figures, the paper's result, ours (the command's tables), and the
// sentence on the difference.
func writeSection(w io.Writer, e experiment, out string, args []string, textFile, text string, code int) {
	fmt.Fprintf(w, "## %s\n\n", e.title)
	fmt.Fprintf(w, "```\nrvdyn %s %s\n```\n\n", e.cmd, strings.Join(args, " "))
	switch {
	case code == codeSkipped:
		fmt.Fprintf(w, "**Not run here:** %s\n", text)
		fmt.Fprintf(w, "**The paper:** %s\n\n", e.says)
		return
	case code != 0:
		fmt.Fprintf(w, "**This experiment failed (exit %d); see the progress output.**\n\n", code)
	}
	for _, pat := range e.figures {
		files, _ := filepath.Glob(filepath.Join(out, pat))
		for _, f := range files {
			f = filepath.Base(f)
			fmt.Fprintf(w, "![%s](%s)\n\n", f, f)
		}
	}
	fmt.Fprintf(w, "**The paper:** %s\n\n", e.says)
	fmt.Fprintf(w, "**Ours** (`%s`):\n\n```\n%s```\n\n", textFile, tail(text, 60))
	fmt.Fprintf(w, "**Why they differ:** %s\n\n", e.differs)
}

// tail returns the last n lines of s (all of it if shorter), ending in a
// newline.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... (%d lines above; full output in the .txt file)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n") + "\n"
}

// buildCommit returns the VCS revision the binary was built from (go
// build embeds it inside a git checkout), else the working directory's
// git HEAD, else "unknown".
func buildCommit() string {
	if b, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output(); err == nil {
		rev := strings.TrimSpace(string(b))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			rev += " (with uncommitted changes)"
		}
		return rev
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(rev) >= 12 {
			if dirty {
				return rev[:12] + " (with uncommitted changes)"
			}
			return rev[:12]
		}
	}
	return "unknown"
}
