/**
 * The system prompt of a translated Anthropic request (protocols §6.2; anchor §3.7): the request's
 * `system` (a string, or text blocks joined with "\n"), then the text of any `system` turns inside
 * `messages`, then the tool-choice instruction (`from-anthropic-tools.ts`) after a blank line. Empty
 * parts are left out; no prompt at all gives no system message.
 *
 * Claude Code puts a per-request billing fingerprint (`cch=<hex>;`) in its system prompt. Every turn
 * would then start with a different prompt and miss the node's prefix cache (the reference measured about
 * ten times faster second turns once it was normalised), so it becomes `cch=NORMALIZED;`; nothing else
 * in the prompt is touched. Pure.
 */
import type { AnthropicMessagesRequest } from '../../wire/anthropic';

const BILLING_FINGERPRINT = /\bcch=[0-9a-f]+;/gi;

/** Replaces each `cch=<hex>;` with `cch=NORMALIZED;`. */
export function normalizeBillingFingerprint(text: string): string {
  return text.replace(BILLING_FINGERPRINT, 'cch=NORMALIZED;');
}

export interface AnthropicSystemPromptParts {
  readonly system: AnthropicMessagesRequest['system'];
  readonly systemTurns: readonly string[];
  readonly toolInstruction?: string | undefined;
}

/** The system message's content, or `undefined` when there is nothing to say. */
export function anthropicSystemPrompt(parts: AnthropicSystemPromptParts): string | undefined {
  const system = parts.system;
  const systemText =
    system === undefined || system === null
      ? ''
      : typeof system === 'string'
        ? system
        : system.map((block) => block.text).join('\n');
  const prompt = normalizeBillingFingerprint([systemText, ...parts.systemTurns].filter(nonEmpty).join('\n'));
  const instruction = parts.toolInstruction ?? '';
  const whole = [prompt, instruction].filter(nonEmpty).join('\n\n');
  return whole === '' ? undefined : whole;
}

function nonEmpty(text: string): boolean {
  return text !== '';
}
