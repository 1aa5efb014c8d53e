// Package isa is tcsim's PTX front end: the lexer, parser, validator and
// printer, the number formats and conversions, the instruction catalog and
// the wgmma and tcgen05 descriptor codecs.
package isa
