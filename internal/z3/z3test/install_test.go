package z3test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeAptGet stands in for apt-get: it exits with $FAKE_APT_STATUS, and
// when $FAKE_APT_INSTALLS is set, "install -y PKG" puts an executable PKG
// beside it.
const fakeAptGet = `#!/bin/sh
echo "apt-get $*" >>"$(dirname "$0")/log"
if [ "$1" = install ] && [ -n "$FAKE_APT_INSTALLS" ]; then
    printf '#!/bin/sh\n' >"$(dirname "$0")/$3"
    chmod +x "$(dirname "$0")/$3"
fi
exit "${FAKE_APT_STATUS:-0}"
`

// TestInstallTools: .ci/install-tools fails when z3 is not there after
// apt-get, whatever apt-get's status (the loop it replaced in .ci/run let
// the run go on, and the SMT tests skip, in both cases), and succeeds
// when apt-get installs it or it was there already.
func TestInstallTools(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("no bash to run .ci/install-tools: %v", err)
	}
	script, err := filepath.Abs("../../../.ci/install-tools")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name             string
		status           string // apt-get's exit status
		installs, before bool   // apt-get installs z3; z3 is there before
		ok               bool
	}{
		{"apt-get fails", "100", false, false, false},
		{"apt-get succeeds and installs nothing", "0", false, false, false},
		{"apt-get installs z3", "0", true, false, true},
		{"apt-get installs z3 and exits 1", "1", true, false, true},
		{"z3 already there", "100", false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A PATH of the fakes and the two commands the script runs
			// besides them, so that the machine's own z3 is not found.
			dir := t.TempDir()
			write := func(name, text string) {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			write("apt-get", fakeAptGet)
			write("sudo", "#!/bin/sh\nexec \"$@\"\n")
			if tc.before {
				write("z3", "#!/bin/sh\n")
			}
			for _, c := range []string{"id", "dirname", "chmod"} {
				p, err := exec.LookPath(c)
				if err != nil {
					t.Skipf("no %s for the fakes: %v", c, err)
				}
				if err := os.Symlink(p, filepath.Join(dir, c)); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(bash, script, "z3:z3")
			cmd.Env = []string{"PATH=" + dir, "FAKE_APT_STATUS=" + tc.status}
			if tc.installs {
				cmd.Env = append(cmd.Env, "FAKE_APT_INSTALLS=1")
			}
			out, err := cmd.CombinedOutput()
			if (err == nil) != tc.ok {
				t.Errorf("exit error %v, want success %v; output:\n%s", err, tc.ok, out)
			}
			if !tc.ok && !strings.Contains(string(out), "z3 not found after apt-get install -y z3") {
				t.Errorf("no word of the missing z3 in the output:\n%s", out)
			}
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			if tc.before != (len(log) == 0) {
				t.Errorf("z3 there before: %v, apt-get runs: %q", tc.before, log)
			}
		})
	}
}
