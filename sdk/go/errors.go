package gpuctl

import (
	"errors"
	"fmt"
	"net/http"
)

// APIError is every 4xx and 5xx answer of the server, in its error shape
// {"error", "message", "field"?, "problems"?}. Use errors.As to read it, or errors.Is with the
// sentinel errors below (errors.Is(err, gpuctl.ErrNotFound)), or the Is... helpers.
type APIError struct {
	Status   int      // the HTTP status, e.g. 404
	Code     string   // the answer's "error" word, e.g. "JobNotFound", "InvalidYAML"
	Message  string   // one line saying what is wrong
	Field    string   // the request's field it is about (e.g. "job.name"), when the server names one
	Problems []string // for an invalid spec, each problem as the CLI prints it
}

func (e *APIError) Error() string {
	text := fmt.Sprintf("gpuctl: %d %s: %s", e.Status, e.Code, e.Message)
	if e.Field != "" {
		text += " (field " + e.Field + ")"
	}
	return text
}

// Is matches the sentinel error of the answer's status: errors.Is(err, ErrNotFound).
func (e *APIError) Is(target error) bool {
	s, ok := target.(*statusError)
	return ok && s.status == e.Status
}

// statusError is a sentinel: any APIError with this status is it.
type statusError struct {
	status int
}

func (s *statusError) Error() string {
	return fmt.Sprintf("gpuctl: %d %s", s.status, http.StatusText(s.status))
}

// The sentinel errors, one per status the API answers.
var (
	ErrBadRequest         error = &statusError{http.StatusBadRequest}            // 400: invalid YAML, parameter or body
	ErrUnauthorized       error = &statusError{http.StatusUnauthorized}          // 401: no or an unknown token
	ErrForbidden          error = &statusError{http.StatusForbidden}             // 403: not allowed for this user
	ErrNotFound           error = &statusError{http.StatusNotFound}              // 404: no such job (another user's too), node, pool...
	ErrConflict           error = &statusError{http.StatusConflict}              // 409: exists already, or busy
	ErrTooLarge           error = &statusError{http.StatusRequestEntityTooLarge} // 413: a body over the server's limit
	ErrUnprocessable      error = &statusError{http.StatusUnprocessableEntity}   // 422: refused (a reused Idempotency-Key...)
	ErrTooManyRequests    error = &statusError{http.StatusTooManyRequests}       // 429: too many writes or streams at once
	ErrServiceUnavailable error = &statusError{http.StatusServiceUnavailable}    // 503: the cluster or Prometheus does not answer
)

func hasStatus(err error, status int) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.Status == status
}

// IsNotFound: the answer was 404 (no such job, node, pool, label, quota or webhook).
func IsNotFound(err error) bool { return hasStatus(err, http.StatusNotFound) }

// IsUnauthorized: the answer was 401 (no token, or one the server does not know).
func IsUnauthorized(err error) bool { return hasStatus(err, http.StatusUnauthorized) }

// IsForbidden: the answer was 403 (the token's user may not do this).
func IsForbidden(err error) bool { return hasStatus(err, http.StatusForbidden) }

// IsConflict: the answer was 409 (it exists already, or another change holds it).
func IsConflict(err error) bool { return hasStatus(err, http.StatusConflict) }

// IsBadRequest: the answer was 400 (an invalid spec, parameter or body; Field says where).
func IsBadRequest(err error) bool { return hasStatus(err, http.StatusBadRequest) }

// IsUnprocessable: the answer was 422 (e.g. an Idempotency-Key reused with another body).
func IsUnprocessable(err error) bool { return hasStatus(err, http.StatusUnprocessableEntity) }

// IsTooManyRequests: the answer was 429, after the retries the policy allowed.
func IsTooManyRequests(err error) bool { return hasStatus(err, http.StatusTooManyRequests) }

// IsUnavailable: the answer was 503, after the retries the policy allowed.
func IsUnavailable(err error) bool { return hasStatus(err, http.StatusServiceUnavailable) }
