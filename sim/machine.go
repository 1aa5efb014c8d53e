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
	"sort"
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

// Buffer is one allocation of global memory.
type Buffer struct {
	Name string
	Base uint64
	Data []byte
	Slot int // launch slot (-1 for module .global variables)
}

// GlobalMemory holds the launch's buffers.
type GlobalMemory struct {
	bufs []*Buffer // sorted by Base
	next uint64
}

// allocGap is the alignment of the buffers the simulator places itself and
// the unmapped gap it leaves after each, so that an out-of-bounds access
// never lands in a neighbour.
const allocGap = 1 << 20

// Alloc adds a buffer of data (not copied) at an address of the
// simulator's choosing: 1 MiB aligned, after the last one, clear of
// placed buffers by at least 1 MiB.
func (g *GlobalMemory) Alloc(name string, data []byte, slot int) *Buffer {
	if g.next == 0 {
		g.next = GlobalBase
	}
	size := uint64(len(data))
	base := g.next
	for moved := true; moved; {
		moved = false
		for _, b := range g.bufs {
			lo, hi := b.Base, b.Base+uint64(len(b.Data))
			if base < hi+allocGap && base+size+allocGap > lo {
				base = (hi + 2*allocGap - 1) &^ (allocGap - 1)
				moved = true
			}
		}
	}
	b := &Buffer{Name: name, Base: base, Data: data, Slot: slot}
	g.next = base + (size+2*allocGap-1)&^(allocGap-1)
	g.insert(b)
	return b
}

// AllocAt adds a buffer of data (not copied) at address base, where the
// launch placed it (addr=). It fails when the range overlaps another
// buffer or one of the simulator's windows for generic addresses of
// shared, local, parameter and constant memory.
func (g *GlobalMemory) AllocAt(name string, base uint64, data []byte, slot int) (*Buffer, error) {
	end := base + uint64(len(data))
	for _, w := range []struct {
		name string
		lo   uint64
	}{{"shared", SharedWindow}, {"local", LocalWindow}, {"parameter", ParamWindow}, {"constant", ConstWindow}} {
		if base < w.lo+windowSize && end > w.lo {
			return nil, fmt.Errorf("buffer %s at [%#x, %#x) overlaps [%#x, %#x), where the simulator keeps generic addresses of %s memory: place it elsewhere", name, base, end, w.lo, w.lo+windowSize, w.name)
		}
	}
	for _, b := range g.bufs {
		if base < b.Base+uint64(len(b.Data)) && end > b.Base {
			return nil, fmt.Errorf("buffer %s at [%#x, %#x) overlaps buffer %s at [%#x, %#x)", name, base, end, b.Name, b.Base, b.Base+uint64(len(b.Data)))
		}
	}
	b := &Buffer{Name: name, Base: base, Data: data, Slot: slot}
	g.insert(b)
	return b, nil
}

// insert keeps bufs sorted by Base.
func (g *GlobalMemory) insert(b *Buffer) {
	i := sort.Search(len(g.bufs), func(i int) bool { return g.bufs[i].Base > b.Base })
	g.bufs = append(g.bufs, nil)
	copy(g.bufs[i+1:], g.bufs[i:])
	g.bufs[i] = b
}

// Find returns the buffer holding [addr, addr+n).
func (g *GlobalMemory) Find(addr uint64, n int) (*Buffer, bool) {
	i := sort.Search(len(g.bufs), func(i int) bool { return g.bufs[i].Base > addr }) - 1
	if i < 0 {
		return nil, false
	}
	b := g.bufs[i]
	if addr+uint64(n) <= b.Base+uint64(len(b.Data)) {
		return b, true
	}
	return b, false
}

// Nearest describes where addr is relative to the closest buffer.
func (g *GlobalMemory) Nearest(addr uint64) string {
	var best *Buffer
	var dist uint64 = ^uint64(0)
	for _, b := range g.bufs {
		var d uint64
		switch {
		case addr < b.Base:
			d = b.Base - addr
		case addr >= b.Base+uint64(len(b.Data)):
			d = addr - (b.Base + uint64(len(b.Data)) - 1)
		}
		if d < dist {
			best, dist = b, d
		}
	}
	if best == nil {
		return "no buffer is allocated"
	}
	if addr < best.Base {
		return fmt.Sprintf("%d bytes before buffer %s [%#x, %#x)", best.Base-addr, best.Name, best.Base, best.Base+uint64(len(best.Data)))
	}
	end := best.Base + uint64(len(best.Data))
	if addr >= end {
		return fmt.Sprintf("%d bytes past the end of buffer %s [%#x, %#x), which has %d bytes", addr-end, best.Name, best.Base, end, len(best.Data))
	}
	return fmt.Sprintf("byte %d of buffer %s (%d bytes), running past its end", addr-best.Base, best.Name, len(best.Data))
}

// nullWindow is how far from 0 an address counts as a null pointer plus an
// offset.
const nullWindow = 1 << 20

// describeGlobal says where a global address that is in no buffer is: near
// a null pointer (naming the launch's null parameters), else relative to
// the closest buffer.
func (m *Machine) describeGlobal(addr uint64) string {
	if addr < nullWindow {
		var names []string
		if m.Binding != nil {
			for _, p := range m.Binding.Params {
				if p.Param.Kind == launch.NullParam {
					names = append(names, p.Label())
				}
			}
		}
		switch len(names) {
		case 0:
			return "a null pointer dereference (the address is within 1 MiB of 0)"
		case 1:
			return fmt.Sprintf("a null pointer dereference: param %s is null", names[0])
		}
		return fmt.Sprintf("a null pointer dereference: params %s are null", strings.Join(names, ", "))
	}
	return m.Global.Nearest(addr)
}

