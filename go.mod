module github.com/fixturegen/fixturegen

go 1.26.0

require (
	github.com/magefile/mage v1.17.2
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.50.0
)

require golang.org/x/tools v0.26.0 // indirect

tool github.com/magefile/mage
