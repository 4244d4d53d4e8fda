package main

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"weft/engine"
)

// flagNames are the names of the flags a register function defines.
func flagNames(register func(*flag.FlagSet)) []string {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	register(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// helpNames matches a flag's name where the help lists it: at the start
// of a line, after two spaces.
func helpLists(help, name string) bool {
	return regexp.MustCompile(`(?m)^  --?` + regexp.QuoteMeta(name) + `\b`).MatchString(help)
}

// TestHelpCheck: weft help check lists every flag weft check accepts
// (cdpor's --no-smt and --assume-no-overflow, --no-spin-wait,
// --spurious-wakeups among them) and every algorithm of the engine.
func TestHelpCheck(t *testing.T) {
	code, help, errs := runCLI(t, "help", "check")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	names := flagNames(func(fs *flag.FlagSet) { new(checkFlags).register(fs) })
	if len(names) < 10 {
		t.Fatalf("only %d flags registered: %v", len(names), names)
	}
	for _, name := range names {
		if !helpLists(help, name) {
			t.Errorf("weft help check does not list --%s", name)
		}
	}
	for _, a := range engine.Algorithms {
		if !strings.Contains(help, string(a)) {
			t.Errorf("weft help check does not name the algorithm %s", a)
		}
	}
}

// TestHelpEveryCommand: the help of every command lists each flag the
// command parses with, and nothing else claims to be a flag.
func TestHelpEveryCommand(t *testing.T) {
	for _, tc := range []struct {
		cmd      string
		register func(*flag.FlagSet)
	}{
		{"check", func(fs *flag.FlagSet) { new(checkFlags).register(fs) }},
		{"replay", func(fs *flag.FlagSet) { new(replayFlags).register(fs) }},
		{"fmt", func(fs *flag.FlagSet) { new(fmtFlags).register(fs) }},
		{"ics", func(fs *flag.FlagSet) { new(icsFlags).register(fs) }},
		{"lsp", func(fs *flag.FlagSet) { new(serverFlags).register(fs) }},
		{"dap", func(fs *flag.FlagSet) { new(serverFlags).register(fs) }},
		{"bench", func(fs *flag.FlagSet) { new(benchFlags).register(fs) }},
		{"version", nil},
		{"help", nil},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			code, help, errs := runCLI(t, "help", tc.cmd)
			if code != exitOK || !strings.HasPrefix(help, "usage: weft "+tc.cmd) {
				t.Fatalf("exit %d: %s%s", code, help, errs)
			}
			var names []string
			if tc.register != nil {
				names = flagNames(tc.register)
			}
			for _, name := range names {
				if !helpLists(help, name) {
					t.Errorf("weft help %s does not list --%s", tc.cmd, name)
				}
			}
			listed := regexp.MustCompile(`(?m)^  --?([a-z][a-z-]*)`).FindAllStringSubmatch(help, -1)
			if len(listed) != len(names) {
				t.Errorf("weft help %s lists %d flags, the command has %d (%v)", tc.cmd, len(listed), len(names), names)
			}
			// -h and --help print the same help.
			_, self, _ := runCLI(t, tc.cmd, "--help")
			if tc.register != nil && tc.cmd != "lsp" && tc.cmd != "dap" && self != help {
				t.Errorf("weft %s --help differs from weft help %s", tc.cmd, tc.cmd)
			}
		})
	}
}

// TestHelpReadme: README's list of check's flags names every algorithm.
func TestHelpReadme(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`--algo ([a-z|]+)`").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no `--algo a|b|…` list")
	}
	listed := strings.Split(string(m[1]), "|")
	for _, a := range engine.Algorithms {
		found := false
		for _, l := range listed {
			found = found || l == string(a)
		}
		if !found {
			t.Errorf("README.md's --algo list %q omits %s", m[1], a)
		}
	}
}

// TestVersion: weft version says the language version docs/language.md
// describes.
func TestVersion(t *testing.T) {
	doc, err := os.ReadFile("../../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\*\*version (\d+)\*\* of the language`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/language.md does not say which version of the language it describes")
	}
	code, out, _ := runCLI(t, "version")
	if want := "(language version " + string(m[1]) + ")"; code != exitOK || !strings.Contains(out, want) {
		t.Errorf("weft version: exit %d, %q; want %q", code, out, want)
	}
}
