package inspect

import "io/fs"

// ModeString returns the ten mode letters ls -l and tar tv print for a
// file of mode m, where Go's fs.FileMode.String differs: a type letter ('-'
// regular file, 'd' directory, 'l' symbolic link, 'c' character device,
// 'b' block device, 'p' named pipe, 's' socket, '?' anything else) and
// the nine permission letters of PermString, with setuid, setgid and
// sticky shown in the execute places as ls shows them. "drwxr-xr-x",
// "lrwxrwxrwx", "-rwsr-xr-x".
func ModeString(m fs.FileMode) string {
	perm := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		perm |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		perm |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		perm |= 0o1000
	}
	return string(typeLetter(m)) + PermString(perm)
}

// typeLetter returns the letter ls -l gives the type of mode m.
func typeLetter(m fs.FileMode) byte {
	switch t := m.Type(); {
	case t == 0:
		return '-'
	case t&fs.ModeDir != 0:
		return 'd'
	case t&fs.ModeSymlink != 0:
		return 'l'
	case t&fs.ModeCharDevice != 0:
		return 'c'
	case t&fs.ModeDevice != 0:
		return 'b'
	case t&fs.ModeNamedPipe != 0:
		return 'p'
	case t&fs.ModeSocket != 0:
		return 's'
	}
	return '?'
}

// PermString returns the nine permission letters of the Unix permission
// bits perm (07777) as ls -l and ar tv print them: r, w and x for the
// owner, group and others, '-' for a bit not set, and in the execute places
// 's' for setuid or setgid with execute and 'S' without, 't' for sticky
// with others' execute and 'T' without. "rw-r--r--", "rwsr-x---".
func PermString(perm uint32) string {
	const rwx = "rwxrwxrwx"
	b := []byte("---------")
	for i := range b {
		if perm&(1<<(8-i)) != 0 {
			b[i] = rwx[i]
		}
	}
	special := func(bit uint32, i int, withX, withoutX byte) {
		if perm&bit == 0 {
			return
		}
		if b[i] == 'x' {
			b[i] = withX
		} else {
			b[i] = withoutX
		}
	}
	special(0o4000, 2, 's', 'S')
	special(0o2000, 5, 's', 'S')
	special(0o1000, 8, 't', 'T')
	return string(b)
}
