package sim

import (
	"slices"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/isa/ptx"
)

// TestDecoderTable: every opcode of the PTX front end's catalog is either
// decoded by the simulator or listed as unsupported, never both, and
// neither table names an opcode the catalog lacks.
func TestDecoderTable(t *testing.T) {
	catalog := ptx.Opcodes()
	for _, op := range catalog {
		_, dec := decoders[op]
		_, uns := unsupportedOpcodes[op]
		switch {
		case dec && uns:
			t.Errorf("%s is both decoded and listed as unsupported", op)
		case !dec && !uns:
			t.Errorf("%s is in the catalog but neither decoded nor listed as unsupported (sim/decoders.go)", op)
		}
	}
	for op := range decoders {
		if !slices.Contains(catalog, op) {
			t.Errorf("decoder for %s, which the PTX catalog does not have", op)
		}
	}
	for op := range unsupportedOpcodes {
		if !slices.Contains(catalog, op) {
			t.Errorf("%s is listed as unsupported but the PTX catalog does not have it", op)
		}
	}
	ops, forms := Unsupported()
	if len(ops) != len(unsupportedOpcodes) || len(forms) == 0 {
		t.Errorf("Unsupported() = %d opcodes, %d forms", len(ops), len(forms))
	}
	if Supported("wgmma.mma_async.sp") || !Supported("wgmma.mma_async") {
		t.Error("Supported disagrees with the decoder table")
	}
}

// An unsupported opcode compiles and faults when it runs, with its name.
func TestUnsupportedOpcodeFaults(t *testing.T) {
	src := `.visible .entry k(.param .u64 out) { .reg .b32 %r<4>; vadd.u32.u32.u32 %r1, %r2, %r3; ret; }`
	_, err := runErr(t, src, 1, 32, 4, Options{})
	if err == nil || !strings.Contains(err.Error(), "vadd is not supported by the simulator") {
		t.Errorf("vadd: %v", err)
	}
}
