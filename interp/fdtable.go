// Guest file descriptors: a guest fd number -> an open file (a host fd, or one of the standard streams), and guest paths -> host files under the root.

package interp

import (
	"io"
	"os"
	"path"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A gfile is one open file description, shared by the descriptors dup
// made of it. Host files hold a host fd that only this table knows; the
// standard streams hold the Config's reader or writer instead (host -1).
type gfile struct {
	host  int       // host fd, or -1 for a standard stream
	r     io.Reader // standard input
	w     io.Writer // standard output or error
	gpath string    // the guest path it was opened by (directories: for openat under a root)
	refs  int
	// nonblock: the guest asked for O_NONBLOCK (openat, fcntl), so a
	// transfer never waits. Standard streams are always blocking.
	nonblock bool
	kind     fileKind // cached by blockKind
	// sock: a socket (syssock.go). hostNB: the host fd is always
	// non-blocking (sockets and event files), and nonblock is the
	// guest's flag alone.
	sock, hostNB bool
	// A socket's SO_RCVTIMEO and SO_SNDTIMEO (0: none), which its
	// waits apply.
	rcvTimeo, sndTimeo time.Duration
}

// A fileKind says whether a read or write of a file may have to wait.
type fileKind uint8

const (
	kindUnknown fileKind = iota // not looked at yet
	kindNever                   // a regular file, a directory, a block device
	kindChar                    // a character device: a terminal may wait, /dev/null does not
	kindPipe                    // a pipe, a FIFO or a socket
)

// blockKind says whether a transfer on host fd h (f's) may have to wait
// for another process, and how (cached in f).
func (f *gfile) blockKind(h int) fileKind {
	if f.kind == kindUnknown {
		f.kind = kindNever
		var st unix.Stat_t
		if unix.Fstat(h, &st) == nil {
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFIFO, unix.S_IFSOCK:
				f.kind = kindPipe
			case unix.S_IFCHR:
				f.kind = kindChar
			}
		}
	}
	return f.kind
}

// fdTable maps guest fds (small integers, lowest free first, as Linux
// hands them out) to open files, and resolves guest paths.
type fdTable struct {
	files  []*gfile
	root   string // "": paths are host paths, as under qemu-riscv64
	rootFd int    // an O_PATH fd of root, valid while root != ""
	prefix string // Config.LdPrefix, cleaned: tried first for absolute paths
	// The guest's working directory, once it changed it (chdir,
	// fchdir): an O_PATH fd of it, and under a root its guest path
	// ("/" until then). Before, it is rvdyn's own (without a root) or
	// the root.
	cwdFd   int
	hasCwd  bool
	cwdPath string
}

// cwd is the host directory fd relative paths from AT_FDCWD start at.
func (t *fdTable) cwd() int {
	if t.hasCwd {
		return t.cwdFd
	}
	return unix.AT_FDCWD
}

// maxFds is the guest's RLIMIT_NOFILE.
const maxFds = 1024

// isCwd reports whether a directory fd argument is AT_FDCWD. The kernel
// reads fd arguments as C ints, the low 32 bits of the register.
func isCwd(dirfd uint64) bool { return int32(dirfd) == -100 }

// fdArg is an fd argument as the kernel reads it: an int (or unsigned
// int), the low 32 bits of the register, so 0x100000001 is fd 1.
func fdArg(fd uint64) uint64 { return uint64(uint32(fd)) }

// initFiles sets up fds 0, 1 and 2 and opens the root directory.
func (m *Machine) initFiles() error {
	t := &m.fds
	t.files = []*gfile{
		{host: -1, r: m.cfg.Stdin, refs: 1},
		{host: -1, w: orDiscard(m.cfg.Stdout), refs: 1},
		{host: -1, w: orDiscard(m.cfg.Stderr), refs: 1},
	}
	if m.cfg.Root != "" {
		fd, err := unix.Open(m.cfg.Root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return &LoadError{Reason: "root directory " + m.cfg.Root, Err: err}
		}
		t.root, t.rootFd = m.cfg.Root, fd
	}
	if m.cfg.LdPrefix != "" {
		t.prefix = strings.TrimRight(m.cfg.LdPrefix, "/")
	}
	return nil
}

