package mkimg

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The parsers of the independent tools' listings, which every scheme's
// validator tests read the tools' answers through.

// toolPart is one partition as a tool lists it.
type toolPart struct {
	slot           int
	start, sectors uint64
	typ, label     string
	guid           string
	boot           bool
}

// sfdiskLine is one partition line of sfdisk -d.
var sfdiskLine = regexp.MustCompile(`^\S*?(\d+) : start=\s*(\d+), size=\s*(\d+), type=([0-9A-Fa-f-]+)(.*)$`)

// sfdiskDump lists the partitions sfdisk -d finds on dev.
func sfdiskDump(t *testing.T, sfdisk, dev string) []toolPart {
	t.Helper()
	return sfdiskParts(runTool(t, sfdisk, "-d", dev))
}

// sfdiskParts lists the partitions of sfdisk -d's output out: slot,
// start, size, type (in upper case), boot flag, GUID and name.
func sfdiskParts(out string) []toolPart {
	var parts []toolPart
	for _, line := range strings.Split(out, "\n") {
		m := sfdiskLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		p := toolPart{typ: strings.ToUpper(m[4]), boot: strings.Contains(m[5], "bootable")}
		p.slot, _ = strconv.Atoi(m[1])
		p.start, _ = strconv.ParseUint(m[2], 10, 64)
		p.sectors, _ = strconv.ParseUint(m[3], 10, 64)
		if u := regexp.MustCompile(`uuid=([0-9A-F-]+)`).FindStringSubmatch(m[5]); u != nil {
			p.guid = u[1]
		}
		if n := regexp.MustCompile(`name="([^"]*)"`).FindStringSubmatch(m[5]); n != nil {
			p.label = n[1]
		}
		parts = append(parts, p)
	}
	return parts
}

// fdiskList lists the partitions fdisk -l finds in img, read with
// sectors of secsz bytes (-b), as fdiskParts reads them.
func fdiskList(t *testing.T, fdisk, img string, secsz uint64) []toolPart {
	t.Helper()
	return fdiskParts(t, runTool(t, fdisk, "-b", strconv.FormatUint(secsz, 10), "-l", img), img)
}

// fdiskParts lists the partitions of fdisk -l's output out for img: each
// device row's slot, start, sector count from start and end, the boot
// flag and, for a DOS or Sun table, the type id (in upper case); and a
// BSD label's slices, a to t, as slots 1 to 20.
func fdiskParts(t *testing.T, out, img string) []toolPart {
	t.Helper()
	var parts []toolPart
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		var p toolPart
		switch {
		case strings.HasPrefix(f[0], img):
			p.slot, _ = strconv.Atoi(strings.TrimPrefix(f[0], img))
		case len(f[0]) == 1 && f[0][0] >= 'a' && f[0][0] <= 't':
			p.slot = int(f[0][0]-'a') + 1
			if _, err := strconv.ParseUint(f[1], 10, 64); err != nil {
				continue
			}
		default:
			continue
		}
		f = f[1:]
		if f[0] == "*" {
			p.boot = true
			f = f[1:]
		}
		start, err1 := strconv.ParseUint(f[0], 10, 64)
		end, err2 := strconv.ParseUint(f[1], 10, 64)
		n, err3 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || end+1-start != n {
			t.Fatalf("fdisk -l line %q: start, end and sectors do not agree", line)
		}
		p.start, p.sectors = start, n
		if len(f) > 4 {
			p.typ = strings.ToUpper(f[4]) // a DOS or Sun table's Id column
		}
		parts = append(parts, p)
	}
	return parts
}

// mmlsLine is one volume line of mmls: slot, start, end, length and
// description.
var mmlsLine = regexp.MustCompile(`^\d+:\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)(?:\s+(.*))?$`)

// mmlsList lists the partitions mmls finds in img with secsz-byte
// sectors (-b), of the volume system vstype (-t; "" to let mmls find it),
// skipping its metadata and unallocated lines; the slot is the 1-based
// table slot (mmls counts from 0), or 0 where mmls prints dashes for it,
// and the label mmls's description. mmls's slot numbers are exact only up
// to 127 and read back modulo 256; it prints the slot of a partition 255
// modulo 256 as dashes, as for unallocated space.
func mmlsList(t *testing.T, mmls, vstype, img string, secsz uint64) []toolPart {
	t.Helper()
	args := []string{"-b", strconv.FormatUint(secsz, 10)}
	if vstype != "" {
		args = append(args, "-t", vstype)
	}
	var parts []toolPart
	for _, line := range strings.Split(runTool(t, mmls, append(args, img)...), "\n") {
		m := mmlsLine.FindStringSubmatch(strings.TrimRight(line, " "))
		if m == nil || m[1] == "Meta" || m[5] == "Unallocated" {
			continue
		}
		var p toolPart
		if slot := m[1][strings.LastIndexByte(m[1], ':')+1:]; !strings.HasPrefix(slot, "-") {
			n, _ := strconv.ParseUint(slot, 10, 64)
			p.slot = int(uint8(n)) + 1 // sleuthkit 4.11 keeps the slot in 8 signed bits: slot 128 prints as 4294967168
		}
		p.start, _ = strconv.ParseUint(m[2], 10, 64)
		end, _ := strconv.ParseUint(m[3], 10, 64)
		p.sectors, _ = strconv.ParseUint(m[4], 10, 64)
		if end+1-p.start != p.sectors {
			t.Fatalf("mmls line %q: start, end and length do not agree", line)
		}
		p.label = m[5]
		parts = append(parts, p)
	}
	return parts
}

// lineDisk writes the disk of one command line, its files in dir, to a
// temporary file, and returns the file and the line's layout.
func lineDisk(t *testing.T, dir, line string) (string, *layout) {
	t.Helper()
	o := parseIn(t, dir, strings.Fields(line))
	l := mustPlan(t, o)
	img := filepath.Join(t.TempDir(), "disk.img")
	if err := WriteFile(img, o); err != nil {
		t.Fatal(err)
	}
	return img, l
}
