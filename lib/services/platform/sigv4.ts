/**
 * AWS Signature Version 4 for one JSON POST to an AWS service's root path: what reading the settings kept
 * in SSM needs (./ssm-settings), in a few lines of node:crypto. The SDK's signer would bring ~140 KB of
 * @smithy packages into every bundle for this one request; the unit test checks these signatures against
 * it.
 */
import { createHash, createHmac } from 'node:crypto';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Set for temporary credentials (a Lambda function's role). */
  readonly sessionToken?: string | undefined;
}

export interface SignedPost {
  readonly url: URL;
  /** The headers to send, `authorization` included. */
  readonly headers: Record<string, string>;
}

const sha256Hex = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** `20261126T081500Z` and `20261126` for a time. */
function amzDates(time: Date): { stamp: string; day: string } {
  const stamp = time
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return { stamp, day: stamp.slice(0, 8) };
}

/** Signs `POST <endpoint>/` with `body` and the given headers (names in lower case) for `service` in `region`. */
export function signPost(
  endpoint: URL,
  body: string,
  headers: Readonly<Record<string, string>>,
  scope: { readonly region: string; readonly service: string },
  credentials: AwsCredentials,
  time: Date,
): SignedPost {
  const { stamp, day } = amzDates(time);
  const all: Record<string, string> = { ...headers, host: endpoint.host, 'x-amz-date': stamp };
  if (credentials.sessionToken !== undefined) all['x-amz-security-token'] = credentials.sessionToken;
  const names = Object.keys(all).sort();
  const canonicalHeaders = names.map((name) => `${name}:${String(all[name]).trim()}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = ['POST', '/', '', canonicalHeaders, signedHeaders, sha256Hex(body)].join('\n');
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', stamp, credentialScope, sha256Hex(canonicalRequest)].join('\n');
  const key = hmac(
    hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), scope.region), scope.service),
    'aws4_request',
  );
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  all['authorization'] =
    `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, ` +
    `SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { url: new URL('/', endpoint), headers: all };
}
