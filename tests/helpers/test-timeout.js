// Each project's time limit for a test or a hook (jest.config.js sets TEST_TIMEOUT_MS in its
// `globals`): Jest reads `testTimeout` from the root config only, not from a project's.
jest.setTimeout(globalThis.TEST_TIMEOUT_MS);
