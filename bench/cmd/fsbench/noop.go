package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The no-op build rows (-noop): a catalogue of N entries, each
// "makefs -t msdos -T 0 -s 2m outNNNN.img inNNNN" over a folder of 50
// small files, built once, then timed as whole processes doing nothing:
// "fixturegen build -q" in the catalogue folder beside ninja over a
// build.ninja that lists the same 50 files of each entry as its inputs
// and the same command. ninja is the anchor every build tool is measured
// against for no-op builds: it stats each input and output once.

// noopFiles is the number of input files per entry.
const noopFiles = 50

// noopGraph is one generated graph: its size and where it lies.
type noopGraph struct {
	entries int
	cat     string // the catalogue folder (manifest, inNNNN/, outputs)
	ninja   string // the folder of build.ninja (its outputs; inputs in cat)
}

// runNoop generates the graphs of the sizes in sizes under dir, builds
// each once with fixturegen (built from this module) and ninja, and
// prints a table of the no-op times (best and median of runs whole
// processes) and, where strace is installed, the system calls one no-op
// run makes.
//
// before, when not empty, is another fixturegen binary (a build before a
// change) timed beside the two on the same graphs, with its own row.
func runNoop(sizes []int, runs int, dir, before string) error {
	if runs < 1 {
		return fmt.Errorf("-runs %d: want at least 1", runs)
	}
	ninja, err := exec.LookPath("ninja")
	if err != nil {
		return fmt.Errorf("-noop needs ninja (apt install ninja-build): %v", err)
	}
	fg, err := fixturegenBinary(dir)
	if err != nil {
		return err
	}
	_, straceErr := exec.LookPath("strace")
	type row struct {
		g                noopGraph
		fg, nj, old      noopTimes
		fgCalls, njCalls map[string]int
		oldCalls         map[string]int
	}
	var rows []row
	for _, n := range sizes {
		g, err := makeNoopGraph(filepath.Join(dir, fmt.Sprintf("noop-%d", n)), n, fg)
		if err != nil {
			return err
		}
		fgCmd := []string{fg, "build", "-q", "-C", g.cat}
		njCmd := []string{ninja, "-C", g.ninja}
		fmt.Fprintf(os.Stderr, "fsbench: first builds of the %d-entry graph...\n", n)
		for _, c := range [][]string{fgCmd, njCmd} {
			if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
				return fmt.Errorf("%s: %v: %s", strings.Join(c, " "), err, out)
			}
		}
		// Both must now find nothing to do.
		if out, _ := exec.Command(njCmd[0], njCmd[1:]...).Output(); !strings.Contains(string(out), "no work to do") {
			return fmt.Errorf("ninja's second run did work: %s", out)
		}
		if out, err := exec.Command(fg, "build", "-C", g.cat).CombinedOutput(); err != nil || !strings.Contains(string(out), fmt.Sprintf("0 built, %d up to date", n)) {
			return fmt.Errorf("fixturegen's second run did work: %v: %s", err, out)
		}
		var oldCmd []string
		if before != "" {
			// Another build's first run rebuilds everything once (its
			// generator differs); its later runs are no-ops, on a
			// state file of its own making.
			oldCat := g.cat + "-before"
			if out, err := exec.Command("cp", "-a", g.cat, oldCat).CombinedOutput(); err != nil {
				return fmt.Errorf("cp: %v: %s", err, out)
			}
			oldCmd = []string{before, "build", "-q", "-C", oldCat}
			if out, err := exec.Command(before, "build", "-update", "-q", "-C", oldCat).CombinedOutput(); err != nil {
				return fmt.Errorf("%s: %v: %s", before, err, out)
			}
		}
		r := row{g: g}
		fmt.Fprintf(os.Stderr, "fsbench: timing no-op runs of the %d-entry graph...\n", n)
		// Interleave the tools so that all see the same machine.
		for range runs {
			if err := r.fg.add(fgCmd); err != nil {
				return err
			}
			if err := r.nj.add(njCmd); err != nil {
				return err
			}
			if oldCmd != nil {
				if err := r.old.add(oldCmd); err != nil {
					return err
				}
			}
		}
		if straceErr == nil {
			if r.fgCalls, err = straceCount(dir, fgCmd); err != nil {
				return err
			}
			if r.njCalls, err = straceCount(dir, njCmd); err != nil {
				return err
			}
			if oldCmd != nil {
				if r.oldCalls, err = straceCount(dir, oldCmd); err != nil {
					return err
				}
			}
		}
		rows = append(rows, r)
	}

	fmt.Printf("Machine: %s, %d cores (GOMAXPROCS %d), Linux %s, %s, %s, %s; %s; best and median of %d runs each, whole processes, page cache warm.\n\n",
		cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), kernel(), runtime.Version(), ninjaVersion(ninja),
		time.Now().UTC().Format("2006-01-02"), fsName(dir), runs)
	fmt.Println("| graph | tool | no-op build: best; median (CPU best) | ratio to ninja: best; median; CPU | stat calls (per input file and output) | write, rename, fsync |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: |")
	for _, r := range rows {
		files := r.g.entries * (noopFiles + 1) // inputs and outputs, as ninja counts them
		calls := func(c map[string]int) (string, string) {
			if c == nil {
				return "(no strace)", "(no strace)"
			}
			return fmt.Sprintf("%d (%.2f)", c["stat"], float64(c["stat"])/float64(files)),
				fmt.Sprintf("%d, %d, %d", c["write"], c["rename"], c["fsync"])
		}
		graph := fmt.Sprintf("%d entries, %d files", r.g.entries, r.g.entries*noopFiles)
		st, wr := calls(r.fgCalls)
		fmt.Printf("| %s | fixturegen build -q | %s | %s | %s | %s |\n", graph, r.fg.cell(), r.fg.ratio(&r.nj), st, wr)
		if r.old.wall != nil {
			st, wr := calls(r.oldCalls)
			fmt.Printf("| %s | fixturegen build -q, before (%s) | %s | %s | %s | %s |\n", graph, filepath.Base(before), r.old.cell(), r.old.ratio(&r.nj), st, wr)
		}
		st, wr = calls(r.njCalls)
		fmt.Printf("| %s | ninja | %s | 1 | %s | %s |\n", graph, r.nj.cell(), st, wr)
	}
	fmt.Println("\nThe stat calls are every call of the stat family (stat, lstat, fstat, newfstatat, statx) of one no-op run under strace -f -c, per input file and output.")
	return nil
}

