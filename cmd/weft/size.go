package main

import (
	"fmt"
	"strconv"
	"strings"

	"weft/engine"
)

// byteSize is a flag value of a number of bytes, written as an integer
// with an optional unit: B, KB, MB, GB, TB (powers of 1024; KiB, MiB,
// GiB, TiB and K, M, G, T mean the same), e.g. "512MB", "1.5GB".
type byteSize int64

var byteUnits = []struct {
	suffixes []string
	factor   float64
}{
	{[]string{"TIB", "TB", "T"}, 1 << 40},
	{[]string{"GIB", "GB", "G"}, 1 << 30},
	{[]string{"MIB", "MB", "M"}, 1 << 20},
	{[]string{"KIB", "KB", "K"}, 1 << 10},
	{[]string{"B"}, 1},
}

func (b *byteSize) Set(s string) error {
	t := strings.ToUpper(strings.TrimSpace(s))
	factor := 1.0
unit:
	for _, u := range byteUnits {
		for _, suf := range u.suffixes {
			if strings.HasSuffix(t, suf) {
				t, factor = strings.TrimSpace(strings.TrimSuffix(t, suf)), u.factor
				break unit
			}
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*factor > maxByteSize {
		return fmt.Errorf("want a size such as 512MB or 4GB, from %s", b.describeRange())
	}
	*b = byteSize(v * factor)
	return nil
}

// maxByteSize is the largest size a byteSize flag takes (4 EiB): the
// engine's largest memory budget (engine.MaxMaxMemory, OptionLimits).
const maxByteSize = engine.MaxMaxMemory

func (b *byteSize) describeRange() string {
	return "0 to " + strconv.FormatInt(maxByteSize>>40, 10) + "TB"
}

func (b *byteSize) String() string {
	if b == nil || *b == 0 {
		return "0"
	}
	v := int64(*b)
	for _, u := range byteUnits[:4] {
		if f := int64(u.factor); v%f == 0 {
			return strconv.FormatInt(v/f, 10) + u.suffixes[1]
		}
	}
	return strconv.FormatInt(v, 10) + "B"
}
