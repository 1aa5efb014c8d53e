package sim

// Reconvergence points: the simulator runs each warp with a stack of
// (pc, active mask, reconvergence pc) entries. A divergent branch at pc
// reconverges at the immediate post-dominator of pc's basic block, which
// this file computes from the function's control-flow graph. That is
// correct for structured and unstructured control flow alike: the
// post-dominator is the first point every path from the branch must pass.

// block is a basic block [start, end) of pcs.
type block struct {
	start, end int
	succ       []int // block indices; -1 is the virtual exit
}

// cfgBlocks splits f into basic blocks.
func cfgBlocks(p *Program, f *Function) (blocks []block, blockOf []int) {
	n := f.End - f.Start
	leader := make([]bool, n+1)
	leader[0] = true
	for pc := f.Start; pc < f.End; pc++ {
		in := &p.Insts[pc]
		switch in.PTX.Opcode {
		case "bra", "brx.idx", "exit", "ret", "trap":
			leader[pc-f.Start+1] = true
			if in.target >= 0 {
				leader[in.target-f.Start] = true
			}
			if bi, ok := in.ext.(*brxInfo); ok {
				for _, t := range bi.targets {
					leader[t-f.Start] = true
				}
			}
		}
	}
	blockOf = make([]int, n)
	for i := 0; i < n; i++ {
		if leader[i] {
			blocks = append(blocks, block{start: f.Start + i})
		}
		blockOf[i] = len(blocks) - 1
	}
	for b := range blocks {
		if b+1 < len(blocks) {
			blocks[b].end = blocks[b+1].start
		} else {
			blocks[b].end = f.End
		}
	}
	for b := range blocks {
		last := &p.Insts[blocks[b].end-1]
		fall := -1
		if blocks[b].end < f.End {
			fall = blockOf[blocks[b].end-f.Start]
		}
		add := func(s int) {
			for _, x := range blocks[b].succ {
				if x == s {
					return
				}
			}
			blocks[b].succ = append(blocks[b].succ, s)
		}
		switch last.PTX.Opcode {
		case "bra":
			if last.target >= 0 {
				add(blockOf[last.target-f.Start])
			}
			if last.guard >= 0 {
				add(fall)
			}
		case "brx.idx":
			if bi, ok := last.ext.(*brxInfo); ok {
				for _, t := range bi.targets {
					add(blockOf[t-f.Start])
				}
			}
		case "exit", "ret", "trap":
			if last.guard >= 0 {
				add(fall)
			}
			add(-1)
		default:
			add(fall)
		}
	}
	return blocks, blockOf
}

// computeReconvergence sets the rpc of every branch in f.
func computeReconvergence(p *Program, f *Function) {
	blocks, blockOf := cfgBlocks(p, f)
	ipdom := postDominators(blocks)
	f.ipdom = make([]int, f.End-f.Start)
	for pc := f.Start; pc < f.End; pc++ {
		b := blockOf[pc-f.Start]
		r := -1
		if d := ipdom[b]; d >= 0 {
			r = blocks[d].start
		}
		f.ipdom[pc-f.Start] = r
		p.Insts[pc].rpc = r
	}
}

// postDominators returns the immediate post-dominator block of every block,
// or -1 when it is the virtual exit or the block never reaches an exit.
func postDominators(blocks []block) []int {
	n := len(blocks)
	X := n // virtual exit
	// Reverse graph: rsucc[v] = predecessors of v in the CFG.
	rsucc := make([][]int, n+1)
	for b := range blocks {
		for _, s := range blocks[b].succ {
			if s < 0 {
				s = X
			}
			rsucc[s] = append(rsucc[s], b)
		}
	}
	// Postorder of the reverse graph from X (iterative DFS).
	order := make([]int, 0, n+1)
	num := make([]int, n+1)
	for i := range num {
		num[i] = -1
	}
	visited := make([]bool, n+1)
	type frame struct{ v, i int }
	stack := []frame{{X, 0}}
	visited[X] = true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i < len(rsucc[top.v]) {
			w := rsucc[top.v][top.i]
			top.i++
			if !visited[w] {
				visited[w] = true
				stack = append(stack, frame{w, 0})
			}
			continue
		}
		num[top.v] = len(order)
		order = append(order, top.v)
		stack = stack[:len(stack)-1]
	}
	doms := make([]int, n+1)
	for i := range doms {
		doms[i] = -1
	}
	doms[X] = X
	intersect := func(a, b int) int {
		for a != b {
			for num[a] < num[b] {
				a = doms[a]
			}
			for num[b] < num[a] {
				b = doms[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for i := len(order) - 1; i >= 0; i-- {
			b := order[i]
			if b == X {
				continue
			}
			nd := -1
			// predecessors in the reverse graph = CFG successors
			for _, s := range blocks[b].succ {
				if s < 0 {
					s = X
				}
				if doms[s] < 0 {
					continue
				}
				if nd < 0 {
					nd = s
				} else {
					nd = intersect(s, nd)
				}
			}
			if nd >= 0 && doms[b] != nd {
				doms[b] = nd
				changed = true
			}
		}
	}
	out := make([]int, n)
	for b := 0; b < n; b++ {
		d := doms[b]
		if d == X || d < 0 {
			out[b] = -1
		} else {
			out[b] = d
		}
	}
	return out
}
