/**
 * Every suite, as one project each (`jest --selectProjects <name>`; package.json's test scripts name
 * theirs). Each test file boots what it needs itself: the app in-process (tests/helpers/app.ts), or
 * as processes with servers of its own (tools/support/). Strapi is a global singleton, one per process:
 * the unit and API suites run their files in two worker processes (each file has a database and a
 * public folder of its own), the others one file at a time (--runInBand: faults and cluster measure
 * under load, the browser and adopter tests are heavy alone).
 */
const TIMEOUT = '<rootDir>/tests/helpers/test-timeout.js';

const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.tsx?$': ['@swc/jest'], '/node_modules/thumbhash/.+\\.js$': ['@swc/jest'] },
  // thumbhash is an ES module only: compiled for Jest's CommonJS loader (Node itself requires it as is).
  transformIgnorePatterns: ['/node_modules/(?!thumbhash/)'],
  testPathIgnorePatterns: ['/node_modules/'],
  setupFilesAfterEnv: [TIMEOUT],
};

/**
 * Unit tests whose outcome no database and no Node line changes, and that take a minute between them
 * (the plugin's build into `dist`, the type check of the tests): CI runs them once, on its first line
 * (`.ci/node-line` sets ONCE_PER_CI_RUN=done for the others).
 */
const ONCE_PER_CI_RUN = ['<rootDir>/tests/config/plugin-build.test.ts', '<rootDir>/tests/config/test-types.test.ts'];
const unitIgnored = process.env.ONCE_PER_CI_RUN === 'done' ? ONCE_PER_CI_RUN : [];

/** A test's or a hook's time limit in a project (tests/helpers/test-timeout.js applies it). */
const timeout = (ms) => ({ globals: { TEST_TIMEOUT_MS: ms } });

/** Suites that boot the app: compiled once per run; every answer is checked against the OpenAPI document. */
const withApp = {
  ...shared,
  globalSetup: '<rootDir>/tests/helpers/global-setup.js',
  setupFilesAfterEnv: [TIMEOUT, '<rootDir>/tests/helpers/openapi-setup.ts'],
  globalTeardown: '<rootDir>/tests/helpers/global-teardown.js',
};

module.exports = {
  maxWorkers: 1,
  projects: [
    // The plugin's modules and the app's config alone, and the docs against the code (`npm test`).
    { ...shared, displayName: 'unit', testPathIgnorePatterns: [...shared.testPathIgnorePatterns, ...unitIgnored], testMatch: ['<rootDir>/plugins/image-api/tests/**/*.test.ts', '<rootDir>/tests/config/**/*.test.ts', '<rootDir>/tests/docs/**/*.test.ts'], ...timeout(60000) },
    // The real Strapi in-process on SQLite, PostgreSQL or MariaDB (`npm test`, `test:postgres`, `test:mysql`).
    // Quiet unless a test fails: the app's logs are held and printed with a failure (quiet-environment.js).
    { ...withApp, displayName: 'api', testEnvironment: '<rootDir>/tests/helpers/quiet-environment.js', testMatch: ['<rootDir>/tests/api/**/*.test.ts'], ...timeout(60000) },
    // The app as a child process against servers of its own, faults injected under load (`test:faults`).
    { ...withApp, displayName: 'faults', testMatch: ['<rootDir>/tests/faults/**/*.test.ts'], ...timeout(180000) },
    // `npm run cluster`: Varnish, two instances, PostgreSQL, Redis and Ceph S3 (`test:cluster`); it builds what it needs.
    { ...shared, displayName: 'cluster', testMatch: ['<rootDir>/tests/cluster/**/*.test.ts'], setupFilesAfterEnv: [TIMEOUT, '<rootDir>/tests/helpers/openapi-setup.ts'], ...timeout(300000) },
    // Playwright driving Debian's Chromium against the built admin panel (`test:browser`).
    { ...withApp, displayName: 'browser', testMatch: ['<rootDir>/tests/browser/**/*.test.ts'], ...timeout(180000) },
    // docs/adding-the-plugin.md followed on a fresh create-strapi-app app (`test:adopter`).
    { ...shared, displayName: 'adopter', testMatch: ['<rootDir>/tests/adopter/**/*.test.ts'], ...timeout(300000) },
  ],
};
