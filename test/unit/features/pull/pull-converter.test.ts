/**
 * `relayPull` (the pull converter driven by the one relay, or read whole) over scripted node replies, on
 * both sinks: lines relayed as they come and byte for byte, the node's error line passed through, every
 * other failure after the first byte an in-band error line, `stream: false` answered once, and the
 * success hook run before the client hears `success`.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { RouterError } from '../../../../lib/core/errors';
import { type PullRelayInput, relayPull } from '../../../../lib/features/pull/pull-converter';
import { createBufferedSink, createStreamingSink } from '../../../../lib/services/http/response-sink';
import type { NodeReply } from '../../../../lib/services/node-client/node-stream';
import { RecordingStream } from '../../../helpers/recording-stream';

const MANIFEST = '{"status":"pulling manifest"}';
const LAYER_START = '{"status":"pulling 2ae6f6dd7a3d","digest":"sha256:2ae6f6dd7a3d","total":4109853248}';
const LAYER_HALF =
  '{"status":"pulling 2ae6f6dd7a3d","digest":"sha256:2ae6f6dd7a3d","total":4109853248,"completed":2054926624}';
const SMALL_LAYER = '{"status":"pulling 966de95ca8a6","digest":"sha256:966de95ca8a6","total":1429,"completed":1429}';
const VERIFY = '{"status":"verifying sha256 digest"}';
const SUCCESS = '{"status":"success"}';
const FULL = [MANIFEST, LAYER_START, LAYER_HALF, SMALL_LAYER, VERIFY, SUCCESS];

interface ScriptedReply extends NodeReply {
  readonly cancelled: () => boolean;
}

/** A node reply whose body yields `chunks` in order; an `Error` entry makes the body throw there. */
function replyOf(chunks: readonly (string | Error | Promise<void>)[]): ScriptedReply {
  let cancelled = false;
  async function* body(): AsyncGenerator<Uint8Array> {
    for (const chunk of chunks) {
      if (chunk instanceof Error) throw chunk;
      if (chunk instanceof Promise) await chunk;
      else yield Buffer.from(chunk);
    }
  }
  return {
    status: 200,
    headers: {},
    body: body(),
    cancel: () => {
      cancelled = true;
    },
    cancelled: () => cancelled,
  };
}

/** A promise the test resolves when it chooses: the node holding back its next chunk. */
function gate(): { readonly held: Promise<void>; release(): void } {
  let open: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { held, release: () => open() };
}

const lines = (...values: string[]) => values.map((value) => `${value}\n`);

function streamingSink() {
  const stream = new RecordingStream();
  return { stream, sink: createStreamingSink(stream) };
}

function input(reply: NodeReply, sink: PullRelayInput['response'], overrides: Partial<PullRelayInput> = {}) {
  return {
    reply,
    response: sink,
    nodeId: 'gpu1',
    streaming: true,
    headers: { 'x-fleet-node': 'gpu1' },
    onSuccess: async () => undefined,
    releaseLock: async () => undefined,
    ...overrides,
  };
}

