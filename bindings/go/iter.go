package bcast

/*
#include "gobc.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Host loops: a Go func run over the broadcast iteration of up to three
// inputs and an output (the C bc_iter). bcast checks the operands as it
// checks its own ops, plans the iteration (dims sorted and coalesced,
// repeated inputs, transposed tiles, dtype conversion in buffers) and hands
// the func 2-D blocks of rows; Go runs the chunks of the iteration on
// goroutines ("pull mode"), so C never calls Go from a thread of its own.
//
// Why a callback per block, and not a list of blocks built by C and walked
// by Go afterwards (which would save the C-to-Go call): a block's pointers
// are valid only while the loop runs. An operand converted to its loop
// dtype, a strided operand laid out in rows, short rows laid out as long
// ones and a row of one value all reach the loop in buffers on the C stack
// of the call, and a converted or strided output is written back from its
// buffer after the loop returns. Only a block of operands that are all
// contiguous in their own dtype could be kept for later, which is too
// narrow a case to build a second path for. A cgo callback costs on the
// order of 100 ns (BenchmarkIterCallback measures it against a C loop);
// the executor's blocks are whole rows, or runs of up to 1024 elements for
// converted or laid-out operands, so it is paid per block, never per
// element.

// maxOperands is C's BC_ITER_MAX_OPERANDS: the output and up to 3 inputs.
const maxOperands = C.BC_ITER_MAX_OPERANDS

// Element is a Go type that a loop sees elements as: the C type of one
// dtype (DTypeOf). Bool, Float16 and BFloat16 have none (Go's bool is
// defined for the bytes 0 and 1 only, and Go has no 16-bit floats): a loop
// sees such operands converted, a Bool one as Uint8 (0 or 1), a Float16
// one as Float32.
type Element interface {
	uint8 | int8 | int16 | int32 | int64 | float32 | float64
}

// DTypeOf returns the dtype whose elements are T's: Uint8 for uint8,
// Float32 for float32, ...
func DTypeOf[T Element]() DType {
	var z T
	switch any(z).(type) {
	case uint8:
		return Uint8
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case float32:
		return Float32
	default:
		return Float64
	}
}

// Block is one 2-D block of an iteration as its loop sees it: NumRows rows
// of RowLen elements (both at least 1) of each operand, the output (operand 0)
// then the inputs in order, each in its loop dtype. Element j of row i of
// operand k is at byte offset i*outer + j*inner from Pointer(k), with the
// strides from Strides(k): inner is the loop dtype's size, or 0 for an
// input repeated along the row (Repeated); outer is any value, 0 when the
// row repeats. Row gives a row as a slice.
//
// A Block and every pointer and slice made from it are valid only during
// the call of the func that receives it: the memory may be a tensor's, a
// pinned Go slice's (WrapSlice), or a buffer on the C stack (a converted or
// strided operand, whose output is written back after the func returns).
// Keep nothing from it. Elements come in the output's memory order, not in
// index order; the inputs must not be written.
type Block struct {
	n0, n1 int // unexported: Row's slices are as long as they say
	chunk  int
	nops   int
	dtype  [maxOperands]DType
	data   [maxOperands]unsafe.Pointer
	inner  [maxOperands]int64
	outer  [maxOperands]int64
}

// set fills b from the arguments of a bc_loop2d_fn call.
func (b *Block) set(data, strides unsafe.Pointer, n0, n1 int64) {
	n := b.nops
	d := unsafe.Slice((*unsafe.Pointer)(data), n)
	s := unsafe.Slice((*int64)(strides), 2*n)
	for k := 0; k < n; k++ {
		b.data[k] = d[k]
		b.inner[k] = s[k]
		b.outer[k] = s[n+k]
	}
	b.n0, b.n1 = int(n0), int(n1)
}

// RowLen returns the number of elements in each row of the block (C's n0).
func (b *Block) RowLen() int { return b.n0 }

// NumRows returns the number of rows of the block (C's n1).
func (b *Block) NumRows() int { return b.n1 }

// NumOperands returns the number of operands: the output and the inputs.
func (b *Block) NumOperands() int { return b.nops }

// Chunk returns the index of the chunk the block belongs to (see
// Iter.NumChunks).
func (b *Block) Chunk() int { return b.chunk }

// DType returns the dtype in which the loop sees operand k (its loop dtype).
func (b *Block) DType(k int) DType { return b.dtype[k] }

// Repeated reports whether input k is one value along each row (an inner
// stride of 0: a broadcast along the block's rows).
func (b *Block) Repeated(k int) bool { return b.inner[k] == 0 }

// Strides returns operand k's byte strides: along a row (inner: the loop
// dtype's size, or 0) and between rows (outer).
func (b *Block) Strides(k int) (inner, outer int64) { return b.inner[k], b.outer[k] }

// Pointer returns the address of operand k's first element in the block.
func (b *Block) Pointer(k int) unsafe.Pointer { return b.data[k] }

// Row returns row i (0 <= i < NumRows) of operand k as a slice: RowLen elements,
// or one element (the row's only value) when the input is Repeated. T must
// be the Go type of the operand's loop dtype; another type panics. The
// slice is valid only during the func's call.
func Row[T Element](b *Block, k, i int) []T {
	if d := DTypeOf[T](); d != b.dtype[k] {
		panic(fmt.Sprintf("bcast: Row[%v] of operand %d, which the loop sees as %v", d, k, b.dtype[k]))
	}
	if i < 0 || i >= b.n1 {
		panic(fmt.Sprintf("bcast: row %d of a block of %d rows", i, b.n1))
	}
	p := unsafe.Add(b.data[k], int64(i)*b.outer[k])
	if b.inner[k] == 0 {
		return unsafe.Slice((*T)(p), 1)
	}
	return unsafe.Slice((*T)(p), b.n0)
}

// Iter is a planned iteration over an output and up to three broadcast
// inputs, run with a Go func over 2-D blocks (see Block). NewIter checks
// the operands as bcast's ops check theirs and plans once; Run runs the
// func over every element on goroutines; Reset points the plan at new
// operands of the same shapes and dtypes.
//
// The iteration splits into NumChunks chunks of about 32768 elements or
// more. Run pulls them from goroutines, one per chunk at a time, up to
// runtime.GOMAXPROCS of them, or the Context's SetNumThreads when that is
// smaller; RunChunk runs one on the calling goroutine, for a host's own
// scheduling. C starts no thread and calls the func only on the goroutine
// that runs the chunk.
//
// The func may run on several goroutines at once, on disjoint blocks. If
// it returns an error, no more blocks start and the run returns an *Error
// with ErrCallback holding the first such error (errors.Is finds both). If
// it panics, no more blocks start and the first panic is raised again on
// the goroutine that called Run (or RunChunk), once the run has stopped.
// The func must not use the same Iter, and should not call runtime.Goexit
// (t.Fatal, t.FailNow): that ends its goroutine with C's frames of the
// chunk dropped, stops the run (Run, on another goroutine, then returns an
// ErrCallback error) and, when the goroutine is Run's own, leaves the
// output partly written with nothing returned.
//
// The inputs and out must stay open while the Iter runs, and must not be
// written by anything else meanwhile. RunChunk may be called from many
// goroutines at once for distinct chunks; every other method waits for the
// runs in progress. Close the Iter when done; a finalizer frees a forgotten
// one, but only when the garbage collector gets to it.
type Iter struct {
	mu      sync.RWMutex // RunChunk holds it shared, every other method exclusively
	it      *C.bc_iter   // nil once closed
	c       *Context
	l       *lane // the C context the iterator was made on: it must outlive it
	nin     int
	loop    [maxOperands]DType
	numel   int64
	nchunks int
	workers int       // the most goroutines Run uses
	inputs  []*Tensor // kept from the collector while C may read them
	out     *Tensor
	failure iterFailure
}

// iterFailure is the first failure of a run: a panic wins over an error,
// so that a bug is never hidden behind another chunk's error.
type iterFailure struct {
	failed   atomic.Bool // set by every failure: no more chunks start
	mu       sync.Mutex
	err      error // the first error a func returned
	panicked bool
	value    any   // the first panic's value
	internal error // a failure of C's, not of a func (not expected)
}

// errGoexit is the failure of a func that called runtime.Goexit.
var errGoexit = errors.New("bcast: the loop called runtime.Goexit")

func (f *iterFailure) record(err error, value any, panicked bool) {
	f.failed.Store(true)
	f.mu.Lock()
	if panicked && !f.panicked {
		f.panicked, f.value = true, value
	} else if !panicked && f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

func (f *iterFailure) recordInternal(err error) {
	f.failed.Store(true)
	f.mu.Lock()
	if f.internal == nil {
		f.internal = err
	}
	f.mu.Unlock()
}

func (f *iterFailure) reset() {
	f.mu.Lock()
	f.err, f.panicked, f.value, f.internal = nil, false, nil, nil
	f.failed.Store(false)
	f.mu.Unlock()
}

// raise panics again with the first panic of the run, or returns its first
// error as an *Error with ErrCallback.
func (f *iterFailure) raise() error {
	f.mu.Lock()
	err, panicked, value, internal := f.err, f.panicked, f.value, f.internal
	f.mu.Unlock()
	switch {
	case panicked:
		panic(value)
	case err != nil:
		return callbackError(err)
	}
	return internal
}

// iterWorker is one goroutine's share of a run: the func it calls, the
// Block it fills for each call, and its own failure beside the run's.
type iterWorker struct {
	b      Block
	fn     func(*Block) error
	shared *iterFailure
	own    iterFailure
}

func (w *iterWorker) fail(err error, value any, panicked bool) {
	w.own.record(err, value, panicked)
	w.shared.record(err, value, panicked)
}

// NewIter checks the operands and plans an iteration of out = f(inputs...)
// on c: 1 to 3 inputs that broadcast together (with c's broadcast warning
// and policy), and out, which has the broadcast shape, or nil for a new
// contiguous output (see Output). loop gives the dtypes the func sees the
// operands in, out's first, then each input's (len(inputs)+1 of them);
// operands of other dtypes are converted in buffers as Copy converts. With
// loop nil each operand is seen in its own dtype. An allocated output has
// dtype loop[0], or with loop nil the inputs' promoted dtype (ResultType).
//
// The failures are those of bcast's ops: ErrNotBroadcastable,
// ErrShapeMismatch (out of another shape), ErrOverlap (out overlapping
// itself or partly overlapping an input; out may be an input), ErrPolicy,
// and ErrInvalidArgument (no input or more than 3, a wrong number of loop
// dtypes, a closed tensor, an unknown dtype, a read-only out).
func (c *Context) NewIter(inputs []*Tensor, out *Tensor, loop []DType) (*Iter, error) {
	nin := len(inputs)
	if loop != nil && len(loop) != nin+1 {
		return nil, goError(ErrInvalidArgument, fmt.Sprintf(
			"%d loop dtypes given for %d inputs: want %d (the output's, then each input's)", len(loop), nin, nin+1))
	}
	hs, err := handles(inputs...)
	if err != nil {
		return nil, err
	}
	oh, err := out.handle()
	if err != nil {
		return nil, err
	}
	outDType := Float32 // for a call that C refuses for its inputs
	switch {
	case out != nil:
		outDType = out.dtype
	case loop != nil:
		outDType = loop[0]
	case nin >= 1 && nin < maxOperands && !hasNil(hs):
		if outDType, err = c.ResultType(inputs, nil); err != nil {
			return nil, err
		}
	}
	var ph **C.bc_tensor
	if nin > 0 {
		ph = &hs[0]
	}
	var pl *C.bc_dtype
	if loop != nil {
		ld := make([]C.bc_dtype, len(loop))
		for k, d := range loop {
			ld[k] = C.bc_dtype(d)
		}
		pl = &ld[0]
	}
	l, err := c.acquire()
	if err != nil {
		return nil, err
	}
	var h *C.bc_iter
	st := C.gobc_iter_new(l.c, ph, C.size_t(nin), oh, C.bc_dtype(outDType), pl, &h)
	runtime.KeepAlive(inputs)
	runtime.KeepAlive(out)
	if st != C.BC_OK {
		err = l.err(st)
		c.release(l)
		return nil, err
	}
	it := &Iter{it: h, c: c, l: l, nin: nin, inputs: append([]*Tensor(nil), inputs...), out: out}
	for k := 0; k <= nin; k++ {
		switch {
		case loop != nil:
			it.loop[k] = loop[k]
		case k == 0:
			it.loop[k] = outDType
		default:
			it.loop[k] = inputs[k-1].dtype
		}
	}
	it.counts()
	it.workers = runtime.GOMAXPROCS(0)
	if n := c.get().numThreads; n > 0 && n < it.workers {
		it.workers = n
	}
	runtime.SetFinalizer(it, (*Iter).Close)
	return it, nil
}

// NewIter is Default().NewIter.
func NewIter(inputs []*Tensor, out *Tensor, loop []DType) (*Iter, error) {
	return defaultContext.NewIter(inputs, out, loop)
}

func hasNil(hs []*C.bc_tensor) bool {
	for _, h := range hs {
		if h == nil {
			return true
		}
	}
	return false
}

func (it *Iter) counts() {
	it.numel = int64(C.bc_iter_numel(it.it))
	it.nchunks = int(C.bc_iter_num_chunks(it.it))
}

// handle returns the C iterator; the caller holds it.mu.
func (it *Iter) handle() (*C.bc_iter, error) {
	if it.it == nil {
		return nil, goError(ErrInvalidArgument, "use of closed Iter")
	}
	return it.it, nil
}

// Close frees the iterator and gives its C context back to the Context. An
// output it allocated lives on in the handles Output returned. Close is
// idempotent; it always returns nil.
func (it *Iter) Close() error {
	if it == nil {
		return nil
	}
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.it == nil {
		return nil
	}
	runtime.SetFinalizer(it, nil)
	C.bc_iter_free(it.it)
	it.it = nil
	it.c.release(it.l)
	it.l, it.inputs, it.out = nil, nil, nil
	return nil
}

// Numel returns the number of elements of the broadcast shape (0 when it is
// empty).
func (it *Iter) Numel() int64 {
	it.mu.RLock()
	defer it.mu.RUnlock()
	return it.numel
}

// NumChunks returns the number of chunks the iteration splits into, fixed
// when it is planned: 0 for an empty shape, else at least 1 and at most
// 1024.
func (it *Iter) NumChunks() int {
	it.mu.RLock()
	defer it.mu.RUnlock()
	return it.nchunks
}

// Output returns a new handle on the output (the one given, or the one the
// iterator allocated), to be closed by the caller.
func (it *Iter) Output() (*Tensor, error) {
	it.mu.Lock()
	defer it.mu.Unlock()
	h, err := it.handle()
	if err != nil {
		return nil, err
	}
	t, err := it.l.makeTensor(func(_ *C.bc_ctx, out **C.bc_tensor) C.bc_status { return C.bc_iter_output(h, out) })
	runtime.KeepAlive(it)
	return t, err
}

// Reset points the iterator at new operands of the same shapes and dtypes
// (strides may differ), checked as NewIter checks them; out nil allocates a
// new output. On failure the iterator keeps its operands. A failure of an
// earlier run is forgotten.
func (it *Iter) Reset(inputs []*Tensor, out *Tensor) error {
	it.mu.Lock()
	defer it.mu.Unlock()
	h, err := it.handle()
	if err != nil {
		return err
	}
	if len(inputs) != it.nin {
		return goError(ErrInvalidArgument, fmt.Sprintf(
			"%d inputs given to an iterator made with %d", len(inputs), it.nin))
	}
	hs, err := handles(inputs...)
	if err != nil {
		return err
	}
	oh, err := out.handle()
	if err != nil {
		return err
	}
	st := C.bc_iter_reset(h, &hs[0], oh)
	runtime.KeepAlive(inputs)
	runtime.KeepAlive(out)
	if st != C.BC_OK {
		return it.l.err(st)
	}
	it.inputs, it.out = append([]*Tensor(nil), inputs...), out
	it.counts()
	it.failure.reset()
	return nil
}

// ClearFailure forgets a failure of earlier RunChunk calls, so that chunks
// run again (Run and Reset do it themselves).
func (it *Iter) ClearFailure() {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.it != nil {
		C.bc_iter_clear_failure(it.it)
	}
	it.failure.reset()
}

// Run runs f over every block of the iteration, pulling the chunks from
// goroutines (see Iter): on success every element of the output has been
// written once. It returns nil, the first error f returned (an *Error with
// ErrCallback; the output is then partly written), or panics again with
// f's first panic. Run may be called again, with another func.
func (it *Iter) Run(f func(b *Block) error) error {
	return it.run(func() func(*Block) error { return f })
}

// run is Run with a func per goroutine, made by newFn on that goroutine's
// first chunk (ForEach's funcs keep scratch rows of their own).
func (it *Iter) run(newFn func() func(*Block) error) error {
	it.mu.Lock()
	defer it.mu.Unlock()
	h, err := it.handle()
	if err != nil {
		return err
	}
	C.bc_iter_clear_failure(h)
	it.failure.reset()
	n := it.nchunks
	var next atomic.Int64
	work := func() {
		if next.Load() >= int64(n) {
			return
		}
		w := it.worker(newFn())
		wh := cgo.NewHandle(w)
		defer wh.Delete()
		for {
			i := next.Add(1) - 1
			// C refuses the chunks after a loop's failure, but a loop that
			// called runtime.Goexit never returned to tell it.
			if i >= int64(n) || it.failure.failed.Load() {
				return
			}
			w.b.chunk = int(i)
			if st := C.gobc_iter_run_chunk(h, C.size_t(i), C.uintptr_t(wh)); st != C.BC_OK {
				if st != C.BC_ERR_CALLBACK {
					it.failure.recordInternal(goError(Code(st), fmt.Sprintf("bc_iter_run_chunk failed: %v", Code(st))))
				}
				return
			}
		}
	}
	var wg sync.WaitGroup
	// Deferred, so that even a caller ended by runtime.Goexit in its own
	// chunk waits for the others before the Iter is unlocked (and closed).
	defer wg.Wait()
	for g := 1; g < min(it.workers, n); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	runtime.KeepAlive(it)
	return it.failure.raise()
}

func (it *Iter) worker(fn func(*Block) error) *iterWorker {
	w := &iterWorker{fn: fn, shared: &it.failure}
	w.b.nops = it.nin + 1
	w.b.dtype = it.loop
	return w
}

// RunChunk runs f over the blocks of chunk i (0 <= i < NumChunks) on the
// calling goroutine, for a host that schedules the chunks itself: each
// chunk once, in any order, distinct chunks from any number of goroutines
// at once. It returns nil; f's error (an *Error with ErrCallback); or, when
// another chunk's func failed before this chunk finished, the first error
// of those (the chunk is then partly run or not at all). A panic in f is
// raised again here. After a failure, ClearFailure (or Run, or Reset)
// lets chunks run again.
func (it *Iter) RunChunk(i int, f func(b *Block) error) error {
	it.mu.RLock()
	defer it.mu.RUnlock()
	h, err := it.handle()
	if err != nil {
		return err
	}
	if i < 0 || i >= it.nchunks {
		return goError(ErrInvalidArgument, fmt.Sprintf("chunk %d of an iterator of %d chunks", i, it.nchunks))
	}
	w := it.worker(f)
	w.b.chunk = i
	wh := cgo.NewHandle(w)
	defer wh.Delete()
	st := C.gobc_iter_run_chunk(h, C.size_t(i), C.uintptr_t(wh))
	runtime.KeepAlive(it)
	switch {
	case st == C.BC_OK:
		return nil
	case st != C.BC_ERR_CALLBACK:
		return goError(Code(st), fmt.Sprintf("bc_iter_run_chunk failed: %v", Code(st)))
	}
	if w.own.panicked || w.own.err != nil {
		return w.own.raise()
	}
	it.failure.mu.Lock()
	first, panicked := it.failure.err, it.failure.panicked
	it.failure.mu.Unlock()
	if first == nil || panicked {
		return goError(ErrCallback, fmt.Sprintf("chunk %d stopped: the loop of another chunk panicked or failed", i))
	}
	return callbackError(first)
}

// countBlocks runs every chunk on the calling goroutine with a C loop that
// only counts the blocks: what a run costs without calling Go (for
// BenchmarkIterCallback).
func (it *Iter) countBlocks() (int64, error) {
	it.mu.Lock()
	defer it.mu.Unlock()
	h, err := it.handle()
	if err != nil {
		return 0, err
	}
	var blocks C.int64_t
	for i := 0; i < it.nchunks; i++ {
		if st := C.gobc_iter_run_chunk_count(h, C.size_t(i), &blocks); st != C.BC_OK {
			return 0, goError(Code(st), fmt.Sprintf("bc_iter_run_chunk failed: %v", Code(st)))
		}
	}
	runtime.KeepAlive(it)
	return int64(blocks), nil
}
