'use strict';
/**
 * An HTTP client for tests and benchmarks that sees what a client sees: every answer is resolved,
 * never thrown (no answer at all is status 0 with the error), with a timeout on every request. A body
 * is sent while the answer is read, and an answer that comes before the body is fully sent (a
 * refusal) is taken as the answer, the rest of the body left unsent, as curl does.
 */
const http = require('http');
const { multipartFrame } = require('./multipart');

/**
 * @typedef {object} Answer
 * @property {number} status HTTP status, or 0 when the client got no answer (socket error, timeout)
 * @property {Record<string, string>} headers
 * @property {string} text the body as text
 * @property {any} json the body parsed, or null when it is not JSON
 * @property {any} body json when it parsed, else text
 * @property {string} [error] the client's error when there was no answer
 * @property {number} ms from the request to the end of the answer
 */

/**
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string | number>, body?: Buffer | string | Buffer[], from?: string, timeoutMs?: number, agent?: http.Agent | false }} [options]
 *   `body`: parts are written one after the other; `from`: the loopback source address (127.0.0.2,
 *   127.0.0.3... are different clients to a server or a balancer)
 * @returns {Promise<Answer>}
 */
function request(url, options = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...answer, ms: Date.now() - started });
    };
    const req = http.request(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      localAddress: options.from,
      agent: options.agent ?? false,
    });
    const timer = setTimeout(() => {
      req.destroy();
      settle({ status: 0, headers: {}, text: '', json: null, body: null, error: 'client timeout' });
    }, options.timeoutMs ?? 60000);
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('error', () => undefined);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json = null;
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON
        }
        settle({ status: res.statusCode ?? 0, headers: res.headers, text, json, body: json ?? text });
        // Answered before the whole body was sent: the rest is not sent.
        if (!req.writableFinished) req.destroy();
      });
    });
    req.on('error', (error) => settle({ status: 0, headers: {}, text: '', json: null, body: null, error: String(error) }));
    const parts = options.body === undefined ? [] : Array.isArray(options.body) ? options.body : [options.body];
    for (const part of parts) req.write(part);
    req.end();
  });
}

/**
 * One multipart upload of `bytes` to `<url>/api/1/upload`: the key in `X-API-Key` (or, with
 * `keyIn: 'field'`, in a `key` field as form clients send it), `fields` as text parts.
 * @param {string} url the app's (or the balancer's) base URL
 * @param {string} key
 * @param {Buffer} bytes
 * @param {{ name?: string, type?: string, fields?: Record<string, string | number>, keyIn?: 'header' | 'field', headers?: Record<string, string>, from?: string, timeoutMs?: number, path?: string }} [options]
 * @returns {Promise<Answer>}
 */
function uploadFile(url, key, bytes, options = {}) {
  const fields = { ...(options.keyIn === 'field' ? { key } : {}), ...options.fields };
  const frame = multipartFrame(fields, { bytes, name: options.name ?? 'a.jpg', type: options.type ?? 'image/jpeg' });
  return request(`${url}${options.path ?? '/api/1/upload'}`, {
    method: 'POST',
    headers: {
      ...(options.keyIn === 'field' ? {} : { 'X-API-Key': key }),
      'Content-Type': frame.contentType,
      'Content-Length': frame.length,
      ...options.headers,
    },
    body: [frame.head, bytes, frame.tail],
    from: options.from,
    timeoutMs: options.timeoutMs ?? 120000,
  });
}

/** Counts of answers by status, e.g. { 200: 12, 503: 3 }. */
const tally = (answers) => answers.reduce((counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

module.exports = { request, uploadFile, tally };
