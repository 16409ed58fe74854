package cli

import "os"

// RunAsProcess runs the test binary as fixturegen and exits, when the
// tests that start it as a process (fixturegenProcess, testTypes) ask for
// that with FIXTUREGEN_TEST_PROCESS=1: with the hidden commands this
// package's tests register and, with FIXTUREGEN_TEST_TYPES=1, the makefs
// types of the help tests (registerTestTypes). Otherwise it returns. The
// external tests' TestMain calls it first.
func RunAsProcess() {
	if os.Getenv("FIXTUREGEN_TEST_PROCESS") != "1" {
		return
	}
	if os.Getenv("FIXTUREGEN_TEST_TYPES") == "1" {
		registerTestTypes()
	}
	os.Exit(Main())
}
