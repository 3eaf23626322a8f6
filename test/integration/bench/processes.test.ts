import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import { stopRunningChildren, trackChild } from '../../../bench/processes';

describe('the parties a bench started', () => {
  it('are stopped when the bench is interrupted, and one that exited is not signalled again', async () => {
    const done = trackChild(spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }));
    await once(done, 'exit');
    const party = trackChild(spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }));
    await once(party, 'spawn');
    const killed: (NodeJS.Signals | null)[] = [];
    party.once('exit', (_code, signal) => killed.push(signal));
    stopRunningChildren();
    await once(party, 'exit');
    expect(killed).toEqual(['SIGTERM']);
    expect(done.signalCode).toBeNull();
  });
});
