package catalog

import "fmt"

// ldmatrix / stmatrix .m8n8 .b16: PTX ISA 9.7.14.5.15 and 9.7.14.5.16.
// A warp moves one, two or four 8x8 matrices of 16-bit elements between
// shared memory and registers. Eight lanes supply the start addresses of
// the eight 16-byte rows of each matrix; register j of every lane holds
// two elements of matrix j.
//
// The atom's tile stacks the matrices vertically: matrix j is tile rows
// 8j..8j+7, row r of it being the row whose address lane 8j+r supplies.

func init() { builders = append(builders, buildLdStMatrix) }

func buildLdStMatrix(add func(Atom)) {
	for _, op := range []struct {
		family, arch, section, verb string
		fam                         Family
		cute                        map[string]string
	}{
		{"ldmatrix", "sm_75", "9.7.14.5.15", "loads", LdMatrix, map[string]string{
			"x1":       "Copy_Traits<SM75_U32x1_LDSM_N>::DstLayout (_32,_32):(_32,_1)",
			"x2":       "Copy_Traits<SM75_U32x2_LDSM_N>::DstLayout (_32,(_32,_2)):(_32,(_1,_1024))",
			"x4":       "Copy_Traits<SM75_U32x4_LDSM_N>::DstLayout (_32,(_32,_4)):(_32,(_1,_1024))",
			"x1.trans": "Copy_Traits<SM75_U16x2_LDSM_T>::DstLayout ((_4,_8),(_16,_2)):((_256,_16),(_1,_128))",
			"x2.trans": "Copy_Traits<SM75_U16x4_LDSM_T>::DstLayout ((_4,_8),(_16,_2,_2)):((_256,_16),(_1,_128,_1024))",
			"x4.trans": "Copy_Traits<SM75_U16x8_LDSM_T>::DstLayout ((_4,_8),(_16,_2,_4)):((_256,_16),(_1,_128,_1024))",
		}},
		{"stmatrix", "sm_90", "9.7.14.5.16", "stores", StMatrix, map[string]string{
			"x1":       "Copy_Traits<SM90_U32x1_STSM_N>::SrcLayout (_32,_32):(_32,_1)",
			"x2":       "Copy_Traits<SM90_U32x2_STSM_N>::SrcLayout (_32,(_32,_2)):(_32,(_1,_1024))",
			"x4":       "Copy_Traits<SM90_U32x4_STSM_N>::SrcLayout (_32,(_32,_4)):(_32,(_1,_1024))",
			"x1.trans": "Copy_Traits<SM90_U16x2_STSM_T>::SrcLayout ((_4,_8),(_16,_2)):((_256,_16),(_1,_128))",
			"x2.trans": "Copy_Traits<SM90_U16x4_STSM_T>::SrcLayout ((_4,_8),(_16,_2,_2)):((_256,_16),(_1,_128,_1024))",
			"x4.trans": "Copy_Traits<SM90_U16x8_STSM_T>::SrcLayout ((_4,_8),(_16,_2,_4)):((_256,_16),(_1,_128,_1024))",
		}},
	} {
		for _, trans := range []bool{false, true} {
			for _, num := range []int{1, 2, 4} {
				rows := 8 * num
				variant := fmt.Sprintf("x%d", num)
				tv := fmt.Sprintf("((4,8),(2,%d)):((%d,1),(%d,8))", num, 2*rows, rows)
				what := "(row lane/4, cols 2*(lane%4) and +1) of matrix j"
				if trans {
					variant += ".trans"
					tv = fmt.Sprintf("((4,8),(2,%d)):((2,%d),(1,8))", num, rows)
					what = "(rows 2*(lane%4) and +1, col lane/4) of matrix j: the matrix read column-major"
				}
				addr := make([]int, 32)
				for l := range addr {
					addr[l] = -1
					if l < rows {
						addr[l] = l
					}
				}
				lanes := fmt.Sprintf("lanes 0-%d supply the row addresses (lane 8j+r: row r of matrix j)", rows-1)
				if num < 4 {
					lanes += fmt.Sprintf("; the addresses of lanes %d-31 are not used (sm_75 and older still need them valid)", rows)
				}
				add(Atom{
					Key:    Key{Family: op.fam, M: 8, N: 8, Num: num, Trans: trans, Elem: ElemB16},
					Family: op.family, Arch: op.arch,
					Section: op.section,
					Summary: fmt.Sprintf("%s .m8n8.%s.b16: %d 8x8 matrices of 16-bit elements, 2 per register, register j = matrix j",
						op.family, variant, num),
					Kind: KindTV, Rows: rows, Cols: 8, RowName: "row", ColName: "col",
					ElemBits: 16, ValsPerReg: 2,
					TV:       mustTV(tv, rows, 8),
					Shapes:   []string{fmt.Sprintf("%s.sync.aligned.m8n8.%s.b16", op.family, variant)},
					AddrRows: addr, Broadcast: 1,
					CuTe: op.cute[variant] + " (in bits: bit b is row b/128, element (b%128)/16 of the stacked matrices)",
					Notes: fmt.Sprintf("Tile = the %d matrices stacked, matrix j at rows 8j..8j+7. The warp %s; register j of lane l "+
						"holds %s, value 2j in the low half, 2j+1 in the high half. %s.", num, op.verb, what, lanes),
				})
			}
		}
	}
}
