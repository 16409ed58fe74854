package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The -mkimg benchmark (issue 21 item 9): fixturegen mkimg beside
// freebsd-mkimg and a read+write copy, on the same disks in one run, with
// each tool's wall and CPU time (the least of -runs), its peak RSS (GNU
// time's %M) and its peak memory besides mapped files (RssAnon in
// /proc/PID/status, sampled every 2 ms).
const (
	mkimgPartSize   = 1 << 30 // the partition file of the GPT disk
	mkimgSparseSize = 8 << 30 // the sparse partition file of the 2 TiB disk
)

// benchDiskGUID and benchPartGUID are the GUIDs the explicit-GUID row
// gives (fixturegen's --disk-guid and --partition-guid), so that its disk
// needs no derived GUID and its partition is read only by the copy.
const (
	benchDiskGUID = "5fa2d9c4-3b1e-4c07-9a55-0d6e1f2a3b4c"
	benchPartGUID = "8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
)

// mkimgRow is one contender of the -mkimg table: a command line run as a
// child process, or the in-process floor.
type mkimgRow struct {
	name string
	// argv is the command line for the partition file part and the
	// output out; nil for the floor.
	argv func(part, out string) []string
	env  []string
	// peer names the row whose time this one is compared with.
	peer string
}

// mkimgResult is what the runs of one row measured.
type mkimgResult struct {
	best, cpu      time.Duration // the least of the runs of each
	maxRSS, maxAnn int64         // KiB
	onDisk         int64         // bytes the last output takes on disk
	ran            bool
}

// mkimgSetup checks runs, builds the fixturegen command in dir and makes
// the 1 GiB partition file of random bytes there; it returns both paths.
func mkimgSetup(runs int, dir string) (fg, part string, err error) {
	if runs < 1 {
		return "", "", fmt.Errorf("-runs %d: want at least 1", runs)
	}
	fg = filepath.Join(dir, "fixturegen")
	build := exec.Command("go", "build", "-o", fg, "github.com/fixturegen/fixturegen/cmd/fixturegen")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", "", fmt.Errorf("go build fixturegen: %v", err)
	}
	part = filepath.Join(dir, "mkimg-part-1g.img")
	if err := randomFile(part, mkimgPartSize); err != nil {
		return "", "", err
	}
	return fg, part, nil
}

// mkimgGPT returns the command line of tool (with extra options) making
// the GPT disk out of the partition file part, -P 4096.
func mkimgGPT(tool string, extra ...string) func(part, out string) []string {
	return func(part, out string) []string {
		return append(append([]string{tool}, extra...), "-s", "gpt", "-P", "4096", "-p", "freebsd-ufs:="+part, "-o", out)
	}
}

