package sysmem

import (
	"os"
	"testing"
	"testing/fstest"
)

func TestAvailable(t *testing.T) {
	const meminfo = "MemTotal:       24683584 kB\nMemFree:        22813216 kB\nMemAvailable:   23830672 kB\n"
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tc := range []struct {
		name   string
		files  fstest.MapFS
		bytes  int64
		source string
		ok     bool
	}{
		{"nothing readable", fstest.MapFS{}, 0, "", false},
		{"meminfo", fstest.MapFS{"proc/meminfo": file(meminfo)}, 23830672 * 1024, "MemAvailable in /proc/meminfo", true},
		{"meminfo without MemAvailable", fstest.MapFS{"proc/meminfo": file("MemTotal: 1 kB\n")}, 0, "", false},
		{"meminfo in MB", fstest.MapFS{"proc/meminfo": file("MemAvailable: 5 MB\n")}, 0, "", false},
		{"cgroup v2 below meminfo", fstest.MapFS{"proc/meminfo": file(meminfo),
			"sys/fs/cgroup/memory.max": file("2147483648\n"), "sys/fs/cgroup/memory.current": file("1073741824\n")},
			1 << 30, "the cgroup's memory.max", true},
		{"cgroup v2 without a limit", fstest.MapFS{"proc/meminfo": file(meminfo),
			"sys/fs/cgroup/memory.max": file("max\n"), "sys/fs/cgroup/memory.current": file("1073741824\n")},
			23830672 * 1024, "MemAvailable in /proc/meminfo", true},
		{"cgroup v1 unlimited", fstest.MapFS{"proc/meminfo": file(meminfo),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("9223372036854771712\n"), "sys/fs/cgroup/memory/memory.usage_in_bytes": file("1253068800\n")},
			23830672 * 1024, "MemAvailable in /proc/meminfo", true},
		{"cgroup v1 with page cache", fstest.MapFS{"proc/meminfo": file(meminfo),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("4294967296\n"), "sys/fs/cgroup/memory/memory.usage_in_bytes": file("4294967296\n"),
			"sys/fs/cgroup/memory/memory.stat": file("cache 3221225472\ninactive_file 5\ntotal_inactive_file 1073741824\n")},
			1 << 30, "the cgroup's memory.limit_in_bytes", true},
		{"cgroup v2 with page cache", fstest.MapFS{"proc/meminfo": file(meminfo),
			"sys/fs/cgroup/memory.max": file("4294967296\n"), "sys/fs/cgroup/memory.current": file("3221225472\n"),
			"sys/fs/cgroup/memory.stat": file("anon 1\ninactive_file 1073741824\n")},
			2 << 30, "the cgroup's memory.max", true},
		{"cgroup v1 over its limit", fstest.MapFS{"proc/meminfo": file(meminfo),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("1000\n"), "sys/fs/cgroup/memory/memory.usage_in_bytes": file("2000\n")},
			0, "the cgroup's memory.limit_in_bytes", true},
	} {
		bytes, source, ok := Available(tc.files)
		if ok != tc.ok || (ok && (bytes != tc.bytes || source != tc.source)) {
			t.Errorf("%s: Available = %d, %q, %v; want %d, %q, %v", tc.name, bytes, source, ok, tc.bytes, tc.source, tc.ok)
		}
	}
}

// The real machine: where /proc/meminfo exists, its MemAvailable is read.
func TestAvailableOS(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo")
	}
	if bytes, source, ok := Available(OS()); !ok || source == "" {
		t.Errorf("Available(OS()) = %d, %q, %v", bytes, source, ok)
	}
}
