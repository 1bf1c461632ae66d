// Tests of Experiment: rows, series, seeds, JSON fields, the text reports, and a recorded guest stream replayed.

package hwprofile

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"rvdyn/bench/corpus"
	"rvdyn/profhw"
)

// invariantStream has 20 load pcs; pc i loads value 0 with probability
// (i+1)/21 and otherwise one of 4 other values, over 200,000 tuples, and
// an edge tuple every 8th position.
func invariantStream() []profhw.Tuple {
	r := profhw.NewRNG(31)
	out := make([]profhw.Tuple, 200000)
	for i := range out {
		pc := r.Below(20)
		if i%8 == 7 {
			out[i] = profhw.MakeTuple(profhw.KindEdge, 0x20000+4*pc, 0x20000+4*pc+4+4*(r.Below(2)))
			continue
		}
		v := uint64(0)
		if r.Below(21) > pc {
			v = 1 + r.Below(4)
		}
		out[i] = profhw.MakeTuple(profhw.KindValue, 0x10000+4*pc, v)
	}
	return out
}

func TestExperimentRows(t *testing.T) {
	stream := invariantStream()
	cfgs, err := profhw.ParseConfigs("P1;R64;H[P64]2048;H[P64]2048+A16;multihash:tables=2,entries=65536,interval=10000")
	if err != nil {
		t.Fatal(err)
	}
	e := &Experiment{Configs: cfgs, Seed: 1}
	res, err := e.Run(profhw.SliceSource{Tuples: stream})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tuples != uint64(len(stream)) || res.Instructions != uint64(len(stream)) {
		t.Errorf("tuples %d, instructions %d", res.Tuples, res.Instructions)
	}
	if len(res.Rows) != 10 { // 5 configurations x {value, edge}
		t.Fatalf("%d rows, want 10", len(res.Rows))
	}
	byKey := map[string]Row{}
	for _, r := range res.Rows {
		byKey[r.Config+"/"+r.Profile] = r
	}
	// P1 sends every tuple: the software profile is the perfect one.
	p1 := byKey["P1/value"]
	if p1.Error != 0 || p1.Selected == 0 || p1.Metric != "invariance" {
		t.Errorf("P1: error %v over %d tuples (%s), want 0 over some", p1.Error, p1.Selected, p1.Metric)
	}
	if want := profhw.Overhead(uint64(len(stream)), res.Instructions, profhw.CyclesPerMessage); p1.Overhead != want {
		t.Errorf("P1 overhead %v, want %v", p1.Overhead, want)
	}
	r64, h64 := byKey["R64/value"], byKey["H[P64]2048/value"]
	if !(r64.Error > 0 && r64.Error < 0.1) || !(h64.Error < r64.Error) {
		t.Errorf("errors R64 %v, H[P64]2048 %v: want both small and stratified lower", r64.Error, h64.Error)
	}
	two := byKey["H[P64]2048+A16/value"]
	if two.Messages >= h64.Messages || two.Overhead >= h64.Overhead {
		t.Errorf("+A16 sent %d messages, without %d", two.Messages, h64.Messages)
	}
	// Drained at the end, the lossless A16 leaves the error unchanged
	// (section 3.4).
	if two.Error != h64.Error {
		t.Errorf("+A16 error %v, without %v", two.Error, h64.Error)
	}
	mh := byKey["multihash:tables=2,entries=65536,interval=10000,threshold=1%,cu=1,reset=0/value"]
	if mh.IntervalBreakdown == nil || mh.Metric != "interval" || mh.Intervals != 20 {
		t.Fatalf("interval row %+v", mh)
	}
	if mh.Error != 0 {
		t.Errorf("alias-free interval profiler has error %v", mh.Error)
	}
	// Series: checkpoints at 1000, 2000, 5000, ..., 200000 (also the end).
	s := p1.Series
	if len(s) != 8 || s[0].Tuples != 1000 || s[len(s)-1].Tuples != uint64(len(stream)) {
		t.Errorf("series %v", s)
	}
	for i := 1; i < len(s); i++ {
		if s[i].Tuples <= s[i-1].Tuples || s[i].Instructions < s[i-1].Instructions {
			t.Errorf("series not increasing at %d: %v", i, s)
		}
	}
	last := r64.Series[len(r64.Series)-1]
	if last.Error != r64.Error || last.Overhead != r64.Overhead {
		t.Errorf("final point %v differs from the row %v/%v", last, r64.Error, r64.Overhead)
	}
	b, err := json.Marshal(res.Rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"config"`, `"profile"`, `"error"`, `"overhead"`, `"false_positive"`,
		`"false_negative"`, `"neutral_positive"`, `"neutral_negative"`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("JSON lacks %s", field)
		}
	}
	var back []map[string]any
	json.Unmarshal(b, &back)
	if _, ok := back[0]["false_positive"]; ok {
		t.Errorf("compressor row carries interval fields: %v", back[0])
	}
}

func TestExperimentEveryAndSeeds(t *testing.T) {
	stream := invariantStream()[:50000]
	cfgs, _ := profhw.ParseConfigs("R64")
	run := func(seed uint64, extra string) Row {
		cs := cfgs
		if extra != "" {
			more, _ := profhw.ParseConfigs(extra)
			cs = append(more, cs...)
		}
		res, _ := (&Experiment{Configs: cs, Seed: seed, Every: 10000}).Run(profhw.SliceSource{Tuples: stream})
		for _, r := range res.Rows {
			if r.Config == "R64" && r.Profile == "value" {
				return r
			}
		}
		t.Fatal("no R64 row")
		return Row{}
	}
	a := run(1, "")
	if len(a.Series) != 5 || a.Series[0].Tuples != 10000 {
		t.Errorf("Every=10000 gave series %v", a.Series)
	}
	if b := run(1, "P16;H[P8]64"); b.Error != a.Error || b.Messages != a.Messages {
		t.Errorf("adding configurations changed R64: %v vs %v", b.Error, a.Error)
	}
	if c := run(2, ""); c.Messages == a.Messages && c.Error == a.Error {
		t.Errorf("a different seed gave the same R64 result")
	}
}

func TestExperimentNeedsConfigs(t *testing.T) {
	if _, err := (&Experiment{}).Run(profhw.SliceSource{}); err == nil {
		t.Error("experiment without configurations ran")
	}
}

func TestWriteTables(t *testing.T) {
	cfgs, _ := profhw.ParseConfigs("R64;multihash:tables=2")
	res, _ := (&Experiment{Configs: cfgs}).Run(profhw.SliceSource{Tuples: invariantStream()})
	var sb strings.Builder
	if err := WriteTable(&sb, res); err != nil {
		t.Fatal(err)
	}
	if err := WriteProgress(&sb, res); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{"R64", "MH2 C1R0", "FP bound", "value profile: error", "edge profile: overhead", "200000"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	sb.Reset()
	WriteMonteCarlo(&sb, []MCRow{{"R10", 1000, 0.5}, {"P10", 1000, 0.25}})
	if !strings.Contains(sb.String(), "50.00") || !strings.Contains(sb.String(), "25.00") {
		t.Errorf("Monte Carlo table:\n%s", sb.String())
	}
}

func TestInvariantStreamHasSelectableTuples(t *testing.T) {
	// Guard for the tests above: the filters must select something.
	p := profhw.NewProfile()
	p.Feed(invariantStream())
	res := profhw.InvarianceErrors(p, []*profhw.Profile{p}, profhw.PaperFilter)
	if res[0][profhw.KindValue].Selected < 10 || math.IsNaN(res[0][profhw.KindValue].Error) {
		t.Errorf("only %d value tuples selected", res[0][profhw.KindValue].Selected)
	}
}

// TestGuestStreamReplaysExactly records a real guest's stream and checks
// that an experiment on the replay gives the same rows.
func TestGuestStreamReplaysExactly(t *testing.T) {
	image, err := corpus.ELF("qsort")
	if err != nil {
		t.Fatal(err)
	}
	g := &profhw.GuestSource{Image: image, Args: []string{"qsort", "200"}, Kinds: profhw.KindSet(0).With(profhw.KindValue).With(profhw.KindEdge)}
	cfgs, _ := profhw.ParseConfigs("R64;H[P64]256;tag2-64-256;multihash:tables=2,entries=256,interval=5000")
	e := &Experiment{Configs: cfgs, Seed: 3}
	var buf bytes.Buffer
	live, err := e.Run(profhw.Record(g, &buf, "qsort 200"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := profhw.NewStreamReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := e.Run(r)
	if err != nil {
		t.Fatal(err)
	}
	if live.Tuples == 0 || live.Tuples != replayed.Tuples || live.Instructions != replayed.Instructions {
		t.Fatalf("live %d tuples / %d instructions, replay %d / %d", live.Tuples, live.Instructions, replayed.Tuples, replayed.Instructions)
	}
	for i := range live.Rows {
		a, b := live.Rows[i], replayed.Rows[i]
		if a.Config != b.Config || a.Error != b.Error || a.Overhead != b.Overhead || a.Messages != b.Messages {
			t.Errorf("row %d: live %+v, replay %+v", i, a, b)
		}
	}
}
