/**
 * The prompt-cache share in words (issue 41 item 5; lib/core/analytics/observed-rates): the figure, and
 * which one it is — measured where a node reported its cached tokens, else estimated from the router's
 * prompt estimate against the tokens the nodes evaluated — so nobody takes an estimate for a measurement.
 */
import type { PromptCacheShare } from '../../../../lib/core/analytics/observed-rates';
import * as format from '../../format';

export interface CacheShareText {
  readonly value: string;
  /** `measured` or `estimated`, for a short label. */
  readonly kind: string;
  /** The sentence that says where the figure comes from. */
  readonly hint: string;
}

const requests = (n: number) => `${format.count(n)} request${n === 1 ? '' : 's'}`;

export function cacheShareText(share: PromptCacheShare | undefined): CacheShareText {
  if (share === undefined || share.source === null) {
    return {
      value: format.NONE,
      kind: 'not measured',
      hint: "no request yet with the node's prompt count and the router's estimate",
    };
  }
  if (share.source === 'measured') {
    const estimate = share.estimated_pct === null ? '' : `; estimated ${format.percent(share.estimated_pct)}`;
    return {
      value: format.percent(share.share_pct),
      kind: 'measured',
      hint: `measured: the cached tokens the nodes reported, over ${requests(share.measured_requests)}${estimate}`,
    };
  }
  return {
    value: format.percent(share.share_pct),
    kind: 'estimated',
    hint: `estimated: the router's prompt estimate against the tokens the nodes evaluated, over ${requests(share.estimated_requests)}`,
  };
}
