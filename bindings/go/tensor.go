package bcast

/*
#include "gobc.h"
*/
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Tensor is a handle on a bcast tensor: a dtype, a shape, strides and a
// reference to storage that views (View, Expand, BroadcastTensors) share.
//
// Call Close when done; a finalizer frees forgotten tensors, but only when
// the garbage collector gets to them, and the Go heap does not see the C
// memory behind them.
//
// A Tensor may be read (used as an operand, copied out) by many goroutines
// at once. A Tensor being written (the out argument of an Out function, the
// self of an InPlace function, the dst of Copy) may not be used by any
// other goroutine at the same time, nor may Close run concurrently with any
// other use of the same Tensor.
type Tensor struct {
	h     unsafe.Pointer // *C.bc_tensor; nil once closed; accessed atomically
	dtype DType
	shape []int64 // fixed for the handle's life
}

// handle returns t's C handle; a nil t gives NULL, which C refuses with its
// own message.
func (t *Tensor) handle() (*C.bc_tensor, error) {
	if t == nil {
		return nil, nil
	}
	p := atomic.LoadPointer(&t.h)
	if p == nil {
		return nil, goError(ErrInvalidArgument, "use of closed Tensor")
	}
	return (*C.bc_tensor)(p), nil
}

// handles resolves several operands at once.
func handles(ts ...*Tensor) ([]*C.bc_tensor, error) {
	hs := make([]*C.bc_tensor, len(ts))
	for i, t := range ts {
		h, err := t.handle()
		if err != nil {
			return nil, err
		}
		hs[i] = h
	}
	return hs, nil
}

// Close frees the handle. Storage shared with views lives on until the last
// of them is closed too. Close is idempotent; it always returns nil.
func (t *Tensor) Close() error {
	if t == nil {
		return nil
	}
	if p := atomic.SwapPointer(&t.h, nil); p != nil {
		runtime.SetFinalizer(t, nil)
		C.bc_tensor_free((*C.bc_tensor)(p))
	}
	return nil
}

func (t *Tensor) finalize() {
	if p := atomic.SwapPointer(&t.h, nil); p != nil {
		C.bc_tensor_free((*C.bc_tensor)(p))
	}
}

// DType returns the element type.
func (t *Tensor) DType() DType { return t.dtype }

// Shape returns a copy of the sizes; a 0-dim tensor has an empty shape.
func (t *Tensor) Shape() []int64 { return append([]int64{}, t.shape...) }

// NDim returns the number of dimensions.
func (t *Tensor) NDim() int { return len(t.shape) }

// NumEl returns the number of elements (1 for a 0-dim tensor).
func (t *Tensor) NumEl() int64 {
	n := int64(1)
	for _, d := range t.shape {
		n *= d
	}
	return n
}

// Strides returns the strides in elements (0 on broadcast dimensions of an
// expanded view).
func (t *Tensor) Strides() ([]int64, error) {
	h, err := t.handle()
	if err != nil {
		return nil, err
	}
	if h == nil {
		return nil, goError(ErrInvalidArgument, "nil *Tensor")
	}
	n := len(t.shape)
	s := make([]int64, n)
	if n > 0 {
		copy(s, unsafe.Slice((*int64)(unsafe.Pointer(C.bc_tensor_strides(h))), n))
	}
	runtime.KeepAlive(t)
	return s, nil
}

// IsContiguous reports whether the elements are contiguous in row-major
// order (false for a closed tensor).
func (t *Tensor) IsContiguous() bool {
	h, err := t.handle()
	if err != nil || h == nil {
		return false
	}
	c := C.bc_tensor_is_contiguous(h)
	runtime.KeepAlive(t)
	return c != 0
}

// String describes the tensor without its values: "Tensor(Float32, [3, 1, 7])".
func (t *Tensor) String() string {
	if t == nil {
		return "Tensor(nil)"
	}
	if atomic.LoadPointer(&t.h) == nil {
		return "Tensor(closed)"
	}
	return fmt.Sprintf("Tensor(%v, %s)", t.dtype, formatShape(t.shape))
}

