#!/usr/bin/env bash
# End-to-end test of the tcsim explorer in a real terminal: runs the binary
# inside tmux, sends keys and mouse clicks, captures the pane and checks
# what is on the screen.
#
#   usage: tui/testdata/e2e.sh BINARY
#
# Exit status 0 when every check passes. TestTmux (go test ./tui) builds
# the binary and runs this script when tmux is installed; .ci/run installs
# tmux where it can.
set -euo pipefail

bin=${1:?usage: e2e.sh BINARY}
sock="tcsim-e2e-$$"
checks=0

tm() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() { tm kill-server >/dev/null 2>&1 || true; }

screen() { tm capture-pane -p -t e; }
fail() {
	echo "FAIL: $*"
	echo "--- screen:"
	screen 2>/dev/null || true
	exit 1
}
ok() { checks=$((checks + 1)); }

# wait_for TEXT: until TEXT is on the screen (at most 30 s).
wait_for() {
	for _ in $(seq 300); do
		if screen | grep -qF -- "$1"; then
			ok
			return 0
		fi
		sleep 0.1
	done
	fail "timed out waiting for: $1"
}

keys() { tm send-keys -t e "$@"; }
text() { tm send-keys -t e -l -- "$1"; }

# mouse BUTTON X Y: an SGR mouse press and release at 0-based (X, Y), the
# bytes a terminal sends in mouse mode (button 0 left, 65 wheel down).
mouse() {
	local at="$(($2 + 1));$(($3 + 1))"
	tm send-keys -t e -l $'\e[<'"$1;$at"'M'
	if [ "$1" = 0 ]; then tm send-keys -t e -l $'\e[<'"$1;$at"'m'; fi
}

status=$(mktemp)
trap 'cleanup; rm -f "$status"' EXIT

# start [VAR=VALUE...]: a session (100x30, or SIZE=COLSxROWS) running the
# binary; the shell around it writes its exit status to $status, and the
# pane is kept after it exits so that the screen can be checked. ARGS (a
# variable) are the binary's arguments, CWD its directory.
start() {
	rm -f "$status"
	local size=${SIZE:-100x30}
	# A server killed just before may still be going away: wait for it,
	# and try again if the new one lost the race.
	for _ in $(seq 50); do tm ls >/dev/null 2>&1 || break; sleep 0.1; done
	for try in 1 2 3; do
		tm new-session -d -s e -x "${size%x*}" -y "${size#*x}" "cd '${CWD:-.}' && env TERM=xterm-256color $* '$bin' ${ARGS:-}; echo \$? > '$status'" && break
		[ "$try" = 3 ] && fail "tmux would not start a session"
		sleep 0.5
	done
	tm set-option -t e remain-on-exit on
	wait_for "1 Layout"
}

# exited STATUS: the program ended with STATUS and left the alternate
# screen (the explorer is no longer on the screen).
exited() {
	for _ in $(seq 300); do
		if [ -s "$status" ]; then
			local st
			st=$(cat "$status")
			[ "$st" = "$1" ] || fail "exit status $st, want $1"
			if screen | grep -qF "1 Layout"; then fail "the explorer is still on the screen after quitting"; fi
			ok
			return 0
		fi
		sleep 0.1
	done
	fail "the program did not exit"
}

# --- the layout explorer
start
wait_for "wgmma.m64n64.d.f32  64x64"
tm capture-pane -e -p -t e | grep -qF '48;5;' || fail "no xterm-256 cell colours"
ok
keys Down Right
wait_for "m 1, n 1"
wait_for "T4 V1"
mouse 0 19 9 # the cell of row 6, column 1
wait_for "m 6, n 1"
wait_for "T24 V1"
wait_for "frag_row = (wid << 4) + (lane >> 2)"
mouse 65 19 9 # wheel down: the window scrolls three rows
wait_for "rows 3-"
keys /
text "ldmatrix x4 trans"
wait_for "ldmatrix.m8n8.x4.trans.b16"
keys Enter
wait_for "ldmatrix.m8n8.x4.trans.b16  32x8"
keys /
text "mma.sync.m16n8k16"
keys Enter
keys m
wait_for "A left, B above"
keys c
wait_for "colour: thread"

# --- the bitmath panel follows the operand under the cursor
keys 2
wait_for "Bitmath of mma.sync.m16k16.a.b16"
keys e
text "row = tid >> 2; col = 0"
keys Enter
wait_for "wrong: at tid="
keys Escape
# A key sent right after Escape would read as alt+key: wait for the box to
# let go first.
wait_for "e check my formula"

# --- the swizzle and bank view
keys 3
wait_for "Swizzle & banks: smem.k.sw128.b16"
wait_for "conflict-free"
keys a
wait_for "ldmatrix.m8n8.x4.b16"
keys s
text "(64,64):(64,1) b16"
keys Enter a a a
wait_for "8-way"

# --- the descriptor view: edit a field, resize live
keys 4
wait_for "Descriptor 0x4000004000010040"
keys Right
wait_for "Descriptor 0x4000004000010041"
tm resize-window -t e -x 140 -y 40
for _ in $(seq 100); do
	[ "$(screen | wc -l)" = 40 ] && screen | tail -n 1 | grep -qF "paste/type a value" && break
	sleep 0.1
