// Progress line: the run in progress and the time elapsed -> one line on a terminal, rewritten in place every second.

package bench

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress keeps one status line up to date on w (nil: does nothing):
// the current text and the time since start, redrawn when the text
// changes and every second in between.
type progress struct {
	w     io.Writer
	start time.Time
	mu    sync.Mutex
	text  string
	done  chan struct{}
	wg    sync.WaitGroup
}

func newProgress(w io.Writer, start time.Time) *progress {
	p := &progress{w: w, start: start, done: make(chan struct{})}
	if w == nil {
		return p
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
				p.mu.Lock()
				p.draw()
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// set replaces the text ("" erases the line, e.g. before a log line).
func (p *progress) set(text string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.text = text
	p.draw()
}

// draw writes the line; the caller holds mu.
func (p *progress) draw() {
	if p.text == "" {
		fmt.Fprint(p.w, "\r\x1b[K")
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s (%s elapsed)", p.text, time.Since(p.start).Round(time.Second))
}

// stop ends the redrawing and erases the line.
func (p *progress) stop() {
	if p.w == nil {
		return
	}
	close(p.done)
	p.wg.Wait()
	p.set("")
}
