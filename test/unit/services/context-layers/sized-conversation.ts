/** Agent conversations whose tool results have chosen sizes, for the context-layer service tests. */

import type { OllamaChatRequest, OllamaMessage } from '../../../../lib/core/wire/ollama';
import { toolRound } from '../../core/context/conversation';

/** One tool round per entry, its result about that many words long (`lorem ipsum`, about a token a word). */
export function sizedConversation(resultWords: readonly number[], model = 'claude-sonnet-4-5'): OllamaChatRequest {
  const messages: OllamaMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the failing test.' },
  ];
  resultWords.forEach((words, round) => {
    messages.push(...toolRound(round, words));
  });
  return { model, stream: false, messages };
}

export function toolResults(request: Pick<OllamaChatRequest, 'messages'>): string[] {
  return request.messages.filter((message) => message.role === 'tool').map((message) => message.content);
}
