package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/tcsim/tcsim/internal/demangle"
	"github.com/tcsim/tcsim/isa/tensormap"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/launch"
)

// Schedule says when asynchronous operations complete and how warps are
// interleaved.
type Schedule uint8

const (
	// Lazy is the default: warps run round-robin in a fixed order; a wgmma
	// group, a tcgen05.mma, a bulk store or a cp.async group completes as
	// late as the PTX rules allow (at the wait that covers it, or when no
	// warp can run without it). Copies that complete on an mbarrier (TMA
	// and bulk loads) land at issue: their completion is only observable
	// through the mbarrier.
	Lazy Schedule = iota
	// Eager completes every asynchronous operation as soon as it is
	// issued (a wgmma as soon as its whole warpgroup has issued it).
	Eager
	// Latest delays every asynchronous operation, mbarrier copies too,
	// until something waits for it or no warp can run.
	Latest
	// Random interleaves warps in a seeded random order with random
	// quanta and completes asynchronous operations at random legal
	// points, so that order-dependent bugs show up. The same seed gives
	// the same run.
	Random
)

func (s Schedule) String() string {
	switch s {
	case Eager:
		return "eager"
	case Random:
		return "random"
	case Latest:
		return "latest"
	}
	return "lazy"
}

// ParseSchedule parses "lazy", "latest", "eager" or "random".
func ParseSchedule(s string) (Schedule, error) {
	switch s {
	case "lazy", "":
		return Lazy, nil
	case "eager":
		return Eager, nil
	case "random":
		return Random, nil
	case "latest":
		return Latest, nil
	}
	return Lazy, fmt.Errorf("schedule %q: want lazy, latest, eager or random", s)
}

// Options configure a simulation.
type Options struct {
	Schedule Schedule
	Seed     uint64 // for Random
	// Check enables the hazard checker's shared-memory race detection and
	// bank-conflict statistics. Protocol checks (wgmma, mbarrier, TMA,
	// tcgen05) are always on.
	Check bool
	// MaxSteps bounds the warp-instructions of the whole run (0: 2^32).
	MaxSteps int64
	// MaxMemory bounds the bytes of all the launch's buffers (0:
	// DefaultMaxMemory), so that a huge size= fails before anything is
	// allocated.
	MaxMemory int64
	// MemoryAvailable is the memory the machine can give the buffers, in
	// bytes: a launch of 256 MiB or more that needs more fails before
	// anything is allocated. 0 asks the operating system
	// (internal/sysmem); a negative value skips the check.
	MemoryAvailable int64
	// Deadline, when set, stops the run with a LimitError once the wall
	// clock passes it (checked every 1024 instructions of a unit and
	// whenever a unit starts or finishes).
	Deadline time.Time
	// Workers is the number of CTAs (or clusters) simulated at once:
	// 0 uses every core, 1 runs them one after another.
	Workers int
	// Quantum is how many instructions a warp runs before the scheduler
	// moves on (0: 64).
	Quantum int
	// Trace receives a JSON-lines trace of every instruction and event
	// (see trace.go); tracing runs CTAs one at a time.
	Trace io.Writer
	// TraceValues adds the destination registers' values to every
	// instruction record.
	TraceValues bool
	// Policy says which hazard rules are reported and how severe they are
	// (--strict, --allow).
	Policy RulePolicy
	// CTAsPerSM is how many CTAs of a launch without clusters run
	// together on one SM, sharing its Tensor Memory (tcgen05_sm.go): 0 or
	// 1 runs each CTA alone.
	CTAsPerSM int
}

