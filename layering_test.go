// The import direction of the design: every package's imports (go list) -> each checked against the layers its package may reach.

package rvdyn_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// models are the mechanisms' packages (and their sub-packages): they
// import only each other, the standard library and their few libraries,
// never a plotting library, an experiment, the engine or the root.
var models = []string{"interp", "net", "profhw", "gcassist", "layout", "codecache", "fragment"}

// cmdModels are the model packages cmd/rvdyn still imports directly,
// with the reason: each is a command that runs a mechanism as a user of
// that package would, not a run of the optimizer.
var cmdModels = map[string]string{
	"rvdyn/profhw/rpa": "the query language's own tools (rvdyn rpa asm|disasm) and rvdyn run --query's profiler session",
	"rvdyn/profhw":     "rvdyn profile: configurations in the papers' notation and tuple streams, run through the compressor models",
	"rvdyn/net":        "rvdyn predict: the offline NET and path-profile predictors on a guest's recorded paths",
	"rvdyn/layout":     "rvdyn layout: the time-based PC sampler and sample sets of the placement experiment's runs",
}

// isModel reports whether pkg (an import path in the module) is a model
// package.
func isModel(pkg string) bool {
	for _, m := range models {
		if pkg == "rvdyn/"+m || strings.HasPrefix(pkg, "rvdyn/"+m+"/") {
			return true
		}
	}
	return false
}

// TestLayering checks the import direction of docs/internals.md's
// package table (cmd -> {root, experiments, bench, gdb}; root -> engine
// -> {selection, models}; models import no plotting library; experiments
// only under cmd) on every package's non-test imports.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	seen := map[string]bool{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, imports := f[0], f[1:]
		for _, imp := range imports {
			seen[imp] = true
			if why := forbidden(pkg, imp); why != "" {
				t.Errorf("%s imports %s: %s", pkg, imp, why)
			}
		}
	}
	for m := range cmdModels {
		if !seen[m] {
			t.Errorf("cmdModels lists %s, which nothing imports any more: remove it", m)
		}
	}
}

// forbidden returns why package pkg may not import imp, or "".
func forbidden(pkg, imp string) string {
	plot := strings.HasPrefix(imp, "gonum.org/v1/plot")
	experiment := strings.HasPrefix(imp, "rvdyn/internal/experiments/")
	upper := imp == "rvdyn" || strings.HasPrefix(imp, "rvdyn/internal/engine") || strings.HasPrefix(imp, "rvdyn/internal/selection") ||
		experiment || strings.HasPrefix(imp, "rvdyn/bench") || strings.HasPrefix(imp, "rvdyn/cmd") || imp == "rvdyn/gdb" || imp == "rvdyn/internal/figure"
	switch {
	case isModel(pkg):
		if plot {
			return "a model imports no plotting library"
		}
		if upper {
			return "a model imports only other models"
		}
	case pkg == "rvdyn/internal/selection" || strings.HasPrefix(pkg, "rvdyn/internal/engine"):
		if plot || experiment || imp == "rvdyn" || strings.HasPrefix(imp, "rvdyn/bench") || strings.HasPrefix(imp, "rvdyn/cmd") || imp == "rvdyn/internal/figure" {
			return "the engine room imports only itself and the models"
		}
		if pkg == "rvdyn/internal/selection" && strings.HasPrefix(imp, "rvdyn/internal/engine") {
			return "selection is below the engine"
		}
	case pkg == "rvdyn":
		if plot || experiment || strings.HasPrefix(imp, "rvdyn/bench") || strings.HasPrefix(imp, "rvdyn/cmd") {
			return "the public API is the engine's, not the experiments' or the harness's"
		}
	case strings.HasPrefix(pkg, "rvdyn/bench"):
		if experiment || strings.HasPrefix(imp, "rvdyn/internal/engine") || strings.HasPrefix(imp, "rvdyn/cmd") {
			return "the harness runs guests through the public API; experiments import it, not the other way"
		}
	case strings.HasPrefix(pkg, "rvdyn/internal/experiments/"):
		if strings.HasPrefix(imp, "rvdyn/internal/engine") || strings.HasPrefix(imp, "rvdyn/cmd") {
			return "an experiment runs the optimizer through the public API"
		}
	case strings.HasPrefix(pkg, "rvdyn/cmd/"):
		if isModel(imp) {
			if _, ok := cmdModels[imp]; !ok {
				return "cmd reaches the mechanisms through the root package or an experiment (or, with a reason, cmdModels)"
			}
		}
		if strings.HasPrefix(imp, "rvdyn/internal/engine") || strings.HasPrefix(imp, "rvdyn/internal/selection") {
			return "cmd uses the public API"
		}
	}
	if experiment && !strings.HasPrefix(pkg, "rvdyn/cmd/") && !strings.HasPrefix(pkg, "rvdyn/internal/experiments/") {
		return "only cmd imports the experiments"
	}
	if strings.HasPrefix(imp, "rvdyn/internal/engine") && !slices.Contains([]string{"rvdyn"}, pkg) && !strings.HasPrefix(pkg, "rvdyn/internal/engine") {
		return "only the root package reaches the engine"
	}
	return ""
}

// TestForbiddenRules checks the rules themselves on imports the tree does
// not have, so that TestLayering can fail.
func TestForbiddenRules(t *testing.T) {
	for _, c := range []struct {
		pkg, imp string
		ok       bool
	}{
		{"rvdyn/net", "gonum.org/v1/plot/plotter", false},
		{"rvdyn/profhw/rpa", "rvdyn/internal/experiments/relational", false},
		{"rvdyn/fragment/ir", "rvdyn", false},
		{"rvdyn/internal/engine", "rvdyn", false},
		{"rvdyn/internal/selection", "rvdyn/internal/engine", false},
		{"rvdyn/bench", "rvdyn/internal/experiments/hwprofile", false},
		{"rvdyn/gdb", "rvdyn/internal/experiments/hwprofile", false},
		{"rvdyn/cmd/rvdyn", "rvdyn/interp", false},
		{"rvdyn/cmd/rvdyn", "rvdyn/internal/engine", false},
		{"rvdyn/cmd/rvdyn", "rvdyn/profhw", true},
		{"rvdyn/cmd/rvdyn", "rvdyn/internal/experiments/placement", true},
		{"rvdyn/internal/experiments/relational", "rvdyn/bench", true},
		{"rvdyn/internal/engine", "rvdyn/internal/selection", true},
		{"rvdyn", "rvdyn/internal/engine", true},
		{"rvdyn/codecache", "rvdyn/fragment/amd64", true},
	} {
		if why := forbidden(c.pkg, c.imp); (why == "") != c.ok {
			t.Errorf("%s -> %s: allowed %v, want %v (%s)", c.pkg, c.imp, why == "", c.ok, why)
		}
	}
}

// TestNoCgo checks that the rvdyn command links no C code: a package
// with cgo files (package net's resolver is one, with CGO_ENABLED=1, the
// default where gcc is installed) makes the binary dynamically linked,
// and every run then pays for the dynamic loader and cgo's start-up
// (about a millisecond per process, measured: cmd/rvdyn/listen.go).
func TestNoCgo(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if .CgoFiles}}{{.ImportPath}}{{end}}", "./cmd/rvdyn")
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	if s := strings.Fields(string(out)); len(s) > 0 {
		t.Errorf("cmd/rvdyn depends on packages with cgo files: %v", s)
	}
}
