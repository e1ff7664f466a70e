import access from './keys/access';
import blocklist from './moderation/blocklist';
import bootLock from './operations/boot-lock';
import classifier from './moderation/classifier';
import apiKeys from './keys/api-keys';
import clientConfigs from './keys/client-configs';
import contentManagerLayout from './admin/content-manager-layout';
import usageReport from './admin/usage-report';
import debrisSweep from './storage/debris-sweep';
import directFiles from './delivery/direct-files';
import duplicates from './storage/duplicates';
import expirySweep from './storage/expiry-sweep';
import health from './operations/health';
import hotFiles from './delivery/hot-files';
import idempotency from './storage/idempotency';
import images from './storage/image-records';
import imageChanges from './storage/image-changes';
import imageRemoval from './storage/image-removal';
import imageSources from './delivery/image-sources';
import journal from './storage/journal';
import keyChanges from './keys/key-changes';
import mediaEvents from './storage/media-events';
import mediaFolder from './storage/media-folder';
import metrics from './operations/metrics';
import mediaStore from './storage/media-store';
import placeholders from './storage/placeholders';
import publicUrl from './storage/public-url';
import purges from './purge/purge-journal';
import quotas from './keys/quotas';
import rateLimits from './keys/rate-limits';
import renditions from './delivery/renditions';
import reports from './moderation/reports';
import renderGate from './operations/render-gate';
import requestGate from './operations/request-gate';
import review from './moderation/review';
import screening from './moderation/screening';
import sourceFrames from './delivery/source-frames';
import transforms from './delivery/transforms';
import upload from './api/upload-pipeline';
import uploadRecords from './storage/upload-records';
import usageTally from './storage/usage-tally';

export default {
  access,
  blocklist,
  'boot-lock': bootLock,
  classifier,
  'api-keys': apiKeys,
  'client-configs': clientConfigs,
  'content-manager-layout': contentManagerLayout,
  'debris-sweep': debrisSweep,
  'direct-files': directFiles,
  duplicates,
  'expiry-sweep': expirySweep,
  health,
  'hot-files': hotFiles,
  idempotency,
  images,
  'image-changes': imageChanges,
  'image-removal': imageRemoval,
  'image-sources': imageSources,
  journal,
  'key-changes': keyChanges,
  'media-events': mediaEvents,
  'media-folder': mediaFolder,
  metrics,
  'media-store': mediaStore,
  placeholders,
  'public-url': publicUrl,
  purges,
  quotas,
  'rate-limits': rateLimits,
  renditions,
  reports,
  'render-gate': renderGate,
  'request-gate': requestGate,
  review,
  screening,
  'source-frames': sourceFrames,
  transforms,
  upload,
  'upload-records': uploadRecords,
  'usage-report': usageReport,
  'usage-tally': usageTally,
};