// Machine is one launch of a program: global memory, the parameter space,
// and the grid of CTAs.
type Machine struct {
	Prog      *Program
	Opts      Options
	Grid      [3]int
	Block     [3]int
	Cluster   [3]int // all 1 without a cluster launch
	Clustered bool
	DynSmem   int
	Binding   *launch.Binding

	Global *GlobalMemory
	Param  []byte
	Const  []byte
	tmaps  []*tensorMap // the tensor maps decoded so far
	// tmapByBytes finds a decoded map by its bytes; tmapNames names the
	// maps the launch's tmap: parameters encode.
	tmapByBytes map[[tensormap.Size]byte]*tensorMap
	tmapNames   map[[tensormap.Size]byte]string

	// bufferOf maps a launch slot index to its buffer.
	bufferOf map[int]*Buffer

	mu      sync.Mutex
	hazards hazardSet
	stats   *Stats
	trace   *tracer

	steps         atomic.Int64
	atomicMu      sync.Mutex // global atomics when CTAs run in parallel
	parallel      bool
	err           error
	stopped       atomic.Bool
	approx        map[int]bool // pcs of approximate instructions executed
	threadsPerCTA int
	warpsPerCTA   int

	stepper *Stepper

	// The grid's units (clusters, or CTAs) in launch order, and which have
	// been started or cancelled by clusterlaunchcontrol.
	unitList  unitList
	unitState *unitStates
}

func (m *Machine) noteApprox(pc int) {
	m.mu.Lock()
	m.approx[pc] = true
	m.mu.Unlock()
}

