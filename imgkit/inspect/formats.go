package inspect

import (
	"github.com/fixturegen/fixturegen/imgkit/ar"
	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/cpio"
	"github.com/fixturegen/fixturegen/imgkit/ext"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// The formats of this module, one line each, in the order Detect tries
// them (see imgkit/inspect/describe for what a format provides).
func init() {
	Register(msdos.Describe())
	Register(ar.Describe())
	Register(ffs.Describe())
	Register(cd9660.Describe())
	Register(cpio.Describe())
	Register(ext.Describe())
	Register(mkimg.Describe(Detect))
}