describe('relayPull', () => {
  describe('streaming', () => {
    it('relays every progress line byte for byte, one write per line, and completes on success', async () => {
      const { stream, sink } = streamingSink();

      const outcome = await relayPull(input(replyOf(lines(...FULL)), sink));

      expect(outcome).toEqual({ status: 'completed' });
      expect(stream.text()).toBe(lines(...FULL).join(''));
      expect(stream.chunks.map((chunk) => chunk.toString())).toEqual(lines(...FULL));
    });

    it('sends the status line with the NDJSON type and X-Fleet-Node', async () => {
      const { sink, result } = createBufferedSink();

      await relayPull(input(replyOf(lines(...FULL)), sink));

      expect(result().statusCode).toBe(200);
      expect(result().headers).toEqual({ 'x-fleet-node': 'gpu1', 'content-type': 'application/x-ndjson' });
    });

    it('writes a line as soon as it arrives, before the node sends the next', async () => {
      const { stream, sink } = streamingSink();
      const { held, release } = gate();
      const relay = relayPull(input(replyOf([`${MANIFEST}\n`, held, `${SUCCESS}\n`]), sink));

      await new Promise((resolve) => setTimeout(resolve, 20));
      const early = stream.text();
      release();
      await relay;

      expect(early).toBe(`${MANIFEST}\n`);
    });

    it('gives the same bytes however the node cut its chunks', async () => {
      const whole = lines(...FULL).join('');
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.integer({ min: 1, max: whole.length - 1 }), { maxLength: 12 }),
          async (cuts) => {
            const points = [0, ...[...cuts].sort((a, b) => a - b), whole.length];
            const chunks = points.slice(1).map((end, index) => whole.slice(points[index], end));
            const { stream, sink } = streamingSink();

            const outcome = await relayPull(input(replyOf(chunks), sink));

            expect(outcome.status).toBe('completed');
            expect(stream.text()).toBe(whole);
          },
        ),
        { numRuns: 60 },
      );
    });

    it('gives the lock back before the client hears the end, so a pull again at once is not refused', async () => {
      const { stream, sink } = streamingSink();
      let seenAtRelease: string | undefined;
      let endedAtRelease: boolean | undefined;

      await relayPull(
        input(replyOf(lines(...FULL)), sink, {
          releaseLock: async () => {
            seenAtRelease = stream.text();
            endedAtRelease = stream.writableEnded;
          },
        }),
      );

      // Freed before the client hears success: whatever it does next, the lock is no longer there.
      expect(seenAtRelease).toBe(lines(...FULL.slice(0, -1)).join(''));
      expect(endedAtRelease).toBe(false);
      expect(stream.text()).toBe(lines(...FULL).join(''));
    });

    it("runs the success hook before the client hears success, with the layers' bytes", async () => {
      const { stream, sink } = streamingSink();
      let seenAtHook = '';
      let bytes = 0;

      await relayPull(
        input(replyOf(lines(...FULL)), sink, {
          onSuccess: async (layerBytes) => {
            seenAtHook = stream.text();
            bytes = layerBytes;
          },
        }),
      );

      expect(seenAtHook).toBe(lines(...FULL.slice(0, -1)).join(''));
      expect(bytes).toBe(4109853248 + 1429);
    });

    it("passes the node's error line through and ends there", async () => {
      const { stream, sink } = streamingSink();
      const error = '{"error":"pull model manifest: file does not exist"}';
      let hooked = false;

      const outcome = await relayPull(
        input(replyOf(lines(MANIFEST, error)), sink, {
          onSuccess: async () => {
            hooked = true;
          },
        }),
      );

      expect(stream.text()).toBe(lines(MANIFEST, error).join(''));
      expect(outcome).toEqual({ status: 'failed', error: 'pull model manifest: file does not exist' });
      expect(hooked).toBe(false);
    });

    it('ends a connection that breaks mid-stream with an in-band error line', async () => {
      const { stream, sink } = streamingSink();

      const outcome = await relayPull(
        input(
          replyOf([
            ...lines(MANIFEST, LAYER_START),
            Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
          ]),
          sink,
        ),
      );

      const written = stream.text().trimEnd().split('\n');
      expect(written.slice(0, 2)).toEqual([MANIFEST, LAYER_START]);
      expect(JSON.parse(written[2] ?? '')).toEqual({
        error: "the pull on node 'gpu1' broke off",
      });
      expect(outcome.status).toBe('incomplete');
    });

    it('ends a stream that stops without success with an in-band error line, never silently', async () => {
      const { stream, sink } = streamingSink();

      const outcome = await relayPull(input(replyOf(lines(MANIFEST, LAYER_START, VERIFY)), sink));

      const last = stream.text().trimEnd().split('\n').pop() ?? '';
      expect(JSON.parse(last)).toEqual({ error: "node 'gpu1' ended the pull stream before success" });
      expect(outcome).toEqual({ status: 'incomplete', error: "node 'gpu1' ended the pull stream before success" });
    });

    it('turns an unreadable node line into an in-band error instead of skipping it', async () => {
      const { stream, sink } = streamingSink();

      const outcome = await relayPull(input(replyOf(lines(MANIFEST, '{"status":"pulling', SUCCESS)), sink));

      const written = stream.text().trimEnd().split('\n');
      expect(written).toHaveLength(2);
      expect(JSON.parse(written[1] ?? '')).toMatchObject({
        error: expect.stringMatching(/^node 'gpu1' sent an unreadable pull line: /),
      });
      expect(outcome.status).toBe('incomplete');
    });

    it('stops reading when the client leaves', async () => {
      const { stream, sink } = streamingSink();
      const { held, release } = gate();
      const reply = replyOf([`${MANIFEST}\n`, held, `${LAYER_START}\n`, `${SUCCESS}\n`]);
      const relay = relayPull(input(reply, sink));

      await new Promise((resolve) => setTimeout(resolve, 10));
      stream.destroy();
      await new Promise((resolve) => setImmediate(resolve));
      release();
      const outcome = await relay;

      expect(outcome).toEqual({ status: 'client_disconnected' });
      expect(stream.text()).toBe(`${MANIFEST}\n`);
    });
  });

  describe('stream: false', () => {
    it('answers {"status":"success"} once the node succeeded', async () => {
      const { sink, result } = createBufferedSink();

      const outcome = await relayPull(input(replyOf(lines(...FULL)), sink, { streaming: false }));

      expect(outcome).toEqual({ status: 'completed' });
      expect(JSON.parse(result().body)).toEqual({ status: 'success' });
      expect(result().headers).toMatchObject({
        'x-fleet-node': 'gpu1',
        'content-type': expect.stringContaining('json'),
      });
    });

    it('gives the lock back before it answers', async () => {
      const { sink, result } = createBufferedSink();
      let answeredAtRelease: string | undefined;

      await relayPull(
        input(replyOf(lines(...FULL)), sink, {
          streaming: false,
          releaseLock: async () => {
            answeredAtRelease = result().body;
          },
        }),
      );

      expect(answeredAtRelease).toBe('');
      expect(JSON.parse(result().body)).toEqual({ status: 'success' });
    });

    it("throws the node's error as a 502 before anything is written", async () => {
      const { sink } = createBufferedSink();

      const relay = relayPull(
        input(replyOf(lines(MANIFEST, '{"error":"pull model manifest: file does not exist"}')), sink, {
          streaming: false,
        }),
      );

      await expect(relay).rejects.toBeInstanceOf(RouterError);
      await expect(relay).rejects.toMatchObject({ status: 502, message: 'pull model manifest: file does not exist' });
      expect(sink.started).toBe(false);
    });

    it('throws a stream that ends early as a 502', async () => {
      const { sink } = createBufferedSink();

      const relay = relayPull(input(replyOf(lines(MANIFEST)), sink, { streaming: false }));

      await expect(relay).rejects.toMatchObject({ status: 502 });
      expect(sink.started).toBe(false);
    });
  });
});