done
[ "$(screen | wc -l)" = 40 ] || fail "the screen did not grow to 40 lines"
screen | tail -n 1 | grep -qF "paste/type a value" || fail "the help is not on the last line after the resize"
[ "$(screen | head -n 1 | wc -L)" -ge 130 ] || fail "the tab bar did not widen to 140 columns"
ok
keys ?
wait_for "shift+tab"
keys q
exited 0

# --- NO_COLOR: no colours, the cursor still marked
tm kill-server >/dev/null 2>&1 || true
start NO_COLOR=1
wait_for "T1V0"
if tm capture-pane -e -p -t e | grep -qE '(38|48);5;'; then fail "colours under NO_COLOR"; fi
tm capture-pane -e -p -t e | grep -qF $'\e[7m' || fail "no reverse-video cursor under NO_COLOR"
ok

# --- ctrl+c quits from a text field
keys /
text "abc"
wait_for "filter> abc"
keys C-c
exited 0

# --- the kernel stepper: step, run to the hazard, step back, run to the end
tm kill-server >/dev/null 2>&1 || true
ARGS="tui --run testdata/stepper/tiny_race.ptx --launch testdata/stepper/tiny.json" start
wait_for "step 0"
keys s s s
wait_for "step 3 · warp"
keys H
wait_for "hazards (2)"
wait_for "smem/warp-exchange-without-sync"
keys p
wait_for "stepped back"
keys r
wait_for "finished (no breakpoints"
keys q
exited 0

# --- the stepper in a small terminal: a breakpoint by mouse, a live
# resize, and the replay of a trace written by tcsim run
trace=$(mktemp --suffix=.jsonl)
"$bin" run testdata/stepper/tiny.ptx --launch testdata/stepper/tiny.json --trace "$trace" --trace-values >/dev/null
tm kill-server >/dev/null 2>&1 || true
ARGS="tui --trace $trace" start
wait_for "trace replay"
tm resize-window -t e -x 80 -y 24
for _ in $(seq 100); do
	[ "$(screen | wc -l)" = 24 ] && screen | tail -n 1 | grep -qF "? keys" && break
	sleep 0.1
done
[ "$(screen | wc -l)" = 24 ] || fail "the stepper did not shrink to 24 lines"
[ "$(screen | wc -L)" -le 80 ] || fail "a stepper line is wider than 80 columns after the resize"
ok
keys :
text "33"
keys Enter b
wait_for "breakpoint at line 33 (r runs to it)"
keys r
wait_for "is at line 33"
keys p
wait_for "stepped back"
keys q
exited 0
rm -f "$trace"

# --- 80x24: the key page scrolls; vim keys move the cursor
tm kill-server >/dev/null 2>&1 || true
SIZE=80x24 start
keys ?
wait_for "Layout keys"
wait_for "keys: lines 1-"
if screen | grep -qF "Global keys"; then fail "the whole key list fits 80x24: nothing to scroll"; fi
ok
keys G
wait_for "Global keys"
wait_for "q          quit"
keys Escape
wait_for "rows 0-"
keys j j l
wait_for "m 2, n 1"
keys G
wait_for "m 63, n 1"
keys g
wait_for "m 0, n 1"
keys q
exited 0

# --- the stepper opens a launch file itself (O, the file picker), stacks
# its panes at 80x24, and searches its source
tm kill-server >/dev/null 2>&1 || true
CWD=testdata/stepper SIZE=80x24 ARGS="tui --view stepper" start
wait_for "No kernel is open"
keys O
wait_for "Open a kernel (.ptx)"
wait_for "tiny_loc.json"
for _ in $(seq 20); do
	screen | grep -F "▶" | grep -qF "tiny_loc.json" && break
	keys j
	sleep 0.1
done
keys Enter
wait_for "cutlass::device_kernel<GemmUniversal<…>>"
wait_for "opened tiny_loc.json"
wait_for "13 .loc/asm lines hidden (L)"
wait_for "regs │ frag"
wait_for "hazards (0)"
keys /
text "bar.sync"
keys Enter
wait_for "match 1 of 2"
wait_for "tiny_loc.cu:16:3  __syncthreads();"
keys n
wait_for "match 2 of 2"
keys u
wait_for "at the cursor: warp"
keys q
exited 0

# --- long runs: esc stops a run and a step back; ctrl+c quits during one
tm kill-server >/dev/null 2>&1 || true
ARGS="tui --launch testdata/stepper/spin.json" start
wait_for "step 0"
keys r
wait_for "running… to a breakpoint"
keys Escape
wait_for "stopped by esc"
keys r
wait_for "paused after"
keys p
wait_for "running… a step back"
keys Escape
wait_for "the step back was stopped (esc)"
keys r
wait_for "running… to a breakpoint"
keys C-c
exited 0

# --- the descriptor editor: a bracketed paste replaces the old value
tm kill-server >/dev/null 2>&1 || true
ARGS="tui --view desc" start
wait_for "Descriptor 0x4000004000010040"
keys e
wait_for "it replaces the old one"
tm set-buffer -b tcsim '0x4000004000010048'
tm paste-buffer -p -b tcsim -t e
wait_for "value> 0x4000004000010048"
keys Enter
wait_for "Descriptor 0x4000004000010048"
keys q
exited 0

echo "e2e: $checks checks passed"
