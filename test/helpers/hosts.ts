/** Runs a route table on either host and returns what the client would see (status only when buffered). */
import { createBufferedHandler, createStreamingHandler, type RouteTable } from '../../lib/services/http/handler';
import type { LambdaHttpEvent } from '../../lib/services/http/request';
import { RecordingStream } from './recording-stream';

export interface Reply {
  /** Undefined on the streaming host, where the status goes out in the prelude. */
  readonly statusCode: number | undefined;
  readonly body: string;
}

export type Host = (routes: RouteTable, event: LambdaHttpEvent) => Promise<Reply>;

export const HOSTS: readonly (readonly [string, Host])[] = [
  [
    'buffered',
    async (routes, event) => {
      const result = await createBufferedHandler(routes)(event);
      return { statusCode: result.statusCode, body: result.body };
    },
  ],
  [
    'streaming',
    async (routes, event) => {
      const stream = new RecordingStream();
      await createStreamingHandler(routes)(event, stream);
      return { statusCode: undefined, body: stream.text() };
    },
  ],
];
