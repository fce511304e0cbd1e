// The dashboard's event merging: every event of a run delivered once, in seq order, whatever mix of
// snapshot, replay, live stream and back-fill it arrives from, across reconnects.
import { describe, expect, it } from 'vitest';
import { EventFeed, MAX_PENDING, RECENT } from '../../web/src/lib/event-feed.js';

interface Ev {
  run_id: string;
  seq: number;
  label: string;
}

const ev = (run_id: string, seq: number): Ev => ({ run_id, seq, label: `${run_id}#${seq}` });
const seqs = (events: Ev[]): number[] => events.map((e) => e.seq);

/** Feeds events and collects everything delivered. */
function deliver(feed: EventFeed<Ev>, events: Ev[]): Ev[] {
  return events.flatMap((e) => feed.accept(e).ready);
}

describe('EventFeed', () => {
  it('delivers a run that starts while subscribed from seq 1 without a snapshot', () => {
    const feed = new EventFeed<Ev>();
    expect(seqs(deliver(feed, [ev('a', 1), ev('a', 2), ev('a', 3)]))).toEqual([1, 2, 3]);
    expect(feed.since()).toEqual({ a: 3 });
  });

  it('drops events a snapshot already reflects and delivers the ones after it', () => {
    const feed = new EventFeed<Ev>();
    expect(feed.seed('a', 5)).toEqual([]);
    expect(seqs(deliver(feed, [ev('a', 4), ev('a', 5), ev('a', 6), ev('a', 7)]))).toEqual([6, 7]);
  });

  it('holds events of an unseeded run until its snapshot, then delivers those after the snapshot', () => {
    const feed = new EventFeed<Ev>();
    const first = feed.accept(ev('a', 8));
    expect(first).toEqual({ ready: [], gap: null, needsSeed: true });
    feed.accept(ev('a', 9));
    feed.accept(ev('a', 7));
    expect(feed.unseeded()).toEqual(['a']);
    expect(seqs(feed.seed('a', 7))).toEqual([8, 9]);
    expect(feed.unseeded()).toEqual([]);
    expect(feed.pendingCount()).toEqual(0);
  });

  it('reports a gap, holds later events, and delivers everything once the back-fill arrives', () => {
    const feed = new EventFeed<Ev>();
    feed.seed('a', 2);
    const early = feed.accept(ev('a', 5));
    expect(early.ready).toEqual([]);
    expect(early.gap).toEqual({ run_id: 'a', after_seq: 2, before_seq: 5 });
    expect(feed.accept(ev('a', 6)).gap).toEqual({ run_id: 'a', after_seq: 2, before_seq: 5 });
    expect(feed.gaps()).toEqual([{ run_id: 'a', after_seq: 2, before_seq: 5 }]);
    // The back-fill (GET /events?after_seq=2) returns 3..6: 3 and 4 fill the hole, 5 and 6 come out of the buffer once.
    expect(seqs(deliver(feed, [ev('a', 3), ev('a', 4), ev('a', 5), ev('a', 6)]))).toEqual([3, 4, 5, 6]);
    expect(feed.gaps()).toEqual([]);
    expect(feed.since()).toEqual({ a: 6 });
  });

  it('reconnect: replay after `since` overlapping the live stream gives each event exactly once', () => {
    const feed = new EventFeed<Ev>();
    feed.seed('a', 0);
    feed.seed('b', 10);
    const out: Ev[] = [];
    // First connection: live events, then the socket drops after a:3 and b:11.
    out.push(...deliver(feed, [ev('a', 1), ev('b', 11), ev('a', 2), ev('a', 3)]));
    const since = feed.since();
    expect(since).toEqual({ a: 3, b: 11 });
    // Second connection: the server replays after since, but a live event of b overtakes the replay,
    // and one already-seen event is sent again.
    out.push(...deliver(feed, [ev('b', 13), ev('a', 3), ev('a', 4), ev('b', 12), ev('a', 5), ev('b', 13), ev('b', 14)]));
    const a = out.filter((e) => e.run_id === 'a');
    const b = out.filter((e) => e.run_id === 'b');
    expect(seqs(a)).toEqual([1, 2, 3, 4, 5]);
    expect(seqs(b)).toEqual([11, 12, 13, 14]);
    expect(feed.pendingCount()).toEqual(0);
  });

  it('a snapshot older than what was delivered changes nothing', () => {
    const feed = new EventFeed<Ev>();
    deliver(feed, [ev('a', 1), ev('a', 2), ev('a', 3)]);
    expect(feed.seed('a', 1)).toEqual([]);
    expect(feed.lastSeq('a')).toEqual(3);
    expect(seqs(deliver(feed, [ev('a', 2), ev('a', 4)]))).toEqual([4]);
  });

  it('a snapshot does not move a run the feed already follows (older or newer): its events still come in order', () => {
    const feed = new EventFeed<Ev>();
    feed.seed('a', 1);
    feed.accept(ev('a', 4));
    expect(seqs(feed.seed('a', 4))).toEqual([]);
    expect(feed.gaps()).toEqual([{ run_id: 'a', after_seq: 1, before_seq: 4 }]);
    expect(seqs(deliver(feed, [ev('a', 2), ev('a', 3)]))).toEqual([2, 3, 4]);
  });

  it('remembers what it delivered, for a snapshot that arrives behind it', () => {
    const feed = new EventFeed<Ev>();
    expect(feed.deliveredAfter('a', 0)).toEqual([]);
    deliver(feed, [ev('a', 1), ev('a', 2), ev('a', 3)]);
    expect(seqs(feed.deliveredAfter('a', 1) ?? [])).toEqual([2, 3]);
    expect(feed.deliveredAfter('a', 3)).toEqual([]);
    expect(feed.deliveredAfter('a', 7)).toEqual([]);
    // Only the last RECENT of a run: a snapshot further behind has to fetch what it misses.
    deliver(feed, Array.from({ length: RECENT + 10 }, (_, i) => ev('a', i + 4)));
    expect(feed.deliveredAfter('a', 2)).toBeNull();
    expect(feed.deliveredAfter('a', RECENT + 13 - RECENT)).toHaveLength(RECENT);
  });

  it('runs are independent: a hole in one never holds back another', () => {
    const feed = new EventFeed<Ev>();
    feed.seed('a', 0);
    feed.seed('b', 0);
    expect(feed.accept(ev('a', 2)).ready).toEqual([]);
    expect(seqs(feed.accept(ev('b', 1)).ready)).toEqual([1]);
    expect(feed.since()).toEqual({ a: 0, b: 1 });
  });

  it('past MAX_PENDING held-back events the run asks for a new snapshot instead of growing', () => {
    const feed = new EventFeed<Ev>();
    feed.seed('a', 0);
    for (let seq = 2; seq < MAX_PENDING + 2; seq++) feed.accept(ev('a', seq));
    expect(feed.pendingCount()).toEqual(MAX_PENDING);
    const overflow = feed.accept(ev('a', MAX_PENDING + 2));
    expect(overflow.needsSeed).toBe(true);
    expect(feed.pendingCount()).toEqual(1);
    expect(feed.since()).toEqual({});
    expect(seqs(feed.seed('a', MAX_PENDING + 1))).toEqual([MAX_PENDING + 2]);
  });
});
