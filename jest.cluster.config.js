/**
 * The cluster suite (`npm run test:cluster`): `npm run cluster` with two instances behind nginx, on
 * its own PostgreSQL, Redis and Ceph S3, tested through the balancer (README, Deployment).
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/tests/cluster/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  // The cluster script builds what it needs itself.
  globalSetup: undefined,
  globalTeardown: undefined,
  testTimeout: 300000,
};
