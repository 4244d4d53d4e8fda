package replay

import (
	"fmt"
	"strings"
)

// Headline says a bug as "kind: message" with its kind said once: a
// deadlock's message already starts with "deadlock: ", and "deadlock:
// deadlock: …" said it twice.
func Headline(kind, message string) string {
	if strings.HasPrefix(message, kind+": ") {
		return message
	}
	return kind + ": " + message
}

// RaceWith names a data race's other access in the race's message: "data
// race on x: write of x by w and read of x by r …" becomes "data race on
// x with w at line 10: write of x by w and read of x by r …", so that two
// races reported at one access whose other accesses are on different
// lines read differently. line is 1-based. A message of another form gets
// the other access appended.
func RaceWith(message, thread string, line int) string {
	if race, rest, ok := strings.Cut(message, ": "); ok {
		return fmt.Sprintf("%s with %s at line %d: %s", race, thread, line, rest)
	}
	return fmt.Sprintf("%s (the other access: line %d, by %s)", message, line, thread)
}
