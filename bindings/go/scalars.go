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

// FromScalar returns a new 0-dim wrapped-number tensor holding s (Int64,
// Float64 or Bool), usable as any operand of any function, where it promotes
// as a number. Views of it are ordinary tensors.
func (c *Context) FromScalar(s Scalar) (*Tensor, error) {
	return c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_tensor_from_scalar(l, s.c(), out)
	})
}

// FromScalar is Default().FromScalar.
func FromScalar(s Scalar) (*Tensor, error) { return defaultContext.FromScalar(s) }

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
func (c *Context) BinaryScalar(op Op, a *Tensor, s Scalar) (*Tensor, error) {
	h, err := handles(a)
	if err != nil {
		return nil, err
	}
	t, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_binary_scalar(l, C.bc_op(op), h[0], s.c(), out)
	})
	runtime.KeepAlive(a)
	return t, err
}

// BinaryScalar is Default().BinaryScalar.
func BinaryScalar(op Op, a *Tensor, s Scalar) (*Tensor, error) {
	return defaultContext.BinaryScalar(op, a, s)
}

// BinaryScalarOut writes op(a, s) into out, which must have a's shape.
func (c *Context) BinaryScalarOut(op Op, a *Tensor, s Scalar, out *Tensor) error {
	h, err := handles(a, out)
	if err != nil {
		return err
	}
	err = c.do(func(l *C.bc_ctx) C.bc_status {
		return C.bc_ctx_binary_scalar_out(l, C.bc_op(op), h[0], s.c(), h[1])
	})
	runtime.KeepAlive(a)
	runtime.KeepAlive(out)
	return err
}

// BinaryScalarOut is Default().BinaryScalarOut.
func BinaryScalarOut(op Op, a *Tensor, s Scalar, out *Tensor) error {
	return defaultContext.BinaryScalarOut(op, a, s, out)
}

// BinaryScalarInPlace sets self = op(self, s); the result dtype must be
// castable to self's.
func (c *Context) BinaryScalarInPlace(op Op, self *Tensor, s Scalar) error {
	h, err := handles(self)
	if err != nil {
		return err
	}
	err = c.do(func(l *C.bc_ctx) C.bc_status { return C.bc_ctx_binary_scalar_(l, C.bc_op(op), h[0], s.c()) })
	runtime.KeepAlive(self)
	return err
}

// BinaryScalarInPlace is Default().BinaryScalarInPlace.
func BinaryScalarInPlace(op Op, self *Tensor, s Scalar) error {
	return defaultContext.BinaryScalarInPlace(op, self, s)
}

// RBinaryScalar returns op(s, b), the number first (PyTorch's
// torch.sub(2, x), torch.pow(2, x)).
func (c *Context) RBinaryScalar(op Op, s Scalar, b *Tensor) (*Tensor, error) {
	h, err := handles(b)
	if err != nil {
		return nil, err
	}
	t, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_binary_rscalar(l, C.bc_op(op), s.c(), h[0], out)
	})
	runtime.KeepAlive(b)
	return t, err
}

// RBinaryScalar is Default().RBinaryScalar.
func RBinaryScalar(op Op, s Scalar, b *Tensor) (*Tensor, error) {
	return defaultContext.RBinaryScalar(op, s, b)
}

// RBinaryScalarOut writes op(s, b) into out, which must have b's shape.
func (c *Context) RBinaryScalarOut(op Op, s Scalar, b, out *Tensor) error {
	h, err := handles(b, out)
	if err != nil {
		return err
	}
	err = c.do(func(l *C.bc_ctx) C.bc_status {
		return C.bc_ctx_binary_rscalar_out(l, C.bc_op(op), s.c(), h[0], h[1])
	})
	runtime.KeepAlive(b)
	runtime.KeepAlive(out)
	return err
}

// RBinaryScalarOut is Default().RBinaryScalarOut.
func RBinaryScalarOut(op Op, s Scalar, b, out *Tensor) error {
	return defaultContext.RBinaryScalarOut(op, s, b, out)
}

// The number-second shortcuts (AddScalar, MulScalar, ... for every Op) are
// generated into ops_named.go; the number-first ones are here.

// RSubScalar returns s - b.
func RSubScalar(s Scalar, b *Tensor) (*Tensor, error) { return RBinaryScalar(OpSub, s, b) }

// RDivScalar returns s / b (true division; torch.div(s, b), which may round
// differently from Python's s / b, computed as b.reciprocal() * s).
func RDivScalar(s Scalar, b *Tensor) (*Tensor, error) { return RBinaryScalar(OpDiv, s, b) }

// RPowScalar returns s ** b (PyTorch's pow(Scalar, Tensor): a base of 1
// gives ones).
func RPowScalar(s Scalar, b *Tensor) (*Tensor, error) { return RBinaryScalar(OpPow, s, b) }

// RSubScalar returns s - b, on c.
func (c *Context) RSubScalar(s Scalar, b *Tensor) (*Tensor, error) {
	return c.RBinaryScalar(OpSub, s, b)
}

// RDivScalar returns s / b (true division, as the package-level RDivScalar), on c.
func (c *Context) RDivScalar(s Scalar, b *Tensor) (*Tensor, error) {
	return c.RBinaryScalar(OpDiv, s, b)
}

