/** The Fleet view (issue 23): to be built. */
import { View } from '../components/view';

export function FleetView() {
  return <View title="Fleet">{null}</View>;
}
