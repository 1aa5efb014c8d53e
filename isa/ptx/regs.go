package ptx

// RegNames returns the names of the registers an instruction names, each
// once, in the order they appear: the guard predicate, then the operands
// (vector elements, address bases, the halves of a pair, call lists,
// symbol expressions). A special register is named without its component
// (%tid for %tid.x).
func (in *Instruction) RegNames() []string {
	var out []string
	seen := map[string]bool{}
	add := func(r *Reg) {
		if r != nil && !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r.Name)
		}
	}
	var walk func(e Expr)
	walk = func(e Expr) {
		switch x := e.(type) {
		case *Reg:
			add(x)
		case *Address:
			walk(x.Base)
			if x.Coords != nil {
				walk(x.Coords)
			}
		case *Vector:
			for _, el := range x.Elems {
				walk(el)
			}
		case *Pair:
			walk(x.X)
			walk(x.Y)
		case *List:
			for _, el := range x.Elems {
				walk(el)
			}
		case *BinaryExpr:
			walk(x.X)
			walk(x.Y)
		case *UnaryExpr:
			walk(x.X)
		}
	}
	add(in.Guard)
	for _, o := range in.Operands {
		walk(o)
	}
	return out
}
