package bcast

/*
#include "gobc.h"
*/
import "C"

import (
	"runtime"
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Context holds the settings that shape bcast's behaviour (the broadcast
// warning, legacy pointwise mode, the broadcast policy, warnings-as-errors,
// the thread count and the warning handler) for the calls made through it.
// A Context is safe for concurrent use by any number of goroutines; a
// setting changed while calls run applies to the calls that start after the
// setter returns.
//
// A new Context starts from bcast's defaults, never from another Context's
// settings. The package-level functions (Add, SetBroadcastPolicy, ...) run
// on Default().
//
// Behind a Context are C contexts (bc_ctx), "lanes": each call takes a free
// lane (making one when none is free), calls C on it, reads a failure's
// message from the lane in a later cgo call, and gives the lane back. A C
// context keeps its last error itself, not per OS thread, so a goroutine
// that moves to another thread between the two cgo calls still reads its
// own error.
type Context struct {
	mu        sync.Mutex
	set       settings
	gen       uint64  // bumped by every setting change; lanes keep the one they applied
	idle      []*lane // lanes free to take
	live      int     // lanes made and not yet freed, idle or in use
	closed    bool
	isDefault bool
}

type settings struct {
	broadcastWarning bool
	legacyPointwise  bool
	warningsAsErrors bool
	policy           Policy
	numThreads       int
	handler          func(string)
}

// A lane is one C context, used by one goroutine at a time. Its cgo.Handle
// is the user data of its warning trampoline; the lane holds no reference
// to its Context, so that a forgotten Context can still be finalized.
type lane struct {
	c       *C.bc_ctx
	meta    *C.gobc_meta // C scratch memory for the out tensor of a call
	h       cgo.Handle   // refers to this lane
	gen     uint64       // the Context's generation whose settings c holds
	handler func(string) // the handler of that generation, for the trampoline
}

var defaultContext = &Context{isDefault: true}

// liveLanes counts the lanes of every Context (for tests).
var liveLanes atomic.Int64

// Default returns the Context that the package-level functions use. Its
// settings are the Go package's own: they do not change the C library's
// process-wide settings, so a Go program's choices never leak into C code
// (or another binding) that uses bcast in the same process. Close on it does
// nothing.
func Default() *Context { return defaultContext }

// NewContext returns a Context with bcast's defaults: every toggle off,
// PolicyAllow, the default thread count, warnings written to stderr. Close
// it when done; a finalizer frees forgotten ones, but only when the garbage
// collector gets to them (and never while a warning handler set on it
// refers to it).
func NewContext() *Context {
	c := &Context{}
	runtime.SetFinalizer(c, (*Context).finalize)
	return c
}

// Close frees the C contexts of c. Calls on c that are still running finish
// normally; later ones fail with ErrInvalidArgument ("use of closed
// Context"). Close is idempotent and always returns nil; on Default() it
// does nothing.
func (c *Context) Close() error {
	if c == nil || c.isDefault {
		return nil
	}
	runtime.SetFinalizer(c, nil)
	c.finalize()
	return nil
}

func (c *Context) finalize() {
	c.mu.Lock()
	c.closed = true
	idle := c.idle
	c.idle = nil
	c.live -= len(idle)
	c.mu.Unlock()
	for _, l := range idle {
		l.free()
	}
}

// maxIdle is how many free lanes a Context keeps; more are made when more
// calls overlap, and freed when they end. Read once: runtime.GOMAXPROCS
// takes a scheduler lock.
func maxIdle() int { return idleCap }

var idleCap = 4*runtime.GOMAXPROCS(0) + 4

func newLane() (*lane, error) {
	l := &lane{meta: (*C.gobc_meta)(C.calloc(1, C.size_t(unsafe.Sizeof(C.gobc_meta{}))))}
	if l.meta == nil {
		return nil, goError(ErrOutOfMemory, "cannot allocate a context")
	}
	err := threadCall(func() C.bc_status { return C.bc_ctx_create(&l.c) })
	if err != nil {
		C.free(unsafe.Pointer(l.meta))
		return nil, err
	}
	l.h = cgo.NewHandle(l)
	liveLanes.Add(1)
	return l, nil
}

func (l *lane) free() {
	C.bc_ctx_free(l.c)
	C.free(unsafe.Pointer(l.meta))
	l.h.Delete()
	l.c, l.meta = nil, nil
	liveLanes.Add(-1)
}

// apply makes the lane's C context hold s.
func (l *lane) apply(s *settings) error {
	opts := [...]struct {
		opt C.bc_option
		v   int64
	}{
		{C.BC_OPT_BROADCAST_WARNING, int64(cbool(s.broadcastWarning))},
		{C.BC_OPT_LEGACY_POINTWISE, int64(cbool(s.legacyPointwise))},
		{C.BC_OPT_WARNINGS_AS_ERRORS, int64(cbool(s.warningsAsErrors))},
		{C.BC_OPT_POLICY, int64(s.policy)},
		{C.BC_OPT_NUM_THREADS, int64(s.numThreads)},
	}
	for _, o := range opts {
		if st := C.bc_ctx_set_option(l.c, o.opt, C.int64_t(o.v)); st != C.BC_OK {
			return l.err(st)
		}
	}
	l.handler = s.handler
	var h cgo.Handle
	if s.handler != nil {
		h = l.h
	}
	return l.check(C.gobc_set_warning_handler(l.c, C.uintptr_t(h)))
}

// acquire takes a lane holding c's current settings.
func (c *Context) acquire() (*lane, error) {
	if c == nil {
		return nil, goError(ErrInvalidArgument, "nil *Context")
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, goError(ErrInvalidArgument, "use of closed Context")
	}
	var l *lane
	if n := len(c.idle); n > 0 {
		l = c.idle[n-1]
		c.idle[n-1] = nil
		c.idle = c.idle[:n-1]
	} else {
		c.live++
	}
	gen := c.gen
	var s settings
	if l == nil || l.gen != gen {
		s = c.set
	}
	c.mu.Unlock()
	if l == nil {
		var err error
		if l, err = newLane(); err != nil {
			c.mu.Lock()
			c.live--
			c.mu.Unlock()
			return nil, err
		}
	}
	if l.gen != gen {
		if err := l.apply(&s); err != nil {
			c.release(l)
			return nil, err
		}
		l.gen = gen
	}
	return l, nil
}

// release gives a lane back, or frees it when c is closed or has enough.
func (c *Context) release(l *lane) {
	c.mu.Lock()
	if !c.closed && len(c.idle) < maxIdle() {
		c.idle = append(c.idle, l)
		c.mu.Unlock()
		return
	}
	c.live--
	c.mu.Unlock()
	l.free()
}

// do runs f on a lane of c; a failure becomes an *Error read from that
// lane. Every C call of the package that can fail goes through do or
// makeTensor, with a closure that captures C values only.
func (c *Context) do(f func(l *C.bc_ctx) C.bc_status) error {
	l, err := c.acquire()
	if err != nil {
		return err
	}
	err = l.check(f(l.c))
	c.release(l)
	return err
}

// makeTensor runs f, which makes a tensor into *out, on a lane of c and
// wraps the result.
func (c *Context) makeTensor(f func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status) (*Tensor, error) {
	l, err := c.acquire()
	if err != nil {
		return nil, err
	}
	t, err := l.makeTensor(f)
	c.release(l)
	return t, err
}

// makeTensor runs f on l, which the caller holds, and wraps the result.
func (l *lane) makeTensor(f func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status) (*Tensor, error) {
	l.meta.t = nil
	if st := f(l.c, &l.meta.t); st != C.BC_OK {
		return nil, l.err(st)
	}
	return l.wrap(), nil
}

// wrap makes a Tensor of the handle in the lane's tensor slot.
func (l *lane) wrap() *Tensor {
	if l.meta.t == nil {
		return nil
	}
	C.gobc_meta_fill(l.meta)
	n := int(l.meta.ndim)
	shape := make([]int64, n)
	if n > 0 {
		copy(shape, unsafe.Slice((*int64)(unsafe.Pointer(&l.meta.shape[0])), n))
	}
	t := &Tensor{h: unsafe.Pointer(l.meta.t), dtype: DType(l.meta.dtype), shape: shape}
	l.meta.t = nil
	runtime.SetFinalizer(t, (*Tensor).finalize)
	return t
}

func (l *lane) check(st C.bc_status) error {
	if st == C.BC_OK {
		return nil
	}
	return l.err(st)
}

// err reads the error of the call that just failed on l with st.
func (l *lane) err(st C.bc_status) error { return cError(l.c, st) }

// cError reads the last error of a C context (NULL: the calling thread's).
func cError(ctx *C.bc_ctx, st C.bc_status) error {
	var d C.bc_error_detail
	C.bc_ctx_last_error_detail(ctx, &d)
	return &Error{
		Code:    Code(st),
		Message: C.GoString(C.bc_ctx_last_error(ctx)),
		Detail:  Detail{Dim: int(d.dim), SizeA: int64(d.size_a), SizeB: int64(d.size_b)},
	}
}

// threadCall runs f, a C call without a context form, and reads its error
// from the calling thread, which the goroutine keeps for both cgo calls.
func threadCall(f func() C.bc_status) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if st := f(); st != C.BC_OK {
		return cError(nil, st)
	}
	return nil
}

