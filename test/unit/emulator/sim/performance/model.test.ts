import { describe, expect, it } from '@jest/globals';
import { HARDWARE_CLASSES, type HardwareSpec, performanceModel, resolveHardware } from '../../../../../emulator/sim';
import { parseCompletion } from '../../../../../emulator/sim/ollama-request';
import { batchedDecodeTotal, requestRates } from '../../../../../emulator/sim/performance/batching';
import { modelRates } from '../../../../../emulator/sim/performance/model';
import {
  accountPrompt,
  createSlots,
  findBestCacheSlot,
  findLongestCacheSlot,
} from '../../../../../emulator/sim/performance/prompt-cache';
import { entryOf } from './harness';

/** LLaMA-2 7B Q4_0, the model llama.cpp's published tables were measured on. */
const reference = { ...entryOf('qwen3:8b'), name: 'llama-2-7b-q4_0', size: 3.82e9, parameterCount: 6.74e9 };

describe('hardware classes', () => {
  it.each([
    ['rtx-4090', 186.21, 11992.7],
    ['rtx-3090', 158.16, 5174.69],
    ['a100-80g', 190.88, 4849.53],
    ['m2-ultra', 94.27, 1238.48],
    ['m4-pro', 50.74, 439.78],
  ])('%s reproduces its published tg128 and pp512 on the reference model', (name, tg128, pp512) => {
    const rates = modelRates(resolveHardware(name), reference, 1);
    expect(rates.decodeTokensPerSecond / tg128).toBeCloseTo(1, 2);
    expect(rates.prefillTokensPerSecond / pp512).toBeCloseTo(1, 2);
  });

  it('makes decode bandwidth bound and prefill compute bound', () => {
    const small = modelRates(HARDWARE_CLASSES['rtx-4090'] as HardwareSpec, entryOf('llama3.2:3b'), 1);
    const large = modelRates(HARDWARE_CLASSES['rtx-4090'] as HardwareSpec, entryOf('qwen2.5:32b'), 1);
    expect(small.decodeTokensPerSecond / large.decodeTokensPerSecond).toBeCloseTo(
      entryOf('qwen2.5:32b').size / entryOf('llama3.2:3b').size,
      6,
    );
    expect(small.prefillTokensPerSecond).toBeGreaterThan(1000);
    const mac = modelRates(HARDWARE_CLASSES['m4-pro'] as HardwareSpec, entryOf('qwen3:8b'), 1);
    expect(mac.prefillTokensPerSecond).toBeGreaterThan(100);
    expect(mac.prefillTokensPerSecond).toBeLessThan(1500);
  });

  it('takes longer to load a larger model', () => {
    const spec = resolveHardware('m2-ultra');
    expect(modelRates(spec, entryOf('qwen2.5:32b'), 1).loadMs).toBeGreaterThan(
      modelRates(spec, entryOf('llama3.2:3b'), 1).loadMs,
    );
  });

  it('scales prefill and decode with speed, not the load', () => {
    const one = modelRates(resolveHardware('cpu'), entryOf('qwen3:8b'), 1);
    const four = modelRates(resolveHardware('cpu'), entryOf('qwen3:8b'), 4);
    expect(four.decodeTokensPerSecond).toBeCloseTo(4 * one.decodeTokensPerSecond, 6);
    expect(four.prefillTokensPerSecond).toBeCloseTo(4 * one.prefillTokensPerSecond, 6);
    expect(four.loadMs).toBe(one.loadMs);
  });

  it('takes an explicit spec and a memory override, and rejects an unknown class or a bad option', () => {
    const spec: HardwareSpec = { name: 'lab', memoryGb: 16, memoryBandwidthGbps: 200, prefillTflops: 5, loadGbps: 2 };
    const model = performanceModel({ hardware: spec, memoryGb: 12 }, [entryOf('qwen3:8b')], 2);
    expect(model).toMatchObject({
      hardware: { name: 'lab', memoryGb: 12 },
      memoryBytes: 12 * 1024 ** 3,
      numParallel: 2,
    });
    expect(model.decodeEfficiency).toBe(0.6);
    expect(() => resolveHardware('tpu')).toThrow(/unknown hardware class 'tpu'/);
    expect(() => performanceModel({ hardware: 'cpu', speed: 0 }, [], 1)).toThrow(/speed/);
  });
});

