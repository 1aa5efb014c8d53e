package tensormap

import (
	"encoding/hex"
	"fmt"
)

// Problem is one way tcsim disagrees with a recorded driver call.
type Problem struct {
	Name   string // the probe
	Kind   string // what disagrees: "encode", "decode", "accepts", "rejects"
	Detail string
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s: %s", p.Name, p.Kind, p.Detail) }

// Summary is the verdict on a recording.
type Summary struct {
	Maps     int // records
	Accepted int // the driver accepted
	Rejected int // the driver rejected
	Crashed  int // the recording process died in the call

	Encoded       int // accepted maps tcsim encodes to the driver's bytes
	Decoded       int // accepted maps with recorded bytes whose decoding gives back the arguments
	WithBytes     int // accepted maps whose bytes are recorded in full
	RejectMatched int // rejected maps tcsim rejects too
	Untouched     int // accepted maps where the driver left some bytes as they were

	Problems []Problem
}

// OK reports whether tcsim agrees with every recorded call.
func (s *Summary) OK() bool { return len(s.Problems) == 0 }

// Check replays records: every map the driver accepted must validate,
// encode to the driver's bytes and (where the bytes are recorded) decode
// back to its arguments; every map the driver rejected must fail Validate.
func Check(records []Record) Summary {
	var s Summary
	s.Maps = len(records)
	for i := range records {
		r := &records[i]
		if r.Map == nil {
			s.Problems = append(s.Problems, Problem{r.Name, "record", "no arguments recorded"})
			continue
		}
		switch r.Result {
		case ResultCrash:
			s.Crashed++
			continue
		case ResultOK:
			s.Accepted++
		default:
			s.Rejected++
			if err := r.Map.Validate(); err == nil {
				s.Problems = append(s.Problems, Problem{r.Name, "accepts", fmt.Sprintf("the driver rejects %s (%s); tcsim accepts it", r.Map, r.Result)})
			} else {
				s.RejectMatched++
			}
			continue
		}
		if r.Untouched != "" {
			s.Untouched++
		}
		got, err := Encode(r.Map)
		switch {
		case err != nil:
			kind := "encode"
			var fe *FieldError
			if asFieldError(err, &fe) {
				kind = "rejects"
			}
			s.Problems = append(s.Problems, Problem{r.Name, kind, fmt.Sprintf("the driver accepts %s; tcsim: %v", r.Map, err)})
		case !r.Matches(got):
			d := ""
			if want, ok := r.Raw(); ok {
				d = "; " + DiffBytes(want, got)
			}
			s.Problems = append(s.Problems, Problem{r.Name, "encode", fmt.Sprintf("%s: tcsim's bytes differ from the driver's%s", r.Map, d)})
		default:
			s.Encoded++
		}
		raw, ok := r.Raw()
		if !ok {
			continue
		}
		s.WithBytes++
		dec, err := Decode(raw)
		if err != nil {
			s.Problems = append(s.Problems, Problem{r.Name, "decode", err.Error()})
			continue
		}
		if len(dec.Unknown) > 0 {
			s.Problems = append(s.Problems, Problem{r.Name, "decode", fmt.Sprintf("unaccounted bits: %v", dec.Unknown)})
			continue
		}
		if diff := dec.Map.diff(Canonical(r.Map)); diff != "" {
			s.Problems = append(s.Problems, Problem{r.Name, "decode", diff})
			continue
		}
		s.Decoded++
	}
	return s
}

func asFieldError(err error, fe **FieldError) bool {
	e, ok := err.(*FieldError)
	if ok {
		*fe = e
	}
	return ok
}

// DiffBytes lists the bytes where got differs from want.
func DiffBytes(want, got [Size]byte) string {
	var out []string
	for i := range want {
		if want[i] != got[i] {
			out = append(out, fmt.Sprintf("[%d] %02x≠%02x", i, want[i], got[i]))
		}
	}
	if len(out) > 8 {
		out = append(out[:8], fmt.Sprintf("… (%d bytes)", len(out)))
	}
	return fmt.Sprintf("driver≠tcsim at %v", out)
}

// diff compares two maps field by field.
func (m *Map) diff(o *Map) string {
	var out []string
	f := func(name string, a, b any) {
		if fmt.Sprint(a) != fmt.Sprint(b) {
			out = append(out, fmt.Sprintf("%s %v, want %v", name, a, b))
		}
	}
	f("kind", m.Kind, o.Kind)
	f("dtype", m.DType, o.DType)
	f("addr", hex.EncodeToString(u64(m.Address)), hex.EncodeToString(u64(o.Address)))
	f("dims", m.Dims, o.Dims)
	f("strides", m.Strides, o.Strides)
	f("box", m.Box, o.Box)
	f("estrides", m.ElemStrides, o.ElemStrides)
	f("interleave", m.Interleave, o.Interleave)
	f("swizzle", m.Swizzle, o.Swizzle)
	f("l2", m.L2, o.L2)
	f("oob", m.OOB, o.OOB)
	f("lower", m.Lower, o.Lower)
	f("upper", m.Upper, o.Upper)
	f("channels", m.Channels, o.Channels)
	f("pixels", m.Pixels, o.Pixels)
	f("lower_w", m.LowerW, o.LowerW)
	f("upper_w", m.UpperW, o.UpperW)
	f("mode", m.Mode, o.Mode)
	if len(out) == 0 {
		return ""
	}
	return "decoded " + fmt.Sprint(out)
}

func u64(v uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (56 - 8*i))
	}
	return b
}
