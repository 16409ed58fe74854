package mkimg

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/internal/getopt"
)

// checkGUIDs checks the GUIDs o gives explicitly (Options.DiskGUID,
// Partition.GUID): only a scheme that stores GUIDs takes them, not in
// FreeBSD's test mode (whose GUIDs are mkimg's counters), a partition's
// only in a used slot, and no GUID twice, which would leave two
// partitions (or a partition and the disk) that tools cannot tell apart.
func (l *layout) checkGUIDs(o *Options) error {
	seen := map[GUID]string{}
	given := func(g GUID, what string) error {
		switch {
		case g.IsZero():
			return nil
		case l.s == nil || !l.s.hasGUIDs:
			return fmt.Errorf("%w: %s GUID %s: %s stores no GUIDs", ErrOption, what, g, cmp(l.scheme, "a disk without a scheme"))
		case l.testMode:
			return fmt.Errorf("%w: %s GUID %s: -y gives FreeBSD's test-mode GUIDs, not explicit ones", ErrOption, what, g)
		case seen[g] != "":
			return fmt.Errorf("%w: %s GUID %s: already the %s GUID", ErrOption, what, g, seen[g])
		}
		seen[g] = what
		return nil
	}
	if err := given(o.DiskGUID, "disk"); err != nil {
		return err
	}
	for i, p := range o.Partitions {
		if p.Unused && !p.GUID.IsZero() {
			return fmt.Errorf("%w: partition %d GUID %s: the slot is unused", ErrOption, i+1, p.GUID)
		}
		if err := given(p.GUID, fmt.Sprintf("partition %d", i+1)); err != nil {
			return err
		}
	}
	return nil
}

// derives reports whether the disk needs a derived GUID: its scheme
// stores GUIDs, the GUIDs are not FreeBSD's counters, and the disk's or a
// used partition's is not given. Only then are the partitions' contents
// hashed.
func (l *layout) derives() bool {
	if l.s == nil || !l.s.hasGUIDs || l.testMode {
		return false
	}
	if l.diskGUID.IsZero() {
		return true
	}
	for _, p := range l.parts {
		if p.GUID.IsZero() {
			return true
		}
	}
	return false
}

// hashes reports whether the partitions' contents are hashed for the
// rule's seed: when a GUID is derived (derives), and when a container
// format derives its ids (a VHD's UniqueId, a VMDK's CID) from the seed,
// without -y.
func (l *layout) hashes() bool {
	return l.derives() || (l.format != nil && !l.testMode)
}

// setGUIDs applies the command line's --disk-guid GUID and
// --partition-guid N=GUID options, N the 1-based -p slot, once every -p
// is read, so that they may come before or after the slot they name. Each
// GUID must be RFC 4122 text and not the nil GUID, and each slot (and the
// disk) may be given one GUID; -y refuses them all (checkGUIDs), since
// its GUIDs are FreeBSD's counters.
func (o *Options) setGUIDs(flags []getopt.Option) error {
	for _, f := range flags {
		what, text := "--disk-guid", f.Arg
		slot := 0
		if f.Long == "partition-guid" {
			n, g, ok := strings.Cut(f.Arg, "=")
			if !ok {
				return fmt.Errorf("%w: --partition-guid %q: want N=GUID, N the partition's -p slot from 1", ErrOption, f.Arg)
			}
			v, err := strconv.Atoi(n)
			if err != nil || v < 1 || v > len(o.Partitions) {
				return fmt.Errorf("%w: --partition-guid %q: no -p slot %s (%d given)", ErrOption, f.Arg, n, len(o.Partitions))
			}
			if o.Partitions[v-1].Unused {
				return fmt.Errorf("%w: --partition-guid %q: -p slot %d is unused (-)", ErrOption, f.Arg, v)
			}
			what, text, slot = "--partition-guid "+n, g, v
		}
		if o.FreeBSDTestMode {
			return fmt.Errorf("%w: %s with -y: -y gives FreeBSD's test-mode GUIDs, not explicit ones", ErrOption, what)
		}
		g, err := ParseGUID(text)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrOption, what, err)
		}
		if g.IsZero() {
			return fmt.Errorf("%w: %s: the nil GUID %s identifies nothing", ErrOption, what, g)
		}
		dst := &o.DiskGUID
		if slot > 0 {
			dst = &o.Partitions[slot-1].GUID
		}
		if !dst.IsZero() {
			return fmt.Errorf("%w: %s given twice", ErrOption, what)
		}
		*dst = g
	}
	return nil
}
