/**
 * Runs a route table on either host and returns what the client would see: status, headers and body,
 * on the streaming host read back from the prelude the way the Lambda runtime frames it.
 */
import { createBufferedHandler, createStreamingHandler, type RouteTable } from '../../lib/services/http/handler';
import type { LambdaHttpEvent } from '../../lib/services/http/request';
import { httpResponseStreamFrom, RecordingStream } from './recording-stream';

export interface Reply {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type Host = (routes: RouteTable, event: LambdaHttpEvent) => Promise<Reply>;

export const HOSTS: readonly (readonly [string, Host])[] = [
  [
    'buffered',
    async (routes, event) => {
      const result = await createBufferedHandler(routes)(event);
      return { statusCode: result.statusCode, headers: result.headers, body: result.body };
    },
  ],
  [
    'streaming',
    async (routes, event) => {
      const stream = new RecordingStream();
      await createStreamingHandler(routes, {}, httpResponseStreamFrom)(event, stream);
      const reply = stream.reply();
      return { statusCode: reply.statusCode, headers: reply.headers, body: reply.body.toString('utf8') };
    },
  ],
];
