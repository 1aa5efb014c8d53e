package ptx

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// equalTrees compares two syntax trees, ignoring positions. It returns a
// description of the first difference, or "".
func equalTrees(a, b any) string {
	return diffValue(reflect.ValueOf(a), reflect.ValueOf(b), "")
}

var posType = reflect.TypeOf(Pos{})

func diffValue(a, b reflect.Value, path string) string {
	if a.IsValid() != b.IsValid() {
		return path + ": one side missing"
	}
	if !a.IsValid() {
		return ""
	}
	if a.Type() != b.Type() {
		return fmt.Sprintf("%s: type %s vs %s", path, a.Type(), b.Type())
	}
	if a.Type() == posType {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + ": nil vs non-nil"
			}
			return ""
		}
		return diffValue(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if d := diffValue(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: length %d vs %d", path, a.Len(), b.Len())
		}
		for i := 0; i < a.Len(); i++ {
			if d := diffValue(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return fmt.Sprintf("%s: %v vs %v", path, a.Interface(), b.Interface())
		}
		return ""
	}
}

// roundTrip parses src, prints it, parses the output and compares the
// trees; it also checks that printing is idempotent.
func roundTrip(t *testing.T, name string, src []byte) {
	t.Helper()
	m1, err := ParseFile(name, src)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	out1 := Format(m1)
	m2, err := ParseString(name+" (printed)", out1)
	if err != nil {
		t.Fatalf("reparse of printed output: %v\n%s", err, out1)
	}
	m2.Filename = m1.Filename
	if d := equalTrees(m1, m2); d != "" {
		t.Fatalf("parse → print → parse changed the tree at %s", d)
	}
	if out2 := Format(m2); out2 != out1 {
		t.Fatalf("printing is not idempotent")
	}
}

func TestRoundTripCorpus(t *testing.T) {
	files := corpusFiles(t)
	errFiles, _ := filepath.Glob("testdata/errors/*.ptx")
	for _, f := range append(files, errFiles...) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(f, "errors/syntax") {
				t.Skip("syntax errors drop statements")
			}
			roundTrip(t, f, src)
		})
	}
}

// TestPrintedValidates checks that the printed form of each valid corpus
// file still validates (the printer keeps every detail the validator
// looks at).
func TestPrintedValidates(t *testing.T) {
	for _, f := range corpusFiles(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseFile(f, src)
		if err != nil {
			t.Fatal(err)
		}
		_, errs := Check(f+" (printed)", []byte(Format(m)))
		for _, e := range errs {
			t.Error(e)
		}
	}
}

func TestPrintOperands(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ld.global.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1+16];", "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16]"},
		{"ld.local.u32 %r1, [%rd2-8];", "ld.local.u32 %r1, [%rd2+-8]"},
		{"@!%p1 bra.uni $L__BB0_2;", "@!%p1 bra.uni $L__BB0_2"},
		{"mov.f32 %f1, 1.5;", "mov.f32 %f1, 0d3FF8000000000000"},
		{"mov.f32 %f1, -0f3F800000;", "mov.f32 %f1, 0fBF800000"},
		{"mov.b32 %r1, 0xFFFFFFFF;", "mov.b32 %r1, 0xffffffff"},
		{"mov.b32 %r1, -(1 << 4);", "mov.b32 %r1, -16"},
		{"mov.u64 %rd1, 18446744073709551615;", "mov.u64 %rd1, 18446744073709551615"},
		{"mov.u32 %r1, 7U;", "mov.u32 %r1, 7U"},
		{"mov.u32 %r1, 017;", "mov.u32 %r1, 15"},
		{"mov.u32 %r1, 0b101;", "mov.u32 %r1, 5"},
		{"setp.lt.s32 %p1|%p2, %r1, %r2;", "setp.lt.s32 %p1|%p2, %r1, %r2"},
		{"mbarrier.arrive.shared::cluster.b64 _, [%r1];", "mbarrier.arrive.shared::cluster.b64 _, [%r1]"},
		{"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];",
			"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4]"},
		{"mov.u32 %r1, %tid.x;", "mov.u32 %r1, %tid.x"},
		{"mov.u64 %rd1, smem+16;", "mov.u64 %rd1, smem+16"},
		{"ld.shared.u32 %r1, [smem+-4];", "ld.shared.u32 %r1, [smem+-4]"},
		{"call.uni (retval0), foo, (param0, param1);", "call.uni (retval0), foo, (param0, param1)"},
		{"tcgen05.wait::ld.sync.aligned;", "tcgen05.wait::ld.sync.aligned"},
	}
	for _, tt := range tests {
		in, err := ParseInstruction(tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if got := in.String(); got != tt.want {
			t.Errorf("%s\n got  %s\n want %s", tt.in, got, tt.want)
		}
	}
}
