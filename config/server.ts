export default ({ env }) => {
  const port = env.int('PORT', 1337);
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
