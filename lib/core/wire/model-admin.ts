/**
 * Ollama's model-admin requests on the wire (issue 20 item 11; Ollama's `DeleteRequest`, `CopyRequest`,
 * `CreateRequest`, `PushRequest`): what clients send — `DELETE /api/delete` `{model}` or the legacy
 * `{name}` (Open WebUI and ollama-js send either), `POST /api/copy` `{source, destination}`, and the
 * router's own `node_id` — loose, so what else a client sends does no harm. Pure.
 */
import * as z from './zod';

/** Lazy (built on first parse): the route passes it to `readJsonBody` as a value. */
export const deleteRequestSchema = z.lazy(() =>
  z.looseObject({
    model: z.nullish(z.string()),
    name: z.nullish(z.string()),
    node_id: z.nullish(z.string()),
  }),
);

export type DeleteRequest = z.infer<typeof deleteRequestSchema>;

export const copyRequestSchema = z.lazy(() =>
  z.looseObject({
    source: z.nullish(z.string()),
    destination: z.nullish(z.string()),
    node_id: z.nullish(z.string()),
  }),
);

export type CopyRequest = z.infer<typeof copyRequestSchema>;

/** `/api/create` and `/api/push`: only the names are read, to say where the model is. */
export const namedModelRequestSchema = z.lazy(() =>
  z.looseObject({
    model: z.nullish(z.string()),
    name: z.nullish(z.string()),
    from: z.nullish(z.string()),
  }),
);

export type NamedModelRequest = z.infer<typeof namedModelRequestSchema>;
