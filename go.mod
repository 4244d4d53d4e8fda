module weft

go 1.26

require (
	github.com/google/go-dap v0.12.0
	go.lsp.dev/jsonrpc2 v1.0.1
	go.lsp.dev/protocol v1.0.1
	go.lsp.dev/uri v1.0.1
	golang.org/x/tools v0.45.0
)

require github.com/go-json-experiment/json v0.0.0-20260623181947-01eb4420fa68 // indirect
