package bcast

/*
#include "gobc.h"
*/
import "C"

import "runtime"

// Op is a binary operation, with the values of the C enum bc_op.
//
// Every operation comes in three forms: allocating (Binary, Add, ...)
// returns a new tensor of the broadcast shape and promoted dtype; Out
// (BinaryOut, AddOut, ...) writes into out, which must already have the
// broadcast shape and a dtype the result can be cast to; InPlace
// (BinaryInPlace, AddInPlace, ...) writes into its first operand, whose
// shape may not change. A written tensor may not overlap itself (an expanded
// view) or partly overlap an input; it may be exactly an input.
type Op int32

// Binary operations.
const (
	OpAdd        Op = 0  // a + b
	OpSub        Op = 1  // a - b
	OpMul        Op = 2  // a * b
	OpDiv        Op = 3  // true division; integers give Float32
	OpDivTrunc   Op = 4  // division rounded toward zero
	OpDivFloor   Op = 5  // division rounded toward -inf
	OpRemainder  Op = 6  // Python-style: sign of the divisor
	OpFmod       Op = 7  // C-style: sign of the dividend
	OpPow        Op = 8  // a ** b
	OpMaximum    Op = 9  // NaN-propagating
	OpMinimum    Op = 10 // NaN-propagating
	OpFmax       Op = 11 // NaN-ignoring
	OpFmin       Op = 12 // NaN-ignoring
	OpAtan2      Op = 13 // atan2(a, b)
	OpHypot      Op = 14 // sqrt(a*a + b*b), floats only
	OpCopysign   Op = 15 // |a| with the sign of b
	OpEq         Op = 16 // comparisons give Bool
	OpNe         Op = 17
	OpLt         Op = 18
	OpLe         Op = 19
	OpGt         Op = 20
	OpGe         Op = 21
	OpLogicalAnd Op = 22 // logical ops give Bool; nonzero is true
	OpLogicalOr  Op = 23
	OpLogicalXor Op = 24
	OpBitwiseAnd Op = 25 // bitwise ops and shifts: integers and Bool only
	OpBitwiseOr  Op = 26
	OpBitwiseXor Op = 27
	OpShiftLeft  Op = 28
	OpShiftRight Op = 29
)

// NumOps is the number of Op values.
const NumOps = 30

var opNames = [NumOps]string{
	"add", "sub", "mul", "div", "div_trunc", "div_floor", "remainder", "fmod", "pow",
	"maximum", "minimum", "fmax", "fmin", "atan2", "hypot", "copysign",
	"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
	"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
}

// String returns the library's name of the op ("add", "div_floor", ...), or
// "unknown".
func (op Op) String() string {
	if op >= 0 && op < NumOps {
		return opNames[op]
	}
	return "unknown"
}

// Binary returns op(a, b) with the broadcast shape and promoted dtype.
func Binary(op Op, a, b *Tensor) (*Tensor, error) {
	hs, err := handles(a, b)
	if err != nil {
		return nil, err
	}
	r := C.gobc_binary(C.bc_op(op), hs[0], hs[1])
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	return resultTensor(&r)
}

// BinaryOut writes op(a, b) into out.
func BinaryOut(op Op, a, b, out *Tensor) error {
	hs, err := handles(a, b, out)
	if err != nil {
		return err
	}
	r := C.gobc_binary_out(C.bc_op(op), hs[0], hs[1], hs[2])
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(out)
	return resultErr(&r)
}

// BinaryInPlace sets self = op(self, other); other must broadcast to self's
// shape.
func BinaryInPlace(op Op, self, other *Tensor) error {
	hs, err := handles(self, other)
	if err != nil {
		return err
	}
	r := C.gobc_binary_(C.bc_op(op), hs[0], hs[1])
	runtime.KeepAlive(self)
	runtime.KeepAlive(other)
	return resultErr(&r)
}

// BinaryAlpha returns a + alpha*b (OpAdd) or a - alpha*b (OpSub); other ops
// fail with ErrInvalidArgument. For integer results alpha must be integral;
// for Bool, 0 or 1.
func BinaryAlpha(op Op, a, b *Tensor, alpha float64) (*Tensor, error) {
	hs, err := handles(a, b)
	if err != nil {
		return nil, err
	}
	r := C.gobc_binary_alpha(C.bc_op(op), hs[0], hs[1], C.double(alpha))
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	return resultTensor(&r)
}

// BinaryAlphaOut is the Out form of BinaryAlpha.
func BinaryAlphaOut(op Op, a, b *Tensor, alpha float64, out *Tensor) error {
	hs, err := handles(a, b, out)
	if err != nil {
		return err
	}
	r := C.gobc_binary_alpha_out(C.bc_op(op), hs[0], hs[1], C.double(alpha), hs[2])
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(out)
	return resultErr(&r)
}

