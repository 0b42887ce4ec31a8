package filesystem

import (
	"context"
	"errors"
	"os"

	"github.com/mjkoo/boris/core/seen"
	"github.com/mjkoo/boris/core/toolkit"
)

// saw notes that the session now knows abs as it is on disk: it read or
// wrote it.
func (b *tools) saw(abs string) {
	if fi, err := os.Stat(abs); err == nil {
		b.opt.Seen.Saw(abs, fi, b.d.Recorder())
	}
}

// staleMiss adds to a missed edit_file's error, when the file changed
// since the session last read it, what changed it (the checkpoints').
func (b *tools) staleMiss(ctx context.Context, abs string, err error) error {
	var te *toolkit.Error
	fi, serr := os.Stat(abs)
	if !errors.As(err, &te) || te.Code != toolkit.NotFoundInFile || serr != nil {
		return err
	}
	at, changed := b.opt.Seen.Since(abs, fi)
	if !changed {
		return err
	}
	b.d.Recorder().BeforeChange(ctx) // records the change, if no call has yet
	st := seen.Check(ctx, b.d.Recorder(), abs, at)
	if st == nil {
		return err
	}
	return &toolkit.Error{Code: te.Code, Msg: te.Msg + "\nThe text changed since you last read it" + st.By()}
}
