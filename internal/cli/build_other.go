//go:build !unix

package cli

import "os"

// stopSignals are the signals that stop a build or verify.
var stopSignals = []os.Signal{os.Interrupt}

func signalNumber(s os.Signal) int { return 2 }

// parentArgs returns nil: the parent's command line is not known here.
func parentArgs() []string { return nil }
