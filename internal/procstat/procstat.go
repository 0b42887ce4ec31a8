// Package procstat provides the one reader of /proc/PID/stat (proc(5)):
// the fields Boris and its benchmarks use, counted from the last ')' of
// the line, since the command name in parentheses may itself hold spaces
// and parentheses (a process names itself).
package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Stat is what Boris reads of /proc/PID/stat.
type Stat struct {
	PID     int
	Comm    string // the command name, without its parentheses
	State   byte   // R, S, D, Z, T, ...
	PPID    int
	PGRP    int
	Session int
	CPU     time.Duration // user plus system time
	Nice    int           // -20 to 19; 0 on a line that stops before it
}

// ErrMalformed is wrapped when a stat line cannot be read.
var ErrMalformed = errors.New("malformed /proc/PID/stat line")

// clockTicks is USER_HZ, the unit of the line's times: 100 on every Linux
// architecture Go supports.
const clockTicks = 100

// Parse reads a /proc/PID/stat line.
func Parse(data []byte) (Stat, error) {
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 1 || end < open {
		return Stat{}, fmt.Errorf("%w: no command name", ErrMalformed)
	}
	// After the name: state ppid pgrp session tty_nr tpgid flags minflt
	// cminflt majflt cmajflt utime stime cutime cstime priority nice ...
	f := strings.Fields(string(data[end+1:]))
	if len(f) < 13 || len(f[0]) != 1 {
		return Stat{}, fmt.Errorf("%w: %d fields after the name", ErrMalformed, len(f))
	}
	var st Stat
	var errs [6]error
	st.PID, errs[0] = strconv.Atoi(strings.TrimSpace(string(data[:open])))
	st.Comm, st.State = string(data[open+1:end]), f[0][0]
	st.PPID, errs[1] = strconv.Atoi(f[1])
	st.PGRP, errs[2] = strconv.Atoi(f[2])
	st.Session, errs[3] = strconv.Atoi(f[3])
	utime, err4 := strconv.ParseInt(f[11], 10, 64)
	stime, err5 := strconv.ParseInt(f[12], 10, 64)
	errs[4], errs[5] = err4, err5
	if err := errors.Join(errs[:]...); err != nil {
		return Stat{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	st.CPU = time.Duration(utime+stime) * time.Second / clockTicks
	if len(f) > 16 { // ... cutime cstime priority nice
		var err error
		if st.Nice, err = strconv.Atoi(f[16]); err != nil {
			return Stat{}, fmt.Errorf("%w: nice: %w", ErrMalformed, err)
		}
	}
	return st, nil
}

// Read reads process pid's stat line.
func Read(pid int) (Stat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, err
	}
	return Parse(data)
}
