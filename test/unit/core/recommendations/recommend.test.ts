import { describe, expect, it } from '@jest/globals';
import type { NodeRecord, NodeView } from '../../../../lib/core/fleet/node';
import { MODEL_CATALOG } from '../../../../lib/core/recommendations/catalog';
import { catalogEntry, categoryOf } from '../../../../lib/core/recommendations/model-category';
import {
  adviseNode,
  currentHolders,
  type Demand,
  type NodeAdvice,
  nodesToAdvise,
  RESERVE_GB,
  rankCategories,
  SINGLE_MODEL_SHARE,
} from '../../../../lib/core/recommendations/recommend';
import { recommendationsReport } from '../../../../lib/core/recommendations/recommendations-report';
import { makeLoadedModel, makeNodeModel, makeNodeRecord, T0, viewOf } from '../../../helpers/factories';

const NO_DEMAND: Demand = { byModel: new Map(), byNodeModel: new Map() };
const WINDOWS = { fleetStartMs: T0 - 86_400_000, nodeStartMs: T0 - 86_400_000, endMs: T0 };

function node(id: string, totalGb: number | undefined, overrides: Partial<NodeRecord> = {}): NodeView {
  return viewOf(
    makeNodeRecord({
      id,
      source: 'agent',
      models: [],
      loaded: [],
      ...(totalGb === undefined ? {} : { memory: { totalGb, usedGb: 0, availableGb: totalGb, pressure: 'normal' } }),
      disk: { totalGb: 2000, usedGb: 0, availableGb: 2000 },
      ...overrides,
    }),
  );
}

function onDisk(name: string, size = 5e9) {
  return makeNodeModel({ name, size, details: { family: 'x', parameter_size: '8B', quantization_level: 'Q4_K_M' } });
}

const report = (nodes: readonly NodeView[], demand: Demand = NO_DEMAND) =>
  recommendationsReport(nodes, demand, WINDOWS, T0);

const picks = (advice: NodeAdvice | undefined) => (advice?.recommendations ?? []).map((pick) => pick.model);

describe('the model catalog', () => {
  it('holds 30 to 50 distinct models, each with figures in range', () => {
    expect(MODEL_CATALOG.length).toBeGreaterThanOrEqual(30);
    expect(MODEL_CATALOG.length).toBeLessThanOrEqual(50);
    expect(new Set(MODEL_CATALOG.map((entry) => entry.name)).size).toBe(MODEL_CATALOG.length);
    for (const entry of MODEL_CATALOG) {
      expect({ name: entry.name, ramAboveDisk: entry.ram_gb > entry.disk_gb }).toEqual({
        name: entry.name,
        ramAboveDisk: true,
      });
      expect(entry.quality).toBeGreaterThanOrEqual(0);
      expect(entry.quality).toBeLessThanOrEqual(100);
    }
  });

  it("states a chat model's RAM by the header's rule: 15 % over the download + 0.75 GB, up to 0.5 GB", () => {
    const chat = MODEL_CATALOG.filter((entry) => entry.category !== 'embedding');

    const off = chat.filter((entry) => entry.ram_gb !== Math.ceil((entry.disk_gb * 1.15 + 0.75) * 2) / 2);

    expect(off.map((entry) => entry.name)).toEqual([]);
  });

  it('finds an entry by tag, by a quantisation of the tag and by the untagged name', () => {
    expect(catalogEntry('qwen3:8b')?.name).toBe('qwen3:8b');
    expect(catalogEntry('qwen3:8b-q8_0')?.name).toBe('qwen3:8b');
    expect(catalogEntry('qwen3')?.name).toBe('qwen3:8b');
    expect(catalogEntry('Qwen3:latest')?.name).toBe('qwen3:8b');
    expect(catalogEntry('qwen3:0.6b')).toBeUndefined();
  });

  it('gives a model the catalog lacks a category from its kind, capabilities and name', () => {
    expect(categoryOf('my-embedder:1', { kind: 'embedding' })).toBe('embedding');
    expect(categoryOf('somevlm:3b', { capabilities: ['completion', 'vision'] })).toBe('vision');
    expect(categoryOf('starcoder2:15b')).toBe('coding');
    expect(categoryOf('deepseek-r1:1.5b')).toBe('reasoning');
    expect(categoryOf('x/flux:1', { kind: 'image' })).toBeUndefined();
    expect(categoryOf('someone/house-model:7b')).toBe('general');
  });
});

describe('rankCategories', () => {
  it('ranks categories by demand, then the default order, embedding only when asked for', () => {
    expect(rankCategories(new Map())).toEqual(['general', 'coding', 'reasoning', 'vision', 'fast-chat']);
    expect(
      rankCategories(
        new Map([
          ['coding', 50],
          ['embedding', 20],
          ['general', 20],
        ]),
      ),
    ).toEqual(['coding', 'general', 'embedding', 'reasoning', 'vision', 'fast-chat']);
  });
});

