/**
 * The debounced wake-ups of the SQL store (src/storage/sql/notifier.ts): sent at once for a
 * quiet queue, folded into one trailing notification within the window, and carried by the
 * insert itself for at most one statement at a time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/index.js';
import { NOTIFY_WINDOW_MS, WakeNotifier } from '../../src/storage/sql/notifier.js';

describe('WakeNotifier', () => {
  let sent: string[];
  let notifier: WakeNotifier;

  beforeEach(() => {
    vi.useFakeTimers();
    sent = [];
    notifier = new WakeNotifier((queue) => {
      sent.push(queue);
      return Promise.resolve();
    }, silentLogger);
  });

  afterEach(() => {
    notifier.stop();
    vi.useRealTimers();
  });

  it('notifies a quiet queue at once and folds later wake-ups into one trailing notification', () => {
    notifier.wake(['a']);
    notifier.wake(['a', 'a']);
    notifier.wake(['a']);
    expect(sent).toEqual(['a']);
    vi.advanceTimersByTime(NOTIFY_WINDOW_MS);
    expect(sent).toEqual(['a', 'a']);
    vi.advanceTimersByTime(NOTIFY_WINDOW_MS);
    expect(sent).toEqual(['a', 'a']);
  });

  it('lets an insert carry the notification of a quiet queue, one at a time', () => {
    expect(notifier.carry('a')).toBe(true);
    // In flight: no second carried notification, for this queue or another.
    expect(notifier.carry('b')).toBe(false);
    notifier.carried();
    expect(notifier.carry('b')).toBe(true);
    notifier.carried();
    expect(sent).toEqual([]);
  });

  it('opens the window of a carried notification, so later enqueues get a trailing one', () => {
    expect(notifier.carry('a')).toBe(true);
    notifier.carried();
    // The window is open: neither a second carried notification nor one sent at once.
    expect(notifier.carry('a')).toBe(false);
    notifier.wake(['a']);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(NOTIFY_WINDOW_MS);
    expect(sent).toEqual(['a']);
    // Quiet again once the windows end.
    vi.advanceTimersByTime(2 * NOTIFY_WINDOW_MS);
    expect(notifier.carry('a')).toBe(true);
    notifier.carried();
  });

  it('carries nothing while a queue notified after a commit is within its window', () => {
    notifier.wake(['a']);
    expect(notifier.carry('a')).toBe(false);
    expect(notifier.carry('b')).toBe(true);
    notifier.carried();
  });

  it('carries nothing once stopped', () => {
    notifier.stop();
    expect(notifier.carry('a')).toBe(false);
  });
});
