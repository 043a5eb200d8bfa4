//go:build bcast_static

package bcast

// With -tags bcast_static, libbcast.a is linked into the binary through
// bcast-static.pc, which names the archive by its path (so libbcast.so beside
// it is never picked) and what the archive leaves unresolved. Highway is
// inside the archive; with GCC on Linux libstdc++, libgomp and libgcc come
// from their archives, and the binary needs only libc, libm and libpthread.

// #cgo pkg-config: bcast-static
import "C"
