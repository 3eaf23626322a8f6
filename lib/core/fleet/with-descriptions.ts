/**
 * Applies `/api/show` answers to a node record: the runtime's capabilities (and so the model's kind)
 * and trained context length replace what was inferred from the name, and its `details` fill in the
 * format, family and sizes a heartbeat did not carry (what the node itself reported wins). Asked once
 * per model: the answer is kept on the record, which later heartbeats carry forward. Pure.
 */
import type { ShowInfo } from './from-poll';
import { capabilitiesOrInferred, familyOf, kindFromCapabilities } from './model-kind';
import type { NodeModel, NodeRecord } from './node';

/** Names of the record's models whose capabilities are still guesses. */
export function undescribedModels(record: NodeRecord): string[] {
  return record.models.filter((model) => model.described !== true).map((model) => model.name);
}

/** The runtime's details under the node's own non-empty values. */
function filledDetails(own: Readonly<Record<string, unknown>>, shown: Readonly<Record<string, unknown>> | undefined) {
  if (shown === undefined) return own;
  const kept = Object.entries(own).filter(([, value]) => value !== '' && value !== undefined && value !== null);
  return { ...shown, ...Object.fromEntries(kept) };
}

export function withDescriptions(record: NodeRecord, shows: ReadonlyMap<string, ShowInfo>): NodeRecord {
  if (shows.size === 0) return record;
  const models = record.models.map((model): NodeModel => {
    const show = shows.get(model.name);
    if (show === undefined) return model;
    const capabilities = capabilitiesOrInferred(show.capabilities, model.name, familyOf(model.details));
    const contextLength = show.contextLength ?? model.contextLength;
    return {
      ...model,
      details: filledDetails(model.details, show.details),
      capabilities,
      kind: kindFromCapabilities(capabilities),
      ...(contextLength !== undefined ? { contextLength } : {}),
      described: true,
    };
  });
  return { ...record, models };
}
