package bcast

/*
#include "gobc.h"
*/
import "C"

import (
	"runtime"
	"sync/atomic"
)

// Scalar operands. A Scalar used as an operand is what PyTorch makes of a
// Python number: a wrapped number, of the weakest tier in type promotion
// (see ResultType). An Int32 tensor times FloatScalar(0.5) is Float32, a
// Float16 tensor plus FloatScalar(2.5) stays Float16, a Uint8 tensor plus
// IntScalar(300) stays Uint8 and wraps (adds 44), as in PyTorch. On Float16
// and BFloat16, mul and the divisions with the number second, and Lerp's
// weight, use the number unrounded. Pow with a number exponent is PyTorch's
// pow(Tensor, Scalar): 0 gives ones, 1 a copy, an integer tensor with a
// negative integer exponent fails.

func (s Scalar) c() (C.int32_t, C.int64_t, C.double) {
	return C.int32_t(s.kind), C.int64_t(s.i), C.double(s.f)
}

// FromScalar returns a new 0-dim wrapped-number tensor holding s (Int64,
// Float64 or Bool), usable as any operand of any function, where it promotes
// as a number. Views of it are ordinary tensors.
func FromScalar(s Scalar) (*Tensor, error) {
	k, i, f := s.c()
	r := C.gobc_from_scalar(k, i, f)
	return resultTensor(&r)
}

// IsWrappedNumber reports whether t was made by FromScalar.
func (t *Tensor) IsWrappedNumber() bool {
	if t == nil {
		return false
	}
	p := atomic.LoadPointer(&t.h)
	if p == nil {
		return false
	}
	w := C.bc_tensor_is_wrapped_number((*C.bc_tensor)(p))
	runtime.KeepAlive(t)
	return w != 0
}

// BinaryScalar returns op(a, s), s a number (PyTorch's op(a, number)).
func BinaryScalar(op Op, a *Tensor, s Scalar) (*Tensor, error) {
	h, err := a.handle()
	if err != nil {
		return nil, err
	}
	k, i, f := s.c()
	r := C.gobc_binary_scalar(C.bc_op(op), h, k, i, f)
	runtime.KeepAlive(a)
	return resultTensor(&r)
}

// BinaryScalarOut writes op(a, s) into out, which must have a's shape.
func BinaryScalarOut(op Op, a *Tensor, s Scalar, out *Tensor) error {
	hs, err := handles(a, out)
	if err != nil {
		return err
	}
	k, i, f := s.c()
	r := C.gobc_binary_scalar_out(C.bc_op(op), hs[0], k, i, f, hs[1])
	runtime.KeepAlive(a)
	runtime.KeepAlive(out)
	return resultErr(&r)
}

// BinaryScalarInPlace sets self = op(self, s); the result dtype must be
// castable to self's.
func BinaryScalarInPlace(op Op, self *Tensor, s Scalar) error {
	h, err := self.handle()
	if err != nil {
		return err
	}
	k, i, f := s.c()
	r := C.gobc_binary_scalar_(C.bc_op(op), h, k, i, f)
	runtime.KeepAlive(self)
	return resultErr(&r)
}

// RBinaryScalar returns op(s, b), the number first (PyTorch's
// torch.sub(2, x), torch.pow(2, x)).
func RBinaryScalar(op Op, s Scalar, b *Tensor) (*Tensor, error) {
	h, err := b.handle()
	if err != nil {
		return nil, err
	}
	k, i, f := s.c()
	r := C.gobc_binary_rscalar(C.bc_op(op), k, i, f, h)
	runtime.KeepAlive(b)
	return resultTensor(&r)
}

// RBinaryScalarOut writes op(s, b) into out, which must have b's shape.
func RBinaryScalarOut(op Op, s Scalar, b, out *Tensor) error {
	hs, err := handles(b, out)
	if err != nil {
		return err
	}
	k, i, f := s.c()
	r := C.gobc_binary_rscalar_out(C.bc_op(op), k, i, f, hs[0], hs[1])
	runtime.KeepAlive(b)
	runtime.KeepAlive(out)
	return resultErr(&r)
}

// AddScalar returns a + s.
func AddScalar(a *Tensor, s Scalar) (*Tensor, error) { return BinaryScalar(OpAdd, a, s) }

// SubScalar returns a - s.
func SubScalar(a *Tensor, s Scalar) (*Tensor, error) { return BinaryScalar(OpSub, a, s) }

// MulScalar returns a * s.
func MulScalar(a *Tensor, s Scalar) (*Tensor, error) { return BinaryScalar(OpMul, a, s) }

