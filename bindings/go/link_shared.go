//go:build !bcast_static

package bcast

// Linking against the shared libbcast found through pkg-config is the default.

// #cgo pkg-config: bcast
import "C"