// makeNoopGraph generates, under dir (reused when it holds a graph of
// n entries), the catalogue folder dir/cat, with its manifest and the
// inputs, and dir/ninja, whose build.ninja runs the same command lines
// (with the fixturegen binary fg) over the same files.
func makeNoopGraph(dir string, n int, fg string) (noopGraph, error) {
	g := noopGraph{entries: n, cat: filepath.Join(dir, "cat"), ninja: filepath.Join(dir, "ninja")}
	if err := os.RemoveAll(dir); err != nil {
		return g, err
	}
	for _, d := range []string{g.cat, g.ninja} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return g, err
		}
	}
	rng := rand.New(rand.NewPCG(uint64(n), 34))
	var manifest strings.Builder
	var ninjaFile strings.Builder
	fmt.Fprintf(&ninjaFile, "rule mk\n  command = %s makefs -t msdos -T 0 -s 2m $out $dir\n\n", fg)
	buf := make([]byte, 4096)
	for i := range n {
		in := fmt.Sprintf("in%04d", i)
		out := fmt.Sprintf("out%04d.img", i)
		if err := os.Mkdir(filepath.Join(g.cat, in), 0o755); err != nil {
			return g, err
		}
		fmt.Fprintf(&manifest, "%s: makefs -t msdos -T 0 -s 2m %s %s\n", out, out, in)
		fmt.Fprintf(&ninjaFile, "build %s: mk", out)
		for j := range noopFiles {
			name := fmt.Sprintf("f%02d.txt", j)
			data := buf[:64+rng.IntN(len(buf)-64)]
			for k := range data {
				data[k] = 'a' + byte(rng.IntN(26))
			}
			if err := os.WriteFile(filepath.Join(g.cat, in, name), data, 0o644); err != nil {
				return g, err
			}
			fmt.Fprintf(&ninjaFile, " ../cat/%s/%s", in, name)
		}
		fmt.Fprintf(&ninjaFile, "\n  dir = ../cat/%s\n", in)
	}
	if err := os.WriteFile(filepath.Join(g.cat, "manifest"), []byte(manifest.String()), 0o644); err != nil {
		return g, err
	}
	return g, os.WriteFile(filepath.Join(g.ninja, "build.ninja"), []byte(ninjaFile.String()), 0o644)
}

