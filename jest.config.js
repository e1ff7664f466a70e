/**
 * Every suite, as one project each (`jest --selectProjects <name>`; package.json's test scripts name
 * theirs). Each test file boots what it needs itself: the app in-process (tests/helpers/app.ts), or
 * as processes with servers of its own (tools/support/). Files run one at a time (--runInBand):
 * Strapi is a global singleton.
 */
const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.tsx?$': ['@swc/jest'] },
  testPathIgnorePatterns: ['/node_modules/'],
};

/** Suites that boot the app: compiled once per run; every answer is checked against the OpenAPI document. */
const withApp = {
  ...shared,
  globalSetup: '<rootDir>/tests/helpers/global-setup.js',
  setupFilesAfterEnv: ['<rootDir>/tests/helpers/openapi-setup.ts'],
  globalTeardown: '<rootDir>/tests/helpers/openapi-report.js',
};

module.exports = {
  maxWorkers: 1,
  projects: [
    // The plugin's modules alone, and the docs against the code (`npm test`).
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/plugins/image-api/tests/**/*.test.ts', '<rootDir>/tests/docs/**/*.test.ts'], testTimeout: 60000 },
    // The real Strapi in-process on SQLite, PostgreSQL or MariaDB (`npm test`, `test:postgres`, `test:mysql`).
    { ...withApp, displayName: 'api', testMatch: ['<rootDir>/tests/api/**/*.test.ts'], testTimeout: 60000 },
    // The app as a child process against servers of its own, faults injected under load (`test:faults`).
    { ...withApp, displayName: 'faults', testMatch: ['<rootDir>/tests/faults/**/*.test.ts'], testTimeout: 180000 },
    // `npm run cluster`: nginx, two instances, PostgreSQL, Redis and Ceph S3 (`test:cluster`); it builds what it needs.
    { ...shared, displayName: 'cluster', testMatch: ['<rootDir>/tests/cluster/**/*.test.ts'], setupFilesAfterEnv: ['<rootDir>/tests/helpers/openapi-setup.ts'], testTimeout: 300000 },
    // Playwright driving Debian's Chromium against the built admin panel (`test:browser`).
    { ...withApp, displayName: 'browser', testMatch: ['<rootDir>/tests/browser/**/*.test.ts'], testTimeout: 180000 },
    // The README's "Add the plugin to an existing Strapi 5 app" on a fresh create-strapi-app app (`test:adopter`).
    { ...shared, displayName: 'adopter', testMatch: ['<rootDir>/tests/adopter/**/*.test.ts'], testTimeout: 300000 },
  ],
};
