/** config/storage/s3.ts: the upload provider's settings and the CSP origins, from the environment. */
import { storageOrigins, uploadPluginConfig } from '../../config/storage/s3';

/** Strapi's `env` helper over a plain object (unset and empty are the same). */
function envOf(values: Record<string, string>) {
  const get = (name: string, fallback?: string) => (values[name] === undefined || values[name] === '' ? fallback : values[name]);
  return Object.assign(get, {
    bool: (name: string, fallback?: boolean) => (get(name) === undefined ? Boolean(fallback) : get(name) === 'true'),
    int: (name: string, fallback?: number) => (get(name) === undefined ? Number(fallback) : Number.parseInt(get(name)!, 10)),
  });
}

const CEPH = { UPLOAD_PROVIDER: 'aws-s3', S3_BUCKET: 'images', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_ACCESS_KEY_ID: 'AK', S3_SECRET_ACCESS_KEY: 'SK' };

test('local storage (the default) leaves the upload plugin as Strapi configures it, and the CSP as is', () => {
  expect(uploadPluginConfig(envOf({}))).toEqual({});
  expect(uploadPluginConfig(envOf({ UPLOAD_PROVIDER: 'local' }))).toEqual({});
  expect(storageOrigins(envOf({}))).toEqual([]);
});

test('an unknown provider or a missing bucket refuses to boot, saying what to set', () => {
  expect(() => uploadPluginConfig(envOf({ UPLOAD_PROVIDER: 's3' }))).toThrow('UPLOAD_PROVIDER must be local or aws-s3, not "s3"');
  expect(() => uploadPluginConfig(envOf({ UPLOAD_PROVIDER: 'aws-s3' }))).toThrow('UPLOAD_PROVIDER=aws-s3 needs S3_BUCKET');
});

test('an S3-compatible server: path-style URLs, the credentials, public-read objects and timeouts on every call', () => {
  expect(uploadPluginConfig(envOf(CEPH))).toEqual({
    config: {
      provider: 'aws-s3',
      providerOptions: {
        baseUrl: undefined,
        rootPath: undefined,
        s3Options: {
          endpoint: 'http://127.0.0.1:9000',
          region: 'us-east-1',
          forcePathStyle: true,
          credentials: { accessKeyId: 'AK', secretAccessKey: 'SK' },
          params: { Bucket: 'images', ACL: 'public-read' },
          requestHandler: { connectionTimeout: 5000, requestTimeout: 30000 },
          maxAttempts: 3,
        },
      },
    },
  });
  expect(storageOrigins(envOf(CEPH))).toEqual(['http://127.0.0.1:9000']);
});

test('AWS with an instance role, a CDN in front and ACLs disabled', () => {
  const env = envOf({ UPLOAD_PROVIDER: 'aws-s3', S3_BUCKET: 'pics', S3_REGION: 'eu-west-3', S3_BASE_URL: 'https://cdn.example.com/img', S3_ACL: 'none' });
  const { s3Options, baseUrl } = (uploadPluginConfig(env) as any).config.providerOptions;
  expect(baseUrl).toBe('https://cdn.example.com/img');
  expect(s3Options.forcePathStyle).toBe(false);
  expect(s3Options).not.toHaveProperty('credentials');
  // Present but undefined: the provider sends no ACL header (absent, it would add public-read).
  expect('ACL' in s3Options.params).toBe(true);
  expect(s3Options.params.ACL).toBeUndefined();
  expect(storageOrigins(env)).toEqual(['https://cdn.example.com']);
  expect(storageOrigins(envOf({ UPLOAD_PROVIDER: 'aws-s3', S3_BUCKET: 'pics', S3_REGION: 'eu-west-3' }))).toEqual([
    'https://pics.s3.amazonaws.com',
    'https://pics.s3.eu-west-3.amazonaws.com',
  ]);
});
