#!/usr/bin/env bash
# Regenerates the README's screenshots of the explorer: each is one screen
# drawn by tcsim's own renderer (tcsim tui --snapshot FILE.png), after the
# keys of --keys, without a terminal. Each line below makes one picture;
# the pictures are 120x36 cells at scale 1 (720x396 pixels).
#
#   usage: tui/screenshots/make.sh   (from anywhere in the repository)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
bin=$(mktemp -d)/tcsim
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/tcsim
tcsim() { "$bin" "$@"; }
out=tui/screenshots
size=(--size 120x36 --scale 1)
gemm=(--launch fixtures/sim/launch/gemm_tma_wgmma.json --grid 1)

tcsim tui wgmma.m64n256.d.f32 --snapshot $out/layout.png "${size[@]}" --keys 'down down right right right'
tcsim tui --mma mma.sync.m16n8k16 --snapshot $out/mma.png "${size[@]}" --keys 'right right down'
tcsim tui --view bitmath --snapshot $out/bitmath.png "${size[@]}"
tcsim tui --view swizzle --snapshot $out/swizzle.png "${size[@]}" --keys 'a a'
tcsim tui --view desc --desc 0x4002004000010048 --snapshot $out/desc.png "${size[@]}"
# The stepper: stopped on the planted hazard of a broken GEMM; the
# accumulator fragment with its values at a breakpoint after
# wgmma.wait_group; wgmma operations in flight and the mbarriers; the
# Tensor Memory of the tcgen05 GEMM.
tcsim tui --run fixtures/sim/broken/gemm_missing_wait.ptx "${gemm[@]}" \
	--snapshot $out/stepper_hazard.png "${size[@]}" --keys 'H'
tcsim tui "${gemm[@]}" --snapshot $out/stepper_fragment.png "${size[@]}" --keys ': "790" enter b r ]'
tcsim tui "${gemm[@]}" --snapshot $out/stepper_async.png "${size[@]}" --keys ': "380" enter b r r ] ] ] ]'
tcsim tui --launch fixtures/sim/launch/tcgen05_gemm.json --grid 1 \
	--snapshot $out/stepper_tmem.png "${size[@]}" --keys ': "558" enter b r ] ] ]'

# 80x24: the stepper stacks its panes (source with the .cu line behind the
# cursor, registers, hazards) on the same hazard.
tcsim tui --run fixtures/sim/broken/gemm_missing_wait.ptx "${gemm[@]}" \
	--snapshot $out/stepper_80x24.png --size 80x24 --scale 1 --keys 'H'

for f in $out/*.png; do
	n=$(wc -c <"$f")
	[ "$n" -lt 300000 ] || { echo "$f is $n bytes (keep each under 300 KB)" >&2; exit 1; }
done
