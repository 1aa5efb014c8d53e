package input

import (
	"fmt"
	"os"
	"strings"

	"github.com/tcsim/tcsim/internal/fileutil"
	"github.com/tcsim/tcsim/isa/tensormap"
)

// MaxDescriptorFile bounds the files ReadDescriptor reads: a CUtensorMap
// is 128 bytes, its hex 256 digits (with word lists and blanks a few
// hundred more).
const MaxDescriptorFile = 1 << 16

// ReadDescriptor resolves a descriptor argument as tcsim desc reads one:
// the name of a file holding the 128 bytes of a CUtensorMap (or its hex,
// or a value as text), or else the text itself (ParseDescriptor).
func ReadDescriptor(arg string) (Descriptor, error) {
	name := strings.TrimSpace(arg)
	st, err := os.Stat(name)
	if err != nil || !st.Mode().IsRegular() {
		d, perr := ParseDescriptor(arg)
		if perr != nil && looksLikePath(name) {
			return d, fmt.Errorf("%q is neither a descriptor value nor a file that can be read (%v)", name, err)
		}
		return d, perr
	}
	data, err := fileutil.ReadFile(name, MaxDescriptorFile)
	if err != nil {
		return Descriptor{}, err
	}
	if len(data) == tensormap.Size {
		var b [tensormap.Size]byte
		copy(b[:], data)
		return Descriptor{TensorMap: &b}, nil
	}
	d, err := ParseDescriptor(string(data))
	if err != nil {
		return d, fmt.Errorf("%s: %d bytes: neither the 128 bytes of a CUtensorMap nor a descriptor in hex (%v)", name, len(data), err)
	}
	return d, nil
}

// looksLikePath reports whether a text that is not a value was probably
// meant as a file name.
func looksLikePath(s string) bool {
	return strings.ContainsAny(s, `/\`) || strings.Contains(s, ".") && !strings.HasPrefix(strings.ToLower(s), "0x")
}
