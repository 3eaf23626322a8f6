/**
 * Responses tools and `tool_choice` → Ollama `tools` (protocols §4.1 → §2.3), for `fromResponsesRequest`.
 * Tools come from the top-level `tools` and from `additional_tools` input items (Codex sends its tool
 * catalogue that way, anchor §3.9).
 * - `function` tools (flat in this API) are nested the chat way: `{type: "function", function: {name,
 *   description, parameters, strict, …}}`, every field forwarded.
 * - `custom` tools (free-form input, e.g. Codex's `apply_patch`) become function tools taking one string,
 *   `input`, whose description carries the grammar when there is one; the model's call is turned back
 *   into a `custom_tool_call` (`responsesToolIndex` tells the output side which names are custom).
 * - `namespace` tools are groups of the client's own function and custom tools (Codex's
 *   `multi_agent_v1`): each member is offered as `<namespace>__<name>` (`responses-tool-names.ts`), its
 *   description prefixed with the namespace's, and the model's call goes back as `{name, namespace}`.
 * - `local_shell` (a shell the client runs; Codex does) becomes the function tool `local_shell` taking
 *   `command` (argv), `workdir` and `timeout_ms`; the model's call goes back as a `local_shell_call`.
 * - Hosted tools (`web_search`, `file_search`, `mcp`, `code_interpreter`, …) run inside OpenAI, and
 *   `shell`, `apply_patch`, `computer*` are called in shapes only OpenAI's models write; the router runs
 *   none. Clients send them by default (Codex always sends
 *   `web_search`), so they are left out of what the model sees and named by `droppedResponsesTools`
 *   (the handler's `x-fleet-dropped-tools` header): the model is never told it can search. Only a
 *   `tool_choice` that forces one (a hosted choice, or `allowed_tools` with `mode: required` and nothing
 *   else) is a 400 naming it.
 * - `tool_choice`: `auto`/`required` → all tools (Ollama cannot force a call), `none` → no tools sent,
 *   `{type: function|custom, name, namespace?}` → only that tool, `allowed_tools` → the tools it lists
 *   (a `namespace` entry allows its members). A named tool that is not there is a 400 naming the choice.
 * - Two tools with one model-facing name are a 400: the reply could not say which was called.
 * Pure; throws only `BadRequestError` naming the field.
 */
import { BadRequestError } from '../../errors';
import { echoed } from '../../wire/echoed';
import type { OllamaTool } from '../../wire/ollama';
import type { ResponsesRequest, ResponsesTool } from '../../wire/responses';
import { modelToolName, type ResponsesToolIndex, type ResponsesToolTarget } from './responses-tool-names';

type CallableTool = Extract<ResponsesTool, { type: 'function' | 'custom' | 'local_shell' }>;

interface PlacedTool {
  readonly tool: CallableTool;
  readonly field: string;
  /** The namespace tool it came in, if any. */
  readonly namespace?: { readonly name: string; readonly description: string | null | undefined };
}

interface DeclaredTools {
  readonly callable: readonly PlacedTool[];
  /** Hosted tool types, each once, in the order they came. */
  readonly hosted: readonly string[];
}

/** The tools to send the node; `undefined` when none are. */
export function fromResponsesTools(request: ResponsesRequest): OllamaTool[] | undefined {
  const { callable } = declaredTools(request);
  const choice = request.tool_choice ?? 'auto';
  if (choice === 'none') return undefined;
  if (choice === 'auto' || choice === 'required') return orNothing(callable.map(toOllamaTool));
  switch (choice.type) {
    case 'function':
    case 'custom':
      return [toOllamaTool(named(callable, choice, 'tool_choice.name'))];
    case 'allowed_tools':
      return orNothing(allowedTools(callable, choice));
    case 'local_shell':
      return [toOllamaTool(named(callable, { type: 'local_shell', name: LOCAL_SHELL }, 'tool_choice.type'))];
    default:
      throw hostedToolError(choice.type, 'tool_choice.type');
  }
}

/** What the model sees for each name it may call (top-level and `additional_tools`), whatever `tool_choice` says. */
export function responsesToolIndex(request: ResponsesRequest): ResponsesToolIndex {
  const index = new Map<string, ResponsesToolTarget>();
  for (const { tool, namespace } of declaredTools(request).callable) {
    const name = nameOf(tool);
    index.set(modelToolName(namespace?.name, name), {
      name,
      ...(namespace === undefined ? {} : { namespace: namespace.name }),
      kind: tool.type,
    });
  }
  return index;
}

/** The hosted tool types left out of what the model sees (each once, in order); empty when none. */
export function droppedResponsesTools(request: ResponsesRequest): readonly string[] {
  return declaredTools(request).hosted;
}

function orNothing(tools: OllamaTool[]): OllamaTool[] | undefined {
  return tools.length === 0 ? undefined : tools;
}

