package gpuctl

import (
	"context"
	"net/url"
	"strconv"
)

// DefaultPageSize is how many items a Pager asks for at once when its params name no pageSize.
const DefaultPageSize = 100

// Pager walks a paged list (jobs, nodes, node labels) one item at a time, asking for the next
// page when the last one is used up, until the list's total is reached:
//
//	pager := client.Jobs(nil)
//	for pager.Next(ctx) {
//		job := pager.Item()
//		...
//	}
//	if err := pager.Err(); err != nil { ... }
//
// With Go 1.23 or newer, pager.All(ctx) is the same walk as an iter.Seq2[T, error] for a
// range loop. A Pager is for one goroutine.
type Pager[T any] struct {
	fetch    func(ctx context.Context, page, size int) ([]T, int, error)
	page     int // the next page to ask for (1-based)
	size     int
	buffered []T
	item     T
	seen     int
	total    int
	done     bool
	err      error
}

func newPager[T any](first, size *int, fetch func(context.Context, int, int) ([]T, int, error)) *Pager[T] {
	p := &Pager[T]{fetch: fetch, page: 1, size: DefaultPageSize, total: -1}
	if first != nil && *first > 0 {
		p.page = *first
	}
	if size != nil && *size > 0 {
		p.size = *size
	}
	return p
}

// Next moves to the next item, fetching a page when needed; false at the end or on an error
// (then Err says which).
func (p *Pager[T]) Next(ctx context.Context) bool {
	if len(p.buffered) == 0 && !p.done {
		items, total, err := p.fetch(ctx, p.page, p.size)
		if err != nil {
			p.err, p.done = err, true
			return false
		}
		p.page++
		p.total = total
		p.buffered = items
		p.done = len(items) == 0 || p.seen+len(items) >= total
	}
	if len(p.buffered) == 0 {
		return false
	}
	p.item, p.buffered = p.buffered[0], p.buffered[1:]
	p.seen++
	return true
}

// Item is the item Next moved to.
func (p *Pager[T]) Item() T { return p.item }

// Err is the error that ended the walk, nil when the list was walked to its end.
func (p *Pager[T]) Err() error { return p.err }

// Total is the list's length as the last page said (-1 before the first page).
func (p *Pager[T]) Total() int { return p.total }

// pageQuery sets page and pageSize in q.
func pageQuery(q url.Values, page, size int) url.Values {
	q.Set("page", strconv.Itoa(page))
	q.Set("pageSize", strconv.Itoa(size))
	return q
}

func setString(q url.Values, key string, value *string) {
	if value != nil {
		q.Set(key, *value)
	}
}

func setInt(q url.Values, key string, value *int) {
	if value != nil {
		q.Set(key, strconv.Itoa(*value))
	}
}

func setBool(q url.Values, key string, value *bool) {
	if value != nil {
		q.Set(key, strconv.FormatBool(*value))
	}
}

// Ptr is a pointer to v, for the optional fields of params and bodies:
// &ListJobsParams{Status: gpuctl.Ptr(gpuctl.JobStatusRunning)}.
func Ptr[T any](v T) *T { return &v }
