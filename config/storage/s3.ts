/**
 * Storage settings from the environment, shared by config/plugins.ts (Strapi's upload provider) and
 * config/middlewares.ts (the admin panel's CSP must allow images from the bucket). Strapi loads only
 * the files at the top of config/, so this folder is a plain module.
 *
 *   UPLOAD_PROVIDER        local (default: public/uploads) or aws-s3 (AWS or any S3-compatible server)
 *   S3_BUCKET              the bucket (must exist)
 *   S3_ENDPOINT            an S3-compatible server's URL (unset: AWS)
 *   S3_REGION              default us-east-1
 *   S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY   unset: the AWS SDK's own chain (instance role, ...)
 *   S3_FORCE_PATH_STYLE    true by default with S3_ENDPOINT (http://host/bucket/key), false on AWS
 *   S3_BASE_URL            the base of the files' public URLs: a CDN or custom domain in front of the
 *                          bucket (unset: the URL S3 reports)
 *   S3_ROOT_PATH           a folder inside the bucket
 *   S3_ACL                 public-read (default), private, or none (no ACL header: buckets with ACLs
 *                          disabled, made readable by a bucket policy)
 *   S3_TIMEOUT_MS          per request, default 30000; S3_CONNECT_TIMEOUT_MS default 5000
 */
type Env = ((name: string, fallback?: string) => string | undefined) & {
  bool(name: string, fallback?: boolean): boolean;
  int(name: string, fallback?: number): number;
};

export const usesS3 = (env: Env): boolean => {
  const provider = env('UPLOAD_PROVIDER', 'local');
  if (provider !== 'local' && provider !== 'aws-s3') {
    throw new Error(`UPLOAD_PROVIDER must be local or aws-s3, not "${provider}"`);
  }
  return provider === 'aws-s3';
};

/** The upload plugin's configuration: {} (Strapi's local provider) unless UPLOAD_PROVIDER=aws-s3. */
export function uploadPluginConfig(env: Env) {
  if (!usesS3(env)) return {};
  const bucket = env('S3_BUCKET');
  if (!bucket) throw new Error('UPLOAD_PROVIDER=aws-s3 needs S3_BUCKET');
  const endpoint = env('S3_ENDPOINT');
  const accessKeyId = env('S3_ACCESS_KEY_ID');
  const secretAccessKey = env('S3_SECRET_ACCESS_KEY');
  const acl = env('S3_ACL', 'public-read');
  return {
    config: {
      provider: 'aws-s3',
      providerOptions: {
        baseUrl: env('S3_BASE_URL'),
        rootPath: env('S3_ROOT_PATH'),
        s3Options: {
          endpoint,
          region: env('S3_REGION', 'us-east-1'),
          forcePathStyle: env.bool('S3_FORCE_PATH_STYLE', Boolean(endpoint)),
          ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
          // ACL present but undefined: the provider then sends none (absent, it would add public-read).
          params: { Bucket: bucket, ACL: acl === 'none' ? undefined : acl },
          // Every call to another server has a timeout: a hung S3 fails the upload, which then
          // leaves nothing behind (its objects are removed, or swept).
          requestHandler: {
            connectionTimeout: env.int('S3_CONNECT_TIMEOUT_MS', 5000),
            requestTimeout: env.int('S3_TIMEOUT_MS', 30000),
          },
          maxAttempts: 3,
        },
      },
    },
  };
}

/**
 * Where the admin panel loads stored images from, for its CSP (img-src, media-src): the origin of
 * S3_BASE_URL, else of the endpoint, else AWS's bucket hosts.
 */
export function storageOrigins(env: Env): string[] {
  if (!usesS3(env)) return [];
  const base = env('S3_BASE_URL') || env('S3_ENDPOINT');
  if (base) return [new URL(base).origin];
  const bucket = env('S3_BUCKET');
  return [`https://${bucket}.s3.amazonaws.com`, `https://${bucket}.s3.${env('S3_REGION', 'us-east-1')}.amazonaws.com`];
}
