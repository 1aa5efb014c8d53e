package sfu

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tcsim/tcsim/internal/provenance"
)

// A Dataset is a set of operands whose raw results a dump records: the
// data the unit's model is fitted to. Its operands are regenerated from
// the description, never stored.
type Dataset struct {
	Op string `json:"op"`
	// Gen is how operand i is made:
	//   range: a = Base + i*Step
	//   sample: a = Base + Mix64(Seed+i) mod Span (Span 0: all bits)
	//   pairs: (a, b) = the halves of Mix64(Seed+i) (division)
	//   one: a = 1.0, b = Base + Mix64(Seed+i) mod Span
	//   edge: (a, b) = EdgeValues()[i>>10], EdgeValues()[i&1023]
	Gen   string `json:"gen"`
	Base  uint64 `json:"base,omitempty"`
	Step  uint64 `json:"step,omitempty"`
	Span  uint64 `json:"span,omitempty"`
	Seed  uint64 `json:"seed,omitempty"`
	Count int    `json:"count"`
	Note  string `json:"note,omitempty"`
}

// Inputs regenerates the operands.
func (d *Dataset) Inputs() (a, b []uint64, err error) {
	f := Lookup(d.Op)
	if f == nil {
		return nil, nil, fmt.Errorf("dataset: unknown form %q", d.Op)
	}
	if d.Count < 0 || d.Count > 1<<26 {
		return nil, nil, fmt.Errorf("dataset %s: count %d out of range", d.Op, d.Count)
	}
	mask := ^uint64(0) >> (64 - 8*f.Kind.InBytes())
	a = make([]uint64, d.Count)
	if f.Kind == Binary32 {
		b = make([]uint64, d.Count)
	}
	for i := range a {
		r := Mix64(d.Seed + uint64(i))
		switch d.Gen {
		case "range":
			step := max(d.Step, 1)
			a[i] = (d.Base + uint64(i)*step) & mask
		case "sample":
			if d.Span != 0 {
				r %= d.Span
			}
			a[i] = (d.Base + r) & mask
		case "pairs":
			a[i], b[i] = r>>32, r&0xFFFFFFFF
		case "one":
			if d.Span != 0 {
				r %= d.Span
			}
			a[i], b[i] = 0x3F800000, (d.Base+r)&0xFFFFFFFF
		case "edge":
			e := edgeValues
			a[i], b[i] = uint64(e[i>>10&1023]), uint64(e[i&1023])
		default:
			return nil, nil, fmt.Errorf("dataset %s: unknown generator %q", d.Op, d.Gen)
		}
	}
	if f.Kind == Binary32 && d.Gen != "pairs" && d.Gen != "one" && d.Gen != "edge" {
		return nil, nil, fmt.Errorf("dataset %s: a division needs pairs, one or edge", d.Op)
	}
	return a, b, nil
}

// DumpHeader precedes a dataset's results in a dump file.
type DumpHeader struct {
	Dataset
	// Pred is what the stored residuals are relative to: "ref" (Reference),
	// "prev" (the previous result) or "raw" (zero).
	Pred string `json:"pred"`
	// Bytes is the payload's length.
	Bytes int `json:"bytes"`
	// Provenance says where the results were recorded (the GPU, driver,
	// ptxas, date and command); dumps written before it was kept have none.
	Provenance *provenance.Provenance `json:"provenance,omitempty"`
}

// EncodeDump returns one gzip member holding the dataset's results, with
// the residual predictor that compresses best.
func EncodeDump(d Dataset, a, b, out []uint64) ([]byte, error) {
	f := Lookup(d.Op)
	if f == nil {
		return nil, fmt.Errorf("unknown form %q", d.Op)
	}
	return encodeDump(DumpHeader{Dataset: d}, a, b, out)
}

// encodeDump is EncodeDump with the header's other fields (provenance).
func encodeDump(h DumpHeader, a, b, out []uint64) ([]byte, error) {
	f := Lookup(h.Op)
	if f == nil {
		return nil, fmt.Errorf("unknown form %q", h.Op)
	}
	var best []byte
	for _, pred := range []string{"ref", "prev", "raw"} {
		payload := residuals(f, pred, a, b, out)
		h.Pred, h.Bytes = pred, len(payload)
		m, err := gzipMember(h, payload)
		if err != nil {
			return nil, err
		}
		if best == nil || len(m) < len(best) {
			best = m
		}
	}
	return best, nil
}

func widthMask(f *Form) (uint64, int) {
	w := 8 * f.Kind.OutBytes()
	return ^uint64(0) >> (64 - w), w
}

