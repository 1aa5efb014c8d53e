package main

import (
	"strings"
	"testing"

	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/layouts"
)

// FuzzCLI runs the commands that read numbers, layouts, descriptors and
// names from the command line on arbitrary arguments: none may panic,
// every exit status is 0, 1 or 2, and a non-zero status comes with a
// message on stderr.
func FuzzCLI(f *testing.F) {
	for _, c := range []struct {
		cmd  uint8
		a, b string
	}{
		{0, "0x7e", ""}, {1, "3.3", "--rz"}, {2, "448", "-1e9"}, {3, "0x4000004000010040", "64x16"},
		{4, "0x08400490", "f16"}, {5, "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))", "64x16"}, {6, "(8,64):(64,1)", ""},
		{7, "wgmma f16 n64", ""}, {8, "smem.k.sw128.b16", "0:4,0:8"}, {9, "tcgen05", ""}, {10, "wgmma.m64n64.d.f32", "row = lane; col = v"},
		{11, "Sw<3,4,3> o 0 o (8,64):(64,1)", ",0:8"}, {12, "mma.sync.m16n8k16", ""}, {13, "--arch", "sm_90a"},
	} {
		f.Add(c.cmd, c.a, c.b)
	}
	formats := numfmt.Formats()
	specs := numfmt.AllSpecs()
	f.Fuzz(func(t *testing.T, cmd uint8, a, b string) {
		if len(a) > 200 || len(b) > 200 {
			return
		}
		// Layout arguments are drawn cell by cell: keep them small.
		for _, s := range []string{a, b} {
			if l, err := layouts.ParseAnyLayout(s); err == nil && (l.Inner().Size() > 1<<14 || l.Inner().Size() < 0) {
				return
			}
		}
		var args []string
		switch cmd % 14 {
		case 0:
			args = []string{"num", "decode", formats[len(b)%len(formats)].Name, a}
		case 1:
			args = []string{"num", "encode", formats[len(a)%len(formats)].Name, a, b}
		case 2:
			s := specs[(len(a)*31+len(b))%len(specs)]
			args = append([]string{"num", "cvt", s.String()}, strings.Fields(a+" "+b)...)
		case 3:
			args = []string{"desc", a, "--major", "K", "--dtype", "bf16", "--tile", b, "--draw"}
		case 4:
			args = []string{"desc", "--idesc", a, "--kind", b}
		case 5:
			args = []string{"layout", a, "--tile", b}
		case 6:
			args = []string{"bitmath", a, "--lang", []string{"c", "ptx", "python", "go"}[len(b)%4]}
		case 7:
			args = append([]string{"atoms"}, strings.Fields(a)...)
		case 8:
			args = []string{"layout", a, "--region", b, "--format", "json"}
		case 9:
			args = []string{"ptx", "opcodes", a}
		case 10:
			args = []string{"bitmath", a, "--check", b}
		case 11:
			args = []string{"render", a, "--region", b, "-o", "-", "--format", "svg"}
		case 12:
			args = []string{"layout", "--mma", a}
		case 13:
			args = append([]string{"desc", "encode"}, strings.Fields(a+" "+b)...)
		}
		code, _, errs := runCLI(t, args...)
		if code < 0 || code > 2 {
			t.Fatalf("tcsim %q: exit %d", args, code)
		}
		if code != 0 && strings.TrimSpace(errs) == "" {
			t.Fatalf("tcsim %q: exit %d without a message", args, code)
		}
	})
}
