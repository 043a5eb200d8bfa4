//go:build bcast_static

package bcast

// With -tags bcast_static, libbcast.a is linked into the binary and its
// private dependencies (Highway, OpenMP, libstdc++) come from
// `pkg-config --static bcast`. -Bstatic makes the first -lbcast pick the
// archive even where libbcast.so lies beside it; --as-needed then keeps the
// -lbcast that pkg-config repeats from adding libbcast.so as a dependency.

// #cgo LDFLAGS: -Wl,-Bstatic -lbcast -Wl,-Bdynamic -Wl,--as-needed
// #cgo pkg-config: --static bcast
import "C"