// BinaryAlphaInPlace is the InPlace form of BinaryAlpha.
func BinaryAlphaInPlace(op Op, self, other *Tensor, alpha float64) error {
	hs, err := handles(self, other)
	if err != nil {
		return err
	}
	r := C.gobc_binary_alpha_(C.bc_op(op), hs[0], hs[1], C.double(alpha))
	runtime.KeepAlive(self)
	runtime.KeepAlive(other)
	return resultErr(&r)
}

// AddAlpha returns a + alpha*b.
func AddAlpha(a, b *Tensor, alpha float64) (*Tensor, error) { return BinaryAlpha(OpAdd, a, b, alpha) }

// AddAlphaOut writes a + alpha*b into out.
func AddAlphaOut(a, b *Tensor, alpha float64, out *Tensor) error {
	return BinaryAlphaOut(OpAdd, a, b, alpha, out)
}

// AddAlphaInPlace sets self = self + alpha*other.
func AddAlphaInPlace(self, other *Tensor, alpha float64) error {
	return BinaryAlphaInPlace(OpAdd, self, other, alpha)
}

// SubAlpha returns a - alpha*b.
func SubAlpha(a, b *Tensor, alpha float64) (*Tensor, error) { return BinaryAlpha(OpSub, a, b, alpha) }

// SubAlphaOut writes a - alpha*b into out.
func SubAlphaOut(a, b *Tensor, alpha float64, out *Tensor) error {
	return BinaryAlphaOut(OpSub, a, b, alpha, out)
}

// SubAlphaInPlace sets self = self - alpha*other.
func SubAlphaInPlace(self, other *Tensor, alpha float64) error {
	return BinaryAlphaInPlace(OpSub, self, other, alpha)
}

// Where returns a where cond is true, else b; cond must be Bool. The three
// operands broadcast together.
func Where(cond, a, b *Tensor) (*Tensor, error) {
	hs, err := handles(cond, a, b)
	if err != nil {
		return nil, err
	}
	r := C.gobc_where(hs[0], hs[1], hs[2])
	runtime.KeepAlive(cond)
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	return resultTensor(&r)
}

// WhereOut writes Where(cond, a, b) into out.
func WhereOut(cond, a, b, out *Tensor) error {
	hs, err := handles(cond, a, b, out)
	if err != nil {
		return err
	}
	r := C.gobc_where_out(hs[0], hs[1], hs[2], hs[3])
	runtime.KeepAlive(cond)
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(out)
	return resultErr(&r)
}

// WhereInPlace sets self = Where(cond, self, other) (PyTorch's
// self.where(cond, other) written back into self).
func WhereInPlace(self, cond, other *Tensor) error {
	hs, err := handles(self, cond, other)
	if err != nil {
		return err
	}
	r := C.gobc_where_(hs[0], hs[1], hs[2])
	runtime.KeepAlive(self)
	runtime.KeepAlive(cond)
	runtime.KeepAlive(other)
	return resultErr(&r)
}

// Addcmul returns self + value*t1*t2.
func Addcmul(self, t1, t2 *Tensor, value float64) (*Tensor, error) {
	hs, err := handles(self, t1, t2)
	if err != nil {
		return nil, err
	}
	r := C.gobc_addcmul(hs[0], hs[1], hs[2], C.double(value))
	runtime.KeepAlive(self)
	runtime.KeepAlive(t1)
	runtime.KeepAlive(t2)
	return resultTensor(&r)
}

// AddcmulOut writes self + value*t1*t2 into out.
func AddcmulOut(self, t1, t2 *Tensor, value float64, out *Tensor) error {
	hs, err := handles(self, t1, t2, out)
	if err != nil {
		return err
	}
	r := C.gobc_addcmul_out(hs[0], hs[1], hs[2], C.double(value), hs[3])
	runtime.KeepAlive(self)
	runtime.KeepAlive(t1)
	runtime.KeepAlive(t2)
	runtime.KeepAlive(out)
	return resultErr(&r)
}

// AddcmulInPlace sets self = self + value*t1*t2.
func AddcmulInPlace(self, t1, t2 *Tensor, value float64) error {
	hs, err := handles(self, t1, t2)
	if err != nil {
		return err
	}
	r := C.gobc_addcmul_(hs[0], hs[1], hs[2], C.double(value))
	runtime.KeepAlive(self)
	runtime.KeepAlive(t1)
	runtime.KeepAlive(t2)
	return resultErr(&r)
}