// Buffers returns every buffer.
func (g *GlobalMemory) Buffers() []*Buffer { return g.bufs }

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

// DefaultMaxMemory is the global memory a simulation holds at most unless
// Options.MaxMemory says otherwise: 4 GiB.
const DefaultMaxMemory = 4 << 30

// MemoryLimitError says that a launch's buffers need more global memory
// than Options.MaxMemory allows; nothing was allocated for them.
type MemoryLimitError struct{ Need, Limit int64 }

func (e *MemoryLimitError) Error() string {
	return fmt.Sprintf("the launch's buffers need %d bytes of global memory; the simulator holds at most %d (--max-memory BYTES raises the limit)", e.Need, e.Limit)
}

func (o Options) maxMemory() int64 {
	if o.MaxMemory > 0 {
		return o.MaxMemory
	}
	return DefaultMaxMemory
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
	units := m.units()
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
			if !m.claimUnit(i) {
				continue
			}
			if err := m.runUnit(units.At(i)); err != nil {
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
					if !m.claimUnit(i) {
						continue
					}
					if err := m.runUnit(units.At(i)); err != nil {
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

// claimUnit marks unit i as started; false when it was started before or
// cancelled by clusterlaunchcontrol.try_cancel.
func (m *Machine) claimUnit(i int) bool { return m.unitState.set(i, unitStarted) }

// cancelNext cancels the first unit in launch order that has not started
// (what clusterlaunchcontrol.try_cancel asks for) and returns the id of its
// first CTA; ok is false when every unit has started.
func (m *Machine) cancelNext() (first [3]int, ok bool) {
	i, ok := m.unitState.cancelFirst()
	if !ok {
		return first, false
	}
	return m.unitList.At(i)[0], true
}

// unitStates records which units were started or cancelled without a slot
// per unit: units start nearly in launch order, so everything below low is
// taken and the map holds only the few taken out of order.
type unitStates struct {
	mu    sync.Mutex
	n     int
	low   int           // every unit below low is started or cancelled
	taken map[int]uint8 // units at or above low: unitStarted or unitCancelled
}

const (
	unitStarted   uint8 = 1
	unitCancelled uint8 = 2
)

// set marks unit i as st unless it is taken already.
func (s *unitStates) set(i int, st uint8) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setLocked(i, st)
}

func (s *unitStates) setLocked(i int, st uint8) bool {
	if i < s.low || i >= s.n || s.taken[i] != 0 {
		return false
	}
	s.taken[i] = st
	for s.low < s.n && s.taken[s.low] != 0 {
		delete(s.taken, s.low)
		s.low++
	}
	return true
}

// cancelFirst cancels the first unit not taken.
func (s *unitStates) cancelFirst() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := s.low; i < s.n; i++ {
		if s.setLocked(i, unitCancelled) {
			return i, true
		}
	}
	return 0, false
}

// unitList enumerates the units of a grid lazily: the CTAs of one
// cluster, or each CTA alone, in launch order (x fastest). A grid of
// 65535×65535×65535 CTAs never builds its coordinate list.
type unitList struct {
	cluster [3]int
	per     [3]int // clusters along each dimension
}

// units lists the units of the machine's grid, and resets their start and
// cancel state.
func (m *Machine) units() unitList {
	l := unitList{cluster: m.Cluster}
	for i := range 3 {
		l.per[i] = (m.Grid[i] + m.Cluster[i] - 1) / m.Cluster[i]
	}
	m.unitList = l
	m.unitState = &unitStates{n: l.Len(), taken: map[int]uint8{}}
	return l
}

// Len is the number of units.
func (l unitList) Len() int { return l.per[0] * l.per[1] * l.per[2] }

// At returns the CTA coordinates of unit i.
func (l unitList) At(i int) [][3]int {
	c := l.cluster
	cx := i % l.per[0] * c[0]
	cy := i / l.per[0] % l.per[1] * c[1]
	cz := i / (l.per[0] * l.per[1]) * c[2]
	u := make([][3]int, 0, c[0]*c[1]*c[2])
	for z := 0; z < c[2]; z++ {
		for y := 0; y < c[1]; y++ {
			for x := 0; x < c[0]; x++ {
				u = append(u, [3]int{cx + x, cy + y, cz + z})
			}
		}
	}
	return u
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
	for r, id := range ids {
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

// checkLimits stops the run at the step limit or the deadline between
// units: runWarp checks them only every 1024 instructions of a unit, which
// a grid of many short CTAs never reaches. first is the unit's first CTA;
// done says whether the unit has finished or is about to start.
func (m *Machine) checkLimits(total int64, first [3]int, done bool) error {
	unit := "CTA " + fmtID(first)
	if m.Clustered {
		unit = "the cluster of CTA " + fmtID(first)
	}
	where := "before " + unit + " started"
	if done {
		where = "when " + unit + " finished"
	}
	if total > m.maxSteps() {
		return &LimitError{Msg: fmt.Sprintf("stopped at the --max-steps limit of %d warp-instructions (%d executed) %s",
			m.maxSteps(), total, where)}
	}
	if !m.Opts.Deadline.IsZero() && time.Now().After(m.Opts.Deadline) {
		return &LimitError{Msg: fmt.Sprintf("stopped at the time limit (--timeout) after %d warp-instructions, %s",
			total, where)}
	}
	return nil
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
