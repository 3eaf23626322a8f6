/**
 * The names a model-admin call reads and sends (issue 20 item 11): the client's first non-blank field,
 * and the name a node itself lists the model under. Pure.
 */
import type { NodeView } from '../../core/fleet/node';
import { modelNameKeys } from '../../core/fleet/snapshot';

/** The first of `values` that is a non-blank string, trimmed. */
export function firstNonBlank(...values: readonly (string | null | undefined)[]): string | undefined {
  return values.map((value) => value?.trim()).find((value): value is string => value !== undefined && value !== '');
}

/** The name the node itself lists the model under (`foo` may be `foo:latest` there). */
export function nameOnNode(node: NodeView, name: string): string {
  const keys = new Set(modelNameKeys(name));
  return node.models.find((model) => keys.has(model.name))?.name ?? name;
}