// Addcdiv returns self + value*t1/t2 (integer t1 and t2 are refused, as in
// PyTorch).
func Addcdiv(self, t1, t2 *Tensor, value float64) (*Tensor, error) {
	hs, err := handles(self, t1, t2)
	if err != nil {
		return nil, err
	}
	r := C.gobc_addcdiv(hs[0], hs[1], hs[2], C.double(value))
	runtime.KeepAlive(self)
	runtime.KeepAlive(t1)
	runtime.KeepAlive(t2)
	return resultTensor(&r)
}

// AddcdivOut writes self + value*t1/t2 into out.
func AddcdivOut(self, t1, t2 *Tensor, value float64, out *Tensor) error {
	hs, err := handles(self, t1, t2, out)
	if err != nil {
		return err
	}
	r := C.gobc_addcdiv_out(hs[0], hs[1], hs[2], C.double(value), hs[3])
	runtime.KeepAlive(self)
	runtime.KeepAlive(t1)
	runtime.KeepAlive(t2)
	runtime.KeepAlive(out)
	return resultErr(&r)
}

// AddcdivInPlace sets self = self + value*t1/t2.
func AddcdivInPlace(self, t1, t2 *Tensor, value float64) error {
	hs, err := handles(self, t1, t2)
	if err != nil {
		return err
	}
	r := C.gobc_addcdiv_(hs[0], hs[1], hs[2], C.double(value))
	runtime.KeepAlive(self)
	runtime.KeepAlive(t1)
	runtime.KeepAlive(t2)
	return resultErr(&r)
}

// Lerp returns start + weight*(end-start); the three must share one
// floating dtype.
func Lerp(start, end, weight *Tensor) (*Tensor, error) {
	hs, err := handles(start, end, weight)
	if err != nil {
		return nil, err
	}
	r := C.gobc_lerp(hs[0], hs[1], hs[2])
	runtime.KeepAlive(start)
	runtime.KeepAlive(end)
	runtime.KeepAlive(weight)
	return resultTensor(&r)
}

// LerpOut writes Lerp(start, end, weight) into out.
func LerpOut(start, end, weight, out *Tensor) error {
	hs, err := handles(start, end, weight, out)
	if err != nil {
		return err
	}
	r := C.gobc_lerp_out(hs[0], hs[1], hs[2], hs[3])
	runtime.KeepAlive(start)
	runtime.KeepAlive(end)
	runtime.KeepAlive(weight)
	runtime.KeepAlive(out)
	return resultErr(&r)
}

// LerpInPlace sets self = self + weight*(end-self).
func LerpInPlace(self, end, weight *Tensor) error {
	hs, err := handles(self, end, weight)
	if err != nil {
		return err
	}
	r := C.gobc_lerp_(hs[0], hs[1], hs[2])
	runtime.KeepAlive(self)
	runtime.KeepAlive(end)
	runtime.KeepAlive(weight)
	return resultErr(&r)
}

// Clamp returns min(max(x, lo), hi), NaN-propagating. lo or hi may be nil
// for no bound, but not both.
func Clamp(x, lo, hi *Tensor) (*Tensor, error) {
	hs, err := handles(x, lo, hi)
	if err != nil {
		return nil, err
	}
	r := C.gobc_clamp(hs[0], hs[1], hs[2])
	runtime.KeepAlive(x)
	runtime.KeepAlive(lo)
	runtime.KeepAlive(hi)
	return resultTensor(&r)
}

// ClampOut writes Clamp(x, lo, hi) into out.
func ClampOut(x, lo, hi, out *Tensor) error {
	hs, err := handles(x, lo, hi, out)
	if err != nil {
		return err
	}
	r := C.gobc_clamp_out(hs[0], hs[1], hs[2], hs[3])
	runtime.KeepAlive(x)
	runtime.KeepAlive(lo)
	runtime.KeepAlive(hi)
	runtime.KeepAlive(out)
	return resultErr(&r)
}

// ClampInPlace sets self = Clamp(self, lo, hi).
func ClampInPlace(self, lo, hi *Tensor) error {
	hs, err := handles(self, lo, hi)
	if err != nil {
		return err
	}
	r := C.gobc_clamp_(hs[0], hs[1], hs[2])
	runtime.KeepAlive(self)
	runtime.KeepAlive(lo)
	runtime.KeepAlive(hi)
	return resultErr(&r)
}

// Copy sets dst = src broadcast to dst's shape and converted to dst's dtype
// (any conversion is allowed, as in PyTorch's copy_).
func Copy(dst, src *Tensor) error {
	hs, err := handles(dst, src)
	if err != nil {
		return err
	}
	r := C.gobc_copy_(hs[0], hs[1])
	runtime.KeepAlive(dst)
	runtime.KeepAlive(src)
	return resultErr(&r)
}
