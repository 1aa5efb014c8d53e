package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tcsim/tcsim/launch"
)

// TestProxyFenceProbes runs the kernels of the H100 probes of
// fixtures/proxyfence (compiled to PTX alone) on a few CTAs: the probes'
// own checks pass where the simulator's semantics say they must, and the
// checker reports, for every mode, the rule the mode is about (the pattern
// a probe measures is the pattern the rule describes).
func TestProxyFenceProbes(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// the probes' inputs, as their fill kernels write them
	src := make([]byte, 4*16*1024)
	for i := 0; i < len(src)/4; i++ {
		binary.LittleEndian.PutUint32(src[4*i:], probePattern(0, uint32(i/4096), uint32(i%4096)))
	}
	srcPath := write("src.bin", src)
	apool := make([]byte, 4096*2048)
	for i := 0; i < len(apool)/2; i++ {
		binary.LittleEndian.PutUint16(apool[2*i:], probeAValue(uint32(i/1024), uint32(i%1024)/16, uint32(i%16)))
	}
	bpool := make([]byte, 64*2048)
	for i := 0; i < len(bpool)/2; i++ {
		s, n, k := i/1024, i%1024/16, i%16
		if n == (k+s)%64 {
			binary.LittleEndian.PutUint16(bpool[2*i:], 0x3F80)
		}
	}
	aPath, bPath := write("apool.bin", apool), write("bpool.bin", bpool)
	mbar := func(mode int) *launch.Launch {
		return probeLaunch(t, "mbar_init_probe.sm_90a.ptx", "mbar_init", 4, 18432, []string{
			"src=tmap:buf=S,dtype=u32,dims=32x512,box=32x32", "buf=u32:0", fmt.Sprintf("mode=u32:%d", mode), "counts=buf:size=192"},
			[]string{"S=buf:in=" + srcPath})
	}
	cpw := func(mode int) *launch.Launch {
		return probeLaunch(t, "cpasync_wgmma_probe.sm_90a.ptx", "cpasync_wgmma", 2, 0, []string{
			"apool=buf:in=" + aPath, "bpool=buf:in=" + bPath, "launch=u32:7", fmt.Sprintf("mode=u32:%d", mode), "counts=buf:size=128"}, nil)
	}
	for _, tc := range []struct {
		name  string
		l     *launch.Launch
		mode  int
		right uint64     // counts[4*mode]: the CTAs (tiles) the probe found right
		rule  HazardKind // what the checker reports
	}{
		{"mbar/fenced", mbar(0), 0, 4, ""},
		{"mbar/unfenced", mbar(1), 1, 4, HzMbarInitFence},
		{"mbar/unfenced_other", mbar(2), 2, 4, HzMbarInitFence},
		{"mbar/short", mbar(3), 3, 4, HzMbarTxMismatch}, // the simulated copies land at issue
		{"mbar/early", mbar(5), 5, 0, HzMbarUninit},
		{"cpasync/fenced", cpw(0), 0, 64, ""},
		{"cpasync/unfenced", cpw(1), 1, 64, HzProxyCpAsync},
		{"cpasync/stshared", cpw(2), 2, 64, HzProxyFence},
		{"cpasync/overwrite", cpw(3), 3, 0, HzAsyncSourceReuse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := os.ReadFile(tc.l.PTX)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Prepare(tc.l.PTX, src, tc.l, Options{Check: true})
			if err != nil {
				t.Fatal(err)
			}
			var dl *DeadlockError
			if err := m.Run(); err != nil && !errors.As(err, &dl) {
				t.Fatal(err)
			}
			b, err := m.Buffer("counts")
			if err != nil {
				t.Fatal(err)
			}
			if got := binary.LittleEndian.Uint64(b.Data[32*tc.mode:]); got != tc.right {
				t.Errorf("the probe counts %d right, want %d", got, tc.right)
			}
			var rules []HazardKind
			for _, f := range m.Findings() {
				if f.Severity != SevPerf {
					rules = append(rules, f.Rule)
				}
			}
			if tc.rule == "" && len(rules) > 0 || tc.rule != "" && (len(rules) == 0 || !slices.Contains(rules, tc.rule)) {
				t.Errorf("findings %v, want %q", rules, tc.rule)
			}
		})
	}
}

func probeLaunch(t *testing.T, ptx, kernel string, ctas, smem int, params, buffers []string) *launch.Launch {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", "fixtures", "proxyfence", ptx))
	if err != nil {
		t.Fatal(err)
	}
	j := fmt.Sprintf(`{"ptx": %q, "kernel": %q, "grid": [%d, 1, 1], "block": [128, 1, 1], "smem": %d, "params": %s, "buffers": %s}`,
		abs, kernel, ctas, smem, jsonList(params), jsonList(buffers))
	p := filepath.Join(t.TempDir(), kernel+".json")
	if err := os.WriteFile(p, []byte(j), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := launch.ReadLaunch(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func jsonList(ss []string) string {
	out := "["
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", s)
	}
	return out + "]"
}

// probePattern and probeAValue are mbar_init_probe.cu's pattern and
// cpasync_wgmma_probe.cu's a_value.
func probePattern(buf, cta, word uint32) uint32 {
	x := (buf+1)*0x9E3779B9 ^ (cta*4096+word)*0x85EBCA6B
	x ^= x >> 15
	x *= 0x2C1B3C6D
	x ^= x >> 12
	return x&0x3FFFFFFF | 0x40000000
}

func probeMix(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7FEB352D
	x ^= x >> 15
	x *= 0x846CA68B
	x ^= x >> 16
	return x
}

func probeAValue(tile, m, k uint32) uint16 {
	h := probeMix(tile*1024 + m*16 + k + 0x1234567)
	return uint16(h&0x8000 | (120+(h>>8)%16)<<7 | h&0x7F)
}
