// `strapi-plugin-image-api/sqlite`: settings for an app's SQLite connection, for its config/database.ts
// (docs/adding-the-plugin.md; server/src/database/sqlite-connection.ts). A file at the package's root
// so that apps whose TypeScript resolves modules the Node 10 way (create-strapi-app's) find it too.
module.exports = require('./dist/server/src/database/sqlite-connection');
