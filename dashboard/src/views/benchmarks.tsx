/** The Benchmarks view (issue 23): to be built. */
import { View } from '../components/view';

export function BenchmarksView() {
  return <View title="Benchmarks">{null}</View>;
}
