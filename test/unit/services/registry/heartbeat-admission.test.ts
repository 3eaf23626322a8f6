import { describe, expect, it } from '@jest/globals';
import { ConflictError } from '../../../../lib/core/errors';
import { loadConfig } from '../../../../lib/services/platform/config';
import {
  admitDrain,
  admitHeartbeat,
  fromNodeAddress,
  heartbeatAdmission,
  OPEN_ADMISSION,
} from '../../../../lib/services/registry/heartbeat-admission';
import { makeNodeRecord, T0 } from '../../../helpers/factories';

const liveness = { now: T0, thresholds: { degradedAfterMs: 15_000, offlineAfterMs: 30_000 } };
const agentNode = makeNodeRecord({ id: 'studio', source: 'agent', url: 'http://10.0.0.5:11434', lastSeenAt: T0 });
const keyed = { listedIds: new Set<string>(), authenticated: true };

describe('heartbeatAdmission', () => {
  it('reads the listed ids and whether node agents authenticate from the config', () => {
    const admission = heartbeatAdmission(
      loadConfig({ FLEET_NODES: 'gpu1=http://10.0.0.5:11434', FLEET_NODE_KEYS: 'n' }),
    );

    expect([...admission.listedIds]).toEqual(['gpu1']);
    expect(admission.authenticated).toBe(true);
    expect(heartbeatAdmission(loadConfig({})).authenticated).toBe(false);
  });
});

describe('admitHeartbeat', () => {
  it('lets a new node and a node at its own address through an open router', () => {
    expect(() => admitHeartbeat(OPEN_ADMISSION, 'new', 'http://10.0.0.7:11434', undefined, liveness)).not.toThrow();
    expect(() => admitHeartbeat(OPEN_ADMISSION, 'studio', agentNode.url, agentNode, liveness)).not.toThrow();
  });

  it('refuses a live node moving to another address in an open router', () => {
    expect(() => admitHeartbeat(OPEN_ADMISSION, 'studio', 'http://10.0.0.66:11434', agentNode, liveness)).toThrow(
      ConflictError,
    );
  });

  it('lets a node move once it is offline or drained, or with a node key', () => {
    const later = { ...liveness, now: T0 + 30_001 };
    const drained = { ...agentNode, draining: true };

    expect(() => admitHeartbeat(OPEN_ADMISSION, 'studio', 'http://10.0.0.66:11434', agentNode, later)).not.toThrow();
    expect(() => admitHeartbeat(OPEN_ADMISSION, 'studio', 'http://10.0.0.66:11434', drained, liveness)).not.toThrow();
    expect(() => admitHeartbeat(keyed, 'studio', 'http://10.0.0.66:11434', agentNode, liveness)).not.toThrow();
  });

  it('refuses any heartbeat for a listed node, with a node key too', () => {
    const listed = { listedIds: new Set(['gpu1']), authenticated: true };

    expect(() => admitHeartbeat(listed, 'gpu1', 'http://10.0.0.5:11434', undefined, liveness)).toThrow(/FLEET_NODES/);
  });

  it('refuses a heartbeat for a live polled record even where the listing is not configured', () => {
    const polled = makeNodeRecord({ id: 'gpu9', source: 'listed', lastSeenAt: T0 });

    expect(() => admitHeartbeat(keyed, 'gpu9', polled.url, polled, liveness)).toThrow(ConflictError);
  });
});

describe('admitDrain', () => {
  it('takes a drain from the node own address only, in an open router', () => {
    expect(() => admitDrain(OPEN_ADMISSION, 'studio', agentNode, '10.0.0.5', liveness)).not.toThrow();
    expect(() => admitDrain(OPEN_ADMISSION, 'studio', agentNode, '10.0.0.66', liveness)).toThrow(/own address/);
    expect(() => admitDrain(OPEN_ADMISSION, 'studio', agentNode, undefined, liveness)).toThrow(ConflictError);
  });

  it('takes a drain from anywhere with a node key, and a drain for an unknown node as a no-op', () => {
    expect(() => admitDrain(keyed, 'studio', agentNode, '10.0.0.66', liveness)).not.toThrow();
    expect(() => admitDrain(OPEN_ADMISSION, 'ghost', undefined, '10.0.0.66', liveness)).not.toThrow();
  });
});

describe('fromNodeAddress', () => {
  it.each([
    ['http://10.0.0.5:11434', '10.0.0.5', true],
    ['http://10.0.0.5:11434', '::ffff:10.0.0.5', true],
    ['http://127.0.0.1:11434', '::1', true],
    ['http://[fd00::5]:11434', 'FD00::5', true],
    ['http://10.0.0.5:11434', '10.0.0.55', false],
    ['http://10.0.0.5:11434', '127.0.0.1', false],
    ['http://gpu1.lan:11434', '10.0.0.5', false],
  ])('%s from %s: %s', (url, peer, expected) => {
    expect(fromNodeAddress({ url }, peer)).toBe(expected);
  });
});
