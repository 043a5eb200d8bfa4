module github.com/bcast/bcast-go

go 1.21
