/**
 * A request's priority as a client states it (issue 43): header `X-Fleet-Priority` or the body's
 * `metadata.priority`, `high`, `normal` or `low`. An unknown value is a 400 naming where it came from;
 * absent, the operator's default for the request's application applies (./sharing-policy), else `normal`.
 * The body's wins over the header when both are sent: it is the more specific of the two. Pure.
 */
import { BadRequestError } from '../errors';
import { PRIORITIES, type Priority } from './wait-line';

export const PRIORITY_HEADER = 'x-fleet-priority';

function isPriority(value: string): value is Priority {
  return (PRIORITIES as readonly string[]).includes(value);
}

/** `value` as a priority, undefined when absent; a 400 naming `field` when it is not one of the three. */
export function parsePriority(value: unknown, field: string): Priority | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  if (text !== undefined && isPriority(text)) return text;
  throw new BadRequestError(
    `${field} must be one of ${PRIORITIES.join(', ')}; got ${JSON.stringify(value) ?? String(value)}`,
    field,
  );
}

/** The priority a request states, the body's `metadata.priority` before the header; undefined when neither. */
export function statedPriority(metadataPriority: unknown, header: string | undefined): Priority | undefined {
  const fromBody = parsePriority(metadataPriority, 'metadata.priority');
  const fromHeader = parsePriority(header, 'X-Fleet-Priority');
  return fromBody ?? fromHeader;
}
