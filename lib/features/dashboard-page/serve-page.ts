/**
 * The dashboard page (issue 23): `GET /dashboard` redirects to the first view, `GET /dashboard/{view}`
 * answers with the page for any view it knows (lib/core/dashboard/views; the page shows that view), and
 * `GET /dashboard/assets/{file}` with the page's script and style sheet. The page and its assets hold no
 * fleet data, so they need no API key: the page asks for the key and sends it with its API calls.
 *
 * Caching: the assets' names carry their content hash, so a browser keeps them for a year and never asks
 * again; the HTML is revalidated on every load (ETag, 304), so a new build is picked up at once. Every
 * file is sent brotli- or gzip-compressed when the client accepts it (compressed at build time).
 */

import { DASHBOARD_VIEWS, dashboardView } from '../../core/dashboard/views';
import { NotFoundError } from '../../core/errors';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { PageFile, PageFiles } from '../../services/page/page-files';

export interface PageDeps {
  readonly page: PageFiles;
}

const YEAR_SECONDS = 365 * 24 * 3600;

/** What the page may load and reach: its own origin only (no CDN, no inline script). */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

async function sendFile(request: HttpRequest, response: ResponseSink, file: PageFile, cacheControl: string) {
  const headers: Record<string, string> = {
    'content-type': file.type,
    'cache-control': cacheControl,
    etag: file.etag,
    vary: 'accept-encoding',
    'x-content-type-options': 'nosniff',
  };
  if (file.type.startsWith('text/html')) {
    headers['content-security-policy'] = CONTENT_SECURITY_POLICY;
    headers['referrer-policy'] = 'no-referrer';
  }
  const match = request.header('if-none-match');
  if (match?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag)) {
    response.start({ statusCode: 304, headers });
    await response.end();
    return;
  }
  if (file.encoding !== undefined) headers['content-encoding'] = file.encoding;
  response.start({ statusCode: 200, headers });
  await response.end(file.body);
}

/** `GET /dashboard`: to the first view, by a relative Location (it holds behind any path prefix). */
export async function serveDashboardHome(_request: HttpRequest, response: ResponseSink): Promise<void> {
  const first = DASHBOARD_VIEWS[0].id;
  response.start({ statusCode: 302, headers: { location: `dashboard/${first}`, 'cache-control': 'no-cache' } });
  await response.end();
}

/** `GET /dashboard/{view}`: the page, which shows that view. */
export async function serveDashboardView(deps: PageDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const segment = request.pathParameters['view'] ?? '';
  if (dashboardView(segment) === undefined) {
    const known = DASHBOARD_VIEWS.map((view) => view.id).join(', ');
    throw new NotFoundError(`the dashboard has no view "${segment}"; its views are ${known}`);
  }
  const file = deps.page.file('index.html', request.header('accept-encoding'));
  if (file === undefined) throw new Error('the dashboard page was not built: its manifest lists no index.html');
  await sendFile(request, response, file, 'no-cache');
}

/** `GET /dashboard/assets/{file}`: a hashed script or style sheet, cached for a year. */
export async function serveDashboardAsset(deps: PageDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const name = request.pathParameters['file'] ?? '';
  const file = deps.page.file(`assets/${name}`, request.header('accept-encoding'));
  if (file === undefined) throw new NotFoundError(`the dashboard has no asset "${name}"`);
  await sendFile(request, response, file, `public, max-age=${YEAR_SECONDS}, immutable`);
}
