//go:build !linux

package xz

func allocWindow(n int) []byte { return make([]byte, n) }
