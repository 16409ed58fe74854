// Command fsbench measures how long image builders take on the benchmark
// trees of internal/benchtree, as a ratio to the floor: the time to read
// every file of the tree and write all their bytes into one file, as cat(1)
// of every file into one output would, with the page cache warm.
//
// Usage:
//
//	go run ./cmd/fsbench [-trees small,medium,midsize,big] [-runs N] [-dir .trees] [-mount xfs|btrfs]
//	go run ./cmd/fsbench -mkimg [-runs N] [-dir .trees] [-mount xfs|btrfs]
//	go run ./cmd/fsbench -mkimg-containers [-mkimg-before OLD-FIXTUREGEN] [-runs N] [-dir .trees]
//	go run ./cmd/fsbench -noop 100,1000 [-noop-before OLD-FIXTUREGEN] [-runs N] [-dir .trees]
//
// With -noop it times no-op builds instead: generated catalogues of that
// many entries, each a FAT image of a folder of 50 small files, as
// "fixturegen build" finds them up to date beside ninja over the same
// files, whole processes, with the system calls each makes (noop.go).
//
// With -mkimg it measures disks instead of trees: fixturegen mkimg beside
// freebsd-mkimg and a read+write copy on a GPT disk with a 1 GiB
// partition file and on a 2 TiB disk of sparse partitions, each tool's
// time, peak RSS and peak RssAnon (memory besides mapped files) in one
// table per disk (mkimg_linux.go).
//
// With -mount it makes a file system of that type in a sparse file under
// -dir, mounts it on a loop device (as root) and runs there: the trees,
// the outputs and the floor are all on it, and the rows that share extents
// (block cloning, cp --reflink=always) run.
//
// It generates the trees under -dir when they are missing (or stale), times
// each contender on each tree (best of -runs), and prints a markdown table:
// one row per contender, one column per tree, each cell "time (ratio to
// floor)". A row compared with a peer of its format (comparePeer: the
// fixturegen msdos rows with mkfs.fat + mcopy) also gets the ratio to that
// peer measured in the same run: "time (ratio to floor; ratio to peer)".
// Contenders register themselves in contenders.go and beside it.
package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fixturegen/fixturegen/internal/benchtree"
)

func main() {
	trees := flag.String("trees", strings.Join(benchtree.Kinds, ","), "comma-separated tree kinds to measure")
	runs := flag.Int("runs", 3, "runs per measurement; the best is reported")
	dir := flag.String("dir", ".trees", "directory for the generated trees and the outputs")
	only := flag.String("only", "", "comma-separated contender names to run (default: all available)")
	mount := flag.String("mount", "", "make an xfs or btrfs file system on a loop device under -dir and run there (root)")
	mkimg := flag.Bool("mkimg", false, "measure mkimg disks (a 1 GiB partition file, a 2 TiB sparse disk) beside freebsd-mkimg instead of the trees")
	containers := flag.Bool("mkimg-containers", false, "measure only the container formats (-f qcow2, vmdk, vmdks, vhd, vhdf, vhdx) of the 1 GiB partition disk beside freebsd-mkimg")
	before := flag.String("mkimg-before", "", "with -mkimg-containers, a second fixturegen binary measured beside the one built (a change before and after)")
	noopBefore := flag.String("noop-before", "", "with -noop, another fixturegen binary (a build before a change) timed beside the others")
	noop := flag.String("noop", "", "comma-separated entry counts (100,1000): time no-op builds of generated catalogues of that many entries beside ninja instead of the trees")
	flag.Parse()
	root, unmount, err := benchRoot(*dir, *mount)
	if err == nil {
		switch {
		case *noop != "":
			var sizes []int
			for _, f := range strings.Split(*noop, ",") {
				n, perr := strconv.Atoi(strings.TrimSpace(f))
				if perr != nil || n < 1 {
					err = fmt.Errorf("-noop %s: want entry counts such as 100,1000", *noop)
					break
				}
				sizes = append(sizes, n)
			}
			if err == nil {
				err = runNoop(sizes, *runs, root, *noopBefore)
			}
		case *containers:
			err = runMkimgContainers(*runs, root, *before)
		case *mkimg:
			err = runMkimg(*runs, root)
		default:
			err = run(strings.Split(*trees, ","), *runs, root, *only)
		}
		unmount()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fsbench:", err)
		os.Exit(1)
	}
}

