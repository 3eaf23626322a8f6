/**
 * Serverless Framework v3 plugin: the deployment's parameters, read through `${deployParam:<name>}` (or
 * `${deployParam:<name>:<kind>}`, a kind of KINDS below) so each value is checked and put in the shape
 * CloudFormation takes before anything is rendered.
 *
 * - Id lists (`subnetIds`, `securityGroupIds`, `vpcEndpointIds`) are accepted as an operator types them:
 *   `--param="subnetIds=[subnet-a,subnet-b]"`, `subnet-a,subnet-b` or `["subnet-a","subnet-b"]`, and all
 *   render the same list. Each id must have its resource's shape (`subnet-` and 8 or 17 hex digits).
 * - `serverless package` and `serverless deploy` refuse to render without them, naming the parameter and
 *   an example: there are no placeholder ids an operator could deploy by mistake. Other commands
 *   (`serverless offline`, `print`) run without them and get empty values.
 * - Other parameters are checked for their kind: SSM parameter names, an SNS topic ARN, node lists,
 *   whole numbers; an empty value means "not set".
 */

const ID_LISTS = {
  subnetIds: { prefix: 'subnet', example: 'subnet-0123456789abcdef0,subnet-0fedcba9876543210' },
  securityGroupIds: { prefix: 'sg', example: 'sg-0123456789abcdef0' },
  vpcEndpointIds: { prefix: 'vpce', example: 'vpce-0123456789abcdef0' },
};

/** Commands that render the deployment: the ones that must not run with a missing id. */
const RENDERING_COMMANDS = new Set(['package', 'deploy']);

/** The checks of the other parameters; each returns a problem or undefined. An empty value is always fine. */
const KINDS = {
  ssmName: (value) =>
    /^\/[A-Za-z0-9_.\-/]{1,1010}$/.test(value) && !value.endsWith('/')
      ? undefined
      : 'is not an SSM parameter name such as /fleet-router/dev/api-keys',
  snsTopicArn: (value) =>
    /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/.test(value)
      ? undefined
      : 'is not an SNS topic ARN such as arn:aws:sns:eu-west-1:123456789012:fleet-alarms',
  nodes: (value) => {
    const bad = splitList(value).find((entry) => !isNodeEntry(entry));
    return bad === undefined ? undefined : `has "${bad}", which is not url or id=url (gpu1=http://10.0.1.10:11434)`;
  },
  int: (value) => (/^\d+$/.test(value) ? undefined : `is "${value}", not a whole number`),
  bool: (value) => (/^(true|false|1|0|yes|no|on|off)$/i.test(value) ? undefined : `is "${value}", not true or false`),
  text: () => undefined,
};

class DeployParams {
  constructor(serverless) {
    const command = serverless.processedInput?.commands?.[0];
    const rendering = RENDERING_COMMANDS.has(command);
    // The framework's own error class: the message is shown without a stack trace.
    const fail = (message) => {
      throw new serverless.classes.Error(message);
    };
    this.configurationVariablesSources = {
      deployParam: {
        resolve: async ({ address, resolveVariable }) => {
          const [name, kind] = String(address).split(':');
          const raw = await resolveVariable(`param:${name}`);
          return {
            value: ID_LISTS[name] ? idList(name, raw, rendering, fail) : checked(name, kind ?? 'text', raw, fail),
          };
        },
      },
    };
  }
}

/** An id list in any of the three forms, each id checked; empty only when nothing renders. */
function idList(name, raw, rendering, fail) {
  const { prefix, example } = ID_LISTS[name];
  const ids = toList(raw);
  const hint = `e.g. --param="${name}=${example}"`;
  if (ids.length === 0) {
    if (!rendering) return [];
    fail(`parameter ${name} is required (no placeholder ids are deployed): ${hint}`);
  }
  const pattern = new RegExp(`^${prefix}-([0-9a-f]{8}|[0-9a-f]{17})$`);
  const bad = ids.filter((id) => !pattern.test(id));
  if (bad.length > 0)
    fail(`parameter ${name}: ${bad.map((id) => `"${id}"`).join(', ')} is not a ${prefix}- id: ${hint}`);
  return ids;
}

/** A scalar parameter: trimmed, checked for its kind; a list given to it is joined with commas. */
function checked(name, kind, raw, fail) {
  const check = KINDS[kind];
  if (check === undefined) fail(`deployParam:${name}:${kind}: no such kind (${Object.keys(KINDS).join(', ')})`);
  const value = Array.isArray(raw) ? raw.join(',') : String(raw ?? '').trim();
  if (value === '') return '';
  const problem = check(value);
  if (problem !== undefined) fail(`parameter ${name} ${problem}`);
  return kind === 'nodes' ? toList(value).join(',') : value;
}

/** `url` or `id=url`, the URL's scheme optional (http), as FLEET_NODES takes them (lib/services/platform/config). */
function isNodeEntry(entry) {
  const equals = entry.indexOf('=');
  const url = equals > 0 && !entry.slice(0, equals).includes('/') ? entry.slice(equals + 1) : entry;
  try {
    const parsed = new URL(/^[a-z]+:\/\//i.test(url) ? url : `http://${url}`);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}

/** `[a,b]`, `["a","b"]`, `a,b`, ` a , b ` or an array → `['a', 'b']`. */
function toList(raw) {
  if (Array.isArray(raw)) return raw.flatMap(toList);
  const text = String(raw ?? '').trim();
  if (text.startsWith('[')) {
    try {
      const parsed = JSON.parse(text);
      if (Array.isArray(parsed)) return parsed.flatMap(toList);
    } catch {
      // `[subnet-a,subnet-b]`: a YAML-style list, not JSON.
    }
    return splitList(text.replace(/^\[|\]$/g, ''));
  }
  return splitList(text);
}

function splitList(text) {
  return text
    .split(',')
    .map((item) => item.trim().replace(/^["']|["']$/g, ''))
    .filter((item) => item !== '');
}

module.exports = DeployParams;
module.exports.toList = toList;
