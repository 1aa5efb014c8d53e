package numfmt

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tcsim/tcsim/internal/provenance"
)

// Mismatch is one case where recorded outputs and the model disagree.
type Mismatch struct {
	Case   int      `json:"case"`
	Inputs []uint64 `json:"inputs"`
	Got    uint64   `json:"got"`  // recorded (hardware)
	Want   uint64   `json:"want"` // model
}

// String formats the mismatch with the inputs in hex.
func (m Mismatch) String() string {
	var in []string
	for _, x := range m.Inputs {
		in = append(in, fmt.Sprintf("%#x", x))
	}
	return fmt.Sprintf("case %d: inputs %s: hardware %#x, model %#x", m.Case, strings.Join(in, " "), m.Got, m.Want)
}

// CheckResult is the outcome of comparing a probe's outputs with the model.
type CheckResult struct {
	Name       string
	N          int        // cases compared
	Mismatches int        // how many differ
	Samples    []Mismatch // the first few
}

// MaxSamples is how many mismatches a CheckResult keeps.
const MaxSamples = 16

// Check compares outputs (N elements of OutBytes, as the kernel wrote them)
// with the model.
func (p *Probe) Check(got []byte) (*CheckResult, error) {
	return p.checkPrefix(got, p.N)
}

func (p *Probe) checkPrefix(got []byte, n int) (*CheckResult, error) {
	if n > p.Cases {
		return nil, fmt.Errorf("%s: checking %d cases of a probe built with %d", p.Name, n, p.Cases)
	}
	if len(got) != n*p.OutBytes {
		return nil, fmt.Errorf("%s: %d output bytes, want %d (%d cases of %d bytes)", p.Name, len(got), n*p.OutBytes, n, p.OutBytes)
	}
	res := &CheckResult{Name: p.Name, N: n}
	for i := range n {
		in := p.CaseInputs(i)
		want, _, err := p.Spec.eval(in, false)
		if err != nil {
			return nil, fmt.Errorf("%s case %d: %w", p.Name, i, err)
		}
		g := getLE(got[i*p.OutBytes:], p.OutBytes)
		if g != want {
			res.Mismatches++
			if len(res.Samples) < MaxSamples {
				res.Samples = append(res.Samples, Mismatch{Case: i, Inputs: in, Got: g, Want: want})
			}
		}
	}
	return res, nil
}

// Record is the stored hardware result of one probe: enough to regenerate
// its inputs (the spec and options), the SHA-256 of the whole output
// buffer, and the outputs of the first Stored cases (all of them for
// exhaustive sets; the edge cases and the first random ones otherwise).
type Record struct {
	Spec       string `json:"spec"`
	Target     string `json:"target"`
	PTXVersion int    `json:"ptx_version"`
	Set        string `json:"set"`
	Seed       uint64 `json:"seed"`
	Random     int    `json:"random"`
	N          int    `json:"n"`
	Edges      int    `json:"edges"`
	OutBytes   int    `json:"out_bytes"`
	SHA256     string `json:"sha256"`
	Stored     int    `json:"stored"`
	// Mismatches is how many cases the model got wrong when recorded.
	Mismatches int                   `json:"mismatches"`
	Provenance provenance.Provenance `json:"provenance,omitzero"`
	// Outputs holds the first Stored outputs, OutBytes each.
	Outputs []byte `json:"-"`
}

// storesAll says whether a record keeps every output: for exhaustive sets
// of 8-bit inputs, and of 16-bit float inputs converted to floats (the
// conversion tables worth reading); other records keep the edge cases and
// StoredRandom more, and the SHA-256 of the whole buffer covers the rest.
func storesAll(p *Probe) bool {
	if p.Set == EdgesRandom {
		return false
	}
	return p.N <= 256 || (p.Spec.Src.Elem.Kind == FloatKind && p.Spec.Dst.Elem.Kind == FloatKind)
}

// StoredRandom is how many random cases after the edge cases a Record keeps.
const StoredRandom = 4096