describe('adviseNode', () => {
  it.each([16, 24, 32, 48, 64, 96, 128, 192, 512])(
    'fits a %i GB node: every new model under the cap, the sum under the usable memory',
    (totalGb) => {
      const [advice] = report([node('n', totalGb)]).nodes;

      const usable = totalGb - RESERVE_GB;
      expect(advice?.usable_ram_gb).toBe(usable);
      expect(advice?.single_model_cap_gb).toBe(usable * SINGLE_MODEL_SHARE);
      for (const pick of advice?.recommendations ?? []) expect(pick.ram_gb).toBeLessThanOrEqual(usable / 2);
      expect(advice?.total_recommended_ram_gb).toBeLessThanOrEqual(usable);
      expect(advice?.ram_headroom_gb).toBeCloseTo(usable - (advice?.total_recommended_ram_gb ?? 0), 5);
      const families = (advice?.recommendations ?? []).map((pick) => pick.family);
      expect(new Set(families).size).toBe(families.length);
    },
  );

  it('picks the best-quality model of each category that fits, in category order', () => {
    // 32 GB: 26 usable, 13 per model. General: Qwen 3 14B (11.5); coding: Qwen 2.5 Coder 14B (11.5);
    // 3 left: nothing for reasoning or vision; fast-chat: Llama 3.2 1B (2.5).
    const [advice] = report([node('n', 32)]).nodes;

    expect(advice?.recommendations.map((pick) => [pick.category, pick.model])).toEqual([
      ['general', 'qwen3:14b'],
      ['coding', 'qwen2.5-coder:14b'],
      ['fast-chat', 'llama3.2:1b'],
    ]);
    expect(advice?.recommendations.map((pick) => pick.priority)).toEqual(['high', 'medium', 'low']);
  });

  it('downloads only what fits the free disk, and a model on disk needs none', () => {
    const [advice] = report([
      node('n', 32, {
        disk: { totalGb: 500, usedGb: 490, availableGb: 10 },
        models: [onDisk('qwen2.5-coder:14b', 9e9)],
      }),
    ]).nodes;

    // General: Qwen 3 14B downloads 9.3 of the 10 GB free; coding is on disk already; fast-chat (2.5) no longer fits.
    expect(advice?.recommendations.map((pick) => [pick.model, pick.download_gb, pick.already_available])).toEqual([
      ['qwen3:14b', 9.3, false],
      ['qwen2.5-coder:14b', 0, true],
    ]);
    expect(advice?.download_gb).toBe(9.3);
  });

  it('says what is already on the node, and whether it is loaded', () => {
    const [advice] = report([
      node('n', 20, {
        models: [onDisk('qwen3:8b')],
        loaded: [makeLoadedModel({ name: 'qwen3:8b' })],
      }),
    ]).nodes;

    // 14 usable, 7 per model: Qwen 3 8B (7) is the best general model that fits, and the node has it.
    expect(advice?.recommendations[0]).toMatchObject({
      model: 'qwen3:8b',
      category: 'general',
      already_available: true,
      loaded: true,
      download_gb: 0,
    });
  });

  it("keeps the node's models in use, most used first, before adding any", () => {
    const demand: Demand = {
      byModel: new Map([
        ['house-model:latest', 30],
        ['qwen3:4b', 5],
      ]),
      byNodeModel: new Map([
        [
          'n',
          new Map([
            ['house-model:latest', 30],
            ['qwen3:4b', 5],
          ]),
        ],
      ]),
    };

    const [advice] = report(
      [node('n', 32, { models: [onDisk('qwen3:4b', 2.5e9), onDisk('house-model:latest', 4e9)] })],
      demand,
    ).nodes;

    expect(advice?.recommendations.slice(0, 2)).toEqual([
      expect.objectContaining({
        model: 'house-model:latest',
        category: 'general',
        ram_gb: 5.5,
        ram_estimated: true,
        priority: 'high',
        already_available: true,
        recent_requests: 30,
      }),
      expect.objectContaining({ model: 'qwen3:4b', category: 'fast-chat', priority: 'high', recent_requests: 5 }),
    ]);
    // General and fast-chat are covered by what is kept; no second qwen3 is added.
    const rest = advice?.recommendations.slice(2) ?? [];
    expect(rest.map((pick) => pick.category)).not.toContain('general');
    expect(rest.map((pick) => pick.family)).not.toContain('qwen3');
  });

  it('never recommends a second model of a family already on the node', () => {
    const demand: Demand = {
      byModel: new Map([['qwen3:14b', 3]]),
      byNodeModel: new Map([['n', new Map([['qwen3:14b', 3]])]]),
    };

    // 33 GB: 27 usable, 13.5 per model. Kept: Qwen 3 14B (11.5); coding: Qwen 2.5 Coder 14B (11.5); 4 left,
    // where fast-chat's best is Qwen 3 4B — a second qwen3 — so Phi-4 mini (4) comes instead.
    const [advice] = report([node('n', 33, { models: [onDisk('qwen3:14b', 9.3e9)] })], demand).nodes;

    expect(advice?.recommendations.filter((pick) => pick.family === 'qwen3').map((pick) => pick.model)).toEqual([
      'qwen3:14b',
    ]);
    expect(advice?.recommendations.find((pick) => pick.category === 'fast-chat')?.model).toBe('phi4-mini:3.8b');
  });

  it('orders categories by observed demand: the most asked-for category is filled first', () => {
    // 20 GB: 14 usable, 7 per model. Coding demand puts the coder first, then general, then nothing fits.
    const demand: Demand = { byModel: new Map([['qwen2.5-coder:7b', 50]]), byNodeModel: new Map() };

    const { nodes, usage } = report([node('n', 20)], demand);

    expect(nodes[0]?.recommendations.map((pick) => [pick.category, pick.model, pick.priority])).toEqual([
      ['coding', 'qwen2.5-coder:7b', 'high'],
      ['general', 'qwen3:8b', 'medium'],
    ]);
    expect(usage.category_breakdown).toEqual({ coding: 50 });
  });

  it('spreads: a model already on two other nodes gives way to the next best', () => {
    const nodes = [
      node('a', 64, { models: [onDisk('qwen3:32b', 20e9)] }),
      node('b', 64, { models: [onDisk('qwen3:32b', 20e9)] }),
      node('c', 64),
    ];

    const advice = report(nodes).nodes;

    // 58 usable, 29 per model: Qwen 3 32B is the best general model; a and b have it, c gets the next best.
    expect(advice.map((entry) => entry.recommendations.find((pick) => pick.category === 'general')?.model)).toEqual([
      'qwen3:32b',
      'qwen3:32b',
      'qwen2.5:32b',
    ]);
  });

  it("spreads over its own advice too: the third fresh node does not get the first two's pick", () => {
    const advice = report([node('a', 64), node('b', 64), node('c', 64)]).nodes;

    const general = advice.map((entry) => entry.recommendations.find((pick) => pick.category === 'general')?.model);
    expect(general.slice(0, 2)).toEqual(['qwen3:32b', 'qwen3:32b']);
    expect(general[2]).not.toBe('qwen3:32b');
  });

  it('gives a node whose memory is unknown no advice, and says why', () => {
    const [advice] = report([node('polled', undefined)]).nodes;

    expect(advice).toMatchObject({
      node_id: 'polled',
      total_ram_gb: null,
      usable_ram_gb: null,
      recommendations: [],
      note: expect.stringContaining('no memory'),
    });
  });

  it('advises the largest node first and leaves offline nodes out', () => {
    const nodes = [node('small', 16), node('big', 128), { ...node('gone', 256), status: 'offline' as const }];

    expect(nodesToAdvise(nodes).map((entry) => entry.id)).toEqual(['big', 'small']);
  });

  it('records its picks as holders, so later nodes see them', () => {
    const holders = currentHolders([]);
    const categories = rankCategories(new Map());

    adviseNode({ node: node('a', 64), demand: NO_DEMAND, categories, categoryDemand: new Map(), holders });

    expect(holders.get('qwen3:32b')).toEqual(new Set(['a']));
  });
});

describe('recommendationsReport', () => {
  it('names the categories asked for that no node can take, and who covers the others', () => {
    const demand: Demand = {
      byModel: new Map([
        ['llama3.2:3b', 4],
        ['gemma3:27b', 2],
      ]),
      byNodeModel: new Map(),
    };

    // 14 GB: 8 usable, 4 per model: a fast-chat model and a small coder fit, no vision model does.
    const result = report([node('n', 14)], demand);

    expect(result.usage.total_requests_24h).toBe(6);
    expect(result.usage.top_models).toEqual([
      { model: 'llama3.2:3b', requests: 4, category: 'fast-chat' },
      { model: 'gemma3:27b', requests: 2, category: 'vision' },
    ]);
    expect(picks(result.nodes[0])).toEqual(['qwen3:4b', 'qwen2.5-coder:1.5b']);
    expect(result.uncovered_categories).toEqual(['vision']);
    expect(result.usage.category_coverage).toEqual({ 'fast-chat': ['n'], coding: ['n'] });
    expect(result.fleet_summary).toContain('nothing fits for vision');
  });
});
