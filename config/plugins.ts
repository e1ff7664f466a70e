export default ({ env }) => ({
  'image-api': {
    enabled: true,
    resolve: './plugins/image-api',
    config: {
      // Every option and its default: plugins/image-api/server/src/config/index.ts
      publicUrl: env('PUBLIC_URL', `http://localhost:${env.int('PORT', 1337)}`),
      urlAllowlist: env.array('IMAGE_API_URL_ALLOWLIST', []),
      timeZone: env('IMAGE_API_TIME_ZONE', 'UTC'),
    },
  },
});
