package layouts

import (
	"fmt"
	"math/bits"
)

// ConditionError reports an input that CuTe rejects: a static_assert in
// CuTe's headers (with all integers static) or an operation that has no
// defined result. Op names the operation, Condition names the violated rule
// in CuTe's words (for example "stride divisibility condition"), and Detail
// shows the values involved.
type ConditionError struct {
	Op        string
	Condition string
	Detail    string
}

// Error prints "op: condition violated: detail".
func (e *ConditionError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("%s: %s violated", e.Op, e.Condition)
	}
	return fmt.Sprintf("%s: %s violated: %s", e.Op, e.Condition, e.Detail)
}

// The conditions CuTe checks, as ConditionError.Condition values.
const (
	CondStrideDivisibility = "stride divisibility condition"
	CondShapeDivisibility  = "shape divisibility condition"
	CondNonInjective       = "injectivity (complement of a non-injective layout)"
	CondLeftInverse        = "left inverse divisibility condition"
	CondDivisibility       = "divisibility condition"
	CondRank               = "rank condition"
	CondOverflow           = "integer range (|v| < 2^62)"
	CondDivZero            = "non-zero divisor"
	CondEmpty              = "non-empty layout"
	CondSwizzle            = "swizzle condition"
	CondOffset             = "zero offset"
	CondCongruence         = "congruence"
	CondUnsupported        = "supported operand kinds"
	CondNonNegative        = "non-negative strides and cotarget"
	CondAdjacent           = "adjacent elements (a stride-1 mode)"
	CondPowerOfTwo         = "power-of-two factor"
)

// algebraFailure carries a ConditionError out of deeply nested helpers; the
// exported entry points recover it with guard and return it as an error.
type algebraFailure struct{ err *ConditionError }

func fail(op, cond, format string, args ...any) {
	panic(algebraFailure{&ConditionError{Op: op, Condition: cond, Detail: fmt.Sprintf(format, args...)}})
}

// guard turns an algebraFailure panic into *err. Other panics (bugs)
// propagate so that tests and fuzzing see them.
func guard(err *error) {
	if r := recover(); r != nil {
		f, ok := r.(algebraFailure)
		if !ok {
			panic(r)
		}
		*err = f.err
	}
}

// valueLimit bounds every intermediate value: the algebra works on int64
// and reports an error instead of overflowing.
const valueLimit = 1 << 62

func checkRange(v int) int {
	if v >= valueLimit || v <= -valueLimit {
		fail("arithmetic", CondOverflow, "intermediate value out of range")
	}
	return v
}

func mul(a, b int) int {
	hi, lo := bits.Mul64(uint64(iabs(a)), uint64(iabs(b)))
	if hi != 0 || lo >= valueLimit {
		fail("arithmetic", CondOverflow, "%d*%d overflows", a, b)
	}
	return a * b
}

func add(a, b int) int { return checkRange(a + b) }

// cdiv is C++ integer division (truncating toward zero), as CuTe's static
// integers use.
func cdiv(a, b int) int {
	if b == 0 {
		fail("arithmetic", CondDivZero, "division of %d by zero", a)
	}
	return a / b
}

// cmod is C++'s % (the sign follows the dividend).
func cmod(a, b int) int {
	if b == 0 {
		fail("arithmetic", CondDivZero, "%d modulo zero", a)
	}
	return a % b
}

// ceilDivInt is CuTe's ceil_div on integers: (a + b - 1) / b.
func ceilDivInt(a, b int) int { return cdiv(add(a, b-1), b) }

func iabs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func signum(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// checkedProduct is the product of t's leaves with overflow checks.
func checkedProduct(t IntTuple) int {
	if t.leaf {
		return t.v
	}
	p := 1
	for _, m := range t.modes {
		p = mul(p, checkedProduct(m))
	}
	return p
}