// NewMachine prepares a launch: it allocates and fills the buffers, encodes
// the tensor maps and packs the parameter space. b is the launch bound to
// the program's kernel (launch.Launch.Bind).
func NewMachine(p *Program, b *launch.Binding, opts Options) (*Machine, error) {
	l := b.Launch
	m := &Machine{Prog: p, Opts: opts, Binding: b, Global: &GlobalMemory{}, bufferOf: map[int]*Buffer{},
		approx: map[int]bool{}}
	for i := 0; i < 3; i++ {
		m.Grid[i], m.Block[i], m.Cluster[i] = int(l.Grid[i]), int(l.Block[i]), 1
	}
	if !l.Cluster.IsZero() {
		m.Clustered = true
		for i := 0; i < 3; i++ {
			m.Cluster[i] = int(l.Cluster[i])
		}
	}
	m.DynSmem = l.SharedMem
	m.threadsPerCTA = m.Block[0] * m.Block[1] * m.Block[2]
	m.warpsPerCTA = (m.threadsPerCTA + 31) / 32
	if p.SharedStatic > MaxSharedPerCTA {
		return nil, fmt.Errorf("the kernel declares %d bytes of static shared memory, more than the %d an sm_90 CTA can have", p.SharedStatic, MaxSharedPerCTA)
	}
	if total := p.DynSharedOffset + m.DynSmem; total > MaxSharedPerCTA {
		return nil, fmt.Errorf("the kernel needs %d bytes of shared memory (%d static + %d dynamic), more than the %d an sm_90 CTA can have",
			total, p.SharedStatic, m.DynSmem, MaxSharedPerCTA)
	}
	// Parameters must agree with the program's own layout.
	if len(b.Params) != len(p.Kernel.Params) {
		return nil, fmt.Errorf("kernel %s has %d parameters; the launch binds %d", demangle.Short(p.Kernel.Name), len(p.Kernel.Params), len(b.Params))
	}
	for i, bp := range b.Params {
		if int64(bp.Offset) != p.Kernel.Params[i].Off {
			return nil, fmt.Errorf("internal error: parameter %d (%s) at offset %d in the launch, %d in the program", i, bp.Name, bp.Offset, p.Kernel.Params[i].Off)
		}
	}
	slots := b.Slots()
	if _, err := b.Placements(); err != nil {
		return nil, err
	}
	limit, total := opts.maxMemory(), int64(0)
	for _, s := range slots {
		if s.Param.Kind == launch.BufferParam {
			total += int64(s.Param.Size)
		}
	}
	if total > limit {
		return nil, &MemoryLimitError{Need: total, Limit: limit}
	}
	if err := opts.checkAvailable(total); err != nil {
		return nil, err
	}
	total = 0
	// Placed buffers first, then the others around them.
	for _, placed := range []bool{true, false} {
		for i, s := range slots {
			if s.Param.Kind != launch.BufferParam || (s.Param.Addr != 0) != placed {
				continue
			}
			data, err := s.Param.Contents()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.Label(), err)
			}
			if total += int64(len(data)); total > limit {
				return nil, &MemoryLimitError{Need: total, Limit: limit}
			}
			if !placed {
				m.bufferOf[s.Index] = m.Global.Alloc(s.Name, data, i)
				continue
			}
			if m.bufferOf[s.Index], err = m.Global.AllocAt(s.Name, s.Param.Addr, data, i); err != nil {
				return nil, fmt.Errorf("%s: %w", s.Label(), err)
			}
		}
	}
	for _, gv := range p.GlobalVars {
		buf := append([]byte(nil), gv.Init...)
		gb := m.Global.Alloc(gv.Name, buf, -1)
		gv.Addr = gb.Base
	}
	for _, gv := range p.GlobalVars {
		gb, _ := m.Global.Find(gv.Addr, 1)
		for _, r := range gv.relocs {
			addr, ok := m.symbolAddress(r.sym)
			if !ok {
				return nil, fmt.Errorf("initializer of %s refers to %s, which has no address", gv.Name, r.sym)
			}
			v := addr + uint64(r.add)
			for k := 0; k < r.size; k++ {
				gb.Data[r.off+k] = byte(v >> (8 * k))
			}
		}
	}
	values := make([][]byte, len(b.Params))
	for i, bp := range b.Params {
		switch bp.Param.Kind {
		case launch.BufferParam:
			v := make([]byte, 8)
			binary.LittleEndian.PutUint64(v, m.bufferOf[i].Base)
			values[i] = v
		case launch.TensorMapParam:
			j, err := b.Resolve(bp.Param.TMap.Buffer)
			if err != nil {
				return nil, err
			}
			buf := m.bufferOf[j]
			if end := bp.Param.TMap.Offset + bp.Param.TMap.Extent(); end > uint64(len(buf.Data)) {
				return nil, fmt.Errorf("param %s: the tensor map spans bytes [%d, %d) of buffer %s, which has %d bytes",
					bp.Label(), bp.Param.TMap.Offset, end, buf.Name, len(buf.Data))
			}
			// The driver's encoding: the kernel reads the map as it would
			// on a GPU.
			raw, err := tensormap.Encode(bp.Param.TMap.Driver(buf.Base + bp.Param.TMap.Offset))
			if err != nil {
				return nil, fmt.Errorf("param %s: %w", bp.Label(), err)
			}
			if m.tmapNames == nil {
				m.tmapNames = map[[tensormap.Size]byte]string{}
			}
			if _, dup := m.tmapNames[raw]; !dup {
				m.tmapNames[raw] = bp.Name
			}
			if _, err := m.tensorMapOf(raw, 0); err != nil {
				return nil, fmt.Errorf("param %s: %w", bp.Label(), err)
			}
			values[i] = raw[:]
		default:
			values[i] = bp.Param.ScalarBytes()
		}
	}
	var err error
	if m.Param, err = b.Pack(values); err != nil {
		return nil, err
	}
	m.Const = append([]byte(nil), p.ConstBank...)
	// Resolve .global variable address operands.
	for i := range p.Insts {
		in := &p.Insts[i]
		if gr, ok := in.ext.(globalRef); ok {
			addr, _ := m.symbolAddress(gr.name)
			for k := range in.src {
				if in.src[k].K == oImm && in.src[k].Name == gr.name {
					in.src[k] = immOpnd(addr + uint64(in.src[k].Off))
					in.src[k].Name = gr.name
				}
			}
		}
	}
	if opts.Check {
		m.stats = newStats()
	}
	return m, nil
}

// MaxSharedPerCTA is the H100's largest shared memory per CTA (227 KB).
const MaxSharedPerCTA = 227 * 1024

func (m *Machine) symbolAddress(name string) (uint64, bool) {
	for _, gv := range m.Prog.GlobalVars {
		if gv.Name == name {
			return gv.Addr, true
		}
	}
	if off, ok := m.Prog.sharedSyms[name]; ok {
		return SharedWindow + uint64(off), true
	}
	if off, ok := m.Prog.constSyms[name]; ok {
		return ConstWindow + uint64(off), true
	}
	return 0, false
}

