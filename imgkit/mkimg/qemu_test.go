package mkimg

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// qemuImg runs qemu-img (qemu) with args and returns what it printed,
// failing t with that output when it fails.
func qemuImg(t *testing.T, qemu string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(qemu, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("qemu-img %s: %v\n%s", args[0], err, out)
	}
	return out
}

// qemuInfo returns the format and virtual size qemu-img info gives the
// image name, read as format (qemu-img's name for it; "" lets qemu-img
// recognise the format).
func qemuInfo(t *testing.T, qemu, format, name string) (string, int64) {
	t.Helper()
	args := []string{"info", "--output=json"}
	if format != "" {
		args = append(args, "-f", format)
	}
	out, err := exec.Command(qemu, append(args, name)...).Output()
	if err != nil {
		t.Fatalf("qemu-img info %s: %v", name, err)
	}
	var info struct {
		Format      string `json:"format"`
		VirtualSize int64  `json:"virtual-size"`
	}
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatalf("qemu-img info: %v\n%s", err, out)
	}
	return info.Format, info.VirtualSize
}

// qemuConvertRaw returns the raw disk qemu-img convert -O raw makes of
// the image name, read as format ("" lets qemu-img recognise it).
func qemuConvertRaw(t *testing.T, qemu, format, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(qemuConvertRawFile(t, qemu, format, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// qemuConvertRawFile returns the path of the raw disk qemu-img convert -O
// raw makes of the image name, read as format ("" lets qemu-img recognise
// it), in a temporary directory.
func qemuConvertRawFile(t *testing.T, qemu, format, name string) string {
	t.Helper()
	conv := filepath.Join(t.TempDir(), "conv.raw")
	args := []string{"convert"}
	if format != "" {
		args = append(args, "-f", format)
	}
	qemuImg(t, qemu, append(args, "-O", "raw", name, conv)...)
	return conv
}
