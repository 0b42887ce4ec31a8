package benchkit

// Benchmarks that compare servers measure them in one run, taking turns,
// so that drift in the machine's load favours none of them. They take
// turns in runs of calls rather than call by call, because a server's work
// does not end with its response: node's garbage collector and compiler
// threads go on for a while after a Node server answers (its CPU time per
// call is above its wall time), and so do a Go process's runtime threads;
// taking turns call by call timed each call on a CPU still busy with the
// other server's previous one.

// RunLength is how many calls one server makes before the next takes its
// turn: block, but at most a tenth of the calls, so that every measurement
// still takes ten turns or more.
func RunLength(block, calls int) int {
	return max(1, min(block, calls/10))
}

// Turns returns the order in which round i visits n servers: rotated by
// one each round, so none always goes first.
func Turns(n, i int) []int {
	order := make([]int, n)
	for k := range order {
		order[k] = (i + k) % n
	}
	return order
}

// TakeTurns makes calls calls on each of n servers, in runs of run calls
// (see RunLength), the servers taking turns run by run in the order of
// Turns. call(k, i) makes server k's call number i (from 0); the first
// error ends it.
func TakeTurns(n, calls, run int, call func(k, i int) error) error {
	run = max(run, 1)
	for r, done := 0, 0; done < calls; r, done = r+1, done+run {
		for _, k := range Turns(n, r) {
			for i := done; i < min(done+run, calls); i++ {
				if err := call(k, i); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
