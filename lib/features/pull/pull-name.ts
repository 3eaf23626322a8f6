/**
 * The name a model pull is known by (spec §4.4 `POST /api/pull`): the client's `name`, else its alias
 * `model`, trimmed; and the canonical form locks use, so `Llama3`, `llama3` and `llama3:latest` are one
 * pull, as Ollama resolves them (untagged = `:latest`, names compared without case). Pure.
 */
import { BadRequestError } from '../../core/errors';
import { hasTag } from '../../core/fleet/snapshot';

export const MISSING_NAME_MESSAGE = "model name required (use 'name' or 'model' field)";

/** `name`, else `model`, trimmed; 400 when both are absent or blank. */
export function pullNameOf(body: {
  readonly name?: string | null | undefined;
  readonly model?: string | null | undefined;
}): string {
  const name = [body.name, body.model]
    .map((value) => value?.trim())
    .find((value): value is string => value !== undefined && value !== '');
  if (name === undefined) throw new BadRequestError(MISSING_NAME_MESSAGE, 'name');
  return name;
}

/** `llama3` → `llama3:latest`; lower case. What the pull lock is keyed by. */
export function canonicalPullName(name: string): string {
  const lower = name.trim().toLowerCase();
  return hasTag(lower) ? lower : `${lower}:latest`;
}
