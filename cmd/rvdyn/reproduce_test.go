package main

import (
	"os/exec"
	"rvdyn/internal/figure"

	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReproduceFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--only", "nosuch"}, "unknown paper"},
		{[]string{"extra"}, "unexpected argument"},
		{[]string{"--bogus"}, "bogus"},
	} {
		var out, errb strings.Builder
		if code := reproduceCmd(tc.args, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), exitUsage, tc.want)
		}
	}
}

// TestReproduceQuick runs one paper's experiments at quick sizes and
// checks the page, the tables, the JSON and the figures it names.
func TestReproduceQuick(t *testing.T) {
	dir := t.TempDir()
	// An earlier run's tables for another paper: the index must list
	// them, marked as earlier, and this run must not overwrite them.
	if err := os.WriteFile(filepath.Join(dir, "net-2.txt"), []byte("earlier net table\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	if code := reproduceCmd([]string{"--quick", "--only", "stratified", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Figure 5: speedup over native of NET", "(from an earlier run)", "earlier net table", "`stratified-1.txt`", "`stratified-3.txt`"} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index lacks %q", want)
		}
	}
	if strings.Contains(string(index), "### Tables 1 and 2") {
		t.Error("index lists a net experiment with no tables in the directory")
	}
	if n := strings.Count(errb.String(), "\n"); n != 3 || !strings.Contains(errb.String(), "[3/3] stratified") {
		t.Errorf("want one progress line per experiment, got:\n%s", errb.String())
	}
	page, err := os.ReadFile(filepath.Join(dir, "stratified.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Sastry", "## Figure 4", "## Figure 9", "**The paper:**", "**Why they differ:**", "H[P256]2048", "stay below", "![stratified-fig7.svg]"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, f := range []string{"stratified-fig4.json", "stratified-fig4.svg", "stratified-fig7.json", "stratified-fig7.svg", "stratified-fig9.json"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "net.md")); err == nil {
		t.Error("--only stratified wrote the net page")
	}
}

// TestReproduceFigures renders every figure of a quick run of every
// paper with the house-style check on (figure.CheckEnv): a figure whose
// text extends past its canvas, whose legend box overlaps a plot's data
// area or whose numeric axis has no unit fails its experiment, and so
// the run.
func TestReproduceFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a quick run of every paper")
	}
	t.Setenv(figure.CheckEnv, "1")
	dir := t.TempDir()
	var out, errb strings.Builder
	if code := reproduceCmd([]string{"--quick", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	figs, _ := filepath.Glob(filepath.Join(dir, "*.svg"))
	if len(figs) < 7 {
		t.Errorf("%d figures: %v", len(figs), figs)
	}
	for _, f := range figs {
		b, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(b), "<svg") {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestReproduceInstalled installs rvdyn (go install, into a temporary
// GOBIN) and runs its reproduce command from a temporary directory,
// outside any source tree: the layout experiment must relink the
// embedded guest sources (or, where the cross toolchain is missing, say
// so and skip), and the output directory must get its pages and an
// index (index.md, index.html) showing the figures. A second run with an
// empty PATH must skip the layout experiment with a message naming what
// is missing, and still succeed.
func TestReproduceInstalled(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: installs rvdyn and runs two papers' quick experiments")
	}
	gobin := t.TempDir()
	install := exec.Command("go", "install", ".")
	install.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	bin := filepath.Join(gobin, "rvdyn")
	run := func(env []string, only string) (dir, stderr string) {
		t.Helper()
		work := t.TempDir()
		cmd := exec.Command(bin, "reproduce", "--quick", "--only", only, "--out", "out")
		cmd.Dir, cmd.Env = work, append(os.Environ(), env...)
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("rvdyn reproduce --only %s in %s: %v\n%s", only, work, err, errb.String())
		}
		return filepath.Join(work, "out"), errb.String()
	}
	out, stderr := run([]string{figure.CheckEnv + "=1"}, "stratified,layout")
	page := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if len(missing(crossNeeds)) == 0 {
		if !strings.Contains(stderr, "extracted to") || !strings.Contains(page("layout.md"), "## Tables 5") {
			t.Errorf("layout from the embedded sources: stderr\n%s", stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "layout-fig4.svg")); err != nil {
			t.Errorf("layout figure: %v", err)
		}
	} else if !strings.Contains(stderr, "SKIPPED: needs") {
		t.Errorf("no skip message with the toolchain missing:\n%s", stderr)
	}
	for _, want := range []string{"(stratified.md)", "(layout.md)", "![stratified-fig4.svg]", "**The paper:**", "**Why they differ:**"} {
		if !strings.Contains(page("index.md"), want) {
			t.Errorf("index.md lacks %q", want)
		}
	}
	html := page("index.html")
	for _, want := range []string{"<!DOCTYPE html>", `<img src="stratified-fig4.svg"`, `href="layout.md"`, "Why they differ"} {
		if !strings.Contains(html, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}

	out, stderr = run([]string{"PATH=" + t.TempDir()}, "layout")
	if !strings.Contains(stderr, "SKIPPED: needs make, riscv64-unknown-elf-gcc") || !strings.Contains(stderr, "apt-get install") {
		t.Errorf("empty PATH: stderr\n%s", stderr)
	}
	if !strings.Contains(page("layout.md"), "**Not run here:** it needs") || !strings.Contains(page("index.md"), "(not run here)") {
		t.Errorf("empty PATH: the pages do not say layout was not run")
	}
}

// TestReproduceReplot redraws a quick run's figures from its JSON alone.
func TestReproduceReplot(t *testing.T) {
	t.Setenv(figure.CheckEnv, "1")
	dir := t.TempDir()
	var out, errb strings.Builder
	if code := reproduceCmd([]string{"--quick", "--only", "stratified", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	figs, _ := filepath.Glob(filepath.Join(dir, "*.svg"))
	for _, f := range figs {
		os.Remove(f)
	}
	errb.Reset()
	if code := reproduceCmd([]string{"--replot", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("replot: exit %d:\n%s", code, errb.String())
	}
	for _, f := range figs {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s not redrawn: %v", filepath.Base(f), err)
		}
	}
	if code := reproduceCmd([]string{"--replot", "--out", t.TempDir()}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "no JSON") {
		t.Errorf("replot of an empty directory: exit %d, %s", code, errb.String())
	}
}
