/**
 * The live feed in the browser: one EventSource per tab, closed while the tab is hidden and
 * resumed from the last event it saw when it shows again. Panels read the latest state and a
 * change counter that moves whenever something happened that they may show (they re-read then).
 */
import { useEffect, useState } from 'preact/hooks';
import type { StatusReport } from '../../../operator/status.js';
import type { BulkAction } from '../../../storage/bulk.js';

/** The state the server pushes each interval. */
export type FeedStatus = StatusReport & { bulk: BulkAction[] };

/** What panels read. */
export interface FeedState {
  status: FeedStatus | null;
  connected: boolean;
  /** The server could not read the state lately (it retries); what is shown may be old. */
  stale: boolean;
  /** Moves on every activity, action or queue change. */
  changes: number;
}

let state: FeedState = { status: null, connected: false, stale: false, changes: 0 };
const listeners = new Set<(s: FeedState) => void>();
let source: EventSource | null = null;
let lastId: string | null = null;

function update(patch: Partial<FeedState>): void {
  state = { ...state, ...patch };
  for (const listener of listeners) listener(state);
}

const changed = () => update({ changes: state.changes + 1 });

function open(): void {
  if (source !== null) return;
  const url =
    lastId === null ? 'api/events' : `api/events?lastEventId=${encodeURIComponent(lastId)}`;
  const current = new EventSource(url);
  source = current;
  current.onopen = () => update({ connected: true });
  current.onerror = () => {
    update({ connected: false });
    // A stream the browser gave up on (an answer that is not a stream) is opened again later.
    if (current.readyState === EventSource.CLOSED && source === current) {
      source = null;
      setTimeout(() => {
        if (!document.hidden) open();
      }, 5000);
    }
  };
  const on = (event: string, handle: (data: unknown) => void) =>
    current.addEventListener(event, (e) => {
      const message = e as MessageEvent<string>;
      lastId = message.lastEventId || lastId;
      handle(JSON.parse(message.data) as unknown);
    });
  on('status', (data) => update({ status: data as FeedStatus, stale: false }));
  on('feed-error', () => update({ stale: true }));
  on('activity', changed);
  on('actions', changed);
  on('queues', changed);
  on('reset', changed);
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
