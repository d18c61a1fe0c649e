// The process's copies of recent aggregate histories (src/commands/recent-copies.ts,
// kept for the U2F commands by src/commands/u2f/keep-pending.ts): which are
// kept, that a copy never skips an event, and the bound.
import { describe, expect, it } from 'vitest';
import { recentHistories } from '../../src/commands/recent-copies.js';
import { keepWhilePending } from '../../src/commands/u2f/keep-pending.js';
import type { StoredEvent } from '../../src/domain/events/index.js';

const recentAggregates = (maxKept?: number, keptWhile = keepWhilePending) => recentHistories(keptWhile, maxKept);

function event(aggregateType: string, aggregateId: string, sequence: number, type: string): StoredEvent {
  return {
    aggregateType,
    aggregateId,
    sequence,
    type,
    payload: {},
    resourceOwner: 'org',
    creator: 'u',
    position: BigInt(sequence),
    createdAt: new Date(),
  } as unknown as StoredEvent;
}
const started = (id: string, sequence = 1) => event('u2f', id, sequence, 'u2f.registration.started');
const verified = (id: string, sequence = 2) => event('u2f', id, sequence, 'u2f.verified');

describe('recent aggregates', () => {
  it('keeps a U2F registration while it is pending, and drops it once verified', () => {
    const recent = recentAggregates();
    recent.appended([started('a')]);
    expect(recent.get('u2f', 'a')?.map((e: StoredEvent) => e.sequence)).toEqual([1]);
    recent.appended([verified('a')]);
    expect(recent.get('u2f', 'a')).toBeUndefined();
  });

  it('keeps no other kind of aggregate', () => {
    const recent = recentAggregates();
    recent.appended([event('app', 'x', 1, 'app.added'), event('app', 'x', 2, 'app.oidc.config.added'), event('project', 'p', 1, 'project.added')]);
    recent.loaded('user', 'u', [event('user', 'u', 1, 'user.human.added')]);
    expect(recent.get('app', 'x')).toBeUndefined();
    expect(recent.get('project', 'p')).toBeUndefined();
    expect(recent.get('user', 'u')).toBeUndefined();
  });

  it('extends a copy only with the very next event; after a gap it forgets the aggregate', () => {
    const recent = recentAggregates(10, keepAllU2f);
    recent.appended([started('a')]);
    recent.appended([event('u2f', 'a', 2, 'u2f.registration.started')]);
    expect(recent.get('u2f', 'a')?.map((e: StoredEvent) => e.sequence)).toEqual([1, 2]);
    // Sequence 3 was written by another process: 4 cannot extend [1, 2].
    recent.appended([event('u2f', 'a', 4, 'u2f.registration.started')]);
    expect(recent.get('u2f', 'a')).toBeUndefined();
    // Nor can an event of an aggregate never seen from its start.
    recent.appended([event('u2f', 'b', 5, 'u2f.registration.started')]);
    expect(recent.get('u2f', 'b')).toBeUndefined();
  });

  it('takes a loaded history unless its copy is already newer', () => {
    const recent = recentAggregates(10, keepAllU2f);
    recent.loaded('u2f', 'a', [started('a')]);
    expect(recent.get('u2f', 'a')).toHaveLength(1);
    recent.appended([event('u2f', 'a', 2, 'u2f.registration.started')]);
    // A load that began before that append finished arrives late with the older history.
    recent.loaded('u2f', 'a', [started('a')]);
    expect(recent.get('u2f', 'a')?.map((e: StoredEvent) => e.sequence)).toEqual([1, 2]);
    recent.loaded('u2f', 'a', [started('a'), started('a', 2), started('a', 3)]);
    expect(recent.get('u2f', 'a')?.map((e: StoredEvent) => e.sequence)).toEqual([1, 2, 3]);
    recent.loaded('u2f', 'gone', []);
    expect(recent.get('u2f', 'gone')).toBeUndefined();
  });

  it('keeps at most the given number, dropping the longest unchanged first', () => {
    const recent = recentAggregates(3);
    for (const id of ['a', 'b', 'c']) recent.appended([started(id)]);
    // Touching a: a new history for it makes it the newest.
    recent.loaded('u2f', 'a', [started('a'), started('a', 2)]);
    recent.appended([started('d')]);
    expect(['a', 'b', 'c', 'd'].filter((id) => recent.get('u2f', id))).toEqual(['a', 'c', 'd']);
  });
});

/** Every U2F history kept, whatever its last event. */
function keepAllU2f(last: StoredEvent): boolean {
  return last.aggregateType === 'u2f';
}
