package sfu

import (
	"bufio"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"sort"

	"github.com/tcsim/tcsim/internal/provenance"
)

// A HashRecord is what a GPU (an H100 or H200, as its Provenance says)
// computed for one form over one domain: the hash of every chunk of
// 2^ChunkBits inputs. It is independent of the model, which is checked
// against it chunk by chunk.
type HashRecord struct {
	Op         string                `json:"op"`
	Domain     string                `json:"domain"`
	Bits       int                   `json:"bits"`
	ChunkBits  int                   `json:"chunk_bits"`
	Hashes     []uint64              `json:"-"`
	HashesB64  string                `json:"hashes"` // little-endian u64s, base64
	Provenance provenance.Provenance `json:"provenance"`
	// At record time: the chunks where the model disagreed, and the
	// per-input agreement measured on them.
	Agreement *Agreement `json:"agreement,omitempty"`
}

// Agreement counts how a model's results compare with the hardware's.
type Agreement struct {
	Inputs     uint64 `json:"inputs"`             // inputs compared
	Mismatches uint64 `json:"mismatches"`         // results that differ
	NaNDiff    uint64 `json:"nan_diff,omitempty"` // of those, where one side is NaN
	MaxULP     uint64 `json:"max_ulp"`            // largest difference in units in the last place
	Chunks     int    `json:"chunks_differing"`   // chunks whose hash differs
	// ComparedChunks of the differing chunks were compared input by input
	// (Compared inputs); the counts above cover those.
	ComparedChunks int    `json:"chunks_compared,omitempty"`
	Compared       uint64 `json:"compared,omitempty"`
}

// Add merges b into a.
func (a *Agreement) Add(b Agreement) {
	a.Inputs += b.Inputs
	a.Mismatches += b.Mismatches
	a.NaNDiff += b.NaNDiff
	a.MaxULP = max(a.MaxULP, b.MaxULP)
	a.Chunks += b.Chunks
}

// String is "exact" or e.g. "99.99930% of 2^32 inputs, max 1 ulp".
func (a Agreement) String() string {
	if a.Chunks == 0 && a.Mismatches == 0 {
		return "exact"
	}
	var s string
	if a.ComparedChunks < a.Chunks {
		// a sample of the differing chunks was compared
		pct := 100 * float64(a.Compared-a.Mismatches) / float64(max(a.Compared, 1))
		s = fmt.Sprintf("%d chunks differ; in %d of them, compared input by input, %.4f%% of %d inputs agree, max %d ulp", a.Chunks, a.ComparedChunks, pct, a.Compared, a.MaxULP)
	} else {
		pct := 100 * float64(a.Inputs-a.Mismatches) / float64(a.Inputs)
		s = fmt.Sprintf("%.5f%% of %s inputs agree, %d differ, max %d ulp", pct, pow2(a.Inputs), a.Mismatches, a.MaxULP)
	}
	if a.NaNDiff > 0 {
		s += fmt.Sprintf(" (%d NaN/number)", a.NaNDiff)
	}
	return s
}

func pow2(n uint64) string {
	if n != 0 && n&(n-1) == 0 {
		return fmt.Sprintf("2^%d", bits.TrailingZeros64(n))
	}
	return fmt.Sprint(n)
}

// ULP is the distance between two results in units in the last place
// (per lane for packed forms, the larger), and whether exactly one is NaN.
func (f *Form) ULP(x, y uint64) (uint64, bool) {
	switch f.Kind {
	case Unary16:
		return ulpDist(x, y, 16, f.Half() == "bf16")
	case Unary16x2:
		u0, n0 := ulpDist(x&0xFFFF, y&0xFFFF, 16, f.Half() == "bf16")
		u1, n1 := ulpDist(x>>16&0xFFFF, y>>16&0xFFFF, 16, f.Half() == "bf16")
		return max(u0, u1), n0 || n1
	case Unary64:
		return ulpDist(x, y, 64, false)
	}
	return ulpDist(x, y, 32, false)
}

func ulpDist(x, y uint64, w int, bf bool) (uint64, bool) {
	if x == y {
		return 0, false
	}
	var expMask, manMask uint64
	switch {
	case w == 64:
		expMask, manMask = 0x7FF<<52, 1<<52-1
	case w == 32:
		expMask, manMask = 0xFF<<23, 1<<23-1
	case bf:
		expMask, manMask = 0xFF<<7, 1<<7-1
	default:
		expMask, manMask = 0x1F<<10, 1<<10-1
	}
	nan := func(v uint64) bool { return v&expMask == expMask && v&manMask != 0 }
	if nan(x) || nan(y) {
		if nan(x) && nan(y) {
			return 1, false
		}
		return 1 << 62, true
	}
	sign := uint64(1) << (w - 1)
	ord := func(v uint64) int64 {
		if v&sign != 0 {
			return -int64(v &^ sign)
		}
		return int64(v)
	}
	d := ord(x) - ord(y)
	if d < 0 {
		d = -d
	}
	return uint64(d), false
}