// timeProcess runs the command c with its output discarded and returns
// its wall time and its CPU time (user and system, all threads), which
// other load on the machine changes less.
func timeProcess(c []string) (wall, cpu time.Duration, err error) {
	cmd := exec.Command(c[0], c[1:]...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall = time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %v: %s", strings.Join(c, " "), err, out)
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// noopTimes are one tool's no-op runs on one graph.
type noopTimes struct{ wall, cpu []time.Duration }

func (t *noopTimes) add(c []string) error {
	w, u, err := timeProcess(c)
	t.wall, t.cpu = append(t.wall, w), append(t.cpu, u)
	return err
}

// cell is "best; median (CPU best)" of t.
func (t *noopTimes) cell() string {
	b, m := bestMedian(t.wall)
	cb, _ := bestMedian(t.cpu)
	return fmt.Sprintf("%s; %s (CPU %s)", fmtDuration(b), fmtDuration(m), fmtDuration(cb))
}

// ratio is "best; median; CPU best" of t over u.
func (t *noopTimes) ratio(u *noopTimes) string {
	b, m := bestMedian(t.wall)
	ub, um := bestMedian(u.wall)
	cb, _ := bestMedian(t.cpu)
	ucb, _ := bestMedian(u.cpu)
	return fmt.Sprintf("%.2fx; %.2fx; %.2fx", float64(b)/float64(ub), float64(m)/float64(um), float64(cb)/float64(ucb))
}

// bestMedian returns the smallest and the median of ts.
func bestMedian(ts []time.Duration) (best, median time.Duration) {
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[0], s[len(s)/2]
}

// straceCount runs c once under strace -f -c and returns its calls by
// kind: "stat" (the stat family), "write" (write, pwrite64, writev),
// "rename" (rename, renameat, renameat2) and "fsync" (fsync, fdatasync,
// sync_file_range), and "all".
func straceCount(dir string, c []string) (map[string]int, error) {
	f, err := os.CreateTemp(dir, "strace-*.txt")
	if err != nil {
		return nil, err
	}
	f.Close()
	defer os.Remove(f.Name())
	args := append([]string{"-f", "-c", "-o", f.Name()}, c...)
	if out, err := exec.Command("strace", args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("strace %s: %v: %s", strings.Join(c, " "), err, out)
	}
	data, err := os.ReadFile(f.Name())
	if err != nil {
		return nil, err
	}
	kinds := map[string]string{
		"stat": "stat", "lstat": "stat", "fstat": "stat", "newfstatat": "stat", "statx": "stat", "fstatat64": "stat",
		"write": "write", "pwrite64": "write", "writev": "write", "pwritev": "write",
		"rename": "rename", "renameat": "rename", "renameat2": "rename",
		"fsync": "fsync", "fdatasync": "fsync", "sync_file_range": "fsync",
	}
	calls := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || f[len(f)-1] == "total" {
			continue
		}
		name := f[len(f)-1]
		// "% time seconds usecs/call calls [errors] syscall"
		n, err := strconv.Atoi(f[3])
		if err != nil {
			continue
		}
		calls["all"] += n
		if k, ok := kinds[name]; ok {
			calls[k] += n
		}
	}
	return calls, nil
}

// ninjaVersion returns "ninja VERSION".
func ninjaVersion(ninja string) string {
	out, err := exec.Command(ninja, "--version").Output()
	if err != nil {
		return "ninja"
	}
	return "ninja " + strings.TrimSpace(string(out))
}
