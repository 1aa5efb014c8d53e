package ptx

import (
	"strings"
	"testing"
)

// TestBracedScalarOperand: ptxas reads { %r1 } as %r1, and Triton writes
// its scalar loads and stores that way; two elements still need .v2.
func TestBracedScalarOperand(t *testing.T) {
	mod := func(body string) string {
		return ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nsetp.eq.u32 %p1, %r3, 0;\n" + body + "\nret;\n}\n"
	}
	for _, ok := range []string{
		"@%p1 ld.global.b32 { %r1 }, [ %rd1 + 0 ];",
		"@%p1 st.global.b32 [ %rd1 + 0 ], { %r1 };",
	} {
		if _, errs := Check("t.ptx", []byte(mod(ok))); len(errs) > 0 {
			t.Errorf("%s: %v", ok, errs)
		}
	}
	_, errs := Check("t.ptx", []byte(mod("ld.global.b32 { %r1, %r2 }, [ %rd1 + 0 ];")))
	if len(errs) == 0 || !strings.Contains(errs[0].Error(), "no .vN modifier") {
		t.Errorf("two braced registers without .v2: %v", errs)
	}
}
