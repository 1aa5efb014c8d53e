package fileutil

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.bin")
	os.WriteFile(small, []byte("12345678"), 0o644)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	bomb := filepath.Join(dir, "bomb.bin.gz")
	os.WriteFile(bomb, gz.Bytes(), 0o644)
	for _, tc := range []struct {
		name   string
		read   func() ([]byte, error)
		n      int
		tooBig bool
		want   string
	}{
		{"fits", func() ([]byte, error) { return ReadFile(small, 8) }, 8, false, ""},
		{"regular file over the limit, by its size", func() ([]byte, error) { return ReadFile(small, 7) }, 0, true, "small.bin: larger than 7 bytes"},
		{"device over the limit", func() ([]byte, error) { return ReadFile("/dev/zero", 100) }, 0, true, "/dev/zero: larger than 100 bytes"},
		{"default limit", func() ([]byte, error) { return ReadFile(small, 0) }, 8, false, ""},
		{"gzip within the limit", func() ([]byte, error) { return ReadMaybeGzip(bomb, 1<<20) }, 1 << 20, false, ""},
		{"gzip bomb", func() ([]byte, error) { return ReadMaybeGzip(bomb, 64<<10) }, 0, true, "larger than 64 KiB (decompressed; a compression bomb?)"},
	} {
		b, err := tc.read()
		var big *TooLargeError
		if got := errors.As(err, &big); got != tc.tooBig {
			t.Errorf("%s: TooLargeError %v, want %v (err %v)", tc.name, got, tc.tooBig, err)
		}
		if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if err == nil && len(b) != tc.n {
			t.Errorf("%s: %d bytes, want %d", tc.name, len(b), tc.n)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}

func ExampleReadFile() {
	_, err := ReadFile("/dev/zero", 16)
	fmt.Println(err)
	// Output: /dev/zero: larger than 16 bytes
}
