// Configuration notation: a string in the papers' notation in (R256, H[P256]2048+A16, tag2-256-2048, multihash:tables=4,...), a Config and the model it builds out.

package profhw

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrConfig is wrapped by every error ParseConfig returns.
var ErrConfig = errors.New("bad profiler configuration")

// A ConfigKind says which model a Config builds.
type ConfigKind uint8

// The kinds of configuration.
const (
	ConfigSampler  ConfigKind = iota // X_r or H[X_r]_n, stratified paper section 3
	ConfigTagged                     // tagged compressor, stratified paper section 4
	ConfigInterval                   // interval profiler, multi-hash paper sections 5-6
)

// A Config describes one profiler in the papers' notation. The zero value
// is not meaningful; use ParseConfig.
//
// Notation (case-sensitive; an underscore may follow a letter, as in P_256):
//
//	R256, P256, CR256              the samplers R_r, P_r, CR_r (section 3.1)
//	H[P256]2048, H[R10]2048, ...   H[X_r]_n, X in {P, R, CR} (section 3.2)
//	tag2-256-2048[-w2]             tagged compressor: tag bits, threshold,
//	                               entries, ways (default 2) (section 4)
//	...+A16                        followed by the associative table A_16
//	                               (section 3.4); any of the above
//	multihash:k=v,...              interval profiler (multi-hash section 6);
//	                               keys: tables, entries, interval,
//	                               threshold (0.1% or 0.001), cu, reset,
//	                               retain, shield (0/1), acc (entries);
//	                               unset keys take DefaultInterval's values
//	singlehash:k=v,...             the same with tables=1 (section 5.2)
type Config struct {
	Kind       ConfigKind
	Sampler    SamplerKind    // ConfigSampler: X
	Rate       uint64         // ConfigSampler: r
	Substreams int            // ConfigSampler: n of H[X_r]_n; 0 = not stratified
	Tagged     TaggedConfig   // ConfigTagged
	Interval   IntervalConfig // ConfigInterval
	Assoc      int            // k of a second-level A_k; 0 = none
}

// ParseConfig parses one configuration. The error wraps ErrConfig and names
// the part of s that is wrong.
func ParseConfig(s string) (Config, error) {
	s = strings.TrimSpace(s)
	bad := func(part, why string) (Config, error) {
		return Config{}, fmt.Errorf("profhw: config %q: %s %q: %w", s, why, part, ErrConfig)
	}
	if s == "" {
		return bad(s, "empty configuration")
	}
	if name, kvs, ok := strings.Cut(s, ":"); ok {
		switch name {
		case "multihash", "singlehash":
			c, part, why := parseInterval(kvs, name == "singlehash")
			if why != "" {
				return bad(part, why)
			}
			return c, nil
		}
		return bad(name, "unknown profiler (want multihash: or singlehash:)")
	}
	var c Config
	body := s
	if i := strings.Index(s, "+"); i >= 0 {
		body = s[:i]
		a := strings.TrimPrefix(s[i+1:], "A")
		if a == s[i+1:] {
			return bad(s[i:], "unknown second level (want +A<k>)")
		}
		k, err := strconv.Atoi(strings.TrimPrefix(a, "_"))
		if err != nil || k < 1 || k > 1<<16 {
			return bad(s[i:], "bad associative table size")
		}
		c.Assoc = k
	}
	switch {
	case strings.HasPrefix(body, "tag"):
		t, part, why := parseTagged(body)
		if why != "" {
			return bad(part, why)
		}
		c.Kind, c.Tagged = ConfigTagged, t
	case strings.HasPrefix(body, "H["):
		end := strings.Index(body, "]")
		if end < 0 {
			return bad(body, "missing ] in")
		}
		kind, r, ok := parseSampler(body[2:end])
		if !ok {
			return bad(body[2:end], "bad sampler (want R<r>, P<r> or CR<r>)")
		}
		n, err := strconv.Atoi(strings.TrimPrefix(body[end+1:], "_"))
		if err != nil || n < 1 || n > MaxHashSize {
			return bad(body[end+1:], "bad substream count")
		}
		c.Kind, c.Sampler, c.Rate, c.Substreams = ConfigSampler, kind, r, n
	default:
		kind, r, ok := parseSampler(body)
		if !ok {
			return bad(body, "unknown compressor (want R<r>, P<r>, CR<r>, H[X<r>]<n> or tag<b>-<r>-<n>)")
		}
		c.Kind, c.Sampler, c.Rate = ConfigSampler, kind, r
	}
	return c, nil
}

func parseSampler(s string) (SamplerKind, uint64, bool) {
	var kind SamplerKind
	switch {
	case strings.HasPrefix(s, "CR"):
		kind, s = SamplerCountedRandom, s[2:]
	case strings.HasPrefix(s, "R"):
		kind, s = SamplerRandom, s[1:]
	case strings.HasPrefix(s, "P"):
		kind, s = SamplerPeriodic, s[1:]
	default:
		return 0, 0, false
	}
	r, err := strconv.ParseUint(strings.TrimPrefix(s, "_"), 10, 32)
	if err != nil || r < 1 {
		return 0, 0, false
	}
	return kind, r, true
}

