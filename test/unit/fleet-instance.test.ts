/**
 * The `fleet` and `poller` functions compose only the fleet half of the instance (lib/fleet-instance.ts);
 * every other function's services are built on that half, never beside it. In the emulator all the
 * functions run in one process, so whichever is called first, they must all see one registry and one
 * set of queues: a chat's slot shows in `/fleet/queue` and `/fleet/status`.
 */
import { describe, expect, it, jest } from '@jest/globals';
import type * as FleetInstance from '../../lib/fleet-instance';
import type * as Instance from '../../lib/instance';
import { loadConfig } from '../../lib/services/platform/config';

/** A table nobody calls: building the services sends nothing. */
const config = loadConfig({ FLEET_DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', FLEET_TABLE: 'fleet-instance-test' });

/** Both halves of a fresh instance, as a new process (a cold container, the emulator) loads them. */
function freshInstance(): { fleet: typeof FleetInstance; instance: typeof Instance } {
  let modules: { fleet: typeof FleetInstance; instance: typeof Instance } | undefined;
  jest.isolateModules(() => {
    modules = {
      fleet: require('../../lib/fleet-instance') as typeof FleetInstance,
      instance: require('../../lib/instance') as typeof Instance,
    };
  });
  if (modules === undefined) throw new Error('the modules did not load');
  return modules;
}

describe('fleet instance', () => {
  it('is the half the services are built on when a fleet route came first', async () => {
    const { fleet, instance } = freshInstance();
    const fleetServices = fleet.initFleetServices(config);

    const services = instance.getServices();

    expect(services.registry).toBe(fleetServices.registry);
    expect(services.routing.queues).toBe(fleetServices.routing.queues);
    expect(services.writeBehind).toBe(fleetServices.writeBehind);
    await services.writeBehind.close();
  });

  it('is the half the services hold when they were built first', async () => {
    const { fleet, instance } = freshInstance();
    const services = instance.initServices(config);

    const fleetServices = fleet.getFleetServices();

    expect(fleetServices.registry).toBe(services.registry);
    expect(fleetServices.routing.ejection).toBe(services.routing.ejection);
    await services.writeBehind.close();
  });
});