// Empty returns a contiguous tensor with unspecified contents. With no
// sizes it is a 0-dim tensor of one element.
func (c *Context) Empty(dtype DType, shape ...int64) (*Tensor, error) {
	p, n := shapeArg(shape)
	t, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_tensor_empty(l, C.bc_dtype(dtype), p, n, out)
	})
	runtime.KeepAlive(shape)
	return t, err
}

// Empty is Default().Empty.
func Empty(dtype DType, shape ...int64) (*Tensor, error) {
	return defaultContext.Empty(dtype, shape...)
}

// Zeros returns a contiguous tensor of zeros.
func (c *Context) Zeros(dtype DType, shape ...int64) (*Tensor, error) {
	p, n := shapeArg(shape)
	t, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_tensor_zeros(l, C.bc_dtype(dtype), p, n, out)
	})
	runtime.KeepAlive(shape)
	return t, err
}

// Zeros is Default().Zeros.
func Zeros(dtype DType, shape ...int64) (*Tensor, error) {
	return defaultContext.Zeros(dtype, shape...)
}

// fromData copies n elements at data into a new tensor. A shape the Go side
// cannot count is handed to C without data, so that the library reports it
// in its own words.
func (c *Context) fromData(dtype DType, data unsafe.Pointer, n int, shape []int64) (*Tensor, error) {
	want, ok := countElements(shape)
	if ok && want != int64(n) {
		unit := "elements"
		if want == 1 {
			unit = "element"
		}
		return nil, goError(ErrInvalidArgument, fmt.Sprintf(
			"%d values given for shape %s (%d %s)", n, formatShape(shape), want, unit))
	}
	if !ok || n == 0 {
		data = nil
	}
	p, nd := shapeArg(shape)
	t, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_tensor_from_data(l, C.bc_dtype(dtype), p, nd, data, out)
	})
	runtime.KeepAlive(shape)
	return t, err
}

// countElements multiplies out a shape, reporting false for anything C must
// refuse (too many dimensions, a negative size, an overflow).
func countElements(shape []int64) (int64, bool) {
	if len(shape) > C.BC_MAX_DIMS {
		return 0, false
	}
	n := int64(1)
	zero := false
	for _, d := range shape {
		if d < 0 {
			return 0, false
		}
		if d == 0 {
			zero = true
			continue
		}
		if n > math.MaxInt64/d {
			return 0, false
		}
		n *= d
	}
	if zero {
		return 0, true
	}
	return n, true
}

// The From* constructors copy data (in row-major order) into a new
// contiguous tensor of the given shape; len(data) must equal the product of
// the sizes. With no sizes the tensor is 0-dim and data holds one value.
// The library keeps no reference to data.

// FromBools returns a Bool tensor holding a copy of data.
func (c *Context) FromBools(data []bool, shape ...int64) (*Tensor, error) {
	t, err := c.fromData(Bool, sliceData(data), len(data), shape)
	runtime.KeepAlive(data)
	return t, err
}

// FromBools is Default().FromBools.
func FromBools(data []bool, shape ...int64) (*Tensor, error) {
	return defaultContext.FromBools(data, shape...)
}

// FromUint8s returns a Uint8 tensor holding a copy of data.
func (c *Context) FromUint8s(data []uint8, shape ...int64) (*Tensor, error) {
	t, err := c.fromData(Uint8, sliceData(data), len(data), shape)
	runtime.KeepAlive(data)
	return t, err
}

// FromUint8s is Default().FromUint8s.
func FromUint8s(data []uint8, shape ...int64) (*Tensor, error) {
	return defaultContext.FromUint8s(data, shape...)
}

// FromInt8s returns an Int8 tensor holding a copy of data.
func (c *Context) FromInt8s(data []int8, shape ...int64) (*Tensor, error) {
	t, err := c.fromData(Int8, sliceData(data), len(data), shape)
	runtime.KeepAlive(data)
	return t, err
}

// FromInt8s is Default().FromInt8s.
func FromInt8s(data []int8, shape ...int64) (*Tensor, error) {
	return defaultContext.FromInt8s(data, shape...)
}

// FromInt16s returns an Int16 tensor holding a copy of data.
func (c *Context) FromInt16s(data []int16, shape ...int64) (*Tensor, error) {
	t, err := c.fromData(Int16, sliceData(data), len(data), shape)
	runtime.KeepAlive(data)
	return t, err
}

