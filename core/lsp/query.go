package lsp

import (
	"fmt"
	"maps"
	"time"
)

// maxListed caps the problems the diagnostics tool lists.
const maxListed = 200

// Current lists the current problems of path, or with path "" of every
// file the running servers know, after bringing them up to date with
// the files on disk (a bash command may have changed them). It waits up
// to wait for the servers' answers. What it lists becomes what the agent
// knows: later edits report changes against it.
func (m *Manager) Current(path string, wait time.Duration) (string, error) {
	wait = max(wait, m.opts.Wait)
	var jobs []*job
	if path != "" {
		lang, _, ok := languageOf(m.opts.Languages, path)
		if !ok {
			return "", fmt.Errorf("no language server handles %s: diagnostics cover Go, Python and TypeScript/JavaScript files", path)
		}
		s, err := m.slotFor(lang)
		if err != nil {
			return "", err
		}
		j := &job{query: []string{path}, wait: wait, done: make(chan struct{})}
		if !s.queue(j) {
			return join(m.takeNotes(), fmt.Sprintf("No %s language server runs in this session, so %s cannot be checked.", lang.Title, rel(m.opts.Root, path))), nil
		}
		jobs = append(jobs, j)
	} else {
		m.mu.Lock()
		slots := m.slotList()
		m.mu.Unlock()
		for _, s := range slots {
			j := &job{all: true, wait: wait, done: make(chan struct{})}
			if s.queue(j) {
				jobs = append(jobs, j)
			}
		}
		if len(jobs) == 0 {
			return join(m.takeNotes(), "No language server runs yet: servers start with the first edit of a Go, Python or TypeScript/JavaScript file, or name a file to check it."), nil
		}
	}
	files := map[string][]Diagnostic{}
	for _, j := range jobs {
		select {
		case <-j.done:
		case <-time.After(wait + 5*time.Second): // the job's own bound, and a margin for a server starting
			continue
		}
		maps.Copy(files, j.current)
	}
	for p, ds := range files {
		m.tell(p, ds, false)
	}
	return join(m.takeNotes(), RenderList(files, m.opts.Root, maxListed)), nil
}
