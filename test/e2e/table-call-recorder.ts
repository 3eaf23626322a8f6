/**
 * A recording proxy in front of a DynamoDB stand-in, for checking what each function really asks of the
 * table: a function whose FLEET_DYNAMODB_ENDPOINT is `<recorder url>/<name>` has every call recorded under
 * that name (the SDK keeps an endpoint's path on its POSTs) with its action (`X-Amz-Target`) and whether it
 * reads the `gsi1` index (`IndexName`), then forwarded, prefix stripped, to the stand-in unchanged.
 */
import { createServer, request } from 'node:http';

export interface TableCall {
  /** The endpoint's first path segment: the function the call came from. */
  readonly caller: string;
  /** `Query`, `PutItem`, … (`X-Amz-Target: DynamoDB_20120810.<Action>`). */
  readonly action: string;
  /** The index a Query names, if any. */
  readonly index: string | undefined;
}

export interface TableCallRecorder {
  /** `http://127.0.0.1:<port>`; append `/<caller>` for a caller's endpoint. */
  readonly url: string;
  readonly calls: readonly TableCall[];
  close(): Promise<void>;
}

const TARGET = /^DynamoDB_\d+\.(\w+)$/;

export async function startTableCallRecorder(upstream: string): Promise<TableCallRecorder> {
  const target = new URL(upstream);
  const calls: TableCall[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const caller = (req.url ?? '/').split('/')[1] ?? '';
      const action = TARGET.exec(String(req.headers['x-amz-target'] ?? ''))?.[1] ?? '?';
      let index: string | undefined;
      try {
        index = (JSON.parse(body.toString('utf8')) as { IndexName?: string }).IndexName;
      } catch {
        index = undefined;
      }
      calls.push({ caller, action, index });
      const forwarded = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: '/',
          headers: { ...req.headers, host: target.host, 'content-length': String(body.length) },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on('error', (error) => {
        res.writeHead(502);
        res.end(String(error));
      });
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    calls,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
