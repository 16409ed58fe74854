//go:build !unix

package bcache

func syncForBench() {}
