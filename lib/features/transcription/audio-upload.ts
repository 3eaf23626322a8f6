/**
 * The speech-to-text upload (spec §4.5 `POST /api/transcribe`): a `multipart/form-data` body with one
 * file in the field `audio`, and optional text fields — `model` (the ASR model to use), `user` (a tag,
 * spec §4.1) and any others (`language`, …), which are forwarded to the node as they came
 * (ARCHITECTURE.md §9.2: unknown fields are forwarded, the router's own are not). Everything wrong with
 * the upload is a 400 naming what is wrong.
 */
import { BadRequestError } from '../../core/errors';
import { type FormField, type FormFile, readMultipartForm } from '../../services/http/multipart';
import type { HttpRequest } from '../../services/http/request';
import { checkName, MAX_NAME_BYTES } from '../../services/http/request-bounds';

export interface AudioUpload {
  readonly audio: FormFile;
  /** The `model` field, when the client named one. */
  readonly model?: string;
  /** The `user` field, for the request's tags. */
  readonly user?: string;
  /** The other text fields, forwarded to the sidecar. */
  readonly fields: readonly FormField[];
}

/** The file field the speech-to-text sidecars read (ARCHITECTURE.md §8.3). */
export const AUDIO_FIELD = 'audio';

/** Fields the router reads itself and does not forward (`model` is sent as the node names the model). */
const ROUTER_FIELDS: ReadonlySet<string> = new Set([AUDIO_FIELD, 'model', 'user']);

function singleField(fields: readonly FormField[], name: string): string | undefined {
  const matching = fields.filter((field) => field.name === name);
  if (matching.length > 1) throw new BadRequestError(`form field ${name} is given more than once`, name);
  const value = matching[0]?.value.trim();
  if (value === '') throw new BadRequestError(`form field ${name} is empty`, name);
  return value;
}

/** Reads and checks the upload; 400 when it is not one non-empty `audio` file. */
export async function readAudioUpload(request: HttpRequest): Promise<AudioUpload> {
  const form = await readMultipartForm(request.body, request.header('content-type'), { maxFiles: 1 });
  const audio = form.files[0];
  if (audio === undefined) {
    const asText = form.fields.some((field) => field.name === AUDIO_FIELD);
    throw new BadRequestError(
      asText
        ? `form field ${AUDIO_FIELD} must be a file upload (send it with a filename, e.g. curl -F ${AUDIO_FIELD}=@speech.wav)`
        : `no audio file: send the audio as the multipart file field "${AUDIO_FIELD}" (curl -F ${AUDIO_FIELD}=@speech.wav)`,
      AUDIO_FIELD,
    );
  }
  if (audio.field !== AUDIO_FIELD) {
    throw new BadRequestError(`the file must be in the form field "${AUDIO_FIELD}", not "${audio.field}"`, AUDIO_FIELD);
  }
  if (audio.data.length === 0) throw new BadRequestError(`the ${AUDIO_FIELD} file is empty`, AUDIO_FIELD);
  const model = singleField(form.fields, 'model');
  checkName(model, 'model', MAX_NAME_BYTES);
  const user = form.fields.find((field) => field.name === 'user')?.value;
  return {
    audio,
    ...(model !== undefined ? { model } : {}),
    ...(user !== undefined ? { user } : {}),
    fields: form.fields.filter((field) => !ROUTER_FIELDS.has(field.name)),
  };
}