// update changes a setting: calls that start after it returns see it.
func (c *Context) update(f func(s *settings)) {
	c.mu.Lock()
	f(&c.set)
	c.gen++
	c.mu.Unlock()
}

// validate asks C whether an option takes a value, on a lane of c, so that
// a refusal carries the library's message. The lane's settings are applied
// again when it is next taken.
func (c *Context) validate(opt C.bc_option, v int64) error {
	return c.do(func(l *C.bc_ctx) C.bc_status { return C.bc_ctx_set_option(l, opt, C.int64_t(v)) })
}

func (c *Context) get() settings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.set
}

// lanes reports how many lanes c has made and not freed, and how many of
// them are idle (for tests).
func (c *Context) lanes() (live, idle int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live, len(c.idle)
}

// SetBroadcastWarning turns on the backwards-compatibility warning for the
// calls on c: an op whose operands differ in shape, are broadcastable and
// have the same number of elements still broadcasts, and warns "self and
// other do not have the same shape, but are broadcastable, and have the same
// number of elements. Changing behavior in a backwards incompatible manner
// to broadcasting rather than viewing as 1-dimensional."
func (c *Context) SetBroadcastWarning(on bool) {
	c.update(func(s *settings) { s.broadcastWarning = on })
}

// BroadcastWarning reports the SetBroadcastWarning setting.
func (c *Context) BroadcastWarning() bool { return c.get().broadcastWarning }

