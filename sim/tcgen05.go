package sim

// tcgen05 (sm_100a): Tensor Memory and the fifth-generation tensor core.

type tmemState struct{}

func (t *tmemState) checkExit(c *CTA) {}

type tcldPending struct{}

func (w *Warp) checkTcld(in *Inst, m uint32) bool { return true }
