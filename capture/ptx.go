package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/tcsim/tcsim/internal/demangle"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// FatbinEntry is one entry of a fatbin container.
type FatbinEntry struct {
	Kind       int // 1 PTX, 2 ELF (cubin)
	Arch       int // e.g. 90
	Compressed bool
	Data       []byte // the payload as stored (compressed or not)
}

const (
	fatbinMagic        = 0xba55ed50
	fatbinWrapperMagic = 0x466243b1
	maxFatbinEntries   = 1 << 16
)

// ParseFatbin lists the entries of the fatbin containers in b (one after
// another, as in an .nv_fatbin section).
func ParseFatbin(b []byte) ([]FatbinEntry, error) {
	var out []FatbinEntry
	for off := 0; off+16 <= len(b); {
		if binary.LittleEndian.Uint32(b[off:]) != fatbinMagic {
			if len(out) == 0 {
				return nil, fmt.Errorf("not a fatbin (magic %#x at byte %d)", binary.LittleEndian.Uint32(b[off:]), off)
			}
			break
		}
		hs := int(binary.LittleEndian.Uint16(b[off+6:]))
		fs := binary.LittleEndian.Uint64(b[off+8:])
		end := uint64(off) + uint64(hs) + fs
		if hs < 16 || end > uint64(len(b)) {
			return out, fmt.Errorf("fatbin container at byte %d: %d bytes, past the end of the %d-byte image", off, uint64(hs)+fs, len(b))
		}
		for e := off + hs; e+64 <= int(end); {
			kind := int(binary.LittleEndian.Uint16(b[e:]))
			size := int(binary.LittleEndian.Uint32(b[e+4:]))
			aligned := int(binary.LittleEndian.Uint32(b[e+8:]))
			dsize := int(binary.LittleEndian.Uint32(b[e+16:]))
			arch := int(binary.LittleEndian.Uint32(b[e+28:]))
			flags := binary.LittleEndian.Uint64(b[e+40:])
			if size < 64 || e+size+dsize > int(end) || dsize > aligned+8 || len(out) >= maxFatbinEntries {
				return out, fmt.Errorf("fatbin entry at byte %d: header of %d bytes with %d bytes of data does not fit", e, size, dsize)
			}
			data := b[e+size : e+size+dsize]
			comp := flags&0x8000 != 0 || flags&0x2000 != 0 ||
				(len(data) >= 4 && binary.LittleEndian.Uint32(data) == 0xfd2fb528)
			out = append(out, FatbinEntry{Kind: kind, Arch: arch, Compressed: comp, Data: data})
			e += size + aligned
		}
		off = int(end)
		off = (off + 7) &^ 7
	}
	return out, nil
}

