/** The Traces view (issue 23): to be built. */
import { View } from '../components/view';

export function TracesView() {
  return <View title="Traces">{null}</View>;
}