func parseTagged(s string) (TaggedConfig, string, string) {
	c := DefaultTagged
	f := strings.Split(strings.TrimPrefix(s, "tag"), "-")
	if len(f) < 3 || len(f) > 4 {
		return c, s, "want tag<bits>-<threshold>-<entries>[-w<ways>] in"
	}
	b, err := strconv.ParseUint(f[0], 10, 8)
	if err != nil {
		return c, f[0], "bad tag width"
	}
	r, err := strconv.ParseUint(f[1], 10, 32)
	if err != nil {
		return c, f[1], "bad threshold"
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return c, f[2], "bad entry count"
	}
	c.TagBits, c.Threshold, c.Entries = uint(b), r, n
	if len(f) == 4 {
		w, err := strconv.Atoi(strings.TrimPrefix(f[3], "w"))
		if err != nil || !strings.HasPrefix(f[3], "w") {
			return c, f[3], "bad associativity (want w<ways>)"
		}
		c.Ways = w
	}
	if err := c.Validate(); err != nil {
		return c, s, strings.TrimPrefix(err.Error(), "profhw: ") + " in"
	}
	return c, "", ""
}

func parseInterval(kvs string, single bool) (Config, string, string) {
	c := Config{Kind: ConfigInterval, Interval: DefaultInterval}
	ic := &c.Interval
	if single {
		ic.Tables = 1
	}
	for _, kv := range strings.Split(kvs, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return c, kv, "want key=value, got"
		}
		var err error
		switch k {
		case "tables":
			ic.Tables, err = strconv.Atoi(v)
			if single && ic.Tables != 1 {
				return c, kv, "singlehash has one table, got"
			}
		case "entries":
			ic.Entries, err = strconv.Atoi(v)
		case "interval":
			ic.Interval, err = strconv.ParseUint(v, 10, 64)
		case "threshold":
			ic.Threshold, err = parseFraction(v)
		case "cu":
			ic.Conservative, err = parseBool(v)
		case "reset":
			ic.Reset, err = parseBool(v)
		case "retain":
			ic.Retain, err = parseBool(v)
		case "shield":
			ic.Shield, err = parseBool(v)
		case "acc":
			ic.AccEntries, err = strconv.Atoi(v)
		default:
			return c, k, "unknown key (want tables, entries, interval, threshold, cu, reset, retain, shield or acc)"
		}
		if err != nil {
			return c, kv, "bad value in"
		}
	}
	if err := ic.Validate(); err != nil {
		return c, kvs, strings.TrimPrefix(err.Error(), "profhw: ") + " in"
	}
	return c, "", ""
}

func parseFraction(v string) (float64, error) {
	if p, ok := strings.CutSuffix(v, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		return f / 100, err
	}
	return strconv.ParseFloat(v, 64)
}

