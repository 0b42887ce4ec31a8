// Package terminal provides Is, which tells whether a file is a terminal.
package terminal
