// Package render draws thread-value layouts, swizzled shared-memory tiles
// and descriptors as text, ANSI, SVG, HTML and PNG pictures.
package render
