/**
 * Whether a fleet model can think (it lists Ollama's `thinking` capability on some node): translators
 * send `think` only to such models (Ollama answers 400 otherwise) and raise their output budget.
 */
import type { FleetSnapshot } from './node';

export function thinkingCapable(snapshot: FleetSnapshot, model: string): boolean {
  return (snapshot.placements.get(model) ?? []).some((placement) => placement.model?.capabilities.includes('thinking'));
}
