import { describe, expect, it } from '@jest/globals';
import { demoRequest, demoTrafficEnabled } from '../../../emulator/demo-traffic';

const ALL_ON = { imageGeneration: true, transcription: true };
const kinds = (count: number, options = ALL_ON) =>
  Array.from({ length: count }, (_, n) => demoRequest(n, options)).map((request) => request.path);

describe('demoRequest', () => {
  it('covers chat in three styles, embeddings, rerank, an image, a transcription and a 404 within a minute', () => {
    const paths = new Set(kinds(60));

    for (const path of [
      '/v1/chat/completions',
      '/v1/messages',
      '/api/chat',
      '/api/generate',
      '/v1/embeddings',
      '/v1/rerank',
      '/api/generate-image',
      '/api/transcribe',
    ])
      expect(paths).toContain(path);
    const missing = Array.from({ length: 60 }, (_, n) => demoRequest(n, ALL_ON)).filter(
      (request) =>
        !(request.body instanceof FormData) && (request.body as { model?: string }).model === 'no-such-model:7b',
    );
    expect(missing.length).toBeGreaterThanOrEqual(1);
    expect(missing.length).toBeLessThanOrEqual(3);
  });

  it('tags requests and gives some a num_ctx, so the Tags and Context views have data', () => {
    const bodies = Array.from({ length: 20 }, (_, n) => demoRequest(n, ALL_ON))
      .filter((request) => !(request.body instanceof FormData))
      .map((request) => request.body as { metadata?: { tags?: string[] }; options?: { num_ctx?: number } });

    expect(bodies.filter((body) => (body.metadata?.tags?.length ?? 0) > 0).length).toBeGreaterThan(5);
    expect(
      new Set(bodies.map((body) => body.options?.num_ctx).filter((ctx) => ctx !== undefined)).size,
    ).toBeGreaterThan(1);
  });

  it('sends no image or transcription when the demo has them switched off', () => {
    const paths = kinds(90, { imageGeneration: false, transcription: false });

    expect(paths).not.toContain('/api/generate-image');
    expect(paths).not.toContain('/api/transcribe');
  });
});

describe('demoTrafficEnabled', () => {
  it('is on unless FLEET_DEMO_TRAFFIC is false, and refuses anything else', () => {
    expect(demoTrafficEnabled({})).toBe(true);
    expect(demoTrafficEnabled({ FLEET_DEMO_TRAFFIC: 'true' })).toBe(true);
    expect(demoTrafficEnabled({ FLEET_DEMO_TRAFFIC: 'false' })).toBe(false);
    expect(() => demoTrafficEnabled({ FLEET_DEMO_TRAFFIC: 'off' })).toThrow('FLEET_DEMO_TRAFFIC must be true or false');
  });
});