// prefixed returns p with the sysroot (Config.LdPrefix) in front when p
// is absolute and the prefixed file exists, and p otherwise: qemu-riscv64
// -L's rule (its path()), which lets a dynamic loader and the libraries
// it asks for by their system paths come from the sysroot while every
// other file stays where it is. Under a root the prefix is a guest path.
func (t *fdTable) prefixed(p string) string {
	if t.prefix == "" || !strings.HasPrefix(p, "/") {
		return p
	}
	q := t.prefix + p
	if t.root == "" {
		var st unix.Stat_t
		if unix.Fstatat(unix.AT_FDCWD, q, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return p
		}
		return q
	}
	fd, err := unix.Openat2(t.rootFd, q, &unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC, Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return p
	}
	unix.Close(fd)
	return q
}

// orDiscard is w, or io.Discard for nil (Config: a nil Stdout or
// Stderr discards what the guest writes).
func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// closeFiles closes every host fd the guest left open, the root, and
// the signal wake-up (signal.go).
func (m *Machine) closeFiles() {
	m.closeSignals()
	t := &m.fds
	for i := range t.files {
		t.drop(uint64(i))
	}
	if t.root != "" {
		unix.Close(t.rootFd)
		t.root = ""
	}
	if t.hasCwd {
		unix.Close(t.cwdFd)
		t.hasCwd = false
	}
}

// get returns the file open at guest fd (an fd argument: see fdArg), or
// nil.
func (t *fdTable) get(fd uint64) *gfile {
	if fd = fdArg(fd); fd < uint64(len(t.files)) {
		return t.files[fd]
	}
	return nil
}

// install puts f at the lowest free fd at or above min and returns it,
// or -EMFILE.
func (t *fdTable) install(f *gfile, min uint64) uint64 {
	for i := min; i < maxFds; i++ {
		if i >= uint64(len(t.files)) {
			t.files = append(t.files, make([]*gfile, i+1-uint64(len(t.files)))...)
		}
		if t.files[i] == nil {
			t.files[i] = f
			f.refs++
			return i
		}
	}
	return neg(eMFILE)
}

// drop closes guest fd (the host fd when its last descriptor goes); it
// reports false if fd was not open.
func (t *fdTable) drop(fd uint64) bool {
	f := t.get(fd)
	if f == nil {
		return false
	}
	t.files[fdArg(fd)] = nil
	if f.refs--; f.refs == 0 && f.host >= 0 {
		unix.Close(f.host)
	}
	return true
}

// A StreamFile is a standard input (Config.Stdin) that reads a host file
// through something else, such as a tee that keeps a copy of what the
// guest reads: File is that file. As for an *os.File, the guest's reads
// wait for it in poll, where a signal can end the wait, before Read is
// called, and it is the file that fstat, lseek, pread and mmap see.
type StreamFile interface {
	io.Reader
	File() *os.File
}

// stdFd returns the host fd behind a standard stream when it is an
// *os.File (rvdyn's own stdin/stdout/stderr) or a StreamFile, or -1.
func (f *gfile) stdFd() int {
	var x any = f.r
	if f.w != nil {
		x = f.w
	}
	switch s := x.(type) {
	case *os.File:
		return int(s.Fd())
	case StreamFile:
		return int(s.File().Fd())
	}
	return -1
}

// hostFd returns the host fd to stat or seek for f (-1 if none).
func (f *gfile) hostFd() int {
	if f.host >= 0 {
		return f.host
	}
	return f.stdFd()
}

// resolved is a guest path made ready for a host *at system call: either
// (dir, name) to pass on as they are, or, under a root, the parent
// directory opened safely and the last component.
type resolved struct {
	dir   int // host directory fd, or unix.AT_FDCWD
	name  string
	close bool // dir was opened here: close it after use
}

func (r resolved) done() {
	if r.close {
		unix.Close(r.dir)
	}
}

