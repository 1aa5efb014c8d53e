// Package render draws thread-value layouts, shared-memory and Tensor
// Memory tiles as text, ANSI, JSON, SVG, PNG and HTML pictures.
//
// # The model
//
// Every picture is drawn from a Grid: plain data, Rows × Cols cells, each
// belonging to a Panel (a tile) or to none (a void gap). A cell holds
// either the (thread, value) owners of a thread-value layout — all of
// them, so broadcasts show every owner — or the offset a layout maps it to
// (with its shared-memory bank, or a TMEM lane and column). Builders make
// grids from the rest of tcsim:
//
//   - FromTV: a layouts.TV (cell (r, c) lists the owners of index r+Rows*c);
//   - FromTVLayout: a plain CuTe layout read as (thread, value) → tile index;
//   - FromLayout: a plain or swizzled layout drawn as CuTe's print_layout
//     draws it, with banks when the element width is known;
//   - FromAtom: a catalog atom (register fragment, SMEM or TMEM atom);
//   - MMA: an MMA's A, B and C placed as CuTe's pictures place them (C at
//     the origin, A to its left, B above it with K running down).
//
// Other packages can build their own grids (NewGrid, AddPanel, then fill
// the cells; Cell.Label overrides the text and Cell.Tag picks a colour
// under ColorTag) and draw them with every renderer here. That is the
// extension point for pictures such as a descriptor's core matrices over
// its shared-memory tile, or bank conflicts per phase.
//
// # The renderers
//
// AppendGrid (WriteText, WriteANSI) is the one text path behind `tcsim
// layout`, `tcsim render -o x.txt` and the terminal UI: a window of the
// grid (Options.Region), cells of a chosen width (Options.CellWidth; labels
// that do not fit become a lossless compact form such as T0-3V1, or a
// reference *N into a legend, and other text is cut with a visible "…"),
// colours from a stable 32-entry xterm-256 palette (Options.Color), and a
// cursor cell in reverse video with every cell of its threads underlined
// (Options.Cursor). WriteJSON emits every cell and owner for tools.
//
// WriteSVG, WritePNG and WriteHTML draw one scene: up to four owners of a
// cell as stacked, labelled bands in their own colours, more as coloured
// stripes under the compact label, a tooltip with every owner (SVG, HTML),
// and a colour legend. PNG is rasterised in pure Go with tcsim's own 5x7
// bitmap font (font.go).
package render
