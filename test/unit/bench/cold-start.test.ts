import { describe, expect, it } from '@jest/globals';
import { lambdaStartEnv } from '../../../bench/cold-start';

describe('lambdaStartEnv', () => {
  it("leaves out the host's NODE_EXTRA_CA_CERTS, which a Lambda's Node does not get unless asked", () => {
    const host = { PATH: '/usr/bin', NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt', FLEET_X: '1' };
    const env = lambdaStartEnv(host);
    expect(env).not.toHaveProperty('NODE_EXTRA_CA_CERTS');
    expect(env).toMatchObject({
      PATH: '/usr/bin',
      FLEET_X: '1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });
    expect(host.NODE_EXTRA_CA_CERTS).toBe('/etc/ssl/certs/ca-certificates.crt');
  });
});
