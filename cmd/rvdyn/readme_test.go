// The README's option tables against the code: rvdyn run's flag set and the mechanisms --disable takes.

package main

import (
	"flag"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"rvdyn"
)

// readmeFlagRows returns the rows of the README's flag tables (those whose
// header is "| flag | default | meaning |"), each split into its cells.
func readmeFlagRows(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	in := false
	for line := range strings.SplitSeq(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "| flag | default | meaning |"):
			in = true
		case !strings.HasPrefix(line, "|"):
			in = false
		case in && !strings.HasPrefix(line, "|---"):
			// Split on cell bars, not on the escaped ones of `a\|b`.
			cells := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(strings.ReplaceAll(cells[i], "\x00", "|"))
			}
			rows = append(rows, cells[1:len(cells)-1])
		}
	}
	if len(rows) == 0 {
		t.Fatal("README.md has no flag table")
	}
	return rows
}

// flagName is the name in a flag cell: "`--mode=dynamo|interp`" ->
// "mode", "`-L DIR`" -> "L".
var flagName = regexp.MustCompile("^`--?([A-Za-z0-9-]+)")

// TestREADMEFlags checks the README's tables of rvdyn run's flags against
// run's flag set: every flag has a row or is named (`--name`) in one, no
// row names a flag that does not exist, a row's default agrees with the
// flag's where the flag has one, and the --disable row lists exactly the
// mechanisms of rvdyn.Mechanisms.
func TestREADMEFlags(t *testing.T) {
	rows := readmeFlagRows(t)
	fs, _ := newRun(io.Discard)
	var text strings.Builder
	rowOf := map[string][]string{}
	for _, r := range rows {
		text.WriteString(strings.Join(r, " "))
		m := flagName.FindStringSubmatch(r[0])
		if m == nil {
			t.Errorf("README flag row %q: no flag in its first cell", r[0])
			continue
		}
		if fs.Lookup(m[1]) == nil {
			t.Errorf("README documents --%s, which rvdyn run does not have", m[1])
		}
		rowOf[m[1]] = r
	}
	fs.VisitAll(func(f *flag.Flag) {
		r, ok := rowOf[f.Name]
		if !ok {
			if !strings.Contains(text.String(), "`--"+f.Name) && !strings.Contains(text.String(), "`-"+f.Name+" ") {
				t.Errorf("README's flag tables do not document rvdyn run's --%s", f.Name)
			}
			return
		}
		switch f.DefValue {
		case "", "0", "0s", "false", "-1":
			// No default to compare: the README says what 0 or
			// absence means (32 MiB, none, off).
		default:
			if !strings.Contains(r[1], f.DefValue) {
				t.Errorf("README: --%s defaults to %q, the flag to %q", f.Name, r[1], f.DefValue)
			}
		}
	})
	dis, ok := rowOf["disable"]
	if !ok {
		t.Fatal("README has no --disable row")
	}
	if got, want := topLevelCode(dis[2]), rvdyn.Mechanisms(); !slices.Equal(got, want) {
		t.Errorf("README's --disable row lists\n%v\nrvdyn.Mechanisms() is\n%v", got, want)
	}
}

// topLevelCode returns the `code` spans of s that are not inside
// parentheses, sorted: in the --disable row, the mechanisms' names and
// not the words that explain them.
func topLevelCode(s string) []string {
	var out []string
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				return out
			}
			if depth == 0 {
				out = append(out, s[i+1:i+1+j])
			}
			i += j + 1
		}
	}
	slices.Sort(out)
	return out
}
