/** The media surface (spec §4.5): image models and image generation, speech-to-text. */
import { createHandler, type RouteTable } from '../lib/http/handler';
import { serveGenerateImage, serveImageModels } from '../lib/images/serve-images';
import { handlerOptions } from '../lib/services';
import { serveTranscription } from '../lib/transcription/serve-transcription';

export const routes: RouteTable = {
  'GET /api/image-models': serveImageModels,
  'POST /api/generate-image': serveGenerateImage,
  'POST /api/transcribe': serveTranscription,
};

export const handler = createHandler(routes, handlerOptions);
