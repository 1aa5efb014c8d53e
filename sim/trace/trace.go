// Package trace is the format of tcsim's execution traces (tcsim run
// --trace FILE): typed records, a Writer that the simulator writes them
// with, and a reader (Read) that the TUI's stepper replays them from.
//
// A trace is a JSON-lines file: one object per line, each with a "type".
//
//	{"block":[128,1,1],"cluster":[1,1,1],"file":"k.ptx","grid":[1,1,1],"kernel":"k","schedule":"lazy","type":"header","version":1}
//	{"type":"inst","seq":12,"cta":[0,0,0],"warp":1,"pc":40,"line":77,"inst":"add.s32 %r3, %r1, %r2","active":"0xffffffff","exec":"0xffffffff","w":{"%r3":["0x5",...]}}
//	{"addr":65536,"cta":[0,0,0],"event":"mbarrier.phase","phase":1,"type":"event"}
//	{"cta":[0,0,0],"kind":"wgmma/acc-read-before-wait","msg":"...","pos":"k.ptx:98:5","severity":"error","type":"hazard","warp":0}
//	{"error":"","hazards":1,"steps":1234,"type":"end"}
//
// "seq" numbers instruction records in execution order. "active" is the
// warp's active mask, "exec" the lanes that executed after the guard
// predicate. "w" (with --trace-values) gives, for each destination
// register, its value in every lane of the warp after the instruction, as
// hex strings; lanes that did not execute keep their previous values.
// Events are asynchronous issues and completions ("async.issue",
// "async.complete", "wgmma.complete"), mbarrier phase changes
// ("mbarrier.phase") and "regs": registers written asynchronously, when a
// wgmma completes or a tcgen05.wait::ld lands its loads (with a "w" map
// like an instruction's; wgmma.mma_async and tcgen05.ld records
// themselves carry no "w"). A replayer rebuilds register state by applying
// the "w" maps of "inst" and "regs" records in order.
//
// The Writer writes exactly the bytes of the untyped writer that came
// before this package (version 1, sim/testdata/traces), so old and new
// traces replay alike. A file of another version is refused with its
// version number.
package trace

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is the trace format version this package writes and reads.
const Version = 1

// Header is the first record: what ran.
type Header struct {
	Version  int
	File     string // the PTX file as tcsim run was given it
	Kernel   string
	Grid     [3]int
	Block    [3]int
	Cluster  [3]int
	Schedule string // lazy, latest, eager or random
}

// Inst is one warp-instruction.
type Inst struct {
	Seq    int64 // 1, 2, ... in execution order
	CTA    [3]int
	Warp   int
	PC     int
	Line   int
	Inst   string // the instruction as tcsim prints it
	Active uint32 // the warp's active mask
	Exec   uint32 // the lanes that executed (after the guard)
	W      []Reg  // registers written, by name (with --trace-values)
}

// Reg is a register's value in every lane of a warp.
type Reg struct {
	Name  string
	Lanes [32]uint64
}

// EventKind names an event.
type EventKind string

// The events.
const (
	AsyncIssue    EventKind = "async.issue"    // an asynchronous operation issued
	AsyncComplete EventKind = "async.complete" // and completed
	WgmmaComplete EventKind = "wgmma.complete" // a wgmma.mma_async completed
	MbarrierPhase EventKind = "mbarrier.phase" // an mbarrier completed a phase
	Regs          EventKind = "regs"           // registers written asynchronously
)

// Event is something that happened between instructions. The fields
// that apply depend on Kind.
type Event struct {
	Kind EventKind
	CTA  [3]int
	// async.issue, async.complete: the operation ("tma", "wgmma", ...),
	// the issuing thread and instruction; async.issue: a description.
	Op     string
	Thread int
	PC     int // also wgmma.complete
	Desc   string
	// mbarrier.phase: the mbarrier's shared address and its new phase.
	Addr  uint32
	Phase uint64
	// wgmma.complete: the warpgroup and the operation's index in it.
	Warpgroup int
	WgmmaOp   int
	// regs: the warp and the registers it received.
	Warp int
	W    []Reg
}

// Hazard is a finding of the checker.
type Hazard struct {
	Kind     string // e.g. "wgmma-acc-read"
	Severity string // error, warning, perf
	Pos      string // "file:line:col" as tcsim prints positions ("file:-" for none)
	CTA      [3]int
	Warp     int // -1 when no warp
	Msg      string
}

// Line is the line of the hazard's position, 0 when it has none.
func (h *Hazard) Line() int { return ParsePos(h.Pos).Line }

// Pos is a source position.
type Pos struct {
	File      string
	Line, Col int
}

// ParsePos reads a position as tcsim prints it: "file:line:col",
// "file:line" or "line:col". The file may itself contain colons; a text
// with no line number ("file:-") gives a Pos with only the file.
func ParsePos(s string) Pos {
	parts := strings.Split(s, ":")
	num := func(i int) (int, bool) {
		if i < 0 || i >= len(parts) {
			return 0, false
		}
		n, err := strconv.Atoi(parts[i])
		return n, err == nil
	}
	n := len(parts)
	if l, ok := num(n - 2); ok && n >= 2 {
		if c, ok := num(n - 1); ok {
			return Pos{File: strings.Join(parts[:n-2], ":"), Line: l, Col: c}
		}
	}
	if l, ok := num(n - 1); ok && n >= 2 {
		return Pos{File: strings.Join(parts[:n-1], ":"), Line: l}
	}
	return Pos{File: strings.TrimSuffix(s, ":-")}
}

// End is the last record of a complete trace.
type End struct {
	Steps   int64  // warp-instructions executed
	Hazards int    // hazards reported
	Error   string // the run's error, "" when it finished
}

// Type is the type of a record.
type Type uint8

// The record types.
const (
	TypeHeader Type = iota
	TypeInst
	TypeEvent
	TypeHazard
	TypeEnd
)

var typeNames = [...]string{TypeHeader: "header", TypeInst: "inst", TypeEvent: "event", TypeHazard: "hazard", TypeEnd: "end"}

// String returns the type as the file spells it ("inst").
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// Record is one record after the header: Type says which of its fields
// is set.
type Record struct {
	Type   Type
	Line   int // the line of the file it was read from (0 when written)
	Inst   *Inst
	Event  *Event
	Hazard *Hazard
	End    *End
}
