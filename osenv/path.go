package osenv

import "path"

// Normpath cleans a slash-separated path lexically: "." and ".." elements,
// repeated slashes and a trailing slash go; "" stays "" (path.Clean would
// make it "."), so callers can still tell an empty argument apart.
func Normpath(p string) string {
	if p == "" {
		return ""
	}
	return path.Clean(p)
}

// Within reports whether p is root or lies below it, comparing whole path
// elements: "/ws-evil" is not within "/ws". Both must be clean and
// absolute.
func Within(p, root string) bool {
	if p == root || root == "/" {
		return true
	}
	return len(p) > len(root) && p[:len(root)] == root && p[len(root)] == '/'
}
