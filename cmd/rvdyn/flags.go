// Flag values: list text such as "sieve,qsort" or "10,50,1000" or "1000:20000:1000" -> names and integers, and integers back to text.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// parseFlags parses args with fs, which reports nothing itself on -h:
// on -h it prints usage and the flags' defaults to stderr and returns
// exit status 0 and false; on a bad flag (which fs has reported) it
// returns exitUsage and false; otherwise true.
func parseFlags(fs *flag.FlagSet, args []string, usage string, stderr io.Writer) (int, bool) {
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, usage)
			fs.PrintDefaults()
			return 0, false
		}
		return exitUsage, false
	}
	return 0, true
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ";") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// splitList splits s at sep and returns the fields, spaces trimmed and
// empty ones dropped ("" gives nil).
func splitList(s, sep string) []string {
	var out []string
	for _, f := range strings.Split(s, sep) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// parseInts parses a list of integers, each at least min: either
// comma-separated ("10,50,1000", read as splitList does) or a range
// FROM:TO:STEP ("1000:20000:1000": FROM, FROM+STEP, ... up to TO
// included; STEP at least 1). "" gives nil. The error names the field
// that is not such an integer.
func parseInts(s string, min int) ([]int, error) {
	num := func(f string, min int) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < min {
			return 0, fmt.Errorf("bad number %q in %q (want integers >= %d)", f, s, min)
		}
		return n, nil
	}
	var out []int
	if f := strings.Split(s, ":"); len(f) == 3 {
		var v [3]int
		for i, lo := range []int{min, min, 1} {
			n, err := num(f[i], lo)
			if err != nil {
				return nil, err
			}
			v[i] = n
		}
		for n := v[0]; n <= v[1]; n += v[2] {
			out = append(out, n)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("empty range %q", s)
		}
		return out, nil
	}
	for _, f := range splitList(s, ",") {
		n, err := num(f, min)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// joinInts is the inverse of parseInts for a comma-separated list.
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
