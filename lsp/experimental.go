package lsp

import (
	"encoding/json"
)

// weftCaps are what a client opts in to through its experimental client
// capabilities, {"experimental": {"weftStatus": true, "weftReplay": true}}
// (as rust-analyzer's clients opt in to its server-status notification):
// what only a client that knows Weft can use.
type weftCaps struct {
	// status: the client handles Weft's custom notifications
	// (weft/status). A client that does not say so gets none: lsp-mode,
	// for one, warns about every notification it does not know.
	status bool
	// replay: the client shows the counterexample document weft.replay
	// answers itself (the VS Code extension replays it in the debugger).
	// For any other client the command also writes the counterexample
	// as text and asks the client to show it (see showReplay).
	replay bool
}

// readWeftCaps reads the experimental client capabilities; anything else
// there (or nothing) opts in to nothing.
func readWeftCaps(raw []byte) weftCaps {
	var x struct {
		WeftStatus bool `json:"weftStatus"`
		WeftReplay bool `json:"weftReplay"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &x) != nil {
		return weftCaps{}
	}
	return weftCaps{status: x.WeftStatus, replay: x.WeftReplay}
}
