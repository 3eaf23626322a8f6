/**
 * The router with the reference implementation's scoring (./reference-score) in place of its own: the
 * routing bench's baseline. It installs the strategy for this process (lib/services/dispatch/strategy-of)
 * and then starts the emulator exactly as `npm start` does, from its built entry beside this one.
 */
import { join } from 'node:path';
import { installRoutingStrategy } from '../../lib/services/dispatch/strategy-of';
import { REFERENCE_STRATEGY } from './reference-score';

installRoutingStrategy(REFERENCE_STRATEGY);
require(join(__dirname, '..', '..', 'emulator', 'main.js'));
