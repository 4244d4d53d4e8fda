package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"weft/analysis/access"
	"weft/analysis/indep"
	"weft/analysis/indep/pipeline"
	"weft/analysis/indep/synth"
	"weft/analysis/lower"
	"weft/source"
)

// noSMTNote is what `weft ics --no-smt` says: the conditions are the
// syntactic rules' only.
const noSMTNote = "SMT synthesis not asked for (--no-smt): syntactic conditions only"

// constraintsOf computes the independence constraints of a loaded model
// as every tool does (analysis/indep/pipeline): the syntactic rules, and
// SMT synthesis by z3 unless noSMT (or z3 is not found: then a note says
// so).
func constraintsOf(ctx context.Context, ld *lower.Loaded, noSMT, noOverflow bool) (*indep.Result, synth.Stats, error) {
	return pipeline.Build(ctx, ld.Program, ld.Exec, pipeline.Options{SMT: !noSMT, NoSMT: noSMTNote, AssumeNoOverflow: noOverflow})
}

// icsFlags are the flags of weft ics.
type icsFlags struct{ json, noSMT, noOverflow bool }

func (f *icsFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.json, "json", false, "print JSON (see docs/cli.md)")
	fs.BoolVar(&f.noSMT, "no-smt", false, "syntactic conditions only: do not ask z3")
	fs.BoolVar(&f.noOverflow, "assume-no-overflow", false, "mark for the engine the SMT conditions that hold only where no arithmetic overflows")
}

// cmdIcs prints the independence constraints of one model: per pair of
// statements that may interfere, the conditions under which they
// commute (docs/cli.md, "weft ics").
func cmdIcs(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ics", flag.ContinueOnError)
	var f icsFlags
	f.register(fs)
	asJSON, noSMT, noOverflow := &f.json, &f.noSMT, &f.noOverflow
	pos, done, code := parseCommand(fs, args, stdout, stderr)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "weft ics: want one FILE (see weft help ics)")
		return exitUsage
	}
	path := pos[0]
	src, err := readModel(path)
	if err != nil {
		fmt.Fprintln(stderr, "weft ics:", err)
		return exitUsage
	}
	ld := lower.Load(path, src)
	if source.HasErrors(ld.Diagnostics) || ld.Exec == nil {
		printDiagnostics(stderr, path, ld.Diagnostics)
		return exitUsage
	}
	res, stats, err := constraintsOf(ctx, ld, *noSMT, *noOverflow)
	if err != nil {
		fmt.Fprintf(stderr, "weft ics: %s: %v\n", path, err)
		return exitInternal
	}
	if *asJSON {
		j := icsJSON(path, src, res)
		j.SMTPairs, j.SMTQueries, j.SMTMillis = stats.Pairs, stats.Queries, stats.Time.Seconds()*1000
		out, err := json.MarshalIndent(j, "", "  ")
		if err != nil {
			fmt.Fprintf(stderr, "weft ics: %v\n", err)
			return exitInternal
		}
		fmt.Fprintf(stdout, "%s\n", out)
		return exitOK
	}
	fmt.Fprintf(stdout, "%s: %d pairs of statements that may interfere\n", path, len(res.Pairs))
	if stats.Pairs > 0 {
		fmt.Fprintf(stdout, "SMT: %d pairs of atomic blocks, %d z3 queries, %s\n", stats.Pairs, stats.Queries, stats.Time.Round(time.Millisecond/10))
	}
	if err := res.WriteText(stdout, src); err != nil {
		fmt.Fprintf(stderr, "weft ics: %v\n", err)
		return exitInternal
	}
	return exitOK
}

// The JSON of `weft ics --json` (docs/cli.md).
type icsOutput struct {
	File string `json:"file"`
	SMT  bool   `json:"smt"`
	// What the synthesis cost: pairs of atomic blocks asked about, z3
	// queries, wall time (z3's start-up included).
	SMTPairs   int        `json:"smt_pairs"`
	SMTQueries int        `json:"smt_queries"`
	SMTMillis  float64    `json:"smt_ms"`
	Notes      []string   `json:"notes"`
	Pairs      []icsPairJ `json:"pairs"`
}

type icsPairJ struct {
	A          icsStmtJ   `json:"a"`
	B          icsStmtJ   `json:"b"`
	Threads    string     `json:"threads"`
	Reason     string     `json:"reason"`
	Conditions []icsCondJ `json:"conditions"`
	Notes      []string   `json:"notes,omitempty"`
}

type icsStmtJ struct {
	Line   int      `json:"line"`
	Col    int      `json:"col"`
	Thread string   `json:"thread"`
	Func   string   `json:"func,omitempty"`
	Text   string   `json:"text"`
	Reads  []string `json:"reads"`
	Writes []string `json:"writes"`
	// W is what a thread at the statement, or one it spawns later, may
	// write from there on; nil (null): anything.
	W []string `json:"w"`
}

type icsCondJ struct {
	Text   string `json:"text"`
	Origin string `json:"origin"`
	Engine bool   `json:"engine"`
}

func icsJSON(path string, src []byte, res *indep.Result) icsOutput {
	out := icsOutput{File: path, SMT: len(res.Notes) == 0, Notes: res.Notes, Pairs: []icsPairJ{}}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	stmt := func(st *access.Statement) icsStmtJ {
		rd, wr := indep.Accesses(st)
		j := icsStmtJ{Line: st.Range.Start.Line + 1, Col: st.Range.Start.Col + 1, Text: indep.StatementText(st, src),
			Reads: nonNil(rd), Writes: nonNil(wr)}
		if st.Owner != nil {
			j.Thread = st.Owner.Name
		}
		if st.Func != nil {
			j.Func = st.Func.Name
		}
		if vars, all, _ := res.WritesFrom(st); !all {
			j.W = []string{}
			for _, v := range vars {
				j.W = append(j.W, v.Name)
			}
		}
		return j
	}
	for _, p := range res.Pairs {
		pj := icsPairJ{A: stmt(p.A), B: stmt(p.B), Threads: p.Threads.String(), Reason: p.Reason, Conditions: []icsCondJ{}, Notes: p.Notes}
		for _, c := range p.Conditions {
			pj.Conditions = append(pj.Conditions, icsCondJ{Text: c.Text, Origin: c.Origin, Engine: c.Engine})
		}
		out.Pairs = append(out.Pairs, pj)
	}
	return out
}

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
