#!/usr/bin/env bash
# Regenerates the README's screenshots of the explorer: each is one screen
# drawn by tcsim's own renderer (tcsim tui --snapshot FILE.png), after the
# keys of --keys, without a terminal.
#
#   usage: tui/screenshots/make.sh   (from anywhere in the repository)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
tcsim() { go run ./cmd/tcsim "$@"; }
out=tui/screenshots
size=(--size 120x36 --scale 1)

tcsim tui wgmma.m64n256.d.f32 --snapshot $out/layout.png "${size[@]}" --keys 'down down right right right'
tcsim tui --mma mma.sync.m16n8k16 --snapshot $out/mma.png "${size[@]}" --keys 'right right down'
tcsim tui --view bitmath --snapshot $out/bitmath.png "${size[@]}"
tcsim tui --view swizzle --snapshot $out/swizzle.png "${size[@]}" --keys 'a a'
tcsim tui --view desc --desc 0x4002004000010048 --snapshot $out/desc.png "${size[@]}"
tcsim tui --run fixtures/sim/broken/gemm_missing_wait.ptx --launch fixtures/sim/launch/gemm_tma_wgmma.json --grid 1 \
	--snapshot $out/stepper_hazard.png "${size[@]}" --keys 'h'
tcsim tui --launch fixtures/sim/launch/gemm_tma_wgmma.json --grid 1 \
	--snapshot $out/stepper_fragment.png "${size[@]}" --keys 'g "790" enter b r ]'
