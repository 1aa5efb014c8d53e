package sim

import (
	"strings"
	"testing"

	"github.com/tcsim/tcsim/launch"
)

// A null pointer dereference names the null parameter the address was
// loaded from, through the instructions that computed it; where the code
// does not show one, it says so.
func TestNullPointerSource(t *testing.T) {
	const sig = `.visible .entry k(.param .u64 out, .param .u64 scratch, .param .u64 profile) {
	.reg .b64 %rd<8>;
	.reg .b32 %r<4>;
`
	for _, tc := range []struct {
		name, body string
		nulls      int // the trailing parameters that are null: 1 (profile) or 2
		want       string
	}{
		{"through cvta and an offset", `	ld.param.u64 %rd1, [scratch];
	ld.param.u64 %rd2, [profile];
	cvta.to.global.u64 %rd3, %rd2;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd4, %r1, 4;
	add.s64 %rd5, %rd3, %rd4;
	st.global.u32 [%rd5+16], %r1;
	ret;
`, 2, "at 0x10, a null pointer dereference: the address comes from param profile (param 2), which is null (loaded at t.ptx:8:2)"},
		{"the first of two", `	ld.param.u64 %rd1, [scratch];
	ld.param.u64 %rd2, [profile];
	ld.global.u32 %r1, [%rd1+64];
	ret;
`, 2, "at 0x40, a null pointer dereference: the address comes from param scratch (param 1), which is null (loaded at t.ptx:7:2)"},
		{"not from a parameter", `	mov.u64 %rd1, 0;
	ld.global.u32 %r1, [%rd1+8];
	ret;
`, 2, "a null pointer dereference: params scratch (param 1), profile (param 2) are null (tcsim could not trace the address to one of them)"},
		{"the only null, not traced", `	mov.u64 %rd1, 0;
	ld.global.u32 %r1, [%rd1+8];
	ret;
`, 1, "a null pointer dereference: param profile (param 2) is null (tcsim could not trace the address to a parameter)"},
	} {
		l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{32, 1, 1}}
		null, _ := launch.ParseParam("null")
		l.Params = []launch.Param{launch.BufferData("out", make([]byte, 4)), launch.BufferData("scratch", make([]byte, 4)), null}
		if tc.nulls == 2 {
			l.Params[1] = null
		}
		m, err := Prepare("t.ptx", []byte(ptxHeader+sig+tc.body+"}\n"), l, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := m.Run(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %s", tc.name, err, tc.want)
		}
	}
}