// FromInt16s is Default().FromInt16s.
func FromInt16s(data []int16, shape ...int64) (*Tensor, error) {
	return defaultContext.FromInt16s(data, shape...)
}

// FromInt32s returns an Int32 tensor holding a copy of data.
func (c *Context) FromInt32s(data []int32, shape ...int64) (*Tensor, error) {
	t, err := c.fromData(Int32, sliceData(data), len(data), shape)
	runtime.KeepAlive(data)
	return t, err
}

// FromInt32s is Default().FromInt32s.
func FromInt32s(data []int32, shape ...int64) (*Tensor, error) {
	return defaultContext.FromInt32s(data, shape...)
}

// FromInt64s returns an Int64 tensor holding a copy of data.
func (c *Context) FromInt64s(data []int64, shape ...int64) (*Tensor, error) {
	t, err := c.fromData(Int64, sliceData(data), len(data), shape)
	runtime.KeepAlive(data)
	return t, err
}

// FromInt64s is Default().FromInt64s.
func FromInt64s(data []int64, shape ...int64) (*Tensor, error) {
	return defaultContext.FromInt64s(data, shape...)
}

// FromFloat16Bits returns a Float16 tensor from IEEE binary16 bits (see
// F16FromFloat32).
func (c *Context) FromFloat16Bits(data []uint16, shape ...int64) (*Tensor, error) {
	t, err := c.fromData(Float16, sliceData(data), len(data), shape)
	runtime.KeepAlive(data)
	return t, err
}

// FromFloat16Bits is Default().FromFloat16Bits.
func FromFloat16Bits(data []uint16, shape ...int64) (*Tensor, error) {
	return defaultContext.FromFloat16Bits(data, shape...)
}

// FromBFloat16Bits returns a BFloat16 tensor from bfloat16 bits (see
// BF16FromFloat32).
func (c *Context) FromBFloat16Bits(data []uint16, shape ...int64) (*Tensor, error) {
	t, err := c.fromData(BFloat16, sliceData(data), len(data), shape)
	runtime.KeepAlive(data)
	return t, err
}

// FromBFloat16Bits is Default().FromBFloat16Bits.
func FromBFloat16Bits(data []uint16, shape ...int64) (*Tensor, error) {
	return defaultContext.FromBFloat16Bits(data, shape...)
}

// FromFloat32s returns a Float32 tensor holding a copy of data.
func (c *Context) FromFloat32s(data []float32, shape ...int64) (*Tensor, error) {
	t, err := c.fromData(Float32, sliceData(data), len(data), shape)
	runtime.KeepAlive(data)
	return t, err
}

// FromFloat32s is Default().FromFloat32s.
func FromFloat32s(data []float32, shape ...int64) (*Tensor, error) {
	return defaultContext.FromFloat32s(data, shape...)
}

// FromFloat64s returns a Float64 tensor holding a copy of data.
func (c *Context) FromFloat64s(data []float64, shape ...int64) (*Tensor, error) {
	t, err := c.fromData(Float64, sliceData(data), len(data), shape)
	runtime.KeepAlive(data)
	return t, err
}

// FromFloat64s is Default().FromFloat64s.
func FromFloat64s(data []float64, shape ...int64) (*Tensor, error) {
	return defaultContext.FromFloat64s(data, shape...)
}

