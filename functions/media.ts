/** The media surface (spec §4.5): image models and image generation, speech-to-text. */

import { serveGenerateImage, serveImageModels } from '../lib/features/images/serve-images';
import { serveTranscription } from '../lib/features/transcription/serve-transcription';
import { getServices, handlerOptions, type Services } from '../lib/instance';
import { createHandler, type RouteTable } from '../lib/services/http/handler';

export const routes = (services: Services): RouteTable => ({
  'GET /api/image-models': (request, response) => serveImageModels(services, request, response),
  'POST /api/generate-image': (request, response) => serveGenerateImage(services, request, response),
  'POST /api/transcribe': (request, response) => serveTranscription(services, request, response),
});

export const handler = createHandler(() => routes(getServices()), handlerOptions);
