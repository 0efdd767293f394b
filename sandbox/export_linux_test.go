package sandbox

// serverPIDs lists the pids of s's servers that run, replaced ones too.
func serverPIDs(s *Sandbox) []int {
	s.mu.Lock()
	srvs := append([]*server{}, s.retired...)
	for _, srv := range s.servers {
		srvs = append(srvs, srv)
	}
	s.mu.Unlock()
	var pids []int
	for _, srv := range srvs {
		if !srv.ended() {
			pids = append(pids, srv.cmd.Process.Pid)
		}
	}
	return pids
}
