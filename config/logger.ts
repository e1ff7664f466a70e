// Strapi's logger with a configurable level (error, warn, info, http, verbose, debug).
export default ({ env }) => ({
  level: env('LOG_LEVEL', 'http'),
});
