// Package bcast runs elementwise tensor operations with exactly PyTorch's
// broadcasting semantics, through the C library libbcast.
//
// # Tensors
//
// A *Tensor is a handle on C memory. The constructors (FromFloat32s,
// FromInt64s, ..., Empty, Zeros) copy Go data into a new tensor; the
// accessors (Float32s, Int64s, ...) copy it back out. Shapes are given as
// trailing int64 arguments, and no sizes at all means a 0-dim tensor of one
// element:
//
//	x, err := bcast.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
//	s, err := bcast.FromFloat32s([]float32{10}) // 0-dim
//
// Close each tensor when done with it. A finalizer frees the ones that are
// forgotten, but only when the garbage collector runs, and the collector
// does not see the C memory they hold.
//
// # Go memory and C
//
// The library never keeps a pointer to Go memory: slices passed to
// constructors and accessors are copied during the call, and the C side
// holds only C memory. That is why there is no zero-copy wrapping of Go
// slices; a view on a tensor's storage is taken with View, Expand or
// BroadcastTensors instead.
//
// # Operations
//
// Every operation has three forms, each returning an error:
//
//	c, err := bcast.Add(a, b)        // allocating: broadcast shape, promoted dtype
//	err = bcast.AddOut(a, b, out)    // into out, which has the broadcast shape
//	err = bcast.AddInPlace(a, b)     // into a, whose shape may not change
//
// Binary, BinaryOut and BinaryInPlace take the Op as a value; the ternary
// operations are Where, Addcmul, Addcdiv, Lerp and Clamp, and Copy copies
// with broadcasting and any dtype conversion.
//
// # Errors
//
// Every failure is an *Error carrying the library's Code, its Message
// (PyTorch's text, byte for byte, where PyTorch has one) and a Detail for
// broadcasting failures. The codes are sentinel errors:
//
//	_, err := bcast.Add(x, y)
//	if errors.Is(err, bcast.ErrNotBroadcastable) { ... }
//
// The C library keeps its last error per OS thread, and a goroutine may
// move between OS threads from one cgo call to the next. So each C call and
// the reading of its error happen inside one cgo call, in a small C wrapper
// (gobc.h), and errors can never be crossed between goroutines.
//
// # Concurrency
//
// Tensors read as operands may be shared by any number of goroutines. A
// tensor being written (out, the first operand of an InPlace form, the dst
// of Copy) may not be used by another goroutine during that call, and Close
// may not run concurrently with other uses of the same tensor. Settings
// (SetBroadcastWarning, SetBroadcastPolicy, SetWarningHandler, ...) are
// process-wide and may be changed from any goroutine.
//
// # Linking
//
// The package finds libbcast with pkg-config (`#cgo pkg-config: bcast`;
// set PKG_CONFIG_PATH=<prefix>/lib/pkgconfig for a custom prefix). Building
// with -tags bcast_static links libbcast.a through bcast-static.pc instead,
// and the binary then needs neither libbcast nor Highway at run time.
//
// The module path is github.com/bcast-lib/bcast/bindings/go, its directory in
// the repository; releases are tagged bindings/go/vX.Y.Z.
package bcast

//go:generate python3 ../../tools/gen_ops.py
