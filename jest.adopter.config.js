/**
 * The adopter suite (`npm run test:adopter`): the README's "Add the plugin to an existing Strapi 5
 * app" followed on a fresh create-strapi-app app, from `npm pack` to an upload.
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/tests/adopter/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  // The test packs, installs and builds what it needs itself.
  globalSetup: undefined,
  globalTeardown: undefined,
  setupFilesAfterEnv: [],
  testTimeout: 300000,
};
