/**
 * Health checks on the media and embedding routes (issue 22 item 3, from the fleet's per-style hourly
 * counts and the nodes' sidecars): image and speech-to-text failures, the embedding error rate, a
 * sidecar with no model, and requests waiting behind a busy sidecar. Silent while those requests
 * succeed. Pure.
 */
import type { Rollup } from '../analytics/rollup';
import { finding, type HealthChecks, type HealthFinding } from './health-finding';
import { type HealthInputs, pct, windowSums } from './health-inputs';
import { firstReason, noTraffic } from './skip-reasons';

/** Image and speech-to-text: a failure share of 24 h from which a warning fires. */
export const MEDIA_FAILURE_SHARE = 0.05;
/** Embeddings: failures in the last hour for a warning, and for critical (the reference's). */
export const EMBED_FAILED_WARNING = 5;
export const EMBED_FAILED_CRITICAL = 25;

function styleFailures(day: Rollup, style: string): { requests: number; failed: number } {
  return { requests: day.styles[`style_${style}`] ?? 0, failed: day.styles[`style_${style}_failed`] ?? 0 };
}

function mediaFailures(day: Rollup, style: string, checkId: string, what: string, fix: string): HealthFinding[] {
  const { requests, failed } = styleFailures(day, style);
  if (failed === 0 || failed / requests < MEDIA_FAILURE_SHARE) return [];
  return [
    finding(checkId, {
      severity: 'warning',
      title: `${failed} of ${requests} ${what} failed in 24 h`,
      description: `${pct(failed / requests)} % of ${what} in the last 24 h did not complete.`,
      fix,
      data: { requests_24h: requests, failed_24h: failed },
    }),
  ];
}

const SIDECARS = ['image', 'transcription', 'textEmbedding'] as const;

/** The failure checks of a feature switched off: it serves no request to judge. */
const featureOff =
  (setting: 'imageGeneration' | 'transcription', what: string) =>
  ({ config }: HealthInputs) =>
    config[setting] ? undefined : `${what} is off`;

/** The sidecar checks: no node that is up runs one. */
const noSidecar = ({ snapshot }: HealthInputs) =>
  snapshot.nodes.some((node) => node.status !== 'offline' && SIDECARS.some((kind) => node.sidecars[kind] !== undefined))
    ? undefined
    : 'no node that is up runs a sidecar';

export const MEDIA_CHECKS: HealthChecks = {
  image_failures: {
    title: 'Image generation failures',
    severity: 'warning',
    skip: firstReason(featureOff('imageGeneration', 'image generation'), noTraffic),
    run: ({ traffic, now }) =>
      mediaFailures(
        windowSums(traffic.fleetHours, now).day,
        'image',
        'image_failures',
        'image generations',
        "Check the image sidecars' logs and free memory (image models need several GB beside the loaded LLMs).",
      ),
  },
  transcription_failures: {
    title: 'Speech-to-text failures',
    severity: 'warning',
    skip: firstReason(featureOff('transcription', 'speech-to-text'), noTraffic),
    run: ({ traffic, now }) =>
      mediaFailures(
        windowSums(traffic.fleetHours, now).day,
        'transcription',
        'transcription_failures',
        'transcriptions',
        "Check the speech-to-text sidecars' logs and the audio formats clients send.",
      ),
  },
  embedding_error_rate: {
    title: 'Embedding failures',
    severity: 'critical',
    skip: noTraffic,
    run: ({ traffic, now }) => {
      const { recent } = windowSums(traffic.fleetHours, now);
      const { requests, failed } = styleFailures(recent, 'embeddings');
      if (failed < EMBED_FAILED_WARNING) return [];
      return [
        finding('embedding_error_rate', {
          severity: failed >= EMBED_FAILED_CRITICAL ? 'critical' : 'warning',
          title: `${failed} embedding requests failed in the last hour`,
          description: `${failed} of ${requests} embedding requests in the last hour failed: search and retrieval built on them break.`,
          fix: 'Embedding requests starve behind long generations: serve them from a text-embedding sidecar or a node of their own.',
          data: { requests_last_hour: requests, failed_last_hour: failed },
        }),
      ];
    },
  },
  sidecar_without_models: {
    title: 'Sidecars with a model',
    severity: 'warning',
    skip: noSidecar,
    run: ({ snapshot }) =>
      snapshot.nodes
        .filter((node) => node.status !== 'offline')
        .flatMap((node) =>
          SIDECARS.flatMap((kind) => {
            const sidecar = node.sidecars[kind];
            if (sidecar === undefined || sidecar.models.length > 0) return [];
            return [
              finding('sidecar_without_models', {
                severity: 'warning',
                title: `${node.id}'s ${kind} sidecar has no model`,
                description: `${node.id} runs a ${kind} sidecar on port ${sidecar.port} that reports no model, so it serves nothing.`,
                fix: 'Install a model for the sidecar on the node, or turn the sidecar off in the node agent.',
                nodeId: node.id,
                data: { sidecar: kind, port: sidecar.port },
              }),
            ];
          }),
        ),
  },
  sidecar_busy_queue: {
    title: 'Requests waiting for a busy sidecar',
    severity: 'info',
    skip: noSidecar,
    run: ({ snapshot, queues }) =>
      snapshot.nodes.flatMap((node) =>
        SIDECARS.flatMap((kind) => {
          const sidecar = node.sidecars[kind];
          if (sidecar === undefined || !sidecar.busy) return [];
          const names = new Set(sidecar.models.map((model) => model.name));
          const waiting = queues
            .filter((queue) => queue.nodeId === node.id && names.has(queue.model))
            .reduce((sum, queue) => sum + queue.pending, 0);
          if (waiting === 0) return [];
          return [
            finding('sidecar_busy_queue', {
              severity: 'info',
              title: `${waiting} requests wait for ${node.id}'s busy ${kind} sidecar`,
              description: `${node.id}'s ${kind} sidecar is working and ${waiting} more requests wait for it.`,
              fix: `Add the ${kind} sidecar to another node so requests spread.`,
              nodeId: node.id,
              data: { sidecar: kind, pending: waiting },
            }),
          ];
        }),
      ),
  },
};
