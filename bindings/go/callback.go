package bcast

// This file holds only the exported callback: cgo copies the preamble of a
// file with //export into two C files, so it may hold no definitions.

/*
#include <stdint.h>
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/cgo"
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
