//go:build !unix

package catalog

func isNoData(err error) bool { return false }