// runMkimg builds the fixturegen command, makes the partition files under
// dir and prints the two tables: the GPT disk with a 1 GiB partition file,
// and the 2 TiB disk of sparse partitions.
func runMkimg(runs int, dir string) error {
	fg, part, err := mkimgSetup(runs, dir)
	if err != nil {
		return err
	}
	sparse := filepath.Join(dir, "mkimg-sparse-8g.img")
	if err := sparseFile(sparse, mkimgSparseSize); err != nil {
		return err
	}
	outRoot := filepath.Join(dir, "out")
	if err := os.MkdirAll(outRoot, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(outRoot)

	gpt := mkimgGPT
	big := []mkimgRow{
		{name: "floor: read+write copy of the partition file"},
		{name: "sanity: cp --reflink=auto", argv: func(part, out string) []string { return []string{"cp", "--reflink=auto", part, out} }},
		{name: "freebsd-mkimg -y", argv: gpt("freebsd-mkimg", "-y")},
		{name: "freebsd-mkimg", argv: gpt("freebsd-mkimg")},
		{name: "fixturegen mkimg -y", argv: gpt(fg, "mkimg", "-y"), peer: "freebsd-mkimg -y"},
		{name: "fixturegen mkimg (derived GUIDs: hashes the partition)", argv: gpt(fg, "mkimg"), peer: "freebsd-mkimg"},
		{name: "fixturegen mkimg (explicit GUIDs: hashes nothing)", argv: gpt(fg, "mkimg", "--disk-guid", benchDiskGUID, "--partition-guid", "1="+benchPartGUID), peer: "freebsd-mkimg"},
		{name: "fixturegen mkimg -y (FIXTUREGEN_CACHE=copy)", argv: gpt(fg, "mkimg", "-y"), env: []string{"FIXTUREGEN_CACHE=copy"}, peer: "freebsd-mkimg -y"},
		{name: "fixturegen mkimg -y (FIXTUREGEN_CACHE=noclone)", argv: gpt(fg, "mkimg", "-y"), env: []string{"FIXTUREGEN_CACHE=noclone"}, peer: "freebsd-mkimg -y"},
		{name: "freebsd-mkimg -y -f qcow2", argv: gpt("freebsd-mkimg", "-y", "-f", "qcow2")},
		{name: "fixturegen mkimg -y -f qcow2", argv: gpt(fg, "mkimg", "-y", "-f", "qcow2"), peer: "freebsd-mkimg -y -f qcow2"},
		{name: "freebsd-mkimg -y -f vhd", argv: gpt("freebsd-mkimg", "-y", "-f", "vhd")},
		{name: "fixturegen mkimg -y -f vhd", argv: gpt(fg, "mkimg", "-y", "-f", "vhd"), peer: "freebsd-mkimg -y -f vhd"},
	}
	fmt.Printf("GPT disk with a 1 GiB partition file: `-s gpt -P 4096 -p freebsd-ufs:=part.img -o disk.img`\n\n")
	if err := mkimgTable(big, part, outRoot, runs); err != nil {
		return err
	}
	if err := mkimgVMDKTable(fg, part, outRoot, runs); err != nil {
		return err
	}

	sparseArgs := func(tool string, extra ...string) func(part, out string) []string {
		return func(part, out string) []string {
			return append(append([]string{tool}, extra...), "-s", "gpt", "-P", "4096", "-p", "freebsd-ufs::1t", "-p", "freebsd-swap::1016g", "-p", "freebsd-ufs:="+part, "-o", out)
		}
	}
	huge := []mkimgRow{
		// A read+write copy of the sparse file would write its 8 GiB of
		// zeros; cp keeps its holes.
		{name: "sanity: cp of the partition file", argv: func(part, out string) []string { return []string{"cp", part, out} }},
		{name: "freebsd-mkimg -y", argv: sparseArgs("freebsd-mkimg", "-y")},
		{name: "fixturegen mkimg -y", argv: sparseArgs(fg, "mkimg", "-y"), peer: "freebsd-mkimg -y"},
		{name: "fixturegen mkimg -y (FIXTUREGEN_CACHE=copy)", argv: sparseArgs(fg, "mkimg", "-y"), env: []string{"FIXTUREGEN_CACHE=copy"}, peer: "freebsd-mkimg -y"},
		{name: "fixturegen mkimg (derived GUIDs: hashes the 8 GiB file)", argv: sparseArgs(fg, "mkimg"), peer: "freebsd-mkimg -y"},
	}
	fmt.Printf("\n2 TiB disk of sparse partitions: `-s gpt -P 4096 -p freebsd-ufs::1t -p freebsd-swap::1016g -p freebsd-ufs:=sparse.img -o disk.img`, sparse.img 8 GiB with 2 MiB of data\n\n")
	return mkimgTable(huge, sparse, outRoot, runs)
}

// mkimgTable measures rows on the partition file part, interleaving the
// rows run by run so that the machine's load changes affect them alike,
// and prints the table. The first row is the floor the second column
// compares with.
func mkimgTable(rows []mkimgRow, part, outRoot string, runs int) error {
	res := make([]mkimgResult, len(rows))
	for r := range runs {
		for i, row := range rows {
			if row.argv != nil {
				if _, err := exec.LookPath(row.argv(part, "x")[0]); err != nil {
					if r == 0 {
						fmt.Fprintf(os.Stderr, "fsbench: %s: not available here, skipped\n", row.name)
					}
					continue
				}
			}
			fmt.Fprintf(os.Stderr, "fsbench: %s, run %d...\n", row.name, r+1)
			out := filepath.Join(outRoot, "disk.img")
			os.Remove(out)
			settle()
			d, cpu, rss, anon, err := runMkimgRow(row, part, out)
			if err != nil {
				return fmt.Errorf("%s: %v", row.name, err)
			}
			var st syscall.Stat_t
			if syscall.Stat(out, &st) == nil {
				res[i].onDisk = st.Blocks * 512
			}
			os.Remove(out)
			if !res[i].ran || d < res[i].best {
				res[i].best = d
			}
			if !res[i].ran || cpu < res[i].cpu {
				res[i].cpu = cpu
			}
			res[i].ran = true
			res[i].maxRSS, res[i].maxAnn = max(res[i].maxRSS, rss), max(res[i].maxAnn, anon)
		}
	}
	fmt.Printf("Machine: %s, %d cores, Linux %s, %s, %s; %s; best of %d runs, interleaved, page cache warm.\n\n",
		cpuModel(), runtime.NumCPU(), kernel(), runtime.Version(), time.Now().UTC().Format("2006-01-02"), fsName(benchDir), runs)
	fmt.Printf("| contender | time | vs %s |", rows[0].name)
	fmt.Println(" vs peer | CPU (user+sys) | CPU vs peer | peak RSS | peak RssAnon | output on disk |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	index := map[string]int{}
	for i, row := range rows {
		index[row.name] = i
	}
	for i, row := range rows {
		r := res[i]
		if !r.ran {
			continue
		}
		vsPeer, cpuPeer := "", ""
		if p, ok := index[row.peer]; ok && res[p].ran {
			vsPeer = fmt.Sprintf("%.2fx %s", float64(r.best)/float64(res[p].best), row.peer)
			cpuPeer = fmt.Sprintf("%.2fx", float64(r.cpu)/float64(res[p].cpu))
		}
		rss, anon := "", ""
		if row.argv != nil {
			rss, anon = fmt.Sprintf("%d KiB", r.maxRSS), fmt.Sprintf("%d KiB", r.maxAnn)
		}
		fmt.Printf("| %s | %s | %.3fx | %s | %s | %s | %s | %s | %.1f MiB |\n", row.name, fmtDuration(r.best),
			float64(r.best)/float64(res[0].best), vsPeer, fmtDuration(r.cpu), cpuPeer, rss, anon, float64(r.onDisk)/(1<<20))
	}
	return nil
}

// timeCmd is GNU time, which the children run under: Go starts a child
// with vfork, so the child's ru_maxrss counts the parent's resident set
// at exec (about 12 MiB here), while time's own fork gives the tool a
// small parent's.
const timeCmd = "/usr/bin/time"

// runMkimgRow runs row once and returns its wall time, its CPU time (user
// and system), its peak RSS and its peak RssAnon, in KiB.
func runMkimgRow(row mkimgRow, part, out string) (wall, cpu time.Duration, rss, anon int64, err error) {
	if row.argv == nil {
		var before, after syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &before)
		start := time.Now()
		err := copyOne(part, out)
		wall = time.Since(start)
		syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		return wall, cpuTime(&after) - cpuTime(&before), 0, 0, err
	}
	argv := row.argv(part, out)
	rssFile := out + ".rss"
	defer os.Remove(rssFile)
	cmd := exec.Command(timeCmd, append([]string{"-f", "%M", "-o", rssFile}, argv...)...)
	cmd.Env = append(os.Environ(), row.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, 0, err
	}
	peak := make(chan int64)
	stop := make(chan struct{})
	go func() { peak <- sampleRssAnon(cmd.Process.Pid, stop) }()
	err = cmd.Wait()
	wall = time.Since(start)
	close(stop)
	anon = <-peak
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, stderr.Bytes())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu = cpuTime(ru) // time's and the tool's, which time waited for
	}
	b, err := os.ReadFile(rssFile)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, 0, 0, 0, fmt.Errorf("%s wrote no maximum RSS: %q", timeCmd, b)
	}
	rss, err = strconv.ParseInt(f[len(f)-1], 10, 64)
	return wall, cpu, rss, anon, err
}

