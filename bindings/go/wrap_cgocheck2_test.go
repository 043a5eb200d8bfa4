//go:build goexperiment.cgocheck2

package bcast

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// With GOEXPERIMENT=cgocheck2 the runtime checks every Go pointer stored
// into C memory. WrapSlice stores the slice's address in its lane's C
// scratch from Go before C keeps it, so the check covers the pin: these
// tests show the check fires for an unpinned slice (in a child process,
// since the runtime throws) and stays quiet for a pinned one.

var unpinnedSink []float32

func TestCgocheck2CatchesAnUnpinnedSlice(t *testing.T) {
	if os.Getenv("BCAST_UNPINNED_CHILD") == "1" {
		l, err := defaultContext.acquire()
		if err != nil {
			panic(err)
		}
		unpinnedSink = make([]float32, 4) // on the heap, not pinned
		l.meta.data = unsafe.Pointer(&unpinnedSink[0])
		os.Stdout.WriteString("stored an unpinned pointer unnoticed\n")
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCgocheck2CatchesAnUnpinnedSlice$", "-test.count=1")
	cmd.Env = append(os.Environ(), "BCAST_UNPINNED_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Go pointer stored into non-Go memory") {
		t.Fatalf("cgocheck2 did not stop an unpinned pointer stored in C memory (err %v):\n%s", err, out)
	}
}

func TestCgocheck2AcceptsAPinnedSlice(t *testing.T) {
	l, err := defaultContext.acquire()
	ok(t, err)
	defer defaultContext.release(l)
	var p runtime.Pinner
	defer p.Unpin()
	s := make([]float32, 4)
	p.Pin(&s[0])
	l.meta.data = unsafe.Pointer(&s[0])
	l.meta.data = nil
}
