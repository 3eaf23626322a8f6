/**
 * Responses tools and `tool_choice` → Ollama `tools` (protocols §4.1 → §2.3), for `fromResponsesRequest`.
 * Tools come from the top-level `tools` and from `additional_tools` input items (Codex sends its tool
 * catalogue that way, anchor §3.9).
 * - `function` tools (flat in this API) are nested the chat way: `{type: "function", function: {name,
 *   description, parameters, strict, …}}`, every field forwarded.
 * - `custom` tools (free-form input, e.g. Codex's `apply_patch`) become function tools taking one string,
 *   `input`, whose description carries the grammar when there is one; the model's call is turned back
 *   into a `custom_tool_call` (`customToolNames` tells the output side which names are custom).
 * - Hosted tools (`web_search`, `file_search`, `mcp`, `local_shell`, …) run inside OpenAI; the router
 *   runs none. The reference dropped them silently and models then narrated searches they never made, so
 *   a hosted tool the model could be asked to use is a 400 naming it. It is ignored when `tool_choice`
 *   keeps the model away from it: `none`, a named function or custom tool, or `allowed_tools` without it.
 * - `tool_choice`: `auto`/`required` → all tools (Ollama cannot force a call), `none` → no tools sent,
 *   `{type: function|custom, name}` → only that tool, `allowed_tools` → the tools it lists, a hosted
 *   choice → 400. A named tool that is not there is a 400 naming the choice.
 * - Two tools with one name are a 400: the reply could not say which was called.
 * Pure; throws only `BadRequestError` naming the field.
 */
import { BadRequestError } from '../../errors';
import { echoed } from '../../wire/echoed';
import type { OllamaTool } from '../../wire/ollama';
import type { ResponsesRequest, ResponsesTool } from '../../wire/responses';

interface PlacedTool {
  readonly tool: ResponsesTool;
  readonly field: string;
}

type CallableTool = Extract<ResponsesTool, { type: 'function' | 'custom' }>;

/** The tools to send the node; `undefined` when none are. */
export function fromResponsesTools(request: ResponsesRequest): OllamaTool[] | undefined {
  const placed = declaredTools(request);
  const choice = request.tool_choice ?? 'auto';
  if (placed.length === 0 || choice === 'none') return undefined;
  if (choice === 'auto' || choice === 'required') return placed.map(toOllamaTool);
  switch (choice.type) {
    case 'function':
    case 'custom':
      return [toOllamaTool(named(placed, choice.type, choice.name, 'tool_choice.name'))];
    case 'allowed_tools':
      return choice.tools.map((allowed, index) => {
        const field = `tool_choice.tools.${index}`;
        if (allowed.type !== 'function' && allowed.type !== 'custom') throw hostedToolError(allowed.type, field);
        return toOllamaTool(named(placed, allowed.type, allowed.name ?? '', `${field}.name`));
      });
    default:
      throw hostedToolError(choice.type, 'tool_choice.type');
  }
}

/** The names of the custom tools declared (top-level and `additional_tools`), whatever `tool_choice` says. */
export function customToolNames(request: ResponsesRequest): ReadonlySet<string> {
  const names = new Set<string>();
  for (const { tool } of declaredTools(request)) if (tool.type === 'custom') names.add(tool.name);
  return names;
}

function declaredTools(request: ResponsesRequest): PlacedTool[] {
  const placed: PlacedTool[] = (request.tools ?? []).map((tool, index) => ({ tool, field: `tools.${index}` }));
  const input = request.input;
  if (Array.isArray(input)) {
    input.forEach((item, index) => {
      if (item.type !== 'additional_tools') return;
      item.tools.forEach((tool, toolIndex) => {
        placed.push({ tool, field: `input.${index}.tools.${toolIndex}` });
      });
    });
  }
  const seen = new Set<string>();
  for (const { tool, field } of placed) {
    if (tool.type !== 'function' && tool.type !== 'custom') continue;
    if (seen.has(tool.name)) {
      throw new BadRequestError(
        `${field}.name: another tool is already named ${JSON.stringify(tool.name)}`,
        `${field}.name`,
      );
    }
    seen.add(tool.name);
  }
  return placed;
}

function named(placed: readonly PlacedTool[], type: 'function' | 'custom', name: string, field: string): PlacedTool {
  const found = placed.find(({ tool }) => tool.type === type && tool.name === name);
  if (found === undefined) {
    throw new BadRequestError(`${field}: no ${type} tool named ${JSON.stringify(echoed(name))} in tools`, field);
  }
  return found;
}

function hostedToolError(type: string, field: string): BadRequestError {
  return new BadRequestError(
    `${field}: ${type} tools run inside OpenAI and the router runs none; send function or custom tools`,
    field,
  );
}

function toOllamaTool({ tool, field }: PlacedTool): OllamaTool {
  switch (tool.type) {
    case 'function':
      return fromFunctionTool(tool);
    case 'custom':
      return fromCustomTool(tool);
    default:
      throw hostedToolError(tool.type, field);
  }
}

function fromFunctionTool(tool: Extract<CallableTool, { type: 'function' }>): OllamaTool {
  const { type: _type, ...fn } = tool;
  return { type: 'function', function: fn };
}

function fromCustomTool(tool: Extract<CallableTool, { type: 'custom' }>): OllamaTool {
  const format = tool.format;
  const input =
    format === undefined || format === null || format.type === 'text'
      ? 'The input, as free-form text.'
      : `The input, as text matching this ${format.syntax} grammar:\n${format.definition}`;
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === undefined || tool.description === null ? {} : { description: tool.description }),
      parameters: {
        type: 'object',
        properties: { input: { type: 'string', description: input } },
        required: ['input'],
      },
    },
  };
}
