//go:build go1.23

package gpuctl

import (
	"context"
	"iter"
)

// All walks the list as a range loop, fetching pages as needed; an error is the last pair:
//
//	for job, err := range client.Jobs(nil).All(ctx) {
//		if err != nil { ... }
//		...
//	}
func (p *Pager[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for p.Next(ctx) {
			if !yield(p.Item(), nil) {
				return
			}
		}
		if err := p.Err(); err != nil {
			var zero T
			yield(zero, err)
		}
	}
}
