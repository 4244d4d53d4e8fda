package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"weft/engine"
	"weft/lsp"
)

// TestFlagRanges: every numeric flag of every command takes the values
// the code behind it can handle, up to the largest, and refuses the others
// with a message that names the flag and the range.
func TestFlagRanges(t *testing.T) {
	const model = "../../examples/lost_update.weft"
	for _, tc := range []struct {
		cmd   string
		flag  string
		value string
		err   string // "" when accepted
	}{
		{"check", "max-steps", "1", ""},
		{"check", "max-steps", "1073741824", ""},
		{"check", "max-steps", "1073741825", "invalid value \"1073741825\" for --max-steps: want an integer from 1 to 1073741824 (2^30)"},
		{"check", "max-steps", "4611686018427387904", "for --max-steps: want an integer from 1 to 1073741824 (2^30)"},
		{"check", "max-steps", "0", "for --max-steps: want an integer from 1 to"},
		{"check", "max-steps", "99999999999999999999", "for --max-steps: want an integer from 1 to"},
		{"check", "max-executions", "9223372036854775807", ""},
		{"check", "max-executions", "0", ""},
		{"check", "max-executions", "-1", "for --max-executions: want an integer from 0 to 9223372036854775807"},
		{"check", "max-executions", "9223372036854775808", "for --max-executions: want an integer from 0 to 9223372036854775807"},
		{"check", "max-bugs", "2147483647", ""},
		{"check", "max-bugs", "2147483648", "for --max-bugs: want an integer from 0 to 2147483647"},
		{"check", "max-bugs", "-1", "for --max-bugs: want an integer from 0 to 2147483647"},
		{"check", "k", "2147483647", ""},
		{"check", "k", "0", "for --k: want an integer from 1 to 2147483647"},
		{"check", "k", "2147483648", "for --k: want an integer from 1 to 2147483647"},
		{"check", "timeout", "0", ""},
		{"check", "timeout", "100000h", ""},
		{"check", "timeout", "100001h", "for --timeout: want a duration such as 90s or 5m, from 0s to 100000h"},
		{"check", "timeout", "-1s", "for --timeout: want a duration such as 90s or 5m, from 0s to 100000h"},
		{"check", "max-memory", "0", ""},
		{"check", "max-memory", "4194304TB", ""},
		{"check", "max-memory", "4194305TB", "for --max-memory: want a size such as 512MB or 4GB, from 0 to 4194304TB"},
		{"check", "max-memory", "-1GB", "for --max-memory: want a size such as 512MB or 4GB, from 0 to 4194304TB"},
		{"replay", "max-steps", "1073741825", "for --max-steps: want an integer from 1 to 1073741824 (2^30)"},
		{"replay", "bug", "1", ""},
		{"replay", "bug", "0", "for --bug: want an integer from 1 to 2147483647"},
		{"replay", "bug", "2147483648", "for --bug: want an integer from 1 to 2147483647"},
		{"bench", "timeout", "1ms", ""},
		{"bench", "timeout", "100000h", ""},
		{"bench", "timeout", "0", "for --timeout: want a duration such as 90s or 5m, from 1ms to 100000h"},
		{"bench", "timeout", "100001h", "for --timeout: want a duration such as 90s or 5m, from 1ms to 100000h"},
	} {
		t.Run(tc.cmd+"/"+tc.flag+"="+tc.value, func(t *testing.T) {
			// Parsing: the flag set the command uses.
			fs := flag.NewFlagSet(tc.cmd, flag.ContinueOnError)
			fs.SetOutput(new(strings.Builder))
			switch tc.cmd {
			case "check":
				new(checkFlags).register(fs)
			case "replay":
				new(replayFlags).register(fs)
			case "bench":
				new(benchFlags).register(fs)
			}
			err := fs.Parse([]string{"--" + tc.flag, tc.value})
			if (err == nil) != (tc.err == "") {
				t.Fatalf("parse: %v", err)
			}
			if tc.err == "" {
				return
			}
			// The command: a usage error that says which flag and range.
			args := []string{tc.cmd, "--" + tc.flag, tc.value}
			if tc.cmd != "bench" {
				args = append(args, model)
			}
			code, _, errs := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(errs, tc.err) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, exitUsage, tc.err)
			}
		})
	}
}

// TestLargestFlags: a check with every numeric flag at the largest value
// it accepts finds lost_update's two bugs in full, in every mode. With
// --max-steps 2^62 the length cap (the bound times up to eight)
// overflowed: the check ended "incomplete after 1 execution" with none.
func TestLargestFlags(t *testing.T) {
	for _, algo := range []string{"dfs", "sdpor", "cdpor", "qpor", "optimal"} {
		args := []string{"check", "../../examples/lost_update.weft", "--json", "--quiet", "--algo", algo,
			"--max-steps", "1073741824", "--max-executions", "9223372036854775807", "--max-bugs", "2147483647",
			"--timeout", "100000h", "--max-memory", "4194304TB"}
		if algo == "qpor" {
			args = append(args, "--k", "2147483647")
		}
		code, out, errs := runCLI(t, args...)
		var res checkJSON
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s: %v\n%s", algo, err, errs)
		}
		if code != exitBug || !res.Complete || len(res.Bugs) != 2 {
			t.Errorf("%s: exit %d, complete %v, %d bugs; want exit 1, complete, 2 bugs", algo, code, res.Complete, len(res.Bugs))
		}
	}
}

// TestFlagsAndSettingsAgree: weft check's flags and the language
// server's settings that set the same engine option accept and refuse
// the same values (both take their ranges from engine.OptionLimits), at
// and around each boundary. Memory is in bytes for the flag, in MB for
// the setting.
func TestFlagsAndSettingsAgree(t *testing.T) {
	lim := engine.OptionLimits()
	type option struct {
		flag    string
		setting func(s *lsp.Settings, v int64)
		lim     engine.Limit
		unit    int64 // the setting's unit, in the flag's
		suffix  string
	}
	for _, o := range []option{
		{"max-steps", func(s *lsp.Settings, v int64) { s.MaxSteps = int(v) }, lim.MaxSteps, 1, ""},
		{"max-memory", func(s *lsp.Settings, v int64) { s.MaxMemoryMB = int(v) }, lim.MaxMemory, 1 << 20, "MB"},
	} {
		hi := o.lim.Max / o.unit
		for _, v := range []int64{o.lim.Min - 1, o.lim.Min, o.lim.Min + 1, o.lim.Default, hi - 1, hi, hi + 1, -1, 0, math.MaxInt64} {
			t.Run(fmt.Sprintf("%s=%d%s", o.flag, v, o.suffix), func(t *testing.T) {
				fs := flag.NewFlagSet("check", flag.ContinueOnError)
				fs.SetOutput(new(strings.Builder))
				new(checkFlags).register(fs)
				flagErr := fs.Parse([]string{"--" + o.flag, strconv.FormatInt(v, 10) + o.suffix})
				s := lsp.DefaultSettings()
				o.setting(&s, v)
				setErr := s.Validate()
				if (flagErr == nil) != (setErr == nil) {
					t.Errorf("the flag says %v, the setting %v", flagErr, setErr)
				}
				if want := o.lim.Contains(v * o.unit); v <= math.MaxInt64/o.unit && v >= math.MinInt64/o.unit && (flagErr == nil) != want {
					t.Errorf("accepted: %v; engine.OptionLimits says %v", flagErr == nil, want)
				}
			})
		}
	}
}
