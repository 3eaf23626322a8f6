/** The Recommendations view (issue 23): to be built. */
import { View } from '../components/view';

export function RecommendationsView() {
  return <View title="Recommendations">{null}</View>;
}
