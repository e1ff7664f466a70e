export default ({ env }) => {
  const port = env.int('PORT', 1337);
  // In production the default (localhost) is wrong for every client, and behind a balancer each
  // answer would name whichever instance served it: refuse to boot instead.
  if (env('NODE_ENV') === 'production' && !env('PUBLIC_URL')) {
    throw new Error(
      'PUBLIC_URL must be set in production: the absolute base URL clients reach the API at (e.g. https://img.example.com); every URL the API returns starts with it'
    );
  }
  return {
    host: env('HOST', '0.0.0.0'),
    port,
    // Absolute base of every URL the API returns (and of Strapi's own absolute URLs).
    url: env('PUBLIC_URL', `http://localhost:${port}`),
    app: {
      keys: env.array('APP_KEYS'),
    },
    // Tests point this at a scratch folder so each test file has its own uploads.
    dirs: {
      public: env('PUBLIC_DIR', './public'),
    },
  };
};
