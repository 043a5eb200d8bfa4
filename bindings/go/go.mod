module github.com/bcast-lib/bcast/bindings/go

go 1.21
