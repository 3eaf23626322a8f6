import { describe, expect, it } from '@jest/globals';
import { NotFoundError } from '../../../../lib/core/errors';
import type { NodeRecord } from '../../../../lib/core/fleet/node';
import {
  NO_ASR_MODEL_MESSAGE,
  rankTranscriptionModels,
  transcriptionRouting,
} from '../../../../lib/features/transcription/transcription-routing';
import { makeNodeRecord, snapshotOf, T0 } from '../../../helpers/factories';

interface AsrNode {
  readonly id: string;
  readonly models: readonly string[];
  readonly busy?: boolean;
  readonly lastSeenAt?: number;
  readonly draining?: boolean;
}

function asrNode(node: AsrNode): NodeRecord {
  return makeNodeRecord({
    id: node.id,
    source: 'agent',
    lastSeenAt: node.lastSeenAt ?? T0,
    draining: node.draining ?? false,
    sidecars: {
      transcription: {
        port: 11437,
        url: `http://${node.id}:11437`,
        models: node.models.map((name) => ({ name, kind: 'transcription', binary: 'mlx-qwen3-asr' })),
        busy: node.busy ?? false,
      },
    },
  });
}

describe('rankTranscriptionModels', () => {
  it('puts the model with the most idle nodes first', () => {
    const snapshot = snapshotOf([
      asrNode({ id: 'a', models: ['qwen3-asr', 'whisper-large'], busy: true }),
      asrNode({ id: 'b', models: ['whisper-large'] }),
      asrNode({ id: 'c', models: ['qwen3-asr'], busy: true }),
    ]);

    expect(rankTranscriptionModels(snapshot)).toEqual(['whisper-large', 'qwen3-asr']);
  });

  it('breaks a tie in idle nodes by the nodes that can take work, then by name', () => {
    const snapshot = snapshotOf([
      asrNode({ id: 'a', models: ['zeta-asr', 'alpha-asr', 'mid-asr'] }),
      asrNode({ id: 'b', models: ['zeta-asr'], busy: true }),
    ]);

    expect(rankTranscriptionModels(snapshot)).toEqual(['zeta-asr', 'alpha-asr', 'mid-asr']);
  });

  it('counts offline and draining nodes for nothing but still lists their models', () => {
    const snapshot = snapshotOf([
      asrNode({ id: 'gone', models: ['a-asr'], lastSeenAt: T0 - 60_000 }),
      asrNode({ id: 'leaving', models: ['a-asr'], draining: true }),
      asrNode({ id: 'here', models: ['b-asr'] }),
    ]);

    expect(rankTranscriptionModels(snapshot)).toEqual(['b-asr', 'a-asr']);
  });

  it('ignores the models of other sidecars and of Ollama', () => {
    const snapshot = snapshotOf([
      makeNodeRecord({
        id: 'studio',
        sidecars: {
          image: { port: 1, url: 'http://studio:1', models: [{ name: 'flux-dev', kind: 'image' }], busy: false },
        },
      }),
    ]);

    expect(rankTranscriptionModels(snapshot)).toEqual([]);
  });
});

describe('transcriptionRouting', () => {
  it('asks for the best ASR model with the others as fallbacks when the client named none', () => {
    const snapshot = snapshotOf([
      asrNode({ id: 'a', models: ['qwen3-asr'] }),
      asrNode({ id: 'b', models: ['qwen3-asr', 'whisper-large'] }),
    ]);

    expect(transcriptionRouting(snapshot, undefined)).toEqual({
      model: 'qwen3-asr',
      fallbackModels: ['whisper-large'],
      kind: 'transcription',
      needsVision: false,
    });
  });

  it("asks for the client's model alone when it named one", () => {
    const snapshot = snapshotOf([asrNode({ id: 'a', models: ['qwen3-asr', 'whisper-large'] })]);

    expect(transcriptionRouting(snapshot, 'whisper-large')).toEqual({
      model: 'whisper-large',
      fallbackModels: [],
      kind: 'transcription',
      needsVision: false,
    });
  });

  it('keeps models only offline nodes have, so the dispatcher can say they are offline', () => {
    const snapshot = snapshotOf([asrNode({ id: 'gone', models: ['qwen3-asr'], lastSeenAt: T0 - 60_000 })]);

    expect(transcriptionRouting(snapshot, undefined).model).toBe('qwen3-asr');
  });

  it('answers 404 with an install hint when no node has an ASR model, named or not', () => {
    const snapshot = snapshotOf([makeNodeRecord({ id: 'plain' })]);

    for (const model of [undefined, 'qwen3-asr']) {
      let caught: unknown;
      try {
        transcriptionRouting(snapshot, model);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(NotFoundError);
      expect((caught as NotFoundError).message).toBe(NO_ASR_MODEL_MESSAGE);
    }
    expect(NO_ASR_MODEL_MESSAGE).toMatch(/^no node has a speech-to-text model installed: .*mlx-qwen3-asr\[serve\]/);
  });
});
