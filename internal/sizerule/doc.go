// Package sizerule holds tcsim's size rule as a test: no Go file over
// MaxFileLines lines and no function over MaxFuncLines, outside generated
// files (a "Code generated ... DO NOT EDIT." header), except the few that
// ARCHITECTURE.md lists with their reasons. The list in ARCHITECTURE.md is
// the one source: the test fails on an offender it does not list and on a
// listed entry that no longer offends, so the list cannot drift.
package sizerule

// The limits.
const (
	MaxFileLines = 900
	MaxFuncLines = 150
)
