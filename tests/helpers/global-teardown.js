// After the run: the OpenAPI check's report, and the booted database global-setup.js made dropped.
const openapiReport = require('./openapi-report');

module.exports = async (globalConfig, projectConfig) => {
  try {
    await openapiReport(globalConfig, projectConfig);
  } finally {
    await globalThis.__bootedTemplate?.drop();
    globalThis.__bootedTemplate = undefined;
  }
};
