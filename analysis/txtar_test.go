package analysis_test

import (
	"bytes"
	"strings"
)

// A tiny reader and writer for the txtar format (as in
// golang.org/x/tools/txtar): a comment, then files, each introduced by a
// line "-- name --".

type archive struct {
	Comment []byte
	Files   []archiveFile
}

type archiveFile struct {
	Name string
	Data []byte
}

func parseArchive(data []byte) *archive {
	a := new(archive)
	var name string
	a.Comment, name, data = findFileMarker(data)
	for name != "" {
		f := archiveFile{Name: name}
		f.Data, name, data = findFileMarker(data)
		a.Files = append(a.Files, f)
	}
	return a
}

func formatArchive(a *archive) []byte {
	var buf bytes.Buffer
	buf.Write(fixNL(a.Comment))
	for _, f := range a.Files {
		buf.WriteString("-- " + f.Name + " --\n")
		buf.Write(fixNL(f.Data))
	}
	return buf.Bytes()
}

// findFileMarker returns the text before the next file marker, the marked
// name, and the text after the marker line.
func findFileMarker(data []byte) (before []byte, name string, after []byte) {
	var i int
	for {
		if name, after = isMarker(data[i:]); name != "" {
			return data[:i], name, after
		}
		j := bytes.Index(data[i:], []byte("\n-- "))
		if j < 0 {
			return fixNL(data), "", nil
		}
		i += j + 1
	}
}

func isMarker(data []byte) (name string, after []byte) {
	if !bytes.HasPrefix(data, []byte("-- ")) {
		return "", nil
	}
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data, after = data[:i], data[i+1:]
	}
	if !bytes.HasSuffix(data, []byte(" --")) || len(data) < len("-- x --") {
		return "", nil
	}
	return strings.TrimSpace(string(data[3 : len(data)-3])), after
}

func fixNL(data []byte) []byte {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return data
	}
	d := make([]byte, len(data)+1)
	copy(d, data)
	d[len(data)] = '\n'
	return d
}
