package cli

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/termline"
)

// TestMkimgNotToTerminal checks that mkimg without -o refuses to write
// the disk to standard output that is a terminal (a pseudo-terminal
// here), with one line naming -o, exit status 1 and nothing on the
// terminal, and that it still writes the disk to a pipe.
func TestMkimgNotToTerminal(t *testing.T) {
	t.Parallel()
	master, slave, err := termline.OpenPTY()
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer master.Close()
	// What reaches the terminal is read as it comes, so that a disk
	// written there by mistake fails the test rather than blocking it,
	// until the slave end closes (Linux then reads EIO).
	shown := make(chan int)
	go func() {
		n, _ := io.Copy(io.Discard, master)
		shown <- int(n)
	}()
	args := []string{"mkimg", "-s", "gpt", "-p", "efi::64k"}

	var stderr bytes.Buffer
	e := &env{Stdout: slave, Stderr: &stderr, Dir: t.TempDir()}
	code := runMain(e, args)
	slave.Close()
	if n := <-shown; n != 0 {
		t.Errorf("%s to a terminal: %d bytes reached the terminal, want none", args, n)
	}
	if code != 1 {
		t.Errorf("%s to a terminal: exit %d, want 1", args, code)
	}
	const want = "fixturegen: mkimg: disk image not written to a terminal; give -o disk, or redirect standard output to a file or a pipe\n"
	if stderr.String() != want {
		t.Errorf("%s to a terminal: stderr %q, want %q", args, stderr.String(), want)
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(pr)
		got <- b
	}()
	stderr.Reset()
	e = &env{Stdout: pw, Stderr: &stderr, Dir: t.TempDir()}
	code = runMain(e, args)
	pw.Close()
	disk := <-got
	if code != 0 || stderr.Len() != 0 {
		t.Fatalf("%s to a pipe: exit %d, stderr %q", args, code, stderr.String())
	}
	if len(disk) < 64<<10 || !strings.Contains(string(disk[512:520]), "EFI PART") {
		t.Errorf("%s to a pipe: %d bytes, no GPT header at LBA 1", args, len(disk))
	}
}