func sliceData[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// copyInto copies t's elements, in row-major order, into out[:t.NumEl()]
// after checking that t has dtype want and that out can hold them, on a
// lane of c (its threads, its errors). It returns the number copied.
func copyInto[T any](c *Context, t *Tensor, want DType, out []T) (int, error) {
	h, err := t.handle()
	if err != nil {
		return 0, err
	}
	if h == nil {
		return 0, goError(ErrInvalidArgument, "nil *Tensor")
	}
	if t.dtype != want {
		return 0, goError(ErrDtype, fmt.Sprintf("tensor has dtype %s, not %s", t.dtype.describe(), want.describe()))
	}
	n := int(t.NumEl())
	if len(out) < n {
		return 0, goError(ErrInvalidArgument, fmt.Sprintf(
			"a slice of %d elements cannot hold a tensor of shape %s (%d elements)", len(out), formatShape(t.shape), n))
	}
	if n == 0 {
		return 0, nil
	}
	var zero T
	dst, nbytes := unsafe.Pointer(&out[0]), C.size_t(n)*C.size_t(unsafe.Sizeof(zero))
	err = c.do(func(l *C.bc_ctx) C.bc_status { return C.bc_ctx_tensor_copy_to(l, h, dst, nbytes) })
	runtime.KeepAlive(t)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// copyOut copies t's elements into a new []T (see copyInto).
func copyOut[T any](c *Context, t *Tensor, want DType) ([]T, error) {
	var out []T
	if t != nil && t.dtype == want {
		out = make([]T, t.NumEl())
	}
	if _, err := copyInto(c, t, want, out); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadInto copies t's elements in row-major order into dst, a slice of the
// element type of t's dtype ([]float32 for Float32, []uint16 for Float16 and
// BFloat16 bits, []bool for Bool, ...) with room for them all, and returns
// how many it copied: the allocation-free form of Float32s and the other
// element readers. A slice of another type, or too short, is an error and
// leaves dst as it was. It copies on Default().
func (t *Tensor) ReadInto(dst any) (int, error) { return defaultContext.ReadInto(t, dst) }

// ReadInto is Tensor.ReadInto on c.
func (c *Context) ReadInto(t *Tensor, dst any) (int, error) {
	switch d := dst.(type) {
	case []bool:
		// The library's bytes, then made 0 or 1 before dst is read as bool.
		b := unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(d))), len(d))
		n, err := copyInto(c, t, Bool, b)
		for i := range b[:n] {
			if b[i] != 0 {
				b[i] = 1
			}
		}
		return n, err
	case []uint8:
		return copyInto(c, t, Uint8, d)
	case []int8:
		return copyInto(c, t, Int8, d)
	case []int16:
		return copyInto(c, t, Int16, d)
	case []int32:
		return copyInto(c, t, Int32, d)
	case []int64:
		return copyInto(c, t, Int64, d)
	case []uint16:
		want := Float16
		if t != nil && t.dtype == BFloat16 {
			want = BFloat16
		}
		return copyInto(c, t, want, d)
	case []float32:
		return copyInto(c, t, Float32, d)
	case []float64:
		return copyInto(c, t, Float64, d)
	}
	return 0, goError(ErrInvalidArgument, fmt.Sprintf("ReadInto cannot copy into a %T", dst))
}

// Bools returns a copy of the elements of a Bool tensor in row-major order
// (any nonzero byte is true). It copies on Default(), as the other element
// readers below do; each has a Context form that copies on that Context's
// threads and reports its errors there.
func (t *Tensor) Bools() ([]bool, error) { return defaultContext.Bools(t) }

// Bools is Tensor.Bools on c.
func (c *Context) Bools(t *Tensor) ([]bool, error) {
	b, err := copyOut[uint8](c, t, Bool)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(b))
	for i, v := range b {
		out[i] = v != 0
	}
	return out, nil
}

// Uint8s returns a copy of the elements of a Uint8 tensor in row-major order.
func (t *Tensor) Uint8s() ([]uint8, error) { return copyOut[uint8](defaultContext, t, Uint8) }

// Uint8s is Tensor.Uint8s on c.
func (c *Context) Uint8s(t *Tensor) ([]uint8, error) { return copyOut[uint8](c, t, Uint8) }

// Int8s returns a copy of the elements of an Int8 tensor in row-major order.
func (t *Tensor) Int8s() ([]int8, error) { return copyOut[int8](defaultContext, t, Int8) }

// Int8s is Tensor.Int8s on c.
func (c *Context) Int8s(t *Tensor) ([]int8, error) { return copyOut[int8](c, t, Int8) }

// Int16s returns a copy of the elements of an Int16 tensor in row-major order.
func (t *Tensor) Int16s() ([]int16, error) { return copyOut[int16](defaultContext, t, Int16) }

// Int16s is Tensor.Int16s on c.
func (c *Context) Int16s(t *Tensor) ([]int16, error) { return copyOut[int16](c, t, Int16) }