describe('batching curve', () => {
  it('raises the total and lowers each stream as streams are added', () => {
    const totals = [1, 2, 4, 8].map((n) => batchedDecodeTotal(100, n, 0.12));
    expect(totals[0]).toBe(100);
    for (let i = 1; i < totals.length; i++) {
      expect(totals[i]).toBeGreaterThan(totals[i - 1] ?? 0);
      expect((totals[i] ?? 0) / 2 ** i).toBeLessThan((totals[i - 1] ?? 0) / 2 ** (i - 1));
    }
  });

  it('shares a prefill chunk among newcomers and holds decoders to one token a chunk', () => {
    const speeds = { prefill: 1000, decode: 50, beta: 0.1 };
    expect(requestRates({ prefilling: 1, decoding: 0 }, speeds, 1).prefill).toBeCloseTo(1000, 6);
    expect(requestRates({ prefilling: 2, decoding: 0 }, speeds, 1).prefill).toBeCloseTo(500, 6);
    const mixed = requestRates({ prefilling: 1, decoding: 2 }, speeds, 1);
    expect(mixed.decode).toBeCloseTo(1000 / 512, 6);
    expect(requestRates({ prefilling: 0, decoding: 1 }, speeds, 2).decode).toBeCloseTo(25, 6);
  });
});

describe('prompt cache slots', () => {
  it('picks the free slot with the longest common prefix, the first on a tie', () => {
    const slots = createSlots(3);
    Object.assign(slots[0] ?? {}, { text: 'abc', inUse: false });
    Object.assign(slots[1] ?? {}, { text: 'abcdef', inUse: true });
    Object.assign(slots[2] ?? {}, { text: 'abcd', inUse: false });
    expect(findLongestCacheSlot(slots, 'abcdefgh')).toEqual({ index: 2, prefixChars: 4 });
    expect(findLongestCacheSlot(createSlots(2), 'x')).toEqual({ index: 0, prefixChars: 0 });
  });

  it('with OLLAMA_MULTIUSER_CACHE, gives a conversation its own slot back and a new prompt the least recently used', () => {
    const slots = createSlots(3);
    Object.assign(slots[0] ?? {}, { text: 'sys: alice hi', inUse: false, lastUsed: 30 });
    Object.assign(slots[1] ?? {}, { text: 'sys: bob yo', inUse: false, lastUsed: 10 });
    Object.assign(slots[2] ?? {}, { text: 'sys: carol', inUse: true, lastUsed: 5 });
    // Alice's next turn starts with all her slot holds: that slot.
    expect(findBestCacheSlot(slots, 'sys: alice hi there')).toEqual({ index: 0, prefixChars: 13 });
    // Dave is new: the least recently used free slot (Bob's), with the shared prefix copied in; the first
    // free slot (Alice's) is what findLongestCacheSlot would have overwritten.
    expect(findBestCacheSlot(slots, 'sys: dave')).toEqual({ index: 1, prefixChars: 5 });
    expect(findLongestCacheSlot(slots, 'sys: dave')).toEqual({ index: 0, prefixChars: 5 });
    for (const slot of slots) slot.inUse = true;
    expect(findBestCacheSlot(slots, 'sys: alice hi there')).toBeUndefined();
  });

  it('counts cached tokens down and prompt tokens up, and evaluates at least one', () => {
    expect(accountPrompt('a'.repeat(10), 7, 4096)).toEqual({ promptTokens: 3, cachedTokens: 1, evaluatedTokens: 2 });
    expect(accountPrompt('a'.repeat(8), 8, 4096)).toEqual({ promptTokens: 2, cachedTokens: 1, evaluatedTokens: 1 });
    expect(accountPrompt('a'.repeat(100), 0, 10)).toEqual({ promptTokens: 10, cachedTokens: 0, evaluatedTokens: 10 });
  });
});

describe('rendered chat prompt', () => {
  it('renders a conversation as a prefix of its continuation, the answer as the next turn shows it', () => {
    const find = () => entryOf('qwen3:8b');
    const turns = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Echo: Hi.' },
      { role: 'user', content: 'More' },
    ];
    const render = (count: number) => {
      const request = parseCompletion('chat', { model: 'qwen3:8b', messages: turns.slice(0, count) }, find);
      if ('status' in request) throw new Error(request.error);
      return request.promptText;
    };
    expect(render(4).startsWith(render(2))).toBe(true);
    expect(render(4).startsWith(`${render(2)}\nEcho: Hi.`)).toBe(true);
  });
});