// SetLegacyPointwise turns on the deprecated pointwise behaviour for the
// calls on c: operands that are not broadcastable but have the same number
// of elements are computed as 1-D sequences in row-major order, the result
// takes the first operand's shape, and the op warns "other is not
// broadcastable to self, but they have the same number of elements. Falling
// back to deprecated pointwise behavior."
func (c *Context) SetLegacyPointwise(on bool) { c.update(func(s *settings) { s.legacyPointwise = on }) }

// LegacyPointwise reports the SetLegacyPointwise setting.
func (c *Context) LegacyPointwise() bool { return c.get().legacyPointwise }

// SetBroadcastPolicy sets the implicit-broadcast policy of c; an unknown
// value fails with ErrInvalidArgument and changes nothing.
func (c *Context) SetBroadcastPolicy(p Policy) error {
	if err := c.validate(C.BC_OPT_POLICY, int64(p)); err != nil {
		return err
	}
	c.update(func(s *settings) { s.policy = p })
	return nil
}

// BroadcastPolicy returns the policy of c.
func (c *Context) BroadcastPolicy() Policy { return c.get().policy }

// SetWarningsAsErrors makes every warning of a call on c fail its op with
// ErrPolicy and the warning text as the message, before anything is
// written; the handler is not called.
func (c *Context) SetWarningsAsErrors(on bool) {
	c.update(func(s *settings) { s.warningsAsErrors = on })
}

// WarningsAsErrors reports the SetWarningsAsErrors setting.
func (c *Context) WarningsAsErrors() bool { return c.get().warningsAsErrors }

// SetWarningHandler sends every warning of a call on c to fn, on the
// goroutine whose call raised it (possibly several at once); fn may call
// bcast, on c too. A panic in fn is recovered and reported on stderr, and
// never reaches C. nil restores the default, which writes
// "bcast warning: <message>" to stderr.
func (c *Context) SetWarningHandler(fn func(message string)) {
	c.update(func(s *settings) { s.handler = fn })
}

// SetNumThreads sets the number of threads an op on c may use (capped at
// 1024); n <= 0 restores the default. However many Contexts there are,
// bcast never runs more of its own threads at once than there are cores.
func (c *Context) SetNumThreads(n int) error {
	if n < 0 {
		n = 0
	}
	if err := c.validate(C.BC_OPT_NUM_THREADS, int64(n)); err != nil {
		return err
	}
	c.update(func(s *settings) { s.numThreads = n })
	return nil
}

// NumThreads returns the number of threads an op on c may use (at least 1),
// or 0 once c is closed.
func (c *Context) NumThreads() int {
	var v C.int64_t
	err := c.do(func(l *C.bc_ctx) C.bc_status { return C.bc_ctx_get_option(l, C.BC_OPT_NUM_THREADS, &v) })
	if err != nil {
		return 0
	}
	return int(v)
}
