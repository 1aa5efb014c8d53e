package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tcsim/tcsim/layouts/expr"
)

func init() {
	register(&command{
		name:    "layout eval",
		args:    "EXPRESSION",
		summary: "evaluate CuTe layout algebra and print the result in CuTe notation",
		help: `Evaluates a layout-algebra expression written the way CuTe users write it
and prints the result in CuTe notation. Results are CuTe's for static
integers (the case CuTe's documentation describes); inputs CuTe rejects
(shape or stride divisibility, non-injective complement, ...) are
reported with the violated condition.

Notation:
  layouts      (4,2):(1,4)   8:1   (_4,_2):(_1,_4)   (a shape where a layout is
               expected is make_layout(shape): compact, column-major)
  tilers       <4:1,2:1>   (4:1,2:1)   (4,2)   _   (by mode; a shape is a tuple of N:1)
  swizzles     Sw<3,4,3> o 0 o (8,64):(64,1)     composition: A o B
  templates    get<0>(L)   select<1,0>(L)   group<0,2>(L)   size<1>(L)

Examples:
  tcsim layout eval 'composition((4,2):(1,4), (2,2):(2,1))'
  tcsim layout eval 'complement((2,2):(1,6), 24)'
  tcsim layout eval 'logical_divide((16,8):(1,16), (4,2))'
  tcsim layout eval 'right_inverse(((4,8,4),(2,2,32)):((128,1,16),(64,8,512)))'
  tcsim layout eval 'tile_to_shape(Sw<3,4,3> o 0 o (8,64):(64,1), (64,256))'

CuTe checks the stride divisibility condition only weakly (stride %
extent == 0 or stride < extent) and so accepts some compositions whose
result is not A(B(i)); for those, a note on stderr shows the first index
where they differ.

Malformed input is reported with a caret under its column (exit 2); an
expression CuTe rejects exits 1.

Functions:
` + expr.FunctionHelp(),
		run: runLayoutEval,
	})
}

func runLayoutEval(e *env, _ any, args []string) error {
	if len(args) == 0 {
		return usagef("missing EXPRESSION (see 'tcsim layout eval --help')")
	}
	src := strings.Join(args, " ")
	v, notes, err := expr.EvalNotes(src)
	if err != nil {
		var xe *expr.Error
		if errors.As(err, &xe) {
			msg := fmt.Sprintf("%v\n  %s", xe, strings.ReplaceAll(xe.Caret(), "\n", "\n  "))
			if xe.Parse {
				return usagef("%s", msg)
			}
			return errors.New(msg)
		}
		return err
	}
	fmt.Fprintln(e.stdout, v)
	for _, n := range notes {
		fmt.Fprintln(e.stderr, n)
	}
	return nil
}
