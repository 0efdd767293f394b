//go:build race

package anthropic

// raceEnabled is set when the tests run under the race detector, which
// makes sync.Pool drop what it holds: allocation counts mean nothing then.
const raceEnabled = true