func predict(f *Form, pred string, a, b []uint64, i int, out []uint64) uint64 {
	switch pred {
	case "ref":
		var bb uint64
		if b != nil {
			bb = b[i]
		}
		return Reference(f, a[i], bb)
	case "prev":
		if i > 0 {
			return out[i-1]
		}
	}
	return 0
}

func residuals(f *Form, pred string, a, b, out []uint64) []byte {
	mask, w := widthMask(f)
	var p []byte
	for i := range out {
		r := (out[i] - predict(f, pred, a, b, i, out)) & mask
		s := int64(r<<(64-w)) >> (64 - w)
		p = binary.AppendVarint(p, s)
	}
	return p
}

// A Dump is one decoded dataset.
type Dump struct {
	DumpHeader
	A, B, Out []uint64
}

// ReadDumps decodes every dataset of a dump file.
func ReadDumps(r io.Reader) ([]*Dump, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(zr)
	var out []*Dump
	for {
		n, err := binary.ReadUvarint(br)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil || n > 1<<16 {
			return nil, fmt.Errorf("dump: bad header length")
		}
		h := make([]byte, n)
		if _, err := io.ReadFull(br, h); err != nil {
			return nil, err
		}
		d := &Dump{}
		if err := json.Unmarshal(h, &d.DumpHeader); err != nil {
			return nil, fmt.Errorf("dump header: %w", err)
		}
		if d.Bytes < 0 || d.Bytes > 1<<30 {
			return nil, fmt.Errorf("dump %s: bad payload size", d.Op)
		}
		// read what is there (the header's size alone allocates nothing)
		payload, err := io.ReadAll(io.LimitReader(br, int64(d.Bytes)))
		if err != nil {
			return nil, err
		}
		if len(payload) != d.Bytes {
			return nil, fmt.Errorf("dump %s: payload cut short (%d of %d bytes)", d.Op, len(payload), d.Bytes)
		}
		if d.Count < 0 || d.Count > len(payload) {
			return nil, fmt.Errorf("dump %s: %d results cannot fit in %d bytes", d.Op, d.Count, len(payload))
		}
		f := Lookup(d.Op)
		if f == nil {
			return nil, fmt.Errorf("dump: unknown form %q", d.Op)
		}
		pr := bytes.NewReader(payload)
		if d.Gen == "explicit" {
			if d.Count < 0 || d.Count > len(payload) {
				return nil, fmt.Errorf("dump %s: bad count", d.Op)
			}
			d.A = make([]uint64, d.Count)
			if f.Kind == Binary32 {
				d.B = make([]uint64, d.Count)
			}
			for i := range d.A {
				if d.A[i], err = binary.ReadUvarint(pr); err == nil && d.B != nil {
					d.B[i], err = binary.ReadUvarint(pr)
				}
				if err != nil {
					return nil, fmt.Errorf("dump %s: operands: %w", d.Op, err)
				}
			}
		} else if d.A, d.B, err = d.Inputs(); err != nil {
			return nil, err
		}
		mask, _ := widthMask(f)
		d.Out = make([]uint64, d.Count)
		for i := range d.Out {
			s, err := binary.ReadVarint(pr)
			if err != nil {
				return nil, fmt.Errorf("dump %s: payload: %w", d.Op, err)
			}
			d.Out[i] = (predict(f, d.Pred, d.A, d.B, i, d.Out) + uint64(s)) & mask
		}
		out = append(out, d)
	}
}

// EncodeExplicit stores results with their operands (Gen "explicit"): the
// inputs where a model and the hardware differ.
func EncodeExplicit(f *Form, a, b, out []uint64) ([]byte, error) {
	return encodeExplicit(DumpHeader{Dataset: Dataset{Op: f.Op}}, a, b, out)
}

// encodeExplicit writes one "explicit" member; h gives the form, the note
// and the provenance.
func encodeExplicit(h DumpHeader, a, b, out []uint64) ([]byte, error) {
	f := Lookup(h.Op)
	if f == nil {
		return nil, fmt.Errorf("unknown form %q", h.Op)
	}
	var p []byte
	for i := range a {
		p = binary.AppendUvarint(p, a[i])
		if f.Kind == Binary32 {
			p = binary.AppendUvarint(p, b[i])
		}
	}
	p = append(p, residuals(f, "ref", a, b, out)...)
	h.Gen, h.Count, h.Pred, h.Bytes = "explicit", len(a), "ref", len(p)
	return gzipMember(h, p)
}

// gzipMember is one gzip member: the header's length, the header, the payload.
func gzipMember(h DumpHeader, payload []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	hj, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	var lb [binary.MaxVarintLen64]byte
	zw.Write(lb[:binary.PutUvarint(lb[:], uint64(len(hj)))])
	zw.Write(hj)
	zw.Write(payload)
	err = zw.Close()
	return buf.Bytes(), err
}
