// Plugins of this app. The image API reads its IMAGE_API_* variables itself (.env.example lists
// them; plugins/image-api/server/src/config/environment.ts), so its entry here only sets what this
// app does differently from the plugin's defaults.
import { uploadPluginConfig } from './storage/s3';

export default ({ env }) => ({
  // Where files go: local disk by default, an S3 bucket with UPLOAD_PROVIDER=aws-s3 (config/storage/s3.ts).
  upload: uploadPluginConfig(env),
  'image-api': {
    enabled: true,
    resolve: './plugins/image-api',
    config: {
      // Not the plugin's default (V8's own heuristic): this app is an upload server, and trades some
      // heap for far fewer full collections (docs/performance.md). 0 gives V8 its heuristic back.
      heapGrowingPercent: env.int('IMAGE_API_HEAP_GROWING_PERCENT', 50) || null,
    },
  },
});