// Int32s returns a copy of the elements of an Int32 tensor in row-major order.
func (t *Tensor) Int32s() ([]int32, error) { return copyOut[int32](defaultContext, t, Int32) }

// Int32s is Tensor.Int32s on c.
func (c *Context) Int32s(t *Tensor) ([]int32, error) { return copyOut[int32](c, t, Int32) }

// Int64s returns a copy of the elements of an Int64 tensor in row-major order.
func (t *Tensor) Int64s() ([]int64, error) { return copyOut[int64](defaultContext, t, Int64) }

// Int64s is Tensor.Int64s on c.
func (c *Context) Int64s(t *Tensor) ([]int64, error) { return copyOut[int64](c, t, Int64) }

// Float16Bits returns the binary16 bits of a Float16 tensor in row-major
// order (see F16ToFloat32).
func (t *Tensor) Float16Bits() ([]uint16, error) { return copyOut[uint16](defaultContext, t, Float16) }

// Float16Bits is Tensor.Float16Bits on c.
func (c *Context) Float16Bits(t *Tensor) ([]uint16, error) { return copyOut[uint16](c, t, Float16) }

// BFloat16Bits returns the bfloat16 bits of a BFloat16 tensor in row-major
// order (see BF16ToFloat32).
func (t *Tensor) BFloat16Bits() ([]uint16, error) {
	return copyOut[uint16](defaultContext, t, BFloat16)
}

// BFloat16Bits is Tensor.BFloat16Bits on c.
func (c *Context) BFloat16Bits(t *Tensor) ([]uint16, error) { return copyOut[uint16](c, t, BFloat16) }

// Float32s returns a copy of the elements of a Float32 tensor in row-major order.
func (t *Tensor) Float32s() ([]float32, error) { return copyOut[float32](defaultContext, t, Float32) }

// Float32s is Tensor.Float32s on c.
func (c *Context) Float32s(t *Tensor) ([]float32, error) { return copyOut[float32](c, t, Float32) }

// Float64s returns a copy of the elements of a Float64 tensor in row-major order.
func (t *Tensor) Float64s() ([]float64, error) { return copyOut[float64](defaultContext, t, Float64) }

// Float64s is Tensor.Float64s on c.
func (c *Context) Float64s(t *Tensor) ([]float64, error) { return copyOut[float64](c, t, Float64) }

// View returns a new handle on the same storage, shape and strides.
func (c *Context) View(t *Tensor) (*Tensor, error) {
	h, err := t.handle()
	if err != nil {
		return nil, err
	}
	v, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status { return C.bc_ctx_tensor_view(l, h, out) })
	runtime.KeepAlive(t)
	return v, err
}

// View is Default().View(t).
func (t *Tensor) View() (*Tensor, error) { return defaultContext.View(t) }

// Clone returns a contiguous copy of t.
func (c *Context) Clone(t *Tensor) (*Tensor, error) {
	h, err := t.handle()
	if err != nil {
		return nil, err
	}
	v, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status { return C.bc_ctx_tensor_clone(l, h, out) })
	runtime.KeepAlive(t)
	return v, err
}

// Clone is Default().Clone(t).
func (t *Tensor) Clone() (*Tensor, error) { return defaultContext.Clone(t) }

// To returns a contiguous copy of t converted to dtype: PyTorch's
// Tensor.to(dtype), any conversion allowed (bc_to). Unlike PyTorch's, the
// result is always a copy, also when t already has dtype (then it is
// Clone(t)), so that it never shares memory with t.
func (c *Context) To(t *Tensor, dtype DType) (*Tensor, error) {
	h, err := t.handle()
	if err != nil {
		return nil, err
	}
	if t != nil && t.dtype == dtype {
		return c.Clone(t) // bc_to would return a handle on t's storage
	}
	v, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_to(l, h, C.bc_dtype(dtype), out)
	})
	runtime.KeepAlive(t)
	return v, err
}

// To is Default().To(t, dtype).
func (t *Tensor) To(dtype DType) (*Tensor, error) { return defaultContext.To(t, dtype) }

// To is Default().To(t, dtype).
func To(t *Tensor, dtype DType) (*Tensor, error) { return defaultContext.To(t, dtype) }
