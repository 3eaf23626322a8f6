import { describe, expect, it } from '@jest/globals';
import type { Ejection } from '../../../../lib/core/fleet/ejection';
import type { NodeView } from '../../../../lib/core/fleet/node';
import { createOutlierEjection, failureCause } from '../../../../lib/services/dispatch/outlier-ejection';
import { makeNodeRecord } from '../../../helpers/factories';

const options = { consecutiveFailures: 3, baseMs: 30_000, maxMs: 300_000 };
const T0 = 1_000_000;
const A = { nodeId: 'a', backend: 'ollama' } as const;
const B = { nodeId: 'b', backend: 'ollama' } as const;

describe('createOutlierEjection', () => {
  it('ejects a node after the threshold of 5xx answers in a row, not before', () => {
    const health = createOutlierEjection(options);

    const first = health.recordFailure(A, 'server-error', 'answered 500', T0);
    const second = health.recordFailure(A, 'server-error', 'answered 500', T0 + 1);
    const third = health.recordFailure(A, 'server-error', 'answered 502', T0 + 2);

    expect(first).toBeUndefined();
    expect(second).toBeUndefined();
    expect(third).toEqual({
      nodeId: 'a',
      backend: 'ollama',
      at: T0 + 2,
      until: T0 + 2 + 30_000,
      reason: '3 failures in a row, the last: answered 502',
      level: 1,
      cause: 'server-error',
    });
    expect(health.ejected(A, T0 + 3)).toBe(third);
    expect([...health.ejections(T0 + 3).keys()]).toEqual(['a']);
  });

  it('ejects at once on a refused connect or a first-byte time-out', () => {
    const health = createOutlierEjection(options);

    const refused = health.recordFailure(A, 'connect', 'ECONNREFUSED', T0);
    const hung = health.recordFailure(B, 'first-byte-timeout', 'no headers in 120000 ms', T0);

    expect(refused?.reason).toBe('could not connect: ECONNREFUSED');
    expect(hung?.reason).toBe('no first byte in time: no headers in 120000 ms');
    expect(health.ejected(B, T0 + 29_999)?.until).toBe(T0 + 30_000);
  });

  it('lets the node back on its own when the period ends', () => {
    const health = createOutlierEjection(options);
    health.recordFailure(A, 'connect', 'ECONNREFUSED', T0);

    expect(health.ejected(A, T0 + 30_000)).toBeUndefined();
    expect(health.ejections(T0 + 30_000).size).toBe(0);
    expect(health.states(T0 + 30_000)).toEqual([]);
  });

  it('doubles the period for each ejection in a row, up to the cap', () => {
    const health = createOutlierEjection(options);
    const periods: number[] = [];
    let now = T0;
    for (let round = 0; round < 6; round += 1) {
      const ejection = health.recordFailure(A, 'first-byte-timeout', 'hung', now);
      if (ejection === undefined) throw new Error('expected an ejection');
      periods.push(ejection.until - now);
      now = ejection.until; // fails again the moment it returns
    }

    expect(periods).toEqual([30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
  });

  it('starts again from the base period once the node has stayed well', () => {
    const health = createOutlierEjection(options);
    const first = health.recordFailure(A, 'connect', 'refused', T0);
    const second = health.recordFailure(A, 'connect', 'refused', first?.until ?? 0);
    const calmFor = 2 * 30_000; // two base periods without an ejection: the level falls by two

    const third = health.recordFailure(A, 'connect', 'refused', (second?.until ?? 0) + calmFor);

    expect(second?.level).toBe(2);
    expect(third?.level).toBe(1);
    expect((third?.until ?? 0) - ((second?.until ?? 0) + calmFor)).toBe(30_000);
  });

  it('starts the count of failures in a row again after an answer', () => {
    const health = createOutlierEjection(options);
    health.recordFailure(A, 'server-error', 'answered 500', T0);
    health.recordFailure(A, 'transport', 'socket closed', T0 + 1);

    health.recordSuccess(A);
    const afterSuccess = [
      health.recordFailure(A, 'server-error', 'answered 500', T0 + 2),
      health.recordFailure(A, 'server-error', 'answered 500', T0 + 3),
    ];

    expect(afterSuccess).toEqual([undefined, undefined]);
    expect(health.states(T0 + 4)).toEqual([{ nodeId: 'a', backend: 'ollama', consecutiveFailures: 2 }]);
  });

  it('ignores failures of attempts that were sent before the node was ejected', () => {
    const health = createOutlierEjection(options);
    const ejection = health.recordFailure(A, 'connect', 'refused', T0);

    const late = health.recordFailure(A, 'first-byte-timeout', 'hung', T0 + 10);

    expect(late).toBeUndefined();
    expect(health.ejected(A, T0 + 10)).toBe(ejection);
  });

  it('keeps nodes apart and shows each one in its states', () => {
    const health = createOutlierEjection(options);
    health.recordFailure(A, 'connect', 'refused', T0);
    health.recordFailure(B, 'server-error', 'answered 500', T0);

    expect(health.ejected(B, T0)).toBeUndefined();
    expect(health.states(T0 + 1)).toEqual([
      {
        nodeId: 'a',
        backend: 'ollama',
        consecutiveFailures: 0,
        ejection: {
          nodeId: 'a',
          backend: 'ollama',
          at: T0,
          until: T0 + 30_000,
          reason: 'could not connect: refused',
          level: 1,
          cause: 'connect',
        },
      },
      { nodeId: 'b', backend: 'ollama', consecutiveFailures: 1 },
    ]);
  });

  it("ejects a node's sidecar apart from its Ollama", () => {
    const health = createOutlierEjection(options);
    const image = { nodeId: 'a', backend: 'image' } as const;

    health.recordFailure(image, 'connect', 'refused', T0);

    expect(health.ejected(image, T0)?.backend).toBe('image');
    expect(health.ejected(A, T0)).toBeUndefined();
    expect([...health.ejections(T0).keys()]).toEqual(['a (image)']);
  });

  it('ejects nothing when the threshold is 0', () => {
    const health = createOutlierEjection({ ...options, consecutiveFailures: 0 });

    expect(health.recordFailure(A, 'connect', 'refused', T0)).toBeUndefined();
    expect(health.ejected(A, T0)).toBeUndefined();
  });
});

describe('createOutlierEjection fed by polls', () => {
  const polled = (overrides: Partial<NodeView> = {}): NodeView => ({
    ...makeNodeRecord({ id: 'a', lastSeenAt: T0 - 6000 }),
    status: 'online',
    ...overrides,
  });

  it('ejects a node whose latest poll failed, once per failed poll', () => {
    const health = createOutlierEjection(options);
    const failed = polled({
      lastErrorAt: T0 - 1000,
      lastError: 'http://10.0.0.5:11434/api/ps: UND_ERR_HEADERS_TIMEOUT: Headers Timeout Error',
      lastErrorWords: 'did not answer within 5 s',
    });

    const first = health.fromPolls([failed], T0);
    const sameSnapshot = health.fromPolls([failed], T0 + 10);
    const samePollAfterEnd = health.fromPolls([failed], T0 + 29_000);

    expect(first).toEqual([
      {
        nodeId: 'a',
        backend: 'ollama',
        at: T0,
        until: T0 + 30_000,
        // The reason reaches clients in a 503: the poll's words, not the URL and code the operator reads.
        reason: 'its last poll failed: did not answer within 5 s',
        level: 1,
        cause: 'poll',
      },
    ]);
    expect(sameSnapshot).toEqual([]);
    expect(samePollAfterEnd).toEqual([]);
  });

  it('says a failed poll that has no words on record without its technical detail', () => {
    const health = createOutlierEjection(options);

    const [ejection] = health.fromPolls(
      [polled({ lastErrorAt: T0 - 1000, lastError: 'http://10.0.0.5:11434/api/ps: read ECONNRESET' })],
      T0,
    );

    expect(ejection?.reason).toBe('its last poll failed: no usable answer');
  });

  it('lets a node ejected for its polls back at its next good poll', () => {
    const health = createOutlierEjection(options);
    health.fromPolls([polled({ lastErrorAt: T0 - 1000, lastError: 'ECONNREFUSED' })], T0);

    health.fromPolls([polled({ lastSeenAt: T0 + 2000 })], T0 + 2000);

    expect(health.ejected(A, T0 + 2000)).toBeUndefined();
  });

  it('lets a node ejected for a refused connect back at the first good poll after the ejection, not before', () => {
    const health = createOutlierEjection(options);
    health.recordFailure(A, 'connect', 'refused the connection', T0);

    health.fromPolls([polled({ lastSeenAt: T0 - 500 })], T0 + 100);
    const afterOlderPoll = health.ejected(A, T0 + 100);
    health.fromPolls([polled({ lastSeenAt: T0 + 2000 })], T0 + 2000);

    expect(afterOlderPoll?.cause).toBe('connect');
    expect(health.ejected(A, T0 + 2000)).toBeUndefined();
  });

  it('lets a node ejected for 5xx answers back at a good poll after it', () => {
    const health = createOutlierEjection(options);
    for (const at of [T0, T0 + 1, T0 + 2]) health.recordFailure(A, 'server-error', 'failed (HTTP 500)', at);

    health.fromPolls([polled({ lastSeenAt: T0 + 1000 })], T0 + 1000);

    expect(health.ejected(A, T0 + 1000)).toBeUndefined();
  });

  it('keeps a node ejected for a missed first byte ejected whatever its polls say', () => {
    const health = createOutlierEjection(options);
    health.recordFailure(A, 'first-byte-timeout', 'hung', T0);

    health.fromPolls([polled({ lastErrorAt: T0 + 1000, lastError: 'timed out' })], T0 + 1000);
    health.fromPolls([polled({ lastSeenAt: T0 + 3000 })], T0 + 3000);

    expect(health.ejected(A, T0 + 3000)?.cause).toBe('first-byte-timeout');
  });

  it('leaves old failures and offline nodes to the registry', () => {
    const health = createOutlierEjection(options);

    const ejected = health.fromPolls(
      [
        polled({ lastErrorAt: T0 - 60_000, lastError: 'old' }),
        polled({ id: 'b', status: 'offline', lastErrorAt: T0 - 10, lastError: 'down' }),
      ],
      T0,
    );

    expect(ejected).toEqual([]);
  });
});

describe('failureCause', () => {
  const withCode = (message: string, code: string, cause?: unknown) =>
    Object.assign(new Error(message, cause === undefined ? {} : { cause }), { code });

  it('reads the undici or Node code anywhere on the cause chain', () => {
    const refused = new Error('node a unreachable', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') });
    const headers = withCode(
      'wrapped',
      'node_unreachable',
      withCode('Headers Timeout Error', 'UND_ERR_HEADERS_TIMEOUT'),
    );

    expect(failureCause(refused)).toBe('connect');
    expect(failureCause(withCode('Connect Timeout Error', 'UND_ERR_CONNECT_TIMEOUT'))).toBe('connect');
    expect(failureCause(headers)).toBe('first-byte-timeout');
    expect(failureCause(withCode('other side closed', 'UND_ERR_SOCKET'))).toBe('transport');
    expect(failureCause('not an error')).toBe('transport');
  });
});

describe('createOutlierEjection shared across instances', () => {
  const sharing = (instanceId: string, published: Ejection[]) => ({
    instanceId,
    publish: (ejection: Ejection) => {
      published.push(ejection);
    },
  });

  it('publishes each ejection it decides once, with the instance that saw it, and nothing per failure', () => {
    const published: Ejection[] = [];
    const health = createOutlierEjection(options, sharing('instance-a', published));

    health.recordFailure(A, 'server-error', 'answered 500', T0);
    health.recordFailure(A, 'server-error', 'answered 500', T0 + 1);
    const ejected = health.recordFailure(A, 'server-error', 'answered 500', T0 + 2);
    health.recordFailure(A, 'server-error', 'answered 500', T0 + 3);
    const hung = health.recordFailure(B, 'first-byte-timeout', 'no headers in 2000 ms', T0 + 4);

    expect(published).toEqual([ejected, hung]);
    expect(hung).toMatchObject({ by: 'instance-a', cause: 'first-byte-timeout', until: T0 + 4 + 30_000 });
  });

  it('publishes no ejection for a failed poll: every instance reads the poll from the node record', () => {
    const published: Ejection[] = [];
    const health = createOutlierEjection(options, sharing('instance-a', published));
    const failed: NodeView = {
      ...makeNodeRecord({ id: 'a', lastSeenAt: T0 - 6000, lastErrorAt: T0 - 1000 }),
      status: 'online',
    };

    const ejected = health.fromPolls([failed], T0);

    expect(ejected).toHaveLength(1);
    expect(published).toEqual([]);
  });

  it("honours another instance's published ejection as its own: ranked out, and shown with who saw it", () => {
    const publishedByA: Ejection[] = [];
    const a = createOutlierEjection(options, sharing('instance-a', publishedByA));
    const b = createOutlierEjection(options, sharing('instance-b', []));
    a.recordFailure(A, 'first-byte-timeout', 'no headers in 2000 ms', T0);

    const adopted = b.adopt(publishedByA, T0 + 500);

    expect(adopted).toEqual(publishedByA);
    expect(b.ejected(A, T0 + 600)).toMatchObject({ by: 'instance-a', until: T0 + 30_000 });
    expect([...b.ejections(T0 + 600).keys()]).toEqual(['a']);
    expect(b.states(T0 + 600)).toEqual([
      { nodeId: 'a', backend: 'ollama', consecutiveFailures: 0, ejection: publishedByA[0] },
    ]);
    expect(b.ejected(A, T0 + 30_000)).toBeUndefined();
  });

  it('adopts each published list once, returns none of its own or over, and ends one no longer published', () => {
    const b = createOutlierEjection(options, sharing('instance-b', []));
    const theirs: Ejection = {
      ...A,
      at: T0,
      until: T0 + 30_000,
      reason: 'could not connect: ECONNREFUSED',
      level: 1,
      cause: 'connect',
      by: 'instance-a',
    };
    const own: Ejection = { ...theirs, nodeId: 'b', by: 'instance-b' };
    const over: Ejection = { ...theirs, nodeId: 'c', until: T0 + 10 };
    const list = [theirs, own, over];

    const first = b.adopt(list, T0 + 100);
    const again = b.adopt(list, T0 + 200);
    b.adopt([], T0 + 300);

    expect(first).toEqual([theirs]);
    expect(again).toEqual([]);
    expect(b.ejected(A, T0 + 300)).toBeUndefined();
  });

  it('keeps the level of an adopted ejection: the next one here lasts twice as long', () => {
    const b = createOutlierEjection(options, sharing('instance-b', []));
    const theirs: Ejection = {
      ...A,
      at: T0,
      until: T0 + 30_000,
      reason: 'could not connect: ECONNREFUSED',
      level: 1,
      cause: 'connect',
      by: 'instance-a',
    };
    b.adopt([theirs], T0 + 100);

    const next = b.recordFailure(A, 'connect', 'ECONNREFUSED', T0 + 30_001);

    expect(next).toMatchObject({ level: 2, until: T0 + 30_001 + 60_000, by: 'instance-b' });
  });

  it('stays ejected when two instances ejected the node at once and the table keeps either write', () => {
    const a = createOutlierEjection(options, sharing('instance-a', []));
    const own = a.recordFailure(A, 'first-byte-timeout', 'no headers in 2000 ms', T0);
    if (own === undefined) throw new Error('not ejected');
    const theirs: Ejection = { ...own, at: T0 + 200, until: T0 + 30_200, by: 'instance-b' };

    a.adopt([theirs], T0 + 300);
    const afterTheirs = a.ejected(A, T0 + 300);
    a.adopt([own], T0 + 800);

    expect(afterTheirs).toBe(theirs);
    expect(a.ejected(A, T0 + 800)).toBe(theirs);
    a.adopt([], T0 + 1_300);
    expect(a.ejected(A, T0 + 1_300)).toBeUndefined();
  });
});
