/**
 * What the router sends to the node's `POST /api/pull` (protocols §2.10; ARCHITECTURE.md §9.2): the client's
 * body with the model under `model` (Ollama's field; the client may have used the legacy `name`),
 * always `stream: true` (the router reads the progress itself, also for a client that asked for
 * `stream: false`), and the router's own fields (`node_id`, `metadata`, `user`, `fallback_models`)
 * removed. Everything else (`insecure`, and what newer Ollamas add) is forwarded as sent. Pure.
 */

const ROUTER_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'model',
  'stream',
  'node_id',
  'metadata',
  'user',
  'fallback_models',
]);

export function pullNodeBody(body: Readonly<Record<string, unknown>>, model: string): Record<string, unknown> {
  const forwarded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (!ROUTER_FIELDS.has(key) && value !== undefined && value !== null) forwarded[key] = value;
  }
  return { model, ...forwarded, stream: true };
}
