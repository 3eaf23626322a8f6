/** The dashboard page's entry: its styles, the live feed, the app. */
import 'uplot/dist/uPlot.min.css';
import '../styles.css';
import { render } from 'preact';
import { App } from './app';
import { startLiveFeed } from './live';
import { startOfflineWatch } from './notify';
import { startRoleWatch } from './role';

startLiveFeed();
startOfflineWatch();
startRoleWatch();
const root = document.getElementById('app');
if (root !== null) render(<App />, root);
