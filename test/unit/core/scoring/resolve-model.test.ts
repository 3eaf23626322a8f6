import { describe, expect, it } from '@jest/globals';
import { NotFoundError } from '../../../../lib/core/errors';
import type { NodeModel } from '../../../../lib/core/fleet/node';
import { parameterBillions, type ResolveModelOptions, resolveModel } from '../../../../lib/core/scoring/resolve-model';
import { agentNode, makeLoadedModel, makeNodeModel, snapshotOf } from '../../../helpers/factories';

const chat = (name: string, parameterSize: string, capabilities = ['completion', 'tools']): NodeModel =>
  makeNodeModel({ name, capabilities, details: { family: 'qwen3', parameter_size: parameterSize } });

const fleet = snapshotOf([
  agentNode({
    id: 'big',
    models: [
      chat('qwen3:32b', '32.8B'),
      chat('qwen3:8b', '8.2B'),
      chat('llava:7b', '7B', ['completion', 'vision']),
      makeNodeModel({ name: 'nomic-embed-text', kind: 'embedding', capabilities: ['embedding'] }),
      chat('gemma3:1b', '1B', ['completion']),
    ],
    loaded: [makeLoadedModel({ name: 'qwen3:32b' }), makeLoadedModel({ name: 'qwen3:8b' })],
  }),
  agentNode({
    id: 'small',
    models: [chat('qwen3:8b', '8.2B'), chat('qwen3:0.6b', '600M')],
    loaded: [makeLoadedModel({ name: 'qwen3:8b' })],
  }),
]);

const options = (overrides: Partial<ResolveModelOptions> = {}): ResolveModelOptions => ({
  map: new Map(),
  autoRoute: true,
  tierKeywords: true,
  needsVision: false,
  needsTools: false,
  ...overrides,
});

describe('resolveModel', () => {
  it('takes an exact entry of the model map first', () => {
    const map = new Map([['claude-sonnet-4-5', 'qwen3:8b']]);
    expect(resolveModel('claude-sonnet-4-5', fleet, options({ map }))).toEqual({ model: 'qwen3:8b', via: 'map' });
  });

  it('passes through an id a node has, with or without :latest', () => {
    expect(resolveModel('qwen3:0.6b', fleet, options())).toEqual({ model: 'qwen3:0.6b', via: 'fleet' });
    const latest = snapshotOf([agentNode({ models: [chat('mistral:latest', '7B')] })]);
    expect(resolveModel('mistral', latest, options())).toEqual({ model: 'mistral', via: 'fleet' });
  });

  it('routes a haiku id to the smallest loaded chat model', () => {
    expect(resolveModel('claude-haiku-4-5', fleet, options())).toEqual({
      model: 'qwen3:8b',
      via: 'auto',
      tier: 'fast',
    });
  });

  it.each(['claude-sonnet-4-5', 'claude-opus-4-1', 'gpt-5-codex'])(
    'routes %s to the largest loaded chat model',
    (id) => {
      expect(resolveModel(id, fleet, options())).toEqual({ model: 'qwen3:32b', via: 'auto', tier: 'large' });
    },
  );

  it('ignores the tier keyword in the responses style', () => {
    expect(resolveModel('claude-haiku-4-5', fleet, options({ tierKeywords: false })).model).toBe('qwen3:32b');
  });

  it('routes a request with images only to a vision model, loaded or not', () => {
    expect(resolveModel('claude-sonnet-4-5', fleet, options({ needsVision: true })).model).toBe('llava:7b');
  });

  it('prefers models that declare tool use when the request has tools', () => {
    const mixed = snapshotOf([
      agentNode({
        models: [chat('big-no-tools:70b', '70B', ['completion']), chat('qwen3:8b', '8.2B')],
        loaded: [makeLoadedModel({ name: 'big-no-tools:70b' }), makeLoadedModel({ name: 'qwen3:8b' })],
      }),
    ]);
    expect(resolveModel('claude-opus-4-1', mixed, options({ needsTools: true })).model).toBe('qwen3:8b');
    expect(resolveModel('claude-opus-4-1', mixed, options()).model).toBe('big-no-tools:70b');
  });

  it('never chooses an embedding model, and uses models on disk when none is loaded', () => {
    const cold = snapshotOf([
      agentNode({
        models: [
          makeNodeModel({ name: 'nomic-embed-text', kind: 'embedding', capabilities: ['embedding'], size: 9e10 }),
          chat('qwen3:4b', '4B'),
        ],
        loaded: [],
      }),
    ]);
    expect(resolveModel('claude-opus-4-1', cold, options())).toEqual({ model: 'qwen3:4b', via: 'auto', tier: 'large' });
  });

  it('ignores offline nodes', () => {
    const offline = snapshotOf([agentNode({ lastSeenAt: 0, models: [chat('qwen3:8b', '8B')] })]);
    expect(() => resolveModel('claude-opus-4-1', offline, options())).toThrow(NotFoundError);
  });

  it("uses the map's default when nothing else resolves, then answers 404 naming the id", () => {
    const empty = snapshotOf([]);
    const map = new Map([['default', 'qwen3:32b']]);
    expect(resolveModel('claude-opus-4-1', empty, options({ map }))).toEqual({ model: 'qwen3:32b', via: 'default' });
    expect(() => resolveModel('claude-opus-4-1', empty, options())).toThrow("model 'claude-opus-4-1' not found");
    expect(() => resolveModel('claude-opus-4-1', fleet, options({ autoRoute: false }))).toThrow(
      'not in FLEET_MODEL_MAP',
    );
  });

  it('breaks ties by the number of nodes holding the model loaded, then by name', () => {
    const tied = snapshotOf([
      agentNode({
        id: 'a',
        models: [chat('b-model:8b', '8B'), chat('a-model:8b', '8B')],
        loaded: [makeLoadedModel({ name: 'b-model:8b' })],
      }),
      agentNode({
        id: 'b',
        models: [chat('b-model:8b', '8B'), chat('a-model:8b', '8B')],
        loaded: [makeLoadedModel({ name: 'b-model:8b' }), makeLoadedModel({ name: 'a-model:8b' })],
      }),
    ]);
    expect(resolveModel('claude-opus-4-1', tied, options()).model).toBe('b-model:8b');
  });
});

describe('parameterBillions', () => {
  it.each([
    ['8.2B', 8.2],
    ['567M', 0.567],
    ['1.5T', 1500],
  ])('reads %s', (text, billions) => {
    expect(parameterBillions({ details: { parameter_size: text }, size: 0 })).toBeCloseTo(billions);
  });

  it('estimates from the size on disk when the node did not say', () => {
    expect(parameterBillions({ details: {}, size: 4.8e9 })).toBeCloseTo(8);
  });
});