// NewRecord makes the record of a probe's hardware outputs.
func NewRecord(p *Probe, out []byte, mismatches int, prov provenance.Provenance) *Record {
	sum := sha256.Sum256(out)
	r := &Record{Spec: p.Spec.String(), Target: p.Target, PTXVersion: p.PTXVersion, Set: p.Set,
		Seed: p.Options.Seed, Random: p.Options.Random, N: p.N, Edges: p.Edges, OutBytes: p.OutBytes,
		SHA256: hex.EncodeToString(sum[:]), Mismatches: mismatches, Provenance: prov}
	r.Stored = p.N
	if !storesAll(p) {
		r.Stored = min(p.N, p.Edges+StoredRandom)
	}
	r.Outputs = append([]byte(nil), out[:r.Stored*p.OutBytes]...)
	return r
}

// Probe regenerates the record's probe; prefix > 0 builds only the first
// prefix cases.
func (r *Record) Probe(prefix int) (*Probe, error) {
	s, err := ParseSpec(r.Spec)
	if err != nil {
		return nil, err
	}
	p, err := NewProbe(s, ProbeOptions{Random: r.Random, Seed: r.Seed, Target: r.Target, Prefix: prefix})
	if err != nil {
		return nil, err
	}
	if p.N != r.N || p.Edges != r.Edges || p.OutBytes != r.OutBytes || p.Set != r.Set {
		return nil, fmt.Errorf("%s: the regenerated probe has %d cases (%d edges, %d-byte outputs, %s); the record has %d (%d, %d, %s): the input generator changed since it was recorded",
			r.Spec, p.N, p.Edges, p.OutBytes, p.Set, r.N, r.Edges, r.OutBytes, r.Set)
	}
	return p, nil
}

// Replay checks the record against the model: the stored outputs case by
// case and, when every output is stored or full is set, the SHA-256 of the
// whole output buffer (recomputed by the model when not stored) against the
// recorded one. hashChecked says whether the hash was compared.
func (r *Record) Replay(full bool) (res *CheckResult, hashChecked, hashOK bool, err error) {
	prefix := r.Stored
	if full {
		prefix = 0
	}
	p, err := r.Probe(prefix)
	if err != nil {
		return nil, false, false, err
	}
	res, err = p.checkPrefix(r.Outputs, r.Stored)
	if err != nil {
		return nil, false, false, err
	}
	if r.Stored == r.N {
		// Every output is stored and was compared: the hash only guards
		// the file's integrity.
		sum := sha256.Sum256(r.Outputs)
		return res, true, hex.EncodeToString(sum[:]) == r.SHA256, nil
	}
	if !full {
		return res, false, false, nil
	}
	want, err := p.Expected()
	if err != nil {
		return nil, false, false, err
	}
	sum := sha256.Sum256(want)
	return res, true, hex.EncodeToString(sum[:]) == r.SHA256, nil
}

// WriteRecords writes records as one gzip stream: for each, a JSON line
// then its stored outputs.
func WriteRecords(w io.Writer, recs []*Record) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	for _, r := range recs {
		hdr, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if len(r.Outputs) != r.Stored*r.OutBytes {
			return fmt.Errorf("record %s: %d output bytes for %d stored cases of %d bytes", r.Spec, len(r.Outputs), r.Stored, r.OutBytes)
		}
		zw.Write(hdr)
		zw.Write([]byte{'\n'})
		if _, err := zw.Write(r.Outputs); err != nil {
			return err
		}
	}
	return zw.Close()
}

// ReadRecords reads what WriteRecords wrote.
func ReadRecords(rd io.Reader) ([]*Record, error) {
	zr, err := gzip.NewReader(rd)
	if err != nil {
		return nil, fmt.Errorf("reading records: %w", err)
	}
	br := bufio.NewReaderSize(zr, 1<<16)
	var recs []*Record
	for {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) && len(bytes.TrimSpace(line)) == 0 {
			return recs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading record %d: %w", len(recs)+1, err)
		}
		r := &Record{}
		if err := json.Unmarshal(line, r); err != nil {
			return nil, fmt.Errorf("record %d: bad header: %w", len(recs)+1, err)
		}
		if r.Stored < 0 || r.OutBytes <= 0 || r.OutBytes > 8 || r.Stored > 1<<26 {
			return nil, fmt.Errorf("record %d (%s): bad sizes (stored %d, out_bytes %d)", len(recs)+1, r.Spec, r.Stored, r.OutBytes)
		}
		r.Outputs = make([]byte, r.Stored*r.OutBytes)
		if _, err := io.ReadFull(br, r.Outputs); err != nil {
			return nil, fmt.Errorf("record %d (%s): short outputs: %w", len(recs)+1, r.Spec, err)
		}
		recs = append(recs, r)
	}
}
