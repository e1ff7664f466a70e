/**
 * The fault-injection suite (`npm run test:faults`): the app as a child process against servers of
 * its own (PostgreSQL, Redis) on spare loopback ports, faults injected under load (README, Operations).
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/tests/faults/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 180000,
};
