/**
 * The names the model sees for a Responses request's tools, and back (protocols §4.1–4.2). A tool
 * inside a `namespace` tool is offered under one flat name, `<namespace>__<name>`
 * (`multi_agent_v1__spawn_agent`): the delimiter Codex itself uses when a boundary cannot keep the
 * namespace apart (its `ToolName::canonical_flat_name`), made of characters every Ollama tool name
 * allows. The model's call is turned back into `{name, namespace}` through the index, never by
 * splitting the text, so a top-level tool whose name merely contains `__` stays as it is. Pure.
 */

/** What a name the model sees stands for. */
export interface ResponsesToolTarget {
  readonly name: string;
  /** The namespace tool it belongs to; absent for a top-level tool. */
  readonly namespace?: string;
  /**
   * What the call becomes: a `function_call`; a `custom_tool_call` with the text of the one `input`
   * argument; a `local_shell_call` with the `command` as its `exec` action.
   */
  readonly kind: 'function' | 'custom' | 'local_shell';
}

/** Flat model-facing name → the client's tool. */
export type ResponsesToolIndex = ReadonlyMap<string, ResponsesToolTarget>;

export const NAMESPACE_DELIMITER = '__';

/** The name the model sees for `name` in `namespace` (or for a top-level tool). */
export function modelToolName(namespace: string | null | undefined, name: string): string {
  return namespace === undefined || namespace === null || namespace === ''
    ? name
    : `${namespace}${NAMESPACE_DELIMITER}${name}`;
}

/** The client's tool for a name the model used; a name the request did not declare stays a plain function. */
export function clientToolOf(index: ResponsesToolIndex, modelName: string): ResponsesToolTarget {
  return index.get(modelName) ?? { name: modelName, kind: 'function' };
}
