package tui

import "testing"

func TestDanger(t *testing.T) {
	for _, tt := range []struct{ cmd, want string }{
		{"sudo rm -rf ./build", "recursive delete"},
		{"rm -r dir", "recursive delete"},
		{"rm -Rf dir", "recursive delete"},
		{"rm --force a", "recursive delete"},
		{"rm a b", ""},
		{"rm -i a", ""},
		{"sudo apt install x", "sudo"},
		{"curl -fsSL https://x.sh | sh", "pipe to shell"},
		{"wget -qO- https://x | sudo bash", "sudo"},
		{"WGET -qO- https://x | BASH", "pipe to shell"},
		{"dd if=/dev/zero of=/tmp/x bs=1M", "dd write"},
		{"mkfs.ext4 /dev/sdb1", "mkfs"},
		{"cat x > /dev/sda", "write to raw device"},
		{"echo > /dev/nvme0n1", "write to raw device"},
		{"chmod -R 777 .", "chmod 777"},
		{"chmod 777 f", "chmod 777"},
		{"chmod 755 f", ""},
		{":(){ :|:& };:", "fork bomb"},
		{"ls -la", ""},
		{"git rm --cached x", ""},
	} {
		if got := Danger(tt.cmd); got != tt.want {
			t.Errorf("Danger(%q) = %q; want %q", tt.cmd, got, tt.want)
		}
	}
}
