/**
 * Worker process of the bench (forked by `worker-group.ts`): loads one system's adapter,
 * connects, reports `ready`, starts working on `go`, reports progress, and on `stop` shuts the
 * system down gracefully and sends what it ran. Never run directly.
 */
import type { FromChild, ToChild } from './protocol.js';
import { Recorder } from './recorder.js';
import type { WorkerSide } from './systems/adapter.js';
import { loadAdapter } from './systems/index.js';

function send(message: FromChild): void {
  process.send?.(message);
}

function fail(error: unknown): void {
  send({
    type: 'error',
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  setTimeout(() => process.exit(1), 100).unref();
}

let worker: WorkerSide | undefined;
let sampleMs = 100;
const recorder = new Recorder();

async function onMessage(message: ToChild): Promise<void> {
  switch (message.type) {
    case 'init': {
      sampleMs = message.sampleMs;
      const adapter = await loadAdapter(message.system, {
        databaseUrl: message.databaseUrl,
        dataDir: '',
      });
      worker = await adapter.createWorker(message.setup);
      send({ type: 'ready' });
      return;
    }
    case 'go': {
      if (worker === undefined) throw new Error('go before init');
      recorder.begin(sampleMs, (handled, rss) => send({ type: 'progress', handled, rss }));
      await worker.start(recorder.sink);
      send({ type: 'started' });
      return;
    }
    case 'stop': {
      recorder.endCpu();
      await worker?.stop();
      // Disconnect only once the (large) result has been written to the channel; then leave
      // even if a library left a handle open.
      process.send?.(
        { type: 'done', ...recorder.finish() } satisfies FromChild,
        undefined,
        {},
        () => {
          process.disconnect?.();
          setTimeout(() => process.exit(0), 2000).unref();
        },
      );
      return;
    }
  }
}

if (process.send === undefined) {
  process.stderr.write('bench: child.js is a worker process of `npm run bench`\n');
  process.exit(2);
}
process.on('message', (message: ToChild) => {
  onMessage(message).catch(fail);
});
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
// The harness ends us with 'stop'; a signal from the terminal should not leave us running.
process.on('disconnect', () => setTimeout(() => process.exit(0), 5000).unref());
