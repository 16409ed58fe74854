module github.com/fixturegen/fixturegen/bench

go 1.26.0

require (
	github.com/diskfs/go-diskfs v1.9.4
	github.com/fixturegen/fixturegen v0.0.0
	golang.org/x/sys v0.50.0
)

require (
	github.com/anchore/go-lzo v0.1.0 // indirect
	github.com/djherbis/times v1.6.0 // indirect
	github.com/elliotwutingfeng/asciiset v0.0.0-20260129054604-cfde2086bc57 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/klauspost/compress v1.18.5 // indirect
	github.com/pierrec/lz4/v4 v4.1.26 // indirect
	github.com/pkg/xattr v0.4.12 // indirect
	github.com/sirupsen/logrus v1.9.4 // indirect
	github.com/ulikunitz/xz v0.5.15 // indirect
)

replace github.com/fixturegen/fixturegen => ../
