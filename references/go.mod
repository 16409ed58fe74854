// This go.mod keeps the reference tools' sources out of fixturegen's
// module: a folder with a go.mod of its own is left out of the module zip
// that `go install` and `go get` download. It holds no Go code.
module github.com/fixturegen/fixturegen/references

go 1.26