// treeInfo is a generated tree.
type treeInfo struct {
	Kind  string
	Dir   string
	Files int
	Bytes int64
}

func run(kinds []string, runs int, dir, only string) error {
	if runs < 1 {
		return fmt.Errorf("-runs %d: want at least 1", runs)
	}
	var trees []treeInfo
	for _, k := range kinds {
		k = strings.TrimSpace(k)
		p, err := benchtree.PlanFor(k)
		if err != nil {
			return err
		}
		td := filepath.Join(dir, k)
		fmt.Fprintf(os.Stderr, "fsbench: generating %s tree in %s (if missing)\n", k, td)
		if err := benchtree.Generate(td, k); err != nil {
			return err
		}
		trees = append(trees, treeInfo{Kind: k, Dir: td, Files: len(p.Files), Bytes: p.Size()})
	}
	outRoot := filepath.Join(dir, "out")
	if err := os.MkdirAll(outRoot, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(outRoot)

	list := []contender{{Name: "floor: cat of every file into one (read+write)", Run: floor}}
	for _, c := range contenders {
		if only != "" && !contains(strings.Split(only, ","), c.Name) {
			continue
		}
		if c.Available != nil && !c.Available() {
			fmt.Fprintf(os.Stderr, "fsbench: %s: not available here, skipped\n", c.Name)
			continue
		}
		list = append(list, c)
	}

	results := make([][]time.Duration, len(list))
	failed := map[[2]int]string{} // row and tree → why its Check failed
	for ti, t := range trees {
		// Warm the page cache: read the whole tree once.
		if err := floor(t.Dir, outRoot); err != nil {
			return err
		}
		for ci, c := range list {
			fmt.Fprintf(os.Stderr, "fsbench: %s on %s...\n", c.Name, t.Kind)
			best, checkErr, err := measure(c, t.Dir, outRoot, runs)
			if err != nil {
				return fmt.Errorf("%s on %s: %v", c.Name, t.Kind, err)
			}
			if checkErr != nil {
				fmt.Fprintf(os.Stderr, "fsbench: %s on %s: check failed: %v\n", c.Name, t.Kind, checkErr)
				failed[[2]int{ci, ti}] = checkErr.Error()
			}
			if ti == 0 {
				results[ci] = make([]time.Duration, len(trees))
			}
			results[ci][ti] = best
		}
	}
	printTable(os.Stdout, trees, list, results, runs, failed)
	return nil
}

// measure runs c on tree runs times, each into a fresh empty directory, and
// returns the best time and, apart, what c.Check found wrong with the
// first run's outputs. Removing the outputs, flushing the previous run's
// writes (sync) and c.Check are not timed.
func measure(c contender, tree, outRoot string, runs int) (best time.Duration, checkErr error, err error) {
	best = time.Duration(1<<63 - 1)
	for i := range runs {
		out := filepath.Join(outRoot, fmt.Sprintf("run%d", i))
		if err := os.MkdirAll(out, 0o755); err != nil {
			return 0, nil, err
		}
		settle()
		start := time.Now()
		err := c.Run(tree, out)
		d := time.Since(start)
		if err == nil && i == 0 && c.Check != nil {
			if checkErr = c.Check(tree, out); checkErr == nil {
				fmt.Fprintf(os.Stderr, "fsbench: %s on %s: checked\n", c.Name, filepath.Base(tree))
			}
		}
		os.RemoveAll(out)
		if err != nil {
			return 0, nil, err
		}
		best = min(best, d)
	}
	return best, checkErr, nil
}

// floor reads every regular file of tree in walk order and writes its bytes
// to one file in outdir, with read(2) and write(2) through one buffer.
func floor(tree, outdir string) error {
	out, err := os.Create(filepath.Join(outdir, "floor.bin"))
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	err = filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		return copyFile(out, p, buf)
	})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyFile appends the file at path to w by read and write calls (not
// io.Copy, which would use copy_file_range or sendfile on Linux).
func copyFile(w io.Writer, path string, buf []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// printTable prints the table; a cell whose row's Check failed on its
// tree is marked with a footnote saying why.
func printTable(w io.Writer, trees []treeInfo, list []contender, results [][]time.Duration, runs int, failed map[[2]int]string) {
	fmt.Fprintf(w, "Machine: %s, %d cores (GOMAXPROCS %d), Linux %s, %s, %s; %s; best of %d runs, page cache warm.\n\n",
		cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), kernel(), runtime.Version(),
		time.Now().UTC().Format("2006-01-02"), fsName(benchDir), runs)
	fmt.Fprintf(w, "| contender |")
	for _, t := range trees {
		fmt.Fprintf(w, " %s: %d files, %.0f MiB |", t.Kind, t.Files, float64(t.Bytes)/(1<<20))
	}
	fmt.Fprintf(w, "\n| --- |%s\n", strings.Repeat(" ---: |", len(trees)))
	index := map[string]int{}
	for ci, c := range list {
		index[c.Name] = ci
	}
	var notes, checks []string
	for ci, c := range list {
		fmt.Fprintf(w, "| %s |", c.Name)
		p, hasPeer := peers[c.Name]
		pi, peerRan := index[p.name]
		for ti := range trees {
			d, f := results[ci][ti], results[0][ti]
			fmt.Fprintf(w, " %s (%.2fx", fmtDuration(d), float64(d)/float64(f))
			if hasPeer && peerRan {
				fmt.Fprintf(w, "; %.2fx %s", float64(d)/float64(results[pi][ti]), p.label)
			}
			fmt.Fprint(w, ")")
			if why, ok := failed[[2]int{ci, ti}]; ok {
				checks = append(checks, fmt.Sprintf("[%d] %s on %s: %s", len(checks)+1, c.Name, trees[ti].Kind, why))
				fmt.Fprintf(w, " [%d]", len(checks))
			}
			fmt.Fprint(w, " |")
		}
		fmt.Fprintln(w)
		if hasPeer && peerRan {
			notes = append(notes, fmt.Sprintf("%q is %s", p.label, p.name))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\nRatios are to the floor; where a second ratio is given, it is to a peer of the same format measured in the same run (%s).\n", strings.Join(dedup(notes), "; "))
	}
	if len(checks) > 0 {
		fmt.Fprintf(w, "\nChecks that failed: %s.\n", strings.Join(checks, "; "))
	}
}

// dedup returns list without repeated strings, in first-seen order.
func dedup(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func fmtDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}

func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func kernel() string {
	data, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "(unknown kernel)"
	}
	return strings.TrimSpace(string(data))
}

// peers maps a contender's name to the peer it is compared with.
var peers = map[string]peer{}

// A peer is the contender a row is compared with, and the short label its
// ratio carries in the table.
type peer struct{ name, label string }

// comparePeer makes the table show, for the row named row, its time as a
// ratio to the row named peerName (labelled label), besides the ratio to the
// floor. Issue 3 item 7 judges fixturegen by both.
func comparePeer(row, peerName, label string) { peers[row] = peer{peerName, label} }

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}

// fixturegenBinary builds the fixturegen command of the main module once,
// as dir/fixturegen (dir is the trees' folder), and returns its absolute
// path: -noop times it, and so do the rows that run it as a whole
// process, as a user runs it.
func fixturegenBinary(dir string) (string, error) {
	fgBuild.once.Do(func() {
		if fgBuild.bin, fgBuild.err = filepath.Abs(filepath.Join(dir, "fixturegen")); fgBuild.err != nil {
			return
		}
		build := exec.Command("go", "build", "-o", fgBuild.bin, "github.com/fixturegen/fixturegen/cmd/fixturegen")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fgBuild.err = fmt.Errorf("go build fixturegen: %v", err)
		}
	})
	return fgBuild.bin, fgBuild.err
}

var fgBuild struct {
	once sync.Once
	bin  string
	err  error
}
