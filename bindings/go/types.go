package bcast

/*
#include "gobc.h"
*/
import "C"

import (
	"runtime"
	"sync/atomic"
)

// ScalarKind says which Go value a Scalar holds (C's bc_scalar_kind).
type ScalarKind int32

// Scalar kinds, with the values of the C enum.
const (
	ScalarBool  ScalarKind = 0
	ScalarInt   ScalarKind = 1
	ScalarFloat ScalarKind = 2
)

// Scalar is a number that is not a tensor: PyTorch's wrapped Python bool,
// int or float (C's bc_scalar). In type promotion it is weaker than every
// tensor, 0-dim ones included: it raises only the category (bool < integer
// < floating), and a float with integer tensors gives Float32. Make one
// with BoolScalar, IntScalar or FloatScalar.
type Scalar struct {
	kind ScalarKind
	i    int64 // bool (0/1) and int
	f    float64
}

// BoolScalar is Python's True or False.
func BoolScalar(b bool) Scalar {
	if b {
		return Scalar{kind: ScalarBool, i: 1}
	}
	return Scalar{kind: ScalarBool}
}

// IntScalar is a Python int within int64.
func IntScalar(i int64) Scalar { return Scalar{kind: ScalarInt, i: i} }

// FloatScalar is a Python float.
func FloatScalar(f float64) Scalar { return Scalar{kind: ScalarFloat, f: f} }

// Kind returns which value the scalar holds.
func (s Scalar) Kind() ScalarKind { return s.kind }

// ResultType returns the dtype PyTorch gives an op over these tensors and
// scalars (torch.result_type, for any number of operands): dimensioned
// tensors rank above 0-dim tensors, which rank above scalars, and a lower
// rank counts only when its category is higher. So an Int32 tensor with
// FloatScalar(0.5) gives Float32, a Float16 tensor with FloatScalar(2.5)
// stays Float16, and a Uint8 tensor with IntScalar(300) stays Uint8. Ops
// with their own rules (true division, comparisons) apply them on top.
// With no operand at all it fails with ErrInvalidArgument.
func (c *Context) ResultType(tensors []*Tensor, scalars []Scalar) (DType, error) {
	hs, err := handles(tensors...)
	if err != nil {
		return 0, err
	}
	hs = append(hs, nil) // never empty, so &hs[0] exists
	ss := make([]C.bc_scalar, len(scalars)+1)
	for i, s := range scalars {
		ss[i] = s.c()
	}
	d := new(C.bc_dtype)
	ph, nt, ps, ns := &hs[0], C.size_t(len(tensors)), &ss[0], C.size_t(len(scalars))
	err = c.do(func(l *C.bc_ctx) C.bc_status { return C.bc_ctx_result_type(l, ph, nt, ps, ns, d) })
	runtime.KeepAlive(tensors)
	if err != nil {
		return 0, err
	}
	return DType(*d), nil
}

// ResultType is Default().ResultType.
func ResultType(tensors []*Tensor, scalars []Scalar) (DType, error) {
	return defaultContext.ResultType(tensors, scalars)
}

// c returns the C value of s.
func (s Scalar) c() C.bc_scalar {
	return C.gobc_scalar(C.int32_t(s.kind), C.int64_t(s.i), C.double(s.f))
}

// CanCast reports whether a value of dtype from may be written into a
// tensor of dtype to (torch.can_cast): all but floating to integer or bool,
// and integer to bool. Unknown dtypes give false.
func CanCast(from, to DType) bool {
	return C.bc_can_cast(C.bc_dtype(from), C.bc_dtype(to)) != 0
}

// IsWritable reports whether bcast may write into t: false for a tensor
// imported read-only (DLPack's read-only flag) and its views, whose every
// write fails with ErrInvalidArgument; false for a closed or nil tensor.
func (t *Tensor) IsWritable() bool {
	if t == nil {
		return false
	}
	p := atomic.LoadPointer(&t.h)
	if p == nil {
		return false
	}
	w := C.bc_tensor_is_writable((*C.bc_tensor)(p))
	runtime.KeepAlive(t)
	return w != 0
}