// Buffer returns the buffer of a launch slot (a parameter or an extra
// buffer) by reference: an index, a launch name or a declared name.
func (m *Machine) Buffer(ref string) (*Buffer, error) {
	i, err := m.Binding.Resolve(ref)
	if err != nil {
		return nil, err
	}
	b := m.bufferOf[i]
	if b == nil {
		return nil, fmt.Errorf("%s is not a buffer", ref)
	}
	return b, nil
}

// Output is the contents of one buffer after a run.
type Output struct {
	Index int
	Name  string
	Data  []byte
}

// Outputs returns the launch's output buffers (every buffer when it lists
// none), as the GPU runner reports them.
func (m *Machine) Outputs() []Output {
	var out []Output
	for _, i := range m.Binding.OutputIndices() {
		b := m.bufferOf[i]
		out = append(out, Output{Index: i, Name: m.Binding.Slot(i).Name, Data: b.Data})
	}
	return out
}

// Run simulates the whole grid. It returns an error for a fault (an
// out-of-bounds access, an unsupported instruction, a deadlock, the step
// limit); hazards are collected either way (Hazards).
func (m *Machine) Run() error {
	if err := m.checkColocation(); err != nil {
		return err
	}
	units := m.smUnits(m.units())
	workers := m.Opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if m.Opts.Trace != nil || m.Opts.Schedule == Random {
		workers = 1
	}
	if m.Opts.Trace != nil && m.trace == nil {
		m.trace = newTracer(m, m.Opts.Trace)
	}
	workers = min(workers, units.Len())
	m.parallel = workers > 1
	if workers <= 1 {
		for i := 0; i < units.Len() && !m.stopped.Load(); i++ {
			ids := units.claim(i)
			if ids == nil {
				continue
			}
			if err := m.runUnit(ids); err != nil {
				m.setErr(err)
				break
			}
		}
	} else {
		var wg sync.WaitGroup
		next := atomic.Int64{}
		for k := 0; k < workers; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !m.stopped.Load() {
					i := int(next.Add(1) - 1)
					if i >= units.Len() {
						return
					}
					ids := units.claim(i)
					if ids == nil {
						continue
					}
					if err := m.runUnit(ids); err != nil {
						m.setErr(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	if m.err == nil {
		m.reportBankConflicts()
	}
	if m.trace != nil {
		m.trace.flush()
	}
	return m.err
}

func (m *Machine) setErr(err error) {
	m.mu.Lock()
	if m.err == nil {
		m.err = err
	}
	m.mu.Unlock()
	m.stopped.Store(true)
}

// unit is a set of CTAs (one, or one cluster) simulated together.
type unit struct {
	m        *Machine
	ctas     []*CTA
	warps    []*Warp
	async    []*asyncOp
	rng      *rand.Rand
	progress uint64
	steps    int64
	counted  int64 // steps already added to the machine's count
	next     int
	race     *raceState
	agents   int // VC slots of the async agents: one per CTA after the warps
	seqNo    uint64
	cluster  *clusterBarrier
	shadow   bool
	sm       *smState // the SM's TMEM allocator when the unit is the CTAs of an SM (tcgen05_sm.go)
}

// CTA is one thread block.
type CTA struct {
	u                 *unit
	ID                [3]int
	Linear            int
	Rank              int // rank in the cluster
	Smem              []byte
	Warps             []*Warp
	live              int // threads that have not exited
	bars              [16]ctaBarrier
	mbars             map[uint32]*mbarrier
	wgs               []*warpgroup
	tmem              *tmemState
	bulk              []*bulkGroups // per thread: cp.async.bulk groups
	cpasync           []*cpAsyncGroups
	agent             int // VC slot of this CTA's async proxy
	exitedHazardsDone bool
	// the shared-memory regions in-flight async operations write or read
	// (without Options.Check)
	infl        inflightIndex
	tags        []elemTag // per shared byte: the tensor element a TMA copy put there
	srcTags     []uint64  // per shared byte: the global address it was copied or stored from (provenance.go)
	tcgenIssued int       // tcgen05 operations issued so far
	tcgenFenced int       // tcgen05 work published with fence::before_thread_sync so far
	// sharedBase is what the hardware's shared::cta addresses of this CTA
	// carry above the offset: the CTA's rank in its cluster, in bits 24 and
	// up (0 without a cluster). A shared::cluster address names CTA rank
	// addr>>24 of the cluster.
	sharedBase uint64
}

// elemTag says which tensor element a TMA load wrote at a shared byte.
type elemTag struct {
	tmap   int32 // index+1; 0 = none
	c0, c1 int32
}

func (m *Machine) newUnit(ids [][3]int) *unit {
	u := &unit{m: m, shadow: true}
	if m.Opts.Schedule == Random {
		seed := m.Opts.Seed
		for _, id := range ids {
			seed = seed*1000003 + uint64(id[0]+id[1]*7919+id[2]*104729)
		}
		u.rng = rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	}
	if m.colocated() {
		u.sm = &smState{reported: map[*CTA]uint8{}}
	}
	for r, id := range ids {
		if u.sm != nil {
			r = 0 // CTAs of one SM, each alone in its cluster
		}
		c := &CTA{u: u, ID: id, Rank: r, mbars: map[uint32]*mbarrier{}}
		c.Linear = id[0] + m.Grid[0]*(id[1]+m.Grid[1]*id[2])
		c.sharedBase = uint64(r) << 24
		c.Smem = make([]byte, m.Prog.DynSharedOffset+m.DynSmem)
		c.live = m.threadsPerCTA
		for w := 0; w < m.warpsPerCTA; w++ {
			wp := newWarp(c, w)
			c.Warps = append(c.Warps, wp)
			wp.uid = len(u.warps)
			u.warps = append(u.warps, wp)
		}
		for g := 0; g < (m.warpsPerCTA+3)/4; g++ {
			c.wgs = append(c.wgs, newWarpgroup(c, g))
		}
		c.bulk = make([]*bulkGroups, m.threadsPerCTA)
		c.cpasync = make([]*cpAsyncGroups, m.threadsPerCTA)
		if m.Opts.Check {
			c.tags = make([]elemTag, len(c.Smem))
			if m.Prog.hasWgmma || m.Prog.hasTcgen05 {
				c.srcTags = make([]uint64, len(c.Smem))
			}
		}
		u.ctas = append(u.ctas, c)
	}
	for _, c := range u.ctas {
		c.agent = len(u.warps) + u.agents
		u.agents++
	}
	if m.Opts.Check {
		u.race = newRaceState(u)
	}
	return u
}

func (m *Machine) runUnit(ids [][3]int) error {
	if err := m.checkLimits(m.steps.Load(), ids[0], false); err != nil {
		return err
	}
	u := m.newUnit(ids)
	err := u.run(nil)
	total := m.steps.Add(u.steps - u.counted) // runWarp adds whole 1024s as it goes
	u.counted = u.steps
	if err != nil {
		return err
	}
	return m.checkLimits(total, ids[0], true)
}

// Steps is the number of warp-instructions executed so far.
func (m *Machine) Steps() int64 { return m.steps.Load() }

// quantum returns how many instructions the next warp may run.
func (u *unit) quantum() int {
	if u.rng != nil {
		return 1 + u.rng.IntN(16)
	}
	if q := u.m.Opts.Quantum; q > 0 {
		return q
	}
	return 64
}

// run schedules the unit's warps until they finish. stop, when set, is
// asked before every instruction (stepping, breakpoints).
func (u *unit) run(stop func(w *Warp) bool) error {
	m := u.m
	for {
		if m.stopped.Load() {
			return nil
		}
		ran := false
		n := len(u.warps)
		start := u.next
		if u.rng != nil {
			start = u.rng.IntN(n)
			// Random mode: sometimes complete an async operation early.
			if len(u.async) > 0 && u.rng.IntN(4) == 0 {
				u.completeOne(u.rng.IntN(len(u.async)))
			}
		}
		allDone := true
		for i := 0; i < n; i++ {
			w := u.warps[(start+i)%n]
			if w.state == warpDone {
				continue
			}
			allDone = false
			if !w.ready() {
				continue
			}
			ran = true
			if err := u.runWarp(w, u.quantum(), stop); err != nil {
				return err
			}
			if w.stopReq {
				w.stopReq = false
				u.next = (start + i) % n
				return errStopped
			}
		}
		u.next = (start + 1) % n
		if allDone {
			u.finish()
			return nil
		}
		if ran {
			continue
		}
		if u.completeAsync() {
			continue
		}
		return u.deadlock()
	}
}

var errStopped = errors.New("stopped")

// finish runs what remains when every warp has exited: pending async
// operations complete, and the end-of-CTA rules are checked.
func (u *unit) finish() {
	for _, c := range u.ctas {
		c.checkExit()
	}
	for len(u.async) > 0 {
		u.completeOne(0)
	}
}

// deadlock reports where every warp is stuck.
func (u *unit) deadlock() error {
	var b strings.Builder
	fmt.Fprintf(&b, "deadlock: no warp can make progress")
	var stuck []string
	allMbar := true
	pc := -1
	for _, w := range u.warps {
		if w.state == warpDone {
			continue
		}
		in := w.currentInst()
		where := "?"
		if in != nil {
			where = fmt.Sprintf("%s: %s", u.m.Prog.pos(in), in.PTX)
			if pc < 0 {
				pc = in.PC
			}
		}
		if w.wait.kind != waitMbar {
			allMbar = false
		}
		s := fmt.Sprintf("  CTA %s warp %d (lanes %#08x) at %s: %s", fmtID(w.cta.ID), w.ID, w.activeMask(), where, w.waitReason())
		stuck = append(stuck, s)
		b.WriteString("\n" + s)
	}
	h := Hazard{Kind: HzDeadlock, Severity: SevError, PC: pc, CTA: u.ctas[0].ID, Warp: -1,
		Msg:    "deadlock: every remaining warp waits for something that can no longer happen",
		Detail: strings.Join(stuck, "\n")}
	if allMbar {
		h.Kind = HzMbarPhase
		h.Msg = "mbarrier wait on a phase that can never complete: no thread or copy is left to arrive on the barrier"
		h.Detail += "\na wait on parity p succeeds once the phase of parity p has completed; waiting on the parity of the current (incomplete) phase with nothing left to arrive hangs forever"
	}
	for _, w := range u.warps {
		if w.state != warpDone && w.wait.kind == waitMbar {
			// the warps stuck on an mbarrier are the cause; the others
			// wait for them
			if !allMbar {
				h.Kind = HzMbarPhase
				h.Msg = "mbarrier wait on a phase that can never complete"
			}
			u.mbarStuck(w, &h)
			break
		}
	}
	u.linkStuck(&h)
	u.m.hazard(h)
	return &DeadlockError{Msg: b.String()}
}

// DeadlockError is returned when no warp can make progress.
type DeadlockError struct{ Msg string }

func (e *DeadlockError) Error() string { return e.Msg }

func fmtID(id [3]int) string {
	return fmt.Sprintf("(%d,%d,%d)", id[0], id[1], id[2])
}

func (p *Program) pos(in *Inst) ptx.Position {
	return ptx.Position{Filename: p.Filename, Pos: in.PTX.Pos}
}

// Fault is a run-time error in the simulated kernel: an out-of-bounds
// access, a misaligned address, an unsupported instruction.
type Fault struct {
	Pos  ptx.Position
	Inst string
	CTA  [3]int
	Warp int
	Lane int
	Msg  string
}

func (f *Fault) Error() string {
	return fmt.Sprintf("%s: %s\n  in %s (CTA %s, warp %d, lane %d, thread %d)", f.Pos, f.Msg, f.Inst, fmtID(f.CTA), f.Warp, f.Lane, f.Warp*32+f.Lane)
}