// guestPath joins path to the directory of guest dirfd (under a root, a
// guest path; "/" is the root), or returns -errno.
func (t *fdTable) guestPath(dirfd uint64, p string) (string, uint64) {
	if strings.HasPrefix(p, "/") {
		return p, 0
	}
	if isCwd(dirfd) {
		if t.cwdPath == "" || t.cwdPath == "/" {
			return "/" + p, 0 // the guest starts at its root
		}
		return t.cwdPath + "/" + p, 0
	}
	f := t.get(dirfd)
	if f == nil {
		return "", neg(eBADF)
	}
	if f.host < 0 || f.gpath == "" {
		return "", neg(eNOTDIR)
	}
	return f.gpath + "/" + p, 0
}

// openHow opens guest path p relative to guest dirfd with open flags, as
// openat does: without a root on the host file system, with one through
// openat2(RESOLVE_IN_ROOT), so that neither ".." nor a symlink (absolute
// or relative) can lead outside the root: the kernel resolves the path as
// if the root were "/". It returns the host fd and the guest path, or
// -errno.
func (t *fdTable) open(dirfd uint64, p string, flags int, mode uint32) (int, string, uint64) {
	p = t.prefixed(p)
	if t.root == "" {
		dir := t.cwd()
		if !isCwd(dirfd) && !strings.HasPrefix(p, "/") {
			f := t.get(dirfd)
			if f == nil {
				return -1, "", neg(eBADF)
			}
			if dir = f.hostFd(); dir < 0 {
				return -1, "", neg(eNOTDIR)
			}
		}
		fd, err := unix.Openat(dir, p, flags|unix.O_CLOEXEC, mode)
		if err != nil {
			return -1, "", errno(err)
		}
		return fd, p, 0
	}
	gp, e := t.guestPath(dirfd, p)
	if e != 0 {
		return -1, "", e
	}
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS}
	if creates(flags) { // openat2 refuses a mode otherwise
		how.Mode = uint64(mode & 0o7777)
	}
	fd, err := unix.Openat2(t.rootFd, gp, &how)
	if err != nil {
		return -1, "", errno(err)
	}
	return fd, gp, 0
}

// creates reports whether open flags create a file (O_CREAT, or
// O_TMPFILE, whose bits include O_DIRECTORY's): only then is the mode
// used.
func creates(flags int) bool {
	return flags&unix.O_CREAT != 0 || flags&unix.O_TMPFILE == unix.O_TMPFILE
}

// resolveParent readies guest path p (relative to guest dirfd) for a host
// *at call that acts on its last component (unlink, mkdir, rename, lstat).
// Under a root, the parent directory is opened with RESOLVE_IN_ROOT and the
// last component must be a plain name: "." and ".." give the errno
// Linux gives for them (dot for "."/"" and dotdot for ".."). It returns
// -errno on failure.
func (t *fdTable) resolveParent(dirfd uint64, p string, dot, dotdot uint64) (resolved, uint64) {
	if p == "" {
		return resolved{}, neg(eNOENT)
	}
	p = t.prefixed(p)
	if t.root == "" {
		if strings.HasPrefix(p, "/") {
			return resolved{dir: unix.AT_FDCWD, name: p}, 0
		}
		if isCwd(dirfd) {
			return resolved{dir: t.cwd(), name: p}, 0
		}
		f := t.get(dirfd)
		if f == nil {
			return resolved{}, neg(eBADF)
		}
		if f.hostFd() < 0 {
			return resolved{}, neg(eNOTDIR)
		}
		return resolved{dir: f.hostFd(), name: p}, 0
	}
	gp, e := t.guestPath(dirfd, p)
	if e != 0 {
		return resolved{}, e
	}
	trimmed := strings.TrimRight(gp, "/")
	dir, name := path.Split(trimmed)
	switch name {
	case "", ".":
		return resolved{}, neg(dot)
	case "..":
		return resolved{}, neg(dotdot)
	}
	if strings.HasSuffix(gp, "/") {
		name += "/" // a trailing slash insists on a directory, as in Linux
	}
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(t.rootFd, dir+".", &how)
	if err != nil {
		return resolved{}, errno(err)
	}
	return resolved{dir: fd, name: name, close: true}, 0
}

// errno turns a host error into -errno for the guest (x86-64 and RISC-V
// Linux share the generic errno numbers).
func errno(err error) uint64 {
	if e, ok := err.(unix.Errno); ok {
		return neg(uint64(e))
	}
	return neg(eIO)
}