// ExtractPTX finds the PTX of every image recorded under rawDir/images and
// writes it into images/<image>.d/: from uncompressed fatbin entries
// directly, from compressed ones with cuobjdump, and for cubins (Triton
// and Inductor load those) from the identical cubin in one of the cache
// directories, whose sibling .ptx is the kernel's PTX. source.txt there
// says where the PTX came from, or why there is none.
func ExtractPTX(rawDir string, caches []string, logw io.Writer) error {
	if logw == nil {
		logw = io.Discard
	}
	imgs, err := filepath.Glob(filepath.Join(rawDir, "images", "*"))
	if err != nil {
		return err
	}
	var cubins map[int64][]string // size -> cache cubins, built on first need
	for _, img := range imgs {
		st, err := os.Stat(img)
		if err != nil || st.IsDir() {
			continue
		}
		d := img + ".d"
		if _, err := os.Stat(d); err == nil {
			continue // done before
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		var source string
		switch filepath.Ext(img) {
		case ".fatbin":
			source = fatbinPTX(img, d)
		case ".cubin":
			if cubins == nil {
				cubins = indexCubins(caches)
			}
			source = cachePTX(img, d, st.Size(), cubins)
		default:
			continue
		}
		if err := os.WriteFile(filepath.Join(d, "source.txt"), []byte(source+"\n"), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(logw, "tcsim capture: %s: %s\n", filepath.Base(img), source)
	}
	return nil
}

func fatbinPTX(img, d string) string {
	b, err := os.ReadFile(img)
	if err != nil {
		return "no PTX: " + err.Error()
	}
	ents, perr := ParseFatbin(b)
	var elfArchs []string
	nptx, compressed := 0, 0
	for _, e := range ents {
		switch {
		case e.Kind == 1 && e.Compressed:
			compressed++
		case e.Kind == 1:
			nptx++
			name := fmt.Sprintf("entry%d.compute_%d.ptx", nptx, e.Arch)
			os.WriteFile(filepath.Join(d, name), bytes.TrimRight(e.Data, "\x00"), 0o644)
		default:
			elfArchs = append(elfArchs, fmt.Sprintf("sm_%d", e.Arch))
		}
	}
	if compressed > 0 || perr != nil {
		if tool, err := exec.LookPath("cuobjdump"); err == nil {
			abs, _ := filepath.Abs(img)
			cmd := exec.Command(tool, "-xptx", "all", abs)
			cmd.Dir = d
			out, err := cmd.CombinedOutput()
			if err != nil {
				return fmt.Sprintf("no PTX: cuobjdump -xptx all failed: %v: %s", err, strings.TrimSpace(string(out)))
			}
			ptxs, _ := filepath.Glob(filepath.Join(d, "*.ptx"))
			if len(ptxs) > 0 {
				return fmt.Sprintf("fatbin: %d PTX entries extracted with cuobjdump -xptx all", len(ptxs))
			}
		} else if nptx == 0 {
			return fmt.Sprintf("no PTX: %d compressed PTX entries and no cuobjdump on PATH to decompress them", compressed)
		}
	}
	if nptx > 0 {
		return fmt.Sprintf("fatbin: %d uncompressed PTX entries", nptx)
	}
	if perr != nil {
		return "no PTX: " + perr.Error()
	}
	return "no PTX: the fatbin holds SASS only (" + strings.Join(elfArchs, ", ") + ")"
}

// indexCubins lists the .cubin files of the caches by size.
func indexCubins(caches []string) map[int64][]string {
	idx := map[int64][]string{}
	for _, c := range caches {
		filepath.WalkDir(c, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if !d.IsDir() && strings.HasSuffix(path, ".cubin") {
				if st, err := d.Info(); err == nil {
					idx[st.Size()] = append(idx[st.Size()], path)
				}
			}
			return nil
		})
	}
	return idx
}

func cachePTX(img, d string, size int64, cubins map[int64][]string) string {
	want, err := os.ReadFile(img)
	if err != nil {
		return "no PTX: " + err.Error()
	}
	for _, c := range cubins[size] {
		got, err := os.ReadFile(c)
		if err != nil || !bytes.Equal(got, want) {
			continue
		}
		ptx := strings.TrimSuffix(c, ".cubin") + ".ptx"
		src, err := os.ReadFile(ptx)
		if err != nil {
			return fmt.Sprintf("no PTX: the identical cubin %s has no %s beside it", c, filepath.Base(ptx))
		}
		if err := os.WriteFile(filepath.Join(d, filepath.Base(ptx)), src, 0o644); err != nil {
			return "no PTX: " + err.Error()
		}
		return "cubin: PTX from the compiler cache, " + ptx
	}
	return "no PTX: a cubin found in no Triton or Inductor cache (SASS only)"
}

var entryRE = regexp.MustCompile(`(?m)^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$%][\w$%]*)`)

// PTXFile is a candidate PTX module for a launch.
type PTXFile struct {
	Path   string
	Source string // where it came from
}

// FindPTX returns the PTX module that defines the launch's kernel.
func FindPTX(rawDir string, l *RawLaunch) ([]byte, string, error) {
	var cands []PTXFile
	img := ""
	if l.Image != "" {
		img = filepath.Join(rawDir, filepath.FromSlash(l.Image))
	}
	switch {
	case l.Image != "" && (l.ImageKind == "ptx" || strings.HasSuffix(l.Image, ".ptx")):
		cands = append(cands, PTXFile{img, "the PTX module the program loaded"})
	case l.Image != "":
		src := "the module image"
		if b, err := os.ReadFile(filepath.Join(img+".d", "source.txt")); err == nil {
			src = strings.TrimSpace(string(b))
		}
		ps, _ := filepath.Glob(filepath.Join(img+".d", "*.ptx"))
		sort.Strings(ps)
		for _, p := range ps {
			cands = append(cands, PTXFile{p, src})
		}
	}
	exe := filepath.Join(rawDir, fmt.Sprintf("exe-%d.d", l.PID))
	if ps, _ := filepath.Glob(filepath.Join(exe, "*.ptx")); len(ps) > 0 {
		src := "the program's executable"
		if b, err := os.ReadFile(filepath.Join(exe, "source.txt")); err == nil {
			src = strings.TrimSpace(string(b))
		}
		sort.Strings(ps)
		for _, p := range ps {
			cands = append(cands, PTXFile{p, src})
		}
	}
	if a := l.Annotation; a != nil && a.PTX != "" {
		cands = append(cands, PTXFile{filepath.Join(rawDir, filepath.FromSlash(a.PTX)), "Triton's compiled kernel (" + a.KernelHash + ")"})
	}
	var best []byte
	var bestSrc string
	bestRank := -1
	for _, c := range cands {
		b, err := os.ReadFile(c.Path)
		if err != nil {
			continue
		}
		found := false
		for _, m := range entryRE.FindAllSubmatch(b, -1) {
			if string(m[1]) == l.Kernel {
				found = true
				break
			}
		}
		if !found {
			continue
		}
		rank := 1
		if bytes.Contains(b, []byte(".target sm_90a")) || bytes.Contains(b, []byte(".target sm_100a")) {
			rank = 2
		}
		if rank > bestRank {
			best, bestSrc, bestRank = b, c.Source+" ("+filepath.Base(c.Path)+")", rank
		}
	}
	if best != nil {
		return best, bestSrc, nil
	}
	why := "the program's module image was not seen (loaded before the interposer, or through an API it does not watch)"
	if l.Image != "" {
		why = "no PTX in the module image"
		if b, err := os.ReadFile(filepath.Join(img+".d", "source.txt")); err == nil {
			why = strings.TrimSpace(string(b))
		}
		if len(cands) > 0 {
			why = fmt.Sprintf("%d PTX module(s) found, none defines .entry %s", len(cands), l.Kernel)
		}
	}
	return nil, "", &NoPTXError{Kernel: l.Kernel, Why: why}
}

// NoPTXError says that a launched kernel has no PTX to simulate.
type NoPTXError struct {
	Kernel, Why string
}

func (e *NoPTXError) Error() string {
	return fmt.Sprintf("kernel %s has no PTX: %s. Rebuild with PTX embedded, e.g. nvcc -gencode arch=compute_90a,code=[sm_90a,compute_90a] (the compute_90a in code= keeps the PTX)", shortName(e.Kernel), e.Why)
}

// IsNoPTX reports whether err is a NoPTXError.
func IsNoPTX(err error) bool {
	var e *NoPTXError
	return errors.As(err, &e)
}

func shortName(s string) string { return demangle.Short(s) }
