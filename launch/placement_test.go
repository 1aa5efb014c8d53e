package launch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAddrBlobNullParams(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"A=buf:size=4096,addr=0x7fa0abe00000", "A=buf:size=4096,addr=0x7fa0abe00000"},
		{"buf:in=a.bin,addr=140328055078912", "buf:in=a.bin,addr=0x7fa0abe00000"},
		{"P=blob:in=params.bin", "P=blob:in=params.bin"},
		{"null", "null"},
		{"scratch=null", "scratch=null"},
	} {
		p, err := ParseParam(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if p.String() != c.out {
			t.Errorf("%s: prints %s, want %s", c.in, p.String(), c.out)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"buf:size=16,addr=0x7fa0abe00008", "addr=0x7fa0abe00008: a placed buffer must be 16-byte aligned"},
		{"buf:size=16,addr=0", "a buffer cannot be placed at address 0 (pass null for a null pointer)"},
		{"buf:size=16,addr=0x200000000000000", "device addresses are below 2^57"},
		{"buf:size=16,addr=zz", "addr=zz: want a device address"},
		{"blob:", "want in=FILE"},
		{"blob:in=a,in=b", "want in=FILE"},
		{"9=null", "name \"9\" must be an identifier"},
		{"nul", "want KIND:ARGS"},
	} {
		_, err := ParseParam(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.in, err, c.want)
		}
	}
}

func TestBindBlobAndPlacements(t *testing.T) {
	dir := t.TempDir()
	blob := filepath.Join(dir, "params.bin")
	os.WriteFile(blob, make([]byte, 24), 0o644)
	src := ".entry k(.param .align 8 .b8 s[24], .param .u64 .ptr .global .align 1 scratch) { ret; }"
	k, err := ParseKernel("k.ptx", []byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	mk := func(specs ...string) *Launch {
		l := &Launch{Grid: Dim3{1, 1, 1}, Block: Dim3{1, 1, 1}}
		for i, s := range specs {
			p, err := ParseParam(s)
			if err != nil {
				t.Fatal(err)
			}
			if i < 2 {
				l.Params = append(l.Params, p)
			} else {
				l.Buffers = append(l.Buffers, p)
			}
		}
		return l
	}
	b, err := mk("blob:in="+blob, "null", "A=buf:size=4096,addr=0x7fa000001000", "B=buf:size=16,addr=0x7fa000000000").Bind(k)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Params[0].Param.ScalarBytes(); len(got) != 24 {
		t.Errorf("blob bytes: %d", len(got))
	}
	if got := b.Params[1].Param.ScalarBytes(); string(got) != string(make([]byte, 8)) {
		t.Errorf("null bytes: % x", got)
	}
	ps, err := b.Placements()
	if err != nil || len(ps) != 2 || ps[0].Name != "B (buffer)" || ps[1].Addr != 0x7fa000001000 {
		t.Errorf("placements %+v, %v", ps, err)
	}
	os.WriteFile(blob, make([]byte, 20), 0o644)
	if _, err := mk("blob:in="+blob, "null").Bind(k); err == nil || !strings.Contains(err.Error(), "has 20 bytes, but the kernel declares .param .align 8 .b8 s[24] (24 bytes)") {
		t.Errorf("short blob: %v", err)
	}
	if _, err := mk("blob:in="+filepath.Join(dir, "missing.bin"), "null").Bind(k); err == nil || !strings.Contains(err.Error(), "missing.bin") {
		t.Errorf("missing blob: %v", err)
	}
	os.WriteFile(blob, make([]byte, 24), 0o644)
	// overlapping placements fail when the launch is bound
	_, err = mk("blob:in="+blob, "null", "A=buf:size=4096,addr=0x7fa000000000", "B=buf:size=16,addr=0x7fa000000ff0").Bind(k)
	var oe *OverlapError
	if !errors.As(err, &oe) || err.Error() != "A (buffer) at [0x7fa000000000, 0x7fa000001000) and B (buffer) at [0x7fa000000ff0, 0x7fa000001000) overlap" {
		t.Errorf("overlap: %v", err)
	}
}

// Overlapping placements in a launch file are reported at the later spec's
// line and column, naming the other's.
func TestOverlapPositions(t *testing.T) {
	k, err := ParseKernel("k.ptx", []byte(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\tret;\n}\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ json, want string }{
		{`{"grid": [1], "block": [32],
 "params": ["P=buf:size=4096,addr=0x7fa000000000"],
 "buffers": ["T=buf:size=256,addr=0x7fa000001000",
   "U=buf:size=16,addr=0x7fa000000ff0"]}`,
			"l.json:4:4: U (buffer) at [0x7fa000000ff0, 0x7fa000001000) overlaps P (param 0) at [0x7fa000000000, 0x7fa000001000) (given at l.json:2:13)"},
		{`{"grid": [1], "block": [32], "params": ["P=buf:size=4096,addr=0x7fa000000000"], "buffers": ["T=buf:size=16,addr=0x7fa000000010"]}`,
			"l.json:1:93: T (buffer) at [0x7fa000000010, 0x7fa000000020) overlaps P (param 0) at [0x7fa000000000, 0x7fa000001000) (given at l.json:1:41)"},
	} {
		l, err := DecodeLaunchJSON("l.json", []byte(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		_, err = l.Bind(k)
		var oe *OverlapError
		if !errors.As(err, &oe) || err.Error() != tc.want {
			t.Errorf("Bind = %v\nwant %s", err, tc.want)
		}
	}
}

// An output may give the buffer's shape as a row-major matrix (:RxC), after
// its type; the text form writes it back.
func TestParseOutputShape(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
		shape         [2]int
	}{
		{in: "C:f32", want: "C:f32"},
		{in: "C:f32:256x128", want: "C:f32:256x128", shape: [2]int{256, 128}},
		{in: "2:bf16:4X8=out.bin", want: "2:bf16:4x8=out.bin", shape: [2]int{4, 8}},
		{in: "C:f32:256", err: `shape "256": want ROWSxCOLS`},
		{in: "C:f32:0x8", err: `shape "0x8": want ROWSxCOLS`},
		{in: "C:f32:ax8", err: `shape "ax8": want ROWSxCOLS`},
		{in: "C::8x8", err: "output"},
	} {
		o, err := ParseOutput(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case o.String() != tc.want || o.Shape != tc.shape:
			t.Errorf("%s: %s shape %v, want %s %v", tc.in, o, o.Shape, tc.want, tc.shape)
		}
	}
	// a flag's shape merges into the launch file's output of the buffer
	l := &Launch{Params: []Param{{Name: "C", Kind: BufferParam, Size: 16}}, Outputs: []Output{{Param: "C", Type: F32}}}
	o, _ := ParseOutput("C:f32:2x2")
	if got := l.mergeOutput(o); len(got) != 1 || got[0].Shape != [2]int{2, 2} {
		t.Errorf("merged %v", got)
	}
}
