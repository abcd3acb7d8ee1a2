package gpuctl

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/coder/websocket"
)

// maxLogLine is the longest log line a stream takes (longer ones end it with an error).
const maxLogLine = 1 << 20

// LogOptions choose which lines of a job's logs to read.
type LogOptions struct {
	Tail *int   // the last N lines of each pod first (the server's default: 100)
	Pod  string // only this pod of the job
	// LimitBytes caps what JobLogs reads at this many bytes of lines in all, whole lines from
	// the first of them (the server's default: 1 MiB); JobLogs.Truncated says when lines were
	// left out for it. A followed stream (FollowLogs) is not cut: it is left out there.
	LimitBytes *int
	// Chunked follows over the chunked HTTP stream instead of trying a WebSocket first.
	Chunked bool
}

func (o *LogOptions) query() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	setInt(q, "tail", o.Tail)
	if o.Pod != "" {
		q.Set("pod", o.Pod)
	}
	return q
}

// JobLogs is the last lines of each of the job's pods, as they are now; with
// opts.LimitBytes, no more than that many bytes of them, and Truncated when some were left
// out.
func (c *Client) JobLogs(ctx context.Context, jobID string, opts *LogOptions) (*JobLogs, error) {
	if err := need(jobID); err != nil {
		return nil, err
	}
	q := opts.query()
	if opts != nil {
		setInt(q, "limitBytes", opts.LimitBytes)
	}
	var out JobLogs
	if err := c.get(ctx, "/jobs/"+segment(jobID)+"/logs", q, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Transports a LogStream can run over.
const (
	TransportWebSocket = "websocket"
	TransportChunked   = "chunked"
)

// LogStream is a followed job log: each line arrives on Lines, which is closed when the job's
// pods stop (Err is then nil), when the stream fails (Err says why: an *APIError such as a 404
// for a job that does not exist, or the connection's error) or when Close or the context ends
// it. Read Err only after Lines is closed.
type LogStream struct {
	Lines <-chan string

	lines     chan string
	done      chan struct{}
	cancel    context.CancelFunc
	mu        sync.Mutex
	err       error
	transport string
}

// Err is why the stream ended; nil when the job's pods stopped. Valid once Lines is closed.
func (s *LogStream) Err() error {
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Transport is TransportWebSocket or TransportChunked: what the stream runs (or ran) over.
func (s *LogStream) Transport() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.transport
}

// Close ends the stream (the server stops reading the pods' logs within a second or two) and
// waits until Lines is closed; Err is then context.Canceled, unless the stream had ended.
func (s *LogStream) Close() {
	s.cancel()
	for range s.lines { // what was sent before the end is dropped
	}
	<-s.done
}

func (s *LogStream) set(transport string) {
	s.mu.Lock()
	s.transport = transport
	s.mu.Unlock()
}

// send hands one line over, false when the stream was closed meanwhile.
func (s *LogStream) send(ctx context.Context, line string) bool {
	select {
	case s.lines <- line:
		return true
	case <-ctx.Done():
		return false
	}
}

// FollowLogs follows the job's logs until its pods stop: over a WebSocket on the logs' path,
// or, where the WebSocket cannot be had (a proxy that does not upgrade, LogOptions.Chunked,
// or a refusal, whose typed error only the HTTP answer carries), over the chunked HTTP
// stream, with the client's retries. Lines already received are not repeated by a fallback:
// it only happens before the first line.
func (c *Client) FollowLogs(ctx context.Context, jobID string, opts *LogOptions) *LogStream {
	ctx, cancel := context.WithCancel(ctx)
	lines := make(chan string, 64)
	s := &LogStream{Lines: lines, lines: lines, done: make(chan struct{}), cancel: cancel}
	go func() {
		err := c.follow(ctx, s, jobID, opts)
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			err = ctx.Err()
		}
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
		close(lines)
		close(s.done)
		cancel()
	}()
	return s
}

func (c *Client) follow(ctx context.Context, s *LogStream, jobID string, opts *LogOptions) error {
	if err := need(jobID); err != nil {
		return err
	}
	q := opts.query()
	if opts == nil || !opts.Chunked {
		s.set(TransportWebSocket)
		sent, err := c.followWebSocket(ctx, s, jobID, q)
		if sent > 0 || err == nil || ctx.Err() != nil {
			return err
		}
	}
	s.set(TransportChunked)
	return c.followChunked(ctx, s, jobID, q)
}

// followWebSocket answers how many lines it handed over, and nil when the server closed the
// stream normally (the pods stopped).
func (c *Client) followWebSocket(ctx context.Context, s *LogStream, jobID string, q url.Values) (int, error) {
	target := strings.Replace(c.url("/jobs/"+segment(jobID)+"/logs", q), "http", "ws", 1)
	header := http.Header{}
	c.authorize(header)
	conn, _, err := websocket.Dial(ctx, target, &websocket.DialOptions{HTTPClient: c.http, HTTPHeader: header})
	if err != nil {
		return 0, err
	}
	defer conn.CloseNow()
	conn.SetReadLimit(maxLogLine)
	sent := 0
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
				return sent, nil
			}
			return sent, err
		}
		if !s.send(ctx, string(data)) {
			return sent, ctx.Err()
		}
		sent++
	}
}

func (c *Client) followChunked(ctx context.Context, s *LogStream, jobID string, q url.Values) error {
	q.Set("follow", "true")
	k := &call{method: http.MethodGet, path: "/jobs/" + segment(jobID) + "/logs", query: q, idempotent: true}
	resp, err := c.send(ctx, k)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	scanner := bufio.NewScanner(resp.Body)
	scanner.Buffer(make([]byte, 0, 64*1024), maxLogLine)
	for scanner.Scan() {
		if !s.send(ctx, scanner.Text()) {
			return ctx.Err()
		}
	}
	return scanner.Err()
}