// Compare compares the model with hardware results hw on inputs a, b.
func (f *Form) Compare(a, b, hw []uint64, bad func(i int, model uint64)) Agreement {
	var ag Agreement
	for i := range hw {
		var bb uint64
		if b != nil {
			bb = b[i]
		}
		m := f.Eval(a[i], bb)
		ag.Inputs++
		if m != hw[i] {
			ag.Mismatches++
			u, nan := f.ULP(m, hw[i])
			if nan {
				ag.NaNDiff++
			} else {
				ag.MaxULP = max(ag.MaxULP, u)
			}
			if bad != nil {
				bad(i, m)
			}
		}
	}
	return ag
}

// WriteHashRecords writes records as gzip'd JSON lines.
func WriteHashRecords(w io.Writer, recs []*HashRecord) error {
	zw := gzip.NewWriter(w)
	enc := json.NewEncoder(zw)
	for _, r := range recs {
		raw := make([]byte, 8*len(r.Hashes))
		for i, h := range r.Hashes {
			binary.LittleEndian.PutUint64(raw[8*i:], h)
		}
		r.HashesB64 = base64.StdEncoding.EncodeToString(raw)
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return zw.Close()
}

// ReadHashRecords reads what WriteHashRecords wrote.
func ReadHashRecords(r io.Reader) ([]*HashRecord, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	var out []*HashRecord
	for line := 1; sc.Scan(); line++ {
		rec := &HashRecord{}
		if err := json.Unmarshal(sc.Bytes(), rec); err != nil {
			return nil, fmt.Errorf("record %d: %w", line, err)
		}
		raw, err := base64.StdEncoding.DecodeString(rec.HashesB64)
		if err != nil || len(raw)%8 != 0 {
			return nil, fmt.Errorf("record %d (%s): bad hashes", line, rec.Op)
		}
		if rec.Bits < 1 || rec.Bits > 32 || rec.ChunkBits < 1 || rec.ChunkBits > rec.Bits || len(raw)/8 != 1<<(rec.Bits-rec.ChunkBits) {
			return nil, fmt.Errorf("record %d (%s): %d hashes do not fit %d-bit domain in %d-bit chunks", line, rec.Op, len(raw)/8, rec.Bits, rec.ChunkBits)
		}
		rec.Hashes = make([]uint64, len(raw)/8)
		for i := range rec.Hashes {
			rec.Hashes[i] = binary.LittleEndian.Uint64(raw[8*i:])
		}
		rec.HashesB64 = ""
		out = append(out, rec)
	}
	return out, sc.Err()
}

// DomainNamed returns the form's domain with the given name.
func (f *Form) DomainNamed(name string) (Domain, bool) {
	for _, d := range f.Domains() {
		if d.Name == name {
			return d, true
		}
	}
	return Domain{}, false
}

// ChunkInputs returns the operands of chunk c of d.
func (d Domain) ChunkInputs(c int) (a, b []uint64) {
	n := 1 << d.ChunkBits()
	a, b = make([]uint64, n), make([]uint64, n)
	base := uint32(c) << d.ChunkBits()
	for k := range n {
		a[k], b[k] = d.Input(base + uint32(k))
	}
	return a, b
}

// LoadHashRecords reads a record file, or every *.jsonl.gz file of a
// directory (sorted by name).
func LoadHashRecords(path string) ([]*HashRecord, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("no recorded approximate-math campaign at %s: %w", path, err)
	}
	files := []string{path}
	if st.IsDir() {
		if files, err = filepath.Glob(filepath.Join(path, "*.jsonl.gz")); err != nil || len(files) == 0 {
			return nil, fmt.Errorf("no *.jsonl.gz records under %s", path)
		}
		sort.Strings(files)
	}
	var out []*HashRecord
	for _, fn := range files {
		f, err := os.Open(fn)
		if err != nil {
			return nil, err
		}
		recs, err := ReadHashRecords(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fn, err)
		}
		out = append(out, recs...)
	}
	return out, nil
}
