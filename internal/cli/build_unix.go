//go:build unix

package cli

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// stopSignals are the signals that stop a build or verify.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

func signalNumber(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return int(n)
	}
	return 2
}

// parentArgs returns the command line of the parent process, where the
// system shows it (/proc on Linux), else nil.
func parentArgs() []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getppid()) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	var args []string
	for _, a := range bytes.Split(bytes.TrimSuffix(b, []byte{0}), []byte{0}) {
		args = append(args, string(a))
	}
	return args
}
