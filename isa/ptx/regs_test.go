package ptx

import (
	"slices"
	"testing"
)

func TestRegNames(t *testing.T) {
	for src, want := range map[string][]string{
		"add.s32 %r3, %r1, %r2;":                      {"%r3", "%r1", "%r2"},
		"@!%p1 ld.shared.v2.f32 {%f1, %f2}, [%r4+8];": {"%p1", "%f1", "%f2", "%r4"},
		"mov.u32 %r1, %tid.x;":                        {"%r1", "%tid"},
		"add.s32 %r1, %r1, %r1;":                      {"%r1"},
		"setp.lt.s32 %p1|%p2, %r1, 4;":                {"%p1", "%p2", "%r1"},
		"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];": {"%r1", "%rd1", "%r2", "%r3", "%r4"},
		"bar.sync 0;": nil,
	} {
		in, err := ParseInstruction(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := in.RegNames(); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", src, got, want)
		}
	}
}