func parseBool(v string) (bool, error) {
	switch v {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean: %q", v)
}

// String returns the configuration in canonical notation; ParseConfig of
// the result gives c back.
func (c Config) String() string {
	var s string
	switch c.Kind {
	case ConfigSampler:
		s = fmt.Sprintf("%v%d", c.Sampler, c.Rate)
		if c.Substreams > 0 {
			s = fmt.Sprintf("H[%s]%d", s, c.Substreams)
		}
	case ConfigTagged:
		t := c.Tagged
		s = fmt.Sprintf("tag%d-%d-%d", t.TagBits, t.Threshold, t.Entries)
		if t.Ways != DefaultTagged.Ways {
			s += fmt.Sprintf("-w%d", t.Ways)
		}
	case ConfigInterval:
		ic := c.Interval
		s = fmt.Sprintf("multihash:tables=%d,entries=%d,interval=%d,threshold=%s%%,cu=%d,reset=%d",
			ic.Tables, ic.Entries, ic.Interval, strconv.FormatFloat(ic.Threshold*100, 'g', -1, 64),
			b2i(ic.Conservative), b2i(ic.Reset))
		if !ic.Retain {
			s += ",retain=0"
		}
		if !ic.Shield {
			s += ",shield=0"
		}
		if ic.AccEntries > 0 {
			s += fmt.Sprintf(",acc=%d", ic.AccEntries)
		}
		return s
	}
	if c.Assoc > 0 {
		s += fmt.Sprintf("+A%d", c.Assoc)
	}
	return s
}

// SeedLabel names the first-level hardware of c, for DeriveSeed: a
// configuration with a second-level A_k gets the same seed as its first
// level alone, so that H[P256]2048 and H[P256]2048+A16 hash alike and
// differ only by A_k.
func (c Config) SeedLabel() string {
	c.Assoc = 0
	return c.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// NewCompressor builds the compressor c describes, sending to sink; seed
// seeds its hash tables and random samplers. It returns an error for an
// interval profiler configuration (use NewMultiHash with c.Interval).
func (c Config) NewCompressor(seed uint64, sink Sink) (Compressor, error) {
	r := rng{seed}
	hashSeed, sampleSeed := r.next(), r.next()
	var assoc *Assoc
	if c.Assoc > 0 {
		assoc = NewAssoc(c.Assoc, 0, sink)
		sink = assoc
	}
	var first Compressor
	switch {
	case c.Kind == ConfigTagged:
		if err := c.Tagged.Validate(); err != nil {
			return nil, err
		}
		first = NewTagged(c.Tagged, hashSeed, sink)
	case c.Kind != ConfigSampler:
		return nil, fmt.Errorf("profhw: %v is an interval profiler, not a compressor: %w", c, ErrConfig)
	case c.Rate < 1 || c.Substreams < 0 || c.Substreams > MaxHashSize:
		return nil, fmt.Errorf("profhw: %v: rate or substream count out of range: %w", c, ErrConfig)
	case c.Substreams > 0:
		first = NewStratified(c.Sampler, c.Rate, NewHash(c.Substreams, hashSeed), sampleSeed, sink)
	case c.Sampler == SamplerPeriodic:
		first = NewPeriodic(c.Rate, sink)
	case c.Sampler == SamplerRandom:
		first = NewRandom(c.Rate, sampleSeed, sink)
	default:
		first = NewCountedRandom(c.Rate, sampleSeed, sink)
	}
	if assoc != nil {
		return &TwoLevel{First: first, Second: assoc}, nil
	}
	return first, nil
}

// Presets are named lists of configurations ParseConfigs accepts in place
// of a configuration.
var Presets = map[string]string{
	// Figure 7 of the stratified paper: the five compressors it compares.
	"stratified": "R256;P256;H[P256]2048;H[P512]2048;tag2-256-2048",
	// Figure 9 of the stratified paper: the stratified sampler's table-size
	// sensitivity, 512 to 4096 entries at rate 256.
	"tablesize": "H[P256]512;H[P256]1024;H[P256]2048;H[P256]4096",
	// Figure 10 of the stratified paper: with and without A_16.
	"twolevel": "R256;R256+A16;H[P256]2048;H[P256]2048+A16;tag2-256-2048;tag2-256-2048+A16",
	// Figure 12 of the multi-hash paper: the best design with 1, 2, 4, 8
	// and 16 tables (2048 counters in all: 128 per table at 16).
	"multihash": "multihash:tables=1;multihash:tables=2;multihash:tables=4;multihash:tables=8;multihash:tables=16",
	// The same with the paper's long intervals: 1,000,000 tuples, 0.1%.
	"multihash-1m": "multihash:tables=1,interval=1000000,threshold=0.1%;multihash:tables=2,interval=1000000,threshold=0.1%;" +
		"multihash:tables=4,interval=1000000,threshold=0.1%;multihash:tables=8,interval=1000000,threshold=0.1%;" +
		"multihash:tables=16,interval=1000000,threshold=0.1%",
	// Figure 13 of the multi-hash paper: per-interval error of the best
	// single hash table (with resetting) and the best multi-hash design
	// (4 tables, C1R0) at interval 1,000,000 / 0.1%.
	"spikes": "multihash:tables=1,cu=0,reset=1,interval=1000000,threshold=0.1%;multihash:tables=4,interval=1000000,threshold=0.1%",
	// Figure 7 of the multi-hash paper: one hash table without and with
	// retaining (P0/P1) and resetting (R0/R1), at interval 10,000 / 1%.
	"singlehash": "multihash:tables=1,cu=0,retain=0,reset=0;multihash:tables=1,cu=0,retain=1,reset=0;" +
		"multihash:tables=1,cu=0,retain=0,reset=1;multihash:tables=1,cu=0,retain=1,reset=1",
	// Figures 10 and 11 of the multi-hash paper: C0/C1 x R0/R1 x 1, 2, 4, 8 tables.
	"multihash-design": designSpace(),
	// What the issue asks for on every guest.
	"paper": "R256;P256;H[P256]2048;H[P512]2048;tag2-256-2048;H[P256]2048+A16;" +
		"multihash:tables=1;multihash:tables=2;multihash:tables=4;multihash:tables=8",
}

func designSpace() string {
	var parts []string
	for _, n := range []int{1, 2, 4, 8} {
		for _, cu := range []int{0, 1} {
			for _, reset := range []int{0, 1} {
				parts = append(parts, fmt.Sprintf("multihash:tables=%d,cu=%d,reset=%d", n, cu, reset))
			}
		}
	}
	return strings.Join(parts, ";")
}

// ParseConfigs parses a list of configurations separated by ';' (commas
// belong to the multihash: syntax). An element may be a Presets name.
// Duplicates (by canonical notation) are dropped.
func ParseConfigs(list string) ([]Config, error) {
	var out []Config
	seen := map[string]bool{}
	for _, part := range strings.Split(list, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if p, ok := Presets[part]; ok {
			cs, err := ParseConfigs(p)
			if err != nil {
				return nil, err
			}
			for _, c := range cs {
				if !seen[c.String()] {
					seen[c.String()] = true
					out = append(out, c)
				}
			}
			continue
		}
		c, err := ParseConfig(part)
		if err != nil {
			return nil, err
		}
		if !seen[c.String()] {
			seen[c.String()] = true
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("profhw: no configuration in %q: %w", list, ErrConfig)
	}
	return out, nil
}
