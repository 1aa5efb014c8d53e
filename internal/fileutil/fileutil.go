// Package fileutil reads input files with a bound on their size, so that a
// device (/dev/zero, /dev/urandom), a huge file or a compression bomb ends
// in one clear error instead of exhausting memory.
package fileutil

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
)

// DefaultLimit is the largest input tcsim reads when nothing else bounds
// it: 256 MiB, the size capture leaves buffers out above.
const DefaultLimit = 256 << 20

// TooLargeError says that an input holds more bytes than the limit.
type TooLargeError struct {
	Name  string
	Limit int64
	What  string // "" or what the limit is, e.g. "size=16"
}

func (e *TooLargeError) Error() string {
	if e.What != "" {
		if strings.HasPrefix(e.What, "the most") {
			return fmt.Sprintf("%s: larger than %s, %s", e.Name, Size(e.Limit), e.What)
		}
		return fmt.Sprintf("%s: larger than %s (%s)", e.Name, Size(e.Limit), e.What)
	}
	if e.Limit == DefaultLimit {
		return fmt.Sprintf("%s: larger than %s, the most tcsim reads from one input", e.Name, Size(e.Limit))
	}
	return fmt.Sprintf("%s: larger than %s", e.Name, Size(e.Limit))
}

// Size prints a byte count, in KiB, MiB or GiB when it is a whole number
// of them.
func Size(n int64) string {
	for _, u := range []struct {
		shift int
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadAll reads r up to limit bytes; more is a *TooLargeError naming name.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Name: name, Limit: limit}
	}
	return b, nil
}

// ReadFile reads the file name, which must hold at most limit bytes
// (limit <= 0: DefaultLimit). A regular file is checked by its size before
// anything is read; devices and pipes are read up to the limit.
func ReadFile(name string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
		return nil, &TooLargeError{Name: name, Limit: limit}
	}
	return ReadAll(f, name, limit)
}

// ReadMaybeGzip reads a file as ReadFile does, decompressing it when its
// name ends in .gz; limit bounds the decompressed bytes (and the
// compressed ones), so a compression bomb stops at the limit.
func ReadMaybeGzip(name string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	b, err := ReadFile(name, limit)
	if err != nil || !strings.HasSuffix(name, ".gz") {
		return b, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out, err := ReadAll(zr, name, limit)
	if err != nil {
		if tl, ok := err.(*TooLargeError); ok {
			tl.What = "decompressed; a compression bomb?"
			return nil, tl
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}
