package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// tcsim tui --desc FILE reads a CUtensorMap file as tcsim desc does.
func TestTUIDescFile(t *testing.T) {
	file := filepath.Join("..", "..", "tui", "testdata", "tmap.bin")
	_, want, _ := runCLI(t, "desc", file)
	code, out, errs := runCLI(t, "tui", "--view", "desc", "--desc", file, "--snapshot", "-", "--size", "100x40")
	if code != 0 || !strings.Contains(out, "CUtensorMap  tiled, rank 5, u16") || !strings.Contains(want, "rank 5") {
		t.Errorf("tui --desc %s: exit %d: %s\n%s", file, code, errs, out)
	}
	code, _, errs = runCLI(t, "tui", "--view", "desc", "--desc", "good.bin", "--snapshot", "-")
	if code != 2 || !strings.Contains(errs, `"good.bin" is neither a descriptor value nor a file that can be read`) {
		t.Errorf("tui --desc good.bin (missing): exit %d: %s", code, errs)
	}
}
