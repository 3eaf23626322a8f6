/** The Health view (issue 23): to be built. */
import { View } from '../components/view';

export function HealthView() {
  return <View title="Health">{null}</View>;
}
