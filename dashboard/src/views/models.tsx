/** The Models view (issue 23): to be built. */
import { View } from '../components/view';

export function ModelsView() {
  return <View title="Models">{null}</View>;
}
