package gpuctl

import (
	"context"
	"errors"
	"math/rand"
	"net"
	"net/http"
	"strconv"
	"time"
)

// RetryPolicy says when and how long a Client waits before it sends a request again.
//
// An attempt is retried when the connection failed or the answer was 429, 502, 503 or 504.
// GET, DELETE, PATCH (SetPoolCap), the creates that carry an Idempotency-Key (CreateJob,
// CreateJobsBatch) and the POSTs that leave the same state however often they arrive
// (CheckAccess, AddPoolNodes, PushCustomMetrics) are retried on all of them; the other POSTs,
// which a second delivery could repeat, only when the server cannot have acted on them: the
// connection was never made, or the answer was 429. An answer that no retry can change (a
// push to a server without a Pushgateway, 503 PushgatewayNotConfigured) ends the call at once.
//
// The wait is the answer's Retry-After (seconds or an HTTP date) when it has one, else a
// random time between 0 and BaseDelay·2^n, at most MaxDelay (exponential backoff with full
// jitter). No wait outlasts the context: when the next attempt could only start after the
// context's deadline, or Retry-After asks for more than MaxRetryAfter, the call ends with the
// last attempt's error.
type RetryPolicy struct {
	MaxAttempts   int           // attempts in all, the first included; 1: no retry
	BaseDelay     time.Duration // the first backoff's upper bound
	MaxDelay      time.Duration // no backoff is longer
	MaxRetryAfter time.Duration // a longer Retry-After ends the call instead
}

// DefaultRetryPolicy is what NewClient uses unless WithRetry says otherwise.
var DefaultRetryPolicy = RetryPolicy{
	MaxAttempts:   5,
	BaseDelay:     200 * time.Millisecond,
	MaxDelay:      10 * time.Second,
	MaxRetryAfter: time.Minute,
}

// attempt is how one try of a call ended.
type attempt struct {
	status int         // the answer's status; 0: no answer (err is the connection's)
	header http.Header // the answer's headers
	err    error       // nil: success
	sent   bool        // the request may have reached the server
	final  bool        // the answer's error word says no retry can change it
}

func (a *attempt) retryable(idempotent bool) bool {
	switch {
	case a.final:
		return false
	case a.status == 0:
		return idempotent || !a.sent
	case a.status == http.StatusTooManyRequests:
		return true
	case a.status == http.StatusBadGateway, a.status == http.StatusServiceUnavailable,
		a.status == http.StatusGatewayTimeout:
		return idempotent
	}
	return false
}

// run calls try until it succeeds, fails for good, or the policy or the context ends it.
func (p RetryPolicy) run(ctx context.Context, idempotent bool, try func() (*attempt, error)) error {
	for n := 0; ; n++ {
		a, err := try()
		if err != nil {
			return err
		}
		if a.err == nil {
			return nil
		}
		if n+1 >= p.MaxAttempts || !a.retryable(idempotent) || ctx.Err() != nil {
			return a.err
		}
		wait, ok := p.wait(n, a.header)
		if !ok || !fitsDeadline(ctx, wait) {
			return a.err
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return a.err
		case <-timer.C:
		}
	}
}

// wait is how long to wait before attempt n+1; false when Retry-After asks for too long.
func (p RetryPolicy) wait(n int, header http.Header) (time.Duration, bool) {
	if after, ok := retryAfter(header, time.Now()); ok {
		return after, after <= p.MaxRetryAfter
	}
	ceiling := p.MaxDelay
	if n < 30 {
		if grown := p.BaseDelay << n; grown > 0 && grown < ceiling {
			ceiling = grown
		}
	}
	if ceiling <= 0 {
		return 0, true
	}
	return time.Duration(rand.Int63n(int64(ceiling) + 1)), true
}

// retryAfter reads Retry-After: delay-seconds or an HTTP date.
func retryAfter(header http.Header, now time.Time) (time.Duration, bool) {
	value := header.Get("Retry-After")
	if value == "" {
		return 0, false
	}
	if seconds, err := strconv.Atoi(value); err == nil && seconds >= 0 {
		return time.Duration(seconds) * time.Second, true
	}
	if when, err := http.ParseTime(value); err == nil {
		if d := when.Sub(now); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
}

func fitsDeadline(ctx context.Context, wait time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return !ok || time.Now().Add(wait).Before(deadline)
}

// isDialError: the connection was never made, so the server saw nothing of the request.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
