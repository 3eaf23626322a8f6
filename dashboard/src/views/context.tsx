/** The Context view (issue 23): to be built. */
import { View } from '../components/view';

export function ContextView() {
  return <View title="Context">{null}</View>;
}
