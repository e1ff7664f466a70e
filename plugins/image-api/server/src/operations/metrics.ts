/**
 * Prometheus metrics (docs/operations.md "Metrics"), served at `/_metrics` when a
 * token is configured (operations/metrics-endpoint.ts). Each app has its own registry, so two Strapi
 * apps in one process (the test suites boot several) never share or clash. Counting is always on:
 * an increment costs nanoseconds, and turning the endpoint on later needs no restart of the counts'
 * meaning. Database and Redis state are read when Prometheus scrapes, by the health check's probes.
 */
import type { Core } from '@strapi/strapi';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { getService } from '../get-service';
import type { HealthReport } from './health';
import type { Refusal } from './request-gate';

/** Seconds: image work is 5 ms (a small PNG) to seconds (a 12 MP HEIC). */
const WORK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds: a local write is a millisecond, an S3 one tens to hundreds. */
const STORE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** Where an upload's image came from (protocol/source-precedence.ts); `none` when it named none. */
export type SourceLabel = 'file' | 'url' | 'base64' | 'none';

/** What moderation counts (image_api_moderation_total's `action`). */
export type ModerationAction = 'flagged' | 'held' | 'refused' | 'blocked' | 'reported' | 'approved' | 'taken_down' | 'block_added';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which `promtool check metrics` rejects; the handles and requests
  // they count are in nodejs_active_*_total's place nowhere else, and few operators read them.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  const registers = [registry];

  const uploads = new Counter({
    name: 'image_api_uploads_total',
    help: 'Upload requests answered, by dialect (api, imgbb), source kind (file, url, base64, none) and HTTP status.',
    labelNames: ['dialect', 'source', 'status'] as const,
    registers,
  });
  const bytesIn = new Counter({
    name: 'image_api_upload_bytes_total',
    help: "Bytes of uploads' images as received (a URL source's download, a base64 source decoded), by source kind.",
    labelNames: ['source'] as const,
    registers,
  });
  const imageWork = new Histogram({
    name: 'image_api_image_work_seconds',
    help: "Duration of an upload's image work: probe, original and variants, placeholder.",
    buckets: WORK_BUCKETS,
    registers,
  });
  const store = new Histogram({
    name: 'image_api_store_seconds',
    help: "Duration of storing an upload: its three files through the upload provider and its rows, in one transaction.",
    buckets: STORE_BUCKETS,
    registers,
  });
  const render = new Histogram({
    name: 'image_api_render_seconds',
    help: 'Duration of rendering a transformation (imgproxy URL), read and encode.',
    buckets: WORK_BUCKETS,
    registers,
  });
  const transforms = new Counter({
    name: 'image_api_transform_results_total',
    help: 'Transformation answers: a kept result (memory, fast path or storage) or a render.',
    labelNames: ['result'] as const,
    registers,
  });
  const refusals = new Counter({
    name: 'image_api_admission_refusals_total',
    help: 'Requests refused before any work: uploads or renders in flight at the limit (full), the address over its share (address), shutting down (draining).',
    labelNames: ['reason'] as const,
    registers,
  });
  const sweeps = new Counter({
    name: 'image_api_sweeps_total',
    help: 'Sweeps run, by sweep (expiry, debris) and outcome (ok, failed).',
    labelNames: ['sweep', 'outcome'] as const,
    registers,
  });
  const swept = new Counter({
    name: 'image_api_swept_total',
    help: 'What sweeps removed: expired images, abandoned uploads, temp folders, idempotency keys.',
    labelNames: ['what'] as const,
    registers,
  });
  const purges = new Counter({
    name: 'image_api_purges_total',
    help: "Purges of deleted images' cached answers, by purger (varnish, cloudflare, fastly) and outcome: sent (acknowledged), failed (retried later), abandoned (not acknowledged within the caches' max-age).",
    labelNames: ['purger', 'outcome'] as const,
    registers,
  });
  new Gauge({
    name: 'image_api_purges_owed',
    help: 'Purges recorded and not yet acknowledged by every purger (every round); growing: a purger is down.',
    registers,
    async collect() {
      this.set(await getService(strapi, 'purges').owed());
    },
  });
  const classifications = new Histogram({
    name: 'image_api_classification_seconds',
    help: 'Time of one classification of an upload (moderation/classifier.ts), the wait for the model included, by outcome (ok, failed).',
    labelNames: ['outcome'] as const,
    buckets: [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 15, 30],
    registers,
  });
  const moderated = new Counter({
    name: 'image_api_moderation_total',
    help: 'What moderation did: uploads flagged, held, refused (scored past the threshold) or blocked (on the blocklist); reports received; images approved, taken down or blocked by a reviewer.',
    labelNames: ['action'] as const,
    registers,
  });
  // Read at scrape time: the same probes as /_health (operations/health.ts).
  // Both gauges of one scrape share one check.
  let lastCheck: Promise<HealthReport> | null = null;
  const checkOnce = () => {
    lastCheck ??= getService(strapi, 'health')
      .check()
      .finally(() => setImmediate(() => (lastCheck = null)));
    return lastCheck;
  };
  new Gauge({
    name: 'image_api_database_up',
    help: 'Whether the database answered a select within 2 s (1) or not (0).',
    registers,
    async collect() {
      this.set((await checkOnce()).checks.database === 'up' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'image_api_redis_up',
    help: 'Whether Redis answered a PING (1) or not (0); absent when no Redis is configured.',
    registers,
    async collect() {
      const { redis } = (await checkOnce()).checks;
      this.reset();
      if (redis !== undefined) this.set(redis === 'up' ? 1 : 0);
    },
  });

  return {
    registry,
    uploadAnswered(dialect: string, source: SourceLabel, status: number): void {
      uploads.inc({ dialect, source, status: String(status) });
    },
    bytesReceived(source: SourceLabel, bytes: number): void {
      bytesIn.inc({ source }, bytes);
    },
    /** Starts timing; call the result when done. */
    timeImageWork: () => imageWork.startTimer(),
    timeStore: () => store.startTimer(),
    timeRender: () => render.startTimer(),
    transformAnswered(result: 'hit' | 'render'): void {
      transforms.inc({ result });
    },
    refused(reason: Refusal): void {
      refusals.inc({ reason });
    },
    swept(sweep: 'expiry' | 'debris', outcome: 'ok' | 'failed', removed: Record<string, number> = {}): void {
      sweeps.inc({ sweep, outcome });
      for (const [what, count] of Object.entries(removed)) if (count > 0) swept.inc({ what }, count);
    },
    purged(purger: string, outcome: 'sent' | 'failed' | 'abandoned', count: number): void {
      purges.inc({ purger, outcome }, count);
    },
    /** Starts timing a classification; call the result with its outcome. */
    timeClassification: () => {
      const done = classifications.startTimer();
      return (outcome: 'ok' | 'failed') => done({ outcome });
    },
    moderated(action: ModerationAction): void {
      moderated.inc({ action });
    },
    /** The text Prometheus scrapes. */
    async exposition(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
};
