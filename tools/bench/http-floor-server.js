// The floor's pipeline (floor.js) behind a bare node:http server, for http-floor.js: the multipart
// body parsed by busboy, the pipeline run, a small JSON answer; no framework, no database. Tells the
// parent its port over IPC.
'use strict';

const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const Busboy = require('@fastify/busboy');
const { floorPipeline } = require('./floor');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-http-floor-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
process.on('SIGTERM', () => process.exit(0));

const server = http.createServer((req, res) => {
  const parser = new Busboy({ headers: req.headers });
  let file = null;
  parser.on('file', (field, stream, filename, encoding, type) => {
    const parts = [];
    stream.on('data', (part) => parts.push(part));
    stream.on('end', () => (file = { bytes: Buffer.concat(parts), type }));
  });
  parser.on('finish', () => {
    floorPipeline(file, dir).then(
      () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ stored: file.bytes.length }));
      },
      (error) => {
        res.statusCode = 500;
        res.end(String(error));
      }
    );
  });
  req.pipe(parser);
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
