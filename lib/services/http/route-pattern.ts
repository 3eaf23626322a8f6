/**
 * Route templates as API Gateway writes them (`/api/chat`, `/dashboard/api/benchmarks/{run_id}`,
 * `/dashboard/{proxy+}`), compiled once into matchers. The emulator uses them to pick a function, and
 * handlers use them to pick a route when the event carries no `resource` (payload 2.0).
 */

export interface RoutePattern {
  readonly template: string;
  /** Lower sorts first: static segments beat `{param}`, which beats `{proxy+}`. */
  readonly specificity: number;
  match(path: string): Record<string, string> | undefined;
}

const segmentPattern = /^\{([A-Za-z0-9_]+)(\+?)\}$/;

/** Normalises `api/chat`, `/api/chat/` and `/api/chat` to `/api/chat`. */
export function normalizeTemplate(template: string): string {
  const trimmed = template.trim().replace(/^\/+/, '').replace(/\/+$/, '');
  return `/${trimmed}`;
}

/**
 * A request path as routing and the error family see it (issue 19 item 7): repeated slashes collapsed and
 * a trailing slash dropped (`//api/chat`, `/api/chat/` → `/api/chat`; `/` stays `/`). Done once, before
 * routing, by the handler and the emulator alike, so a path is served and answered in one family.
 */
export function normalizePath(path: string): string {
  if (!path.includes('//') && (path.length <= 1 || !path.endsWith('/')) && path.startsWith('/')) return path;
  const collapsed = `/${path.replace(/\/{2,}/g, '/').replace(/^\/+|\/+$/g, '')}`;
  return collapsed;
}

export function compileRoutePattern(rawTemplate: string): RoutePattern {
  const template = normalizeTemplate(rawTemplate);
  const segments = template === '/' ? [] : template.slice(1).split('/');
  const names: { name: string; greedy: boolean; index: number }[] = [];
  let specificity = 0;
  segments.forEach((segment, index) => {
    const found = segmentPattern.exec(segment);
    if (found === null) return;
    const greedy = found[2] === '+';
    if (greedy && index !== segments.length - 1) throw new Error(`${template}: {proxy+} must be the last segment`);
    names.push({ name: found[1] ?? '', greedy, index });
    specificity += greedy ? 1000 : 10;
  });
  const lastIsGreedy = names.at(-1)?.greedy === true;

  return {
    template,
    specificity: specificity - segments.length,
    match(path) {
      const parts = path === '/' ? [] : path.replace(/^\/+/, '').replace(/\/+$/, '').split('/');
      if (lastIsGreedy ? parts.length < segments.length : parts.length !== segments.length) return undefined;
      const params: Record<string, string> = {};
      for (let index = 0; index < segments.length; index += 1) {
        const segment = segments[index] ?? '';
        const part = parts[index] ?? '';
        const parameter = names.find((name) => name.index === index);
        if (parameter === undefined) {
          if (segment !== part) return undefined;
        } else if (parameter.greedy) {
          const rest = parts.slice(index).join('/');
          if (rest === '') return undefined;
          params[parameter.name] = decodeSegment(rest);
        } else {
          if (part === '') return undefined;
          params[parameter.name] = decodeSegment(part);
        }
      }
      return params;
    },
  };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Sorts patterns so the first match is the most specific one. */
export function sortBySpecificity<T extends { pattern: RoutePattern }>(routes: readonly T[]): T[] {
  return [...routes].sort((a, b) => a.pattern.specificity - b.pattern.specificity);
}
