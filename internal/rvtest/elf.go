// ELF builder: instruction words and a data size -> a minimal static RV64 executable image.

package rvtest

import "encoding/binary"

// Addresses used by MakeELF.
const (
	MakeELFText = 0x10000 // text segment address (entry point)
	MakeELFData = 0x20000 // data segment address
)

// pageSize is the guest page size (the ELF segment alignment Linux and
// qemu-riscv64 require of a file offset and its address).
const pageSize = 4096

// MakeELF returns a static RV64 ELF executable whose text segment holds
// the given instruction words at MakeELFText (the entry point) and whose
// writable data segment holds data followed by zeros up to dataSize bytes
// at MakeELFData. It exists for tests and experiments with hand-made
// instruction sequences; len(text)*4 must not exceed 64 KiB. Each segment
// starts on a page of the file, as Linux and qemu-riscv64 require (file
// offset and address equal modulo the page size), so the image runs there
// too.
func MakeELF(text []uint32, data []byte, dataSize int) []byte {
	const ehsize, phsize = 64, 56
	textOff := uint64(pageSize)
	dataOff := textOff + (4*uint64(len(text))+pageSize-1)&^(pageSize-1)
	img := make([]byte, dataOff+uint64(len(data)))
	le := binary.LittleEndian
	copy(img, []byte{0x7f, 'E', 'L', 'F', 2, 1, 1})
	le.PutUint16(img[16:], 2)   // ET_EXEC
	le.PutUint16(img[18:], 243) // EM_RISCV
	le.PutUint32(img[20:], 1)
	le.PutUint64(img[24:], MakeELFText)
	le.PutUint64(img[32:], ehsize) // phoff
	le.PutUint16(img[52:], ehsize)
	le.PutUint16(img[54:], phsize)
	le.PutUint16(img[56:], 2)
	ph := func(i int, flags uint32, off, vaddr, filesz, memsz uint64) {
		p := img[ehsize+i*phsize:]
		le.PutUint32(p[0:], 1) // PT_LOAD
		le.PutUint32(p[4:], flags)
		le.PutUint64(p[8:], off)
		le.PutUint64(p[16:], vaddr)
		le.PutUint64(p[24:], vaddr)
		le.PutUint64(p[32:], filesz)
		le.PutUint64(p[40:], memsz)
		le.PutUint64(p[48:], 4096)
	}
	ph(0, 5, textOff, MakeELFText, 4*uint64(len(text)), 4*uint64(len(text)))            // R+X
	ph(1, 6, dataOff, MakeELFData, uint64(len(data)), uint64(max(dataSize, len(data)))) // R+W
	for i, w := range text {
		le.PutUint32(img[textOff+4*uint64(i):], w)
	}
	copy(img[dataOff:], data)
	return img
}
