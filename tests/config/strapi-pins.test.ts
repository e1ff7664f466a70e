/**
 * Where the plugin replaces, wraps or re-implements a function of Strapi's that is not public API,
 * the function is pinned here: the Strapi version the plugin module was written for, and a hash of
 * the function's text as installed (the CommonJS build Node runs, in node_modules). A Strapi upgrade
 * that changes one fails here, naming the plugin module to re-check; after re-checking it, update
 * the pin (the failure prints the new hash). docs/development.md, "Rules of the house".
 *
 * What the pins cannot see, the rows the plugin writes, tests/api/operations/strapi-rows.test.ts
 * compares with the rows Strapi's upload service writes.
 */
import crypto from 'crypto';
import fs from 'fs';
import path from 'path';
import ts from 'typescript';

/** The Strapi version every pinned module was last checked against. */
const STRAPI_VERSION = '5.54.0';

interface Pin {
  /** The plugin module to re-check, under plugins/image-api/server/src. */
  module: string;
  /** What it does with Strapi's function. */
  why: string;
  /** The file in an installed package, e.g. `@strapi/upload/dist/server/services/upload.js`. */
  file: string;
  /** Functions of that file by name (a function, method, property or variable declaration); none: the whole file. */
  names: string[];
  sha256: string;
}

const PINS: Pin[] = [
  {
    module: 'admin/admin-permissions.ts',
    why: "replaces admin::content-type's getPermissionsWithNestedFields to add key entries to the restrictedSubjects Strapi's default roles are made without",
    file: '@strapi/admin/dist/server/server/src/services/content-type.js',
    names: ['getPermissionsWithNestedFields'],
    sha256: '147984a593bca5a6d43b6a373d629eb1cd566863dad6518db3bc63e21493da51',
  },
  {
    module: 'admin/admin-permissions.ts',
    why: 'relies on createRolesIfNoneExist being the one caller that passes restrictedSubjects, after the plugins\' bootstrap',
    file: '@strapi/admin/dist/server/server/src/services/role.js',
    names: ['createRolesIfNoneExist'],
    sha256: '011cd80088cc1bc4c01088f9211bd8611146fded5e709ff1f12cba3b4deab68b',
  },
  {
    module: 'database/sql-rows.ts',
    why: "writes rows as the entity manager's create and deleteMany do (values converted as processData converts them, links as attachRelations writes them) and runs their lifecycles by hand",
    file: '@strapi/database/dist/entity-manager/index.js',
    names: ['processData', 'create', 'deleteMany', 'attachRelations'],
    sha256: '2c565f6761c152a8f71c3c09b8db9e35234345dc6a9396f31d3963f89e562ea3',
  },
  {
    module: 'storage/upload-records.ts',
    why: "writes the upload plugin's file entry, its folder link and its media-field row as the upload service's add() has the entity manager write them",
    file: '@strapi/upload/dist/server/services/upload.js',
    names: ['formatFileInfo', 'uploadFileAndPersist', 'add'],
    sha256: '4682e32d8e6044ddb4b49799d6fbb44a2a7f56b05bfccde59ad62b21274ed4a0',
  },
  {
    module: 'storage/media-events.ts',
    why: "emits media.create and media.delete with the payload the upload service's emitEvent gives them, at the moments add() and remove() do",
    file: '@strapi/upload/dist/server/services/upload.js',
    names: ['emitEvent', 'remove'],
    sha256: '1c59e9fe77d9ef4d0bfb76fa216a669f9a7e683f68911c75b0fd90b4226f6c7f',
  },
  {
    module: 'storage/file-replacement.ts',
    why: "wraps the upload service's replace(id, { data, file }, opts) to refuse an API image's file",
    file: '@strapi/upload/dist/server/services/upload.js',
    names: ['replace'],
    sha256: 'acdaf218316a40ae5958566480da6f26698d8aeba2c8e23a837789b1b201c44b',
  },
  {
    module: 'sources/media-library-import.ts',
    why: "replaces the file service's fetchUrlToInputFile(url, tmpWorkingDirectory, sizeLimit, onProgress) with the plugin's guarded download",
    file: '@strapi/upload/dist/server/services/file.js',
    names: ['fetchUrlToInputFile'],
    sha256: 'a0dad07d11ffbb422439f8a97b3b19f1785b999c736ac49bcca136056dde13b4',
  },
  {
    module: 'admin/query-protection.ts',
    why: "wraps admin::permission's createPermissionsManager and every manager's sanitizeQuery",
    file: '@strapi/admin/dist/server/server/src/services/permission/permissions-manager/index.js',
    names: [],
    sha256: '26da2d5c465c01c78f84d315a9197a079fef69fa55381c09c6c91e0667715984',
  },
  {
    module: 'http/multipart-body.ts and api/route-scope.ts',
    why: 'run strapi::body without multipart, and with a temp folder per request, from its factory and the app\'s config',
    file: '@strapi/core/dist/middlewares/body.js',
    names: ['bodyMiddleware'],
    sha256: 'a578acf7a9669c9596fe6fc3aa17430c56a52b3760b9484af7d1edb4330d84a6',
  },
  {
    module: 'api/route-scope.ts',
    why: 'puts the upload API\'s own CORS answer in place of strapi::cors on the upload paths',
    file: '@strapi/core/dist/middlewares/cors.js',
    names: ['cors'],
    sha256: 'a1410c1712e3d31a482d037c9666b716330f22f3cbeaeb8a4b379bcd024b3cb6',
  },
  {
    module: 'operations/log-redaction.ts',
    why: 'wraps strapi::logger to redact the URL it logs after the request',
    file: '@strapi/core/dist/middlewares/logger.js',
    names: ['logger'],
    sha256: '5103e9e38a19e906f0002d3d371d3f7f0e7a6479853e0aa4ca2006cb87cc2920',
  },
];

