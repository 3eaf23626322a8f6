/**
 * Ollama `done_reason` → the status of a finished Responses reply (protocols §2.3 → §4.2). A budget cut
 * (`length`) is `incomplete` with `incomplete_details: {reason: "max_output_tokens"}` and ends the
 * stream with `response.incomplete`, as OpenAI does; everything else — `stop`, the no-generation
 * `load`/`unload`, an absent or unknown reason — is `completed`. Pure.
 */
import type { ResponsesResponse } from '../../wire/responses';

export type FinishedStatus = 'completed' | 'incomplete';

export function mapResponsesStatus(doneReason: string | null | undefined): FinishedStatus {
  return doneReason === 'length' ? 'incomplete' : 'completed';
}

export function incompleteDetailsOf(status: ResponsesResponse['status']): ResponsesResponse['incomplete_details'] {
  return status === 'incomplete' ? { reason: 'max_output_tokens' } : null;
}
