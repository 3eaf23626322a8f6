/**
 * Whether the Context view advises a size for a model (issue 44 item 1): from `MIN_SIZING_REQUESTS`
 * measured requests on, as the health check does; below, it says how many it still needs.
 */
import { type ContextUsage, MIN_SIZING_REQUESTS } from '../../../../lib/core/analytics/context-usage';
import * as format from '../../format';

/** Whether the model had the requests a context is sized from. */
export function sized(model: ContextUsage): boolean {
  return model.measured_requests >= MIN_SIZING_REQUESTS;
}

/** What stands in the table where a recommendation would, for a model measured too little to size. */
export const UNSIZED = `needs ${format.count(MIN_SIZING_REQUESTS)} requests`;

/** The same beside a bar, where a value has 7.5 rem. */
export const UNSIZED_SHORT = 'too few requests';
