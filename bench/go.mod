module github.com/fixturegen/fixturegen/bench

go 1.26.0

require github.com/fixturegen/fixturegen v0.0.0

require golang.org/x/sys v0.50.0 // indirect

replace github.com/fixturegen/fixturegen => ../
