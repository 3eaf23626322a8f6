/** The Anthropic Messages surface (spec §4.3). */
import { serveAnthropicCountTokens } from '../lib/chat/anthropic-count-tokens';
import { serveAnthropicMessages } from '../lib/chat/anthropic-messages';
import { createHandler, type RouteTable } from '../lib/http/handler';
import { handlerOptions } from '../lib/services';

export const routes: RouteTable = {
  'POST /v1/messages': serveAnthropicMessages,
  'POST /v1/messages/count_tokens': serveAnthropicCountTokens,
};

export const handler = createHandler(routes, handlerOptions);
