import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { parseSharingPolicy } from '../../../../lib/core/queue/sharing-policy';
import { createCredentialCheck } from '../../../../lib/services/http/api-keys';
import { admitCaller, toHttpRequest } from '../../../../lib/services/http/request';
import { requestClaim } from '../../../../lib/services/http/request-claim';
import { makeHttpEvent } from '../../../helpers/events';

const sharing = parseSharingPolicy({ priorities: ['tag:nightly=low'] });
const request = (headers: Record<string, string> = {}) =>
  toHttpRequest(makeHttpEvent({ method: 'POST', path: '/v1/chat/completions', headers, body: {} }));

describe('requestClaim', () => {
  it('is normal for the client address when nothing is said', () => {
    expect(requestClaim(request(), { tags: [] }, { sharing })).toEqual({
      priority: 'normal',
      app: expect.stringMatching(/^client:/),
    });
  });

  it("takes the stated priority, else the application's default", () => {
    const stated = requestClaim(request({ 'X-Fleet-Priority': 'high' }), { tags: ['nightly'] }, { sharing });
    const byTag = requestClaim(request(), { tags: ['nightly'] }, { sharing });
    const byBody = requestClaim(request(), { tags: ['nightly'], metadataPriority: 'normal' }, { sharing });

    expect(stated).toEqual({ priority: 'high', app: 'tag:nightly' });
    expect(byTag).toEqual({ priority: 'low', app: 'tag:nightly' });
    expect(byBody).toEqual({ priority: 'normal', app: 'tag:nightly' });
  });

  it('counts the key it was admitted with as the application, by an id that is not the key', () => {
    const key = 'sk-team-a-secret';
    const id = createHash('sha256').update(key).digest('hex').slice(0, 8);
    const check = createCredentialCheck({ apiKeys: [key, 'named:sk-named'] });
    const admitted = (headers: Record<string, string>) => {
      const checked = request(headers);
      admitCaller(checked, check?.(checked, 'client') ?? checked.caller);
      return checked;
    };

    const claim = requestClaim(admitted({ Authorization: `Bearer ${key}` }), { tags: ['chat'] }, { sharing });
    const named = requestClaim(admitted({ 'x-api-key': 'sk-named' }), { tags: ['chat'] }, { sharing });
    const unchecked = requestClaim(request({ Authorization: 'Bearer ollama' }), { tags: ['chat'] }, { sharing });

    expect(claim.app).toBe(`key:${id}`);
    expect(claim.app).not.toContain(key);
    expect(named.app).toBe('key:named');
    expect(unchecked.app).toBe('tag:chat');
  });

  it('refuses an unknown priority with a 400 naming where it came from', () => {
    expect(() => requestClaim(request({ 'X-Fleet-Priority': 'asap' }), { tags: [] }, { sharing })).toThrow(
      expect.objectContaining({ status: 400, param: 'X-Fleet-Priority' }),
    );
    expect(() => requestClaim(request(), { tags: [], metadataPriority: 'asap' }, { sharing })).toThrow(
      expect.objectContaining({ status: 400, param: 'metadata.priority' }),
    );
  });
});