// DivScalar returns a / s (true division).
func DivScalar(a *Tensor, s Scalar) (*Tensor, error) { return BinaryScalar(OpDiv, a, s) }

// PowScalar returns a ** s (PyTorch's pow(Tensor, Scalar)).
func PowScalar(a *Tensor, s Scalar) (*Tensor, error) { return BinaryScalar(OpPow, a, s) }

// RSubScalar returns s - b.
func RSubScalar(s Scalar, b *Tensor) (*Tensor, error) { return RBinaryScalar(OpSub, s, b) }

// RDivScalar returns s / b (true division; torch.div(s, b), which may round
// differently from Python's s / b, computed as b.reciprocal() * s).
func RDivScalar(s Scalar, b *Tensor) (*Tensor, error) { return RBinaryScalar(OpDiv, s, b) }

// RPowScalar returns s ** b (PyTorch's pow(Scalar, Tensor): a base of 1
// gives ones).
func RPowScalar(s Scalar, b *Tensor) (*Tensor, error) { return RBinaryScalar(OpPow, s, b) }

func bound(s *Scalar) (C.int, C.int32_t, C.int64_t, C.double) {
	if s == nil {
		return 0, 0, 0, 0
	}
	k, i, f := s.c()
	return 1, k, i, f
}

// ClampScalar is PyTorch's clamp(Tensor, Scalar? min, Scalar? max): lo or
// hi may be nil for no bound, not both. A floating x keeps its dtype;
// otherwise x and the bounds promote as numbers. On integer dtypes a lower
// bound above the dtype's range (or an upper one below it) fails; a NaN
// bound gives NaN everywhere.
func ClampScalar(x *Tensor, lo, hi *Scalar) (*Tensor, error) {
	h, err := x.handle()
	if err != nil {
		return nil, err
	}
	hl, kl, il, fl := bound(lo)
	hh, kh, ih, fh := bound(hi)
	r := C.gobc_clamp_scalar(h, hl, kl, il, fl, hh, kh, ih, fh)
	runtime.KeepAlive(x)
	return resultTensor(&r)
}

// ClampScalarOut writes ClampScalar(x, lo, hi) into out.
func ClampScalarOut(x *Tensor, lo, hi *Scalar, out *Tensor) error {
	hs, err := handles(x, out)
	if err != nil {
		return err
	}
	hl, kl, il, fl := bound(lo)
	hh, kh, ih, fh := bound(hi)
	r := C.gobc_clamp_scalar_out(hs[0], hl, kl, il, fl, hh, kh, ih, fh, hs[1])
	runtime.KeepAlive(x)
	runtime.KeepAlive(out)
	return resultErr(&r)
}

// ClampScalarInPlace sets self = ClampScalar(self, lo, hi); the result dtype
// must be self's.
func ClampScalarInPlace(self *Tensor, lo, hi *Scalar) error {
	h, err := self.handle()
	if err != nil {
		return err
	}
	hl, kl, il, fl := bound(lo)
	hh, kh, ih, fh := bound(hi)
	r := C.gobc_clamp_scalar_(h, hl, kl, il, fl, hh, kh, ih, fh)
	runtime.KeepAlive(self)
	return resultErr(&r)
}

// LerpScalar is PyTorch's lerp(start, end, Scalar weight): start and end of
// one floating dtype, the weight used unrounded.
func LerpScalar(start, end *Tensor, weight Scalar) (*Tensor, error) {
	hs, err := handles(start, end)
	if err != nil {
		return nil, err
	}
	k, i, f := weight.c()
	r := C.gobc_lerp_scalar(hs[0], hs[1], k, i, f)
	runtime.KeepAlive(start)
	runtime.KeepAlive(end)
	return resultTensor(&r)
}

// LerpScalarOut writes LerpScalar(start, end, weight) into out.
func LerpScalarOut(start, end *Tensor, weight Scalar, out *Tensor) error {
	hs, err := handles(start, end, out)
	if err != nil {
		return err
	}
	k, i, f := weight.c()
	r := C.gobc_lerp_scalar_out(hs[0], hs[1], k, i, f, hs[2])
	runtime.KeepAlive(start)
	runtime.KeepAlive(end)
	runtime.KeepAlive(out)
	return resultErr(&r)
}

// LerpScalarInPlace sets self += weight * (end - self).
func LerpScalarInPlace(self, end *Tensor, weight Scalar) error {
	hs, err := handles(self, end)
	if err != nil {
		return err
	}
	k, i, f := weight.c()
	r := C.gobc_lerp_scalar_(hs[0], hs[1], k, i, f)
	runtime.KeepAlive(self)
	runtime.KeepAlive(end)
	return resultErr(&r)
}
