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
// Slices passed to the constructors and accessors are copied during the
// call. The one exception is WrapSlice (and WrapSliceStrided), which views a
// Go slice without copying for as long as the caller keeps it pinned with a
// runtime.Pinner, the only way C may keep a pointer to Go memory:
//
//	var p runtime.Pinner
//	defer p.Unpin() // runs last, after every Close
//	x, err := bcast.WrapSlice(&p, data, 2, 3) // data: a []float32 of 6
//	defer x.Close()
//	err = bcast.AddInPlace(x, bias) // writes data itself
//
// The tensor, and every tensor or Iter sharing its memory, must be closed
// before Unpin, and never used after it; Go code must not write the slice
// while an op reads or writes it. WrapSliceOn states the rules in full.
// With GOEXPERIMENT=cgocheck2 the runtime checks that what the binding
// hands C is pinned (test.sh runs the tests so).
//
// # Host loops
//
// ForEach1, ForEach2 and ForEach3 run a Go func elementwise over broadcast
// operands, on bcast's checks, broadcasting, layouts and dtype conversion,
// with every operand seen as rows of one Go type:
//
//	out, err := bcast.ForEach2(a, b, func(out, a, b []float32) {
//		for j := range out {
//			out[j] = a[j]*a[j] + b[j]
//		}
//	})
//
// Iter is the lower-level form (NewIter, Run, RunChunk, Reset), over 2-D
// Blocks with the strides bcast planned. Go pulls the chunks of the
// iteration from goroutines (up to GOMAXPROCS, or the Context's
// SetNumThreads) and each chunk calls the func on the goroutine that runs
// it: C never calls Go from a thread of its own. A func's error stops the
// run and comes back as an *Error with ErrCallback; a panic is raised again
// on the caller. The ForEach and WrapSlice functions are generic, and Go has
// no generic methods: their Context forms take the Context first
// (ForEach2On(ctx, a, b, f), WrapSliceOn(ctx, &p, data, 3)).
//
// # Fused expressions
//
// An Expr runs a chain of elementwise ops in one pass over cache-sized
// blocks, bit for bit the result of the same ops run one by one:
//
//	e, err := bcast.ParseExpr("clamp((a - b) * c, 0, 1)", "a", "b", "c")
//	y, err := e.Eval(a, b, c)
//
// NewExpr with Input, Number, Call (ops by their table names) builds one
// node by node; Context.EvalExpr and Context.EvalExprOut evaluate on a
// Context.
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
// The unary operations are PyTorch's (see UnaryOp), in the same three forms
// (Exp, ExpOut, ExpInPlace; Unary, UnaryOut, UnaryInPlace with the UnaryOp
// as a value), with PyTorch's defaults for an operation's parameters.
// UnaryWith, UnaryWithOut and UnaryWithInPlace give them, in PyTorch's
// order, DefaultParam keeping one at its default:
//
//	y, err := bcast.UnaryWith(bcast.UnaryLeakyRelu, x, bcast.Param(0.2))
//	z, err := bcast.UnaryWith(bcast.UnaryNanToNum, x, bcast.DefaultParam, bcast.Param(1e4))
//
// To converts a tensor to another dtype.
//
// The reductions are PyTorch's (see ReduceOp), over a list of dims (nil for
// every dim) with keepdim, in two forms (Sum, SumOut; Reduce, ReduceOut).
// ReduceEx and ReduceExOut give dtype= and correction; MaxDim and MinDim
// return values and indices:
//
//	m, err := bcast.Mean(x, []int{-1}, true)
//	v, err := bcast.ReduceEx(bcast.ReduceVar, x, nil, false, bcast.WithCorrection(0))
//	values, indices, err := bcast.MaxDim(x, 1, false)
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
// # Contexts
//
// A Context holds the settings that shape the calls made through it: the
// broadcast warning, legacy pointwise mode, the broadcast policy,
// warnings-as-errors, the thread count and the warning handler. It is safe
// for concurrent use by any number of goroutines, and every operation,
// constructor and shape function is also one of its methods:
//
//	ctx := bcast.NewContext()
//	defer ctx.Close()
//	_ = ctx.SetBroadcastPolicy(bcast.PolicyError)
//	c, err := ctx.Add(a, b) // refused unless a and b have the same shape
//
// The package-level functions (Add, SetBroadcastPolicy, ...) run on
// Default(). Its settings belong to the Go package alone: they are not the
// C library's process-wide settings, so a Go program's choices never leak
// into C libraries (or other bindings) that use bcast in the same process,
// and theirs do not reach Go. A new Context starts from bcast's defaults,
// never from Default()'s settings. A setting changed while calls run
// applies to the calls that start after the setter returns.
//
// Behind a Context are C contexts (bc_ctx), "lanes", one per call in
// flight: a call takes a free lane (making one when none is free), calls
// the bc_ctx_ form of the C function on it and gives it back. The library
// records a failure in the lane, not in the OS thread, so the binding reads
// it in a later cgo call even if the goroutine has moved to another thread
// meanwhile, and two goroutines' errors can never be crossed. Changing a
// setting bumps a generation number; a lane whose settings are older
// applies the new ones when it is next taken. A Context keeps a few idle
// lanes (four per GOMAXPROCS) and frees the rest.
//
// # Concurrency
//
// Tensors read as operands may be shared by any number of goroutines. A
// tensor being written (out, the first operand of an InPlace form, the dst
// of Copy) may not be used by another goroutine during that call, and Close
// may not run concurrently with other uses of the same tensor. Contexts and
// their settings may be used and changed from any goroutine. A warning
// handler runs on the goroutine whose call raised the warning, possibly on
// several at once, and may call bcast, on its own Context too.
//
// Tensors do not belong to a Context: a tensor made through one may be used
// with any other, and outlives the Context's Close. Tensor methods that can
// fail (View, Clone, To, Expand, SumToShape, Float32s, ReadInto, ...) run on
// Default(); the Context forms of the first five are ctx.View(t),
// ctx.Clone(t), ctx.To(t, dtype), ctx.Expand(t, ...) and ctx.SumToShape(t,
// ...). SetSIMDCap stays process-wide: it is the C library's SIMD cap.
//
// # Linking
//
// The package finds libbcast with pkg-config (`#cgo pkg-config: bcast`;
// set PKG_CONFIG_PATH=<prefix>/lib/pkgconfig for a custom prefix). When it
// is not found, go build stops with pkg-config's own message, "Package bcast
// was not found in the pkg-config search path": install bcast, or point
// PKG_CONFIG_PATH at the directory holding bcast.pc. Building
// with -tags bcast_static links libbcast.a through bcast-static.pc instead,
// and the binary then needs neither libbcast nor Highway at run time.
//
// The module path is github.com/bcast-lib/bcast/bindings/go, its directory in
// the repository; releases are tagged bindings/go/vX.Y.Z.
package bcast

//go:generate python3 ../../tools/gen_ops.py
