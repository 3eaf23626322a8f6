/** The Tags view (issue 23): to be built. */
import { View } from '../components/view';

export function TagsView() {
  return <View title="Tags">{null}</View>;
}
