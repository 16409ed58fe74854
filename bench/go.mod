module github.com/fixturegen/fixturegen/bench

go 1.26.0

require github.com/fixturegen/fixturegen v0.0.0

replace github.com/fixturegen/fixturegen => ../
