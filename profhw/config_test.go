// Tests of the configuration notation: round trips, fields, errors that name the bad part, presets.

package profhw

import (
	"errors"
	"strings"
	"testing"
)

func TestParseConfigRoundTrip(t *testing.T) {
	tests := []struct{ in, canon string }{
		{"R256", "R256"},
		{"P_256", "P256"},
		{"CR10", "CR10"},
		{"H[P256]2048", "H[P256]2048"},
		{"H[P_512]_2048", "H[P512]2048"},
		{"H[R10]2048", "H[R10]2048"},
		{"H[CR10]2048", "H[CR10]2048"},
		{"H[P512]2048+A16", "H[P512]2048+A16"},
		{"R256+A_16", "R256+A16"},
		{"tag2-256-2048", "tag2-256-2048"},
		{"tag2-256-2048-w2", "tag2-256-2048"},
		{"tag3-128-1024-w4+A16", "tag3-128-1024-w4+A16"},
		{"multihash:tables=4,entries=2048,interval=1000000,threshold=0.1%,cu=1,reset=0",
			"multihash:tables=4,entries=2048,interval=1000000,threshold=0.1%,cu=1,reset=0"},
		{"multihash:", "multihash:tables=4,entries=2048,interval=10000,threshold=1%,cu=1,reset=0"},
		{"multihash:threshold=0.001,interval=1000000,retain=0,shield=0,acc=50",
			"multihash:tables=4,entries=2048,interval=1000000,threshold=0.1%,cu=1,reset=0,retain=0,shield=0,acc=50"},
		{"singlehash:cu=0,reset=1", "multihash:tables=1,entries=2048,interval=10000,threshold=1%,cu=0,reset=1"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			c, err := ParseConfig(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if c.String() != tc.canon {
				t.Fatalf("String() = %q, want %q", c.String(), tc.canon)
			}
			again, err := ParseConfig(c.String())
			if err != nil || again != c {
				t.Fatalf("round trip: %+v, %v; want %+v", again, err, c)
			}
		})
	}
}

func TestParseConfigFields(t *testing.T) {
	c, _ := ParseConfig("H[CR10]512+A8")
	if c.Kind != ConfigSampler || c.Sampler != SamplerCountedRandom || c.Rate != 10 || c.Substreams != 512 || c.Assoc != 8 {
		t.Errorf("H[CR10]512+A8 parsed as %+v", c)
	}
	c, _ = ParseConfig("tag2-256-2048")
	if c.Kind != ConfigTagged || c.Tagged != DefaultTagged {
		t.Errorf("tag2-256-2048 parsed as %+v", c.Tagged)
	}
	c, _ = ParseConfig("multihash:tables=8,cu=0,reset=1,threshold=0.5%")
	ic := c.Interval
	if ic.Tables != 8 || ic.Conservative || !ic.Reset || ic.Threshold != 0.005 || !ic.Retain || !ic.Shield {
		t.Errorf("multihash parsed as %+v", ic)
	}
}

func TestParseConfigErrorsNameTheBadPart(t *testing.T) {
	tests := []struct{ in, part string }{
		{"", "empty"},
		{"Q256", `"Q256"`},
		{"P", `"P"`},
		{"P0", `"P0"`},
		{"H[P256]20x8", `"20x8"`},
		{"H[X256]2048", `"X256"`},
		{"H[P256", "missing ]"},
		{"P256+B16", `"+B16"`},
		{"P256+A0", `"+A0"`},
		{"tag2-256", "tag<bits>"},
		{"tag2-abc-2048", `"abc"`},
		{"tag2-256-2047", "cannot have 2 ways"},
		{"tag2-256-2048-x2", `"x2"`},
		{"multihash:tables=four", `"tables=four"`},
		{"multihash:colour=red", `"colour"`},
		{"multihash:threshold=2", "not in (0, 1]"},
		{"multihash:tables", `"tables"`},
		{"singlehash:tables=2", `"tables=2"`},
		{"treehash:x=1", `"treehash"`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseConfig(tc.in)
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error does not wrap ErrConfig: %v", err)
			}
			if !strings.Contains(err.Error(), tc.part) {
				t.Errorf("error %q does not name %s", err, tc.part)
			}
		})
	}
}

func TestParseConfigsPresetsAndSeparators(t *testing.T) {
	cs, err := ParseConfigs("R256; multihash:tables=2,cu=0 ;;P256;R256")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 || cs[1].Interval.Tables != 2 || cs[1].Interval.Conservative {
		t.Errorf("parsed %v", cs)
	}
	for name := range Presets {
		cs, err := ParseConfigs(name)
		if err != nil || len(cs) == 0 {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	cs, _ = ParseConfigs("multihash-design")
	if len(cs) != 16 {
		t.Errorf("multihash-design has %d configurations, want 16", len(cs))
	}
	if _, err := ParseConfigs(" ; "); !errors.Is(err, ErrConfig) {
		t.Errorf("empty list: %v", err)
	}
	if _, err := ParseConfigs("R256;H[P1]0"); err == nil {
		t.Errorf("bad element accepted")
	}
}

func TestNewCompressorBuildsEachKind(t *testing.T) {
	stream := zipfStream(20000, 100, 1)
	for _, s := range []string{"R16", "P16", "CR16", "H[P16]64", "H[R16]64", "H[CR16]64", "tag2-16-64", "H[P16]64+A4"} {
		c, _ := ParseConfig(s)
		p := NewProfile()
		comp, err := c.NewCompressor(1, p)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		comp.Feed(stream)
		if p.Messages() == 0 || p.Total() > uint64(len(stream))*11/10 || p.Total() < uint64(len(stream))*9/10 {
			t.Errorf("%s: %d messages standing for %d tuples of %d", s, p.Messages(), p.Total(), len(stream))
		}
	}
	c, _ := ParseConfig("multihash:")
	if _, err := c.NewCompressor(1, NewProfile()); !errors.Is(err, ErrConfig) {
		t.Errorf("interval profiler built as a compressor: %v", err)
	}
}
