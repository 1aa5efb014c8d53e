package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReportConsequences: a root cause's consequences are listed under its
// finding in every format, and are not findings of their own.
func TestReportConsequences(t *testing.T) {
	args := []string{"run", "../../fixtures/sim/broken/gemm_expect_tx_short.ptx", "--launch", "../../fixtures/sim/launch/gemm_tma_wgmma.json", "--check", "-q", "--limit", "0"}
	for _, sched := range []string{"lazy", "latest"} {
		a := append(append([]string(nil), args...), "--schedule", sched)
		code, out, _ := runCLI(t, a...)
		if code != 1 || strings.Count(out, "error [") != 1 || !strings.Contains(out, "error [mbarrier/tx-mismatch]") ||
			!strings.Contains(out, "consequences (this run's; they vary with --schedule): async/") || !strings.Contains(out, "1 error\n") {
			t.Errorf("%s: exit %d, want one tx-mismatch error with its consequences:\n%s", sched, code, out)
		}
		code, out, _ = runCLI(t, append(a, "--brief")...)
		if code != 1 || !strings.Contains(out, "gemm_expect_tx_short.ptx:113:2: error [mbarrier/tx-mismatch]") || !strings.Contains(out, " consequences)") {
			t.Errorf("%s --brief: exit %d:\n%s", sched, code, out)
		}
		code, out, _ = runCLI(t, append(a, "--format", "json")...)
		var doc struct {
			Findings []struct {
				Rule         string
				Consequences []struct {
					Rule string
					At   struct{ Line int }
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s --format json: %v", sched, err)
		}
		if code != 1 || len(doc.Findings) != 1 || len(doc.Findings[0].Consequences) == 0 || !strings.HasPrefix(doc.Findings[0].Consequences[0].Rule, "async/") {
			t.Errorf("%s --format json: exit %d, %+v", sched, code, doc)
		}
	}
}

// TestReportBriefAllowed: --brief says which rules --allow silenced, as the
// full report does.
func TestReportBriefAllowed(t *testing.T) {
	code, out, _ := runCLI(t, "run", "../../fixtures/sim/broken/gemm_wrong_swizzle.ptx", "--launch", "../../fixtures/sim/launch/gemm_tma_wgmma.json",
		"--check", "-q", "--limit", "0", "--brief", "--allow", "desc/layout-mismatch")
	if code != 0 || strings.Contains(out, "error [") || !strings.Contains(out, "allowed (not reported): desc/layout-mismatch ×") {
		t.Errorf("exit %d, want the allowed line:\n%s", code, out)
	}
}

// TestReportWarpgroupCounts: a wgmma's read of shared memory counts the
// warpgroup's warps and threads (Triton's cp.async→wgmma note).
func TestReportWarpgroupCounts(t *testing.T) {
	code, out, _ := runCLI(t, "run", "--case", "../../fixtures/captures/triton_matmul_bf16", "--check", "-q", "--limit", "0", "--format", "json")
	var doc struct {
		Findings []struct {
			Rule                 string
			CTAs, Warps, Threads int
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	found := false
	for _, f := range doc.Findings {
		if f.Rule != "proxy/cp-async-to-wgmma" {
			continue
		}
		found = true
		if f.Warps < 4*f.CTAs || f.Threads != 32*f.Warps {
			t.Errorf("%s: %d CTAs, %d warps, %d threads: want the warpgroups' warps and their 32 threads each", f.Rule, f.CTAs, f.Warps, f.Threads)
		}
	}
	if code != 0 || !found {
		t.Errorf("exit %d, want the cp.async→wgmma note: %+v", code, doc)
	}
}

// TestReportNotHardwareVerified: a finding of a rule no hardware measured
// says so, in text, --brief and JSON.
func TestReportNotHardwareVerified(t *testing.T) {
	args := []string{"run", "../../fixtures/sim/broken/tcgen05_missing_wait_ld.ptx", "--launch", "../../fixtures/sim/launch/tcgen05_gemm.json", "--check", "-q", "--limit", "0"}
	for _, extra := range [][]string{nil, {"--brief"}} {
		code, out, _ := runCLI(t, append(args, extra...)...)
		if code != 0 || !strings.Contains(out, "note [tcgen05/ld-read-before-wait] (not hardware-verified) ") {
			t.Errorf("%v: exit %d, want the note marked not hardware-verified:\n%s", extra, code, out)
		}
	}
	code, out, _ := runCLI(t, append(args, "--format", "json")...)
	if code != 0 || !strings.Contains(out, `"not_hardware_verified": true`) {
		t.Errorf("--format json: exit %d:\n%s", code, out)
	}
}
