package main

import (
	"path/filepath"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// fixturegen's ISO 9660 rows: its cd9660 writer with Rock Ridge and the
// peers' fixed time (what fixturegen makefs -t cd9660 -o rockridge -T
// 1600000000 runs), in both cache modes, each compared with FreeBSD's
// makefs -t cd9660 -o rockridge, whose bytes it makes for a tree in
// bytewise order.

func init() {
	for _, m := range []struct {
		name string
		mode bcache.Mode
	}{{"mmap", bcache.ModeMmap}, {"copy", bcache.ModeCopy}} {
		name := "fixturegen makefs -t cd9660 -o rockridge (" + m.name + ")"
		comparePeer(name, freebsdISOName, "FreeBSD makefs")
		register(contender{
			Name: name,
			Run: func(tree, outdir string) error {
				o := &cd9660.Options{RockRidge: true, Timestamp: time.Unix(isoTimestamp, 0).UTC(),
					Cache: &bcache.Options{Mode: m.mode}}
				return cd9660.WriteFile(filepath.Join(outdir, isoFileName), fstree.Dir(tree), o)
			},
		})
	}
}
