package replay

import "testing"

func TestHeadline(t *testing.T) {
	for _, c := range []struct{ kind, msg, want string }{
		{"deadlock", "deadlock: t waits at lock(m) held by u", "deadlock: t waits at lock(m) held by u"},
		{"deadlock", "every thread left is blocked", "deadlock: every thread left is blocked"},
		{"assertion", "an increment was lost", "assertion: an increment was lost"},
		{"assertion", "assertion: x == 1 failed", "assertion: x == 1 failed"},
		{"data-race", "data race on x: …", "data-race: data race on x: …"},
	} {
		if got := Headline(c.kind, c.msg); got != c.want {
			t.Errorf("Headline(%q, %q) = %q, want %q", c.kind, c.msg, got, c.want)
		}
	}
}

func TestRaceWith(t *testing.T) {
	for _, c := range []struct {
		msg, thread string
		line        int
		want        string
	}{
		{"data race on x: write of x by w and read of x by r are not ordered by synchronisation", "w", 10,
			"data race on x with w at line 10: write of x by w and read of x by r are not ordered by synchronisation"},
		{"a race", "w", 3, "a race (the other access: line 3, by w)"},
	} {
		if got := RaceWith(c.msg, c.thread, c.line); got != c.want {
			t.Errorf("RaceWith(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
}
