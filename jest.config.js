/** Unit tests (plugin modules) and API tests (a real Strapi booted in-process). */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.tsx?$': ['@swc/jest'] },
  testMatch: ['<rootDir>/tests/**/*.test.ts', '<rootDir>/plugins/image-api/tests/**/*.test.ts'],
  // The browser test needs the built admin panel (`npm run test:browser`); the fault and cluster
  // and adopter suites run apart (`npm run test:faults`, `npm run test:cluster`, `npm run test:adopter`).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/tests/browser/', '<rootDir>/tests/faults/', '<rootDir>/tests/cluster/', '<rootDir>/tests/adopter/'],
  globalSetup: '<rootDir>/tests/helpers/global-setup.js',
  // API tests: every answer is checked against the OpenAPI document (tests/helpers/openapi-check.ts).
  setupFilesAfterEnv: ['<rootDir>/tests/helpers/openapi-setup.ts'],
  globalTeardown: '<rootDir>/tests/helpers/openapi-report.js',
  testTimeout: 60000,
  // Each API test file boots Strapi (a global singleton), so files run one at a time (--runInBand).
  maxWorkers: 1,
};
