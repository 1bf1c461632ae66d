// Guest environment flags: qemu-riscv64's -E and -U, in command-line order -> the guest's envp.

package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

// envFlags collects -E VAR=VALUE and -U VAR in the order given: the guest
// starts with rvdyn's own environment, as under qemu-riscv64, and each
// flag then sets or removes one variable.
type envFlags struct {
	edits []envEdit
}

type envEdit struct {
	set   bool   // -E (else -U)
	name  string // the variable
	value string // -E's value
}

// addEnvFlags registers -E and -U on fs.
func addEnvFlags(fs *flag.FlagSet) *envFlags {
	e := &envFlags{}
	fs.Func("E", "set VAR=VALUE in the guest's environment (repeatable; as qemu-riscv64 -E)", func(s string) error {
		name, value, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return fmt.Errorf("want VAR=VALUE, got %q", s)
		}
		e.edits = append(e.edits, envEdit{set: true, name: name, value: value})
		return nil
	})
	fs.Func("U", "remove VAR from the guest's environment (repeatable; as qemu-riscv64 -U)", func(s string) error {
		if s == "" || strings.Contains(s, "=") {
			return fmt.Errorf("want a variable name, got %q", s)
		}
		e.edits = append(e.edits, envEdit{name: s})
		return nil
	})
	return e
}

// environ returns the guest's environment: base (rvdyn's own) with the
// edits applied, order kept, a set variable replacing its old value in
// place.
func (e *envFlags) environ(base []string) []string {
	env := append([]string(nil), base...)
	for _, ed := range e.edits {
		i := 0
		found := false
		for _, kv := range env {
			if name, _, _ := strings.Cut(kv, "="); name == ed.name {
				if ed.set && !found {
					env[i] = ed.name + "=" + ed.value
					i++
					found = true
				}
				continue
			}
			env[i] = kv
			i++
		}
		env = env[:i]
		if ed.set && !found {
			env = append(env, ed.name+"="+ed.value)
		}
	}
	return env
}

// hostEnviron is the environment a guest starts from.
var hostEnviron = os.Environ
