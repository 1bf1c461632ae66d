// Tests of the flag value parsers: lists and ranges of integers, lists of names.

package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseInts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		min  int
		want []int
		err  string // in the error, "" for none
	}{
		{"", 0, nil, ""},
		{"10,50, 1000", 0, []int{10, 50, 1000}, ""},
		{"0", 0, []int{0}, ""},
		{"1,,2,", 0, []int{1, 2}, ""},
		{"1000:3000:1000", 1, []int{1000, 2000, 3000}, ""},
		{"5:5:1", 1, []int{5}, ""},
		{"10,x", 0, nil, `"x"`},
		{"-5", 0, nil, `"-5"`},
		{"0", 1, nil, `want integers >= 1`},
		{"1000:x:5", 1, nil, `"x"`},
		{"1:10:0", 1, nil, `"0"`},
		{"10:1:1", 1, nil, "empty range"},
	} {
		got, err := parseInts(tc.in, tc.min)
		if tc.err == "" && (err != nil || !slices.Equal(got, tc.want)) {
			t.Errorf("parseInts(%q, %d) = %v, %v; want %v", tc.in, tc.min, got, err, tc.want)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("parseInts(%q, %d): error %v, want one mentioning %s", tc.in, tc.min, err, tc.err)
		}
	}
	if s := joinInts([]int{10, 50, 1000}); s != "10,50,1000" {
		t.Errorf("joinInts = %q", s)
	}
}

func TestSplitList(t *testing.T) {
	if got := splitList(" a, b,,c ", ","); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("splitList = %q", got)
	}
	if got := splitList("R256; H[P256]2048;", ";"); !slices.Equal(got, []string{"R256", "H[P256]2048"}) {
		t.Errorf("splitList = %q", got)
	}
	if got := splitList("", ","); got != nil {
		t.Errorf("splitList(\"\") = %q", got)
	}
}
