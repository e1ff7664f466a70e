export const APP_DIR: string;
/** The app compiled for test runs, apart from dist/ (paths.js). */
export const TEST_DIST_DIR: string;
/** The compiled app a process boots from: the test build in a test run, else dist/. */
export function appDistDir(): string;
