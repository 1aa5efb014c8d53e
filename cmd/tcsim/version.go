package main

import "runtime/debug"

// Version is tcsim's version. Release builds may set it with
// -ldflags "-X main.Version=v1.2.3"; otherwise it carries the VCS revision
// the binary was built from, when Go recorded one.
var Version = "0.1.0-dev"

func init() {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" && Version == "0.1.0-dev" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		Version += "+" + rev + dirty
	}
}
