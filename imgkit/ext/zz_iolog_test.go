package ext

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

func TestZZIOLog(t *testing.T) {
	src := os.Getenv("ZZSRC")
	if src == "" {
		t.Skip()
	}
	size, _ := strconv.ParseInt(os.Getenv("ZZSIZE"), 10, 64)
	bs, _ := strconv.Atoi(os.Getenv("ZZBS"))
	o := Options{Type: os.Getenv("ZZTYPE"), Size: size, BlockSize: bs, UUID: testUUID, HashSeed: testHashSeed, Timestamp: time.Unix(testEpoch, 0), ClampTimes: true}
	if f := os.Getenv("ZZFEAT"); f != "" {
		o.Features = strings.Split(f, ",")
	}
	var m *ioModel
	ioLogHook = func(x *ioModel) { x.sim.log = new([]string); m = x }
	defer func() { ioLogHook = nil }()
	img, err := Build(fstree.Dir(src), &o)
	if err != nil {
		t.Fatal(err)
	}
	lines := append([]string{"R 1 -1024", "W 2 -3072", "R 0 -512", "W 0 -1024"}, *m.sim.log...)
	os.WriteFile(os.Getenv("ZZOUT"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	os.WriteFile(os.Getenv("ZZOUT")+".img", img, 0o644)
}
