// The README's option tables against the code: rvdyn run's flag set and the mechanisms --disable takes.

package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"rvdyn"
	"rvdyn/internal/doccheck"
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
	if _, ok := rowOf["disable"]; !ok {
		t.Error("README has no --disable row")
	}
}

var updateDocs = flag.Bool("update-docs", false, "rewrite the README's table of mechanisms from rvdyn.MechanismTable")

// mechanismTable is the README's table of what --disable takes, generated
// from rvdyn.MechanismTable.
func mechanismTable() string {
	var b strings.Builder
	b.WriteString("| mechanism | switched off |\n|---|---|\n")
	for _, m := range rvdyn.MechanismTable() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", m.Name, m.Doc)
	}
	return b.String()
}

// TestREADMEMechanisms checks the README's table of the mechanisms
// --disable switches off against rvdyn.MechanismTable, the one table
// Options.Disable, --disable=help and the ablation use (go test
// ./cmd/rvdyn -run TestREADMEMechanisms -update-docs rewrites it).
func TestREADMEMechanisms(t *testing.T) {
	doccheck.Table(t, "../../README.md", "| mechanism | switched off |", mechanismTable(), *updateDocs,
		"go test ./cmd/rvdyn -run TestREADMEMechanisms -update-docs")
	var out strings.Builder
	writeMechanisms(&out)
	for _, m := range rvdyn.Mechanisms() {
		if !strings.Contains(out.String(), "\n"+m+" ") {
			t.Errorf("--disable=help does not list %s", m)
		}
	}
}
