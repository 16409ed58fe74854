//go:build !linux

package main

import "errors"

// runMkimg needs Linux: it reads the tools' memory from /proc.
func runMkimg(int, string) error { return errors.New("-mkimg needs Linux") }

// runMkimgContainers needs Linux, as runMkimg does.
func runMkimgContainers(int, string, string) error {
	return errors.New("-mkimg-containers needs Linux")
}
