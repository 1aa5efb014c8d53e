// Package sysmem says how much memory this process can still allocate, so
// that a command can refuse a launch that would run the machine out of
// memory before it allocates anything.
package sysmem

import (
	"bufio"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
)

// Available is the memory the process can still allocate, in bytes: the
// smallest of the kernel's MemAvailable and the room left under the memory
// limits of the process's cgroup (v2 and v1; the inactive page cache counts
// as room), each read from fsys rooted at "/". Source names where the figure came from. ok is false where none of
// them could be read (not Linux, say): nothing is known.
func Available(fsys fs.FS) (bytes int64, source string, ok bool) {
	bytes = math.MaxInt64
	if n, found := meminfo(fsys); found {
		bytes, source, ok = n, "MemAvailable in /proc/meminfo", true
	}
	for _, c := range []struct{ dir, limit, usage, inactive, name string }{
		{"sys/fs/cgroup", "memory.max", "memory.current", "inactive_file", "the cgroup's memory.max"},
		{"sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file", "the cgroup's memory.limit_in_bytes"},
	} {
		limit, lok := readInt(fsys, c.dir+"/"+c.limit)
		usage, uok := readInt(fsys, c.dir+"/"+c.usage)
		if !lok || !uok {
			continue
		}
		// the usage counts the page cache, which the kernel reclaims
		// before it fails an allocation: its inactive part is room
		usage -= min(statValue(fsys, c.dir+"/memory.stat", c.inactive), usage)
		if room := max(limit-usage, 0); room < bytes {
			bytes, source, ok = room, c.name, true
		}
	}
	return bytes, source, ok
}

// OS is the root file system, for Available.
func OS() fs.FS { return os.DirFS("/") }

// meminfo reads MemAvailable (in kB) from proc/meminfo.
func meminfo(fsys fs.FS) (int64, bool) {
	f, err := fsys.Open("proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	return parseMeminfo(f)
}

func parseMeminfo(r io.Reader) (int64, bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, false
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n < 0 || n > math.MaxInt64/1024 {
			return 0, false
		}
		return n * 1024, true
	}
	return 0, false
}

// readInt reads a file holding one decimal number; "max" (cgroup v2's
// no limit) and unreadable files are not numbers.
func readInt(fsys fs.FS, name string) (int64, bool) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil && n >= 0
}

// statValue reads one key of a cgroup's memory.stat (0 when absent).
func statValue(fsys fs.FS, name, key string) int64 {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}
