/** Unit tests (plugin modules) and API tests (a real Strapi booted in-process). */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.tsx?$': ['@swc/jest'] },
  testMatch: ['<rootDir>/tests/**/*.test.ts', '<rootDir>/plugins/image-api/tests/**/*.test.ts'],
  // The browser test needs the built admin panel (`npm run test:browser`); the fault suite runs apart (`npm run test:faults`).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/tests/browser/', '<rootDir>/tests/faults/'],
  globalSetup: '<rootDir>/tests/helpers/global-setup.js',
  testTimeout: 60000,
  // Each API test file boots Strapi (a global singleton), so files run one at a time (--runInBand).
  maxWorkers: 1,
};
