/** The Anthropic Messages surface (spec §4.3). */

import { serveAnthropicMessages } from '../lib/features/chat/anthropic-messages';
import { serveAnthropicCountTokens } from '../lib/features/count-tokens/anthropic-count-tokens';
import { getServices, handlerOptions, type Services } from '../lib/instance';
import { createHandler, type RouteTable } from '../lib/services/http/handler';

export const routes = (services: Services): RouteTable => ({
  'POST /v1/messages': (request, response) => serveAnthropicMessages(services, request, response),
  // Counting reads nothing of the fleet: no services.
  'POST /v1/messages/count_tokens': serveAnthropicCountTokens,
});

export const handler = createHandler(() => routes(getServices()), handlerOptions);
