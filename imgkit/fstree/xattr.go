package fstree

// Xattr is one extended attribute of a node: its full name (with its
// namespace, as "user.comment" or "security.capability") and its value,
// as the host's llistxattr(2) and lgetxattr(2) give them.
type Xattr struct {
	Name  string
	Value []byte
}
