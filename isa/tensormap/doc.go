// Package tensormap is tcsim's model of the CUDA driver's 128-byte
// CUtensorMap: the arguments of cuTensorMapEncodeTiled,
// cuTensorMapEncodeIm2col and cuTensorMapEncodeIm2colWide (Map), the
// driver's rules for them (Map.Validate, each error naming the field and the
// rule), the bytes the driver writes (Encode) and the way back (Decode,
// which lists every bit it cannot account for instead of guessing).
//
// The encoding is undocumented. It was learned on an H100 with the CUDA 13
// driver by a campaign of several thousand driver calls (Campaign; run by
// `tcsim verify tensormaps --gpu`) and is pinned by its recording,
// fixtures/tensormaps/campaign_h100.json.gz, which the tests replay: every
// map the driver accepted encodes to its bytes and decodes back to its
// arguments, and every map it rejected breaks one of Validate's rules. The
// layout is documented on Encode's file (codec.go) and in
// fixtures/tensormaps/README.md. What the H100's driver rejects (the packed
// 4/6-bit types, the 128B_atom swizzles) could not be learned and is
// reported as not modelled.
package tensormap
