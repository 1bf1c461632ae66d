//go:build !amd64 || !mqasm || race || purego

// Producer and consumer fast paths for race, purego and non-amd64 builds:
// the sync/atomic protocol of protocol.go, which the race detector can check.

package mq

// sendFast writes m into the queue at h, or returns false if it is full.
func sendFast(h *header, m *Message) bool { return sendGo(h, m) }

// recvFast takes the next message from the queue at h into m, or returns
// false if none is ready.
func recvFast(h *header, m *Message) bool { return recvGo(h, m) }
