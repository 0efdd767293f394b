package tools

import "time"

// SetBashSecond makes one second of the Bash timeout argument last d, so
// timeout tests do not wait whole seconds.
func SetBashSecond(b *Bash, d time.Duration) { b.second = d }

// PublicAddr is the fetcher's address check.
var PublicAddr = publicAddr

// DialCheck runs the check f makes on the address of every connection it
// opens, after the name was resolved and checked.
func DialCheck(f *LocalFetcher, network, address string) error {
	return f.dialControl(network, address, nil)
}
