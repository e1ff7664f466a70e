import { headerOverflowAnswer } from '../../server/src/http/client-errors';

const isUploadPath = (path: string) => /^\/api\/\d+(\/.*)?$/.test(path);
const packet = (requestLine: string) => Buffer.from(`${requestLine}\r\nHost: x\r\n`);

test.each([
  ['GET /api/1/upload?key=k&source=iVBORw0KGgo HTTP/1.1', 130],
  ['GET /api/1/upload/?image=R0lGODlh&key=k HTTP/1.1', 130],
  ['GET /api/1/upload?source=https%3A%2F%2Fexample.com%2Fa.png&x=1 HTTP/1.1', 431],
  ['GET /api/1/upload?source=http://example.com/a.png HTTP/1.1', 431],
  ['POST /api/1/upload?source=iVBORw0KGgo HTTP/1.1', 431],
  ['GET /admin?source=iVBORw0KGgo HTTP/1.1', 431],
  ['GET /api/1/upload?key=k HTTP/1.1', 431],
])('%s → %d', (line, code) => {
  expect(headerOverflowAnswer(packet(line), isUploadPath).code).toBe(code);
});

test('nothing to read: 431', () => {
  expect(headerOverflowAnswer(undefined, isUploadPath).code).toBe(431);
});