// RPowScalar returns s ** b (as the package-level RPowScalar), on c.
func (c *Context) RPowScalar(s Scalar, b *Tensor) (*Tensor, error) {
	return c.RBinaryScalar(OpPow, s, b)
}

// bounds returns C copies of the clamp bounds and pointers to them (nil for
// no bound); the copies hold no Go pointer, so C may read them.
func bounds(lo, hi *Scalar) (*C.bc_scalar, *C.bc_scalar) {
	var plo, phi *C.bc_scalar
	if lo != nil {
		v := lo.c()
		plo = &v
	}
	if hi != nil {
		v := hi.c()
		phi = &v
	}
	return plo, phi
}

// ClampScalar is PyTorch's clamp(Tensor, Scalar? min, Scalar? max): lo or
// hi may be nil for no bound, not both. A floating x keeps its dtype;
// otherwise x and the bounds promote as numbers. On integer dtypes a lower
// bound above the dtype's range (or an upper one below it) fails; a NaN
// bound gives NaN everywhere.
func (c *Context) ClampScalar(x *Tensor, lo, hi *Scalar) (*Tensor, error) {
	h, err := handles(x)
	if err != nil {
		return nil, err
	}
	plo, phi := bounds(lo, hi)
	t, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_clamp_scalar(l, h[0], plo, phi, out)
	})
	runtime.KeepAlive(x)
	return t, err
}

// ClampScalar is Default().ClampScalar.
func ClampScalar(x *Tensor, lo, hi *Scalar) (*Tensor, error) {
	return defaultContext.ClampScalar(x, lo, hi)
}

// ClampScalarOut writes ClampScalar(x, lo, hi) into out.
func (c *Context) ClampScalarOut(x *Tensor, lo, hi *Scalar, out *Tensor) error {
	h, err := handles(x, out)
	if err != nil {
		return err
	}
	plo, phi := bounds(lo, hi)
	err = c.do(func(l *C.bc_ctx) C.bc_status { return C.bc_ctx_clamp_scalar_out(l, h[0], plo, phi, h[1]) })
	runtime.KeepAlive(x)
	runtime.KeepAlive(out)
	return err
}

// ClampScalarOut is Default().ClampScalarOut.
func ClampScalarOut(x *Tensor, lo, hi *Scalar, out *Tensor) error {
	return defaultContext.ClampScalarOut(x, lo, hi, out)
}

// ClampScalarInPlace sets self = ClampScalar(self, lo, hi); the result dtype
// must be self's.
func (c *Context) ClampScalarInPlace(self *Tensor, lo, hi *Scalar) error {
	h, err := handles(self)
	if err != nil {
		return err
	}
	plo, phi := bounds(lo, hi)
	err = c.do(func(l *C.bc_ctx) C.bc_status { return C.bc_ctx_clamp_scalar_(l, h[0], plo, phi) })
	runtime.KeepAlive(self)
	return err
}

// ClampScalarInPlace is Default().ClampScalarInPlace.
func ClampScalarInPlace(self *Tensor, lo, hi *Scalar) error {
	return defaultContext.ClampScalarInPlace(self, lo, hi)
}

// LerpScalar is PyTorch's lerp(start, end, Scalar weight): start and end of
// one floating dtype, the weight used unrounded.
func (c *Context) LerpScalar(start, end *Tensor, weight Scalar) (*Tensor, error) {
	h, err := handles(start, end)
	if err != nil {
		return nil, err
	}
	t, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_lerp_scalar(l, h[0], h[1], weight.c(), out)
	})
	runtime.KeepAlive(start)
	runtime.KeepAlive(end)
	return t, err
}

// LerpScalar is Default().LerpScalar.
func LerpScalar(start, end *Tensor, weight Scalar) (*Tensor, error) {
	return defaultContext.LerpScalar(start, end, weight)
}

// LerpScalarOut writes LerpScalar(start, end, weight) into out.
func (c *Context) LerpScalarOut(start, end *Tensor, weight Scalar, out *Tensor) error {
	h, err := handles(start, end, out)
	if err != nil {
		return err
	}
	err = c.do(func(l *C.bc_ctx) C.bc_status {
		return C.bc_ctx_lerp_scalar_out(l, h[0], h[1], weight.c(), h[2])
	})
	runtime.KeepAlive(start)
	runtime.KeepAlive(end)
	runtime.KeepAlive(out)
	return err
}

// LerpScalarOut is Default().LerpScalarOut.
func LerpScalarOut(start, end *Tensor, weight Scalar, out *Tensor) error {
	return defaultContext.LerpScalarOut(start, end, weight, out)
}

// LerpScalarInPlace sets self += weight * (end - self).
func (c *Context) LerpScalarInPlace(self, end *Tensor, weight Scalar) error {
	h, err := handles(self, end)
	if err != nil {
		return err
	}
	err = c.do(func(l *C.bc_ctx) C.bc_status { return C.bc_ctx_lerp_scalar_(l, h[0], h[1], weight.c()) })
	runtime.KeepAlive(self)
	runtime.KeepAlive(end)
	return err
}

// LerpScalarInPlace is Default().LerpScalarInPlace.
func LerpScalarInPlace(self, end *Tensor, weight Scalar) error {
	return defaultContext.LerpScalarInPlace(self, end, weight)
}