const NODE_MODULES = path.join(__dirname, '..', '..', 'node_modules');

/** The declarations named `name` in a JavaScript file's syntax tree. */
function declarationsOf(source: ts.SourceFile, name: string): ts.Node[] {
  const found: ts.Node[] = [];
  const visit = (node: ts.Node) => {
    const named =
      ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node)
        ? node.name
        : undefined;
    if (named && (ts.isIdentifier(named) || ts.isStringLiteral(named)) && named.text === name) found.push(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The pinned text: the named declarations (each in full), else the whole file. */
function pinnedText(pin: Pin): { text: string; missing: string[] } {
  const file = path.join(NODE_MODULES, pin.file);
  const code = fs.readFileSync(file, 'utf8');
  if (pin.names.length === 0) return { text: code, missing: [] };
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const missing: string[] = [];
  const texts = pin.names.map((name) => {
    const nodes = declarationsOf(source, name);
    if (nodes.length === 0) missing.push(name);
    return nodes.map((node) => node.getText(source)).join('\n');
  });
  return { text: texts.join('\n'), missing };
}

const hash = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

const packageVersion = (name: string) => (JSON.parse(fs.readFileSync(path.join(NODE_MODULES, name, 'package.json'), 'utf8')) as { version: string }).version;

test(`the installed Strapi is the version the replaced functions were written for (${STRAPI_VERSION})`, () => {
  const packages = ['@strapi/strapi', ...new Set(PINS.map((pin) => pin.file.split('/').slice(0, 2).join('/')))];
  const versions = Object.fromEntries(packages.map((name) => [name, packageVersion(name)]));
  const changed = Object.entries(versions).filter(([, version]) => version !== STRAPI_VERSION);
  if (changed.length > 0) {
    throw new Error(
      `Strapi is ${changed.map(([name, version]) => `${name}@${version}`).join(', ')}, not ${STRAPI_VERSION}: re-check ` +
        `${[...new Set(PINS.map((pin) => pin.module))].join(', ')} (plugins/image-api/server/src) against it, ` +
        'update the pins whose hashes fail below, then STRAPI_VERSION in tests/config/strapi-pins.test.ts'
    );
  }
});

test.each(PINS.map((pin) => [`${pin.file} ${pin.names.join(', ') || '(the whole file)'}`, pin] as const))('%s is as pinned', (_title, pin) => {
  const { text, missing } = pinnedText(pin);
  if (missing.length > 0) {
    throw new Error(`${pin.file} no longer declares ${missing.join(', ')}: re-check plugins/image-api/server/src/${pin.module}, which ${pin.why}`);
  }
  const now = hash(text);
  if (now !== pin.sha256) {
    throw new Error(
      `${pin.file} ${pin.names.join(', ') || '(the whole file)'} changed (sha256 ${now}): re-check ` +
        `plugins/image-api/server/src/${pin.module}, which ${pin.why}; then put the new hash in its pin in tests/config/strapi-pins.test.ts`
    );
  }
});
