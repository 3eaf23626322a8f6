/** The Model management view (issue 23): to be built. */
import { View } from '../components/view';

export function ModelManagementView() {
  return <View title="Model management">{null}</View>;
}