// cpuTime is the user and system time of ru.
func cpuTime(ru *syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sampleRssAnon returns the largest RssAnon of the child of the process
// pid (the tool that time runs), in KiB, read from /proc every 2 ms until
// stop is closed.
func sampleRssAnon(pid int, stop chan struct{}) int64 {
	var peak int64
	children := fmt.Sprintf("/proc/%d/task/%d/children", pid, pid)
	status := ""
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		if status == "" {
			if b, err := os.ReadFile(children); err == nil {
				if f := strings.Fields(string(b)); len(f) > 0 {
					status = "/proc/" + f[0] + "/status"
				}
			}
		}
		if f, err := os.Open(status); status != "" && err == nil {
			s := bufio.NewScanner(f)
			for s.Scan() {
				if v, ok := strings.CutPrefix(s.Text(), "RssAnon:"); ok {
					n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
					peak = max(peak, n)
				}
			}
			f.Close()
		}
		select {
		case <-stop:
			return peak
		case <-t.C:
		}
	}
}

// copyOne copies the file src to dst by read and write calls through one
// 1 MiB buffer: the floor.
func copyOne(src, dst string) error {
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	err = copyFile(out, src, make([]byte, 1<<20))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// randomFile makes path size pseudo-random bytes unless it is that size
// already.
func randomFile(path string, size int64) error {
	if fi, err := os.Stat(path); err == nil && fi.Size() == size {
		return nil
	}
	fmt.Fprintf(os.Stderr, "fsbench: making %s\n", path)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	r := rand.NewChaCha8([32]byte{21})
	_, err = io.CopyN(f, r, size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// sparseFile makes path a sparse file of size bytes with 1 MiB of data at
// its start and 1 MiB at its middle, unless it is that size already.
func sparseFile(path string, size int64) error {
	if fi, err := os.Stat(path); err == nil && fi.Size() == size {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	data := bytes.Repeat([]byte("sparse data "), (1<<20)/12+1)[:1<<20]
	_, err = f.WriteAt(data, 0)
	if err == nil {
		_, err = f.WriteAt(data, size/2)
	}
	if err == nil {
		err = f.Truncate(size)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
