/** The Settings view (issue 23): to be built. */
import { View } from '../components/view';

export function SettingsView() {
  return <View title="Settings">{null}</View>;
}
