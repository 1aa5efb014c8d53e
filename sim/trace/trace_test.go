package trace

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
)

func readGz(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open("../testdata/traces/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadV1 reads the version-1 traces written before this package and
// writes their records back: the same bytes.
func TestReadV1(t *testing.T) {
	for _, name := range []string{"wgmma_nowait.v1.jsonl.gz", "tma_swizzle_phase_32B.v1.jsonl.gz"} {
		data := readGz(t, name)
		f, err := Read(name, bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if !f.Ended() || f.Cut != 0 || f.Note(name) != "" || f.Header.Version != 1 || f.Header.Kernel == "" {
			t.Errorf("%s: header %+v, ended %v, cut %d", name, f.Header, f.Ended(), f.Cut)
		}
		counts := map[string]int{}
		var buf bytes.Buffer
		w := NewWriter(&buf, f.Header)
		for _, r := range f.Records {
			switch r.Type {
			case TypeInst:
				counts["inst"]++
				w.Inst(r.Inst)
			case TypeEvent:
				counts[string(r.Event.Kind)]++
				w.Event(r.Event)
			case TypeHazard:
				counts["hazard"]++
				w.Hazard(r.Hazard)
			case TypeEnd:
				counts["end"]++
				if err := w.End(*r.End); err != nil {
					t.Fatal(err)
				}
			}
		}
		if !bytes.Equal(buf.Bytes(), data) {
			t.Errorf("%s: writing the records read gives other bytes", name)
		}
		if counts["inst"] == 0 || counts["end"] != 1 {
			t.Errorf("%s: records %v", name, counts)
		}
		t.Logf("%s: %v", name, counts)
	}
}

// TestRoundTrip writes one record of every kind and reads it back.
func TestRoundTrip(t *testing.T) {
	var lanes [32]uint64
	for l := range lanes {
		lanes[l] = uint64(l) << 40
	}
	h := Header{Version: Version, File: "k.ptx", Kernel: "k", Grid: [3]int{2, 1, 1}, Block: [3]int{128, 1, 1}, Cluster: [3]int{1, 1, 1}, Schedule: "lazy"}
	recs := []Record{
		{Type: TypeInst, Inst: &Inst{Seq: 1, CTA: [3]int{1, 0, 0}, Warp: 3, PC: 7, Line: 42, Inst: "add.s32 %r3, %r1, %r2", Active: 0xffffffff, Exec: 0xff, W: []Reg{{"%r3", lanes}}}},
		{Type: TypeInst, Inst: &Inst{Seq: 2, Warp: 0, PC: 0, Line: 1, Inst: "bar.sync 0"}},
		{Type: TypeEvent, Event: &Event{Kind: AsyncIssue, CTA: [3]int{1, 0, 0}, Op: "tma", Thread: 5, PC: 9, Desc: "64 x 64 <box> & more"}},
		{Type: TypeEvent, Event: &Event{Kind: AsyncComplete, Op: "tma", Thread: 5, PC: 9}},
		{Type: TypeEvent, Event: &Event{Kind: MbarrierPhase, Addr: 1 << 16, Phase: 3}},
		{Type: TypeEvent, Event: &Event{Kind: WgmmaComplete, Warpgroup: 1, WgmmaOp: 2, PC: 11}},
		{Type: TypeEvent, Event: &Event{Kind: Regs, Warp: 2, W: []Reg{{"%f1", lanes}, {"%f2", lanes}}}},
		{Type: TypeHazard, Hazard: &Hazard{Kind: "wgmma-acc-read", Severity: "error", Pos: "k.ptx:98:5", Warp: -1, Msg: "reads %f0"}},
		{Type: TypeEnd, End: &End{Steps: 1234, Hazards: 1, Error: ""}},
	}
	var buf bytes.Buffer
	w := NewWriter(&buf, h)
	for _, r := range recs {
		switch r.Type {
		case TypeInst:
			w.Inst(r.Inst)
		case TypeEvent:
			w.Event(r.Event)
		case TypeHazard:
			w.Hazard(r.Hazard)
		case TypeEnd:
			if err := w.End(*r.End); err != nil {
				t.Fatal(err)
			}
		}
	}
	f, err := Read("rt.jsonl", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if f.Header != h {
		t.Errorf("header %+v, want %+v", f.Header, h)
	}
	if len(f.Records) != len(recs) {
		t.Fatalf("%d records, want %d", len(f.Records), len(recs))
	}
	for i, r := range f.Records {
		want := recs[i]
		want.Line = i + 2
		// What the file does not carry reads as -1 (warp, pc) or zero.
		switch {
		case want.Event != nil:
			e := *want.Event
			if e.Kind != Regs {
				e.Warp = -1
			}
			if e.Kind != AsyncIssue && e.Kind != AsyncComplete && e.Kind != WgmmaComplete {
				e.PC = -1
			}
			want.Event = &e
		}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("record %d:\n got %+v %+v\nwant %+v %+v", i, r, r.Event, want, want.Event)
		}
	}
	if got := f.Records[7].Hazard.Line(); got != 98 {
		t.Errorf("hazard line %d", got)
	}
}

func TestReadErrors(t *testing.T) {
	const hdr = `{"type":"header","version":1,"file":"k.ptx","kernel":"k"}` + "\n"
	inst := `{"type":"inst","seq":1,"cta":[0,0,0],"warp":0,"pc":0,"line":5,"inst":"ret","active":"0xffffffff","exec":"0xffffffff"}` + "\n"
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "t.jsonl: empty: no header record"},
		{"no header", inst, `t.jsonl:1: a trace starts with a header record, found type "inst"`},
		{"version", `{"type":"header","version":2}` + "\n", "t.jsonl:1: trace format version 2; this tcsim reads version 1"},
		{"old version 0", `{"type":"header"}` + "\n", "t.jsonl:1: trace format version 0; this tcsim reads version 1"},
		{"second header", hdr + hdr, "t.jsonl:2: a second header (two traces concatenated?)"},
		{"unknown type", hdr + `{"type":"blob"}` + "\n", `t.jsonl:2: unknown record type "blob"`},
		{"inst without pc", hdr + `{"type":"inst","warp":0}` + "\n", "t.jsonl:2: instruction record without warp or pc"},
		{"bad mask", hdr + `{"type":"inst","warp":0,"pc":0,"active":"zz"}` + "\n", `t.jsonl:2: active mask "zz"`},
		{"event without name", hdr + `{"type":"event"}` + "\n", `t.jsonl:2: event record without "event"`},
		{"short lanes", hdr + `{"type":"event","event":"regs","w":{"%r1":["0x1"]}}` + "\n", "t.jsonl:2: register %r1 has 1 lane values, want 32"},
		{"bad lane", hdr + `{"type":"event","event":"regs","w":{"%r1":["x","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0"]}}` + "\n", `t.jsonl:2: register %r1 lane 0: "x" is not a number`},
		{"bad line inside", hdr + "{oops\n" + inst, "t.jsonl:2: not a trace record"},
		{"only a torn line", "{oops\n", "t.jsonl:1: not a trace record"},
	} {
		_, err := Read("t.jsonl", strings.NewReader(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// A torn last line is forgiven, and a trace without an end record is
	// read: both say so.
	f, err := Read("t.jsonl", strings.NewReader(hdr+inst+`{"type":"in`))
	if err != nil || f.Cut != 3 || len(f.Records) != 1 || !strings.Contains(f.Note("dir/t.jsonl"), "t.jsonl: line 3 is cut short; replaying the 1 records before it") {
		t.Errorf("torn: %+v, %v", f, err)
	}
	f, err = Read("t.jsonl", strings.NewReader(hdr+inst))
	if err != nil || f.Ended() || !strings.Contains(f.Note("t.jsonl"), "has no end record") {
		t.Errorf("no end: %+v, %v", f, err)
	}
}

func TestParsePos(t *testing.T) {
	for in, want := range map[string]Pos{
		"k.ptx:98:5":       {"k.ptx", 98, 5},
		"98:5":             {"", 98, 5},
		"k.ptx:12":         {"k.ptx", 12, 0},
		"c:/dir/k.ptx:3:4": {"c:/dir/k.ptx", 3, 4},
		"k.ptx:-":          {"k.ptx", 0, 0},
		"-":                {"-", 0, 0},
	} {
		if got := ParsePos(in); got != want {
			t.Errorf("ParsePos(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"type":"header","version":1}` + "\n" + `{"type":"inst","warp":0,"pc":0,"w":{"%r1":[]}}`))
	f.Add([]byte("{\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := Read("f", bytes.NewReader(b))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		w := NewWriter(&buf, tr.Header)
		for _, r := range tr.Records {
			switch r.Type {
			case TypeInst:
				w.Inst(r.Inst)
			case TypeHazard:
				w.Hazard(r.Hazard)
			}
		}
		w.End(End{})
	})
}
