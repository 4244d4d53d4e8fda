package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"weft/analysis/access"
	"weft/analysis/indep"
	"weft/analysis/lower"
	"weft/internal/z3"
)

func load(t *testing.T, path string) *lower.Loaded {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ld := lower.Load(path, src)
	if ld.Exec == nil {
		t.Fatalf("%s does not load: %v", path, ld.Diagnostics)
	}
	return ld
}

// The pipeline gives the same constraints whether it computes the access
// summary or is given one (the server's hover facts), and says in its
// notes where the conditions come from.
func TestBuild(t *testing.T) {
	models, err := filepath.Glob("../../../examples/*.weft")
	if err != nil || len(models) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	ctx := context.Background()
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ld := load(t, path)
			own, _, err := Build(ctx, ld.Program, ld.Exec, Options{NoSMT: "no SMT here"})
			if errors.Is(err, access.ErrUnsupported) {
				t.Skipf("the access analysis does not follow this model: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			sum, err := access.Analyze(ctx, ld.Program, ld.Exec)
			if err != nil {
				t.Fatal(err)
			}
			given, _, err := Build(ctx, ld.Program, ld.Exec, Options{Summary: sum, NoSMT: "no SMT here"})
			if err != nil {
				t.Fatal(err)
			}
			if given.Summary != sum {
				t.Error("the summary given was not used")
			}
			if !slices.Equal(own.Notes, []string{"no SMT here"}) || !slices.Equal(given.Notes, own.Notes) {
				t.Errorf("notes %q and %q; want the NoSMT note", own.Notes, given.Notes)
			}
			if texts(own) != texts(given) || !reflect.DeepEqual(own.Constraints(), given.Constraints()) {
				t.Errorf("the constraints differ with a summary given:\n%s\n---\n%s", texts(own), texts(given))
			}
		})
	}
}

// texts is every pair's conditions, in words.
func texts(r *indep.Result) string {
	var b strings.Builder
	for _, p := range r.Pairs {
		b.WriteString(p.Reason + ":")
		for _, c := range p.Conditions {
			b.WriteString(" " + c.Text + " (" + c.Origin + ")")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// With SMT asked for, z3 gives the conditions of the atomic blocks when
// it is there, and a note says why not when it is not; an analysis that
// is cancelled says which step stopped.
func TestBuildSMT(t *testing.T) {
	ctx := context.Background()
	pi := load(t, "../../../benchmarks/cdpor/pi_4.weft")
	t.Run("z3 missing", func(t *testing.T) {
		res, stats, err := Build(ctx, pi.Program, pi.Exec, Options{SMT: true, Z3: z3.Config{Path: filepath.Join(t.TempDir(), "no-z3")}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "syntactic conditions only") || stats.Pairs != 0 {
			t.Errorf("notes %q, %d pairs asked; want a note that z3 is not there", res.Notes, stats.Pairs)
		}
	})
	t.Run("z3", func(t *testing.T) {
		if err := z3.Available(z3.Config{}); err != nil {
			t.Skipf("z3 is not installed: %v", err)
		}
		res, stats, err := Build(ctx, pi.Program, pi.Exec, Options{SMT: true, AssumeNoOverflow: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Notes) != 0 || stats.Pairs == 0 || !strings.Contains(texts(res), "smt") {
			t.Errorf("notes %q, %d pairs asked, conditions:\n%s\nwant SMT's", res.Notes, stats.Pairs, texts(res))
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		done, cancel := context.WithCancel(ctx)
		cancel()
		_, _, err := Build(done, pi.Program, pi.Exec, Options{})
		if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "access analysis: ") {
			t.Errorf("error %v; want the access analysis's context.Canceled", err)
		}
	})
}
