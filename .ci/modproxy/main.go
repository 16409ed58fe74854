// Command modproxy lays out a file-based Go module proxy holding one
// version of the fixturegen module, made from a commit of its repository
// exactly as the go command makes a module zip from a repository
// (golang.org/x/mod/zip.CreateFromVCS, which applies the module zip rules:
// file names, sizes, nested modules and vendor folders left out). .ci/run
// then installs cmd/fixturegen from that proxy, the way a user installs a
// tagged version.
//
// Usage:
//
//	go run . -repo DIR -version VERSION -out PROXYDIR
//
// It writes PROXYDIR/MODULE/@v/{list,VERSION.info,VERSION.mod,VERSION.zip}
// for the module that DIR's go.mod declares, and fails, naming the file,
// when the commit holds a file that a module zip cannot.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	repo := flag.String("repo", ".", "the repository's work tree")
	version := flag.String("version", "", "the made-up version to publish, such as v0.99.0")
	rev := flag.String("rev", "HEAD", "the commit to publish")
	out := flag.String("out", "", "the proxy directory to write")
	flag.Parse()
	if err := run(*repo, *version, *rev, *out); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func run(repo, version, rev, out string) error {
	if version == "" || out == "" {
		return errors.New("usage: modproxy -repo DIR -version VERSION -out PROXYDIR")
	}
	repo, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	// go.mod as committed, not as the work tree has it.
	gomod, err := exec.Command("git", "-C", repo, "show", rev+":go.mod").Output()
	if err != nil {
		return fmt.Errorf("reading go.mod at %s: %v", rev, err)
	}
	mf, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil || mf.Module == nil {
		return fmt.Errorf("go.mod at %s declares no module: %v", rev, err)
	}
	m := module.Version{Path: mf.Module.Mod.Path, Version: version}
	if err := module.Check(m.Path, m.Version); err != nil {
		return err
	}
	var z bytes.Buffer
	if err := zip.CreateFromVCS(&z, m, repo, rev, ""); err != nil {
		return fmt.Errorf("module zip of %s: %w", rev, err)
	}
	esc, err := module.EscapePath(m.Path)
	if err != nil {
		return err
	}
	dir := filepath.Join(out, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, commitTime(repo, rev)})
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": info,
		version + ".mod":  gomod,
		version + ".zip":  z.Bytes(),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("modproxy: %s@%s: %d-byte zip of %s in %s\n", m.Path, version, z.Len(), rev, out)
	return nil
}

// commitTime returns the committer time of rev, or the Unix epoch.
func commitTime(repo, rev string) time.Time {
	b, err := exec.Command("git", "-C", repo, "log", "-1", "--format=%cI", rev).Output()
	if err != nil {
		return time.Unix(0, 0).UTC()
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(b)))
	if err != nil {
		return time.Unix(0, 0).UTC()
	}
	return t.UTC()
}