function declaredTools(request: ResponsesRequest): DeclaredTools {
  const callable: PlacedTool[] = [];
  const hosted = new Set<string>();
  const place = (tool: ResponsesTool, field: string): void => {
    switch (tool.type) {
      case 'function':
      case 'custom':
      case 'local_shell':
        callable.push({ tool, field });
        return;
      case 'namespace': {
        const namespace = { name: tool.name, description: tool.description };
        tool.tools.forEach((member, index) => {
          callable.push({ tool: member, field: `${field}.tools.${index}`, namespace });
        });
        return;
      }
      default:
        hosted.add(tool.type);
    }
  };
  (request.tools ?? []).forEach((tool, index) => {
    place(tool, `tools.${index}`);
  });
  const input = request.input;
  if (Array.isArray(input)) {
    input.forEach((item, index) => {
      if (item.type !== 'additional_tools') return;
      item.tools.forEach((tool, toolIndex) => {
        place(tool, `input.${index}.tools.${toolIndex}`);
      });
    });
  }
  rejectDuplicates(callable);
  return { callable, hosted: [...hosted] };
}

function rejectDuplicates(callable: readonly PlacedTool[]): void {
  const seen = new Set<string>();
  for (const { tool, field, namespace } of callable) {
    const name = modelToolName(namespace?.name, nameOf(tool));
    if (seen.has(name)) {
      throw new BadRequestError(
        `${field}.name: another tool is already named ${JSON.stringify(name)}`,
        `${field}.name`,
      );
    }
    seen.add(name);
  }
}

interface NamedChoice {
  readonly type: string;
  readonly name?: string | null | undefined;
  readonly namespace?: string | null | undefined;
}

/** The tool a choice names: by `name` and `namespace`, or by the flat name the model sees. */
function named(callable: readonly PlacedTool[], choice: NamedChoice, field: string): PlacedTool {
  const name = choice.name ?? '';
  const found = callable.find(
    ({ tool, namespace }) =>
      tool.type === choice.type &&
      (modelToolName(choice.namespace, name) === modelToolName(namespace?.name, nameOf(tool)) ||
        ((choice.namespace ?? null) === null && name === modelToolName(namespace?.name, nameOf(tool)))),
  );
  if (found === undefined) {
    const spelled = modelToolName(choice.namespace, name);
    throw new BadRequestError(
      `${field}: no ${choice.type} tool named ${JSON.stringify(echoed(spelled))} in tools`,
      field,
    );
  }
  return found;
}

function allowedTools(
  callable: readonly PlacedTool[],
  choice: Extract<NonNullable<ResponsesRequest['tool_choice']>, { type: 'allowed_tools' }>,
): OllamaTool[] {
  const tools = choice.tools.flatMap((allowed, index): OllamaTool[] => {
    const field = `tool_choice.tools.${index}`;
    if (allowed.type === 'function' || allowed.type === 'custom') {
      return [toOllamaTool(named(callable, allowed, `${field}.name`))];
    }
    if (allowed.type === 'local_shell') {
      return [toOllamaTool(named(callable, { type: 'local_shell', name: LOCAL_SHELL }, field))];
    }
    if (allowed.type === 'namespace') {
      return callable.filter(({ namespace }) => namespace?.name === allowed.name).map(toOllamaTool);
    }
    return [];
  });
  if (choice.mode === 'required' && tools.length === 0) {
    const hosted = choice.tools.find((allowed) => allowed.type !== 'function' && allowed.type !== 'custom');
    throw hostedToolError(hosted?.type ?? 'allowed', 'tool_choice.tools');
  }
  return tools;
}

function hostedToolError(type: string, field: string): BadRequestError {
  return new BadRequestError(
    `${field}: ${type} tools run inside OpenAI and the router runs none, so the model cannot be made to call one; send function or custom tools`,
    field,
  );
}

/** The name the client gave the tool; `local_shell` has none of its own. */
function nameOf(tool: CallableTool): string {
  return tool.type === 'local_shell' ? LOCAL_SHELL : tool.name;
}

const LOCAL_SHELL = 'local_shell';

function toOllamaTool({ tool, namespace }: PlacedTool): OllamaTool {
  const offered =
    tool.type === 'function'
      ? fromFunctionTool(tool)
      : tool.type === 'custom'
        ? fromCustomTool(tool)
        : localShellTool();
  if (namespace === undefined) return offered;
  const description = [namespace.description, offered.function.description].filter(
    (text): text is string => typeof text === 'string' && text !== '',
  );
  return {
    type: 'function',
    function: {
      ...offered.function,
      name: modelToolName(namespace.name, nameOf(tool)),
      ...(description.length === 0 ? {} : { description: description.join('\n') }),
    },
  };
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

/** The client's shell as a function: the arguments map onto a `local_shell_call`'s `exec` action. */
function localShellTool(): OllamaTool {
  return {
    type: 'function',
    function: {
      name: LOCAL_SHELL,
      description: "Runs a command in the user's shell and returns its output.",
      parameters: {
        type: 'object',
        properties: {
          command: {
            type: 'array',
            items: { type: 'string' },
            description: 'The program and its arguments, e.g. ["bash", "-lc", "ls -la"].',
          },
          workdir: { type: 'string', description: 'The directory to run it in.' },
          timeout_ms: { type: 'integer', description: 'How long it may run, in milliseconds.' },
        },
        required: ['command'],
      },
    },
  };
}
