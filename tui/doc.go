// Package tui is tcsim's interactive terminal explorer, built with Bubble
// Tea v2, Lip Gloss and Bubbles: what a bare `tcsim` (or `tcsim tui`)
// opens.
//
// # Views
//
// Tab and shift+tab, or the digit keys, switch views; ? opens a page of
// every key (the active view's first, then the app's) that scrolls
// (help.go); q or ctrl+c quits and restores the terminal, ctrl+c from
// anywhere. Wherever the arrows and home/end move, so do vim's hjkl and
// g/G (pickers with a filter box: ctrl+j/ctrl+k). 80×24 is a first-class
// size: the stepper stacks its panes, tab names and status lines shorten.
//
//  1. Layout: a catalog atom (picked with a fuzzy filter, /) or any CuTe
//     layout typed in the same box, drawn cell by cell by render.AppendGrid
//     (the code behind `tcsim layout`). Cells are coloured by thread
//     (hue = warp, shade = lane), warp, lane, value or register (c) and
//     labelled with their owners, threads, values, registers or warp.lane
//     (v); + and - change the cell width and the window scrolls over
//     tiles as large as 64x256. The cursor cell is reversed and every
//     other cell of its thread underlined; the side panel gives its tid,
//     warp, lane, register, (row, col), every owner of a broadcast (o
//     follows the next one), and its bitmath: each step of the derived
//     forward and inverse programs with the numbers substituted. m shows
//     an MMA's A, B and C together, placed as CuTe's pictures place them.
//  2. Bitmath: the derived formulas of the explorer's subject (for an MMA,
//     of the operand under the cursor) in C, PTX, Python or Go (L), both
//     directions or one (d), the F2 matrix with lane, warp and value bits
//     labelled (x: the inverse's), and a box (e) that checks a formula
//     against every input and reports the first wrong (tid, v).
//  3. Swizzle: a shared-memory layout (s) byte by bank under an access
//     pattern (a): ld/st.shared of a fragment's registers (f picks it, w
//     the access width, W the warp), ldmatrix/stmatrix, wgmma core-matrix
//     reads and a TMA box. [ and ] step through the phases; the phase's
//     cells are coloured by bank and a conflicting bank is marked "!".
//     The bank model is in banks.go.
//  4. Descriptor: a wgmma or tcgen05 descriptor pasted in hex (e opens
//     the editor empty, so a typed or bracketed-pasted value replaces the
//     old one; tab edits the old one) or edited field by field (arrows);
//     the decoded fields, the isa/desc findings, and the core matrices it
//     reads drawn over the operand tile or the shared-memory bytes (v). A
//     CUtensorMap (its hex, or a file of its 128 bytes) is decoded field
//     by field.
//  5. Stepper: a PTX kernel and its launch simulated by the sim package's
//     Stepper (stepper_backend.go), or a trace file of `tcsim run --trace`
//     replayed (stepper_trace.go), behind one small backend interface; O
//     opens a kernel, launch file, trace or case directory from inside
//     (stepper_open.go, bubbles' filepicker). The source pane marks each
//     warp's next line, breakpoints and hazard lines, hides the .loc and
//     inline-asm comment lines (L shows them), searches (/, n, N), and
//     shows the .cu or .py line behind the cursor (stepper_srcview.go,
//     stepper_srcmap.go); the other panes show the selected thread's
//     registers, the fragment of the last matrix instruction with its
//     values, shared memory, Tensor Memory, the asynchronous operations in
//     flight and the mbarriers, the warps, and the hazards with their
//     source lines. s, w, r, u, H step, step a warp, run to a breakpoint
//     (b), until the cursor's line, or to the next hazard; p and P step
//     back by replaying the recorded actions on a fresh machine. Long
//     actions run as a tea.Cmd and esc stops them (stepper_run.go).
//
// The mouse selects cells and tabs and the wheel scrolls. Under NO_COLOR
// the program runs with an ASCII colour profile: colours go, reverse video
// and underlines stay.
//
// # Adding a view
//
// A view implements the small view interface in app.go (title, setSize,
// update, render, bindings, capturing, status) and is appended to the list
// in New; the app routes keys, mouse positions (relative to the body) and
// sizes to it and draws the tabs, status line and help around it.
//
// # Without a terminal
//
// Snapshot runs the app on a script of keys (ParseKeys) at a given size;
// Model.Plain, Model.ANSI and Model.Screen return the screen as text, as
// escape codes or as a render.Screen for render.WriteScreenPNG. `tcsim tui
// --snapshot FILE` uses them; the golden tests and the README screenshots
// are made this way, and testdata/e2e.sh drives the real binary in tmux.
package tui
