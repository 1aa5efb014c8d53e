package sfu

// The fitting datasets, in priority order: a dump run stops adding them
// when its size budget is spent.

// binade is every f32 of one sign and biased exponent.
func binade(op string, e uint32, neg bool) Dataset {
	base := uint64(e) << 23
	if neg {
		base |= 1 << 31
	}
	return Dataset{Op: op, Gen: "range", Base: base, Count: 1 << 23}
}

// sampleBinade is n pseudo-random f32 of one sign and biased exponent.
func sampleBinade(op string, e uint32, neg bool, n int, seed uint64) Dataset {
	d := binade(op, e, neg)
	d.Gen, d.Span, d.Count, d.Seed = "sample", 1<<23, n, seed
	return d
}

// FitDatasets lists the datasets the model was fitted to.
func FitDatasets() []Dataset {
	var ds []Dataset
	seed := uint64(1)
	next := func() uint64 { seed++; return seed * 0x1000 }
	// Every 16-bit form whole; every 32-bit form sparsely over its whole domain.
	for _, f := range Forms() {
		switch f.Kind {
		case Unary16:
			ds = append(ds, Dataset{Op: f.Op, Gen: "range", Count: 1 << 16})
		case Unary16x2, Unary32:
			ds = append(ds, Dataset{Op: f.Op, Gen: "sample", Span: 0, Count: 1 << 18, Seed: next()})
		case Unary64:
			ds = append(ds, Dataset{Op: f.Op, Gen: "sample", Count: 1 << 18, Seed: next()},
				Dataset{Op: f.Op, Gen: "range", Base: 0x3FF0000000000000, Step: 1 << 32, Count: 1 << 20, Note: "high words of [1,2), low word 0"},
				Dataset{Op: f.Op, Gen: "sample", Base: 0x3FF0000000000000, Span: 1 << 53, Count: 1 << 18, Seed: next(), Note: "[1,4) with random low words"})
		case Binary32:
			ds = append(ds, Dataset{Op: f.Op, Gen: "pairs", Count: 1 << 18, Seed: next()},
				Dataset{Op: f.Op, Gen: "edge", Count: 1 << 20},
				Dataset{Op: f.Op, Gen: "one", Count: 1 << 18, Seed: next()})
		}
	}
	// Subnormal operands and results of the non-ftz forms.
	for _, op := range []string{"rcp.approx.f32", "rsqrt.approx.f32", "sqrt.approx.f32", "lg2.approx.f32", "ex2.approx.f32", "sin.approx.f32", "cos.approx.f32", "tanh.approx.f32"} {
		ds = append(ds, sampleBinade(op, 0, false, 1<<18, next()))
	}
	ds = append(ds,
		sampleBinade("rcp.approx.f32", 253, false, 1<<18, next()),
		sampleBinade("rcp.approx.f32", 254, false, 1<<18, next()),
		sampleBinade("ex2.approx.f32", 133, true, 1<<18, next()),
		sampleBinade("ex2.approx.f32", 134, true, 1<<18, next()),
		sampleBinade("ex2.approx.ftz.f32", 134, true, 1<<18, next()),
	)
	for e := uint32(100); e < 134; e++ {
		ds = append(ds, sampleBinade("tanh.approx.f32", e, false, 1<<16, next()))
		ds = append(ds, sampleBinade("sin.approx.ftz.f32", e, false, 1<<16, next()))
		ds = append(ds, sampleBinade("lg2.approx.ftz.f32", e, false, 1<<16, next()))
	}
	// Whole binades of the cores.
	ex2 := "ex2.approx.ftz.f32"
	ds = append(ds,
		binade(ex2, 127, false), // [1,2)
		binade(ex2, 126, false), // [0.5,1)
		binade(ex2, 126, true),  // (-1,-0.5]
		binade(ex2, 127, true),  // (-2,-1]
		binade(ex2, 119, false), // [2^-8, 2^-7)
		binade(ex2, 131, false), // [16,32)
		binade(ex2, 107, false), // [2^-20, 2^-19)
		binade(ex2, 119, true),
		binade("rcp.approx.ftz.f32", 127, false),
		binade("rsqrt.approx.ftz.f32", 127, false),
		binade("rsqrt.approx.ftz.f32", 128, false),
		binade("sqrt.approx.ftz.f32", 127, false),
		binade("sqrt.approx.ftz.f32", 128, false),
		binade("lg2.approx.ftz.f32", 127, false),
		binade("lg2.approx.ftz.f32", 126, false),
		binade("lg2.approx.ftz.f32", 128, false),
		binade("sin.approx.ftz.f32", 128, false), // [2,4)
		binade("cos.approx.ftz.f32", 128, false),
		binade("tanh.approx.f32", 126, false),
		binade("tanh.approx.f32", 127, false),
		binade("sin.approx.ftz.f32", 129, false),
		binade("cos.approx.ftz.f32", 129, false),
		binade("tanh.approx.f32", 128, false),
		binade("tanh.approx.f32", 120, false),
	)
	return ds
}

// ExtraDatasets are the datasets of the second recording: whole binades of
// tanh where its segmentation changes.
func ExtraDatasets() []Dataset {
	var ds []Dataset
	for _, e := range []uint32{125, 124, 123, 129, 130, 122, 121} {
		ds = append(ds, binade("tanh.approx.f32", e, false))
	}
	return ds
}
