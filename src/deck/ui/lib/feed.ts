/**
 * The live feed in the browser: one EventSource per tab, closed while the tab is hidden and
 * resumed from the last event it saw when it shows again. Panels read the latest state and a
 * change counter that moves whenever something happened that they may show (they re-read then).
 */
import { useEffect, useState } from 'preact/hooks';
import type { StatusReport } from '../../../operator/status.js';
import type { AuditEntry, BulkAction } from '../../../storage/bulk.js';

/** The state the server pushes each interval. */
export type FeedStatus = StatusReport & { bulk: BulkAction[] };

/** What panels read. */
export interface FeedState {
  status: FeedStatus | null;
  connected: boolean;
  /** Moves on every activity, action or queue change. */
  changes: number;
  /** The newest operator actions, newest first (at most 50). */
  actions: AuditEntry[];
  /** Jobs per second of the last activity message, summed over queues. */
  rate: { succeeded: number; dead: number; enqueued: number };
}

let state: FeedState = {
  status: null,
  connected: false,
  changes: 0,
  actions: [],
  rate: { succeeded: 0, dead: 0, enqueued: 0 },
};
const listeners = new Set<(s: FeedState) => void>();
let source: EventSource | null = null;
let lastId: string | null = null;

function update(patch: Partial<FeedState>): void {
  state = { ...state, ...patch };
  for (const listener of listeners) listener(state);
}

function open(): void {
  if (source !== null) return;
  const url =
    lastId === null ? 'api/events' : `api/events?lastEventId=${encodeURIComponent(lastId)}`;
  source = new EventSource(url);
  source.onopen = () => update({ connected: true });
  source.onerror = () => update({ connected: false });
  const on = (event: string, handle: (data: unknown) => void) =>
    source?.addEventListener(event, (e) => {
      const message = e as MessageEvent<string>;
      lastId = message.lastEventId || lastId;
      handle(JSON.parse(message.data) as unknown);
    });
  on('status', (data) => update({ status: data as FeedStatus }));
  on('activity', (data) => {
    const queues = (
      data as { queues: Record<string, { succeeded: number; dead: number; enqueued: number }> }
    ).queues;
    const rate = { succeeded: 0, dead: 0, enqueued: 0 };
    for (const q of Object.values(queues)) {
      rate.succeeded += q.succeeded;
      rate.dead += q.dead;
      rate.enqueued += q.enqueued;
    }
    update({ rate, changes: state.changes + 1 });
  });
  on('actions', (data) =>
    update({
      actions: [...(data as AuditEntry[]).reverse(), ...state.actions].slice(0, 50),
      changes: state.changes + 1,
    }),
  );
  on('queues', () => update({ changes: state.changes + 1 }));
  on('reset', () => update({ changes: state.changes + 1 }));
}

function close(): void {
  source?.close();
  source = null;
  update({ connected: false });
}

/** Starts the feed (once per page) and pauses it while the tab is hidden. */
export function startFeed(): void {
  open();
  document.addEventListener('visibilitychange', () => (document.hidden ? close() : open()));
}

/** The feed's state, re-rendered on every message. */
export function useFeed(): FeedState {
  const [value, setValue] = useState(state);
  useEffect(() => {
    listeners.add(setValue);
    return () => void listeners.delete(setValue);
  }, []);
  return value;
}
