// smem.sw128.k.16b: (row, col) -> offset
static inline void smem_sw128_k_16b_fwd(unsigned row, unsigned col, unsigned *out_offset)
{
    // offset: the offset of (row, col)
    //   row << 6  row bits 0-2 -> offset bits 6-8 (row * 64)
    //   col       col bits 0-5 -> offset bits 0-5
    //   row << 3  row bits 0-2 -> offset bits 3-5 (row * 8); joined with ^: it overlaps bits of the terms before
    unsigned offset = ((row << 6) + col) ^ (row << 3);
    *out_offset = offset;
}

// smem.sw128.k.16b, inverse: offset -> (row, col)
static inline void smem_sw128_k_16b_inv(unsigned offset, unsigned *out_row, unsigned *out_col)
{
    // lin: undo the swizzle (Sw<3,3,3> is its own inverse)
    //   offset              offset bits 0-8 -> lin bits 0-8
    //   (offset >> 6) << 3  offset bits 6-8 -> lin bits 3-5 ((offset / 64) * 8); joined with ^: it overlaps bits of the terms before
    unsigned lin = offset ^ ((offset >> 6) << 3);
    // row: the row of the element at this offset
    //   lin >> 6  lin bits 6-8 -> row bits 0-2 (lin / 64)
    unsigned row = lin >> 6;
    // col: the column of the element at this offset
    //   lin & 63  lin bits 0-5 -> col bits 0-5 (lin % 64)
    unsigned col = lin & 63;
    *out_row = row;
    *out_col = col;
}

