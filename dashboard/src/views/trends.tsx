/** The Trends view (issue 23): to be built. */
import { View } from '../components/view';

export function TrendsView() {
  return <View title="Trends">{null}</View>;
}
