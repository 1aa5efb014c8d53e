package provenance

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	p := Provenance{GPU: "NVIDIA H100 80GB HBM3", Arch: "sm_90", DriverVersion: "580.159.04", CUDAVersion: "13.0",
		Date: "2026-11-22T10:00:00Z", TcsimVersion: "0.1.0-dev", Command: "tcsim record k.ptx", JITLog: "ptxas info",
		KernelAttrs: map[string]int{"registers": 10}, ElapsedMS: 0.5}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var q Provenance
	if err := json.Unmarshal(b, &q); err != nil {
		t.Fatal(err)
	}
	if q.GPU != p.GPU || q.DriverVersion != p.DriverVersion || q.KernelAttrs["registers"] != 10 || q.ElapsedMS != 0.5 || q.Command != p.Command {
		t.Errorf("round trip: %+v", q)
	}
}

// The cvt probe records of fixtures/numfmt name three fields differently.
func TestOlderRecordKeys(t *testing.T) {
	var p Provenance
	err := json.Unmarshal([]byte(`{"arch":"sm_90","command":"tcsim num probe run","cuda":"13.0","date":"2026-11-22","driver":"580.159.04","gpu":"NVIDIA H100 80GB HBM3","tool":"tcsim 0.1.0-dev"}`), &p)
	if err != nil {
		t.Fatal(err)
	}
	want := Provenance{GPU: "NVIDIA H100 80GB HBM3", Arch: "sm_90", DriverVersion: "580.159.04", CUDAVersion: "13.0",
		Date: "2026-11-22", TcsimVersion: "0.1.0-dev", Command: "tcsim num probe run"}
	if p.GPU != want.GPU || p.Arch != want.Arch || p.DriverVersion != want.DriverVersion || p.CUDAVersion != want.CUDAVersion ||
		p.Date != want.Date || p.TcsimVersion != want.TcsimVersion || p.Command != want.Command {
		t.Errorf("got %+v\nwant %+v", p, want)
	}
}

func TestUnknownField(t *testing.T) {
	var p Provenance
	if err := json.Unmarshal([]byte(`{"gpu":"x","gpus":"y"}`), &p); err == nil || !strings.Contains(err.Error(), `unknown field "gpus"`) {
		t.Errorf("unknown field: %v", err)
	}
}
