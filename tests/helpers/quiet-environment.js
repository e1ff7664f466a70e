/**
 * The API suite's test environment: Node's, where the app's logs (Strapi's logger, which writes to
 * the process's stdout past Jest's console; tests/helpers/app.ts hands them here) are held, and
 * printed only when a test or a hook fails: a passing run is quiet, though its tests provoke faults
 * on purpose (a full disk, a failing record, a hung database) that the app logs with their stacks.
 * A failure prints every log line of its file held so far, then the file starts holding afresh.
 * TEST_LOGS=live prints them as they come instead.
 */
const { TestEnvironment } = require('jest-environment-node');

class QuietEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    /** Log lines held since the file started, or since the last failure printed them. */
    this.held = [];
    if (process.env.TEST_LOGS !== 'live') this.global.__heldLogs = this.held;
  }

  async handleTestEvent(event) {
    const failed =
      (event.name === 'test_done' && event.test.errors.length > 0) ||
      event.name === 'hook_failure' ||
      event.name === 'test_fn_failure';
    if (!failed || this.held.length === 0) return;
    const what = event.test ? ` until "${event.test.name}" failed` : event.hook ? ` until a ${event.hook.type} hook failed` : '';
    process.stderr.write(`\n── the app's logs in ${this.testPath}${what} ──\n${this.held.join('\n')}\n── end of the app's logs ──\n`);
    this.held.length = 0;
  }
}

module.exports = QuietEnvironment;
