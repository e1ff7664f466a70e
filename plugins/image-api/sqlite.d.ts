export * from './dist/server/src/database/sqlite-connection';
