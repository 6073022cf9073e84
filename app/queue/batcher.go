package queue

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/verdict-bot/verdict/app/metrics"
)

// request is one delivery waiting for its group commit.
type request struct {
	d       Delivery
	outcome Outcome
	done    chan error
}

// committer stores a batch of deliveries in one transaction; it may be
// called again before an earlier call returned, up to the batcher's slots.
type committer interface {
	commit(ctx context.Context, batch []*request) error
}

// batcher funnels deliveries into group commits. While every commit slot
// is taken, new deliveries pile up and form the next batch, so the batch
// size adapts to the load with no tuning. With one slot (SQLite, one
// writer) commits run one after another; with more (PostgreSQL), a batch
// starts as soon as a slot is free, so a delivery arriving during a commit
// does not wait for it to end before its own begins.
type batcher struct {
	eng      committer
	linger   time.Duration
	maxBatch int
	slots    chan struct{} // one token per commit in flight
	log      *slog.Logger

	in       chan *request
	quit     chan struct{}
	finished chan struct{}
	once     sync.Once
	started  sync.Once
}

func newBatcher(eng committer, linger time.Duration, maxBatch, commits int, log *slog.Logger) *batcher {
	return &batcher{
		eng: eng, linger: linger, maxBatch: maxBatch, log: log,
		slots:    make(chan struct{}, max(1, commits)),
		in:       make(chan *request, 4*maxBatch),
		quit:     make(chan struct{}),
		finished: make(chan struct{}),
	}
}

func (b *batcher) start() { b.started.Do(func() { go b.run() }) }

// stop makes new submits fail, stores what was already submitted and waits
// for the last commit.
func (b *batcher) stop() {
	b.once.Do(func() { close(b.quit) })
	b.start() // a never-started batcher still has to drain and finish
	<-b.finished
}

func (b *batcher) submit(ctx context.Context, d Delivery) (Outcome, error) {
	r := &request{d: d, done: make(chan error, 1)}
	select {
	case <-b.quit:
		return "", ErrClosed
	default:
	}
	select {
	case b.in <- r:
	case <-b.quit:
		return "", ErrClosed
	case <-ctx.Done():
		return "", ctx.Err()
	}
	// Once queued, the delivery will be committed or failed even if the
	// caller goes away; wait for that unless the caller gives up.
	select {
	case err := <-r.done:
		if err != nil {
			return "", err
		}
		return r.outcome, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (b *batcher) run() {
	var flushing sync.WaitGroup
	defer close(b.finished)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		b.slots <- struct{}{} // released when the batch formed below is stored
		var first *request
		select {
		case first = <-b.in:
		case <-b.quit:
			flushing.Wait()
			b.drain()
			return
		}
		batch := append(make([]*request, 0, 16), first)
		timer.Reset(b.linger)
	collect:
		for len(batch) < b.maxBatch {
			select {
			case r := <-b.in:
				batch = append(batch, r)
			case <-timer.C:
				break collect
			case <-b.quit:
				break collect
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		flushing.Go(func() {
			defer func() { <-b.slots }()
			b.flush(batch)
		})
	}
}

// drain commits everything submitted before stop, once the commits in
// flight ended.
func (b *batcher) drain() {
	for {
		batch := make([]*request, 0, 16)
	fill:
		for len(batch) < b.maxBatch {
			select {
			case r := <-b.in:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		if len(batch) == 0 {
			return
		}
		b.flush(batch)
	}
}

// flush commits a batch. If the batch as a whole fails, each delivery is
// retried alone so that one bad delivery cannot fail its neighbours.
func (b *batcher) flush(batch []*request) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := b.eng.commit(ctx, batch)
	if err == nil {
		metrics.CommitBatch(len(batch))
		for _, r := range batch {
			r.done <- nil
		}
		return
	}
	if len(batch) == 1 {
		d := batch[0].d
		b.log.Error("storing webhook delivery failed", "delivery_id", d.ID, "event", d.Event, "repo", d.Repo, "pr", d.PR, "err", err)
		batch[0].done <- err
		return
	}
	b.log.Warn("group commit failed; storing deliveries one by one", "deliveries", len(batch), "err", err)
	for _, r := range batch {
		r.outcome = ""
		b.flush([]*request{r})
	}
}
