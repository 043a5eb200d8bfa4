package bcast

// This file holds only the exported callbacks: cgo copies the preamble of a
// file with //export into two C files, so it may hold no definitions.

/*
#include <stdint.h>
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/cgo"
	"unsafe"
)

// goBcastWarning receives each warning from the C trampoline in gobc.h; the
// handle is that of the lane the op runs on, which holds the handler of the
// settings the call started with. A panic in the user's handler stops here:
// unwinding into C would crash the process.
//
//export goBcastWarning
func goBcastWarning(message *C.char, handle C.uintptr_t) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "bcast: warning handler panicked: %v\n", p)
		}
	}()
	if l, ok := cgo.Handle(handle).Value().(*lane); ok && l.handler != nil {
		l.handler(C.GoString(message))
	}
}

// goBcastLoop runs a Go loop over one block of an iterator's chunk, reached
// from the C trampoline in gobc.h while bc_iter_run_chunk runs on this
// goroutine's thread (pull mode: C never calls Go from a thread of its own).
// The handle is that of the worker running the chunk, which holds the func
// and a Block it reuses, so a call allocates nothing. An error or a panic
// stops the run: it is recorded for the goroutine that started it and the
// nonzero return tells C to start no more blocks; a panic must not unwind
// into C. runtime.Goexit cannot be stopped: the goroutine ends, C's frames
// of the chunk are dropped, and the run is marked failed so that the other
// goroutines start no more chunks.
//
//export goBcastLoop
func goBcastLoop(handle C.uintptr_t, data **C.char, strides *C.int64_t, n0, n1 C.int64_t) (rc C.int) {
	w := cgo.Handle(handle).Value().(*iterWorker)
	returned := false
	defer func() {
		if p := recover(); p != nil {
			w.fail(nil, p, true)
			rc = 2
		} else if !returned {
			w.fail(errGoexit, nil, false)
		}
	}()
	w.b.set(unsafe.Pointer(data), unsafe.Pointer(strides), int64(n0), int64(n1))
	err := w.fn(&w.b)
	returned = true
	if err != nil {
		w.fail(err, nil, false)
		return 1
	}
	return 0
}
