package seen

import "syscall"

// ctimeNano is the inode change time of st.
func ctimeNano(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
