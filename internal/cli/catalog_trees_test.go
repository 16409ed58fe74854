package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildSourceTrees checks that a makefs entry whose source tree holds
// the catalogue's files or an output (its own or another entry's) fails,
// naming the manifest line and the folder, that entries which pass each
// other's outputs as sources, directly or through folders, are a cycle,
// that an output named as an input directly still makes a dependency, and
// that a manifest breaking any of these rules builds nothing.
func TestBuildSourceTrees(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, manifest string
		files          []string
		code           int
		want           []string // lines of stderr
	}{
		{"catalogue folder", "a.img: makefs -t msdos -T 0 a.img .\n", nil, 1, []string{
			"fixturegen: build: manifest:1: a.img: the input folder . holds the catalogue's own files (manifest, fixtures.sum, .fixturegen-state, .fixturegen-tmp-*), which change with every build: give a folder of inputs",
		}},
		{"parent folder", "a.img: makefs -t msdos -T 0 a.img ..\n", nil, 1, []string{
			"fixturegen: build: manifest:1: a.img: the input folder .. holds the catalogue's own files",
		}},
		{"own output", "out/a.img: makefs -t msdos -T 0 out/a.img out\n", []string{"out/x"}, 1, []string{
			"fixturegen: build: manifest:1: out/a.img: the input folder out holds this entry's own output out/a.img",
		}},
		{"extra directory", "a.img: makefs -t msdos -T 0 a.img in out\nout/b.img: makefs -t msdos -T 0 out/b.img in\n", []string{"in/x", "out/y"}, 1, []string{
			"fixturegen: build: manifest:1: a.img: the input folder out holds out/b.img, the output of manifest:2: name that output as an input, or move it out of the folder",
		}},
		{"folders cycle", "a.img: makefs -t msdos -T 0 a.img dirA\ndirA/b.img: makefs -t msdos -T 0 dirA/b.img dirB\ndirB/c.img: makefs -t msdos -T 0 dirB/c.img in\nd.img: makefs -t msdos -T 0 d.img dirB/e\n",
			[]string{"dirA/x", "dirB/e/x", "in/x"}, 1, []string{
				"fixturegen: build: manifest:1: a.img: the input folder dirA holds dirA/b.img, the output of manifest:2",
				"fixturegen: build: manifest:2: dirA/b.img: the input folder dirB holds dirB/c.img, the output of manifest:3",
			}},
		{"sources cycle", "a.img: makefs -t msdos -T 0 a.img b.img\nb.img: makefs -t msdos -T 0 b.img a.img\n", nil, 1, []string{
			"fixturegen: build: manifest:1: a.img: the entries read each other's outputs: a.img -> b.img -> a.img",
		}},
		{"folders each other's", "dirA/a.img: makefs -t msdos -T 0 dirA/a.img dirB\ndirB/b.img: makefs -t msdos -T 0 dirB/b.img dirA\n", []string{"dirA/x", "dirB/y"}, 1, []string{
			"fixturegen: build: manifest:1: dirA/a.img: the entries read each other's outputs: dirA/a.img -> dirB/b.img -> dirA/a.img",
		}},
		{"source holds another's output", "src/d.img: makefs -t msdos -T 0 src/d.img in\ne.img: makefs -t msdos -T 0 e.img src\n", []string{"in/x", "src/y"}, 1, []string{
			"fixturegen: build: manifest:2: e.img: the input folder src holds src/d.img, the output of manifest:1: name that output as an input, or move it out of the folder; nothing was built",
		}},
		{"output as input", "iso.iso: makefs -t cd9660 -o 'bootimage=i386;floppy.img' -T 0 iso.iso in\nfloppy.img: makefs -t msdos -s 1440k -T 0 floppy.img in\n", []string{"in/x"}, 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			files := map[string]string{"go.mod": "module m\n", "fixtures/manifest": c.manifest}
			for _, f := range c.files {
				files["fixtures/"+f] = "data\n"
			}
			writeFiles(t, root, files)
			code, _, stderr := buildRunner(t)(root, "build", "-q")
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr %q", code, c.code, stderr)
			}
			if c.name == "folders cycle" && strings.Contains(stderr, "d.img") {
				t.Errorf("d.img, whose folder holds no output, failed: %q", stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if c.code != 0 {
				// The manifest's shape is checked before any entry runs:
				// no output is written, not even one no rule names.
				for _, line := range strings.Split(strings.TrimSpace(c.manifest), "\n") {
					name, _, _ := strings.Cut(line, ":")
					if _, err := os.Lstat(filepath.Join(root, "fixtures", name)); err == nil {
						t.Errorf("%s was written, though the build failed", name)
					}
				}
				return
			}
			for _, p := range []string{"iso.iso", "floppy.img"} {
				if _, err := os.Stat(filepath.Join(root, "fixtures", p)); err != nil {
					t.Error(err)
				}
			}
		})
	}
}
