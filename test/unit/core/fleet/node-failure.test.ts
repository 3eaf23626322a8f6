import { describe, expect, it } from '@jest/globals';
import {
  formatWait,
  nodeCallWords,
  nodeFailedStatus,
  nodeFailureWords,
  nodeUnreachable,
  saidOfNode,
  technicalCause,
} from '../../../../lib/core/fleet/node-failure';

const coded = (code: string, message: string, name = 'Error') => Object.assign(new Error(message), { code, name });

describe('nodeFailureWords', () => {
  it.each([
    ['a refused connection', coded('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:11434'), 'refused the connection'],
    ['a first-byte time-out', coded('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error'), 'did not answer within 5 s'],
    [
      'an AbortSignal time-out',
      coded('23', 'The operation was aborted due to timeout', 'TimeoutError'),
      'did not answer within 5 s',
    ],
    ['a reset', coded('ECONNRESET', 'read ECONNRESET'), 'closed the connection'],
    ['a socket closed by the node', coded('UND_ERR_SOCKET', 'other side closed'), 'closed the connection'],
    [
      'a name that does not resolve',
      coded('ENOTFOUND', 'getaddrinfo ENOTFOUND gpu9.lan'),
      'has an address that does not resolve',
    ],
    ['anything else', new Error('???'), 'could not be reached'],
  ])('says %s in words', (_case, error, words) => {
    expect(nodeFailureWords(error, 5000)).toBe(words);
  });

  it('finds the code on the cause undici wraps', () => {
    const wrapped = new Error('fetch failed', { cause: coded('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:1') });

    expect(nodeFailureWords(wrapped)).toBe('refused the connection');
  });
});

describe('nodeUnreachable', () => {
  it('keeps the URL and code in the detail, and only words in the message', () => {
    const error = nodeUnreachable(
      coded('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:11434'),
      'http://10.0.0.5:11434/api/chat',
    );

    expect(error.message).toBe('the node refused the connection');
    expect(error.detail).toBe('http://10.0.0.5:11434/api/chat: connect ECONNREFUSED 10.0.0.5:11434');
    expect(technicalCause(error)).toBe(error.detail);
    expect(saidOfNode('gpu1', error)).toBe('node gpu1 refused the connection');
  });
});

describe('nodeCallWords', () => {
  const url = 'http://10.0.0.5:11434/api/ps';

  it.each([
    ['an unreachable node', nodeUnreachable(coded('ECONNRESET', 'read ECONNRESET'), url), 'closed the connection'],
    ['a 5xx', nodeFailedStatus(500, url, 'panic at 10.0.0.5'), 'failed (HTTP 500)'],
    ['a bare socket error', coded('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:11434'), 'refused the connection'],
    [
      'a reply that did not parse',
      new Error(`${url}: models expected an array`),
      'sent a reply the router could not read',
    ],
  ])('says %s without its URL or code', (_case, error, words) => {
    const said = nodeCallWords(error);

    expect(said).toBe(words);
    expect(said).not.toContain('10.0.0.5');
  });
});

describe('formatWait', () => {
  it.each([
    [5000, '5 s'],
    [300, '0.3 s'],
    [300_000, '5 min'],
  ])('says %d ms as %s', (ms, words) => {
    expect(formatWait(ms)).toBe(words);
  });
});
