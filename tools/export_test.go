package tools

import "time"

// SetBashSecond makes one second of the Bash timeout argument last d, so
// timeout tests do not wait whole seconds.
func SetBashSecond(b *Bash, d time.Duration) { b.second = d }
