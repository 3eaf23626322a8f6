/**
 * Anthropic `tools` and `tool_choice` → Ollama tools and a system-prompt instruction (protocols §6.2 →
 * §2.3; anchor §3.7). Ollama cannot force a call, so what it cannot enforce is asked for in words:
 * - a client tool (`type` absent or `custom`) → `{type: "function", function: {name, description,
 *   parameters: input_schema}}`; a server tool (`web_search_…`, `bash_…`, …) runs on Anthropic's side
 *   and nodes cannot run it, so it is a 400 naming its `type` rather than a tool that silently vanishes;
 * - `tool_choice` `auto` (or absent) → every tool; `none` → no tools; `any` → every tool and an
 *   instruction to call one; `tool` → only that tool and an instruction naming it (400 when there is no
 *   tool by that name); `disable_parallel_tool_use: true` adds "at most one call" to the instruction.
 * Pure; throws only `BadRequestError` naming the field.
 */
import { BadRequestError } from '../../errors';
import type { AnthropicMessagesRequest, AnthropicToolParam } from '../../wire/anthropic';
import type { OllamaTool } from '../../wire/ollama';

export interface FromAnthropicToolsResult {
  readonly tools?: readonly OllamaTool[];
  /** What to append to the system prompt, when the choice asks for more than Ollama enforces. */
  readonly instruction?: string;
}

export const ANY_TOOL_INSTRUCTION = 'You must respond by calling one of the provided tools.';
export const ONE_TOOL_INSTRUCTION = 'Call at most one tool in your response.';

export function namedToolInstruction(name: string): string {
  return `You must respond by calling the tool named ${JSON.stringify(name)}.`;
}

type ToolsRequest = Pick<AnthropicMessagesRequest, 'tools' | 'tool_choice'>;

export function fromAnthropicTools(request: ToolsRequest): FromAnthropicToolsResult {
  const choice = request.tool_choice ?? undefined;
  if (choice?.type === 'none') return {};
  const tools = (request.tools ?? []).map(fromTool);
  const instructions: string[] = [];
  let sent = tools;
  switch (choice?.type) {
    case undefined:
    case 'auto':
      break;
    case 'any':
      if (tools.length === 0) throw new BadRequestError('tool_choice: "any" needs at least one tool', 'tool_choice');
      instructions.push(ANY_TOOL_INSTRUCTION);
      break;
    case 'tool':
      sent = tools.filter((tool) => tool.function.name === choice.name);
      if (sent.length === 0) {
        throw new BadRequestError(
          `tool_choice.name: no tool named ${JSON.stringify(choice.name)} in tools`,
          'tool_choice.name',
        );
      }
      instructions.push(namedToolInstruction(choice.name));
      break;
  }
  if (choice?.disable_parallel_tool_use === true) instructions.push(ONE_TOOL_INSTRUCTION);
  return {
    ...(request.tools === undefined || request.tools === null ? {} : { tools: sent }),
    ...(instructions.length === 0 ? {} : { instruction: instructions.join(' ') }),
  };
}

function fromTool(tool: AnthropicToolParam, index: number): OllamaTool {
  const field = `tools.${index}`;
  if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
    throw new BadRequestError(
      `${field}.type: server tools (${tool.type}) are not supported; nodes run only client tools`,
      `${field}.type`,
    );
  }
  if (tool.input_schema === undefined || tool.input_schema === null) {
    throw new BadRequestError(`${field}.input_schema: required for a client tool`, `${field}.input_schema`);
  }
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === undefined || tool.description === null ? {} : { description: tool.description }),
      parameters: tool.input_schema,
    },
  };
}
