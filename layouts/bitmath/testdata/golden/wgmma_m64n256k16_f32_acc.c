// wgmma.m64n256k16.f32.acc: (tid, v) -> (row, col)
static inline void wgmma_m64n256k16_f32_acc_fwd(unsigned tid, unsigned v, unsigned *out_row, unsigned *out_col)
{
    // wid: the warp within the group of threads
    //   tid >> 5  tid bits 5-6 -> wid bits 0-1 (tid / 32)
    unsigned wid = tid >> 5;
    // lane: the lane within the warp
    //   tid & 31  tid bits 0-4 -> lane bits 0-4 (tid % 32)
    unsigned lane = tid & 31;
    // frag_row: this thread's base row: the part that depends on the thread only
    //   wid << 4   wid bits 0-1 -> row bits 4-5 (wid * 16)
    //   lane >> 2  lane bits 2-4 -> row bits 0-2 (lane / 4)
    unsigned frag_row = (wid << 4) + (lane >> 2);
    // frag_col: this thread's base column: the part that depends on the thread only
    //   (lane & 3) << 1  lane bits 0-1 -> col bits 1-2 ((lane % 4) * 2)
    unsigned frag_col = (lane & 3) << 1;
    // row: the row of value v of this thread
    //   frag_row      frag_row: the thread's part
    //   (v & 2) << 2  v bit 1 -> row bit 3 (+8 when v bit 1 is set)
    unsigned row = frag_row + ((v & 2) << 2);
    // col: the column of value v of this thread
    //   frag_col       frag_col: the thread's part
    //   (v >> 2) << 3  v bits 2-6 -> col bits 3-7 ((v / 4) * 8)
    //   v & 1          v bit 0 -> col bit 0 (+1 when v bit 0 is set)
    unsigned col = frag_col + ((v >> 2) << 3) + (v & 1);
    *out_row = row;
    *out_col = col;
}

// wgmma.m64n256k16.f32.acc, inverse: (row, col) -> (tid, v)
static inline void wgmma_m64n256k16_f32_acc_inv(unsigned row, unsigned col, unsigned *out_tid, unsigned *out_v)
{
    // wid: the warp that holds this element
    //   row >> 4  row bits 4-5 -> wid bits 0-1 (row / 16)
    unsigned wid = row >> 4;
    // lane: the lane that holds this element
    //   (row & 7) << 2  row bits 0-2 -> lane bits 2-4 ((row % 8) * 4)
    //   (col >> 1) & 3  col bits 1-2 -> lane bits 0-1 ((col / 2) % 4)
    unsigned lane = ((row & 7) << 2) + ((col >> 1) & 3);
    // v: which of the thread's values it is
    //   (col >> 3) << 2  col bits 3-7 -> v bits 2-6 ((col / 8) * 4)
    //   (row & 8) >> 2   row bit 3 -> v bit 1 (+2 when row bit 3 is set)
    //   col & 1          col bit 0 -> v bit 0 (+1 when col bit 0 is set)
    unsigned v = ((col >> 3) << 2) + ((row & 8) >> 2) + (col & 1);
    // tid: the thread that holds this element
    //   wid << 5  wid bits 0-1 -> tid bits 5-6 (wid * 32)
    //   lane      lane bits 0-4 -> tid bits 0-4
    unsigned tid = (wid << 5) + lane;
    *out_tid = tid;
    *out_v = v;
}

