import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/index.js';
import { ChokaQEvents } from '../../src/runtime/events.js';
import { EventEmitter } from 'node:events';

describe('ChokaQEvents', () => {
  it('off removes the latest registration of a listener added twice, like EventEmitter', () => {
    const calls: string[] = [];
    const a = () => calls.push('a');
    const b = () => calls.push('b');
    const payload = { table: 'archive', queue: null, rows: 1 } as const;

    const ours = new ChokaQEvents(silentLogger);
    ours.on('retention:purged', a);
    ours.on('retention:purged', b);
    ours.on('retention:purged', a);
    ours.off('retention:purged', a);
    ours.emit('retention:purged', payload);
    const got = calls.splice(0);

    const node = new EventEmitter();
    node.on('x', a);
    node.on('x', b);
    node.on('x', a);
    node.off('x', a);
    node.emit('x');
    expect(got).toEqual(calls);
    expect(got).toEqual(['a', 'b']);
  });

  it('off of a listener never added changes nothing', () => {
    const calls: string[] = [];
    const events = new ChokaQEvents(silentLogger);
    events.on('retention:purged', () => calls.push('kept'));
    events.off('retention:purged', () => calls.push('other'));
    events.emit('retention:purged', { table: 'dlq', queue: null, rows: 2 });
    expect(calls).toEqual(['kept']);
  });
});
