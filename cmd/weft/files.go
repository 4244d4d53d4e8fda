package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"weft/replay"
)

// maxFileSize bounds the models weft reads: a model is a few hundred
// lines; anything past this is not a model.
const maxFileSize = replay.MaxModelSize

// modelExt is the extension of model files, which directories and
// patterns select.
const modelExt = ".weft"

// expandArgs turns the command line's positional arguments into model
// files, as Go's tools do with packages:
//
//   - a file names itself (whatever its extension);
//   - a directory names the .weft files directly in it;
//   - DIR/... names the .weft files in DIR and every directory below it,
//     except directories named testdata or starting with "." or "_".
//
// A directory or pattern that names no file is an error; errors do not
// stop the expansion of the other arguments. An argument that does not
// exist is passed on as a file (reading it says so). Each file is listed once, in the order given (files of
// a directory sorted).
func expandArgs(args []string) (files []string, errs []error) {
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for _, arg := range args {
		var found []string
		var err error
		switch {
		case arg == "..." || strings.HasSuffix(arg, "/..."):
			root := strings.TrimSuffix(strings.TrimSuffix(arg, "..."), "/")
			if root == "" {
				root = "."
			}
			found, err = walkModels(root)
		default:
			var st os.FileInfo
			st, err = os.Stat(arg)
			switch {
			case err == nil && st.IsDir():
				found, err = dirModels(arg)
			default:
				found, err = []string{arg}, nil
			}
		}
		if err == nil && len(found) == 0 {
			err = fmt.Errorf("%s: no %s files", arg, modelExt)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range found {
			add(f)
		}
	}
	return files, errs
}

// dirModels lists the model files directly in dir.
func dirModels(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), modelExt) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// walkModels lists the model files in root and below it.
func walkModels(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), modelExt) {
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// readModel reads a model from a regular file of at most maxFileSize
// bytes: a FIFO, a device or a directory is refused before it is opened
// (a FIFO would block the open until some writer came, /dev/zero would
// read without end), as every command that reads a model does.
func readModel(path string) ([]byte, error) {
	return replay.ReadModel(path)
}

// readLimited reads r up to the model size limit (a file can grow between
// the stat and the read; stdin has no size).
func readLimited(r io.Reader, name string) ([]byte, error) {
	buf, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if len(buf) > maxFileSize {
		return nil, fmt.Errorf("%s: more than %d bytes; models are limited to that", name, maxFileSize)
	}
	return buf, nil
}

// namesOneFile reports whether a command-line argument names one file
// (not a directory or a pattern).
func namesOneFile(arg string) bool {
	if arg == "..." || strings.HasSuffix(arg, "/...") {
		return false
	}
	st, err := os.Stat(arg)
	return err != nil || !st.IsDir()
}
