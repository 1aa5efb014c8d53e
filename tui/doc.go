// Package tui is tcsim's interactive terminal explorer, built with Bubble
// Tea: the layout explorer, the bitmath panel, the swizzle and bank view,
// the descriptor view and the kernel stepper.
package tui
