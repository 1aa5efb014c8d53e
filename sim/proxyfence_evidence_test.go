package sim

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

// proxyFenceRecord is the part of a fixtures/proxyfence probe's output the
// evidence tests read: the GPU and, per mode, what was run and what failed.
type proxyFenceRecord struct {
	GPU   string `json:"gpu"`
	SM    string `json:"sm"`
	Modes []struct {
		Mode     string `json:"mode"`
		Launches uint64 `json:"launches"`
		// mbar_init_probe
		CTAs       uint64 `json:"ctas"`
		Copies     uint64 `json:"tma_copies"`
		CTAsRight  uint64 `json:"ctas_right"`
		TimedOut   uint64 `json:"ctas_timed_out"`
		WrongCTAs  uint64 `json:"ctas_with_wrong_words"`
		WrongWords uint64 `json:"wrong_words"`
		// cpasync_wgmma_probe
		Tiles      uint64 `json:"tiles"`
		TilesRight uint64 `json:"tiles_right"`
		TilesWrong uint64 `json:"tiles_wrong"`
	} `json:"modes"`
}

// readProxyFence reads a probe's record and returns its modes by name,
// failing the test when one of want is missing or the GPU is not sm_90.
func readProxyFence(t *testing.T, file string, want ...string) (proxyFenceRecord, map[string]int) {
	t.Helper()
	b, err := os.ReadFile("../fixtures/proxyfence/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var rec proxyFenceRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if rec.SM != "9.0" {
		t.Fatalf("%s: recorded on %s (sm %s), not an sm_90 GPU", file, rec.GPU, rec.SM)
	}
	modes := map[string]int{}
	for i, m := range rec.Modes {
		modes[m.Mode] = i
	}
	for _, name := range want {
		if _, ok := modes[name]; !ok {
			t.Fatalf("%s: %s: no %q mode", file, rec.GPU, name)
		}
	}
	return rec, modes
}

// commas writes n with thousands separators, as the rules' documentation
// cites the records' counts.
func commas(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestMbarInitFenceEvidence ties the severity of mbarrier/init-not-fenced
// to the record of fixtures/proxyfence/mbar_init_probe.cu: a portability
// note only while every CTA that initialized its mbarrier with no proxy
// fence before the TMA copies completing on it (the copies from thread 0,
// and from warp 1) passed its wait with every word right, and while the
// controls (expect_tx short and long, copies completing before the init)
// show that the probe sees a lost or misapplied complete_tx.
func TestMbarInitFenceEvidence(t *testing.T) {
	rec, modes := readProxyFence(t, "mbar_init_result.json", "fenced", "unfenced", "unfenced_other", "short", "long", "early")
	clean := func(name string) bool {
		m := rec.Modes[modes[name]]
		return m.CTAs > 0 && m.CTAsRight == m.CTAs && m.TimedOut == 0 && m.WrongCTAs == 0 && m.WrongWords == 0
	}
	if !clean("fenced") {
		t.Fatalf("%s: the probe's baseline (init, fence.mbarrier_init, bar.sync) failed: the probe is broken", rec.GPU)
	}
	for _, name := range []string{"short", "long", "early"} {
		if m := rec.Modes[modes[name]]; m.CTAsRight == m.CTAs {
			t.Fatalf("%s: the control %q found every CTA right: the probe cannot see a lost complete_tx", rec.GPU, name)
		}
	}
	want := SevNote
	if !clean("unfenced") || !clean("unfenced_other") {
		want = SevError
	}
	r := rulesByID[HzMbarInitFence]
	if r.Severity != want {
		t.Errorf("%s: unfenced %+v, unfenced_other %+v: mbarrier/init-not-fenced should be %v, is %v",
			rec.GPU, rec.Modes[modes["unfenced"]], rec.Modes[modes["unfenced_other"]], want, r.Severity)
	}
	un := rec.Modes[modes["unfenced"]]
	for _, cite := range []string{"fixtures/proxyfence", rec.GPU[strings.LastIndex(rec.GPU, " ")+1:], commas(un.Launches) + " launches", commas(un.Copies) + " copies"} {
		if !strings.Contains(r.Doc, cite) {
			t.Errorf("the rule's documentation does not cite %q from its evidence", cite)
		}
	}
}

// TestCpAsyncWgmmaEvidence ties the severities of proxy/cp-async-to-wgmma
// and proxy/generic-to-async to the record of
// fixtures/proxyfence/cpasync_wgmma_probe.cu: cp.async writes read by wgmma
// with no fence.proxy.async are a portability note only while every tile of
// the unfenced loop was right and the control (A overwritten before the
// wgmmas were waited for) shows the probe sees wgmma reading changed bytes;
// and while the same loop fed by ordinary st.shared stores with no fence
// computes wrong tiles, the generic-proxy rule must stay an error.
func TestCpAsyncWgmmaEvidence(t *testing.T) {
	rec, modes := readProxyFence(t, "cpasync_wgmma_result.json", "fenced", "unfenced", "stshared", "overwrite")
	clean := func(name string) bool {
		m := rec.Modes[modes[name]]
		return m.Tiles > 0 && m.TilesRight == m.Tiles && m.TilesWrong == 0
	}
	if !clean("fenced") {
		t.Fatalf("%s: the probe's baseline (cp.async, wait, fence.proxy.async, bar.sync) computed wrong tiles: the probe is broken", rec.GPU)
	}
	if rec.Modes[modes["overwrite"]].TilesWrong == 0 {
		t.Fatalf("%s: the control computed no wrong tile: the probe cannot see wgmma reading changed shared memory", rec.GPU)
	}
	want := SevNote
	if !clean("unfenced") {
		want = SevError
	}
	r := rulesByID[HzProxyCpAsync]
	if r.Severity != want {
		t.Errorf("%s: unfenced %+v: proxy/cp-async-to-wgmma should be %v, is %v", rec.GPU, rec.Modes[modes["unfenced"]], want, r.Severity)
	}
	un, st := rec.Modes[modes["unfenced"]], rec.Modes[modes["stshared"]]
	for _, cite := range []string{"fixtures/proxyfence", rec.GPU[strings.LastIndex(rec.GPU, " ")+1:], commas(un.Launches) + " launches", commas(un.Tiles) + " tiles", commas(st.TilesWrong)} {
		if !strings.Contains(r.Doc, cite) {
			t.Errorf("the rule's documentation does not cite %q from its evidence", cite)
		}
	}
	if st.TilesWrong > 0 && rulesByID[HzProxyFence].Severity != SevError {
		t.Errorf("%s: st.shared operands with no fence gave %d wrong tiles: proxy/generic-to-async must be an error, is %v",
			rec.GPU, st.TilesWrong, rulesByID[HzProxyFence].Severity)
	}
}

func TestCommas(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 999: "999", 1000: "1,000", 104857600: "104,857,600", 131072000: "131,072,000"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
}
