/** Canonical (Ollama chat) agent conversations for the context-layer tests. */
import type { OllamaChatRequest, OllamaMessage } from '../../../../lib/core/wire/ollama';

/** `rounds` tool rounds: an assistant tool call, then its result of about `resultWords` words. */
export function agentConversation(rounds: number, resultWords = 200, withIds = true): OllamaChatRequest {
  const messages: OllamaMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the failing test.' },
  ];
  for (let round = 0; round < rounds; round++) {
    messages.push(...toolRound(round, resultWords, withIds));
  }
  return {
    model: 'qwen3:32b',
    stream: true,
    messages,
    tools: [
      {
        type: 'function',
        function: {
          name: 'Read',
          description: 'Reads a file.',
          parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
      },
    ],
  };
}

export function toolRound(round: number, resultWords = 200, withIds = true): OllamaMessage[] {
  const id = withIds ? { tool_call_id: `call_${round}` } : {};
  return [
    {
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          ...(withIds ? { id: `call_${round}` } : {}),
          function: { name: 'Read', arguments: { path: `src/file${round}.ts` } },
        },
      ],
    },
    { role: 'tool', content: `contents of file ${round}: ${'lorem ipsum '.repeat(resultWords / 2)}`, ...id },
  ];
}

/** The request with one more round appended, as a client sends its next turn. */
export function nextTurn(request: OllamaChatRequest, round: number, resultWords = 200): OllamaChatRequest {
  return { ...request, messages: [...request.messages, ...toolRound(round, resultWords)] };
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const field of Object.values(value)) deepFreeze(field);
    Object.freeze(value);
  }
  return value;
}

export function toolContents(request: Pick<OllamaChatRequest, 'messages'>): string[] {
  return request.messages.filter((message) => message.role === 'tool').map((message) => message.content);
}
