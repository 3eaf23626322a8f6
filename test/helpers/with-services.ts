/**
 * A routed feature (`serveX(deps, request, response)`) as a route on the instance's services, the way
 * the handlers in functions/ compose it, for tests that call a feature in process.
 */
import { getServices, type Services } from '../../lib/instance';
import type { Route } from '../../lib/services/http/handler';
import type { HttpRequest } from '../../lib/services/http/request';
import type { ResponseSink } from '../../lib/services/http/response-sink';

export function withServices(
  serve: (deps: Services, request: HttpRequest, response: ResponseSink) => Promise<void>,
): Route {
  return (request, response) => serve(getServices(), request, response);
}
